// Table Companion: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Steppers: big − / + buttons beside number inputs (type=button, so no-JS forms still submit).
  document.addEventListener("click", function (event) {
    var button = event.target.closest("button.step");
    if (!button) return;
    var input = document.getElementById(button.dataset.for);
    if (!input) return;
    var step = parseInt(button.dataset.step, 10);
    var min = parseInt(input.min || "0", 10);
    var value = parseInt(input.value, 10);
    // From an empty box, "+" means 1 and "−" means the minimum.
    var next = isNaN(value) ? (step > 0 ? Math.max(1, min) : min) : value + step;
    if (input.min !== "" && next < parseInt(input.min, 10)) next = parseInt(input.min, 10);
    if (input.max !== "" && next > parseInt(input.max, 10)) next = parseInt(input.max, 10);
    input.value = String(next);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });

  // Setup checklists: ticks survive a reload on this phone (localStorage, keyed by page and step).
  function restoreTicks(root) {
    root.querySelectorAll("input[data-tick]").forEach(function (box) {
      try { box.checked = localStorage.getItem(box.dataset.tick) === "1"; } catch (e) { /* private mode */ }
    });
  }
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (box.matches && box.matches("input[data-tick]")) {
      try { localStorage.setItem(box.dataset.tick, box.checked ? "1" : "0"); } catch (e) { /* private mode */ }
    }
  });
  document.addEventListener("click", function (event) {
    var reset = event.target.closest("[data-reset-ticks]");
    if (!reset) return;
    document.querySelectorAll("input[data-tick]").forEach(function (box) {
      box.checked = false;
      try { localStorage.removeItem(box.dataset.tick); } catch (e) { /* private mode */ }
    });
  });
  document.addEventListener("DOMContentLoaded", function () { restoreTicks(document); });
  document.addEventListener("htmx:after:swap", function (event) { restoreTicks(document); });
})();
