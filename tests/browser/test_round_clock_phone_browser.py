"""A round's clock never hides the deal form (issue 33): "On a 390 px phone the round's clock box
stays pinned on screen while a deal is typed and hid Twin Shoot rows (hana's tricks, Ichiro's
bid) under it; in the same form the worked-out key 'auto = 2' pushed 9 and 10 onto a second
line."

The largest form (Twin Shoot, 6 players) at a drawn round table with the clock running, at 360
and 390 px, in English and Japanese: the clock takes one line; every key of the form is tapped
as a player would, each time first checking that the point at its centre is the key itself
(nothing covers it); and every row of keys keeps one line, also once a worked-out value shows
("auto = 2"). Screenshots in test-artifacts/round-clock-*.png.
"""

from __future__ import annotations

import pytest

from companion.night import service as night
from companion.store import connect
from tests.browser.conftest import PHONE, TIMEOUT_MS, new_phone_context
from tests.browser.pages import settled
from table_writes import done

pytestmark = pytest.mark.browser

NAMES = ["Ichiro", "hana", "千代子", "Daisuke", "Emi", "Fumi"]

# Scrolled as high as a player can have it in view (just under the site's own header bar), is the
# point at the key's centre the key itself (or inside it)? Else what covers it.
COVERED = """el => { const header = document.querySelector('.topbar').getBoundingClientRect().bottom;
  window.scrollBy(0, el.getBoundingClientRect().top - header - 1); const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit && (hit === el || el.contains(hit)) ? null
    : (hit ? hit.tagName + '.' + hit.className + ' ' + (hit.closest('[id]') || {}).id : 'nothing'); }"""
# Every row of keys: the tops of its visible keys (one line: all equal). A worked-out row's "auto"
# key stands on its caption's line, out of the row (position: absolute).
ROWS = """() => [...document.querySelectorAll('#entry .taps, #entry .suits')].filter(row => row.offsetParent)
  .map(row => ({row: (row.closest('[id]') || {}).id || row.className,
                tops: [...new Set([...row.children].filter(k => k.offsetParent && getComputedStyle(k).position !== 'absolute')
                                  .map(k => Math.round(k.getBoundingClientRect().top)))]}))
  .filter(row => row.tops.length > 1)"""


def test_the_clock_never_covers_a_key_and_rows_keep_one_line(browser, live_server, artifacts_dir):
    conn = connect(live_server.app.config["DATABASE"])
    try:
        for name in NAMES:
            done(night.join(conn, name))
        done(night.draw_round(conn, chosen=["twin_shoot"]))
        done(night.start_clock(conn, 30))
        (rt,) = night.night_rounds(conn)[-1].tables
        assert rt.table.setup.n == 6
        token = rt.table.token
    finally:
        conn.close()
    for width, height in ((360, 740), (390, 844)):
        for lang in ("en", "ja"):
            context = new_phone_context(browser, **{**PHONE, "viewport": {"width": width, "height": height}})
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            try:
                page.goto(live_server(f"/t/{token}?lang={lang}"))
                settled(page)
                bar = page.locator(".round-clock-bar")
                bar.wait_for()
                # One line: no taller than its clock's line and the bar's own padding and border.
                assert page.evaluate("""() => { const bar = document.querySelector('.round-clock-bar');
                    const clock = bar.querySelector('.round-clock');
                    return bar.getBoundingClientRect().height <= clock.getBoundingClientRect().height + 16; }"""), \
                    (width, lang)
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                keys = page.locator("#entry :is(label.tap, label.suit-chip, label.chip)")
                assert keys.count() > 100  # 12 bid cards x 6 suits, 6 x 11 trick keys, …
                for i in range(keys.count()):
                    key = keys.nth(i)
                    if not key.is_visible():
                        continue
                    covered = key.evaluate(COVERED)
                    assert covered is None, (width, lang, i, key.inner_text(), covered)
                    key.tap()
                # Tricks for five players tapped (the last of each row: 10): the sixth is worked
                # out; tap 1 for the first five so the worked-out value is a real number.
                for seat in range(5):
                    page.locator(f'#entry label:has(> input[name="tricks-{seat}"][value="1"])').tap()
                page.locator('#entry .tap.auto .derived-value').wait_for()
                assert page.locator('#entry .tap.auto').inner_text().replace("\n", " ").strip() != "auto"
                assert page.evaluate(ROWS) == [], (width, lang)
                page.screenshot(path=str(artifacts_dir / f"round-clock-ts6-{lang}-{width}.png"), full_page=True)
            finally:
                context.close()
