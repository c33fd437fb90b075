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
  // Card keypads: tap a rank, then a suit, and the card is added to the codes box beside it.
  function showKeypads(root) {
    root.querySelectorAll(".keypad[hidden]").forEach(function (pad) { pad.hidden = false; });
  }
  document.addEventListener("click", function (event) {
    var key = event.target.closest(".keypad .key");
    if (!key) return;
    var pad = key.closest(".keypad");
    var input = document.getElementById(pad.dataset.for);
    if (!input) return;
    var cards = input.value.trim().split(/\s+/).filter(Boolean);
    var chosen = pad.querySelector(".key[aria-pressed=true]");
    if (key.dataset.rank) {
      if (chosen) chosen.setAttribute("aria-pressed", "false");
      if (chosen !== key) key.setAttribute("aria-pressed", "true");
      return;
    }
    if (key.dataset.suit) {
      if (!chosen) { pad.classList.add("want-rank"); return; }  // a suit needs a rank first
      chosen.setAttribute("aria-pressed", "false");
      cards.push(chosen.dataset.rank + key.dataset.suit);
    } else if (key.dataset.key === "back") {
      cards.pop();
    }
    pad.classList.remove("want-rank");
    input.value = cards.join(" ");
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });

  document.addEventListener("DOMContentLoaded", function () { restoreTicks(document); showKeypads(document); });
  document.addEventListener("htmx:after:swap", function (event) { restoreTicks(document); showKeypads(document); });
})();
