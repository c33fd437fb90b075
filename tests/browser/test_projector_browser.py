"""The screen for the room (/hall/screen) in Chromium, a night of 24 players, at 1280×720 and
1920×1080, in English and Japanese: before the first round, the seating, the round being
played and the leaderboard each fit the screen without scrolling, every leaderboard row (and
every seated player) is shown within one cycle of its pages, body text is at least 28 px at
1920×1080, and axe-core finds nothing serious. A result entered at a table reaches the open
screen by push, with no reload and no polling. Screenshots: test-artifacts/projector-*.png."""

from __future__ import annotations

import pytest

from companion.night import service as night
from companion.store import connect
from tests.browser.pages import put, settled
from tests.browser.test_screens import axe_serious
from tests.night.screen_night import NAMES, draw, join_everyone, play, played_round
from table_writes import done

SIZES = [(1280, 720), (1920, 1080)]
LOCALES = {"en": "en-US", "ja": "ja-JP"}
PAGE_MS = 600  # the screen's page cycle, shortened (it is 10 s in the room)

SCROLL = """() => { const s = document.scrollingElement;
  return {width: s.scrollWidth, clientWidth: s.clientWidth, height: s.scrollHeight, clientHeight: s.clientHeight}; }"""

# The smallest font of any element showing text (hidden ones have no box).
SMALLEST_TEXT = """() => { let smallest = [Infinity, ""];
  for (const el of document.body.querySelectorAll("*")) {
    const text = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (!text || !el.getClientRects().length) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < smallest[0]) smallest = [size, el.outerHTML.slice(0, 100)];
  }
  return smallest; }"""

# The items of the paged list shown now: their text, and any not wholly inside the screen's body.
SHOWN_ITEMS = """(selector) => { const list = document.querySelector("[data-screen-pages]");
  const box = document.querySelector(".screen-body").getBoundingClientRect();
  const shown = Array.from(list.children).filter(item => item.getClientRects().length);
  const outside = shown.filter(item => { const r = item.getBoundingClientRect();
    return r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5 || r.left < box.left - 0.5 || r.right > box.right + 0.5
      || r.bottom > innerHeight || r.right > innerWidth; });
  return {page: list.dataset.page, count: list.dataset.pageCount,
          items: shown.map(item => Array.from(item.querySelectorAll(selector)).map(e => e.textContent.trim())),
          outside: outside.map(item => item.textContent.trim().slice(0, 60))}; }"""


def resize(page, width: int, height: int) -> None:
    """The screen at this size, once its lists are laid out (and cut into pages) for it."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("(size) => { const list = document.querySelector('[data-screen-pages]');"
                           " return !list || list.dataset.laidOut === size; }", arg=f"{width}x{height}")


def one_cycle(page, selector: str) -> list[str]:
    """Every text matching ``selector`` inside the items shown, page by page, over one cycle of
    the screen's pages (each page's items checked to be wholly on the screen)."""
    count = int(page.get_attribute("[data-screen-pages]", "data-page-count"))
    seen: list[str] = []
    for number in range(1, count + 1):
        page.wait_for_function(f"() => document.querySelector('[data-screen-pages]').dataset.page === '{number}'")
        shown = page.evaluate(SHOWN_ITEMS, selector)
        if shown["page"] != str(number):  # moved on between the wait and the read: read it next cycle
            page.wait_for_function(f"() => document.querySelector('[data-screen-pages]').dataset.page === '{number}'")
            shown = page.evaluate(SHOWN_ITEMS, selector)
        assert shown["outside"] == [], f"page {number} of {count}: cut off {shown['outside']}"
        assert shown["items"], f"page {number} of {count} is empty"
        seen += [text for item in shown["items"] for text in item]
    return seen


def fits(page, name: str, artifacts_dir, lang: str) -> None:
    """At each size: nothing scrolls either way, screenshot; at 1920×1080 text is ≥ 28 px, axe passes."""
    for width, height in SIZES:
        resize(page, width, height)
        scroll = page.evaluate(SCROLL)
        assert scroll["width"] <= scroll["clientWidth"] and scroll["height"] <= scroll["clientHeight"], (name, width, scroll)
        page.screenshot(path=str(artifacts_dir / f"projector-{name}-{lang}-{width}x{height}.png"))
    smallest, where = page.evaluate(SMALLEST_TEXT)
    assert smallest >= 28, f"{name}: {smallest}px at 1920×1080: {where}"
    assert axe_serious(page) == []


@pytest.mark.parametrize("lang", LOCALES)
def test_every_state_fits_the_screen_and_shows_everyone_within_one_cycle(browser, live_server, artifacts_dir, lang):
    conn = connect(live_server.app.config["DATABASE"])
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale=LOCALES[lang])
    try:
        context.add_init_script(f"window.screenPageMs = {PAGE_MS};")
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))

        join_everyone(conn)
        page.goto(live_server("/hall/screen"))
        assert page.locator("#screen.state-welcome").count() == 1
        assert page.locator("h1").inner_text() == ("今夜の会に参加" if lang == "ja" else "Join tonight")
        fits(page, "welcome", artifacts_dir, lang)

        # A round drawn, nothing played: who sits where, every player on one page or another.
        first = draw(conn, minutes=40)
        page.goto(live_server("/hall/screen"))
        assert page.locator("#screen.state-seating").count() == 1
        for width, height in SIZES:
            resize(page, width, height)
            assert sorted(one_cycle(page, ".screen-players li")) == sorted(NAMES)
        fits(page, "seating", artifacts_dir, lang)

        # Being played, the clock running: each table's deal and who leads.
        done(night.start_clock(conn, 40))
        for number, rt in enumerate(first.tables[:4]):
            play(conn, rt, winner=number % 4)
        page.goto(live_server("/hall/screen"))
        assert page.locator("#screen.state-playing").count() == 1
        assert page.locator(".screen-clock").count() == 1
        for width, height in SIZES:
            resize(page, width, height)
            labels = one_cycle(page, ".screen-label")
            assert labels == [f"テーブル{n}" if lang == "ja" else f"Table {n}" for n in range(1, 7)], labels
        assert page.locator(".screen-table.over").count() == 4
        fits(page, "playing", artifacts_dir, lang)

        # The round over, and a second round played: the whole leaderboard, page by page.
        for rt in first.tables[4:]:
            play(conn, rt)
        played_round(conn)
        page.goto(live_server("/hall/screen"))
        assert page.locator("#screen.state-leaderboard").count() == 1
        for width, height in SIZES:
            resize(page, width, height)
            rows = one_cycle(page, "th[scope=row]")
            assert sorted(rows) == sorted(NAMES), rows  # each row once, none left out
        fits(page, "leaderboard", artifacts_dir, lang)
        assert errors == []
    finally:
        context.close()
        conn.close()


def test_a_result_entered_at_a_table_reaches_the_open_screen_by_push(browser, live_server, phone, artifacts_dir):
    conn = connect(live_server.app.config["DATABASE"])
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    try:
        join_everyone(conn)
        drawn = draw(conn)
        play(conn, drawn.tables[0])
        screen = context.new_page()
        asked: list[str] = []
        screen.on("request", lambda r: asked.append(r.url) if "/hall/screen/live" in r.url else None)
        screen.goto(live_server("/hall/screen"))
        screen.locator("#screen.state-playing").wait_for()
        screen.evaluate("() => { window.sameDocument = true; }")
        streams = live_server.app.extensions["event_streams"]
        for _ in range(50):  # hx-sse opens it once the page is processed
            if streams.open_by_topic.get("night"):
                break
            screen.wait_for_timeout(100)
        assert streams.open_by_topic.get("night") == 1
        # Its opening asks nothing: the stream catches up from the signature the screen shows,
        # and nothing changed since it was drawn (issue 41: one request per change, none else).
        screen.wait_for_timeout(1000)
        assert asked == [], asked

        # The phones of Table 2 enter its deal; the screen is left alone meanwhile.
        table = drawn.tables[1].table
        phone.goto(live_server(f"/t/{table.token}"))
        settled(phone)
        screen.wait_for_timeout(2000)
        assert asked == []  # nothing changed tonight: the screen asked nothing more (no polling)
        winner = table.setup.players[2]
        for seat, (chips, tricks) in enumerate(((3, 3), (3, 3), (3, 6), (4, 1))):
            put(phone, f"chips-{seat}", chips)
            put(phone, f"tricks-{seat}", tricks)
        phone.locator("#entry button[type=submit]").first.tap()

        card = screen.locator(".screen-table").nth(1)
        card.get_by_text("Finished").wait_for(timeout=5000)
        assert f"Winner: {winner}" in card.inner_text()
        assert screen.evaluate("() => window.sameDocument") is True  # no reload: swapped in place
        assert 1 <= len(asked) <= 3, asked  # one ask per announced change (a save is one or two)
        screen.screenshot(path=str(artifacts_dir / "projector-pushed-en-1920x1080.png"))
    finally:
        context.close()
        conn.close()


def test_a_refused_ask_is_asked_again_without_another_change(browser, live_server):
    """The stream says each change once: an ask the laptop refused (busy: 503) is asked again
    2 s later (static/live.js), or the screen would wait for the next change."""
    conn = connect(live_server.app.config["DATABASE"])
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    try:
        join_everyone(conn)
        drawn = draw(conn)
        screen = context.new_page()
        asks: list[int] = []
        screen.goto(live_server("/hall/screen"))
        screen.locator("#screen.state-seating").wait_for()
        screen.wait_for_timeout(1000)  # the stream open, its opening ask answered

        def refuse_first(route) -> None:
            asks.append(1)
            if len(asks) == 1:
                route.fulfill(status=503, headers={"Retry-After": "2"}, body="busy")
            else:
                route.continue_()

        screen.route("**/hall/screen/live**", refuse_first)
        play(conn, drawn.tables[0])  # the round is being played: the screen shows its tables
        screen.locator("#screen.state-playing").wait_for(timeout=8000)
        assert len(asks) >= 2, asks  # refused, then asked again with no further change
    finally:
        context.close()
        conn.close()
