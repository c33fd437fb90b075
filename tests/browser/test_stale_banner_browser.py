"""What a phone was told stays true while it types (found by playing two phones, qa): a phone
that saved deal 1 ("Deal 1 saved." with Undo deal 1) and starts typing deal 2 while another
phone saves deal 2 or undoes a deal keeps what it typed, and the card above its form no longer
says an older deal was just saved or entered, nor offers to undo a deal that is no longer last."""

from __future__ import annotations

import pytest

from .test_table_flow import DEALS, enter_and_save, open_table

pytestmark = pytest.mark.browser

OTHER_DEAL = {"chips-0": 5, "chips-1": 2, "chips-2": 10, "tricks-0": 4, "tricks-1": 9, "tricks-2": 4}


def wait_number(page, number: int) -> None:
    page.wait_for_function(
        f"() => document.querySelector('#entry input[name=number]')?.value === '{number}'", timeout=5000)


def start_typing(page) -> None:
    page.locator('#entry label:has(> input[name="chips-0"][value="4"])').tap()


def test_an_older_saved_deal_is_not_shown_as_just_saved_once_another_phone_saves(live_server, phone, phone2):
    a, b = phone, phone2
    url = open_table(a, live_server, "rwd")
    b.goto(url)
    enter_and_save(b, DEALS["rwd"][0])
    assert b.locator("#entry-wrap").get_by_role("button", name="Undo deal 1").count() == 1
    wait_number(a, 2)
    start_typing(b)
    enter_and_save(a, OTHER_DEAL)
    b.locator("#entry p.notice.moved").wait_for(timeout=5000)
    wrap = b.locator("#entry-wrap")
    assert b.locator('#entry input[name="chips-0"][value="4"]').is_checked()  # typed, kept
    assert b.locator("#entry input[name=number]").input_value() == "2"  # and still for deal 2
    assert "Deal 1 saved." not in wrap.inner_text()
    assert wrap.get_by_role("button", name="Undo deal 1").count() == 0
    # The table's own actions still offer the undo that is true now.
    b.locator("#actions").get_by_role("button", name="Undo deal 2").wait_for(timeout=5000)
    assert b.errors == []


def test_a_deal_undone_elsewhere_is_not_shown_as_just_entered(live_server, phone, phone2):
    a, b = phone, phone2
    url = open_table(a, live_server, "rwd")
    b.goto(url)
    enter_and_save(a, DEALS["rwd"][0])
    enter_and_save(a, OTHER_DEAL)
    wait_number(b, 3)
    b.locator("#entry-wrap .told-other").wait_for(timeout=5000)
    start_typing(b)
    a.locator("#actions").get_by_role("button", name="Undo deal 2").tap()
    b.locator("#entry p.notice.moved", has_text="the next deal is now deal 2").wait_for(timeout=5000)
    assert b.locator("#entry input[name=number]").input_value() == "3"  # never renumbered under a finger
    wrap = b.locator("#entry-wrap")
    assert b.locator('#entry input[name="chips-0"][value="4"]').is_checked()
    assert "Deal 2 was just entered" not in wrap.inner_text()
    assert b.errors == []
