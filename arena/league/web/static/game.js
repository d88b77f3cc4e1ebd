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
  var note = document.getElementById("first-blunder");
  var blunder = note && note.dataset.blunder ? JSON.parse(note.dataset.blunder) : null;
  var at = blunder && typeof blunder.ply === "number" ? blunder.ply : null;
  window.cxviewer = CXViewer.mount(box, g, {
    position: at === null ? "end" : at + 1, globalKeys: true
  });  /* the game's own time limit: g.timeout_ms */
  if (at === null) { return; }
  /* the viewer builds its move list once the game's drawer has loaded (a script of its own) */
  function mark() {
    var row = box.querySelector('.cx-moves tr[data-move="' + (at + 1) + '"]');
    var cell = box.querySelector('.cx-evalstrip [data-ply="' + at + '"]');
    if (!row || !cell) { return false; }
    row.classList.add("cx-first-blunder");
    row.title = "your first blunder";
    cell.classList.add("cx-first-blunder");
    return true;
  }
  if (!mark()) {
    var watch = new MutationObserver(function () { if (mark()) { watch.disconnect(); } });
    watch.observe(box, { childList: true, subtree: true });
  }
  var go = document.getElementById("goto-blunder");
  if (go) { go.addEventListener("click", function () { window.cxviewer.goto(at + 1); }); }
})();
