/*
 * The Connect-X board of the game viewer (arena/report/static/viewer.js): replays the columns
 * in JavaScript (pieces fall), numbers the columns, marks the last piece, the winning line at
 * the end, the better moves of a blunder (dashed) and an illegal answer's column (a ghost
 * piece). The game object's M, N, K, moves (columns) and illegal_col are read. Holes carry
 * data-row, data-col, data-state (0, 1, 2) and data-move (the move that filled them). On the
 * play page (opts.onColumnClick) a transparent strip over each column carries data-col and
 * data-target="1" where the person may play (`board.mark`).
 */
(function (root) {
  "use strict";

  var V = root.CXViewer;
  var s = V.util.svg;
  var CELL = 40;
  var RADIUS = 16;
  var TOP = 18; // room for the column numbers

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

  function draw(svg, game, opts) {
    var M = game.M, N = game.N, K = game.K;
    var moves = game.moves; // the viewer's own list: a live game's moves are pushed onto it
    var owner = new Uint8Array(M * N);
    var heights = new Int32Array(N);
    var cellsAt = []; // cell index of each applied move
    var pos = 0;

    var W = N * CELL, H = M * CELL + TOP;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("aria-label", M + " by " + N + " board");
    s("rect", { "class": "cx-frame", x: 0, y: 0, width: W, height: H, rx: 6 }, svg);
    var colNums = [];
    var labelEvery = N > 30 ? 5 : 1;
    for (var j = 0; j < N; j++) {
      var t = s("text", { "class": "cx-colnum cx-coord", x: j * CELL + CELL / 2, y: 13 }, svg);
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
    var hits = []; // a live game's columns: data-target="1" where the person may play
    if (opts.onColumnClick) {
      for (var hc = 0; hc < N; hc++) {
        hits.push(s("rect", { "class": "cx-colhit", x: hc * CELL, y: 0, width: CELL,
                              height: H, "data-col": hc, "data-target": "0" }, svg));
      }
      svg.classList.add("cx-clickable");
      svg.addEventListener("click", function (ev) {
        var pt = svg.getBoundingClientRect();
        var col = Math.floor((ev.clientX - pt.left) / pt.width * N);
        if (col >= 0 && col < N) { opts.onColumnClick(col); }
      });
    }

    function place(n) {
      var col = moves[n];
      if (!(col >= 0 && col < N) || heights[col] >= M) { return false; }
      var row = M - 1 - heights[col];
      heights[col]++;
      var idx = row * N + col;
      owner[idx] = n % 2 + 1;
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
      heights[idx % N]--;
      owner[idx] = 0;
      circles[idx].setAttribute("data-state", 0);
      circles[idx].removeAttribute("data-move");
      labels[idx].textContent = "";
    }

    var lastMarked = -1;
    function decorate(ctx) {
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
      if (ctx.atEnd && lastMarked >= 0 && game.reason === "connect") {
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
      var bl = ctx.verdict;
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
      if (ctx.atEnd && game.illegal_col !== undefined && game.illegal_col !== null) {
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

    return {
      mark: function (targets) {
        hits.forEach(function (r, j) {
          r.setAttribute("data-target", targets && targets.has(j) ? "1" : "0");
        });
      },
      winning: function () { return svg.querySelectorAll(".cx-win").length; },
      show: function (target, ctx) {
        while (pos < target) {
          if (!place(pos)) { break; }
          pos++;
        }
        while (pos > target) { unplace(); pos--; }
        decorate({ atEnd: ctx.atEnd && pos === target, verdict: pos === target ?
                   ctx.verdict : null });
        return pos;
      },
      cells: function () {
        var out = [];
        for (var r = 0; r < M; r++) {
          out.push(Array.prototype.slice.call(owner.subarray(r * N, r * N + N)));
        }
        return out;
      }
    };
  }

  V.drawers.connectx = {
    coords: true,
    numbers: true,
    moveHead: "col",
    summary: function (g) { return g.M + "x" + g.N + ", K=" + g.K; },
    moveWords: function (g, col) { return "column " + col; },
    endText: function (g, players) {
      // the same words as arena/report/explain.py's describe_end
      var n = g.moves.length;
      return g.reason === "connect" && g.winner ?
        players[g.winner - 1] + " (" + (g.winner === 1 ? "first" : "second") +
        " player) wins: " + g.K + " in a row with move " + n + " (column " +
        g.moves[n - 1] + ")." :
        g.reason === "draw" ? "Draw: the board is full after " + n +
        " moves, nobody has " + g.K + " in a row." : "";
    },
    draw: draw
  };
  V.winningLine = winningLine;
})(typeof window !== "undefined" ? window : this);
