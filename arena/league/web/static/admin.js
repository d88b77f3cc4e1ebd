/* The admin pages (the CSP allows no inline handlers):
 * - a form with a data-confirm attribute asks before it is sent;
 * - the roster's search box hides, as one types, the rows whose name does not hold its text
 *   (without JavaScript, "Find" sends ?q= and the server filters);
 * - a click on a roster heading with data-sort sorts the rows by that column (again: the
 *   other way). */
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) { ev.preventDefault(); }
    });
  });

  var table = document.getElementById("roster");
  var search = document.getElementById("roster-search");
  if (!table) { return; }
  var body = table.tBodies[0];
  var rows = function () { return Array.prototype.slice.call(body.querySelectorAll("tr[data-name]")); };

  if (search) {
    var filter = function () {
      var text = search.value.trim().toLowerCase();
      rows().forEach(function (tr) {
        tr.hidden = text !== "" && tr.dataset.name.indexOf(text) < 0;
      });
    };
    search.addEventListener("input", filter);
    filter();
  }

  var value = function (tr, index, numeric) {
    var cell = tr.cells[index];
    var text = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
    if (!numeric) { return text.trim().toLowerCase(); }
    var n = parseFloat(text);
    return isNaN(n) ? null : n;
  };
  table.querySelectorAll("th[data-sort]").forEach(function (th) {
    th.classList.add("sortable");
    th.addEventListener("click", function () {
      var index = th.cellIndex;
      var numeric = th.dataset.sort === "num";
      var down = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th[aria-sort]").forEach(function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", down ? "ascending" : "descending");
      var sorted = rows().sort(function (a, b) {
        var x = value(a, index, numeric), y = value(b, index, numeric);
        if (x === y) { return 0; }
        if (x === null || x === "") { return 1; }  /* empty cells last, either way */
        if (y === null || y === "") { return -1; }
        return (x < y ? -1 : 1) * (down ? 1 : -1);
      });
      sorted.forEach(function (tr) { body.appendChild(tr); });
    });
  });
})();
