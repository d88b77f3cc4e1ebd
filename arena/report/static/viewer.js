/*
 * CXViewer: the game viewer of cxarena, for every game. Plain JavaScript, no dependencies, no
 * network, no eval, no inline style attributes (it runs under a strict Content-Security-Policy).
 * Part of cxarena (arena/report/static/viewer.js); the HTML report inlines it with every game's
 * drawer, the play page and the league load it as a script file. Styles: the .cx-* rules of
 * report.css.
 *
 * The viewer is the common frame: header, navigation (buttons, slider, keys), the move list
 * with move times against the limit, the opening shown as an opening (its plies are nobody's
 * choice), the status line (each move in words, the end and a fault explained), the game's
 * details and the exact solver's analysis (an evaluation strip, blunders). The board is drawn
 * by the game's drawer: each game plug-in has one (arena/games/<game>/draw.js), which
 * registers itself:
 *
 *   CXViewer.drawers["othello"] = {
 *     coords: true,                          the board carries its coordinates
 *     summary: function (game) -> text,      the board in words for the header ("6x7, K=4")
 *     moveHead: "col",                       the move list's column title (default "move")
 *     moveText: function (game, move) -> text         a move in the list (default String)
 *     moveWords: function (game, move) -> text        in the status line ("column 3")
 *     discClass: function (game, p) -> class names    the disc of player p (0, 1)
 *     endText: function (game, players) -> text       the end in words, when the game object
 *                                                     has no explanation
 *     draw: function (svg, game, opts) -> board       builds the board in `svg`
 *   };
 *   board = { show(n, ctx) -> m   draws the position after n moves; returns the number of
 *                                 moves it could replay (m < n: move m + 1 does not replay);
 *                                 ctx = { atEnd, verdict } (verdict: the analysis of move n)
 *             push(move, frame)   (optional) a live game's new move (frame: its position)
 *             mark(targets, chosen)   (optional, play page) data-target="1" on the squares,
 *                                 points or columns (a Set of names or columns) the person
 *                                 may click, and the points chosen so far marked
 *             cells()             (optional) the board as data, for tests and tools }
 *
 * A page that loads viewer.js as a script file (".../viewer.js") and not a game's drawer gets
 * it from ".../games/NAME/draw.js" when a game of NAME is mounted (the controller works once it
 * is there); the report inlines every drawer.
 *
 * Entry point:
 *
 *   const viewer = CXViewer.mount(element, game, options);
 *
 * `game` (the report's and the league's are built by one function, viewer_game in
 * arena/report/viewer_json.py; the play page builds its live games):
 *   { game: "connectx" | "othello" | ...  which drawer draws it (default "connectx")
 *     moves: [move, ...],           the moves in the order played (Connect-X: columns; other
 *                                   games: the moves' texts)
 *     times_ms: [ms, ...],          each move's time (optional)
 *     timeout_ms: ms,               the time limit per move (optional; options.timeout_ms
 *                                   overrides it)
 *     players: ["name1", "name2"],  first and second player
 *     id, round, seed,              shown in the header / info (optional)
 *     winner: 1 | 2 | null, reason: "connect" | "draw" | "timeout" | "illegal" | "crash" | ...,
 *     offender: 1 | 2 | null,
 *     explanation: "...",           how the game ended, in words (shown at the last position)
 *     detail: "...",                the referee's detail of the end (a fault's: for its
 *                                   author only; the server leaves it out for others)
 *     stderr, fault_move, illegal_col   a fault's stderr tail (its author's), move, column
 *     opening: [move, ...] | any,   the opening the game started from: its plies are played
 *                                   for both sides, shown as the opening, not as the bots'
 *     info: {label: value, ...},    anything else worth showing (pair id, peak memory ...)
 *     analysis: {...} | null,       the exact solver's analysis (arena/analysis/render.py,
 *                                   viewer_data): an evaluation strip under the board,
 *                                   blunders marked in the move list and on the board
 *     ... and what the game's drawer reads (Connect-X: M, N, K, illegal_col; other games:
 *     frames, one per position, and the board's fixed parts, see arena/report/frames.py) }
 *
 * `options`:
 *   { position: "end" | "start" | n   the position shown first (default "end")
 *     timeout_ms: number              the time limit, for the time bars
 *     globalKeys: bool                arrow keys work anywhere on the page (default: only
 *                                     when the viewer has focus)
 *     numbers: bool                   move numbers on the pieces (default true; Connect-X)
 *     onColumnClick: function(col)    called when a column is clicked (Connect-X, human play)
 *     onPointClick: function(name)    called when a square / point is clicked (other games) }
 *
 * Returns a controller:
 *   goto(n)        show the position after n moves (0 = the start position)
 *   step(d)        move d plies forward (negative: back)
 *   position()     the current move count;   length()  the number of moves
 *   push(move, ms, frame)   append a move (a live game), shows the new position
 *   cells()        the board as data (Connect-X: rows of 0/1/2, row 0 at the top)
 *   mark(targets, chosen)   what the person may click (a live game; see board.mark)
 *   finish(end)    a live game ended: end = {winner, reason, offender, explanation}
 *   destroy()      remove the viewer and its key listener
 *
 * Keys when the viewer has focus: Left/Right one move, PageUp/PageDown ten, Home/End first/last
 * position; with globalKeys, Left/Right also work anywhere on the page (outside form fields).
 * Board shapes carry data-state (0, 1, 2) and where they are (Connect-X: data-row, data-col,
 * data-move; Othello: data-square; Morris: data-point), for tests and tools.
 */
(function (root) {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";

  function h(tag, attrs, parent, text) {
    var el = document.createElement(tag);
    if (attrs) { for (var k in attrs) { el.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    if (parent) { parent.appendChild(el); }
    return el;
  }

  function s(tag, attrs, parent, text) {
    var el = document.createElementNS(SVGNS, tag);
    if (attrs) { for (var k in attrs) { el.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    if (parent) { parent.appendChild(el); }
    return el;
  }

  function fmtMs(ms) {
    if (ms === undefined || ms === null || isNaN(ms)) { return ""; }
    return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
  }

  function plies(k) { return k + (k === 1 ? " ply" : " plies"); }

  var drawers = {};
  /* Where a page that loads viewer.js as a script file finds the drawers it has not loaded:
     "games/NAME/draw.js" next to viewer.js (the play page serves them there). Inline (the
     report, which inlines every drawer): none. */
  var script = typeof document !== "undefined" ? document.currentScript : null;
  var drawerBase = script && script.src ? script.src.replace(/[^/]*$/, "") + "games/" : null;
  var loading = {};

  function loadDrawer(name, done) {
    if (!drawerBase || !/^[a-z0-9_]+$/.test(name)) { done(); return; }
    if (!loading[name]) {
      loading[name] = [];
      var el = document.createElement("script");
      el.src = drawerBase + name + "/draw.js";
      var finish = function () {
        var waiting = loading[name];
        loading[name] = null;
        if (waiting) { waiting.forEach(function (fn) { fn(); }); }
      };
      el.addEventListener("load", finish);
      el.addEventListener("error", finish);
      document.head.appendChild(el);
    }
    if (loading[name]) { loading[name].push(done); } else { done(); }
  }

  /* A controller for a viewer whose drawer is still loading: the real one once it is there. */
  function later(container, game, options, name) {
    var real = null, dead = false;
    h("p", { "class": "cx-status" }, container, "Loading the board of " + name + " ...");
    loadDrawer(name, function () {
      if (dead) { return; }
      container.textContent = "";
      if (drawers[name]) { real = mount(container, game, options); } else {
        h("p", { "class": "cx-status cx-fault" }, container, "No drawer for the game " + name +
          " (its draw.js is not loaded).");
      }
    });
    function call(k, fallback) {
      return function () { return real ? real[k].apply(real, arguments) : fallback; };
    }
    return { element: container, goto: call("goto", 0), step: call("step", 0),
             position: call("position", 0), length: call("length", 0), push: call("push", 0),
             cells: call("cells", null), mark: call("mark"), finish: call("finish", 0),
             destroy: function () { dead = true; if (real) { real.destroy(); }
                                    container.textContent = ""; } };
  }

  function mount(container, game, options) {
    options = options || {};
    var name = game.game || "connectx";
    var drawer = drawers[name];
    container.textContent = "";
    if (!drawer) { return later(container, game, options, name); }
    var moves = Array.prototype.slice.call(game.moves || []);
    var times = Array.prototype.slice.call(game.times_ms || []);
    var g = Object.assign({}, game, { game: name, moves: moves, times_ms: times });
    var players = game.players || ["player 1", "player 2"];
    var limit = options.timeout_ms || game.timeout_ms || null;
    var opening = Array.isArray(game.opening) ? game.opening : null;
    var bookPlies = 0;
    if (opening) {
      while (bookPlies < opening.length && bookPlies < moves.length &&
             String(opening[bookPlies]) === String(moves[bookPlies])) { bookPlies++; }
    }
    function moveText(m) { return drawer.moveText ? drawer.moveText(g, m) : String(m); }
    function moveWords(m) { return drawer.moveWords ? drawer.moveWords(g, m) : moveText(m); }
    function disc(p, parent) {
      h("span", { "class": drawer.discClass ? drawer.discClass(g, p) : "cx-disc p" + (p + 1) },
        parent);
    }
    var pos = 0;

    var rootEl = h("div", { "class": "cx-viewer cx-game-" + name, tabindex: "0",
                            "data-game": name,
                            "aria-label": "game viewer; arrow keys step through the moves" },
                   container);

    // --- header
    var head = h("div", { "class": "cx-head" }, rootEl);
    h("span", { "class": "cx-title" }, head, game.id ? "Game " + game.id : "Game");
    var who = h("span", null, head);
    [0, 1].forEach(function (p) {
      disc(p, who);
      h("span", { "class": "cx-player" }, who, players[p] + (p === 0 ? " (first)" : " (second)"));
      if (p === 0) { who.appendChild(document.createTextNode("  vs  ")); }
    });
    h("span", { "class": "cx-summary" }, head, (drawer.summary ? drawer.summary(g) : name) +
      (game.round !== undefined && game.round !== null ? ", round " + game.round : ""));

    var body = h("div", { "class": "cx-body" }, rootEl);
    var boardWrap = h("div", { "class": "cx-boardwrap" }, body);

    // --- board: the game's drawer
    var svg = s("svg", { "class": "cx-board cx-board-" + name, role: "img",
                         "data-coords": drawer.coords ? "1" : "0" }, boardWrap);
    if (options.numbers === false) { svg.classList.add("cx-nonums"); }
    var board = drawer.draw(svg, g, { numbers: options.numbers !== false,
                                      onColumnClick: options.onColumnClick,
                                      onPointClick: options.onPointClick });

    // --- controls
    var controls = h("div", { "class": "cx-controls" }, boardWrap);
    function button(label, title, fn) {
      var b = h("button", { type: "button", title: title, "aria-label": title }, controls, label);
      b.addEventListener("click", function () { fn(); rootEl.focus({ preventScroll: true }); });
      return b;
    }
    button("|◀", "first position (Home)", function () { goto(0); });
    button("◀", "one move back (Left)", function () { goto(pos - 1); });
    button("▶", "one move forward (Right)", function () { goto(pos + 1); });
    button("▶|", "last position (End)", function () { goto(moves.length); });
    var range = h("input", { type: "range", min: 0, max: moves.length, value: 0, step: 1,
                             "aria-label": "scrub through the moves" }, controls);
    range.addEventListener("input", function () { goto(Number(range.value)); });
    var counter = h("span", { "class": "cx-counter" }, controls);
    if (drawer.numbers) {  // the drawer writes move numbers on its pieces
      var numToggle = h("label", { "class": "cx-help" }, controls);
      var numBox = h("input", { type: "checkbox" }, numToggle);
      numBox.checked = options.numbers !== false;
      numToggle.appendChild(document.createTextNode(" numbers"));
      numBox.addEventListener("change", function () {
        svg.classList.toggle("cx-nonums", !numBox.checked);
      });
    }
    var status = h("div", { "class": "cx-status", "aria-live": "polite" }, boardWrap);
    // --- the analysis: evaluation strip (one cell per position) and verdicts
    var analysis = game.analysis || null;
    var verdicts = {};
    var stripCells = [];
    if (analysis) {
      (analysis.moves || []).forEach(function (v) { verdicts[v.ply] = v; });
      var strip = h("div", { "class": "cx-evalstrip", role: "list",
                             "aria-label": "evaluation of every position" }, boardWrap);
      (analysis.positions || []).forEach(function (p) {
        var v = p.value;
        var cls = "cx-eval " + (p.kind === "estimate" ? "cx-est" : "cx-proven") +
          (v === null || v === undefined ? " cx-unknown" : v > 0.5 ? " cx-p1win" :
           v < -0.5 ? " cx-p2win" : p.kind === "estimate" ? (v > 0 ? " cx-p1lean" :
           v < 0 ? " cx-p2lean" : " cx-even") : " cx-draw");
        var verdict = verdicts[p.ply];
        if (verdict && verdict.verdict === "blunder") { cls += " cx-blunder"; }
        var cell = h("span", { "class": cls, role: "listitem", "data-ply": p.ply,
                               "data-kind": p.kind, "data-value": v === null ? "" : v }, strip);
        cell.title = "after " + p.ply + " moves, " + players[p.ply % 2] + " to move: " +
          p.label + (verdict && verdict.verdict === "blunder" ? " (blunder next: " +
          verdict.reason + ")" : "");
        cell.addEventListener("click", function () { goto(p.ply); });
        stripCells.push(cell);
      });
      var legend = h("div", { "class": "cx-evallegend" }, boardWrap);
      legend.textContent = "Evaluation: " + players[0] + " wins / draw / " + players[1] +
        " wins (proven); hatched: estimate" + (analysis.exact_from !== null &&
        analysis.exact_from !== undefined ? "; exact from move " + (analysis.exact_from + 1) :
        "") + ". Solver: " + (analysis.solver || "none (estimates)") + ", " +
        analysis.budget_s + " s per position.";
    }
    h("div", { "class": "cx-help" }, boardWrap,
      "Keys: Left/Right one move, PageUp/PageDown ten, Home/End. Click a move to jump to it.");

    // --- side: info and move list
    var side = h("div", { "class": "cx-side" }, body);
    var info = h("dl", { "class": "cx-info" }, side);
    function infoRow(k, v, cls) {
      if (v === undefined || v === null || v === "") { return; }
      var dt = h("dt", null, info, k);
      var dd = h("dd", null, info, typeof v === "string" ? v : JSON.stringify(v));
      if (cls) { dt.className = cls; dd.className = cls; }
    }
    infoRow("result", game.winner ? players[game.winner - 1] + " won" :
            (game.reason ? "draw" : ""));
    infoRow("reason", game.reason);
    infoRow("detail", game.detail);
    infoRow("seed", game.seed);
    infoRow("time limit", game.timeout_ms ? fmtMs(game.timeout_ms) + " ms per move" : "");
    if (game.opening !== undefined && game.opening !== null) {
      infoRow("opening", Array.isArray(game.opening) ?
              game.opening.map(moveText).join(" ") + " (" + plies(game.opening.length) +
              ", not chosen by the bots)" : game.opening, "cx-opening");
    }
    if (game.info) { for (var key in game.info) { infoRow(key, game.info[key]); } }

    var listBox = h("div", { "class": "cx-moves" }, side);
    var table = h("table", null, listBox);
    var thead = h("tr", null, h("thead", null, table));
    ["#", "player", drawer.moveHead || "move", "ms", ""].concat(analysis ? ["verdict"] : [])
      .forEach(function (x) { h("th", null, thead, x); });
    var tbody = h("tbody", null, table);
    var rows = [];
    function addRow(n) {
      var tr = h("tr", { "data-move": n + 1 }, tbody);
      var book = n < bookPlies;
      if (book) { tr.className = "cx-book"; tr.title = "opening ply: not chosen by the bots"; }
      h("td", null, tr, n + 1);
      var td = h("td", null, tr);
      disc(n % 2, td);
      td.appendChild(document.createTextNode(book ? "opening" : players[n % 2]));
      h("td", { "class": "cx-move" }, tr, moveText(moves[n]));
      h("td", { "class": "cx-ms" }, tr, book ? "" : fmtMs(times[n]));
      var barTd = h("td", null, tr);
      if (limit && times[n] !== undefined && !book) {
        var frac = times[n] / limit;
        var bar = h("span", { "class": "cx-bar" + (frac > 1 ? " cx-over" : frac > 0.5 ?
                                                   " cx-near" : "") }, barTd);
        bar.style.width = Math.max(1, Math.min(60, Math.round(60 * frac))) + "px";
        bar.title = (100 * frac).toFixed(0) + " % of the " + limit + " ms limit";
      }
      if (analysis) {
        var vd = verdicts[n];
        var vtd = h("td", { "class": "cx-verdict" }, tr);
        if (vd) {
          vtd.setAttribute("data-verdict", vd.verdict);
          if (vd.verdict === "blunder") {
            tr.classList.add("cx-blunder");
            vtd.textContent = "?? blunder";
          } else if (vd.verdict === "inaccuracy") {
            vtd.textContent = "?! inaccuracy";
          } else if (vd.verdict === "best") {
            vtd.textContent = "best";
          } else {
            vtd.textContent = "";
          }
          vtd.title = vd.reason + (vd.better.length ? "; better: " + vd.better.join(", ") : "");
        }
      }
      tr.addEventListener("click", function () { goto(n + 1); });
      rows.push(tr);
    }
    for (var n = 0; n < moves.length; n++) { addRow(n); }

    var playable = moves.length;

    function describe() {
      status.classList.remove("cx-fault");
      if (pos === moves.length && (g.explanation || g.reason)) {
        if (g.offender) { status.classList.add("cx-fault"); }
        var text = g.explanation ||
          (drawer.endText ? drawer.endText(g, players) : "") ||
          "Game over (" + g.reason + ").";
        status.textContent = (pos ? "Move " + pos + " of " + moves.length + ". " : "") + text;
        return;
      }
      if (pos === 0) {
        status.textContent = bookPlies ? "Start: the opening's " + plies(bookPlies) +
          " come first (not chosen by the bots), then " + players[bookPlies % 2] + " moves." :
          "Start: " + players[0] + " moves first.";
        return;
      }
      if (pos <= bookPlies) {
        status.textContent = "Opening ply " + pos + " of " + bookPlies + ": " +
          moveWords(moves[pos - 1]) + " (not chosen by the bots).";
        return;
      }
      var p = (pos - 1) % 2;
      var vdc = verdicts[pos - 1];
      status.textContent = "Move " + pos + " of " + moves.length + ": " + players[p] +
        " played " + moveWords(moves[pos - 1]) +
        (times[pos - 1] !== undefined ? " in " + fmtMs(times[pos - 1]) + " ms" : "") + "." +
        (vdc && vdc.verdict === "blunder" ? " Blunder: " + vdc.reason +
         (vdc.better.length ? "; better: " + vdc.better.map(moveWords).join(", ") +
          " (dashed on the board)." : ".") : "");
    }

    var curRow = null;
    function goto(target) {
      target = Math.max(0, Math.min(playable, Math.round(Number(target) || 0)));
      var reached = board.show(target, { atEnd: target === moves.length,
                                         verdict: target > 0 ? verdicts[target - 1] : null });
      pos = reached;
      range.value = String(pos);
      counter.textContent = pos + " / " + moves.length;
      stripCells.forEach(function (c, k) { c.classList.toggle("cx-here", k === pos); });
      describe();
      if (reached < target) {
        playable = reached;
        status.textContent = "Move " + (reached + 1) + " (" + moveWords(moves[reached]) +
          ") is not legal here.";
      }
      if (curRow) { curRow.classList.remove("cx-cur"); curRow = null; }
      if (pos > 0 && rows[pos - 1]) {
        curRow = rows[pos - 1];
        curRow.classList.add("cx-cur");
        var top = curRow.offsetTop, bottom = top + curRow.offsetHeight;
        if (top < listBox.scrollTop + 20) { listBox.scrollTop = Math.max(0, top - 40); }
        else if (bottom > listBox.scrollTop + listBox.clientHeight) {
          listBox.scrollTop = bottom - listBox.clientHeight + 20;
        }
      }
      return pos;
    }

    function onKey(ev) {
      if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
      var tag = ev.target && ev.target.tagName;
      if (options.globalKeys && ev.target !== rootEl && !rootEl.contains(ev.target) &&
          (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || tag === "BUTTON")) {
        return;
      }
      if (ev.target === range) { return; } // the slider handles its own keys
      var inside = ev.target === rootEl || rootEl.contains(ev.target);
      if (!inside && ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") {
        return; // PageUp/PageDown/Home/End keep scrolling the page unless the viewer has focus
      }
      var to = null;
      switch (ev.key) {
        case "ArrowLeft": to = pos - 1; break;
        case "ArrowRight": to = pos + 1; break;
        case "PageUp": to = pos - 10; break;
        case "PageDown": to = pos + 10; break;
        case "Home": to = 0; break;
        case "End": to = moves.length; break;
        default: return;
      }
      ev.preventDefault();
      goto(to);
    }
    var keyTarget = options.globalKeys ? document : rootEl;
    keyTarget.addEventListener("keydown", onKey);

    var start = options.position === undefined || options.position === "end" ? moves.length :
      options.position === "start" ? 0 : options.position;
    goto(start);

    return {
      element: rootEl,
      goto: goto,
      step: function (d) { return goto(pos + d); },
      position: function () { return pos; },
      length: function () { return moves.length; },
      push: function (move, ms, frame) {
        var atEnd = pos === moves.length;
        moves.push(move);
        times.push(ms);
        if (board.push) { board.push(move, frame); }
        playable = moves.length;
        range.max = String(moves.length);
        addRow(moves.length - 1);
        return atEnd ? goto(moves.length) : goto(pos);
      },
      cells: function () { return board.cells ? board.cells() : null; },
      mark: function (targets, chosen) { if (board.mark) { board.mark(targets, chosen); } },
      finish: function (end) {  // a live game's end: {winner, reason, offender, explanation}
        Object.assign(g, end);
        return goto(pos);
      },
      destroy: function () {
        keyTarget.removeEventListener("keydown", onKey);
        container.textContent = "";
      }
    };
  }

  /* The board of a game whose positions come as frames (arena/report/frames.py, or a drawing
     per position from the server): `frames[n]` the position after n moves. Used by drawers
     whose rules are not in JavaScript. */
  function framed(game, paint) {
    var frames = Array.prototype.slice.call(game.frames || []);
    return {
      show: function (n, ctx) {
        var k = Math.min(n, frames.length - 1);
        if (k >= 0) { paint(frames[k], k, ctx); }
        return Math.max(0, k);
      },
      push: function (move, frame) { if (frame !== undefined) { frames.push(frame); } },
      frames: frames
    };
  }

  function letters(n) {
    var out = [];
    for (var c = 0; c < n; c++) { out.push(String.fromCharCode(97 + c)); }
    return out;
  }

  /* A frame of a grid as a flat list of 0/1/2: the report's string, or the server's drawing. */
  function gridCells(frame) {
    if (typeof frame === "string") {
      var out = [];
      for (var i = 0; i < frame.length; i++) { out.push(frame.charCodeAt(i) - 48); }
      return out;
    }
    return [].concat.apply([], frame.cells);
  }

  /* The board of a game on a grid of squares named by their coordinates (Othello, the
     m,n,k-game): game.rows, cols, col_labels, row_labels, colors; `style.background` the
     class of the board's background. Column letters above, row numbers at the left; squares
     and pieces carry data-square, data-row, data-col, pieces data-state; the last move's
     piece is marked; `board.mark` puts data-target="1" on the squares the person may click. */
  function gridBoard(svg, game, opts, style) {
    var C = 40, L = 22;
    var rows = game.rows, cols = game.cols;
    var colLabels = game.col_labels || letters(cols);
    var rowLabels = game.row_labels || [];
    var colors = game.colors || ["black", "white"];
    var W = L + cols * C + 4, H = L + rows * C + 4;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("aria-label", rows + " by " + cols + " board");
    s("rect", { "class": style.background, x: L, y: L, width: cols * C, height: rows * C }, svg);
    var c, r;
    for (c = 0; c < cols; c++) {
      s("text", { "class": "cx-coord cx-file", x: L + c * C + C / 2, y: 15 }, svg, colLabels[c]);
    }
    var squares = {}, pieces = [], names = [];
    for (r = 0; r < rows; r++) {
      var rowLabel = rowLabels[r] !== undefined ? rowLabels[r] : String(r + 1);
      s("text", { "class": "cx-coord cx-rank", x: 10, y: L + r * C + C / 2 + 4 }, svg, rowLabel);
      for (c = 0; c < cols; c++) {
        var name = colLabels[c] + rowLabel;
        squares[name] = s("rect", { "class": "cx-square", x: L + c * C, y: L + r * C, width: C,
                                    height: C, "data-square": name, "data-row": r,
                                    "data-col": c }, svg);
        names.push(name);
        pieces.push(s("circle", { "class": "cx-piece", cx: L + c * C + C / 2,
                                  cy: L + r * C + C / 2, r: 15, "data-square": name,
                                  "data-row": r, "data-col": c, "data-state": 0 }, svg));
      }
    }
    if (opts.onPointClick) {
      svg.classList.add("cx-clickable");
      svg.addEventListener("click", function (ev) {
        var sq = ev.target.getAttribute && ev.target.getAttribute("data-square");
        if (sq) { opts.onPointClick(sq); }
      });
    }
    var last = null;
    var board = framed(game, function (frame, n) {
      var cells = gridCells(frame);
      for (var i = 0; i < pieces.length; i++) {
        var v = cells[i] || 0;
        pieces[i].setAttribute("data-state", String(v));
        pieces[i].setAttribute("class", "cx-piece" + (v ? " cx-col-" + colors[v - 1] : ""));
      }
      if (last) { last.classList.remove("cx-last"); last = null; }
      var move = n > 0 ? game.moves[n - 1] : null;
      if (move && squares[move]) {
        last = pieces[names.indexOf(move)];
        last.classList.add("cx-last");
      }
    });
    board.mark = function (targets) {
      names.forEach(function (nm) {
        squares[nm].setAttribute("data-target", targets && targets.has(nm) ? "1" : "0");
      });
    };
    board.cells = function () {
      var k = board.frames.length - 1;
      return k >= 0 ? gridCells(board.frames[k]) : null;
    };
    return board;
  }

  root.CXViewer = { mount: mount, drawers: drawers, version: 2,
                    util: { h: h, svg: s, fmtMs: fmtMs, framed: framed, gridBoard: gridBoard } };
})(typeof window !== "undefined" ? window : this);
