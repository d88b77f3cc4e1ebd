// The play page of the other games (`cxarena serve`, /games; see arena/play/server.py).
// Othello: click a square (or Pass). Morris: click a point to place; to move, click your piece,
// then its target; after a mill, click the piece to remove. A click sequence becomes the
// move's text, matched against the legal moves the server sent.
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";
const st = { ws: null, game: 0, bots: [], legal: [], sel: "", drawing: null, bot: "",
             over: true, name: "" };

function send(msg) {
  if (st.ws && st.ws.readyState === WebSocket.OPEN) { st.ws.send(JSON.stringify(msg)); return true; }
  notice("not connected to the server: reload the page");
  return false;
}
function notice(t) { $("notice").textContent = t || ""; }
function status(t) { $("status").textContent = t; }
function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVGNS, tag);
  for (const k in attrs) el.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(el);
  return el;
}
function fill(c) { return c === "white" ? "#f4f4f4" : "#222"; }

// the legal moves that a selection so far can still become
function candidates() { return st.legal.filter((t) => t.startsWith(st.sel)); }

function clickPoint(name) {
  if (!st.legal.length || st.over) return;
  notice("");
  let next;
  if (st.name === "othello") { next = name; }
  else if (!st.sel) { next = name; }
  else if (st.sel.includes("-") || st.legal.some((t) => t.startsWith(st.sel + "x"))) {
    const base = st.sel;
    next = st.legal.includes(base + "x" + name) ? base + "x" + name
      : (st.legal.some((t) => t.startsWith(base + "-" + name)) ? base + "-" + name : name);
  } else { next = st.sel + "-" + name; }
  if (!st.legal.some((t) => t.startsWith(next)) || (st.name === "othello" && !st.legal.includes(next))) {
    // a fresh start from this point, if that is a move's beginning
    if (st.legal.some((t) => t.startsWith(name))) { next = name; }
    else { notice(`${name}: not a legal move now`); st.sel = ""; draw(); return; }
  }
  const exact = st.legal.includes(next);
  const longer = st.legal.some((t) => t.startsWith(next) && t !== next);
  if (exact && !longer) { play(next); return; }
  st.sel = next;
  $("hint").textContent = `chosen: ${next}` + (longer ? " (click the next point)" : "");
  draw();
}

function play(text) {
  st.sel = "";
  $("hint").textContent = "";
  if (send({ type: "move", move: text })) { st.legal = []; draw(); status(`${st.bot} is thinking ...`); }
}

function draw() {
  const d = st.drawing, box = $("gboard");
  box.innerHTML = "";
  if (!d) return;
  const targets = new Set(candidates().map((t) => {
    const rest = t.slice(st.sel.length).replace(/^[-x]/, "");
    return rest.slice(0, 2);
  }));
  if (d.kind === "grid") {
    const C = 48, L = 22;
    const root = svg("svg", { viewBox: `0 0 ${L + d.cols * C + 4} ${L + d.rows * C + 4}`,
                              width: L + d.cols * C + 4 }, box);
    svg("rect", { x: L, y: L, width: d.cols * C, height: d.rows * C, fill: "#2e7d4f" }, root);
    for (let c = 0; c < d.cols; c++) {
      svg("text", { x: L + c * C + C / 2, y: 15, "text-anchor": "middle" }, root).textContent = d.col_labels[c];
    }
    for (let r = 0; r < d.rows; r++) {
      svg("text", { x: 10, y: L + r * C + C / 2 + 5, "text-anchor": "middle" }, root).textContent = d.row_labels[r];
      for (let c = 0; c < d.cols; c++) {
        const name = d.col_labels[c] + d.row_labels[r];
        const cell = svg("rect", { x: L + c * C, y: L + r * C, width: C, height: C,
                                   fill: targets.has(name) && st.legal.length ? "#3f9d65" : "transparent",
                                   stroke: "#114", "data-square": name,
                                   "data-target": targets.has(name) ? "1" : "0" }, root);
        cell.addEventListener("click", () => clickPoint(name));
        const v = d.cells[r][c];
        if (v) {
          const p = svg("circle", { cx: L + c * C + C / 2, cy: L + r * C + C / 2, r: 18,
                                    fill: fill(d.colors[v - 1]), stroke: "#000",
                                    "data-square": name, "data-state": v }, root);
          p.addEventListener("click", () => clickPoint(name));
        }
      }
    }
    $("hand").textContent = "";
  } else {
    const C = 56, P = 24;
    const root = svg("svg", { viewBox: `0 0 ${2 * P + 6 * C} ${2 * P + 6 * C}`, width: 2 * P + 6 * C }, box);
    svg("rect", { x: 0, y: 0, width: 2 * P + 6 * C, height: 2 * P + 6 * C, fill: "#d9b77e" }, root);
    for (const [a, b] of d.lines) {
      const pa = d.points[a], pb = d.points[b];
      svg("line", { x1: P + pa.x * C, y1: P + pa.y * C, x2: P + pb.x * C, y2: P + pb.y * C,
                    stroke: "#3b2a14", "stroke-width": 3 }, root);
    }
    const chosen = st.sel.split(/[-x]/).filter(Boolean);
    for (const p of d.points) {
      const target = targets.has(p.name) && st.legal.length > 0;
      const el = svg("circle", { cx: P + p.x * C, cy: P + p.y * C, r: p.piece ? 17 : (target ? 10 : 6),
                                 fill: p.piece ? fill(d.colors[p.piece - 1]) : (target ? "#7a5" : "#3b2a14"),
                                 stroke: p.piece && target ? "#2c2" : "#000",
                                 "stroke-width": p.piece && target ? 4 : 1,
                                 "data-point": p.name, "data-state": p.piece,
                                 "data-target": target ? "1" : "0",
                                 class: chosen.includes(p.name) ? "chosen" : "" }, root);
      el.addEventListener("click", () => clickPoint(p.name));
    }
    $("hand").textContent = `in hand: ${d.colors[0]} ${d.in_hand[0]}, ${d.colors[1]} ${d.in_hand[1]}`;
  }
  $("pass").disabled = !st.legal.includes("pass");
}

function handle(msg) {
  if (msg.type === "error") { notice(msg.message); return; }
  if (msg.game !== st.game && msg.type !== "started") return;
  if (msg.type === "started") {
    Object.assign(st, { game: msg.game, bot: msg.bot, name: msg.name, over: false, sel: "",
                        drawing: msg.drawing, legal: msg.legal });
    $("moves").innerHTML = ""; $("result").textContent = ""; $("stored").textContent = "";
    $("resign").disabled = false;
    status(st.legal.length ? "Your turn." : `${st.bot} is thinking ...`);
    draw();
  } else if (msg.type === "moved") {
    st.drawing = msg.drawing; st.legal = msg.legal; st.sel = "";
    const li = document.createElement("li");
    li.textContent = msg.by_human ? `you: ${msg.move}` : `${st.bot}: ${msg.move} (${Math.round(msg.elapsed_ms)} ms)`;
    li.dataset.move = msg.move;
    $("moves").appendChild(li);
    if (msg.ends_game) status("Game over.");
    else if (st.legal.length) status(`${st.bot} played ${msg.move}. Your turn.`);
    else status(`${st.bot} is thinking ...`);
    draw();
  } else if (msg.type === "finished") {
    st.over = true; st.legal = [];
    $("result").textContent = msg.message; $("result").className = msg.outcome;
    $("resign").disabled = true;
    status("Game over. Start a new game when you like.");
    if (msg.game_id) $("stored").textContent = `Stored as game ${msg.game_id}.`;
    else if (msg.store_error) $("stored").textContent = `Not stored: ${msg.store_error}`;
    draw();
  }
}

function fillBots() {
  const select = $("bot"), game = $("game").value;
  select.innerHTML = "";
  for (const b of st.bots.filter((x) => x.game === game)) {
    const opt = document.createElement("option");
    opt.value = b.name; opt.textContent = `${b.name} (${b.doc})`;
    select.appendChild(opt);
  }
}

async function start() {
  const resp = await fetch("/api/bots");
  st.bots = (await resp.json()).bots;
  fillBots();
  const proto = location.protocol === "https:" ? "wss" : "ws";
  st.ws = new WebSocket(`${proto}://${location.host}/ws/play`);
  st.ws.onmessage = (ev) => handle(JSON.parse(ev.data));
  st.ws.onclose = () => status("Connection to the server lost: reload the page.");
}

$("game").addEventListener("change", fillBots);
$("setup").addEventListener("submit", (ev) => {
  ev.preventDefault(); notice("");
  send({ type: "new", game: $("game").value, params: {}, bot: $("bot").value,
         time: Number($("time").value), first: $("first").checked });
});
$("pass").addEventListener("click", () => play("pass"));
$("resign").addEventListener("click", () => send({ type: "resign" }));
start();
