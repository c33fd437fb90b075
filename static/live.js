// The live region's event stream (templates/tables/_live_attrs.html) is opened by hx-sse, which
// only sees elements htmx processes after it registered. The scripts load in parallel, so htmx
// may have processed the page first: if the region has no stream two seconds on, process it
// again (the stream then catches up by revision; a connected one is never touched).
(() => {
  const live = document.querySelector("[hx-sse\\:connect]");
  if (!live) return;
  setTimeout(() => {
    if (live.isConnected && live._htmx && !live._htmx.sse) htmx.process(live);
  }, 2000);
})();
