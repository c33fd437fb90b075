// The screen for the room never scrolls and uses its space: a list (data-screen-pages: the
// seating's or the round's tables, the leaderboard's rows) is shown as large as it fits whole,
// up to 1.6 times the body text; one that doesn't fit at the body text's size is cut into pages
// of about equal length that do (then drawn as large as every page still fits), shown in turn every data-page-ms (window.screenPageMs in
// tests), "1 / 3" in the corner. Laid out again when the night's push swaps the content in
// (static/live.js) and when the window changes size; the cycle goes on where it was.
(() => {
  const SCALES = [1.6, 1.45, 1.3, 1.15, 1];
  let pages = [], shown = 0, timer = null;

  const screen = () => document.getElementById("screen");
  const list = () => document.querySelector("[data-screen-pages]");
  const area = () => document.querySelector(".screen-body");

  // Items [start, end) alone on the screen: do they all end inside the body's box?
  const fits = (items, start, end) => {
    items.forEach((item, i) => { item.hidden = i < start || i >= end; });
    const box = area().getBoundingClientRect();
    return items.slice(start, end).every((item) => {
      const r = item.getBoundingClientRect();
      return r.bottom <= box.bottom + 0.5 && r.right <= box.right + 0.5;
    });
  };

  // Each page as many items as fit from the first not on an earlier page (at least one), then
  // the same number of pages of even length, if those fit too (no page of two rows at the end).
  const cut = (items) => {
    const found = [];
    for (let start = 0; start < items.length;) {
      let end = start + 1;
      while (end < items.length && fits(items, start, end + 1)) end += 1;
      found.push([start, end]);
      start = end;
    }
    if (found.length < 2) return found;
    const size = Math.ceil(items.length / found.length), even = [];
    for (let start = 0; start < items.length; start += size) even.push([start, Math.min(start + size, items.length)]);
    return even.length === found.length && even.every(([s, e]) => fits(items, s, e)) ? even : found;
  };

  const show = () => {
    const items = list() ? Array.from(list().children) : [];
    const label = document.querySelector("[data-page-label]");
    if (!pages.length) return;
    shown %= pages.length;
    const [start, end] = pages[shown];
    items.forEach((item, i) => { item.hidden = i < start || i >= end; });
    list().dataset.page = String(shown + 1);
    list().dataset.pageCount = String(pages.length);
    if (label) {
      label.hidden = pages.length < 2;
      label.textContent = `${shown + 1} / ${pages.length}`;
    }
  };

  const layout = () => {
    const items = list() ? Array.from(list().children) : [];
    clearInterval(timer);
    pages = [];
    if (!items.length || !area()) return;
    const scaled = (s) => { area().style.fontSize = `${s}em`; return s; };
    if (SCALES.find((s) => scaled(s) && fits(items, 0, items.length)) === undefined) {
      scaled(1);
      pages = cut(items);
      // Its pages even, each may be drawn larger too (12 rows a page need not stay small).
      SCALES.find((s) => scaled(s) && pages.every(([start, end]) => fits(items, start, end)));
    } else {
      pages = [[0, items.length]];
    }
    show();
    list().dataset.laidOut = `${innerWidth}x${innerHeight}`;  // for tests: laid out at this size
    const every = window.screenPageMs || Number(screen()?.dataset.pageMs) || 10000;
    if (pages.length > 1) timer = setInterval(() => { shown += 1; show(); }, every);
  };

  document.addEventListener("DOMContentLoaded", () => {
    layout();
    // The night's push swaps #screen whole (outerHTML): lay the new one out.
    const main = document.getElementById("main");
    if (main) new MutationObserver(layout).observe(main, {childList: true});
  });
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(layout, 100); });
})();
