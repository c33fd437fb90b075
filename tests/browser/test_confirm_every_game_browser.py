"""Two sides agree (issue 45) at a table of every game, on two phones in Chromium, each from its
own address (never the laptop): a phone asks for confirmation before the first deal, saves a
deal through its game's own form, the other phone sees it waiting by push and confirms it with
one tap; the saving phone is told it waits for another seat, never offered Confirm; a reload
and the back button show the table as stored."""

from __future__ import annotations

import pytest

from companion.games import GAMES
from companion.store import connect
from companion.tables import service as tables
from tests.browser.pages import open_table, put, save, settled
from tests.web.test_fuzz import SCRIPTS

pytestmark = pytest.mark.browser


def first_deal(game_id: str) -> dict[str, str]:
    """The game's first scripted deal as a form sends it (tests/web/test_fuzz.py), less its number."""
    return {k: v for k, v in SCRIPTS[game_id][2][0].items() if k not in ("number",)}


@pytest.mark.parametrize("game_id", [g for g in GAMES if g in SCRIPTS])
def test_a_deal_of_every_game_waits_for_the_other_phone(game_id, live_server, phone, phone2):
    a, b = phone, phone2
    url = open_table(a, live_server, game_id, SCRIPTS[game_id][0])
    token = url.rsplit("/", 1)[-1]
    a.get_by_role("button", name="Ask another seat to confirm each deal").tap()
    a.locator("#confirm-box", has_text="Each deal a phone saves waits").wait_for()
    b.goto(url)  # open before the deal: at a side table that makes it one of its seats
    settled(b)
    for name, value in first_deal(game_id).items():
        put(a, name, value)
    a.locator("#entry .score-preview").wait_for()
    save(a)
    # B hears of it by push, with Confirm; A says it waits for another seat.
    box_b = b.locator("#confirm-box")
    box_b.get_by_role("button", name="Confirm", exact=True).wait_for()
    assert "1 change to confirm" in box_b.inner_text()
    a.reload()
    settled(a)
    box_a = a.locator("#confirm-box")
    box_a.locator(".mine-note").wait_for()
    assert box_a.get_by_role("button", name="Confirm", exact=True).count() == 0 or \
        not box_a.get_by_role("button", name="Confirm", exact=True).is_visible()
    box_b.get_by_role("button", name="Confirm", exact=True).tap()
    b.locator(".flash", has_text="Confirmed.").wait_for()
    conn = connect(live_server.app.config["DATABASE"])
    try:
        stored = tables.load(conn, token)
        assert len(stored.deals) == 1 and stored.confirmed
    finally:
        conn.close()
    # A follows by push: nothing waits any more; back and reload show the same.
    a.locator("#confirm-box").wait_for(state="hidden")
    b.go_back()
    b.reload()
    settled(b)
    assert not b.locator("#confirm-box").is_visible()
    assert a.errors == [] and b.errors == []
