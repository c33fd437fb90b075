"""Issue 25: a player's open night page learns, without a reload, that the organiser removed
them from tonight's list: it says so in place of their table and offers to join again."""

from __future__ import annotations

import pytest

from companion.night import service as night
from companion.store import connect
from table_writes import done

pytestmark = pytest.mark.browser


def test_a_removed_players_open_page_says_so_without_a_reload(live_server, phone):
    phone.goto(live_server("/night"))
    phone.locator("#f-name").fill("Ann")
    with phone.expect_navigation(wait_until="load"):
        phone.locator("#f-name").press("Enter")
    phone.locator("#me-live").wait_for()
    conn = connect(live_server.app.config["DATABASE"])
    try:
        (ann,) = night.roster(conn)
        done(night.set_left(conn, ann.id))
    finally:
        conn.close()
    gone = phone.locator("#me-live").get_by_text("not on tonight's list any more")
    gone.wait_for()  # the page's next check, no reload
    with phone.expect_navigation(wait_until="load"):
        phone.locator("#me-live").get_by_role("link", name="Join tonight").tap()
    assert phone.url.endswith("/night")
    assert phone.errors == []
