// The play page of `cxarena serve` (see arena/play/server.py): one WebSocket per tab; the board
// is the game viewer of the report (/viewer/viewer.js) with the games' drawers
// (/viewer/drawers.js: arena/games/<game>/draw.js), live: each move is pushed onto it, and
// the squares, points or columns the person may click carry data-target="1".
// The page names no game: the games, their titles and their parameters come from the server
// (/api/bots: each game's own description), and so does how a game is played:
// - a board whose pieces drop down columns (the server's `started` gives M, N, K): click a
//   column;
// - any other: click a square or a point (or Pass); a move of several points (a piece's
//   move, then a capture) is clicked point by point. A click sequence becomes the move's
//   text, matched against the legal moves the server sent.
"use strict";

const $ = (id) => document.getElementById(id);
const st = { ws: null, game: 0, bots: [], games: [], name: "", bot: "", over: true,
             viewer: null, legal: [], sel: [], myTurn: false, columns: false, N: 0,
             heights: [], M: 0 };

function send(msg) {
  if (st.ws && st.ws.readyState === WebSocket.OPEN) { st.ws.send(JSON.stringify(msg)); return true; }
  notice("not connected to the server: reload the page");
  return false;
}
function notice(t) { $("notice").textContent = t || ""; }
function status(t) { $("status").textContent = t; }

// ------------------------------------------------------------------ what may be clicked
// A move's points: "c4-c3xd6" -> ["c4", "c3", "d6"]; "d3" -> ["d3"]. The person clicks them
// in order; st.sel holds the points clicked so far.
function points(text) { return text.split(/[-x]/); }
function startsWith(a, b) { return b.every((p, i) => a[i] === p); }
// the legal moves that the points clicked so far can still become (other games)
function candidates(sel) {
  return st.legal.filter((t) => t !== "pass" && startsWith(points(t), sel));
}

function mark() {
  if (!st.viewer) return;
  if (st.columns) {
    const free = new Set();
    if (st.myTurn && !st.over) {
      for (let j = 0; j < st.N; j++) if (st.heights[j] < st.M) free.add(j);
    }
    st.viewer.mark(free);
    return;
  }
  const targets = new Set(st.over ? [] : candidates(st.sel).map((t) => points(t)[st.sel.length])
    .filter(Boolean));
  st.viewer.mark(targets, st.sel);
  $("pass").disabled = $("pass").hidden = !st.legal.includes("pass");
}

function atEnd() {  // the person plays on the last position only
  if (st.viewer.position() !== st.viewer.length()) { st.viewer.goto(st.viewer.length()); return false; }
  return true;
}

function clickColumn(j) {
  if (!st.myTurn || st.over || !atEnd()) return;
  if (st.heights[j] >= st.M) return;
  notice("");
  if (send({ type: "move", column: j })) { st.myTurn = false; mark(); }
}

function clickPoint(name) {
  if (!st.legal.length || st.over || !atEnd()) return;
  notice("");
  let sel = st.sel.concat([name]);
  if (!candidates(sel).length) {
    sel = [name];  // a fresh start from this point, if that is a move's beginning
    if (!candidates(sel).length) { notice(`${name}: not a legal move now`); st.sel = []; mark(); return; }
  }
  const exact = candidates(sel).find((t) => points(t).length === sel.length);
  const longer = candidates(sel).some((t) => points(t).length > sel.length);
  if (exact && !longer) { play(exact); return; }
  st.sel = sel;
  $("hint").textContent = `chosen: ${sel.join(" ")}` + (longer ? " (click the next point)" : "");
  mark();
}

function play(text) {
  st.sel = [];
  $("hint").textContent = "";
  if (send({ type: "move", move: text })) { st.legal = []; mark(); status(`${st.bot} is thinking ...`); }
}

// ------------------------------------------------------------------ the server's messages
function players(human) {
  return human === 1 ? ["you", st.bot] : [st.bot, "you"];
}

function started(msg) {
  Object.assign(st, { game: msg.game, bot: msg.bot, over: false, sel: [], legal: msg.legal || [] });
  $("result").textContent = ""; $("result").className = "";
  $("stored").textContent = ""; $("hint").textContent = "";
  $("resign").disabled = false;
  if (st.viewer) st.viewer.destroy();
  let game;
  st.name = msg.name;
  st.columns = !msg.drawing;
  if (msg.drawing) {  // the server draws each position (Game.drawing)
    game = Object.assign({}, msg.drawing, { game: msg.name, frames: [msg.drawing], moves: [],
                                            times_ms: [], players: players(msg.human),
                                            label: msg.label });
    st.myTurn = st.legal.length > 0;
  } else {  // pieces drop down columns: the game's drawer replays the columns
    Object.assign(st, { M: msg.M, N: msg.N, heights: new Array(msg.N).fill(0) });
    game = { game: msg.name, M: msg.M, N: msg.N, K: msg.K, moves: [], times_ms: [],
             players: players(msg.human) };
    st.myTurn = msg.human === 1;
  }
  const colors = msg.colors;
  $("legend").textContent = `${msg.title} ${msg.describe}: you play ${colors[msg.human - 1]}, `
    + `${st.bot} ${colors[2 - msg.human]}; ${st.bot} has ${msg.time} s per move, you have no `
    + "limit.";
  st.viewer = CXViewer.mount($("board"), game, { position: "end", timeout_ms: msg.time * 1000,
                                                 onColumnClick: clickColumn,
                                                 onPointClick: clickPoint });
  status(st.myTurn ? (st.columns ? "Your turn: click a column." : "Your turn.")
    : `${st.bot} is thinking ...`);
  mark();
}

function moved(msg) {
  const ms = msg.by_human ? undefined : msg.elapsed_ms;
  if (msg.drawing) {
    st.legal = msg.legal; st.sel = [];
    st.viewer.push(msg.move, ms, msg.drawing);
    st.myTurn = st.legal.length > 0;
    if (msg.ends_game) status("Game over.");
    else if (st.myTurn) status(`${st.bot} played ${msg.move}. Your turn.`);
    else status(`${st.bot} is thinking ...`);
  } else {
    st.heights[msg.column]++;
    st.viewer.push(msg.column, ms);
    st.myTurn = !msg.by_human && !msg.ends_game;
    if (msg.ends_game) status("Game over.");
    else status(msg.by_human ? `${st.bot} is thinking ...`
      : `${st.bot} played ${msg.column} in ${Math.round(msg.elapsed_ms)} ms. Your turn.`);
  }
  mark();
}

function finished(msg) {
  st.over = true; st.myTurn = false; st.legal = [];
  $("result").textContent = msg.message;
  $("result").className = msg.outcome;
  $("resign").disabled = true;
  status("Game over. Start a new game when you like.");
  const rec = msg.record || {};
  st.viewer.finish({ winner: rec.winner || null, reason: rec.reason || "end",
                     offender: rec.offender || null, explanation: msg.message });
  if (msg.game_id) {
    $("stored").textContent = "";
    $("stored").append("Stored as game ", Object.assign(document.createElement("code"),
      { textContent: msg.game_id }), " (see ",
      Object.assign(document.createElement("a"), { href: "/results", textContent: "stored results" }),
      ").");
  } else if (msg.store_error) {
    $("stored").textContent = `Not stored: ${msg.store_error}`;
  }
  mark();
}

function handle(msg) {
  if (msg.type === "error") {
    notice(msg.message);
    if (msg.game === st.game && st.columns && !st.over) { st.myTurn = true; mark(); }
    return;
  }
  if (msg.game !== st.game && msg.type !== "started") return;  // an older game's message
  if (msg.type === "started") return started(msg);
  if (msg.type === "moved") return moved(msg);
  if (msg.type === "finished") return finished(msg);
}

// ------------------------------------------------------------------ the form
function fillBots() {
  const select = $("bot"), game = $("game").value;
  select.innerHTML = "";
  for (const b of st.bots.filter((x) => x.game === game)) {
    const opt = document.createElement("option");
    opt.value = b.name;
    const doc = b.doc.toLowerCase().startsWith(`${b.name.toLowerCase()}:`) ? b.doc
      : (b.doc ? `${b.name}: ${b.doc}` : b.name);
    opt.textContent = b.source.startsWith("players") ? doc : `${doc} (${b.source})`;
    select.appendChild(opt);
  }
  fillParams(game);
}

// the game's parameters, each a number field (its label and default: the game's own)
function fillParams(name) {
  const box = $("params");
  box.innerHTML = "";
  const game = st.games.find((g) => g.name === name);
  for (const p of (game ? game.params : [])) {
    const label = document.createElement("label");
    const input = Object.assign(document.createElement("input"),
      { id: `param-${p.name}`, name: p.name, type: "number", step: "1", value: p.default });
    label.append(`${p.label} `, input);
    box.appendChild(label);
  }
}

async function start() {
  const resp = await fetch("/api/bots");
  const data = await resp.json();
  st.bots = data.bots;
  st.games = data.games;  // in the menu's order, each with its title and parameters
  for (const g of st.games) {
    const opt = document.createElement("option");
    opt.value = g.name; opt.textContent = g.title;
    $("game").appendChild(opt);
  }
  if (location.pathname === "/games" && st.games.length > 1) {
    $("game").value = st.games[1].name;  // the old address of the games after the first
  }
  fillBots();
  const proto = location.protocol === "https:" ? "wss" : "ws";
  st.ws = new WebSocket(`${proto}://${location.host}/ws/play`);
  st.ws.onmessage = (ev) => handle(JSON.parse(ev.data));
  // "New game" waits for the connection: a click before it opened was lost (load showed it)
  st.ws.onopen = () => { $("new").disabled = false; };
  st.ws.onclose = () => {
    status("Connection to the server lost: reload the page.");
    st.myTurn = false; $("new").disabled = true; mark();
  };
}

$("game").addEventListener("change", fillBots);
$("setup").addEventListener("submit", (ev) => {
  ev.preventDefault();
  notice("");
  const game = $("game").value;
  const msg = { type: "new", game, bot: $("bot").value, time: Number($("time").value),
                first: $("first").checked, params: {} };
  for (const input of $("params").querySelectorAll("input")) {
    msg.params[input.name] = Number(input.value);
  }
  send(msg);
});
$("pass").addEventListener("click", () => play("pass"));
$("resign").addEventListener("click", () => send({ type: "resign" }));
start();
