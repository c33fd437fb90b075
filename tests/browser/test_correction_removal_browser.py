"""Issue 24: on a phone (the outbox sends the correction), "Save and remove deal N" saves a
correction that ends the match earlier and removes the deal after its new end, in one tap."""

from __future__ import annotations

import pytest

from tests.browser.pages import open_table, put, save, settled

pytestmark = pytest.mark.browser

ANN_ALONE = {"chips-0": 4, "chips-1": 5, "tricks-0": 7, "tricks-1": 7}   # Ann +3 alone
BO_ALONE = {"chips-0": 5, "chips-1": 4, "tricks-0": 5, "tricks-1": 10}   # Bo +6 alone


def test_save_and_remove_the_deal_after_the_new_end(phone, live_server):
    url = open_table(phone, live_server, "rwd", 3)
    for number, deal in enumerate([ANN_ALONE, ANN_ALONE, BO_ALONE, BO_ALONE], start=1):
        for name, value in deal.items():
            put(phone, name, value)
        phone.locator("#entry .score-preview").wait_for()
        save(phone)
        phone.locator(f".saved-banner[data-saved='{number}']").wait_for()
    phone.goto(url + "/deals/3/edit")
    settled(phone)
    for name, value in ANN_ALONE.items():
        put(phone, name, value)
    # Refused: the outbox shows the laptop's page in place (no navigation), typed values kept.
    phone.get_by_role("button", name="Save the correction").tap()
    phone.get_by_text("so deal 4 would come after its end", exact=False).first.wait_for()
    with phone.expect_navigation():
        phone.get_by_role("button", name="Save and remove deal 4").tap()
    settled(phone)
    phone.locator("#deal-3").wait_for()
    assert phone.locator("#deal-4").count() == 0
    assert "Aiko wins the match" in phone.locator("main").inner_text()
    assert all("422 (UNPROCESSABLE ENTITY)" in e for e in phone.errors), phone.errors  # the refusal
