"""QA run (issue 31's helpers): the organiser's hall page fits a 360 px screen in Japanese (it
was 7 px too wide: the page scrolled sideways)."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.browser.pages import settled
from tests.browser.test_i18n_browser import OVERFLOW_JS
import table_writes
from table_writes import done

pytestmark = pytest.mark.browser

NARROW = dict(viewport={"width": 360, "height": 740}, device_scale_factor=2, locale="ja-JP")
# The widest element of the page (what sticks out past the screen's right edge), for the message.
WIDEST_JS = """() => [...document.body.querySelectorAll('*')]
    .map((el) => [el.getBoundingClientRect().right, el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                  (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '')])
    .filter(([right]) => right > document.documentElement.clientWidth).slice(0, 8)"""


# Font metrics differ between machines (Chromium 150 on one CI machine measured the hall's selects
# 12-16 px wider than 156 did here): the hall must fit with a wider font too, so each test also runs
# with every element forced to DejaVu Sans, wider than Noto's Latin and CJK faces.
WIDE_FONT = "DejaVu Sans"
FONTS = [None, WIDE_FONT]


# A select whose chosen text is wider than its box (measured with its own font, as Chromium 150's
# scrollWidth did and 156's no longer does) must end it with an ellipsis, not cut it off mid-letter.
CLIPPED_SELECTS_JS = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll('select')].filter((el) => el.offsetParent !== null).flatMap((el) => {
    const style = getComputedStyle(el);
    ctx.font = style.font;
    const text = el.selectedOptions.length ? el.selectedOptions[0].text : '';
    const box = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const wide = ctx.measureText(text).width;
    return wide > box && style.textOverflow !== 'ellipsis' ? [`select#${el.id}: ${Math.round(wide)} > ${box}: ${text}`] : [];
  });
}"""


def narrow(lang: str, font: str | None) -> dict:
    # The forced font is a <style> element, which the page's CSP (style-src 'self') refuses
    # unless the context lets it through; only those runs do.
    return {**NARROW, "locale": "ja-JP" if lang == "ja" else "en-US", "bypass_csp": bool(font)}


def hall_in(page, live_server, lang: str, font: str | None = None) -> None:
    response = page.goto(live_server(f"/lang/{lang}?next=/hall"))
    assert response is not None and response.status == 200
    settled(page)
    assert page.locator("html").get_attribute("lang") == lang
    if font:
        force_font(page, font)


def force_font(page, font: str) -> None:
    """Every element in `font` (and its swaps too: a style element in <head> outlives them)."""
    # Chromium falls back silently to another font if this one is missing (.ci/run installs it).
    listed = subprocess.run(["fc-list", font, "family"], capture_output=True, text=True, timeout=30).stdout
    assert font in listed, f"{font} is not installed (Debian: fonts-dejavu-core)"
    page.add_style_tag(content=f"*, *::before, *::after {{ font-family: '{font}' !important; }}")
    assert font in page.evaluate("getComputedStyle(document.querySelector('main') || document.body).fontFamily")


def fits(page) -> tuple[bool, str]:
    scroll, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    return scroll <= client, f"scrollWidth {scroll} > clientWidth {client}: {page.evaluate(WIDEST_JS)}"


NAMES = ["山田 太郎", "ジョナサン・ウィリアムズ", "佐藤花子", "Bartholomew Maximilian", "鈴木一郎", "Bo", "田中", "Eve",
         "高橋 美咲", "Fay", "伊藤", "Gus"]


def a_night_under_way(live_server) -> None:
    """Twelve players on tonight's list, one gone home and one come after the draw, a round
    drawn with its clock running, a table under way and one over: every part of the hall shows."""
    from companion.night import service as night
    from companion.store import connect
    from companion.tables import service as tables

    conn = connect(live_server.app.config["DATABASE"])
    try:
        joined = [done(night.join(conn, name)) for name in NAMES]
        done(night.draw_round(conn, offered=["rwd"], minutes=45, seed="qa"))  # three tables of four
        done(night.set_left(conn, joined[-1].id))
        done(night.join(conn, "渡辺 さくら"))  # came after the draw: the round's tools offer her a seat
        drawn = [t for t in night.night_tables(conn) if t.setup.n == 4]
        for number in (1, 2):  # one table under way
            table_writes.add_deal(conn, drawn[0].token, number, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
        table = tables.load(conn, drawn[1].token)  # one over: the night's leaderboard
        while not table.match().over:
            table = table_writes.add_deal(conn, table.token, len(table.deals) + 1,
                                    {"chips": [3, 3, 3, 4], "tricks": [2, 7, 2, 2]})
    finally:
        conn.close()


@pytest.mark.parametrize("font", FONTS)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_hall_of_a_night_under_way_fits_360_px(lang, font, browser, live_server, artifacts_dir):
    a_night_under_way(live_server)
    context = browser.new_context(**narrow(lang, font))
    try:
        page = context.new_page()
        hall_in(page, live_server, lang, font)
        page.screenshot(path=str(artifacts_dir / f"hall-360-night-{lang}{'-' + font.replace(' ', '') if font else ''}.png"),
                        full_page=True)
        ok, why = fits(page)
        assert ok, why
        assert page.evaluate(OVERFLOW_JS) == []
        assert page.evaluate(CLIPPED_SELECTS_JS) == []
    finally:
        context.close()


@pytest.mark.parametrize("font", FONTS)
@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_hall_fits_360_px(lang, font, browser, live_server, artifacts_dir):
    context = browser.new_context(**narrow(lang, font))
    try:
        page = context.new_page()
        hall_in(page, live_server, lang, font)
        ok, why = fits(page)
        assert ok, f"empty hall: {why}"
        # With the night's tables prepared (the board, the cards to print).
        page.select_option("#f-game", "rwd")
        page.fill("#f-players", "4")
        page.fill("#f-count", "3")
        with page.expect_navigation(url=re.compile(r"/hall(#board)?$")):
            page.locator("form:has(#f-count) button[type=submit]").click()
        settled(page)
        if font:
            force_font(page, font)  # a navigation: the new page has its own <head>
        page.screenshot(path=str(artifacts_dir / f"hall-360-{lang}{'-' + font.replace(' ', '') if font else ''}.png"),
                        full_page=True)
        ok, why = fits(page)
        assert ok, f"hall with tables: {why}"
        assert page.evaluate(OVERFLOW_JS) == []
    finally:
        context.close()
