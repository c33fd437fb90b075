// A night's page kept current by push (the projector's screen, the hall's board, a phone's
// night page): the night's event stream (/night/events, companion/serving/events.py NightWatch)
// says "changed" when the night or any table changes, and the page's live region
// (data-night-live; its hx-get carries the night's signature) asks once, answered 204 when
// nothing it shows changed. Every opening of the stream ("hello") asks too, so nothing is
// missed before it opened or while it was down; a failed ask is asked again. A region with
// data-gap asks at most that often (a phone's night page: a busy room's saves cost it no more
// than its old poll). Where no stream gets through (45 s without a word; it pings every 20 s),
// the region asks every data-poll-ms.
(() => {
  const script = document.currentScript;
  const region = () => document.querySelector("[data-night-live]");
  const silence = window.nightSilenceMs || 45000;  // tests shorten it
  let heard = Date.now(), again = null, last = 0;

  // One request at a time, at most one a gap: a change announced meanwhile asks afterwards.
  const ask = () => {
    const live = region();
    clearTimeout(again);
    again = null;
    if (!live) return;
    const wait = Math.max(live.classList.contains("htmx-request") ? 300 : 0,
                          last + Number(live.dataset.gap || 0) - Date.now());
    if (wait > 0) { again = setTimeout(ask, wait); return; }
    last = Date.now();
    htmx.trigger(live, "changed");
  };

  const open = () => {
    if (!window.EventSource || !script?.dataset.stream) return;
    const stream = new EventSource(script.dataset.stream);
    // Every hello asks, the first too: a change made between the page's render and its stream's
    // opening was announced to nobody (a 204 when nothing changed).
    stream.addEventListener("hello", () => { heard = Date.now(); ask(); });
    stream.addEventListener("ping", () => { heard = Date.now(); });
    stream.addEventListener("changed", () => { heard = Date.now(); if (!again) ask(); });
  };
  document.addEventListener("DOMContentLoaded", open);

  // A fetch that failed (the laptop busy: 503; Wi-Fi lost) asks again 2, 4, 8, 16 s later: the
  // stream says each change once, so without this the page would wait for the next one.
  let delay = 2000, retrying = null;
  document.addEventListener("htmx:finally:request", (event) => {
    const ctx = event.detail?.ctx;
    if (!ctx || ctx.sourceElement !== region()) return;
    const status = ctx.response?.status ?? 0;
    clearTimeout(retrying);
    retrying = null;
    if (status >= 200 && status < 400) { delay = 2000; return; }
    retrying = setTimeout(() => { retrying = null; ask(); }, delay);
    delay = Math.min(delay * 2, 16000);
  });

  let polled = 0;
  setInterval(() => {
    const every = Number(region()?.dataset.pollMs || 5000);
    if (!document.hidden && Date.now() - heard > silence && Date.now() - polled >= every) {
      polled = Date.now();
      ask();
    }
  }, 1000);
})();
