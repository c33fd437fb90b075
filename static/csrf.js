// Table Companion: the page's CSRF token for forms that carry none. A table's live parts are
// rendered once for every phone at the table, so their forms (Undo, Finish, Rematch, the next
// deal's form) have an empty csrf_token field (companion/tables/views.py, live); the page's own
// token is in <meta name="csrf-token">. Whenever such a form's data is gathered (sent as a plain
// form, by htmx, or kept by the outbox: static/outbox.js), the page's token is put in.
(function () {
  "use strict";
  document.addEventListener("formdata", function (event) {
    var form = event.target, data = event.formData;
    if (!form || (form.getAttribute("method") || "").toLowerCase() !== "post" || data.get("csrf_token")) return;
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta && meta.content) data.set("csrf_token", meta.content);
  }, true);
})();
