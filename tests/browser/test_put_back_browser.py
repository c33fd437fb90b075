"""Issue 27: values put into a deal form without a tap get their score check at once, and a
conflict's "use mine" puts this phone's values back into a form.

Put back without a tap: an undone deal given back, the correction page, a draft restored after
a reload, and "use mine". Before, the check (the score preview by Save) waited for the first
tap, because the values arrived before htmx had set the check up.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError

from tests.browser.pages import open_table, put, save, settled

pytestmark = pytest.mark.browser

DEAL = {"chips-0": 2, "chips-1": 7, "tricks-0": 5, "tricks-1": 6}     # Aiko +3, Ben -1, Chiyo -2
OTHER = {"chips-0": 0, "chips-1": 8, "tricks-0": 5, "tricks-1": 6}


def enter(page, deal: dict) -> None:
    for name, value in deal.items():
        put(page, name, value)


def checked(page, name: str) -> str | None:
    box = page.locator(f'#entry input[name="{name}"]:checked')
    return box.get_attribute("value") if box.count() else None


def preview_without_a_tap(page) -> str:
    """The score check's answer, reached with no tap or key (the page counts them)."""
    try:
        page.locator("#entry .score-preview").wait_for(timeout=5000)
    except TimeoutError as timed_out:
        form = page.locator("#entry").evaluate("f => f.outerHTML")
        raise AssertionError(f"no score check came without a tap; the form:\n{form[:4000]}") from timed_out
    return page.locator("#entry .score-preview").inner_text()


def count_taps(page) -> None:
    page.evaluate("""() => { window.__taps = 0;
        for (const type of ['touchstart', 'mousedown', 'keydown'])
            document.addEventListener(type, () => { window.__taps += 1; }, true); }""")


def test_an_undone_deal_given_back_is_checked_at_once(phone, live_server):
    open_table(phone, live_server, "rwd", 3)
    enter(phone, DEAL)
    phone.locator("#entry .score-preview").wait_for()
    save(phone)
    banner = phone.locator(".saved-banner[data-saved='1']")
    banner.wait_for()
    banner.get_by_role("button", name="Undo deal 1").tap()
    phone.locator("#entry-wrap .flash", has_text="Deal 1 undone.").wait_for()
    count_taps(phone)
    assert "+3" in preview_without_a_tap(phone)
    assert phone.evaluate("window.__taps") == 0


def test_the_correction_page_opens_with_its_check(phone, live_server):
    url = open_table(phone, live_server, "rwd", 3)
    enter(phone, DEAL)
    save(phone)
    phone.locator(".saved-banner[data-saved='1']").wait_for()
    phone.goto(url + "/deals/1/edit")
    count_taps(phone)
    assert "+3" in preview_without_a_tap(phone)
    assert phone.evaluate("window.__taps") == 0


def test_a_draft_restored_after_a_reload_is_checked_at_once(phone, live_server):
    open_table(phone, live_server, "rwd", 3)
    enter(phone, DEAL)
    phone.locator("#entry .score-preview").wait_for()
    phone.reload()
    phone.locator("#entry .notice.restored").wait_for()
    count_taps(phone)
    assert "+3" in preview_without_a_tap(phone)
    assert phone.evaluate("window.__taps") == 0


def blocked_only(errors) -> bool:
    """Only what holding B's live updates back (and the 409 itself) made the console say."""
    return all("ERR_FAILED" in e or "Failed to fetch" in e or "409 (CONFLICT)" in e for e in errors)


def conflict_on_the_second_phone(phone, phone2, live_server):
    """Two phones enter deal 1; B's live updates are held back, so B saves into the deal A
    already recorded and gets the conflict box: Recorded beside Yours, and "use mine"."""
    url = open_table(phone, live_server, "rwd", 3)
    # Only the table's own update channels (a glob "**/live*" would block /static/live.js too).
    phone2.route(re.compile(r"/t/[^/]+/(events|live)(\?|$)"), lambda route: route.abort())
    phone2.goto(url)
    settled(phone2)
    enter(phone, DEAL)
    save(phone)
    # A's answer is on its page (its response comes first): its history, read below, has deal 1.
    phone.locator(".saved-banner[data-saved='1']").wait_for()
    enter(phone2, OTHER)
    with phone2.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as answer:
        phone2.locator("#entry button[type=submit]").tap()
    assert answer.value.status == 409
    box = phone2.locator("#entry-wrap .conflict-box")
    box.wait_for()
    # The next form starts empty: nothing comes back by itself (issue 22's double-save trap).
    assert checked(phone2, "chips-1") is None
    return box


def test_use_mine_puts_my_values_in_the_next_form(phone, phone2, live_server):
    box = conflict_on_the_second_phone(phone, phone2, live_server)
    with phone2.expect_navigation():
        box.get_by_role("button", name="Edit mine as deal 2").tap()
    settled(phone2)
    assert phone2.locator('#entry input[name="number"]').input_value() == "2"
    for name, value in OTHER.items():
        assert checked(phone2, name) == str(value), name
    assert "Your values are in the form for deal 2" in phone2.locator("#entry").inner_text()
    preview_without_a_tap(phone2)
    # The choice is made: nothing of that conflict is left waiting in this phone's outbox.
    assert phone2.locator(".outbox-item").count() == 0
    assert "conflict" not in phone2.evaluate("localStorage.getItem('outbox:v1') || ''")
    assert phone.errors == [] and blocked_only(phone2.errors)


def test_use_mine_as_the_correction_of_the_recorded_deal(phone, phone2, live_server):
    box = conflict_on_the_second_phone(phone, phone2, live_server)
    recorded = phone.locator("#history").inner_text()
    with phone2.expect_navigation():
        box.get_by_role("button", name="Correct deal 1 with mine").tap()
    settled(phone2)
    assert "Correct deal 1" in phone2.locator("h1").inner_text()
    for name, value in OTHER.items():
        assert checked(phone2, name) == str(value), name
    preview_without_a_tap(phone2)
    with phone2.expect_navigation():
        phone2.get_by_role("button", name="Save the correction").tap()
    settled(phone2)
    # Mine is deal 1 now, on both phones.
    phone.reload()
    settled(phone)
    corrected = phone.locator("#history").inner_text()
    assert corrected != recorded and corrected == phone2.locator("#history").inner_text()
    assert phone.errors == [] and blocked_only(phone2.errors)
