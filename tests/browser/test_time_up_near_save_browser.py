"""A player typing a deal sees that time was called (issue 33, seen in a night run as a new
organiser): the round clock's box, with its "End the match at time" button, sits at the top of
the table page, some 800 px above a 390 px phone scrolled to the deal form. Once the table's time
is up the same one-tap form also shows under the deal form, brought by the clock's own request
(its answer fills #time-up-note), with no reload; it ends the match at time."""

from __future__ import annotations

import pytest

from companion.night import round_time, service as night
from companion.store import connect
from companion.tables import service as tables
from tests.browser.conftest import PHONE, TIMEOUT_MS, new_phone_context
from tests.browser.pages import next_document, put, settled
from table_writes import done

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Ben", "Cho", "Dai"]
IN_VIEW = """el => { const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight; }"""


def test_time_called_shows_under_the_deal_form_and_ends_the_match(browser, live_server, artifacts_dir):
    conn = connect(live_server.app.config["DATABASE"])
    try:
        for name in NAMES:
            done(night.join(conn, name))
        done(night.draw_round(conn, chosen=["rwd"]))
        done(night.start_clock(conn, 30))
        (rt,) = night.night_rounds(conn)[-1].tables
        token = rt.table.token
    finally:
        conn.close()
    context = new_phone_context(browser, **{**PHONE, "viewport": {"width": 390, "height": 844}})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(live_server(f"/t/{token}"))
        settled(page)
        assert page.locator("#time-up-note form").count() == 0  # time is not up yet
        # Deal 1 saved, so the match may end at time; deal 2 being typed, the form in view.
        for seat, (chips, tricks) in enumerate([(4, 5), (3, 1), (3, 3)]):  # the fourth's worked out
            put(page, f"chips-{seat}", chips)
            put(page, f"tricks-{seat}", tricks)
        page.locator("#entry button[type=submit]").tap()
        page.locator("#deal-1").wait_for()
        page.locator("#entry button[type=submit]").scroll_into_view_if_needed()

        conn = connect(live_server.app.config["DATABASE"])
        try:
            done(round_time.call_time_for_round(conn))
        finally:
            conn.close()
        note = page.locator("#time-up-note form.end-at-time button")
        note.wait_for(state="visible", timeout=20000)  # pushed (the clock follows the table: static/live.js)
        assert page.locator("#round-clock").evaluate(IN_VIEW) is False  # the box is far above
        note.scroll_into_view_if_needed()
        assert note.evaluate(IN_VIEW)
        page.screenshot(path=str(artifacts_dir / "time-up-near-save-390.png"))
        with next_document(page):
            note.tap()
        assert page.locator("#time-up-note form").count() == 0  # over: nothing more to end
        conn = connect(live_server.app.config["DATABASE"])
        try:
            match = tables.load(conn, token).match()
            assert match.over and match.at_time
        finally:
            conn.close()
    finally:
        context.close()
