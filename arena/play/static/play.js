// The play page of `cxarena serve`: one WebSocket per tab (see arena/play/server.py).
"use strict";

const $ = (id) => document.getElementById(id);
const state = { ws: null, game: 0, M: 0, N: 0, K: 0, human: 1, bot: "", cells: [],
                myTurn: false, over: true, botNames: [] };

function send(msg) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    state.ws.send(JSON.stringify(msg));
    return true;
  }
  notice("not connected to the server: reload the page");
  return false;
}

function notice(text) { $("notice").textContent = text || ""; }
function status(text) { $("status").textContent = text; }

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/play`);
  state.ws = ws;
  ws.onmessage = (ev) => handle(JSON.parse(ev.data));
  ws.onclose = () => {
    status("Connection to the server lost: reload the page.");
    state.myTurn = false;
    markPlayable();
  };
}

function handle(msg) {
  if (msg.type === "error") { notice(msg.message); if (msg.game === state.game) markPlayable(); return; }
  if (msg.game !== state.game && msg.type !== "started") return;  // an older game's message
  if (msg.type === "started") return started(msg);
  if (msg.type === "moved") return moved(msg);
  if (msg.type === "finished") return finished(msg);
}

function buildBoard() {
  const board = $("board");
  board.innerHTML = "";
  state.cells = [];
  for (let j = 0; j < state.N; j++) {
    const col = document.createElement("div");
    col.className = "col";
    col.dataset.col = j;
    const head = document.createElement("div");
    head.className = "head";
    head.textContent = j;
    col.appendChild(head);
    for (let i = 0; i < state.M; i++) {
      const cell = document.createElement("div");
      cell.className = "cell";
      cell.dataset.row = i;
      cell.dataset.col = j;
      col.appendChild(cell);
      (state.cells[i] = state.cells[i] || [])[j] = cell;
    }
    col.addEventListener("click", () => clickColumn(j));
    board.appendChild(col);
  }
}

function markPlayable() {
  for (const col of document.querySelectorAll("#board .col")) {
    const j = Number(col.dataset.col);
    const full = state.cells[0][j].firstChild !== null;
    col.dataset.full = full ? "1" : "0";
    col.classList.toggle("playable", state.myTurn && !state.over && !full);
  }
}

function clickColumn(j) {
  if (!state.myTurn || state.over) return;
  notice("");
  if (send({ type: "move", column: j })) {
    state.myTurn = false;
    markPlayable();
  }
}

function started(msg) {
  Object.assign(state, { game: msg.game, M: msg.M, N: msg.N, K: msg.K, human: msg.human,
                         bot: msg.bot, over: false });
  state.myTurn = msg.human === 1;
  buildBoard();
  $("moves").innerHTML = "";
  $("result").textContent = "";
  $("result").className = "";
  $("stored").textContent = "";
  $("resign").disabled = false;
  const colors = { 1: "red", 2: "yellow" };
  $("legend").textContent = `You play ${colors[msg.human]}, ${state.bot} ${colors[3 - msg.human]}; `
    + `${msg.K} in a row wins; ${state.bot} has ${msg.time} s per move, you have no limit.`;
  status(state.myTurn ? "Your turn: click a column." : `${state.bot} is thinking ...`);
  markPlayable();
}

function moved(msg) {
  for (const p of document.querySelectorAll(".piece.last")) p.classList.remove("last");
  const piece = document.createElement("div");
  piece.className = `piece p${msg.player} drop last`;
  piece.style.setProperty("--fall", msg.row + 1);
  state.cells[msg.row][msg.column].appendChild(piece);
  const li = document.createElement("li");
  li.textContent = msg.by_human ? `you: ${msg.column}`
    : `${state.bot}: ${msg.column} (${Math.round(msg.elapsed_ms)} ms)`;
  $("moves").appendChild(li);
  state.myTurn = !msg.by_human && !msg.ends_game;
  if (msg.ends_game) status("Game over.");
  else status(msg.by_human ? `${state.bot} is thinking ...`
    : `${state.bot} played ${msg.column} in ${Math.round(msg.elapsed_ms)} ms. Your turn.`);
  markPlayable();
}

function finished(msg) {
  state.over = true;
  state.myTurn = false;
  for (const [i, j] of msg.winning_cells) {
    const piece = state.cells[i][j].firstChild;
    if (piece) piece.classList.add("win");
  }
  $("result").textContent = msg.message;
  $("result").className = msg.outcome;
  $("resign").disabled = true;
  status("Game over. Start a new game when you like.");
  if (msg.game_id) {
    $("stored").innerHTML = "";
    $("stored").append("Stored as game ", Object.assign(document.createElement("code"),
      { textContent: msg.game_id }), " (see ",
      Object.assign(document.createElement("a"), { href: "/results", textContent: "stored results" }),
      ").");
  } else if (msg.store_error) {
    $("stored").textContent = `Not stored: ${msg.store_error}`;
  }
  markPlayable();
}

async function loadBots() {
  const resp = await fetch("/api/bots");
  const data = await resp.json();
  const select = $("bot");
  for (const b of data.bots.filter((x) => !x.game || x.game === "connectx")) {  // others: /games
    const opt = document.createElement("option");
    opt.value = b.name;
    const doc = b.doc.toLowerCase().startsWith(`${b.name.toLowerCase()}:`) ? b.doc
      : (b.doc ? `${b.name}: ${b.doc}` : b.name);
    opt.textContent = b.source.startsWith("players") ? doc : `${doc} (${b.source})`;
    select.appendChild(opt);
  }
  state.botNames = data.bots.filter((x) => !x.game || x.game === "connectx").map((b) => b.name);
}

$("setup").addEventListener("submit", (ev) => {
  ev.preventDefault();
  notice("");
  send({ type: "new", bot: $("bot").value, M: Number($("M").value), N: Number($("N").value),
         K: Number($("K").value), time: Number($("time").value), first: $("first").checked });
});
$("resign").addEventListener("click", () => send({ type: "resign" }));

loadBots().then(connect);
