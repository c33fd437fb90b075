// The live region's event stream (templates/tables/_live_attrs.html) is opened by hx-sse, which
// only sees elements htmx processes after it registered. The scripts load in parallel: when
// htmx has already processed the page before hx-sse arrived, process the live region again.
(() => {
  const live = document.querySelector("[hx-sse\\:connect]");
  if (live && live._htmx && live._htmx.initialized && !live._htmx.sse) htmx.process(live);
})();
