/*
 * The Nine Men's Morris board of the game viewer (arena/report/static/viewer.js): the three
 * squares and their lines, the coordinates of the points (files a-g under the board, ranks 1-7
 * at its left, as the notation: c4-c3xd6), the pieces of every position from the game's frames
 * (arena/report/frames.py: the 24 points as 0/1/2, "/", the pieces in hand "w,b"; or the
 * server's drawing, `Game.drawing`) and the pieces in hand; the last move's point, where the
 * piece came from and the piece it took are marked. Points carry data-point (its name) and
 * data-state (0, 1, 2); on the play page, points the person may click data-target="1".
 */
(function (root) {
  "use strict";

  var V = root.CXViewer;
  var s = V.util.svg;
  var C = 44, P = 34;

  /* {pieces: [0/1/2 per point], hand: [first, second]} of a frame */
  function decode(frame) {
    if (typeof frame === "string") {
      var parts = frame.split("/"), pieces = [];
      for (var i = 0; i < parts[0].length; i++) { pieces.push(parts[0].charCodeAt(i) - 48); }
      return { pieces: pieces, hand: (parts[1] || "0,0").split(",").map(Number) };
    }
    return { pieces: frame.points.map(function (p) { return p.piece; }), hand: frame.in_hand };
  }

  /* [name, x, y] of every point, from the report's list or the server's drawing */
  function pointsOf(game) {
    return (game.points || []).map(function (p) {
      return Array.isArray(p) ? p : [p.name, p.x, p.y];
    });
  }

  /* {to, from, taken} of a move text: "d6", "c4-c3", "c4-c3xd6", "d6xa1" */
  function parts(text) {
    var m = /^([a-z][0-9]+)(?:-([a-z][0-9]+))?(?:x([a-z][0-9]+))?$/.exec(text || "");
    if (!m) { return {}; }
    return m[2] ? { from: m[1], to: m[2], taken: m[3] } : { to: m[1], taken: m[3] };
  }

  function draw(svg, game, opts) {
    var points = pointsOf(game);
    var colors = game.colors || ["white", "black"];
    var lines = game.lines || [];
    var W = 2 * P + 6 * C, H = 2 * P + 6 * C + 22;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    svg.setAttribute("aria-label", "Nine Men's Morris board");
    s("rect", { "class": "cx-wood", x: 0, y: 0, width: W, height: H, rx: 6 }, svg);
    lines.forEach(function (ln) {
      var a = points[ln[0]], b = points[ln[1]];
      s("line", { "class": "cx-line", x1: P + a[1] * C, y1: P + a[2] * C, x2: P + b[1] * C,
                  y2: P + b[2] * C }, svg);
    });
    // coordinates on the points' files and ranks (the names say where: "c4" is x 2, y 3)
    var files = {}, ranks = {};
    points.forEach(function (p) { files[p[1]] = p[0].charAt(0); ranks[p[2]] = p[0].slice(1); });
    Object.keys(files).forEach(function (x) {
      s("text", { "class": "cx-coord cx-file", x: P + x * C, y: P + 6 * C + 24 }, svg, files[x]);
    });
    Object.keys(ranks).forEach(function (y) {
      s("text", { "class": "cx-coord cx-rank", x: 12, y: P + y * C + 4 }, svg, ranks[y]);
    });
    var shapes = {}, order = [];
    points.forEach(function (p) {
      var el = s("circle", { "class": "cx-point", cx: P + p[1] * C, cy: P + p[2] * C, r: 6,
                             "data-point": p[0], "data-state": 0 }, svg);
      s("title", null, el, p[0]);
      shapes[p[0]] = el;
      order.push(p[0]);
    });
    var marks = s("g", null, svg);
    var hand = s("text", { "class": "cx-hand", x: W / 2, y: H - 6 }, svg);
    if (opts.onPointClick) {
      svg.classList.add("cx-clickable");
      svg.addEventListener("click", function (ev) {
        var name = ev.target.getAttribute && ev.target.getAttribute("data-point");
        if (name) { opts.onPointClick(name); }
      });
    }
    function ring(name, cls) {
      var el = shapes[name];
      if (!el) { return; }
      s("circle", { "class": cls, cx: el.getAttribute("cx"), cy: el.getAttribute("cy"),
                    r: 19 }, marks);
    }
    var board = V.util.framed(game, function (frame, n) {
      var d = decode(frame);
      order.forEach(function (name, i) {
        var v = d.pieces[i] || 0;
        var el = shapes[name];
        el.setAttribute("data-state", String(v));
        el.setAttribute("r", v ? 15 : el.getAttribute("data-target") === "1" ? 10 : 6);
        el.setAttribute("class", v ? "cx-piece cx-col-" + colors[v - 1] : "cx-point");
      });
      hand.textContent = "in hand: " + colors[0] + " " + d.hand[0] + ", " + colors[1] + " " +
        d.hand[1];
      marks.textContent = "";
      var mv = n > 0 ? parts(game.moves[n - 1]) : {};
      if (mv.to && shapes[mv.to]) { shapes[mv.to].classList.add("cx-last"); }
      if (mv.from) { ring(mv.from, "cx-from"); }
      if (mv.taken) { ring(mv.taken, "cx-taken"); }
    });
    board.mark = function (targets, chosen) {
      order.forEach(function (name) {
        var el = shapes[name], on = !!(targets && targets.has(name));
        el.setAttribute("data-target", on ? "1" : "0");
        el.classList.toggle("cx-chosen", !!(chosen && chosen.indexOf(name) >= 0));
        if (el.getAttribute("data-state") === "0") { el.setAttribute("r", on ? 10 : 6); }
      });
    };
    board.cells = function () {
      var k = board.frames.length - 1;
      return k >= 0 ? decode(board.frames[k]) : null;
    };
    return board;
  }

  V.drawers.morris = {
    coords: true,
    summary: function (g) { return "Nine Men's Morris"; },
    discClass: function (g, p) {
      return "cx-disc cx-col-" + (g.colors || ["white", "black"])[p];
    },
    draw: draw
  };
})(typeof window !== "undefined" ? window : this);
