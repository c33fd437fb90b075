"""The across-the-table toy game (issue 21) in Chromium, from two phones: a team game whose
partners sit across (seats 1 & 3 vs 2 & 4) plays through the site with nothing in it written
for it. One phone creates the table (its new-table form says who partners whom), the other
opens it, each saves a deal, and both show the team totals."""

from __future__ import annotations

import re

import pytest

from companion.games import register, unregister
from tests import toy_across
from tests.browser.pages import put, settled

pytestmark = pytest.mark.browser

NAMES = ["Ann", "Bo", "Cy", "Di"]


@pytest.fixture
def across():
    register(toy_across.GAME, templates=toy_across.TEMPLATES)
    yield toy_across.GAME
    unregister(toy_across.GAME.id)


def standings(page) -> dict[str, str]:
    """Team -> total, as the page's standings show them."""
    rows = page.locator("#live table.standings tbody tr")
    return {rows.nth(i).locator("th").inner_text().strip(): rows.nth(i).locator("td.total").inner_text().strip()
            for i in range(rows.count())}


def enter_deal(page, tricks: list[int | None], last_team: int) -> None:
    """Tap each player's tricks (None: leave it on auto, worked out), the team that took the
    last trick, and save."""
    for seat, count in enumerate(tricks):
        if count is not None:
            put(page, f"tricks-{seat}", count)
    put(page, "last_trick", last_team)
    with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST"):
        page.locator("#entry button[type=submit]").tap()


def form_for(page, number: int) -> None:
    page.wait_for_function(f"() => document.querySelector('#entry')?.dataset.number === '{number}'")


def test_across_game_on_two_phones(across, live_server, phone, phone2, artifacts_dir):
    phone.goto(live_server("/tables/new?game=toy_across"))
    form = phone.locator("form.form")
    assert "Partners sit across the table" in form.inner_text()
    notes = [t.strip() for t in phone.locator("fieldset.names label .side").all_inner_texts()]
    assert notes == ["Team 1", "Team 2", "Team 1", "Team 2"]
    assert phone.locator("#f-first_team option").all_inner_texts() == ["Team 1 (seats 1, 3)",
                                                                       "Team 2 (seats 2, 4)"]
    for seat, name in enumerate(NAMES):
        phone.locator(f"#f-name-{seat}").fill(name)
    phone.screenshot(path=str(artifacts_dir / "new-table-toy_across-phone.png"), full_page=True)
    phone.get_by_role("button", name="Open the table").tap()
    phone.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]{16,}$"))
    settled(phone)

    # The second phone opens the same table and sees the same (empty) team standings.
    phone2.goto(phone.url)
    settled(phone2)
    assert standings(phone) == standings(phone2) == {"Ann & Cy": "0", "Bo & Di": "0"}

    # Deal 1 from the first phone: Di's tricks left on auto (the game's column says 8 in all).
    enter_deal(phone, [3, 1, 2, None], 1)
    form_for(phone, 2)
    form_for(phone2, 2)  # pushed to the other phone
    assert standings(phone) == standings(phone2) == {"Ann & Cy": "5", "Bo & Di": "5"}

    # Deal 2 from the second phone.
    enter_deal(phone2, [4, 0, 4, 0], 0)
    form_for(phone2, 3)
    form_for(phone, 3)
    assert standings(phone) == standings(phone2) == {"Ann & Cy": "15", "Bo & Di": "5"}
    phone.screenshot(path=str(artifacts_dir / "table-toy_across-phone.png"), full_page=True)
    assert phone.errors == [] and phone2.errors == []
