/*
 * GameViewer: replays a game of another game than Connect-X (Othello, Nine Men's Morris) from
 * its positions. Plain JavaScript, no dependencies, no network. Part of cxarena
 * (arena/report/static/gameviewer.js); the HTML report inlines it next to viewer.js.
 *
 *   const viewer = GameViewer.mount(element, game, options);
 *
 * `game`:
 *   { kind: "grid" | "morris",
 *     frames: ["...", ...],        one per position (the start, then after each move); a grid
 *                                  frame is its cells row by row as 0/1/2, a Morris frame the
 *                                  24 points as 0/1/2, "/", and the pieces in hand "w,b"
 *     rows, cols, col_labels, row_labels     (grid)
 *     points: [[name, x, y], ...], lines: [[i, j], ...]   (morris, x/y on a 7x7 lattice)
 *     colors: ["black", "white"],  the first and the second player's pieces
 *     texts: ["d3", ...],          the moves in the game's notation
 *     times_ms: [ms, ...], players: [first, second], name, explanation, info: {k: v} }
 *   `options`: { position: "end" | "start" | n }
 *
 * Returns { element, goto(n), step(d), position(), length(), destroy() }. Keys when the viewer
 * has focus: Left/Right one move, Home/End. Grid cells carry data-row, data-col, data-state;
 * Morris points data-point (its name) and data-state, for tests and tools.
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

  function s(tag, attrs, parent) {
    var el = document.createElementNS(SVGNS, tag);
    for (var k in attrs) { el.setAttribute(k, attrs[k]); }
    if (parent) { parent.appendChild(el); }
    return el;
  }

  function fill(color) { return color === "white" ? "#f4f4f4" : "#222"; }

  function gridBoard(svg, g) {
    var C = 40, L = 22, shapes = [];
    svg.setAttribute("viewBox", "0 0 " + (L + g.cols * C + 4) + " " + (L + g.rows * C + 4));
    svg.setAttribute("width", String(L + g.cols * C + 4));
    s("rect", { x: L, y: L, width: g.cols * C, height: g.rows * C, fill: "#2e7d4f" }, svg);
    for (var c = 0; c < g.cols; c++) {
      var t = s("text", { x: L + c * C + C / 2, y: 15, "text-anchor": "middle",
                          "font-size": 12 }, svg);
      t.textContent = g.col_labels ? g.col_labels[c] : String(c);
    }
    for (var r = 0; r < g.rows; r++) {
      var u = s("text", { x: 10, y: L + r * C + C / 2 + 4, "text-anchor": "middle",
                          "font-size": 12 }, svg);
      u.textContent = g.row_labels ? g.row_labels[r] : String(r + 1);
      for (c = 0; c < g.cols; c++) {
        s("rect", { x: L + c * C, y: L + r * C, width: C, height: C, fill: "none",
                    stroke: "#114", "stroke-width": 1 }, svg);
        shapes.push(s("circle", { cx: L + c * C + C / 2, cy: L + r * C + C / 2, r: 15,
                                  "data-row": r, "data-col": c, "data-state": 0 }, svg));
      }
    }
    return function (frame) {
      for (var i = 0; i < shapes.length; i++) {
        var v = frame.charCodeAt(i) - 48;
        shapes[i].setAttribute("data-state", String(v));
        shapes[i].setAttribute("fill", v ? fill(g.colors[v - 1]) : "none");
        shapes[i].setAttribute("stroke", v ? "#000" : "none");
      }
    };
  }

  function morrisBoard(svg, g, handEl) {
    var C = 44, P = 20, shapes = [];
    svg.setAttribute("viewBox", "0 0 " + (2 * P + 6 * C) + " " + (2 * P + 6 * C));
    svg.setAttribute("width", String(2 * P + 6 * C));
    s("rect", { x: 0, y: 0, width: 2 * P + 6 * C, height: 2 * P + 6 * C, fill: "#d9b77e" }, svg);
    g.lines.forEach(function (ln) {
      var a = g.points[ln[0]], b = g.points[ln[1]];
      s("line", { x1: P + a[1] * C, y1: P + a[2] * C, x2: P + b[1] * C, y2: P + b[2] * C,
                  stroke: "#3b2a14", "stroke-width": 3 }, svg);
    });
    g.points.forEach(function (p) {
      s("circle", { cx: P + p[1] * C, cy: P + p[2] * C, r: 5, fill: "#3b2a14" }, svg);
      var piece = s("circle", { cx: P + p[1] * C, cy: P + p[2] * C, r: 14, "data-point": p[0],
                                "data-state": 0 }, svg);
      var title = s("title", {}, piece);
      title.textContent = p[0];
      shapes.push(piece);
    });
    return function (frame) {
      var parts = frame.split("/");
      for (var i = 0; i < shapes.length; i++) {
        var v = parts[0].charCodeAt(i) - 48;
        shapes[i].setAttribute("data-state", String(v));
        shapes[i].setAttribute("fill", v ? fill(g.colors[v - 1]) : "none");
        shapes[i].setAttribute("stroke", v ? "#000" : "none");
      }
      var hand = (parts[1] || "0,0").split(",");
      handEl.textContent = "in hand: " + g.colors[0] + " " + hand[0] + ", " + g.colors[1] +
        " " + hand[1];
    };
  }

  function mount(element, game, options) {
    options = options || {};
    var rootEl = h("div", { class: "gv", tabindex: "0" }, element);
    var players = game.players || ["first", "second"];
    h("div", { class: "gv-head" }, rootEl,
      (game.name || "") + ": " + players[0] + " (" + game.colors[0] + ") vs " + players[1] +
      " (" + game.colors[1] + ")");
    var svg = s("svg", { class: "gv-board", role: "img" }, rootEl);
    var handEl = h("div", { class: "gv-hand" }, rootEl);
    var draw = game.kind === "morris" ? morrisBoard(svg, game, handEl) : gridBoard(svg, game);
    var bar = h("div", { class: "gv-controls" }, rootEl);
    var buttons = [["|<", -1e9], ["<", -1], [">", 1], [">|", 1e9]].map(function (b) {
      var el = h("button", { type: "button", "data-step": b[1] }, bar, b[0]);
      el.addEventListener("click", function () { goto(pos + b[1]); });
      return el;
    });
    var where = h("span", { class: "gv-where" }, bar);
    var explain = h("div", { class: "gv-explain" }, rootEl);
    var list = h("ol", { class: "gv-moves", style: "columns: 11em; max-width: 60em" }, rootEl);
    var texts = game.texts || [];
    var items = texts.map(function (t, i) {
      var ms = game.times_ms && game.times_ms[i] !== undefined ?
        " (" + Number(game.times_ms[i]).toFixed(1) + " ms)" : "";
      var li = h("li", { "data-move": i + 1 }, list, t + ms);
      li.addEventListener("click", function () { goto(i + 1); });
      return li;
    });
    if (game.info) {
      var dl = h("dl", { class: "gv-info" }, rootEl);
      for (var k in game.info) { h("dt", null, dl, k); h("dd", null, dl, game.info[k]); }
    }
    var last = game.frames.length - 1;
    var pos = 0;
    function goto(n) {
      pos = Math.max(0, Math.min(last, n));
      draw(game.frames[pos]);
      where.textContent = pos === 0 ? "start position" :
        "after move " + pos + " of " + last + ": " + (texts[pos - 1] || "");
      items.forEach(function (li, i) { li.classList.toggle("current", i === pos - 1); });
      explain.textContent = pos === last && game.explanation ? game.explanation : "";
      buttons[0].disabled = buttons[1].disabled = pos === 0;
      buttons[2].disabled = buttons[3].disabled = pos === last;
      return pos;
    }
    function onKey(ev) {
      var d = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 }[ev.key];
      if (d !== undefined) { ev.preventDefault(); goto(pos + d); }
    }
    rootEl.addEventListener("keydown", onKey);
    var start = options.position;
    goto(start === "start" ? 0 : typeof start === "number" ? start : last);
    return {
      element: rootEl,
      goto: goto,
      step: function (d) { return goto(pos + d); },
      position: function () { return pos; },
      length: function () { return last; },
      destroy: function () { rootEl.removeEventListener("keydown", onKey); rootEl.remove(); }
    };
  }

  root.GameViewer = { mount: mount };
})(typeof window !== "undefined" ? window : this);
