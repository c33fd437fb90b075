// The live region's event stream (templates/tables/_live_attrs.html), opened by hx-sse.
(() => {
  const region = () => document.querySelector("[hx-sse\\:connect]");

  // hx-sse only sees elements htmx processes after it registered, and the scripts load in
  // parallel: if the region has no stream two seconds on, process it again (it then catches up
  // by revision; a connected stream is never touched).
  setTimeout(() => {
    const live = region();
    if (live && live._htmx && !live._htmx.sse) htmx.process(live);
  }, 2000);

  // The stream says "hello" when it opens and "ping" every 20 s. Where nothing gets through (a
  // proxy that buffers the stream, a network that drops it), poll every 5 s until it does.
  const silence = window.liveSilenceMs || 45000, every = window.livePollMs || 5000;  // tests shorten them
  let heard = Date.now();
  for (const name of ["hello", "ping", "changed"]) {
    document.addEventListener(name, (event) => {
      if (event.target.matches && event.target.matches("[hx-sse\\:connect]")) heard = Date.now();
    }, true);
  }
  setInterval(() => {
    const live = region();
    if (live && !document.hidden && Date.now() - heard > silence) htmx.trigger(live, "changed");
  }, every);
})();
