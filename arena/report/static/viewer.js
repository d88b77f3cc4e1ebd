/*
 * CXViewer: a standalone Connect-X game viewer. Plain JavaScript, no dependencies, no network.
 * Part of cxarena (arena/report/static/viewer.js); the HTML report inlines it, and any page
 * that shows a Connect-X board may too (with the .cx-* rules of report.css).
 *
 * Entry point:
 *
 *   const viewer = CXViewer.mount(element, game, options);
 *
 * `game` (only M, N, K and moves are required):
 *   { M, N, K,                      rows, columns, pieces in a row to win
 *     moves: [col, ...],            columns in the order played (player 1 moved first)
 *     times_ms: [ms, ...],          each move's time (optional)
 *     players: ["name1", "name2"],  first and second player
 *     id, round, seed,              shown in the header / info (optional)
 *     winner: 1 | 2 | null, reason: "connect" | "draw" | "timeout" | "illegal" | "crash",
 *     offender: 1 | 2 | null,
 *     explanation: "...",           how the game ended, in words (shown at the last position)
 *     illegal_col: col | null,      the column of an illegal answer (drawn as a ghost piece)
 *     opening: [col, ...] | any,    forced opening moves (marked in the move list)
 *     info: {label: value, ...},    anything else worth showing (seed, pair id ...)
 *     analysis: {...} | null }      the exact solver's analysis (arena/analysis/render.py,
 *                                   viewer_data): an evaluation strip under the board (one
 *                                   cell per position, coloured by the proven value for the
 *                                   first player, hatched where only estimated), blunders
 *                                   marked in the move list, better moves drawn on the board
 *
 * `options`:
 *   { position: "end" | "start" | n   the position shown first (default "end")
 *     timeout_ms: number              the time limit, for the time bars
 *     globalKeys: bool                arrow keys work anywhere on the page (default: only
 *                                     when the viewer has focus)
 *     numbers: bool                   move numbers on the pieces (default true)
 *     onColumnClick: function(col)    called when a column is clicked (e.g. for human play) }
 *
 * Returns a controller:
 *   goto(n)        show the position after n moves (0 = empty board)
 *   step(d)        move d plies forward (negative: back)
 *   position()     the current move count;   length()  the number of moves
 *   push(col, ms)  append a move (a live game), shows the new position
 *   cells()        the board as rows (row 0 at the top) of 0 (free), 1 or 2
 *   destroy()      remove the viewer and its key listener
 *
 * Keys when the viewer has focus: Left/Right one move, PageUp/PageDown ten, Home/End first/last
 * position; with globalKeys, Left/Right also work anywhere on the page (outside form fields). The board is an SVG whose holes carry data-row, data-col,
 * data-state (0, 1, 2) and data-move (the move that filled them), for tests and tools.
 */
(function (root) {
  "use strict";

  var SVGNS = "http://www.w3.org/2000/svg";
  var CELL = 40;
  var RADIUS = 16;
  var TOP = 18; // room for the column numbers

  function h(tag, attrs, parent, text) {
    var el = document.createElement(tag);
    if (attrs) { for (var k in attrs) { el.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { el.textContent = String(text); }
    if (parent) { parent.appendChild(el); }
    return el;
  }

  function s(tag, attrs, parent) {
    var el = document.createElementNS(SVGNS, tag);
    if (attrs) { for (var k in attrs) { el.setAttribute(k, attrs[k]); } }
    if (parent) { parent.appendChild(el); }
    return el;
  }

  function fmtMs(ms) {
    if (ms === undefined || ms === null || isNaN(ms)) { return ""; }
    return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
  }

  /* The cells [[row, col], ...] of every run of K or more through (i, j), in `owner`
     (a flat M*N array of 0/1/2). Empty if there is none. */
  function winningLine(owner, M, N, K, i, j) {
    var me = owner[i * N + j];
    var dirs = [[0, 1], [1, 0], [1, 1], [1, -1]];
    var out = [];
    if (!me) { return out; }
    for (var d = 0; d < dirs.length; d++) {
      var run = [[i, j]];
      for (var sign = -1; sign <= 1; sign += 2) {
        var r = i + sign * dirs[d][0], c = j + sign * dirs[d][1];
        while (r >= 0 && r < M && c >= 0 && c < N && owner[r * N + c] === me) {
          run.push([r, c]);
          r += sign * dirs[d][0];
          c += sign * dirs[d][1];
        }
      }
      if (run.length >= K) { out.push(run); }
    }
    return out;
  }

  function mount(container, game, options) {
    options = options || {};
    var M = game.M, N = game.N, K = game.K;
    var moves = Array.prototype.slice.call(game.moves || []);
    var times = Array.prototype.slice.call(game.times_ms || []);
    var players = game.players || ["player 1", "player 2"];
    var limit = options.timeout_ms || null;
    var opening = Array.isArray(game.opening) ? game.opening : null;
    var bookPlies = 0;
    if (opening) {
      while (bookPlies < opening.length && bookPlies < moves.length &&
             Number(opening[bookPlies]) === moves[bookPlies]) { bookPlies++; }
    }

    var owner = new Uint8Array(M * N);
    var moveAt = new Int32Array(M * N);
    var heights = new Int32Array(N);
    var cellsAt = []; // cell index of each applied move
    var pos = 0;

    container.textContent = "";
    var rootEl = h("div", { "class": "cx-viewer", tabindex: "0",
                            "aria-label": "game viewer; arrow keys step through the moves" },
                   container);

    // --- header
    var head = h("div", { "class": "cx-head" }, rootEl);
    h("span", { "class": "cx-title" }, head, game.id ? "Game " + game.id : "Game");
    var who = h("span", null, head);
    [0, 1].forEach(function (p) {
      h("span", { "class": "cx-disc p" + (p + 1) }, who);
      h("span", { "class": "cx-player" }, who, players[p] + (p === 0 ? " (first)" : " (second)"));
      if (p === 0) { who.appendChild(document.createTextNode("  vs  ")); }
    });
    h("span", null, head, M + "x" + N + ", K=" + K +
      (game.round !== undefined && game.round !== null ? ", round " + game.round : ""));

    var body = h("div", { "class": "cx-body" }, rootEl);
    var boardWrap = h("div", { "class": "cx-boardwrap" }, body);

    // --- board
    var W = N * CELL, H = M * CELL + TOP;
    var svg = s("svg", { "class": "cx-board", viewBox: "0 0 " + W + " " + H,
                         role: "img", "aria-label": M + " by " + N + " board" }, boardWrap);
    if (options.numbers === false) { svg.classList.add("cx-nonums"); }
    s("rect", { "class": "cx-frame", x: 0, y: 0, width: W, height: H, rx: 6 }, svg);
    var colNums = [];
    var labelEvery = N > 30 ? 5 : 1;
    for (var j = 0; j < N; j++) {
      var t = s("text", { "class": "cx-colnum", x: j * CELL + CELL / 2, y: 13 }, svg);
      if (j % labelEvery === 0 || j === N - 1) { t.textContent = String(j); }
      colNums.push(t);
    }
    var circles = new Array(M * N);
    var labels = new Array(M * N);
    for (var i = 0; i < M; i++) {
      for (var jj = 0; jj < N; jj++) {
        var cx = jj * CELL + CELL / 2, cy = TOP + i * CELL + CELL / 2;
        circles[i * N + jj] = s("circle", { "class": "cx-cell", cx: cx, cy: cy, r: RADIUS,
                                            "data-row": i, "data-col": jj, "data-state": 0 },
                                svg);
        labels[i * N + jj] = s("text", { "class": "cx-num", x: cx, y: cy }, svg);
      }
    }
    var winLayer = s("g", null, svg);
    if (options.onColumnClick) {
      svg.style.cursor = "pointer";
      svg.addEventListener("click", function (ev) {
        var pt = svg.getBoundingClientRect();
        var col = Math.floor((ev.clientX - pt.left) / pt.width * N);
        if (col >= 0 && col < N) { options.onColumnClick(col); }
      });
    }

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
    var numToggle = h("label", { "class": "cx-help" }, controls);
    var numBox = h("input", { type: "checkbox" }, numToggle);
    numBox.checked = options.numbers !== false;
    numToggle.appendChild(document.createTextNode(" numbers"));
    numBox.addEventListener("change", function () {
      svg.classList.toggle("cx-nonums", !numBox.checked);
    });
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
    function infoRow(k, v) {
      if (v === undefined || v === null || v === "") { return; }
      h("dt", null, info, k);
      h("dd", null, info, typeof v === "string" ? v : JSON.stringify(v));
    }
    infoRow("result", game.winner ? players[game.winner - 1] + " won" :
            (game.reason ? "draw" : ""));
    infoRow("reason", game.reason);
    infoRow("seed", game.seed);
    if (game.opening !== undefined && game.opening !== null) {
      infoRow("opening", Array.isArray(game.opening) ? game.opening.join(" ") +
              " (" + bookPlies + " forced moves)" : game.opening);
    }
    if (game.info) { for (var key in game.info) { infoRow(key, game.info[key]); } }

    var listBox = h("div", { "class": "cx-moves" }, side);
    var table = h("table", null, listBox);
    var thead = h("tr", null, h("thead", null, table));
    ["#", "player", "col", "ms", ""].concat(analysis ? ["verdict"] : []).forEach(
      function (x) { h("th", null, thead, x); });
    var tbody = h("tbody", null, table);
    var rows = [];
    function addRow(n) {
      var tr = h("tr", { "data-move": n + 1 }, tbody);
      if (n < bookPlies) { tr.className = "cx-book"; tr.title = "opening move (forced)"; }
      h("td", null, tr, n + 1);
      var td = h("td", null, tr);
      h("span", { "class": "cx-disc p" + (n % 2 + 1) }, td);
      td.appendChild(document.createTextNode(players[n % 2]));
      h("td", null, tr, moves[n]);
      h("td", null, tr, fmtMs(times[n]));
      var barTd = h("td", null, tr);
      if (limit && times[n] !== undefined) {
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

    // --- state changes
    function place(n) {
      var col = moves[n];
      if (!(col >= 0 && col < N) || heights[col] >= M) { return false; }
      var row = M - 1 - heights[col];
      heights[col]++;
      var idx = row * N + col;
      owner[idx] = n % 2 + 1;
      moveAt[idx] = n + 1;
      cellsAt.push(idx);
      var c = circles[idx];
      c.setAttribute("data-state", owner[idx]);
      c.setAttribute("data-move", n + 1);
      labels[idx].textContent = String(n + 1);
      labels[idx].setAttribute("class", "cx-num p" + owner[idx]);
      return true;
    }

    function unplace() {
      var idx = cellsAt.pop();
      var col = idx % N;
      heights[col]--;
      owner[idx] = 0;
      moveAt[idx] = 0;
      circles[idx].setAttribute("data-state", 0);
      circles[idx].removeAttribute("data-move");
      labels[idx].textContent = "";
    }

    var lastMarked = -1;
    var playable = moves.length;

    function decorate() {
      if (lastMarked >= 0) { circles[lastMarked].classList.remove("cx-last"); }
      lastMarked = cellsAt.length ? cellsAt[cellsAt.length - 1] : -1;
      if (lastMarked >= 0) { circles[lastMarked].classList.add("cx-last"); }
      winLayer.textContent = "";
      var wins = svg.querySelectorAll(".cx-win");
      for (var w = 0; w < wins.length; w++) { wins[w].classList.remove("cx-win"); }
      colNums.forEach(function (t, j) {
        if (t.classList.contains("cx-bad")) {
          t.classList.remove("cx-bad");
          t.textContent = j % labelEvery === 0 || j === N - 1 ? String(j) : "";
        }
      });
      var atEnd = pos === moves.length;
      if (atEnd && lastMarked >= 0 && game.reason === "connect") {
        var r = Math.floor(lastMarked / N), c = lastMarked % N;
        winningLine(owner, M, N, K, r, c).forEach(function (run) {
          run.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
          run.forEach(function (rc) { circles[rc[0] * N + rc[1]].classList.add("cx-win"); });
          var a = run[0], b = run[run.length - 1];
          s("line", { "class": "cx-winline", x1: a[1] * CELL + CELL / 2,
                      y1: TOP + a[0] * CELL + CELL / 2, x2: b[1] * CELL + CELL / 2,
                      y2: TOP + b[0] * CELL + CELL / 2 }, winLayer);
        });
      }
      var bl = pos > 0 ? verdicts[pos - 1] : null;
      if (bl && bl.verdict === "blunder") {
        // the better moves of the blunder just played, where they would have gone
        var playedCol = moves[pos - 1];
        bl.better.forEach(function (bc) {
          var hgt = heights[bc] - (bc === playedCol ? 1 : 0);
          if (bc < 0 || bc >= N || hgt >= M) { return; }
          s("circle", { "class": "cx-better", cx: bc * CELL + CELL / 2, "data-col": bc,
                        cy: TOP + (M - 1 - hgt) * CELL + CELL / 2, r: RADIUS - 3 }, winLayer);
        });
      }
      stripCells.forEach(function (c, k) { c.classList.toggle("cx-here", k === pos); });
      if (atEnd && game.illegal_col !== undefined && game.illegal_col !== null) {
        var ic = game.illegal_col;
        if (ic >= 0 && ic < N) {
          colNums[ic].classList.add("cx-bad");
          colNums[ic].textContent = ic + (heights[ic] >= M ? " full" : "");
          if (heights[ic] < M) {
            s("circle", { "class": "cx-ghost", cx: ic * CELL + CELL / 2,
                          cy: TOP + (M - 1 - heights[ic]) * CELL + CELL / 2, r: RADIUS - 2 },
              winLayer);
          }
        }
      }
    }

    function describe() {
      status.classList.remove("cx-fault");
      if (pos === moves.length && (game.explanation || game.reason)) {
        if (game.offender) { status.classList.add("cx-fault"); }
        var text = game.explanation;
        if (!text) {
          // the same words as arena/report/explain.py's describe_end
          text = game.reason === "connect" && game.winner ?
            players[game.winner - 1] + " (" + (game.winner === 1 ? "first" : "second") +
            " player) wins: " + K + " in a row with move " + moves.length + " (column " +
            moves[moves.length - 1] + ")." :
            game.reason === "draw" ? "Draw: the board is full after " + moves.length +
            " moves, nobody has " + K + " in a row." : "Game over (" + game.reason + ").";
        }
        status.textContent = (pos ? "Move " + pos + " of " + moves.length + ". " : "") + text;
        return;
      }
      if (pos === 0) {
        status.textContent = "Start: " + players[0] + " moves first.";
        return;
      }
      var p = (pos - 1) % 2;
      var vdc = verdicts[pos - 1];
      status.textContent = "Move " + pos + " of " + moves.length + ": " + players[p] +
        " played column " + moves[pos - 1] +
        (times[pos - 1] !== undefined ? " in " + fmtMs(times[pos - 1]) + " ms" : "") + "." +
        (vdc && vdc.verdict === "blunder" ? " Blunder: " + vdc.reason +
         (vdc.better.length ? "; better: column " + vdc.better.join(", ") +
          " (dashed on the board)." : ".") : "");
    }

    var curRow = null;
    function goto(target) {
      target = Math.max(0, Math.min(playable, Math.round(Number(target) || 0)));
      while (pos < target) {
        if (!place(pos)) { playable = pos; target = pos; status.textContent =
          "Move " + (pos + 1) + " (column " + moves[pos] + ") is not legal here."; break; }
        pos++;
      }
      while (pos > target) { unplace(); pos--; }
      range.value = String(pos);
      counter.textContent = pos + " / " + moves.length;
      decorate();
      describe();
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
      push: function (col, ms) {
        var atEnd = pos === moves.length;
        moves.push(col);
        times.push(ms);
        playable = moves.length;
        range.max = String(moves.length);
        addRow(moves.length - 1);
        return atEnd ? goto(moves.length) : goto(pos);
      },
      cells: function () {
        var out = [];
        for (var r = 0; r < M; r++) {
          out.push(Array.prototype.slice.call(owner.subarray(r * N, r * N + N)));
        }
        return out;
      },
      destroy: function () {
        keyTarget.removeEventListener("keydown", onKey);
        container.textContent = "";
      }
    };
  }

  root.CXViewer = { mount: mount, winningLine: winningLine, version: 1 };
})(typeof window !== "undefined" ? window : this);
