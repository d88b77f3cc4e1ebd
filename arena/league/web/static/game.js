/* The league's replay page: mounts the report's viewer (viewer.js) on the game object that the
 * server put, JSON-encoded and HTML-escaped, in #viewer's data-game attribute (with the
 * workers' analysis when the reader wrote a side). #first-blunder's data-blunder names the
 * reader's first blunder: the viewer opens just after it, and its move and evaluation cell are
 * marked (cx-first-blunder). */
(function () {
  "use strict";
  var box = document.getElementById("viewer");
  if (!box || !box.dataset.game) { return; }
  var g = JSON.parse(box.dataset.game);
  var limit = g.info && g.info["time limit (s)"];
  var note = document.getElementById("first-blunder");
  var blunder = note && note.dataset.blunder ? JSON.parse(note.dataset.blunder) : null;
  var at = blunder && typeof blunder.ply === "number" ? blunder.ply : null;
  window.cxviewer = CXViewer.mount(box, g, {
    position: at === null ? "end" : at + 1, globalKeys: true,
    timeout_ms: limit ? limit * 1000 : undefined
  });
  if (at === null) { return; }
  var row = box.querySelector('.cx-moves tr[data-move="' + (at + 1) + '"]');
  if (row) { row.classList.add("cx-first-blunder"); row.title = "your first blunder"; }
  var cell = box.querySelector('.cx-evalstrip [data-ply="' + at + '"]');
  if (cell) { cell.classList.add("cx-first-blunder"); }
  var go = document.getElementById("goto-blunder");
  if (go) { go.addEventListener("click", function () { window.cxviewer.goto(at + 1); }); }
})();
