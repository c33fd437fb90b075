// The page's event stream (templates/tables/_live_stream.html, opened by hx-sse) and the live
// region it keeps current (templates/tables/_live_attrs.html). The stream is never swapped, so
// it stays open across changes; each "changed" carries the table's revision, and the region
// fetches it only if it does not show that revision yet (the phone that saved already does).
(() => {
  const stream = () => document.getElementById("live-stream");
  const region = () => document.getElementById("live");
  const shown = (live) => Number(live.dataset.rev ?? -1);

  // hx-sse only sees elements htmx processes after it registered, and htmx may process the
  // page before hx-sse's script has run: if the stream is not open two seconds on and not being
  // opened (htmx marks an element whose request is under way with the class htmx-request), have
  // hx-sse open it now (it catches up by revision; a connected or reconnecting stream is never
  // touched).
  setTimeout(() => {
    const source = stream();
    if (source && !source._htmx?.sse && !source.classList.contains("htmx-request")) htmx.process(source);
  }, 2000);

  // The newest revision announced; the region fetches until it shows it. A fetch that failed
  // (the table busy, Wi-Fi lost) is tried again 2, 4, 8, 16 s later (the server says each
  // revision once).
  let wanted = -1, retry = null, delay = 2000;
  const update = () => {
    const live = region();
    clearTimeout(retry);
    if (!live || !live.hasAttribute("hx-get") || shown(live) >= wanted) { delay = 2000; return; }
    if (!live.classList.contains("htmx-request")) {  // a fetch under way is waited for, never doubled
      htmx.trigger(live, "changed");
      delay = Math.min(delay * 2, 16000);
    }
    retry = setTimeout(update, delay);
  };
  // A live answer that was asked before the page learned of a newer revision (its own write's
  // answer told it: static/outbox.js calls liveRegion.knows) and arrives after it is not shown:
  // it would take the page back (the sheet without the phone's last deal, and the next form for
  // a deal this phone has stored, told as "entered from another phone"). An answer older than
  // the revision it was asked from is the laptop's truth (a database restored from a backup):
  // shown, and what the page knows starts again from it.
  let known = -1;
  // The table's revision an answer says (its live region's), or null: in a parsed page or fragment.
  const revisionIn = (node) => {
    const el = node?.querySelector?.("#live[data-rev]");
    return el ? Number(el.dataset.rev) : null;
  };
  // Older than the table this page shows or knows: nothing from such an answer is taken.
  const isOlder = (rev) => {
    const live = region();
    return Number.isFinite(rev) && rev < Math.max(live ? shown(live) : -1, known);
  };
  const askedFrom = (ctx) => {
    try { return Number(new URL(ctx.request.action, location.href).searchParams.get("rev") ?? -1); }
    catch (e) { return -1; }
  };
  document.addEventListener("htmx:before:swap", (event) => {
    const ctx = event.detail?.ctx, live = region();
    if (!live || !ctx || ctx.sourceElement !== live) return;
    const incoming = (event.detail.tasks || []).reduce((found, task) => found ?? revisionIn(task.fragment), null);
    if (incoming === null) return;
    if (incoming < askedFrom(ctx)) { known = wanted = incoming; return; }
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
  let seen = region() ? shown(region()) : -1;
  document.addEventListener("htmx:after:swap", (event) => {
    const live = region();
    if (!live) return;
    const fromRegion = event.detail?.ctx?.sourceElement === live;
    if (fromRegion && isOlder(shown(live))) { setTimeout(update, 0); return; }
    if (fromRegion && shown(live) > seen) {
      document.querySelectorAll("[data-follows-table]").forEach(ask);
    }
    seen = Math.max(seen, shown(live));
  });
  window.liveRegion = {
    revisionIn,
    isOlder,
    // The laptop answered this phone's own write at revision `rev`: fetch the region up to it.
    knows(rev) {
      if (!Number.isFinite(rev)) return;
      known = Math.max(known, rev);
      wanted = Math.max(wanted, rev);
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
  // proxy that buffers the stream, a network that drops it), poll every 5 s until it does.
  const silence = window.liveSilenceMs || 45000, every = window.livePollMs || 5000;  // tests shorten them
  let heard = Date.now();
  const fromStream = (event) => event.target === stream();
  for (const name of ["hello", "ping", "changed", "gone"]) {
    document.addEventListener(name, (event) => {
      if (!fromStream(event)) return;
      heard = Date.now();
      if (name === "changed") {
        wanted = Math.max(wanted, Number(event.detail?.data ?? 0));
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
    if (live && live.hasAttribute("hx-get") && !document.hidden && Date.now() - heard > silence) {
      htmx.trigger(live, "changed");
    }
  }, every);
})();
