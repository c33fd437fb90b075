"""QA run (issue 31's helpers): a phone's own queued deal, sent when it comes back online, is
its own write: the phone is told it was sent and saved, never that it "was just entered from
another phone" (the write id names the phone's own write)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_outbox_browser import (deal, outbox_item, save_offline, stored, table_open_on,
                                               tap_save, type_deal, wait_stored)

pytestmark = pytest.mark.browser

ANOTHER_PHONE = "from another phone"
# Every text a phone is told about its deal, as it appears (a MutationObserver: a line shown
# for a moment and replaced still counts).
WATCH_TOLD = """() => {
    window.__told = [];
    const seen = (node) => {
        const el = node.nodeType === 1 ? node : node.parentElement;
        if (el && el.textContent) window.__told.push(el.textContent.replace(/\\s+/g, ' ').trim());
    };
    new MutationObserver((changes) => changes.forEach((c) => c.addedNodes.forEach(seen)))
        .observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def test_own_queued_deal_sent_on_return_is_not_told_as_another_phones(live_server, phone, phone2):
    port = live_server.port
    token = table_open_on(port, phone, phone2)
    phone.evaluate(WATCH_TOLD)
    save_offline(phone, deal(1))
    expect(outbox_item(phone, 1)).to_have_count(1, timeout=3000)

    phone.context.set_offline(False)
    wait_stored(port, token, 1, within=10)
    expect(outbox_item(phone, 1)).to_have_count(0, timeout=5000)
    phone.wait_for_selector("#deal-1", timeout=5000)
    phone.wait_for_timeout(1500)  # the live update that follows the write has come by now
    told = phone.evaluate("window.__told")
    assert not [t for t in told if ANOTHER_PHONE in t], told
    assert ANOTHER_PHONE not in phone.locator("#main").inner_text()
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")
    assert len(stored(port, token)) == 1


def test_own_queued_deals_sent_on_return_are_not_told_as_another_phones(live_server, phone, phone2):
    port = live_server.port
    token = table_open_on(port, phone, phone2)
    phone.evaluate(WATCH_TOLD)
    save_offline(phone, deal(1))
    expect(outbox_item(phone, 1)).to_have_count(1, timeout=3000)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")
    type_deal(phone, deal(2))
    tap_save(phone)
    expect(outbox_item(phone, 2)).to_have_count(1, timeout=3000)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")

    phone.context.set_offline(False)
    wait_stored(port, token, 2, within=10)
    expect(phone.locator("#outbox .outbox-item")).to_have_count(0, timeout=5000)
    phone.wait_for_selector("#deal-2", timeout=5000)
    phone.wait_for_timeout(1500)  # the live updates that follow the writes have come by now
    told = phone.evaluate("window.__told")
    assert not [t for t in told if ANOTHER_PHONE in t], told
    assert ANOTHER_PHONE not in phone.locator("#main").inner_text()
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")
    assert len(stored(port, token)) == 2


def test_a_live_answer_older_than_the_phones_own_deal_is_not_shown(live_server, phone, phone2):
    """Deterministic order of the race CI met once: the live answer asked after the phone's own
    deal 1 was stored arrives only after its own deal 2 was stored too. It tells of an older
    table than this phone knows (its own write's answer said so): it is not shown, so the form
    never goes back to deal 2 with "Deal 1 was just entered from another phone"."""
    port = live_server.port
    token = table_open_on(port, phone, phone2)
    phone.evaluate(WATCH_TOLD)
    save_offline(phone, deal(1))
    expect(outbox_item(phone, 1)).to_have_count(1, timeout=3000)
    type_deal(phone, deal(2))
    tap_save(phone)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")

    posts, lives = [], []
    phone.context.route(lambda url: url.endswith("/deals"), lambda route: posts.append(route))
    phone.context.route(lambda url: f"/t/{token}/live" in url,
                        lambda route: route.continue_() if lives else lives.append(route))

    def until(held: list, count: int) -> None:
        for _ in range(200):
            if len(held) >= count:
                return
            phone.wait_for_timeout(50)  # Playwright calls route handlers while it waits
        raise AssertionError(f"{len(held)} requests held, wanted {count}")

    phone.context.set_offline(False)
    until(posts, 1)
    posts[0].continue_()  # deal 1 is stored; the phone asks for the table as it is now
    until(lives, 1)
    stale = lives[0].fetch()  # the table with deal 1 only: the answer the laptop gave then
    until(posts, 2)
    posts[1].continue_()  # deal 2 is stored before that answer arrives
    wait_stored(port, token, 2, within=10)
    expect(phone.locator("#outbox .outbox-item")).to_have_count(0, timeout=5000)
    lives[0].fulfill(response=stale)

    phone.wait_for_selector("#deal-2", timeout=5000)
    phone.wait_for_timeout(1500)
    told = phone.evaluate("window.__told")
    assert not [t for t in told if ANOTHER_PHONE in t], told
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")
    assert len(stored(port, token)) == 2


def test_the_phones_own_deal_stored_while_a_live_answer_settles_is_not_told_as_another_phones(
        live_server, phone, phone2):
    """The order CI met on 72bd2e1: the live answer asked after deal 1 was stored (the table
    with deal 1, the next form for deal 2) is swapped in, and while htmx lets it settle (a timer
    before "after:swap", where app.js takes the next form it brought) the phone's own deal 2 is
    answered and leaves the outbox. The answer is older than the page knows then: its next form
    is not taken, so the phone never hears that its own deal 1 "was just entered from another
    phone", and the newer table is asked at once. The settle is widened here (in a room it is a
    millisecond, met about once in a few CI runs) and the as-you-type check's answers are held,
    as any swap in that moment takes the next form too."""
    port = live_server.port
    token = table_open_on(port, phone, phone2)
    phone.evaluate(WATCH_TOLD)
    phone.evaluate("""() => {
        htmx.config.defaultSettleDelay = 1500;
        document.addEventListener("htmx:before:swap", (event) => {
            if (event.detail?.ctx?.sourceElement?.id === "live") window.__settling = true;
        });
    }""")
    save_offline(phone, deal(1))
    expect(outbox_item(phone, 1)).to_have_count(1, timeout=3000)
    type_deal(phone, deal(2))
    tap_save(phone)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")

    posts, previews = [], []  # deal 1 goes through, deal 2 is held; no preview is answered

    def hold_the_second(route):
        posts.append(route)
        if len(posts) == 1:
            route.continue_()
    phone.context.route(lambda url: url.endswith("/deals"), hold_the_second)
    phone.context.route(lambda url: url.endswith("/preview"), lambda route: previews.append(route))
    phone.context.set_offline(False)
    settling = "window.__settling === true && !!document.querySelector('#entry-next > template')"
    for _ in range(200):
        if len(posts) >= 2 and phone.evaluate(settling):
            break
        phone.wait_for_timeout(25)  # Playwright calls route handlers while it waits
    else:
        raise AssertionError(f"no live answer settling with deal 2 held ({len(posts)} held)")
    assert phone.evaluate("document.querySelector('#live').dataset.rev") == "1"
    posts[1].continue_()  # deal 2 is stored and answered while the live answer settles
    wait_stored(port, token, 2, within=10)
    expect(phone.locator("#outbox .outbox-item")).to_have_count(0, timeout=5000)
    # Asked again at once: the table with deal 2 well before the region's 4 s retry.
    expect(phone.locator("#live")).to_have_attribute("data-rev", "2", timeout=3500)
    phone.wait_for_timeout(500)
    told = phone.evaluate("window.__told")
    assert not [t for t in told if ANOTHER_PHONE in t], told
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")
    assert len(stored(port, token)) == 2
