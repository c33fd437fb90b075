"""Regressions found by playing whole matches on two phones (qa): the other phone must follow
every change to the table, not only a new deal: Finish, Accept the tie and Reopen too."""

from __future__ import annotations

import pytest

from .pages import next_document
from .test_table_flow import open_table, prefill

pytestmark = pytest.mark.browser

# Ann 24 (four 7s), Bo -7, Cy 3, Di 16: one top score, so no dealer choice is asked.
CAPTURED = [[4, 0, 0, 0, 0, 4], [0, 3, 1, 0, 0, 8], [0, 1, 3, 4, 4, 4], [0, 0, 0, 0, 0, 16]]
PAIR_QUAD_DEAL = {f"{rank}-{seat}": count for seat, counts in enumerate(CAPTURED)
                  for rank, count in zip(["7", "A", "K", "Q", "J", "other"], counts)}


def test_the_other_phone_loses_its_form_on_finish_and_gets_it_back_on_reopen(live_server, phone, phone2):
    a, b = phone, phone2
    url = open_table(a, live_server, "pair_quad")  # open-ended: finished by hand
    prefill(live_server, url, [PAIR_QUAD_DEAL])
    a.goto(url)
    b.goto(url)
    b.locator("#entry button[type=submit]").wait_for()
    # The outbox sends Finish, then reloads A's table. Meanwhile A's old page may already show
    # Reopen (its live region follows the change too): a tap there would be lost in the reload.
    with next_document(a):
        a.locator("#actions").get_by_role("button", name="Finish match").tap()
    # B typed nothing: its form for deal 2 goes, the match is over.
    b.wait_for_function("() => !document.querySelector('#entry button[type=submit]')", timeout=5000)
    b.locator("#actions").get_by_role("button", name="Reopen the match").wait_for(timeout=5000)
    with next_document(a):  # a.errors below covers the reloaded page too
        a.locator("#actions").get_by_role("button", name="Reopen the match").tap()
    # Reopened: B can enter deal 2 again without a reload.
    b.wait_for_function("() => document.querySelector('#entry input[name=number]')?.value === '2'", timeout=5000)
    assert "Deal 0" not in b.locator("main").inner_text()
    assert a.errors == [] and b.errors == []


def test_a_half_typed_form_is_kept_with_save_off_when_another_phone_finishes(live_server, phone, phone2):
    a, b = phone, phone2
    url = open_table(a, live_server, "pair_quad")
    prefill(live_server, url, [PAIR_QUAD_DEAL])
    a.goto(url)
    b.goto(url)
    b.locator('#entry label:has(> input[name="7-1"][value="2"])').tap()
    a.locator("#actions").get_by_role("button", name="Finish match").tap()
    b.locator("#entry p.notice.moved").wait_for(timeout=5000)
    assert "ended the match" in b.locator("#entry p.notice.moved").inner_text()
    assert b.locator('#entry input[name="7-1"][value="2"]').is_checked()
    assert b.locator("#entry button[type=submit]").is_disabled()
