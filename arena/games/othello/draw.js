/*
 * The Othello board of the game viewer (arena/report/static/viewer.js): a grid of squares with
 * its coordinates (column letters above, row numbers at the left, as the notation: d3), the
 * discs of every position from the game's frames (arena/report/frames.py: a position's cells
 * row by row as 0 empty / 1 first player / 2; or the server's drawing, `Game.drawing`), the
 * last move's square marked. Squares and discs carry data-square (d3), data-row, data-col;
 * discs data-state (0, 1, 2). On the play page, squares the person may click carry
 * data-target="1" (`board.mark`).
 */
(function (root) {
  "use strict";

  var V = root.CXViewer;
  var s = V.util.svg;
  var C = 40, L = 22;

  function letters(n) {
    var out = [];
    for (var c = 0; c < n; c++) { out.push(String.fromCharCode(97 + c)); }
    return out;
  }

  /* A frame as a flat list of 0/1/2: the report's string, or the server's drawing. */
  function cellsOf(frame) {
    if (typeof frame === "string") {
      var out = [];
      for (var i = 0; i < frame.length; i++) { out.push(frame.charCodeAt(i) - 48); }
      return out;
    }
    return [].concat.apply([], frame.cells);
  }

  function draw(svg, game, opts) {
    var rows = game.rows, cols = game.cols;
    var colLabels = game.col_labels || letters(cols);
    var rowLabels = game.row_labels || colLabels.map(function (x, i) { return String(i + 1); });
    var colors = game.colors || ["black", "white"];
    var W = L + cols * C + 4, H = L + rows * C + 4;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("aria-label", rows + " by " + cols + " Othello board");
    s("rect", { "class": "cx-felt", x: L, y: L, width: cols * C, height: rows * C }, svg);
    var c, r;
    for (c = 0; c < cols; c++) {
      s("text", { "class": "cx-coord cx-file", x: L + c * C + C / 2, y: 15 }, svg, colLabels[c]);
    }
    var squares = {}, discs = [], names = [];
    for (r = 0; r < rows; r++) {
      s("text", { "class": "cx-coord cx-rank", x: 10, y: L + r * C + C / 2 + 4 }, svg,
        rowLabels[r]);
      for (c = 0; c < cols; c++) {
        var name = colLabels[c] + rowLabels[r];
        var sq = s("rect", { "class": "cx-square", x: L + c * C, y: L + r * C, width: C,
                             height: C, "data-square": name, "data-row": r, "data-col": c },
                   svg);
        squares[name] = sq;
        names.push(name);
        discs.push(s("circle", { "class": "cx-piece", cx: L + c * C + C / 2,
                                 cy: L + r * C + C / 2, r: 15, "data-square": name,
                                 "data-row": r, "data-col": c, "data-state": 0 }, svg));
      }
    }
    if (opts.onPointClick) {
      svg.classList.add("cx-clickable");
      svg.addEventListener("click", function (ev) {
        var sqName = ev.target.getAttribute && ev.target.getAttribute("data-square");
        if (sqName) { opts.onPointClick(sqName); }
      });
    }
    var last = null;
    var board = V.util.framed(game, function (frame, n) {
      var cells = cellsOf(frame);
      for (var i = 0; i < discs.length; i++) {
        var v = cells[i] || 0;
        discs[i].setAttribute("data-state", String(v));
        discs[i].setAttribute("class", "cx-piece" + (v ? " cx-col-" + colors[v - 1] : ""));
      }
      if (last) { last.classList.remove("cx-last"); last = null; }
      var move = n > 0 ? game.moves[n - 1] : null;
      if (move && squares[move]) {
        last = discs[names.indexOf(move)];
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
      return k >= 0 ? cellsOf(board.frames[k]) : null;
    };
    return board;
  }

  V.drawers.othello = {
    coords: true,
    summary: function (g) { return "Othello " + g.rows + "x" + g.cols; },
    discClass: function (g, p) {
      return "cx-disc cx-col-" + (g.colors || ["black", "white"])[p];
    },
    draw: draw
  };
})(typeof window !== "undefined" ? window : this);
