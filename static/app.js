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

// The table page's entry form: drafts that survive a reload, a form that follows the table
// when another phone saves, and a Save that is safe to double-tap.
(function () {
  "use strict";

  var initial = new WeakMap();  // a fresh form's values when it appeared: typed = changed since

  function entryForm() { return document.querySelector("form#entry[data-table]"); }

  function fieldsOf(form) {
    // Every named input the player can set (text, number, radio, checkbox, hidden trackers).
    var pairs = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrf_token" && name !== "number" && name !== "write_id" && typeof value === "string") pairs.push([name, value]);
    });
    return pairs;
  }

  function draftKey(form, number) {
    return "draft:" + form.dataset.table + ":" + (number || form.elements.number.value);
  }

  function isTyped(form) {
    if (!initial.has(form)) return true;  // rendered with values (a refused entry): typed
    return JSON.stringify(fieldsOf(form)) !== initial.get(form);
  }

  function store(key, value) {
    try { if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, value); }
    catch (e) { /* private mode or full: drafts are a comfort, not a promise */ }
  }
  function read(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }

  function saveDraft(form) {
    store(draftKey(form), isTyped(form) ? JSON.stringify(fieldsOf(form)) : null);
  }

  function forgetTakenDrafts(form) {
    // Deals before this form's number are recorded: their drafts are done with.
    var prefix = "draft:" + form.dataset.table + ":";
    var number = parseInt(form.elements.number.value, 10);
    try {
      for (var i = localStorage.length - 1; i >= 0; i--) {
        var key = localStorage.key(i);
        if (key && key.indexOf(prefix) === 0 && parseInt(key.slice(prefix.length), 10) < number) {
          localStorage.removeItem(key);
        }
      }
    } catch (e) { /* no storage */ }
  }

  function restoreDraft(form) {
    var raw = read(draftKey(form));
    if (!raw) return;
    var pairs;
    try { pairs = JSON.parse(raw); } catch (e) { return; }
    var changed = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name === "csrf_token" || el.name === "number" || el.name === "write_id") return;
      var values = pairs.filter(function (p) { return p[0] === el.name; }).map(function (p) { return p[1]; });
      if (el.type === "radio" || el.type === "checkbox") {
        var want = values.indexOf(el.value) !== -1;
        if (el.checked !== want) { el.checked = want; changed.push(el); }
      } else if (values.length && el.value !== values[0]) {
        el.value = values[0];
        changed.push(el);
      }
    });
    if (!changed.length) return;
    previewNow(form);
    changed.forEach(function (el) {
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
    });
    var note = document.createElement("p");
    note.className = "notice restored";
    note.setAttribute("role", "status");
    note.textContent = form.dataset.restoredText || "";
    var clear = document.createElement("button");
    clear.type = "button";
    clear.className = "button small";
    clear.dataset.clearDraft = "";
    clear.textContent = form.dataset.clearText || "";
    note.appendChild(document.createTextNode(" "));
    note.appendChild(clear);
    form.querySelector("h2").insertAdjacentElement("afterend", note);
  }

  // Values put in the form without a tap (a restored draft, an undone deal given back, "use
  // mine", the correction page: data-preview-now) get their score check at once, not at the
  // first tap. The check listens on the form only once htmx has set its box up, which may be
  // before or after this script runs: so both on htmx's "after:init" and on load or swap.
  function previewNow(form) {
    form.setAttribute("data-preview-now", "");
    previewsNow();
  }
  function previewsNow() {
    document.querySelectorAll("form[data-preview-now]").forEach(function (form) {
      var box = form.querySelector(".preview");
      if (!box || !box.hasAttribute("data-htmx-powered")) return;  // its after:init comes later
      form.removeAttribute("data-preview-now");
      // After htmx's own listeners for the box are all in place.
      setTimeout(function () { form.dispatchEvent(new Event("change")); }, 0);
    });
  }
  document.addEventListener("htmx:after:init", function (event) {
    var box = event.target;
    if (box.classList && box.classList.contains("preview")) previewsNow();
  });

  function coolDown(form, ms) {
    // A second tap of a double tap lands on the fresh form's Save: ignore it for a moment.
    var button = form.querySelector("button[type=submit]");
    if (!button) return;
    button.disabled = true;
    setTimeout(function () { button.disabled = false; }, ms);
  }

  function setUp() {
    var form = entryForm();
    if (!form || form.dataset.ready) return;
    form.dataset.ready = "1";
    forgetTakenDrafts(form);
    if (form.hasAttribute("data-fresh")) {
      initial.set(form, JSON.stringify(fieldsOf(form)));
      restoreDraft(form);
    }
    if (form.hasAttribute("data-just-saved")) coolDown(form, 1000);
  }

  function showWhatWasTold() {
    // "Deal N saved" or a conflict: bring it into view (the answer replaced the form at the
    // spot where Save was tapped, far below it).
    // Another phone's deal (a fresh form was replaced) shows its points here too (issue 27).
    var told = document.querySelector("#entry-wrap .saved-banner, #entry-wrap .told-other, #entry-wrap .conflict-box");
    if (told && !told.dataset.seen) {
      told.dataset.seen = "1";
      told.scrollIntoView({ block: "start" });
    }
  }

  function showMoved(form, text) {
    var notice = form.querySelector("p.notice.moved");
    if (!notice) {
      notice = document.createElement("p");
      notice.className = "notice moved";
      notice.setAttribute("role", "alert");
      form.querySelector("h2").insertAdjacentElement("afterend", notice);
    }
    notice.textContent = text;
  }

  function retell(wrap, template) {
    // The form is kept (typed), but what this phone was told above it is out of date ("Deal 1
    // saved." with Undo deal 1, "Deal 2 was just entered" after deal 2 was undone): put what the
    // table says now in its place, or nothing. Not scrolled to: the player is typing below.
    var told = wrap.querySelector(":scope > .saved-banner, :scope > .told-other");
    var now = template.content.querySelector("#entry-wrap > .saved-banner, #entry-wrap > .told-other");
    var copy = now ? document.importNode(now, true) : null;
    if (copy) copy.dataset.seen = "1";
    if (told && copy) told.replaceWith(copy);
    else if (told) told.remove();
    else if (copy) wrap.insertBefore(copy, wrap.firstChild);
    if (copy && window.htmx) htmx.process(copy);
  }

  function adoptNextForm() {
    // The table moved on (another phone saved or undid): the live answer brought the next form.
    var holder = document.getElementById("entry-next");
    var template = holder && holder.querySelector("template");
    if (!template) return;
    holder.textContent = "";
    var wrap = document.getElementById("entry-wrap");
    // Already there: this phone's own save answered first (a live answer asked before it
    // arrives late). Never tell this phone that another one entered its deal.
    if (wrap && wrap.dataset.number === template.dataset.number) return;
    var form = entryForm();
    // This phone is saving its form right now: its own answer brings the next form.
    if (form && form.dataset.saving) return;
    var incoming = template.content.querySelector("form#entry");
    if (form && isTyped(form)) {
      // What is typed stays, and so does its deal number: the tap on Save this finger is about
      // to make is for the deal it was typed for (the laptop then says whether the deal
      // recorded meanwhile is the same, stored once, or shows both). Moving typed values to the
      // next deal stored one deal twice when two phones saved it at once (issue 32).
      retell(wrap, template);
      var mine = parseInt(form.elements.number.value, 10);
      var taken = incoming && mine < parseInt(template.dataset.number, 10);
      showMoved(form, taken ? template.dataset.taken.split("{n}").join(mine) : template.dataset.moved);
      if (!incoming) {
        // No next deal any more (the match ended meanwhile): say why Save is off.
        form.querySelector("button[type=submit]").disabled = true;
        wrap.dataset.number = "";
      }
      return;
    }
    if (!wrap) return;
    var fresh = template.content.querySelector("#entry-wrap");
    var clone = document.importNode(fresh, true);
    wrap.replaceWith(clone);
    if (window.htmx) htmx.process(clone);
    setUp();
  }

  // Typing fires "input", a tap on a radio "change": both update the draft.
  ["input", "change"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var form = event.target.form;
      if (form && form.matches("form#entry[data-table]")) saveDraft(form);
    });
  });
  document.addEventListener("click", function (event) {
    var clear = event.target.closest("[data-clear-draft]");
    if (!clear) return;
    var form = clear.form;
    store(draftKey(form), null);
    window.location.reload();
  });

  function dropStaleErrors(event) {
    // The as-you-type check just answered: the messages from the last Save are stale, and
    // showing both would show each error twice. The check's answer is the one truth now.
    var target = event.target;
    if (!target || !target.classList || !target.classList.contains("preview")) return;
    var form = target.closest("form");
    if (!form) return;
    form.querySelectorAll("p.field-error, .error-summary:not(.preview *)").forEach(function (el) {
      if (!target.contains(el)) el.remove();
    });
    form.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
  }

  // While the entry form's own Save is on its way (see adoptNextForm).
  function savingForm(event) {
    var source = event.detail && event.detail.ctx && event.detail.ctx.sourceElement;
    return source && source.matches && source.matches("form#entry[data-table]") ? source : null;
  }
  document.addEventListener("htmx:before:request", function (event) {
    var form = savingForm(event);
    if (form) form.dataset.saving = "1";
  });
  document.addEventListener("htmx:finally:request", function (event) {
    var form = savingForm(event);
    if (form) delete form.dataset.saving;
  });

  document.addEventListener("DOMContentLoaded", function () { setUp(); showWhatWasTold(); previewsNow(); });
  document.addEventListener("htmx:after:swap", dropStaleErrors);
  document.addEventListener("htmx:after:swap", function () { setUp(); adoptNextForm(); showWhatWasTold(); previewsNow(); });
})();
