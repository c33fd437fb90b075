// Table Companion: worked-out values in the deal forms, shown live as the other values are tapped.
// The rules (parse_deal) work out a value left on "auto" when the deal is saved; this only shows
// the player what that value will be. Without this file the forms work the same.
//
// Markup (templates/macros.html tap_row and number_field):
//   data-col="chips"         the columns a value adds to (space-separated)
//   data-derive="13"         this value is worked out: its first column adds up to 13
//   data-blank="0"           a blank value means none
(function () {
  "use strict";

  function isRow(el) { return el.tagName === "FIELDSET"; }

  // The value a field holds now: a number, "" when blank, or its worked-out value when on auto.
  function valueOf(el, worked) {
    var raw;
    if (isRow(el)) {
      var checked = el.querySelector("input[type=radio]:checked");
      raw = checked ? checked.value : "";
    } else {
      raw = el.value.trim();
    }
    if (raw === "") {
      if (el.hasAttribute("data-derive")) return worked.has(el) ? worked.get(el) : null;
      return el.dataset.blank === "0" ? 0 : null;
    }
    return /^[0-9]+$/.test(raw) ? parseInt(raw, 10) : null;
  }

  function show(el, value) {
    if (isRow(el)) {
      var out = el.querySelector("output.derived-value");
      if (out) out.textContent = value === null ? "" : "= " + value;
      el.querySelectorAll("label.tap").forEach(function (label) {
        var input = label.querySelector("input");
        label.classList.toggle("derived", value !== null && input.value === String(value));
      });
    } else {
      el.placeholder = value === null ? el.dataset.autoLabel : el.dataset.autoLabel + " = " + value;
    }
  }

  // A stored deal (the correction page) has every value filled in; where a value is what the
  // others work out anyway, show it as "auto" again so correcting another one carries it along.
  function adopt(el, value) {
    if (isRow(el)) {
      var checked = el.querySelector("input[type=radio]:checked");
      var auto = el.querySelector(".tap.auto input");
      if (checked && auto && checked !== auto && checked.value === String(value)) auto.checked = true;
    } else if (el.value.trim() === String(value)) {
      el.value = "";
    }
  }

  function update(form, adopting) {
    var fields = Array.prototype.slice.call(form.querySelectorAll("[data-col]"));
    var worked = new Map();
    // In page order, so a worked-out value can count towards a later one (the last player's
    // counts per rank, then their other cards).
    fields.forEach(function (el) {
      if (!el.hasAttribute("data-derive")) return;
      if (!isRow(el) && !el.dataset.autoLabel) el.dataset.autoLabel = el.placeholder;
      var column = el.dataset.col.split(" ")[0];
      var sum = 0;
      var known = fields.every(function (other) {
        if (other === el || other.dataset.col.split(" ").indexOf(column) < 0) return true;
        var v = valueOf(other, worked);
        if (v === null) return false;
        sum += v;
        return true;
      });
      var value = known ? parseInt(el.dataset.derive, 10) - sum : null;
      var max = isRow(el) ? el.querySelectorAll("input[type=radio]").length - 2 : 99;
      if (value !== null && (value < 0 || value > max)) value = null;
      if (value !== null) {
        if (adopting) adopt(el, value);
        worked.set(el, value);
      }
      show(el, value);
    });
  }

  function updateAll(root) {
    root.querySelectorAll("form").forEach(function (form) {
      if (!form.querySelector("[data-derive]")) return;
      // Only a stored deal as stored (the correction page before any refusal): once per form,
      // never touching what a player tapped or typed.
      var stored = form.querySelector("input[name=was]") && !form.querySelector(".field-error, [aria-invalid=true]");
      update(form, stored && !form.dataset.adopted);
      form.dataset.adopted = "1";
    });
  }

  // [data-other]: one tap on a player's tricks won fills in their other cards (tricks × players,
  // less the ranks counted). The tricks are buttons, not a field: nothing extra is sent.
  function fillOther(box) {
    var pressed = box.querySelector("button[aria-pressed=true]");
    var other = document.getElementById(box.dataset.other);
    if (!pressed || !other) return;
    var counted = 0;
    box.closest(".player-box").querySelectorAll("fieldset[data-col] input:checked").forEach(function (r) {
      counted += parseInt(r.value, 10) || 0;
    });
    var value = parseInt(pressed.dataset.tricks, 10) * parseInt(box.dataset.perTrick, 10) - counted;
    other.value = value >= 0 ? String(value) : "";
    other.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function showHelpers(root) {
    root.querySelectorAll(".tricks-won[hidden]").forEach(function (box) { box.hidden = false; });
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".tricks-won button[data-tricks]");
    if (!button) return;
    var box = button.closest(".tricks-won");
    box.querySelectorAll("button[data-tricks]").forEach(function (b) {
      b.setAttribute("aria-pressed", b === button ? "true" : "false");
    });
    fillOther(box);
  });
  document.addEventListener("change", function (event) {
    var player = event.target.closest && event.target.closest(".player-box");
    var helper = player && player.querySelector(".tricks-won");
    if (helper && event.target.closest("fieldset[data-col]")) fillOther(helper);
  });

  ["change", "input"].forEach(function (type) {  // a tap, or a typed number
    document.addEventListener(type, function (event) {
      var form = event.target.form;
      if (form && form.querySelector("[data-derive]")) update(form);
    });
  });
  document.addEventListener("DOMContentLoaded", function () { showHelpers(document); updateAll(document); });
  document.addEventListener("htmx:after:swap", function () { showHelpers(document); updateAll(document); });
})();
