/*
 * The Othello board of the game viewer (arena/report/static/viewer.js): a green grid of
 * squares with its coordinates (column letters above, row numbers at the left, as the
 * notation: d3), the discs of every position from the game's frames (arena/report/frames.py:
 * a position's cells row by row as 0 empty / 1 first player / 2; or the server's drawing,
 * `Game.drawing`), the last move's disc marked (the viewer's grid, `CXViewer.util.gridBoard`).
 * Squares and discs carry data-square (d3), data-row, data-col; discs data-state (0, 1, 2).
 * On the play page, squares the person may click carry data-target="1" (`board.mark`).
 */
(function (root) {
  "use strict";

  var V = root.CXViewer;

  V.drawers.othello = {
    coords: true,
    summary: function (g) { return "Othello " + g.rows + "x" + g.cols; },
    discClass: function (g, p) {
      return "cx-disc cx-col-" + (g.colors || ["black", "white"])[p];
    },
    draw: function (svg, game, opts) {
      return V.util.gridBoard(svg, game, opts, { background: "cx-felt" });
    }
  };
})(typeof window !== "undefined" ? window : this);
