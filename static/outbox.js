// Table Companion: the outbox. Every write a phone makes at a table (a deal, a correction, undo,
// finish or reopen, rematch, seating the players) is kept on this phone (localStorage) from the
// moment Save is tapped until the laptop answers it. One that gets no answer (offline, laptop
// down, timeout, a dropped connection) is shown at the top of the page with its values and sent
// again by itself: when the phone is back online, when the event stream reconnects, when the
// page is shown again, and with backoff in between. Each write carries an id made here
// (write_id): the laptop stores a write with a given id at most once and answers a resend as it
// answered the first time, so sending again is always safe.
//
// Without JavaScript none of this runs and every form posts as a plain form. No service worker:
// plain HTTP on a LAN is not a secure context, so this is built on what an open page has.
(function () {
  "use strict";

  var WORDS = {};
  try { WORDS = JSON.parse((document.currentScript && document.currentScript.dataset.words) || "{}"); }
  catch (e) { /* English fallbacks below */ }
  var KEY = "outbox:v1";
  // A table token's shape, [A-Za-z0-9_-]{16,64}, here and in pageTable(): a copy of
  // companion/tokens.py (TOKEN_PATTERN), the one definition; change them together.
  var WRITE = /^\/t\/([A-Za-z0-9_-]{16,64})\/(deals(?:\/(\d+))?|undo|finish|rematch|players)$/;
  var SEND_TIMEOUT = 8000, CHECK_TIMEOUT = 2500, MAX_DELAY = 5000;

  function say(key, n) { return String(WORDS[key] || key).split("{n}").join(n === undefined ? "" : n); }

  // --- ids: crypto.randomUUID needs a secure context (HTTPS or localhost); a phone on the LAN
  // opens plain http://192.168…, where only getRandomValues is there.
  function newId() {
    var c = window.crypto;
    if (c && typeof c.randomUUID === "function") {
      try { return c.randomUUID(); } catch (e) { /* not a secure context */ }
    }
    var bytes = new Uint8Array(16);
    if (c && c.getRandomValues) c.getRandomValues(bytes);
    else for (var i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  // --- the outbox itself: a list of writes, oldest first, in localStorage (kept in memory where
  // storage is refused: private mode or full).
  var memory = null;
  function all() {
    if (memory) return memory.slice();
    try {
      var items = JSON.parse(localStorage.getItem(KEY) || "[]");
      return Array.isArray(items) ? items : [];
    } catch (e) { return []; }
  }
  function keep(items) {
    try {
      if (items.length) localStorage.setItem(KEY, JSON.stringify(items)); else localStorage.removeItem(KEY);
      memory = null;
    } catch (e) { memory = items.slice(); }
  }
  function find(id) { return all().filter(function (it) { return it.id === id; })[0] || null; }
  function add(item) {
    var items = all().filter(function (it) { return it.id !== item.id; });
    items.push(item);
    keep(items);
  }
  function change(id, how) {
    var items = all();
    items.forEach(function (it) { if (it.id === id) how(it); });
    keep(items);
  }
  function drop(id) { keep(all().filter(function (it) { return it.id !== id; })); }

  var inFlight = {};  // ids this page is sending right now (htmx or fetch): never sent twice at once
  var firstTry = {};  // ids on their first try (a tap on Save): not shown as waiting unless it fails

  // --- which forms are writes, and what a write says about itself

  function writeOf(form) {
    if (!form || !form.getAttribute || (form.getAttribute("method") || "").toLowerCase() !== "post") return null;
    var url;
    try { url = new URL(form.getAttribute("hx-post") || form.action, location.href); } catch (e) { return null; }
    if (url.origin !== location.origin) return null;
    var m = WRITE.exec(url.pathname);
    if (!m) return null;
    var kind = m[2] === "deals" ? "deal" : m[3] ? "edit" : m[2] === "players" ? "seat" : m[2];
    return { table: m[1], path: url.pathname, kind: kind, edits: m[3] ? parseInt(m[3], 10) : null };
  }

  function pageTable() {
    var m = /^\/t\/([A-Za-z0-9_-]{16,64})(\/|$)/.exec(location.pathname);
    return m ? m[1] : null;
  }

  function textOf(el) { return el ? el.textContent.replace(/\s+/g, " ").trim() : ""; }
  // A legend or label as a screen reader says it: without its aria-hidden parts (a trick row's
  // big "1" beside its spoken "Trick 1 won by" would read "1Trick 1 won by").
  function spokenText(el) {
    if (!el) return "";
    var copy = el.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll('[aria-hidden="true"]'), function (n) { n.remove(); });
    return textOf(copy);
  }

  function labelOf(el) {
    var parts = [];
    for (var f = el.closest("fieldset"); f; f = f.parentElement ? f.parentElement.closest("fieldset") : null) {
      var legend = f.querySelector(":scope > legend");
      if (legend) parts.unshift(spokenText(legend));
    }
    // A row of keys that is not a fieldset (a row of suit pictures) names itself in aria-label.
    var group = el.closest("[role=radiogroup][aria-label], [role=group][aria-label]");
    if (group && !group.contains(el.closest("fieldset") || document.body)) parts.push(group.getAttribute("aria-label"));
    if (el.id) {
      var label = el.form && el.form.querySelector('label[for="' + CSS.escape(el.id) + '"]');
      if (label) parts.push(spokenText(label));
    }
    return parts.filter(Boolean).join(" · ");
  }

  // What the player entered, in the page's own words ("Ann · Chips: 4"), to show while it waits.
  function describe(form) {
    var shown = [];
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.disabled || ["hidden", "submit", "button", "reset"].indexOf(el.type) !== -1) return;
      var value;
      if (el.type === "radio" || el.type === "checkbox") {
        if (!el.checked || el.value === "") return;
        // A key whose face is a picture says in its title what it is ("Leaf = 5").
        var key = el.closest("label");
        value = (key && key.title) || textOf(key) || el.value;
      } else {
        value = String(el.value || "").trim();
      }
      if (value) shown.push([labelOf(el), value]);
    });
    return shown;
  }

  function field(item, name) {
    for (var i = 0; i < item.fields.length; i++) if (item.fields[i][0] === name) return item.fields[i][1];
    return null;
  }
  function setField(item, name, value) {
    var found = false;
    item.fields.forEach(function (pair) { if (pair[0] === name) { pair[1] = value; found = true; } });
    if (!found) item.fields.push([name, value]);
  }

  function titleOf(item) {
    var n = item.number;
    if (item.kind === "deal") return say("deal", n);
    if (item.kind === "edit") return say("edit", n);
    if (item.kind === "undo") return say("undo", n);
    if (item.kind === "finish") return field(item, "finished") === "0" ? say("reopen") : say("finish");
    if (item.kind === "rematch") return say("rematch");
    return say("seat");
  }

  function idField(form) {
    var input = form.querySelector("input[name=write_id]");
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
    var fields = [], data;
    try { data = new FormData(form, submitter || null); } catch (e) { data = new FormData(form); }
    data.forEach(function (value, name) { if (typeof value === "string") fields.push([name, value]); });
    var number = write.edits || parseInt((form.elements.number && form.elements.number.value) || "0", 10) || null;
    return { id: id, table: write.table, path: write.path, kind: write.kind, number: number,
             fields: fields, shown: describe(form), state: "waiting", made: Date.now() };
  }

  function earlierWaiting(table, id) {
    return all().some(function (it) { return it.table === table && it.id !== id; });
  }

  // --- the entry form after a deal went into the outbox: ready for the next deal

  function entryForm() { return document.querySelector("form#entry[data-table]"); }

  function renumber(form, n) {
    // The same form, saved as deal n (what is typed stays).
    form.elements.number.value = String(n);
    form.dataset.number = String(n);
    var wrap = form.closest("#entry-wrap");
    if (wrap) wrap.dataset.number = String(n);
    var heading = form.querySelector("h2");
    if (heading && WORDS.enter) heading.textContent = say("enter", n);
    var button = form.querySelector("button[type=submit]");
    if (button && WORDS.save) button.textContent = say("save", n);
    var jump = document.querySelector("#jump a[href='#entry']");  // templates/tables/_jump.html
    if (jump && WORDS.enter) jump.textContent = say("enter", n) + " ↓";
  }

  function forgetDraft(table, n) {
    try { localStorage.removeItem("draft:" + table + ":" + n); } catch (e) { /* no storage */ }
  }

  function clearForNext(form, n) {
    // The deal just kept is in the outbox; the form starts empty for the next one.
    forgetDraft(form.dataset.table, n - 1);
    var token = form.elements.csrf_token ? form.elements.csrf_token.value : null;
    form.reset();
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit" || el.type === "button") return;
      if (el.type === "radio") el.checked = el.value === "";
      else if (el.type === "checkbox") el.checked = false;
      else el.value = "";
    });
    if (token && form.elements.csrf_token) form.elements.csrf_token.value = token;
    renumber(form, n);
    var wrap = form.closest("#entry-wrap") || form;
    wrap.querySelectorAll(".saved-banner, .conflict-box, p.notice, p.flash, p.field-error, .error-summary")
      .forEach(function (el) { el.remove(); });
    form.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
    form.querySelectorAll("[aria-invalid]").forEach(function (el) { el.removeAttribute("aria-invalid"); });
    var preview = form.querySelector(".preview");
    if (preview) preview.textContent = "";
    forgetDraft(form.dataset.table, n);
    var first = form.querySelector("input:not([type=hidden])");
    if (first) first.dispatchEvent(new Event("change", { bubbles: true }));  // worked-out values
    forgetDraft(form.dataset.table, n);
  }

  function catchUpForm() {
    // After a reload: deals waiting here are not on the laptop yet, so the form is for the one after.
    var form = entryForm();
    if (!form) return;
    var n = parseInt(form.elements.number.value, 10);
    var last = 0;
    all().forEach(function (it) {
      if (it.table === form.dataset.table && it.kind === "deal" && it.state === "waiting" && it.number >= n) {
        last = Math.max(last, it.number);
      }
    });
    if (last) clearForNext(form, last + 1);
  }

  // --- the bars at the top of the page

  function bars() {
    var reach = document.getElementById("reach-bar"), box = document.getElementById("outbox");
    var main = document.getElementById("main") || document.body;
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
    return { reach: reach, box: box };
  }

  function button(text, act, id) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "button small";
    b.dataset.outboxAct = act;
    b.dataset.write = id;
    b.textContent = text;
    return b;
  }

  function view(item) {
    var card = document.createElement("div");
    card.className = "outbox-item card";
    card.dataset.write = item.id;
    card.dataset.state = item.state;
    card.dataset.kind = item.kind;
    if (item.number) card.dataset.number = item.number;
    var title = document.createElement("p");
    title.className = "outbox-title";
    var strong = document.createElement("strong");
    strong.textContent = item.state === "decide" ? say("notSaved").replace("{what}", titleOf(item))
                                                 : say("waiting").replace("{what}", titleOf(item));
    title.appendChild(strong);
    card.appendChild(title);
    if (item.shown && item.shown.length) {
      var list = document.createElement("ul");
      list.className = "outbox-values";
      item.shown.forEach(function (pair) {
        var li = document.createElement("li");
        if (pair[0]) li.appendChild(document.createTextNode(pair[0] + ": "));
        var b = document.createElement("b");
        b.textContent = pair[1];
        li.appendChild(b);
        list.appendChild(li);
      });
      card.appendChild(list);
    }
    if (item.note) {
      var note = document.createElement("p");
      note.className = "hint";
      note.textContent = item.note;
      card.appendChild(note);
    }
    if (item.state === "decide") {
      if (item.reason) {
        // The laptop's own answer (the recorded deal beside this one, or why it refused): its HTML.
        var doc = new DOMParser().parseFromString(item.reason, "text/html");
        doc.body.querySelectorAll("form, script").forEach(function (el) { el.remove(); });
        var reason = document.createElement("div");
        reason.className = "outbox-reason";
        Array.prototype.slice.call(doc.body.childNodes).forEach(function (node) {
          reason.appendChild(document.importNode(node, true));
        });
        reason.querySelectorAll("[role=alert]").forEach(function (el) { el.removeAttribute("role"); });
        card.appendChild(reason);
      }
      card.appendChild(actionsOf(item));
    }
    return card;
  }

  function actionsOf(item) {
    var actions = document.createElement("p");
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

  var lastSent = null;
  function render() {
    var b = bars(), table = pageTable();
    b.reach.hidden = reachable;
    var items = all().filter(function (it) { return (!table || it.table === table) && !firstTry[it.id]; });
    b.box.textContent = "";
    if (lastSent) {
      var sent = document.createElement("p");
      sent.className = "outbox-sent";
      sent.setAttribute("role", "status");
      sent.textContent = say("sent").replace("{what}", lastSent);
      b.box.appendChild(sent);
    }
    document.querySelectorAll("#entry-wrap .conflict-box .outbox-actions").forEach(function (el) { el.remove(); });
    var inBar = 0;
    items.forEach(function (it) {
      var box = shownInPage(it);
      if (box) { box.appendChild(actionsOf(it)); return; }
      b.box.appendChild(view(it));
      inBar++;
    });
    b.box.hidden = !inBar && !lastSent;
    document.documentElement.classList.toggle("laptop-unreachable", !reachable);
  }

  function told(what) {
    lastSent = what;
    render();
    var now = what;
    setTimeout(function () { if (lastSent === now) { lastSent = null; render(); } }, 4000);
  }

  // --- is the laptop there?

  var reachable = true;
  var checking = null;

  function gone() {
    if (reachable) { reachable = false; render(); }
    schedule();
  }
  function back() {
    var was = reachable;
    reachable = true;
    delay = 1000;
    if (!was) render();
    flush();
  }

  function check() {
    // One small request: /healthz answers 200 from a live server.
    if (checking) return checking;
    var controller = window.AbortController ? new AbortController() : null;
    var timer = setTimeout(function () { if (controller) controller.abort(); }, CHECK_TIMEOUT);
    checking = fetch("/healthz", { cache: "no-store", credentials: "same-origin",
                                    signal: controller ? controller.signal : undefined })
      .then(function (r) { return r.ok; }, function () { return false; })
      .then(function (ok) {
        clearTimeout(timer);
        checking = null;
        if (ok) back(); else gone();
        return ok;
      });
    return checking;
  }

  // --- sending again, with backoff

  var delay = 1000, timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (reachable && !all().some(function (it) { return it.state === "waiting"; })) { delay = 1000; return; }
    var wait = delay * (0.8 + 0.4 * Math.random());
    delay = Math.min(delay * 2, MAX_DELAY);
    timer = setTimeout(function () { timer = null; check(); }, wait);
  }

  function nextToSend() {
    var blocked = {};
    var items = all();
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      if (blocked[it.table]) continue;
      if (inFlight[it.id] || it.state !== "waiting") { blocked[it.table] = true; continue; }  // keep each table's order
      return it;
    }
    return null;
  }

  function post(item, redirect) {
    var body = new URLSearchParams();
    item.fields.forEach(function (pair) { body.append(pair[0], pair[1]); });
    var controller = window.AbortController ? new AbortController() : null;
    var timer = setTimeout(function () { if (controller) controller.abort(); }, SEND_TIMEOUT);
    return fetch(item.path, { method: "POST", body: body, credentials: "same-origin", cache: "no-store",
                              headers: { "HX-Request": "true" }, redirect: redirect || "manual",
                              signal: controller ? controller.signal : undefined })
      .then(function (res) {
        return res.text().then(function (text) {
          clearTimeout(timer);
          return { status: res.status, ok: res.type === "opaqueredirect" || (res.status >= 200 && res.status < 300),
                   text: text, url: res.url, redirected: res.redirected };
        });
      }, function (error) { clearTimeout(timer); throw error; });
  }

  function freshToken(table) {
    return fetch("/t/" + table, { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var m = /name="csrf_token" value="([^"]+)"/.exec(html);
        return m ? m[1] : null;
      });
  }

  var flushing = false;
  function flush() {
    if (flushing) return;
    var item = nextToSend();
    if (!item) { schedule(); return; }
    flushing = true;
    inFlight[item.id] = true;
    post(item).then(function (res) {
      delete inFlight[item.id]; delete firstTry[item.id];
      flushing = false;
      reachable = true;
      return answered(item, res);
    }, function () {
      delete inFlight[item.id]; delete firstTry[item.id];
      flushing = false;
      render();
      gone();  // no answer: the backoff tries again (never at once: no request storm)
      return false;
    }).then(function (again) { if (again !== false) flush(); });
  }

  function parse(html) { return new DOMParser().parseFromString(html, "text/html"); }

  function reasonOf(doc) {
    var bits = [];
    doc.querySelectorAll(".notice.conflict, p.field-error, .error-page p").forEach(function (el) {
      var text = textOf(el);
      if (text && bits.indexOf(text) === -1) bits.push(text);
    });
    var p = document.createElement("div");
    bits.forEach(function (text) {
      var line = document.createElement("p");
      line.className = "notice conflict";
      line.textContent = text;
      p.appendChild(line);
    });
    return p.innerHTML;
  }

  // What the laptop answered to a write sent from the outbox. Returns false to stop flushing.
  function answered(item, res) {
    if (res.ok) {
      drop(item.id);
      told(titleOf(item));
      settled(item);
      return true;
    }
    if (res.status === 400 && !item.freshToken) {
      // The security token was refused (a clock jump, an old session): get a fresh one, send again.
      return freshToken(item.table).then(function (token) {
        change(item.id, function (it) { it.freshToken = true; if (token) setField(it, "csrf_token", token); });
        return true;
      }, function () { gone(); return false; });
    }
    var doc = parse(res.text);
    if (res.status === 400) {
      decide(item, "token", "", say("tokenRefused"));
    } else if (res.status === 409 && item.kind === "deal") {
      var box = doc.querySelector(".conflict-box");
      var next = doc.querySelector("form#entry[data-number]");
      decide(item, "conflict", box ? box.outerHTML : reasonOf(doc), null,
             next ? parseInt(next.dataset.number, 10) : null);
    } else if (res.status === 422 || res.status === 403 || res.status === 409 || res.status === 404) {
      // 403: a finished match this phone may no longer change (issue 32): never sent again.
      decide(item, res.status === 422 || res.status === 403 ? "refused" : "stale", reasonOf(doc));
    } else {
      // 5xx: the laptop is there but could not save (disk full, busy): keep it, try again later.
      change(item.id, function (it) { it.note = textOf(doc.querySelector(".error-page p, p.field-error")) || null; });
      render();
      schedule();
      return false;
    }
    return true;
  }

  function decide(item, why, reason, note, next) {
    change(item.id, function (it) {
      it.state = "decide"; it.why = why; it.reason = reason || ""; it.note = note || null; it.next = next || null;
    });
    render();
  }

  function settled(item) {
    // A write from the outbox was stored: show it now (the event stream would too, a moment later).
    var live = document.getElementById("live");
    if (live && window.htmx) htmx.trigger(live, "changed");
    var here = location.pathname;
    if (item.kind === "seat" && here === "/t/" + item.table + "/seat") go("/t/" + item.table);
    if (item.kind === "edit" && here.indexOf("/t/" + item.table + "/deals/") === 0) {
      go("/t/" + item.table + "#deal-" + item.number);
    }
  }

  // --- the player's choices on a write the laptop did not take

  document.addEventListener("click", function (event) {
    var b = event.target.closest("[data-outbox-act]");
    if (!b) return;
    var item = find(b.dataset.write);
    if (!item) { render(); return; }
    var act = b.dataset.outboxAct;
    if (act === "discard") {
      drop(item.id);
      render();
      flush();
    } else if (act === "renumber") {
      // Save mine as the next deal: a new write (a new id), after the one recorded meanwhile.
      var n = item.next;
      change(item.id, function (it) {
        it.id = newId(); it.number = n; it.state = "waiting"; it.why = null; it.reason = ""; it.next = null;
        setField(it, "number", String(n));
        setField(it, "write_id", it.id);
      });
      var form = entryForm();
      if (form && form.dataset.table === item.table && parseInt(form.elements.number.value, 10) === n) {
        renumber(form, n + 1);
      }
      render();
      flush();
    } else if (act === "edit") {
      // Put the values back into the entry form (app.js restores a draft) and fix them there.
      var entry = entryForm();
      var number = entry ? entry.elements.number.value : item.number;
      var pairs = item.fields.filter(function (p) {
        return ["csrf_token", "number", "write_id"].indexOf(p[0]) === -1;
      });
      try { localStorage.setItem("draft:" + item.table + ":" + number, JSON.stringify(pairs)); } catch (e) { /* */ }
      drop(item.id);
      location.reload();
    }
  });

  // --- taking every write in

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.matches("form.use-mine")) {
      // "Use mine" takes this phone's side of the conflict into a form: its choice here is made.
      var taken = form.elements.number.value;
      all().forEach(function (it) {
        if (it.table === pageTable() && it.why === "conflict" && String(it.number) === taken) drop(it.id);
      });
      return;
    }
    var write = writeOf(form);
    if (!write || event.defaultPrevented) return;
    var input = idField(form);
    if (!form.dataset.keepId || !input.value) input.value = newId();
    delete form.dataset.keepId;
    var item = itemOf(form, write, input.value, event.submitter);
    var queued = earlierWaiting(write.table, item.id) || !reachable;
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
    var to = new URL(url, location.href);
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
    var button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    var redirect = item.kind === "rematch" ? "follow" : "manual";
    post(item, redirect).then(function (res) {
      delete inFlight[item.id]; delete firstTry[item.id];
      if (button) button.disabled = false;
      if (res.status === 400 && !item.freshToken) {
        return freshToken(item.table).then(function (token) {
          item.freshToken = true;
          if (token) { setField(item, "csrf_token", token); if (form.elements.csrf_token) form.elements.csrf_token.value = token; }
          add(item);
          sendPlain(form, item);
        });
      }
      drop(item.id);
      if (res.redirected) { go(res.url); return; }
      if (res.ok) {
        // Where the plain form would have gone: the table (its banner is waiting in the session).
        var hash = { undo: "#entry-wrap", finish: "#sheet", edit: "#deal-" + item.number, deal: "#entry-wrap" }[item.kind] || "";
        go("/t/" + item.table + hash);
        return;
      }
      // Refused (a stale button, a rule): the laptop's page says why. A refusal is an answer: show
      // that page as it came, never post the form again (it would be refused a second time).
      showPage(res.text);
    }, function () {
      delete inFlight[item.id]; delete firstTry[item.id];
      if (button) button.disabled = false;
      render();
      gone();
    });
  }

  function showPage(html) {
    // The laptop's whole page (the refused form with its messages and what was typed) in place of
    // this one, as the plain form post would have shown it; htmx sets up its parts as after a swap.
    if (window.htmx && typeof htmx.swap === "function") {
      htmx.swap({ text: html, target: "body", swap: "innerHTML", sourceElement: document.body })
        .then(function () { window.scrollTo(0, 0); });
      return;
    }
    var doc = parse(html);
    document.title = doc.title;
    document.body.replaceChildren.apply(document.body, Array.prototype.map.call(doc.body.childNodes, function (node) {
      return document.importNode(node, true);
    }));
    window.scrollTo(0, 0);
  }

  // The entry form's own request (htmx): answered, refused token, or no answer at all.
  function writeItemOf(event) {
    var ctx = event.detail && event.detail.ctx;
    var form = ctx && ctx.sourceElement;
    if (!form || !form.dataset || !form.dataset.sending) return null;
    return { ctx: ctx, form: form, id: form.dataset.sending };
  }

  document.addEventListener("htmx:after:request", function (event) {
    var w = writeItemOf(event);
    if (!w) return;
    reachable = true;
    var status = w.ctx.response && w.ctx.response.status;
    var item = find(w.id);
    if (status === 400 && item) {
      event.preventDefault();  // no error page over the form: get a fresh token and save again
      delete inFlight[w.id]; delete firstTry[w.id];
      if (item.freshToken) { decide(item, "token", "", say("tokenRefused")); return; }
      change(w.id, function (it) { it.freshToken = true; });
      freshToken(item.table).then(function (token) {
        if (!token) throw new Error("no token");
        change(w.id, function (it) { setField(it, "csrf_token", token); });
        if (w.form.isConnected) {
          w.form.elements.csrf_token.value = token;
          w.form.dataset.keepId = "1";
          setTimeout(function () { w.form.requestSubmit(); }, 0);
        } else {
          render();
          flush();
        }
      }).catch(function () { render(); gone(); });
      return;
    }
    delete inFlight[w.id]; delete firstTry[w.id];
    var conflict = status === 409 && item && item.kind === "deal" && /class="conflict-box/.test(w.ctx.text || "");
    if (conflict) {
      // Another phone recorded this deal first, differently: keep mine until the player chooses.
      var doc = parse(w.ctx.text);
      var next = doc.querySelector("form#entry[data-number]");
      decide(item, "conflict", doc.querySelector(".conflict-box").outerHTML, null,
             next ? parseInt(next.dataset.number, 10) : null);
    } else {
      drop(w.id);
    }
    render();
    flush();  // anything queued behind it
  });
  document.addEventListener("htmx:after:swap", function () { render(); });

  document.addEventListener("htmx:config:request", function (event) {
    // A Save that hangs (a laptop frozen, a Wi-Fi that swallows packets) goes to the outbox
    // after SEND_TIMEOUT instead of holding the button for htmx's default minute.
    var ctx = event.detail && event.detail.ctx;
    if (ctx && ctx.sourceElement && ctx.sourceElement.dataset && ctx.sourceElement.dataset.sending && ctx.request) {
      ctx.request.timeout = SEND_TIMEOUT;
    }
  });

  document.addEventListener("htmx:error", function (event) {
    var ctx = event.detail && event.detail.ctx;
    var w = writeItemOf(event);
    if (!w) {
      if (ctx && !ctx.response) check();  // a preview or live request got no answer
      return;
    }
    if (ctx.response) return;  // answered; the error was in showing it
    delete inFlight[w.id]; delete firstTry[w.id];
    delete w.form.dataset.sending;
    var item = find(w.id);
    if (item && item.kind === "deal" && w.form === entryForm() && w.form.isConnected) {
      clearForNext(w.form, item.number + 1);
    }
    render();
    gone();
    check();
  });

  document.addEventListener("htmx:finally:request", function (event) {
    var ctx = event.detail && event.detail.ctx;
    var form = ctx && ctx.sourceElement;
    if (form && form.dataset && form.dataset.sending && !inFlight[form.dataset.sending]) delete form.dataset.sending;
  });

  // --- when to try again: back online, the stream back, the page shown again, and the backoff

  // The event stream is the laptop's heartbeat; where a page has none open (still connecting,
  // a network that lets none through) a small check every 2 s stands in for it.
  var streamUp = false;
  document.addEventListener("htmx:sse:after:connection", function () { streamUp = true; }, true);
  document.addEventListener("htmx:sse:error", function () { streamUp = false; }, true);
  document.addEventListener("htmx:sse:close", function () { streamUp = false; }, true);
  setInterval(function () {
    if (document.hidden || !reachable || streamUp || checking) return;
    if (document.querySelector("[hx-sse\\:connect]")) check();
  }, 2000);

  window.addEventListener("online", function () { check(); });
  window.addEventListener("offline", function () { gone(); });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) check(); });
  document.addEventListener("htmx:sse:error", function () { check(); });
  document.addEventListener("htmx:sse:close", function () { if (document.visibilityState === "visible") check(); });
  document.addEventListener("htmx:sse:after:connection", function () { back(); });
  document.addEventListener("hello", function () { back(); }, true);
  window.addEventListener("storage", function (event) { if (event.key === KEY) render(); });

  function start() {
    // A token refused twice: a reload brought a fresh session's token, so try once more.
    all().forEach(function (it) {
      if (it.why === "token") change(it.id, function (x) { x.state = "waiting"; x.why = null; x.freshToken = false; x.note = null; });
    });
    catchUpForm();
    render();
    if (navigator.onLine === false) gone();
    else if (all().length) check();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();

  window.tableOutbox = { all: all, flush: flush, check: check };  // for tests and the curious
})();
