"""QA run (issue 31's helpers): a deal queued offline and refused when it is sent (another
phone ended the match meanwhile) says so where the player is looking: the refusal, with its
choices, is in view on a 390 px phone, not only at the top of a page scrolled down to the form."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from helpers import Phone
from tests.browser.test_outbox_browser import deal, outbox_item, save_offline, table_open_on, tap_save, type_deal

pytestmark = pytest.mark.browser


def test_a_queued_deal_refused_after_the_match_ended_is_shown_in_view(live_server, phone):
    port = live_server.port
    token = table_open_on(port, phone)
    other = Phone(port)
    for number in range(1, 9):  # each seat wins two deals: deal 9 gives one of them a third, the match
        form = {"csrf_token": other.csrf(f"/t/{token}"), "number": str(number), **deal(number)}
        status, _headers, body = other.request("POST", f"/t/{token}/deals", form)
        assert status == 303, body[:300]
    phone.wait_for_selector("#deal-8", timeout=10000)
    assert phone.viewport_size["width"] == 390

    save_offline(phone, deal(9))  # ends the match: the phone doesn't know yet
    expect(outbox_item(phone, 9)).to_have_count(1, timeout=3000)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 10")
    type_deal(phone, deal(10))
    tap_save(phone)
    expect(outbox_item(phone, 10)).to_have_count(1, timeout=3000)
    phone.locator("#entry button[type=submit]").scroll_into_view_if_needed()  # the player is at the form

    phone.context.set_offline(False)
    refused = phone.locator("#outbox .outbox-item[data-state=decide][data-number='10']")
    expect(refused).to_have_count(1, timeout=10000)
    expect(refused).to_contain_text("not saved", ignore_case=True)
    expect(refused).to_be_in_viewport(timeout=3000)
    # ...and not under the sticky top bar: its title is what the screen shows there.
    assert refused.locator(".outbox-title").evaluate("""(title) => {
        const box = title.getBoundingClientRect();
        return title.contains(document.elementFromPoint(box.left + 4, box.top + box.height / 2));
    }""")
