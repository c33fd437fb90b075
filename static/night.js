/* The round clock: every element with data-countdown="<seconds>" counts down from when it
   appeared (the laptop said how many seconds were left; a phone's own clock may be wrong, so
   only its elapsed time is used). At zero it shows its data-zero sentence. Live regions are
   swapped by htmx; a new element starts from its own number. */
(function () {
  "use strict";
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      if (!el.dataset.t0) { el.dataset.t0 = String(now); }
      var left = Math.max(0, Number(el.dataset.countdown) - Math.floor((now - Number(el.dataset.t0)) / 1000));
      if (left <= 0) {
        if (!el.classList.contains("time-up")) {
          el.classList.add("time-up");
          el.textContent = el.dataset.zero || "0:00";
          // A phone that counted down to zero here (not a page opened at zero) vibrates once.
          if (el.hasAttribute("data-vibrate") && el.dataset.counted && navigator.vibrate) {
            navigator.vibrate([300, 150, 300]);
          }
        }
      } else {
        el.dataset.counted = "1";
        el.textContent = Math.floor(left / 60) + ":" + pad(left % 60);
      }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); setInterval(tick, 1000); });
})();
