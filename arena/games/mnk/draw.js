/*
 * The m,n,k-game's board of the game viewer (arena/report/static/viewer.js): a wooden grid of
 * cells with its coordinates (column letters above, row numbers at the left, as the notation:
 * b2), the stones of every position from the game's frames (arena/report/frames.py: a
 * position's cells row by row as 0 empty / 1 first player / 2; or the server's drawing,
 * `Game.drawing`), the last stone marked (the viewer's grid, `CXViewer.util.gridBoard`). Cells
 * and stones carry data-square (b2), data-row, data-col; stones data-state (0, 1, 2). On the
 * play page, cells the person may click carry data-target="1" (`board.mark`).
 */
(function (root) {
  "use strict";

  var V = root.CXViewer;

  V.drawers.mnk = {
    coords: true,
    summary: function (g) { return g.label || "m,n,k-game " + g.rows + "x" + g.cols; },
    discClass: function (g, p) {
      return "cx-disc cx-col-" + (g.colors || ["black", "white"])[p];
    },
    draw: function (svg, game, opts) {
      return V.util.gridBoard(svg, game, opts, { background: "cx-wood" });
    }
  };
})(typeof window !== "undefined" ? window : this);
