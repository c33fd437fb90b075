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
      // An undone deal given back to the form (issue 27) is a stored deal too.
      var stored = (form.querySelector("input[name=was]") || form.hasAttribute("data-given-back")) &&
        !form.querySelector(".field-error, [aria-invalid=true]");
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

// A bid tapped as the number its two suits add up to (a suit picker's number mode, issue 27). The rules record
// two suits, so a number sets two suits that add up to it (the higher one first, as the bid
// calculator would show them); the two suit rows stay the form's fields. Which way this phone
// enters bids (the number or the suits) is shown on the form and remembered on the phone.
(function () {
  "use strict";
  var KEY = "tc:bid-mode";

  function valuesOf(box) {
    try { return JSON.parse(box.dataset.bidValues); } catch (e) { return null; }
  }
  function remembered() { try { return localStorage.getItem(KEY); } catch (e) { return null; } }
  function remember(mode) { try { localStorage.setItem(KEY, mode); } catch (e) { /* private mode */ } }

  function radios(form, seat, which) {
    return form.querySelectorAll('input[type=radio][name="bid' + which + "-" + seat + '"]');
  }
  function checkedValue(form, seat, which, values) {
    var found = null;
    radios(form, seat, which).forEach(function (r) { if (r.checked) found = values[r.value]; });
    return found === undefined ? null : found;
  }

  function showSums(form, values) {
    form.querySelectorAll(".bid-number[data-seat]").forEach(function (row) {
      var a = checkedValue(form, row.dataset.seat, 1, values), b = checkedValue(form, row.dataset.seat, 2, values);
      var sum = a === null || b === null ? null : a + b;
      row.querySelectorAll("button[data-bid]").forEach(function (button) {
        button.setAttribute("aria-pressed", String(sum !== null && parseInt(button.dataset.bid, 10) === sum));
      });
    });
  }

  function setMode(form, mode) {
    var box = form.querySelector(".bid-mode");
    // A refused suit is shown where it was tapped, with its message.
    if (mode === "number" && form.querySelector(".bid-suits .has-error")) mode = "suits";
    box.querySelectorAll("button[data-bid-mode]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.bidMode === mode));
    });
    form.querySelectorAll(".bid-number").forEach(function (row) { row.hidden = mode !== "number"; });
    form.querySelectorAll(".bid-suits").forEach(function (row) { row.hidden = mode === "number"; });
  }

  function setUp(root) {
    root.querySelectorAll(".bid-mode[data-bid-values]").forEach(function (box) {
      var form = box.closest("form");
      if (!form || form.dataset.bidModeReady) return;
      form.dataset.bidModeReady = "1";
      box.hidden = false;
      setMode(form, remembered() === "number" ? "number" : "suits");
      showSums(form, valuesOf(box));
    });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("button[data-bid-mode], .bid-number button[data-bid]");
    if (!target) return;
    var form = target.closest("form");
    var box = form && form.querySelector(".bid-mode");
    if (!box) return;
    if (target.dataset.bidMode) {
      remember(target.dataset.bidMode);
      setMode(form, target.dataset.bidMode);
      return;
    }
    var values = valuesOf(box);
    var bySuit = {};
    Object.keys(values).forEach(function (code) { bySuit[values[code]] = code; });
    var bid = parseInt(target.dataset.bid, 10);
    var high = Math.min(bid, 5);
    var seat = target.closest(".bid-number").dataset.seat;
    [[1, bySuit[high]], [2, bySuit[bid - high]]].forEach(function (pair) {
      radios(form, seat, pair[0]).forEach(function (r) {
        if (r.value === pair[1] && !r.checked) {
          r.checked = true;
          r.dispatchEvent(new Event("change", { bubbles: true }));
        }
      });
    });
    showSums(form, values);
  });
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    var box = form && form.querySelector(".bid-mode[data-bid-values]");
    if (box && /^bid[12]-/.test(event.target.name || "")) showSums(form, valuesOf(box));
  });
  document.addEventListener("DOMContentLoaded", function () { setUp(document); });
  document.addEventListener("htmx:after:swap", function () { setUp(document); });
})();
