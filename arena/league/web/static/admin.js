/* The admin page: a form with a data-confirm attribute asks before it is sent (the CSP allows
 * no inline handlers). */
(function () {
  "use strict";
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      if (!window.confirm(form.dataset.confirm)) { ev.preventDefault(); }
    });
  });
})();
