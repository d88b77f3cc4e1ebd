/*
 * cxarena report page: reads the game data (#cx-data, see arena/report/html.py for its
 * format), fills the fault list and the game browser (filters, paging), and opens games in
 * the viewer (viewer.js with the games' drawers, CXViewer.mount). No network: everything is
 * in the page.
 * window.cxReport exposes the state for tests and the load-time benchmark.
 */
(function () {
  "use strict";
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById("cx-data").textContent);
  var tParsed = performance.now();
  var G = D.games;
  var count = G.id.length;
  var PAGE = 50, FAULT_PAGE = 20;
  var ALPHA = D.move_alphabet;
  var alphaIndex = {};
  for (var a = 0; a < ALPHA.length; a++) { alphaIndex[ALPHA.charAt(a)] = a; }
  var idIndex = null;

  function $(id) { return document.getElementById(id); }
  function h(tag, attrs, parent, text) {
    var el = document.createElement(tag);
    if (attrs) { for (var k in attrs) { el.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    if (parent) { parent.appendChild(el); }
    return el;
  }
  function boardName(b) {
    var x = D.boards[b];
    return typeof x === "string" ? x : x[0] + "x" + x[1] + " K=" + x[2];  // another game: its label
  }
  function isOtherGame(i) { return typeof D.boards[G.board[i]] === "string"; }
  function more(i) { return D.more[String(i)] || {}; }

  function decodeMoves(i) {
    if (isOtherGame(i)) { return G.moves[i] ? G.moves[i].split(" ") : []; }
    var s = G.moves[i], N = D.boards[G.board[i]][1], out = [];
    if (N <= 64) {
      for (var k = 0; k < s.length; k++) { out.push(alphaIndex[s.charAt(k)]); }
    } else {
      for (var m = 0; m + 1 < s.length; m += 2) {
        out.push(alphaIndex[s.charAt(m)] * 64 + alphaIndex[s.charAt(m + 1)]);
      }
    }
    return out;
  }
  function decodeTimes(i) {
    var s = G.times[i];
    if (!s) { return []; }
    return s.split(",").map(function (x) { return parseInt(x, 36) * D.time_unit_ms; });
  }
  function moveCount(i) {
    if (isOtherGame(i)) { return G.moves[i] ? G.moves[i].split(" ").length : 0; }
    var N = D.boards[G.board[i]][1];
    return N <= 64 ? G.moves[i].length : G.moves[i].length / 2;
  }
  function resultText(i) {
    var w = G.winner[i];
    return w === 1 ? "1-0" : w === 2 ? "0-1" : "½-½";
  }
  function indexOf(id) {
    if (!idIndex) {
      idIndex = new Map();
      for (var i = 0; i < count; i++) { idIndex.set(G.id[i], i); }
    }
    return idIndex.has(id) ? idIndex.get(id) : -1;
  }

  // ------------------------------------------------------------------ filters
  var F = { player: $("f-player"), opponent: $("f-opponent"), board: $("f-board"),
            result: $("f-result"), reason: $("f-reason"), text: $("f-text") };
  function options(sel, items) {
    items.forEach(function (it) { h("option", { value: it[0] }, sel, it[1]); });
  }
  var anyPlayer = [["", "any"]].concat(D.players.map(function (p, i) { return [String(i), p]; }));
  options(F.player, anyPlayer);
  options(F.opponent, anyPlayer);
  options(F.board, [["", "any"]].concat(D.boards.map(function (b, i) {
    return [String(i), boardName(i)]; })));
  options(F.result, [["", "any"], ["1", "first player won (1-0)"],
                     ["2", "second player won (0-1)"], ["0", "draw (½-½)"],
                     ["won", "won by the player"], ["lost", "lost by the player"],
                     ["drawn", "drawn by the player"]]);
  options(F.reason, [["", "any"], ["fault", "any fault"]].concat(
    D.reasons.map(function (r, i) { return [String(i), r]; })));

  var filtered = [];
  var page = 0;
  var current = -1;
  var viewer = null;

  function matches(i, f) {
    var a = G.p1[i], b = G.p2[i];
    if (f.player >= 0) {
      if (a !== f.player && b !== f.player) { return false; }
      if (f.opponent >= 0) {
        if (!((a === f.player && b === f.opponent) || (b === f.player && a === f.opponent))) {
          return false;
        }
      }
    } else if (f.opponent >= 0 && a !== f.opponent && b !== f.opponent) { return false; }
    if (f.board >= 0 && G.board[i] !== f.board) { return false; }
    var w = G.winner[i];
    if (f.result !== "") {
      if (f.result === "1" || f.result === "2" || f.result === "0") {
        if (w !== Number(f.result)) { return false; }
      } else if (f.player >= 0) {
        var seat = a === f.player ? 1 : 2;
        if (f.result === "won" && w !== seat) { return false; }
        if (f.result === "lost" && (w === 0 || w === seat)) { return false; }
        if (f.result === "drawn" && w !== 0) { return false; }
      }
    }
    if (f.reason === "fault") {
      if (!G.offender[i]) { return false; }
    } else if (f.reason !== "" && G.reason[i] !== Number(f.reason)) { return false; }
    if (f.text && G.id[i].toLowerCase().indexOf(f.text) < 0) { return false; }
    return true;
  }

  function applyFilters() {
    var f = { player: F.player.value === "" ? -1 : Number(F.player.value),
              opponent: F.opponent.value === "" ? -1 : Number(F.opponent.value),
              board: F.board.value === "" ? -1 : Number(F.board.value),
              result: F.result.value, reason: F.reason.value,
              text: F.text.value.trim().toLowerCase() };
    var out = [];
    for (var i = 0; i < count; i++) { if (matches(i, f)) { out.push(i); } }
    filtered = out;
    sortList();
    page = 0;
    var relative = F.result.value === "won" || F.result.value === "lost" ||
                   F.result.value === "drawn";
    $("game-count").textContent = out.length.toLocaleString("en") + " of " +
      count.toLocaleString("en") + " games" +
      (relative && f.player < 0 ? " (won/lost/drawn need a player: ignored)" : "");
    renderList();
  }

  function setFilters(values) {
    ["player", "opponent", "board", "result", "reason"].forEach(function (k) {
      F[k].value = values[k] === undefined ? "" : String(values[k]);
    });
    F.text.value = values.text || "";
    applyFilters();
  }

  // -------------------------------------------------------------- sorting
  var sortKey = "", sortDir = 1;
  var maxTime = null;
  function maxTimeOf(i) {
    if (!maxTime) { maxTime = new Float64Array(count).fill(-1); }
    if (maxTime[i] < 0) {
      var t = decodeTimes(i);
      maxTime[i] = t.length ? Math.max.apply(null, t) : 0;
    }
    return maxTime[i];
  }
  var SORTS = {
    game: function (i) { return G.id[i]; },
    board: function (i) {
      var b = D.boards[G.board[i]];
      return typeof b === "string" ? G.board[i] : b[0] * b[1] * 1000 + b[2];
    },
    moves: moveCount,
    "max ms": maxTimeOf
  };
  function sortList() {
    if (!sortKey) { return; }
    var key = SORTS[sortKey];
    var keys = new Map();
    filtered.forEach(function (i) { keys.set(i, key(i)); });
    filtered.sort(function (a, b) {
      var x = keys.get(a), y = keys.get(b);
      return (x < y ? -1 : x > y ? 1 : a - b) * sortDir;
    });
  }
  function sortBy(k) {
    if (sortKey === k) { sortDir = -sortDir; } else { sortKey = k; sortDir = k === "game" ? 1 : -1; }
    sortList();
    page = 0;
    renderList();
  }

  // -------------------------------------------------------------- the lists
  function pager(parent, pageNo, pages, go) {
    var p = h("div", { "class": "pager" }, parent);
    var prev = h("button", { type: "button", "class": "prev" }, p, "‹ previous");
    prev.disabled = pageNo <= 0;
    prev.addEventListener("click", function () { go(pageNo - 1); });
    h("span", null, p, "page " + (pageNo + 1) + " of " + Math.max(1, pages));
    var next = h("button", { type: "button", "class": "next" }, p, "next ›");
    next.disabled = pageNo >= pages - 1;
    next.addEventListener("click", function () { go(pageNo + 1); });
    return p;
  }

  function renderList() {
    var box = $("game-list");
    box.textContent = "";
    var pages = Math.ceil(filtered.length / PAGE);
    if (!filtered.length) { h("p", { "class": "note" }, box, "No game matches."); return; }
    pager(box, page, pages, function (p) { page = p; renderList(); });
    var table = h("table", { "class": "games" }, box);
    var hr = h("tr", null, h("thead", null, table));
    ["game", "round", "board", "first", "second", "result", "reason", "moves", "max ms"]
      .forEach(function (x) {
        var th = h("th", null, hr, x);
        if (SORTS[x]) {
          th.className = "sortable";
          th.title = "sort by " + x + " (click again to reverse)";
          if (sortKey === x) { th.textContent = x + (sortDir > 0 ? " ▲" : " ▼"); }
          th.addEventListener("click", function () { sortBy(x); });
        }
      });
    var tb = h("tbody", null, table);
    filtered.slice(page * PAGE, page * PAGE + PAGE).forEach(function (i) {
      var tr = h("tr", { "data-game": G.id[i], tabindex: "0" }, tb);
      if (i === current) { tr.className = "current"; }
      h("td", null, tr, G.id[i]);
      h("td", { "class": "num" }, tr, G.round[i]);
      h("td", null, tr, boardName(G.board[i]));
      h("td", null, tr, D.players[G.p1[i]] + (G.offender[i] === 1 ? " ✗" : ""));
      h("td", null, tr, D.players[G.p2[i]] + (G.offender[i] === 2 ? " ✗" : ""));
      h("td", { "class": "result-" + G.winner[i] }, tr, resultText(i));
      var rtd = h("td", null, tr);
      h("span", { "class": "badge " + D.reasons[G.reason[i]] }, rtd, D.reasons[G.reason[i]]);
      h("td", { "class": "num" }, tr, moveCount(i));
      var t = decodeTimes(i);
      h("td", { "class": "num" }, tr, t.length ? Math.max.apply(null, t).toFixed(2) : "-");
      tr.addEventListener("click", function () { openGame(i, true); });
      tr.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter") { openGame(i, true); }
      });
    });
    if (pages > 1) { pager(box, page, pages, function (p) { page = p; renderList(); }); }
  }

  var faultPage = 0;
  function renderFaults() {
    var box = $("fault-list");
    box.textContent = "";
    var list = D.faults;
    if (!list.length) {
      h("p", { "class": "ok" }, box, "No faults: no timeout, illegal move or crash in " +
        count.toLocaleString("en") + " games.");
      return;
    }
    var pages = Math.ceil(list.length / FAULT_PAGE);
    h("p", { "class": "count" }, box, list.length.toLocaleString("en") + " faults");
    if (pages > 1) { pager(box, faultPage, pages, function (p) { faultPage = p; renderFaults(); }); }
    var table = h("table", { "class": "games faults" }, box);
    var hr = h("tr", null, h("thead", null, table));
    ["bot", "game", "move", "reason", "what happened", "stderr (last lines)"]
      .forEach(function (x) { h("th", null, hr, x); });
    var tb = h("tbody", null, table);
    list.slice(faultPage * FAULT_PAGE, faultPage * FAULT_PAGE + FAULT_PAGE).forEach(function (i) {
      var m = gameObject(i);
      var bad = G.offender[i] === 1 ? G.p1[i] : G.p2[i];
      var tr = h("tr", { "data-game": G.id[i] }, tb);
      h("td", null, tr, D.players[bad]);
      var gtd = h("td", null, tr);
      var link = h("a", { href: "#games" }, gtd, G.id[i]);
      link.addEventListener("click", function (ev) { ev.preventDefault(); openGame(i, true); });
      h("td", { "class": "num" }, tr, m.fault_move === null || m.fault_move === undefined ?
        "before move 1" : m.fault_move);
      var rtd = h("td", null, tr);
      h("span", { "class": "badge " + D.reasons[G.reason[i]] }, rtd, D.reasons[G.reason[i]]);
      var load = m.info["busy machine"];
      var wtd = h("td", { "class": "explain" }, tr, (m.explanation || m.detail || "") +
        (load ? " (busy machine: " + load + ")" : ""));
      wtd.title = m.detail || "";
      var std = h("td", null, tr);
      if (m.stderr) {
        var det = h("details", null, std);
        h("summary", null, det, m.stderr.split("\n").length + " lines");
        h("pre", { "class": "stderr" }, det, m.stderr);
      } else { std.textContent = "(empty)"; }
    });
    if (pages > 1) { pager(box, faultPage, pages, function (p) { faultPage = p; renderFaults(); }); }
  }

  // -------------------------------------------------------------- the viewer
  /* The viewer's object of game i, unpacked from the columns and "more" (the inverse of
     arena/report/viewer_json.py's pack_games; unpack_game there is the same in Python). */
  function gameObject(i) {
    var m = more(i);
    var b = D.boards[G.board[i]];
    var g = { id: G.id[i], round: G.round[i],
              players: [D.players[G.p1[i]], D.players[G.p2[i]]],
              moves: decodeMoves(i), times_ms: decodeTimes(i), timeout_ms: D.timeout_ms,
              winner: G.winner[i] || null, reason: D.reasons[G.reason[i]],
              offender: G.offender[i] || null, seed: G.seed[i] };
    if (typeof b !== "string") {  // Connect-X: its board (another game's is in "more")
      Object.assign(g, { game: "connectx", M: b[0], N: b[1], K: b[2] });
    }
    for (var k in m) { if (k !== "info") { g[k] = m[k]; } }
    g.info = {};
    if (m.info) { for (var key in m.info) { g.info[key] = D.label_values[m.info[key]]; } }
    return g;
  }

  function openGame(i, scroll) {
    current = i;
    var panel = $("viewer-panel");
    panel.hidden = false;
    if (viewer) { viewer.destroy(); }
    viewer = CXViewer.mount($("viewer"), gameObject(i),
                            { position: "start", timeout_ms: D.timeout_ms, globalKeys: true });
    var rows = document.querySelectorAll("#game-list tbody tr");
    for (var r = 0; r < rows.length; r++) {
      rows[r].classList.toggle("current", rows[r].getAttribute("data-game") === G.id[i]);
    }
    try { history.replaceState(null, "", "#game=" + encodeURIComponent(G.id[i])); }
    catch (e) { /* some browsers refuse history changes on file:// pages */ }
    if (scroll) { panel.scrollIntoView({ block: "start" }); }
    viewer.element.focus({ preventScroll: true });
  }

  // -------------------------------------------------------------- wiring
  ["player", "opponent", "board", "result", "reason"].forEach(function (k) {
    F[k].addEventListener("change", applyFilters);
  });
  F.text.addEventListener("input", applyFilters);
  $("f-clear").addEventListener("click", function () { setFilters({}); });
  // the filters apply as they change; Enter in the text field must not reload the page (a
  // listener, not an inline onsubmit: the league app's CSP allows no inline handler)
  $("filters").addEventListener("submit", function (ev) { ev.preventDefault(); });

  document.addEventListener("click", function (ev) {
    var a = ev.target.closest ? ev.target.closest("a.games-link") : null;
    if (!a) { return; }
    ev.preventDefault();
    var p = D.players.indexOf(a.getAttribute("data-player"));
    var values = { player: p };
    var opp = a.getAttribute("data-opponent");
    if (opp !== null) { values.opponent = D.players.indexOf(opp); }
    var board = a.getAttribute("data-board");
    if (board !== null) { values.board = Number(board); }
    setFilters(values);
    $("games").scrollIntoView({ block: "start" });
  });

  applyFilters();
  renderFaults();
  var m = /^#game=(.+)$/.exec(location.hash);
  if (m) {
    var gi = indexOf(decodeURIComponent(m[1]));
    if (gi >= 0) { openGame(gi, true); }
  }
  var tDone = performance.now();
  window.cxReport = {
    data: D, games: count, filtered: function () { return filtered.slice(); },
    openGame: function (id) { var i = indexOf(id); if (i >= 0) { openGame(i, true); } return i; },
    game: function (id) { var i = indexOf(id); return i >= 0 ? gameObject(i) : null; },
    setFilters: setFilters, viewer: function () { return viewer; },
    timings: { parse_ms: tParsed - t0, init_ms: tDone - t0 }
  };
  document.documentElement.setAttribute("data-cx-ready", "1");
})();
