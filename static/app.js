// Table Companion: small progressive enhancements. Every page works without this file.
(() => {
  "use strict";

  // Steppers: big − / + buttons beside number inputs (type=button, so no-JS forms still submit).
  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.step");
    if (!button) return;
    const input = document.getElementById(button.dataset.for);
    if (!input) return;
    const step = parseInt(button.dataset.step, 10);
    const min = parseInt(input.min || "0", 10);
    const value = parseInt(input.value, 10);
    // From an empty box, "+" means 1 and "−" means the minimum.
    let next = isNaN(value) ? (step > 0 ? Math.max(1, min) : min) : value + step;
    if (input.min !== "" && next < parseInt(input.min, 10)) next = parseInt(input.min, 10);
    if (input.max !== "" && next > parseInt(input.max, 10)) next = parseInt(input.max, 10);
    input.value = String(next);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });

  // Setup checklists: ticks survive a reload on this phone (localStorage, keyed by page and step).
  function restoreTicks(root) {
    root.querySelectorAll("input[data-tick]").forEach((box) => {
      try { box.checked = localStorage.getItem(box.dataset.tick) === "1"; } catch (e) { /* private mode */ }
    });
  }
  document.addEventListener("change", (event) => {
    const box = event.target;
    if (box.matches && box.matches("input[data-tick]")) {
      try { localStorage.setItem(box.dataset.tick, box.checked ? "1" : "0"); } catch (e) { /* private mode */ }
    }
  });
  document.addEventListener("click", (event) => {
    const reset = event.target.closest("[data-reset-ticks]");
    if (!reset) return;
    document.querySelectorAll("input[data-tick]").forEach((box) => {
      box.checked = false;
      try { localStorage.removeItem(box.dataset.tick); } catch (e) { /* private mode */ }
    });
  });
  // Card keypads: tap a rank, then a suit, and the card is added to the codes box beside it.
  function showKeypads(root) {
    root.querySelectorAll(".keypad[hidden]").forEach((pad) => { pad.hidden = false; });
  }
  document.addEventListener("click", (event) => {
    const key = event.target.closest(".keypad .key");
    if (!key) return;
    const pad = key.closest(".keypad");
    const input = document.getElementById(pad.dataset.for);
    if (!input) return;
    const cards = input.value.trim().split(/\s+/).filter(Boolean);
    const chosen = pad.querySelector(".key[aria-pressed=true]");
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

  // A calculator's Clear loads the page again with ?clear=<its name>: back to that calculator.
  const showCleared = () => {
    const name = new URLSearchParams(location.search).get("clear");
    const calc = name && document.getElementById("calc-" + name);
    if (calc) calc.scrollIntoView({ block: "start" });
  };

  // Two sides agree (issue 45): a change this phone saved waits for another seat. The list is
  // rendered once for every phone at the table; this phone's own items say so instead of
  // offering Confirm (the laptop would refuse it, saying the same: confirming.why_not).
  const markOwnSaves = () => {
    const me = document.querySelector('meta[name="phone-id"]');
    for (const item of document.querySelectorAll("#confirm-box li[data-by]")) {
      const mine = Boolean(me) && item.dataset.by === me.content;
      const form = item.querySelector("form.confirm-one"), note = item.querySelector(".mine-note");
      if (form) form.hidden = mine;
      if (note) note.hidden = !mine;
    }
    // "Confirm all" only where this phone may confirm something.
    const all = document.querySelector("#confirm-box form.confirm-all");
    if (all) all.hidden = !document.querySelector("#confirm-box form.confirm-one:not([hidden])");
  };

  document.addEventListener("DOMContentLoaded", () => { restoreTicks(document); showKeypads(document); showCleared(); markOwnSaves(); });
  document.addEventListener("htmx:after:swap", () => { restoreTicks(document); showKeypads(document); markOwnSaves(); });
})();

// The table page's entry form: drafts that survive a reload (kept by drafts.js), a form that
// follows the table when another phone saves, and a Save that is safe to double-tap.
(() => {
  "use strict";

  const S = window.phoneStore;
  const initial = new WeakMap();  // a fresh form's values when it appeared: typed = changed since
  const NOT_TYPED = ["csrf_token", "number", "write_id"];

  const entryForm = () => document.querySelector("form#entry[data-table]");
  const numberOf = (form) => form.elements.number.value;

  function fieldsOf(form) {
    // Every named input the player can set (text, number, radio, checkbox, hidden trackers).
    const pairs = [];
    new FormData(form).forEach((value, name) => {
      if (!NOT_TYPED.includes(name) && typeof value === "string") pairs.push([name, value]);
    });
    return pairs;
  }

  function isTyped(form) {
    if (!initial.has(form)) return true;  // rendered with values (a refused entry): typed
    return JSON.stringify(fieldsOf(form)) !== initial.get(form);
  }

  function saveDraft(form) {
    S.writeDraft(form.dataset.table, numberOf(form), isTyped(form) ? fieldsOf(form) : null);
  }

  function restoreDraft(form) {
    const pairs = S.readDraft(form.dataset.table, numberOf(form));
    if (!pairs) return;
    const changed = [];
    for (const el of form.elements) {
      if (!el.name || NOT_TYPED.includes(el.name)) continue;
      const values = pairs.filter((p) => p[0] === el.name).map((p) => p[1]);
      if (el.type === "radio" || el.type === "checkbox") {
        const want = values.includes(el.value);
        if (el.checked !== want) { el.checked = want; changed.push(el); }
      } else if (values.length && el.value !== values[0]) {
        el.value = values[0];
        changed.push(el);
      }
    }
    if (!changed.length) return;
    previewNow(form);
    changed.forEach((el) => {
      el.dispatchEvent(new Event("input", { bubbles: true }));
      el.dispatchEvent(new Event("change", { bubbles: true }));
    });
    const note = document.createElement("p");
    note.className = "notice restored";
    note.setAttribute("role", "status");
    note.textContent = form.dataset.restoredText || "";
    const clear = document.createElement("button");
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
    document.querySelectorAll("form[data-preview-now]").forEach((form) => {
      const box = form.querySelector(".preview");
      if (!box || !box.hasAttribute("data-htmx-powered")) return;  // its after:init comes later
      form.removeAttribute("data-preview-now");
      // After htmx's own listeners for the box are all in place.
      setTimeout(() => form.dispatchEvent(new Event("change")), 0);
    });
  }
  document.addEventListener("htmx:after:init", (event) => {
    const box = event.target;
    if (box.classList && box.classList.contains("preview")) previewsNow();
  });

  function coolDown(form, ms) {
    // A second tap of a double tap lands on the fresh form's Save: ignore it for a moment.
    const button = form.querySelector("button[type=submit]");
    if (!button) return;
    button.disabled = true;
    setTimeout(() => { button.disabled = false; }, ms);
  }

  function setUp() {
    const form = entryForm();
    if (!form || form.dataset.ready) return;
    form.dataset.ready = "1";
    S.forgetDraftsBefore(form.dataset.table, parseInt(numberOf(form), 10));
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
    const told = document.querySelector("#entry-wrap .saved-banner, #entry-wrap .told-other, #entry-wrap .conflict-box");
    if (told && !told.dataset.seen) {
      told.dataset.seen = "1";
      // A write of this phone's the laptop refused waits for the player's choice at the top
      // (static/outbox.js brought it into view): news below never scrolls it away (CI: a
      // refusal's notice was scrolled off by the "Deal 9 saved" that arrived after it).
      if (!document.querySelector("#outbox .outbox-item[data-state=decide]")) told.scrollIntoView({ block: "start" });
    }
  }

  function showMoved(form, text) {
    let notice = form.querySelector("p.notice.moved");
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
    const told = wrap.querySelector(":scope > .saved-banner, :scope > .told-other");
    const now = template.content.querySelector("#entry-wrap > .saved-banner, #entry-wrap > .told-other");
    const copy = now ? document.importNode(now, true) : null;
    if (copy) copy.dataset.seen = "1";
    if (told && copy) told.replaceWith(copy);
    else if (told) told.remove();
    else if (copy) wrap.insertBefore(copy, wrap.firstChild);
    if (copy && window.htmx) htmx.process(copy);
  }

  function adoptNextForm() {
    // The table moved on (another phone saved or undid): the live answer brought the next form.
    const holder = document.getElementById("entry-next");
    const template = holder && holder.querySelector("template");
    if (!template) return;
    holder.textContent = "";
    // An answer that settled while this phone's own deal was answered (CI: its own deal 1 told as
    // "just entered from another phone", the form back at deal 2): the newer answer is on its way.
    if (window.liveRegion && window.liveRegion.isOlder(parseInt(template.dataset.rev, 10))) return;
    const wrap = document.getElementById("entry-wrap");
    // Already there: this phone's own save answered first (a live answer asked before it
    // arrives late). Never tell this phone that another one entered its deal.
    if (wrap && wrap.dataset.number === template.dataset.number) return;
    const form = entryForm();
    // This phone is saving its form right now: its own answer brings the next form.
    if (form && form.dataset.saving) return;
    const incoming = template.content.querySelector("form#entry");
    if (form && isTyped(form)) {
      // What is typed stays, and so does its deal number: the tap on Save this finger is about
      // to make is for the deal it was typed for (the laptop then says whether the deal
      // recorded meanwhile is the same, stored once, or shows both). Moving typed values to the
      // next deal stored one deal twice when two phones saved it at once (issue 32).
      retell(wrap, template);
      const mine = parseInt(numberOf(form), 10);
      const taken = incoming && mine < parseInt(template.dataset.number, 10);
      showMoved(form, taken ? template.dataset.taken.split("{n}").join(mine) : template.dataset.moved);
      if (!incoming) {
        // No next deal any more (the match ended meanwhile): say why Save is off.
        form.querySelector("button[type=submit]").disabled = true;
        wrap.dataset.number = "";
      }
      return;
    }
    if (!wrap) return;
    const clone = document.importNode(template.content.querySelector("#entry-wrap"), true);
    wrap.replaceWith(clone);
    if (window.htmx) htmx.process(clone);
    setUp();
  }

  // Typing fires "input", a tap on a radio "change": both update the draft.
  for (const type of ["input", "change"]) {
    document.addEventListener(type, (event) => {
      const form = event.target.form;
      if (form && form.matches("form#entry[data-table]")) saveDraft(form);
    });
  }
  document.addEventListener("click", (event) => {
    const clear = event.target.closest("[data-clear-draft]");
    if (!clear) return;
    const form = clear.form;
    S.forgetDraft(form.dataset.table, numberOf(form));
    window.location.reload();
  });

  function dropStaleErrors(event) {
    // The as-you-type check just answered: the messages from the last Save are stale, and
    // showing both would show each error twice. The check's answer is the one truth now.
    const target = event.target;
    if (!target || !target.classList || !target.classList.contains("preview")) return;
    const form = target.closest("form");
    if (!form) return;
    form.querySelectorAll("p.field-error, .error-summary:not(.preview *)").forEach((el) => {
      if (!target.contains(el)) el.remove();
    });
    form.querySelectorAll(".has-error").forEach((el) => el.classList.remove("has-error"));
    form.querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
  }

  // While the entry form's own Save is on its way (see adoptNextForm).
  function savingForm(event) {
    const source = event.detail && event.detail.ctx && event.detail.ctx.sourceElement;
    return source && source.matches && source.matches("form#entry[data-table]") ? source : null;
  }
  document.addEventListener("htmx:before:request", (event) => {
    const form = savingForm(event);
    if (form) form.dataset.saving = "1";
  });
  document.addEventListener("htmx:finally:request", (event) => {
    const form = savingForm(event);
    if (form) delete form.dataset.saving;
  });

  document.addEventListener("DOMContentLoaded", () => { setUp(); showWhatWasTold(); previewsNow(); });
  document.addEventListener("htmx:after:swap", dropStaleErrors);
  document.addEventListener("htmx:after:swap", () => { setUp(); adoptNextForm(); showWhatWasTold(); previewsNow(); });
})();
