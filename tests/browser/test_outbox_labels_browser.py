"""A deal waiting in the outbox is shown in the page's own words, for every kind of key: Twin
Shoot's bid cards (a row of suit pictures, not a fieldset) say which card and which suit
("Aiko right side · Bid card 1: Heart = 2"), not "Aiko right side: 2Heart"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.pages import open_table, put

pytestmark = pytest.mark.browser

BIDS = {0: ("H", "S"), 1: ("C", "D"), 2: ("H", "S"), 3: ("C", "D")}


def test_a_waiting_twin_shoot_deal_names_each_bid_card_and_its_suit(live_server, phone):
    open_table(phone, live_server, "twin_shoot", 4)
    phone.context.set_offline(True)
    for seat, (first, second) in BIDS.items():
        put(phone, f"bid1-{seat}", first)
        put(phone, f"bid2-{seat}", second)
    for seat, tricks in enumerate([3, 2, 3]):
        put(phone, f"tricks-{seat}", tricks)
    phone.locator("#entry button[type=submit]").tap()
    item = phone.locator("#outbox .outbox-item[data-kind=deal][data-number='1']")
    expect(item).to_be_visible(timeout=5000)
    lines = item.locator("li").all_inner_texts()
    assert "Aiko right side · Bid card 1: Heart = 2" in lines, lines
    assert "Ben left side · Bid card 2: Diamond = 0" in lines, lines
    assert "Chiyo right side · Tricks taken: 3" in lines, lines
    assert len(lines) == 8 + 3 + 1, lines  # eight bid cards, three tricks, the open bid (none)
    phone.context.set_offline(False)
    expect(item).to_have_count(0, timeout=10_000)


def test_a_waiting_trick_by_trick_deal_names_each_trick_as_spoken(live_server, phone):
    """A Lucky Cube trick row shows a big "1" (aria-hidden) beside its spoken "Trick 1 won by":
    the waiting deal reads "Trick 1 won by: Chiyo", not "1Trick 1 won by: Chiyo"."""
    open_table(phone, live_server, "lucky_cube", 3)
    phone.context.set_offline(True)
    for trick, seat in enumerate([2, 2, 0, 0, 1, 1], start=1):
        put(phone, f"trick-{trick}", seat)
    phone.locator("#entry button[type=submit]").tap()
    item = phone.locator("#outbox .outbox-item[data-kind=deal][data-number='1']")
    expect(item).to_be_visible(timeout=5000)
    lines = item.locator("li").all_inner_texts()
    assert "Trick 1 won by: Chiyo" in lines and "Trick 6 won by: Ben" in lines, lines
    assert not any(line[:1].isdigit() for line in lines), lines
    phone.context.set_offline(False)
    expect(item).to_have_count(0, timeout=10_000)
