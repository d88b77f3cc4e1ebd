/* The league's replay page: mounts the report's viewer (viewer.js) on the game object that the
 * server put, JSON-encoded and HTML-escaped, in #viewer's data-game attribute. */
(function () {
  "use strict";
  var box = document.getElementById("viewer");
  if (!box || !box.dataset.game) { return; }
  var g = JSON.parse(box.dataset.game);
  var limit = g.info && g.info["time limit (s)"];
  window.cxviewer = CXViewer.mount(box, g, {
    position: "end", globalKeys: true, timeout_ms: limit ? limit * 1000 : undefined
  });
})();
