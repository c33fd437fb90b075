// Every live page, one way (companion/serving/events.py): the page's one event stream
// (templates/_live_stream.html, opened by hx-sse, never swapped) and the live region it keeps
// current ([data-live]: a table's scoresheet, the hall's board, a phone's night page, the
// screen for the room, the season's pages). Each "changed" carries the version of what the
// page follows (a table's revision, the night's signature, the season's version); the region
// shows its own in data-rev and fetches its hx-get (which carries ?rev=<that version>) only if
// it does not show it yet. The server answers 204 when nothing it shows changed, so a change
// costs a page exactly one request, and nothing is asked while nothing changes.
(() => {
  const stream = () => document.getElementById("live-stream");
  const region = () => document.querySelector("[data-live]");
  // Revisions are numbers and ordered; a signature is text and only equal or not.
  const number = (value) => (/^\d+$/.test(String(value ?? "")) ? Number(value) : null);
  const shownRev = (live) => number(live?.dataset.rev) ?? -1;  // a table's: what outbox.js and app.js compare

  // hx-sse only sees elements htmx processes after it registered, and htmx may process the
  // page before hx-sse's script has run: if the stream is not open two seconds on and not being
  // opened (htmx marks an element whose request is under way with the class htmx-request), have
  // hx-sse open it now (it catches up by version; a connected or reconnecting stream is never
  // touched).
  setTimeout(() => {
    const source = stream();
    if (source && !source._htmx?.sse && !source.classList.contains("htmx-request")) htmx.process(source);
  }, 2000);

  // The newest version announced (null: none the region lacks); the region fetches until it
  // shows it. A fetch that failed (the laptop busy, Wi-Fi lost) is tried again 2, 4, 8, 16 s
  // later (the server says each version once). A region with data-gap asks at most that often
  // (a phone's night page: a busy room's saves cost it no more than its old poll).
  let wanted = null, retry = null, delay = 2000, lastAsk = 0;
  const behind = (live) => {
    if (wanted === null) return false;
    const shows = number(live.dataset.rev), wants = number(wanted);
    return shows !== null && wants !== null ? shows < wants : live.dataset.rev !== String(wanted);
  };
  const update = () => {
    const live = region();
    clearTimeout(retry);
    if (!live || !live.hasAttribute("hx-get") || !behind(live)) { delay = 2000; return; }
    const wait = lastAsk + Number(live.dataset.gap || 0) - Date.now();
    if (wait > 0) { retry = setTimeout(update, wait); return; }
    if (!live.classList.contains("htmx-request")) {  // a fetch under way is waited for, never doubled
      lastAsk = Date.now();
      htmx.trigger(live, "changed");
      delay = Math.min(delay * 2, 16000);
    }
    retry = setTimeout(update, delay);
  };
  // The server said "unchanged" (204): the region shows what is current, whatever was announced
  // (a signature the region already passed is not older to it, only different).
  document.addEventListener("htmx:finally:request", (event) => {
    const ctx = event.detail?.ctx, live = region();
    if (live && ctx?.sourceElement === live && ctx.response?.status === 204) {
      wanted = null;
      delay = 2000;
      clearTimeout(retry);
    }
  });

  // A table's live answer that was asked before the page learned of a newer revision (its own
  // write's answer told it: static/outbox.js calls liveRegion.knows) and arrives after it is not
  // shown: it would take the page back (the sheet without the phone's last deal, and the next
  // form for a deal this phone has stored, told as "entered from another phone"). An answer
  // older than the revision it was asked from is the laptop's truth (a database restored from a
  // backup): shown, and what the page knows starts again from it.
  let known = -1;
  // The table's revision an answer says (its live region's), or null: in a parsed page or fragment.
  const revisionIn = (node) => {
    const el = node?.querySelector?.("#live[data-rev]");
    return el ? Number(el.dataset.rev) : null;
  };
  // Older than the table this page shows or knows: nothing from such an answer is taken.
  const isOlder = (rev) => Number.isFinite(rev) && rev < Math.max(shownRev(region()), known);
  const askedFrom = (ctx) => {
    try { return Number(new URL(ctx.request.action, location.href).searchParams.get("rev") ?? -1); }
    catch (e) { return -1; }
  };
  document.addEventListener("htmx:before:swap", (event) => {
    const ctx = event.detail?.ctx, live = region();
    if (!live || !ctx || ctx.sourceElement !== live) return;
    const incoming = (event.detail.tasks || []).reduce((found, task) => found ?? revisionIn(task.fragment), null);
    if (incoming === null) return;
    if (incoming < askedFrom(ctx)) { known = incoming; wanted = String(incoming); return; }
    if (isOlder(incoming)) {
      event.preventDefault();
      // Asked again at once if still behind, once this fetch has ended (a fetch queued behind
      // it is waited for: update never doubles one). Only here: a failed fetch keeps its backoff.
      setTimeout(update, 0);
    }
  });
  // htmx lets a swapped answer settle (a timer) before "after:swap": the phone's own write may
  // be answered meanwhile, and the region then shows an older table than the page knows. It is
  // asked again at once (not after the retry's wait); app.js does not take its next form (isOlder).
  // Parts of the page outside the region that follow the table too (a round's clock,
  // templates/night/_table_clock.html: started, extended, time called) are asked once the region
  // shows a newer revision: a change reaches them by the same push, not by their own timer.
  // (The phone's own write moves the region too, by another swap: seen, never asked for.)
  // A part whose answer is under way is asked again once that answer is in, on the element it
  // brought: htmx would queue the ask on the element being replaced, and its answer, swapped
  // into a detached element, would never show (CI: time called right after a deal's answer).
  const askAgain = new Set();
  const ask = (part) => {
    if (part.classList.contains("htmx-request")) askAgain.add(part.id);
    else htmx.trigger(part, "changed");
  };
  document.addEventListener("htmx:finally:request", (event) => {
    const id = event.detail?.ctx?.sourceElement?.id;
    if (!id || !askAgain.delete(id)) return;
    setTimeout(() => { const part = document.getElementById(id); if (part) ask(part); }, 0);
  });
  let seen = shownRev(region());
  document.addEventListener("htmx:after:swap", (event) => {
    const live = region();
    if (!live) return;
    const fromRegion = event.detail?.ctx?.sourceElement === live;
    if (fromRegion && isOlder(shownRev(live))) { setTimeout(update, 0); return; }
    if (fromRegion && shownRev(live) > seen) {
      document.querySelectorAll("[data-follows-table]").forEach(ask);
    }
    seen = Math.max(seen, shownRev(live));
  });
  window.liveRegion = {
    revisionIn,
    isOlder,
    // The laptop answered this phone's own write at revision `rev`: fetch the region up to it.
    knows(rev) {
      if (!Number.isFinite(rev)) return;
      known = Math.max(known, rev);
      if (number(wanted) === null || number(wanted) < rev) wanted = String(rev);
      delay = 2000;
      update();
    },
  };

  // The table is gone: the region fetches the notice (which has no trigger) and the stream,
  // which would only be refused from now on, is removed (hx-sse stops when its element goes).
  const gone = () => {
    const live = region();
    if (live && live.hasAttribute("hx-get")) htmx.trigger(live, "changed");
    stream()?.remove();
  };

  // The stream says "hello" when it opens and "ping" every 20 s. Where nothing gets through (a
  // proxy that buffers the stream, a network that drops it), the region asks every data-poll-ms
  // (5 s unless it says) until it does.
  const silence = window.liveSilenceMs || 45000;  // tests shorten it
  let heard = Date.now(), polled = 0;
  const fromStream = (event) => event.target === stream();
  for (const name of ["hello", "ping", "changed", "gone"]) {
    document.addEventListener(name, (event) => {
      if (!fromStream(event)) return;
      heard = Date.now();
      if (name === "changed") {
        const announced = String(event.detail?.data ?? "");
        const now = number(announced), had = number(wanted);
        // A revision never goes back (an older announcement overtaken); a signature just moves.
        if (now === null || had === null || now > had) wanted = announced;
        delay = 2000;
        update();
      } else if (name === "gone") {
        gone();
      }
    });
  }
  document.addEventListener("htmx:sse:error", (event) => {
    if (fromStream(event) && event.detail?.status === 404) gone();  // removed while disconnected
  });
  setInterval(() => {
    const live = region();
    const every = Number(live?.dataset.pollMs || window.livePollMs || 5000);
    if (live && live.hasAttribute("hx-get") && !document.hidden && Date.now() - heard > silence
        && Date.now() - polled >= every && !live.classList.contains("htmx-request")) {
      polled = Date.now();
      htmx.trigger(live, "changed");
    }
  }, Math.min(1000, window.livePollMs || 1000));
})();
