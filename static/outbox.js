// Table Companion: the outbox. Every write a phone makes at a table (a deal, a correction, undo,
// finish or reopen, rematch, seating the players) is kept on this phone (localStorage) from the
// moment Save is tapped until the laptop answers it. One that gets no answer (offline, laptop
// down, timeout, a dropped connection) is shown at the top of the page with its values and sent
// again by itself: when the phone is back online, when the event stream reconnects, when the
// page is shown again, and with backoff in between. Each write carries an id made here
// (write_id): the laptop stores a write with a given id at most once and answers a resend as it
// answered the first time, so sending again is always safe.
//
// This file is the page's part: forms, requests, the bars at the top. The rules (the order
// writes go in, the backoff, what each answer means) are in outbox_queue.js, the storage in
// drafts.js (window.phoneStore).
//
// Without JavaScript none of this runs and every form posts as a plain form. No service worker:
// plain HTTP on a LAN is not a secure context, so this is built on what an open page has.
(() => {
  "use strict";

  const Q = window.outboxQueue, S = window.phoneStore;
  let WORDS = {};
  try { WORDS = JSON.parse((document.currentScript && document.currentScript.dataset.words) || "{}"); }
  catch (e) { /* English fallbacks below */ }
  const SEND_TIMEOUT = 8000, CHECK_TIMEOUT = 2500;

  const say = (key, n) => String(WORDS[key] || key).split("{n}").join(n === undefined ? "" : n);
  const title = (item) => Q.titleOf(item, say);

  // --- ids: crypto.randomUUID needs a secure context (HTTPS or localhost); a phone on the LAN
  // opens plain http://192.168…, where only getRandomValues is there.
  function newId() {
    const c = window.crypto;
    if (c && typeof c.randomUUID === "function") {
      try { return c.randomUUID(); } catch (e) { /* not a secure context */ }
    }
    const bytes = new Uint8Array(16);
    if (c && c.getRandomValues) c.getRandomValues(bytes);
    else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    return Array.from(bytes, (b) => (b + 256).toString(16).slice(1)).join("");
  }

  // --- the outbox itself (drafts.js keeps it: localStorage, or memory where storage is refused)
  const all = S.outboxItems;
  const keep = S.keepOutbox;
  const find = (id) => all().find((it) => it.id === id) || null;
  const add = (item) => keep(Q.withItem(all(), item));
  const change = (id, how) => keep(Q.changed(all(), id, how));
  const drop = (id) => keep(Q.without(all(), id));

  const inFlight = {};  // ids this page is sending right now (htmx or fetch): never sent twice at once
  const firstTry = {};  // ids on their first try (a tap on Save): not shown as waiting unless it fails
  const sent = (id) => { delete inFlight[id]; delete firstTry[id]; };

  // --- which forms are writes, and what a write says about itself

  function writeOf(form) {
    if (!form || !form.getAttribute || (form.getAttribute("method") || "").toLowerCase() !== "post") return null;
    let url;
    try { url = new URL(form.getAttribute("hx-post") || form.action, location.href); } catch (e) { return null; }
    return url.origin === location.origin ? Q.writeOfPath(url.pathname) : null;
  }

  function pageTable() {
    const m = /^\/t\/([A-Za-z0-9_-]{16,64})(\/|$)/.exec(location.pathname);
    return m ? m[1] : null;
  }

  const textOf = (el) => (el ? el.textContent.replace(/\s+/g, " ").trim() : "");
  // A legend or label as a screen reader says it: without its aria-hidden parts (a trick row's
  // big "1" beside its spoken "Trick 1 won by" would read "1Trick 1 won by").
  function spokenText(el) {
    if (!el) return "";
    const copy = el.cloneNode(true);
    copy.querySelectorAll('[aria-hidden="true"]').forEach((n) => n.remove());
    return textOf(copy);
  }

  function labelOf(el) {
    const parts = [];
    for (let f = el.closest("fieldset"); f; f = f.parentElement ? f.parentElement.closest("fieldset") : null) {
      const legend = f.querySelector(":scope > legend");
      if (legend) parts.unshift(spokenText(legend));
    }
    // A row of keys that is not a fieldset (a row of suit pictures) names itself in aria-label.
    const group = el.closest("[role=radiogroup][aria-label], [role=group][aria-label]");
    if (group && !group.contains(el.closest("fieldset") || document.body)) parts.push(group.getAttribute("aria-label"));
    if (el.id) {
      const label = el.form && el.form.querySelector('label[for="' + CSS.escape(el.id) + '"]');
      if (label) parts.push(spokenText(label));
    }
    return parts.filter(Boolean).join(" · ");
  }

  // What the player entered, in the page's own words ("Ann · Chips: 4"), to show while it waits.
  function describe(form) {
    const shown = [];
    for (const el of form.elements) {
      if (!el.name || el.disabled || ["hidden", "submit", "button", "reset"].includes(el.type)) continue;
      let value;
      if (el.type === "radio" || el.type === "checkbox") {
        if (!el.checked || el.value === "") continue;
        // A key whose face is a picture says in its title what it is ("Leaf = 5").
        const key = el.closest("label");
        value = (key && key.title) || textOf(key) || el.value;
      } else {
        value = String(el.value || "").trim();
      }
      if (value) shown.push([labelOf(el), value]);
    }
    return shown;
  }

  function idField(form) {
    let input = form.querySelector("input[name=write_id]");
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = "write_id";
      form.appendChild(input);
    }
    return input;
  }

  function itemOf(form, write, id, submitter) {
    // What the browser itself would send: the fields, and the button tapped if it has a name
    // (a correction's "Save and remove deal N").
    const fields = [];
    let data;
    try { data = new FormData(form, submitter || null); } catch (e) { data = new FormData(form); }
    data.forEach((value, name) => { if (typeof value === "string") fields.push([name, value]); });
    const number = write.edits || parseInt((form.elements.number && form.elements.number.value) || "0", 10) || null;
    return { id, table: write.table, path: write.path, kind: write.kind, number,
             fields, shown: describe(form), state: "waiting", made: Date.now() };
  }

  // --- the entry form after a deal went into the outbox: ready for the next deal

  const entryForm = () => document.querySelector("form#entry[data-table]");

  function renumber(form, n) {
    // The same form, saved as deal n (what is typed stays).
    form.elements.number.value = String(n);
    form.dataset.number = String(n);
    const wrap = form.closest("#entry-wrap");
    if (wrap) wrap.dataset.number = String(n);
    const heading = form.querySelector("h2");
    if (heading && WORDS.enter) heading.textContent = say("enter", n);
    const button = form.querySelector("button[type=submit]");
    if (button && WORDS.save) button.textContent = say("save", n);
    const jump = document.querySelector("#jump a[href='#entry']");  // templates/tables/_jump.html
    if (jump && WORDS.enter) jump.textContent = say("enter", n) + " ↓";
  }

  function clearForNext(form, n) {
    // The deal just kept is in the outbox; the form starts empty for the next one.
    const table = form.dataset.table;
    S.forgetDraft(table, n - 1);
    const token = form.elements.csrf_token ? form.elements.csrf_token.value : null;
    form.reset();
    for (const el of form.elements) {
      if (!el.name || el.type === "hidden" || el.type === "submit" || el.type === "button") continue;
      if (el.type === "radio") el.checked = el.value === "";
      else if (el.type === "checkbox") el.checked = false;
      else el.value = "";
    }
    if (token && form.elements.csrf_token) form.elements.csrf_token.value = token;
    renumber(form, n);
    const wrap = form.closest("#entry-wrap") || form;
    wrap.querySelectorAll(".saved-banner, .conflict-box, p.notice, p.flash, p.field-error, .error-summary")
      .forEach((el) => el.remove());
    form.querySelectorAll(".has-error").forEach((el) => el.classList.remove("has-error"));
    form.querySelectorAll("[aria-invalid]").forEach((el) => el.removeAttribute("aria-invalid"));
    const preview = form.querySelector(".preview");
    if (preview) preview.textContent = "";
    S.forgetDraft(table, n);
    const first = form.querySelector("input:not([type=hidden])");
    if (first) first.dispatchEvent(new Event("change", { bubbles: true }));  // worked-out values
    S.forgetDraft(table, n);
  }

  function catchUpForm() {
    // After a reload: deals waiting here are not on the laptop yet, so the form is for the one after.
    const form = entryForm();
    if (!form) return;
    const last = Q.lastWaitingDeal(all(), form.dataset.table, parseInt(form.elements.number.value, 10));
    if (last) clearForNext(form, last + 1);
  }

  // --- the bars at the top of the page

  function bars() {
    let reach = document.getElementById("reach-bar"), box = document.getElementById("outbox");
    const main = document.getElementById("main") || document.body;
    if (!box) {
      box = document.createElement("section");
      box.id = "outbox";
      box.className = "outbox";
      box.hidden = true;
      box.setAttribute("aria-live", "polite");
      main.insertBefore(box, main.firstChild);
    }
    if (!reach) {
      reach = document.createElement("p");
      reach.id = "reach-bar";
      reach.className = "reach-bar";
      reach.setAttribute("role", "alert");
      reach.hidden = true;
      reach.textContent = say("unreachable");
      main.insertBefore(reach, main.firstChild);
    }
    return { reach, box };
  }

  function button(text, act, id) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "button small";
    b.dataset.outboxAct = act;
    b.dataset.write = id;
    b.textContent = text;
    return b;
  }

  function view(item) {
    const card = document.createElement("div");
    card.className = "outbox-item card";
    card.dataset.write = item.id;
    card.dataset.state = item.state;
    card.dataset.kind = item.kind;
    if (item.number) card.dataset.number = item.number;
    const heading = document.createElement("p");
    heading.className = "outbox-title";
    const strong = document.createElement("strong");
    strong.textContent = say(item.state === "decide" ? "notSaved" : "waiting").replace("{what}", title(item));
    heading.appendChild(strong);
    card.appendChild(heading);
    if (item.shown && item.shown.length) {
      const list = document.createElement("ul");
      list.className = "outbox-values";
      for (const [label, value] of item.shown) {
        const li = document.createElement("li");
        if (label) li.appendChild(document.createTextNode(label + ": "));
        const b = document.createElement("b");
        b.textContent = value;
        li.appendChild(b);
        list.appendChild(li);
      }
      card.appendChild(list);
    }
    if (item.note) {
      const note = document.createElement("p");
      note.className = "hint";
      note.textContent = item.note;
      card.appendChild(note);
    }
    if (item.state === "decide") {
      if (item.reason) {
        // The laptop's own answer (the recorded deal beside this one, or why it refused): its HTML.
        const doc = parse(item.reason);
        doc.body.querySelectorAll("form, script").forEach((el) => el.remove());
        const reason = document.createElement("div");
        reason.className = "outbox-reason";
        for (const node of Array.from(doc.body.childNodes)) reason.appendChild(document.importNode(node, true));
        reason.querySelectorAll("[role=alert]").forEach((el) => el.removeAttribute("role"));
        card.appendChild(reason);
      }
      card.appendChild(actionsOf(item));
    }
    return card;
  }

  function actionsOf(item) {
    const actions = document.createElement("p");
    actions.className = "outbox-actions";
    actions.dataset.write = item.id;
    if (item.kind === "deal" && item.next) actions.appendChild(button(say("saveMine", item.next), "renumber", item.id));
    if (item.kind === "deal" && item.why === "refused") actions.appendChild(button(say("backToForm"), "edit", item.id));
    actions.appendChild(button(item.why === "stale" ? say("dismiss") : say("discard"), "discard", item.id));
    return actions;
  }

  function shownInPage(item) {
    // A conflict the entry form's own Save met: the page shows the recorded deal beside this
    // phone's (templates/tables/_conflict.html); the choices go there, not in a second copy.
    if (item.state !== "decide" || item.why !== "conflict") return null;
    return document.querySelector('#entry-wrap .conflict-box[data-taken="' + item.number + '"]');
  }

  let lastSent = null;
  function render() {
    const b = bars(), table = pageTable();
    b.reach.hidden = reachable;
    const items = all().filter((it) => (!table || it.table === table) && !firstTry[it.id]);
    b.box.textContent = "";
    if (lastSent) {
      const done = document.createElement("p");
      done.className = "outbox-sent";
      done.setAttribute("role", "status");
      done.textContent = say("sent").replace("{what}", lastSent);
      b.box.appendChild(done);
    }
    document.querySelectorAll("#entry-wrap .conflict-box .outbox-actions").forEach((el) => el.remove());
    let inBar = 0;
    for (const it of items) {
      const box = shownInPage(it);
      if (box) { box.appendChild(actionsOf(it)); continue; }
      b.box.appendChild(view(it));
      inBar++;
    }
    b.box.hidden = !inBar && !lastSent;
    document.documentElement.classList.toggle("laptop-unreachable", !reachable);
  }

  function told(what) {
    lastSent = what;
    render();
    setTimeout(() => { if (lastSent === what) { lastSent = null; render(); } }, 4000);
  }

  // --- is the laptop there?

  let reachable = true;
  let checking = null;

  function gone() {
    if (reachable) { reachable = false; render(); }
    schedule();
  }
  function back() {
    const was = reachable;
    reachable = true;
    retry.reset();
    if (!was) render();
    flush();
  }

  function check() {
    // One small request: /healthz answers 200 from a live server.
    if (checking) return checking;
    const controller = window.AbortController ? new AbortController() : null;
    const timer = setTimeout(() => { if (controller) controller.abort(); }, CHECK_TIMEOUT);
    checking = fetch("/healthz", { cache: "no-store", credentials: "same-origin",
                                   signal: controller ? controller.signal : undefined })
      .then((r) => r.ok, () => false)
      .then((ok) => {
        clearTimeout(timer);
        checking = null;
        if (ok) back(); else gone();
        return ok;
      });
    return checking;
  }

  // --- sending again, with backoff

  const retry = Q.backoff();
  let timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (reachable && !all().some((it) => it.state === "waiting")) { retry.reset(); return; }
    timer = setTimeout(() => { timer = null; check(); }, retry.next());
  }

  function post(item, redirect) {
    const body = new URLSearchParams();
    item.fields.forEach(([name, value]) => body.append(name, value));
    const controller = window.AbortController ? new AbortController() : null;
    const timeout = setTimeout(() => { if (controller) controller.abort(); }, SEND_TIMEOUT);
    return fetch(item.path, { method: "POST", body, credentials: "same-origin", cache: "no-store",
                              headers: { "HX-Request": "true" }, redirect: redirect || "manual",
                              signal: controller ? controller.signal : undefined })
      .then((res) => res.text().then((text) => {
        clearTimeout(timeout);
        return { status: res.status, ok: res.type === "opaqueredirect" || (res.status >= 200 && res.status < 300),
                 text, url: res.url, redirected: res.redirected };
      }), (error) => { clearTimeout(timeout); throw error; });
  }

  function freshToken(table) {
    return fetch("/t/" + table, { cache: "no-store", credentials: "same-origin" })
      .then((r) => r.text())
      .then((html) => {
        const m = /name="csrf_token" value="([^"]+)"/.exec(html);
        return m ? m[1] : null;
      });
  }

  let flushing = false;
  function flush() {
    if (flushing) return;
    const item = Q.nextToSend(all(), inFlight);
    if (!item) { schedule(); return; }
    flushing = true;
    inFlight[item.id] = true;
    post(item).then((res) => {
      sent(item.id);
      flushing = false;
      reachable = true;
      return answered(item, res);
    }, () => {
      sent(item.id);
      flushing = false;
      render();
      gone();  // no answer: the backoff tries again (never at once: no request storm)
      return false;
    }).then((again) => { if (again !== false) flush(); });
  }

  const parse = (html) => new DOMParser().parseFromString(html, "text/html");

  function reasonOf(doc) {
    const bits = [];
    doc.querySelectorAll(".notice.conflict, p.field-error, .error-page p").forEach((el) => {
      const text = textOf(el);
      if (text && !bits.includes(text)) bits.push(text);
    });
    const box = document.createElement("div");
    for (const text of bits) {
      const line = document.createElement("p");
      line.className = "notice conflict";
      line.textContent = text;
      box.appendChild(line);
    }
    return box.innerHTML;
  }

  // The recorded deal beside this phone's, from the laptop's answer, and the deal after it.
  function conflictOf(item, doc) {
    const box = doc.querySelector(".conflict-box");
    const next = doc.querySelector("form#entry[data-number]");
    decide(item, "conflict", box ? box.outerHTML : reasonOf(doc), null, next ? parseInt(next.dataset.number, 10) : null);
  }

  // Deal numbers this page's outbox had stored, per table: the laptop answered their write ids,
  // so a live answer telling of them tells this phone of its own deals (ownNextForm).
  const storedHere = {};
  function storedDeal(item) {
    if (item.kind === "deal" && item.number) (storedHere[item.table] = storedHere[item.table] || []).push(item.number);
  }

  // What the laptop answered to a write sent from the outbox. Returns false to stop flushing.
  function answered(item, res) {
    const doc = res.ok ? null : parse(res.text);
    const what = Q.answerTo(item, { status: res.status, ok: res.ok }, false);
    if (what === "stored") {
      storedDeal(item);
      drop(item.id);
      told(title(item));
      // The revision the laptop answered at (its live region in the answer), for the page's region.
      settled(item, res.text && window.liveRegion ? window.liveRegion.revisionIn(parse(res.text)) : null);
    } else if (what === "fresh-token") {
      // The security token was refused (a clock jump, an old session): get a fresh one, send again.
      return freshToken(item.table).then((token) => {
        change(item.id, (it) => { it.freshToken = true; if (token) Q.setField(it, "csrf_token", token); });
        return true;
      }, () => { gone(); return false; });
    } else if (what === "token") {
      decide(item, "token", "", say("tokenRefused"));
    } else if (what === "conflict") {
      conflictOf(item, doc);
    } else if (what === "refused" || what === "stale") {
      decide(item, what, reasonOf(doc));
    } else {
      // 5xx: the laptop is there but could not save (disk full, busy): keep it, try again later.
      change(item.id, (it) => {
        it.note = textOf(doc.querySelector(".error-page p, p.field-error")) || plainAnswer(res.text);
      });
      render();
      schedule();
      return false;
    }
    return true;
  }

  function decide(item, why, reason, note, next) {
    change(item.id, (it) => Q.toDecide(it, why, reason, note, next));
    render();
    // The player has to choose: bring it into view (the bar is at the top of the page, and
    // the player is down at the form; QA: a refused deal's notice was off-screen).
    bringIntoView(item.id);
  }

  function bringIntoView(id) {
    const holder = () => {
      const actions = document.querySelector('.outbox-actions[data-write="' + CSS.escape(id) + '"]');
      return actions && actions.closest(".outbox-item, .conflict-box");
    };
    holder()?.scrollIntoView({ block: "start" });
    // The page may still be settling (the live answer for the deal before it, the reach bar
    // going): keep it in view for a moment, unless the player scrolls or taps meanwhile (CI:
    // a refusal's notice ended out of view, or under the top bar).
    let moved = false;
    const stop = () => { moved = true; };
    for (const name of ["touchstart", "pointerdown", "wheel", "keydown"]) {
      window.addEventListener(name, stop, { once: true, passive: true });
    }
    for (const delay of [150, 500, 1200]) {
      setTimeout(() => {
        const box = moved ? null : holder();
        if (!box) return;
        const bar = document.querySelector(".topbar");
        const top = bar ? bar.getBoundingClientRect().bottom : 0;
        const where = box.getBoundingClientRect();
        if (where.top < top - 1 || where.top > window.innerHeight - 48) box.scrollIntoView({ block: "start" });
      }, delay);
    }
  }

  function settled(item, revision) {
    // A write from the outbox was stored: show it now (the event stream would too, a moment
    // later). With the answer's revision, the region also refuses a live answer older than it.
    const live = document.getElementById("live");
    if (revision !== null && window.liveRegion) window.liveRegion.knows(revision);
    else if (live && window.htmx) htmx.trigger(live, "changed");
    const here = location.pathname;
    if (item.kind === "seat" && here === "/t/" + item.table + "/seat") go("/t/" + item.table);
    if (item.kind === "edit" && here.startsWith("/t/" + item.table + "/deals/")) {
      go("/t/" + item.table + "#deal-" + item.number);
    }
  }

  // --- the player's choices on a write the laptop did not take

  document.addEventListener("click", (event) => {
    const b = event.target.closest("[data-outbox-act]");
    if (!b) return;
    const item = find(b.dataset.write);
    if (!item) { render(); return; }
    const act = b.dataset.outboxAct;
    if (act === "discard") {
      drop(item.id);
      render();
      flush();
    } else if (act === "renumber") {
      // Save mine as the next deal: a new write (a new id), after the one recorded meanwhile.
      const n = item.next;
      change(item.id, (it) => Q.asNextDeal(it, n, newId()));
      const form = entryForm();
      if (form && form.dataset.table === item.table && parseInt(form.elements.number.value, 10) === n) {
        renumber(form, n + 1);
      }
      render();
      flush();
    } else if (act === "edit") {
      // Put the values back into the entry form (app.js restores a draft) and fix them there.
      const entry = entryForm();
      const number = entry ? entry.elements.number.value : item.number;
      S.writeDraft(item.table, number, item.fields.filter(([name]) => !["csrf_token", "number", "write_id"].includes(name)));
      drop(item.id);
      location.reload();
    }
  });

  // --- taking every write in

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches("form.use-mine")) {
      // "Use mine" takes this phone's side of the conflict into a form: its choice here is made.
      const taken = form.elements.number.value;
      for (const it of all()) {
        if (it.table === pageTable() && it.why === "conflict" && String(it.number) === taken) drop(it.id);
      }
      return;
    }
    const write = writeOf(form);
    if (!write || event.defaultPrevented) return;
    const input = idField(form);
    if (!form.dataset.keepId || !input.value) input.value = newId();
    delete form.dataset.keepId;
    const item = itemOf(form, write, input.value, event.submitter);
    const queued = Q.waitingBefore(all(), write.table, item.id) || !reachable;
    add(item);
    if (form.hasAttribute("hx-post") && !queued) {
      // htmx sends it and shows the answer; the outbox only holds it until then.
      inFlight[item.id] = firstTry[item.id] = true;
      form.dataset.sending = item.id;
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    if (queued) {
      // Writes of a table go in order: behind the ones still waiting (or the laptop is away).
      if (item.kind === "deal" && form === entryForm()) clearForNext(form, item.number + 1);
      render();
      if (reachable) flush(); else check();
      return;
    }
    sendPlain(form, item);
  }, true);

  function go(url) {
    // Load the page (a changed hash alone would not: the banner waiting in the session would not show).
    const to = new URL(url, location.href);
    if (to.pathname + to.search === location.pathname + location.search) {
      history.replaceState(history.state, "", to.href);
      location.reload();
    } else {
      location.assign(to.href);
    }
  }

  function sendPlain(form, item) {
    // A plain form (undo, finish, rematch, seating, a correction): sent here, so no answer
    // means it waits in the outbox instead of a browser error page.
    inFlight[item.id] = firstTry[item.id] = true;
    const submit = form.querySelector("button[type=submit]");
    if (submit) submit.disabled = true;
    post(item, item.kind === "rematch" ? "follow" : "manual").then((res) => {
      sent(item.id);
      if (submit) submit.disabled = false;
      if (Q.answerTo(item, res, false) === "fresh-token") {
        return freshToken(item.table).then((token) => {
          item.freshToken = true;
          if (token) { Q.setField(item, "csrf_token", token); if (form.elements.csrf_token) form.elements.csrf_token.value = token; }
          add(item);
          sendPlain(form, item);
        });
      }
      drop(item.id);
      if (res.redirected) { go(res.url); return; }
      if (res.ok) {
        // Where the plain form would have gone: the table (its banner is waiting in the session).
        const hash = { undo: "#entry-wrap", finish: "#sheet", edit: "#deal-" + item.number, deal: "#entry-wrap",
                       confirm: "#sheet", dispute: "#confirm-box" }[item.kind] || "";
        go("/t/" + item.table + hash);
        return;
      }
      // Refused (a stale button, a rule): the laptop's page says why. A refusal is an answer: show
      // that page as it came, never post the form again (it would be refused a second time).
      showPage(res.text);
    }, () => {
      sent(item.id);
      if (submit) submit.disabled = false;
      render();
      gone();
    });
  }

  function showPage(html) {
    // The laptop's whole page (the refused form with its messages and what was typed) in place of
    // this one, as the plain form post would have shown it; htmx sets up its parts as after a swap.
    if (window.htmx && typeof htmx.swap === "function") {
      htmx.swap({ text: html, target: "body", swap: "innerHTML", sourceElement: document.body })
        .then(() => window.scrollTo(0, 0));
      return;
    }
    const doc = parse(html);
    document.title = doc.title;
    document.body.replaceChildren(...Array.from(doc.body.childNodes, (node) => document.importNode(node, true)));
    window.scrollTo(0, 0);
  }

  // The entry form's own request (htmx): answered, refused token, or no answer at all.
  function writeItemOf(event) {
    const ctx = event.detail && event.detail.ctx;
    const form = ctx && ctx.sourceElement;
    if (!form || !form.dataset || !form.dataset.sending) return null;
    return { ctx, form, id: form.dataset.sending };
  }

  document.addEventListener("htmx:after:request", (event) => {
    const w = writeItemOf(event);
    if (!w) return;
    reachable = true;
    const status = w.ctx.response && w.ctx.response.status;
    const item = find(w.id);
    const swapsNothing = (w.ctx.response && w.ctx.response.headers && w.ctx.response.headers.get("HX-Reswap")) === "none";
    const what = item ? Q.answerTo(item, { status, swapsNothing, conflictBox: /class="conflict-box/.test(w.ctx.text || "") },
                                   true)
                      : "stored";
    if (what === "token" || what === "fresh-token") {
      event.preventDefault();  // no error page over the form: get a fresh token and save again
      sent(w.id);
      if (what === "token") { decide(item, "token", "", say("tokenRefused")); return; }
      change(w.id, (it) => { it.freshToken = true; });
      freshToken(item.table).then((token) => {
        if (!token) throw new Error("no token");
        change(w.id, (it) => Q.setField(it, "csrf_token", token));
        if (w.form.isConnected) {
          w.form.elements.csrf_token.value = token;
          w.form.dataset.keepId = "1";
          setTimeout(() => w.form.requestSubmit(), 0);
        } else {
          render();
          flush();
        }
      }).catch(() => { render(); gone(); });
      return;
    }
    sent(w.id);
    if (what === "later") {
      // The laptop could not save it now and said why (issue 46): kept here with its words, the
      // form ready for the next deal, sent again by itself (the backoff).
      change(w.id, (it) => { it.note = plainAnswer(w.ctx.text); });
      if (item.kind === "deal" && w.form === entryForm() && w.form.isConnected) clearForNext(w.form, item.number + 1);
      render();
      schedule();
      return;
    }
    if (what === "conflict") conflictOf(item, parse(w.ctx.text));  // kept until the player chooses
    else drop(w.id);
    render();
    flush();  // anything queued behind it
  });

  // The words of a refusal answered as plain text (the table page's own refusal, issue 46).
  function plainAnswer(text) {
    return text && !/^\s*</.test(text) ? text.trim() : null;
  }
  document.addEventListener("htmx:after:swap", () => render());

  function ownNextForm() {
    // A live answer brought the next form (#entry-next, which app.js adopts after this): not
    // for a deal this phone is still sending (its form is already past it), and never telling
    // this phone that its own deals were "just entered from another phone" (QA, issue 31).
    const template = document.querySelector("#entry-next > template");
    const wrap = document.getElementById("entry-wrap");
    if (!template || !wrap) return;
    const table = pageTable();
    const offered = parseInt(template.dataset.number, 10) || 0;
    const shown = parseInt(wrap.dataset.number, 10) || 0;
    const what = Q.nextFormFor(all(), table, offered, shown, storedHere[table] || []);
    if (what === "keep") template.remove();
    else if (what === "quiet") {
      template.content.querySelectorAll("#entry-wrap > .told-other").forEach((el) => el.remove());
    }
  }
  // Capturing, on the document: before app.js's own listener adopts the form.
  document.addEventListener("htmx:after:swap", ownNextForm, true);

  document.addEventListener("htmx:config:request", (event) => {
    // A Save that hangs (a laptop frozen, a Wi-Fi that swallows packets) goes to the outbox
    // after SEND_TIMEOUT instead of holding the button for htmx's default minute.
    const ctx = event.detail && event.detail.ctx;
    if (ctx && ctx.sourceElement && ctx.sourceElement.dataset && ctx.sourceElement.dataset.sending && ctx.request) {
      ctx.request.timeout = SEND_TIMEOUT;
    }
  });

  document.addEventListener("htmx:error", (event) => {
    const ctx = event.detail && event.detail.ctx;
    const w = writeItemOf(event);
    if (!w) {
      if (ctx && !ctx.response) check();  // a preview or live request got no answer
      return;
    }
    if (ctx.response) return;  // answered; the error was in showing it
    sent(w.id);
    delete w.form.dataset.sending;
    const item = find(w.id);
    if (item && item.kind === "deal" && w.form === entryForm() && w.form.isConnected) {
      clearForNext(w.form, item.number + 1);
    }
    render();
    gone();
    check();
  });

  document.addEventListener("htmx:finally:request", (event) => {
    const ctx = event.detail && event.detail.ctx;
    const form = ctx && ctx.sourceElement;
    if (form && form.dataset && form.dataset.sending && !inFlight[form.dataset.sending]) delete form.dataset.sending;
  });

  // --- when to try again: back online, the stream back, the page shown again, and the backoff

  // The event stream is the laptop's heartbeat; where a page has none open (still connecting,
  // a network that lets none through) a small check every 2 s stands in for it.
  let streamUp = false;
  document.addEventListener("htmx:sse:after:connection", () => { streamUp = true; }, true);
  document.addEventListener("htmx:sse:error", () => { streamUp = false; }, true);
  document.addEventListener("htmx:sse:close", () => { streamUp = false; }, true);
  setInterval(() => {
    if (document.hidden || !reachable || streamUp || checking) return;
    if (document.querySelector("[hx-sse\\:connect]")) check();
  }, 2000);

  window.addEventListener("online", () => check());
  window.addEventListener("offline", () => gone());
  document.addEventListener("visibilitychange", () => { if (!document.hidden) check(); });
  document.addEventListener("htmx:sse:error", () => check());
  document.addEventListener("htmx:sse:close", () => { if (document.visibilityState === "visible") check(); });
  document.addEventListener("htmx:sse:after:connection", () => back());
  document.addEventListener("hello", () => back(), true);
  window.addEventListener("storage", (event) => { if (S.isOutboxKey(event.key)) render(); });

  function start() {
    // A token refused twice: a reload brought a fresh session's token, so try once more.
    keep(Q.retryRefusedTokens(all()));
    catchUpForm();
    render();
    if (navigator.onLine === false) gone();
    else if (all().length) check();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();

  window.tableOutbox = { all, flush, check };  // for tests and the curious
})();
