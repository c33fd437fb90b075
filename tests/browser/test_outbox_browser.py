"""The outbox (issue 22) on real phones (headless Chromium, two phone contexts): a deal saved
while the phone is offline or the laptop is down is kept on the phone, shown at the top of the
page with its values, and sent again by itself, stored exactly once; the laptop out of reach is
said within 3 s; a queued deal that meets one recorded meanwhile shows both and lets the player
choose; two phones saving the same deal at once store one deal and neither next form is
pre-filled; a refused security token costs nothing typed."""

from __future__ import annotations

import json
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser.pages import put, settled
from helpers import Phone  # noqa: E402

pytestmark = pytest.mark.browser
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

NAMES = ["Ann", "Ben", "Cho", "Dai"]
NOT_SENT = "Not sent yet: deal {n} — waiting for the laptop"
STREAM_OPEN = "() => document.querySelector('[hx-sse\\\\:connect]')?._htmx?.sse?.status === 200"
UNREACHABLE = "Can't reach the laptop — what you enter is kept on this phone"


def deal(number: int) -> dict[str, int]:
    """A valid 4-player RWD deal; the winner rotates, so no match ends within 8 deals."""
    winner = number % 4
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return {**{f"chips-{i}": c for i, c in enumerate(chips)}, **{f"tricks-{i}": t for i, t in enumerate(tricks)}}


def other_deal(number: int) -> dict[str, int]:
    """Another valid deal for the same number (a different winner)."""
    return deal(number + 1)


def facts_of(fields: dict[str, int]) -> dict:
    return {"chips": [fields[f"chips-{i}"] for i in range(4)], "tricks": [fields[f"tricks-{i}"] for i in range(4)]}


def stored(port: int, token: str) -> list[dict]:
    """The table's deals as the laptop has them (its JSON export)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/t/{token}/export.json", timeout=5) as response:
        return json.loads(response.read().decode("utf-8"))["deals"]


def wait_stored(port: int, token: str, count: int, within: float) -> float:
    """Seconds until the laptop holds ``count`` deals (fails after ``within`` s)."""
    start = time.monotonic()
    while True:
        try:
            deals = stored(port, token)
        except OSError:
            deals = []
        if len(deals) >= count:
            return time.monotonic() - start
        assert time.monotonic() - start < within, f"{len(deals)} deals stored after {within} s, wanted {count}"
        time.sleep(0.05)


def open_table(page, port: int, token: str) -> None:
    page.goto(f"http://127.0.0.1:{port}/t/{token}")
    settled(page)


def type_deal(page, fields: dict) -> None:
    for name, value in fields.items():
        put(page, name, value)


def tap_save(page) -> None:
    page.locator("#entry button[type=submit]").tap()


def form_is_empty(page) -> bool:
    """The entry form holds nothing typed: every tap row on auto or blank, every box empty."""
    return page.evaluate("""() => {
        const form = document.querySelector('form#entry');
        const checked = [...form.querySelectorAll('input[type=radio]:checked')].filter(r => r.value !== '');
        const typed = [...form.querySelectorAll('input[type=text], input[type=number]')].filter(i => i.value !== '');
        return checked.length === 0 && typed.length === 0 && !form.querySelector('.notice.restored');
    }""")


def outbox_item(page, number: int):
    return page.locator(f"#outbox .outbox-item[data-kind=deal][data-number='{number}']")


def table(port: int) -> str:
    return Phone(port).create_table("rwd", NAMES)


def table_open_on(port: int, *pages) -> str:
    """A new table, opened on each of ``pages``; its token."""
    token = table(port)
    for page in pages:
        open_table(page, port, token)
    return token


def save_offline(page, fields: dict) -> None:
    """The phone goes offline, then its player types a deal and taps Save."""
    page.context.set_offline(True)
    type_deal(page, fields)
    tap_save(page)


# --- offline, then back online ---------------------------------------------------------------

def test_offline_save_is_kept_shown_and_sent_once_when_back_online(live_server, phone, phone2):
    port = live_server.port
    token = table_open_on(port, phone, phone2)

    save_offline(phone, deal(1))
    item = outbox_item(phone, 1)
    expect(item).to_contain_text(NOT_SENT.format(n=1), timeout=3000)
    expect(phone.locator("#reach-bar")).to_have_text(UNREACHABLE, timeout=3000)
    expect(phone.locator("#reach-bar")).to_be_visible()
    # with the values, in the page's words
    for text in ("Ann · Chips: ", "Dai · Tricks (2nd half): "):
        expect(item).to_contain_text(text)
    assert item.locator("li").count() == 8
    # entry keeps working: the form is empty and for the next deal
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")
    assert form_is_empty(phone)
    assert stored(port, token) == []

    phone.context.set_offline(False)  # no tap from here on
    took = wait_stored(port, token, 1, within=10)
    print(f"back online -> stored: {took:.2f} s")
    expect(item).to_have_count(0, timeout=5000)
    expect(phone.locator("#reach-bar")).to_be_hidden()
    phone2.wait_for_selector("#deal-1", timeout=5000)  # the other phone shows it
    phone.wait_for_selector("#deal-1", timeout=5000)
    phone.wait_for_timeout(1500)  # any resend would have come by now
    deals = stored(port, token)
    assert [d["facts"] for d in deals] == [facts_of(deal(1))]  # exactly once
    assert phone.evaluate("window.tableOutbox.all()") == []


@posix_only
def test_laptop_killed_said_within_3_s_then_stored_once_after_restart(server_process, phone, phone2):
    port = server_process.port
    token = table_open_on(port, phone, phone2)
    for page in (phone, phone2):  # as at a table: the page has been open a while, its stream is up
        page.wait_for_function(STREAM_OPEN)
        expect(page.locator("#reach-bar")).to_be_hidden()

    server_process.kill()
    killed = time.monotonic()
    for page in (phone, phone2):  # every open table page says so
        expect(page.locator("#reach-bar")).to_be_visible(timeout=3000)
    assert time.monotonic() - killed < 3.5
    type_deal(phone, deal(1))
    tap_save(phone)
    expect(outbox_item(phone, 1)).to_contain_text(NOT_SENT.format(n=1), timeout=3000)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")

    server_process.start(port=port)  # the same port and database file; no tap
    took = wait_stored(port, token, 1, within=15)
    print(f"restarted -> stored: {took:.2f} s")
    for page in (phone, phone2):
        expect(page.locator("#reach-bar")).to_be_hidden(timeout=10000)
        page.wait_for_selector("#deal-1", timeout=10000)
    expect(outbox_item(phone, 1)).to_have_count(0)
    phone.wait_for_timeout(1500)
    assert [d["facts"] for d in stored(port, token)] == [facts_of(deal(1))]


def WRITES(url: str) -> bool:
    return url.endswith("/deals")


class WritesRefused:
    """The laptop up, but taking no writes and answering /healthz 503, until ``let_in()``.

    A gate in front of the app, not ``context.route``: a page whose reload failed offline lives
    on for a moment in Chromium outside the context's offline emulation and its routes, and its
    outbox's timer then reached the laptop (the deal stored, the answer lost with the page)."""

    def __init__(self, app) -> None:
        self.inner, self.closed = app.wsgi_app, True
        app.wsgi_app = self

    def __call__(self, environ, start_response):
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD")
        if self.closed and (path == "/healthz" or (method == "POST" and path.endswith("/deals"))):
            start_response("503 Service Unavailable", [("Content-Type", "text/html; charset=utf-8")])
            return [b'<div class="error-page"><p>Busy</p></div>']
        return self.inner(environ, start_response)

    def let_in(self) -> None:
        self.closed = False


def test_outbox_survives_a_reload_while_offline(live_server, phone):
    port = live_server.port
    token = table(port)
    open_table(phone, port, token)
    laptop = WritesRefused(live_server.app)
    context = phone.context
    context.set_offline(True)
    type_deal(phone, deal(1))
    tap_save(phone)
    expect(outbox_item(phone, 1)).to_contain_text(NOT_SENT.format(n=1), timeout=3000)
    with pytest.raises(Exception):
        phone.reload()  # offline: the browser's own error page, the laptop's page can't load

    # The phone is on the Wi-Fi again, the page loads, but the laptop still takes no writes.
    context.set_offline(False)
    open_table(phone, port, token)
    item = outbox_item(phone, 1)
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 2")
    expect(item).to_contain_text(NOT_SENT.format(n=1))
    expect(item).to_contain_text("Ann · Chips: ")
    expect(phone.locator("#reach-bar")).to_be_visible(timeout=3000)
    assert stored(port, token) == []

    laptop.let_in()
    wait_stored(port, token, 1, within=10)
    expect(item).to_have_count(0, timeout=5000)
    phone.wait_for_timeout(1500)
    assert [d["facts"] for d in stored(port, token)] == [facts_of(deal(1))]


# --- conflicts ------------------------------------------------------------------------------

def test_queued_deal_meeting_a_recorded_one_shows_both_and_the_player_chooses(live_server, phone, phone2):
    port = live_server.port
    token = table_open_on(port, phone, phone2)

    # Round 1: "save mine as the next deal".
    save_offline(phone, deal(1))
    expect(outbox_item(phone, 1)).to_be_visible(timeout=3000)
    type_deal(phone2, other_deal(1))
    tap_save(phone2)
    expect(phone2.locator("#entry-wrap .saved-banner")).to_contain_text("Deal 1 saved.")
    phone.context.set_offline(False)
    item = outbox_item(phone, 1)
    expect(item).to_have_attribute("data-state", "decide", timeout=10000)
    compare = item.locator(".conflict-box table.compare")
    expect(compare).to_be_visible()
    expect(compare.locator("thead")).to_contain_text("Recorded")
    expect(compare.locator("thead")).to_contain_text("Yours")
    assert stored(port, token)[0]["facts"] == facts_of(other_deal(1))  # not overwritten, not renumbered
    phone.wait_for_timeout(1000)
    assert len(stored(port, token)) == 1
    item.get_by_role("button", name="Save mine as deal 2").tap()
    wait_stored(port, token, 2, within=10)
    expect(outbox_item(phone, 1)).to_have_count(0)
    expect(outbox_item(phone, 2)).to_have_count(0)
    assert [d["facts"] for d in stored(port, token)] == [facts_of(other_deal(1)), facts_of(deal(1))]
    expect(phone.locator("#entry h2")).to_have_text("Enter deal 3")
    phone2.wait_for_selector("#deal-2", timeout=5000)

    # Round 2: "discard".
    save_offline(phone, deal(3))
    expect(outbox_item(phone, 3)).to_be_visible(timeout=3000)
    expect(phone2.locator("#entry h2")).to_have_text("Enter deal 3")
    type_deal(phone2, other_deal(3))
    tap_save(phone2)
    expect(phone2.locator("#entry-wrap .saved-banner")).to_contain_text("Deal 3 saved.")
    phone.context.set_offline(False)
    item = outbox_item(phone, 3)
    expect(item).to_have_attribute("data-state", "decide", timeout=10000)
    expect(item.locator(".conflict-box table.compare")).to_be_visible()
    item.get_by_role("button", name="Discard mine").tap()
    expect(outbox_item(phone, 3)).to_have_count(0)
    assert phone.evaluate("window.tableOutbox.all()") == []
    phone.wait_for_timeout(1000)
    assert [d["facts"] for d in stored(port, token)] == [facts_of(other_deal(1)), facts_of(deal(1)),
                                                          facts_of(other_deal(3))]


SLOW_ANSWERS = """(() => {
    const fetch = window.fetch;
    window.fetch = (url, init) => fetch(url, init).then(response =>
        init && init.method === 'POST' && String(url).endsWith('/deals')
            ? new Promise(resolve => setTimeout(() => resolve(response), 400)) : response);
})()"""
SAVE_AT = """when => setTimeout(() => {
    window.savedAt = Date.now();
    document.querySelector('form#entry').requestSubmit();
}, when - Date.now())"""


def test_two_phones_saving_the_same_deal_at_once_store_one_and_neither_next_form_is_filled(
        live_server, phone, phone2):
    port = live_server.port
    gaps = []
    # The second phone's answers come late (a slow Wi-Fi): the first phone's deal, pushed to it
    # meanwhile, arrives before its own answer, as in the tries that came back filled.
    phone2.context.add_init_script(SLOW_ANSWERS)
    while len([gap for gap in gaps if gap < 50]) < 7 and len(gaps) < 14:  # the issue: 2 in 7 came back filled
        token = table_open_on(port, phone, phone2)
        for page in (phone, phone2):
            type_deal(page, deal(1))
        # Both Saves at one moment (both pages run on this machine: one clock); each notes when
        # its own went.
        when = phone.evaluate("Date.now()") + 300
        for page in (phone, phone2):
            page.evaluate(SAVE_AT, when)
        at = [page.wait_for_function("() => window.savedAt").json_value() for page in (phone, phone2)]
        gaps.append(abs(at[1] - at[0]))
        for page in (phone, phone2):
            expect(page.locator("#entry h2")).to_have_text("Enter deal 2", timeout=5000)
        phone.wait_for_timeout(1500)  # the other phone's push and any late answer have come
        assert len(stored(port, token)) == 1
        for page in (phone, phone2):
            expect(page.locator("#entry h2")).to_have_text("Enter deal 2")
            assert form_is_empty(page), page.locator("#entry").inner_text()
            page.reload()
            settled(page)
            assert form_is_empty(page), "the reload restored deal 1's values as a draft"
    # Both Saves within 50 ms in 7 tries at least (a busy machine can fire a timer late: that
    # try still had to store one deal and fill no form, but is not counted as "at once").
    assert len([gap for gap in gaps if gap < 50]) >= 7, gaps


# --- a refused security token ------------------------------------------------------------------

def test_refused_security_token_costs_nothing_typed(live_server, phone):
    port = live_server.port
    token = table(port)
    open_table(phone, port, token)
    type_deal(phone, deal(1))
    phone.evaluate("document.querySelector('#entry input[name=csrf_token]').value = 'refused-token'")
    refused = []
    phone.on("response", lambda r: refused.append(r.status) if r.url.endswith("/deals") else None)
    tap_save(phone)  # no retyping, no second tap
    expect(phone.locator("#entry-wrap .saved-banner")).to_contain_text("Deal 1 saved.", timeout=5000)
    assert refused[0] == 400, refused  # the laptop did refuse the token first
    assert [d["facts"] for d in stored(port, token)] == [facts_of(deal(1))]
    assert phone.evaluate("window.tableOutbox.all()") == []


# --- an answer that never comes ----------------------------------------------------------------

def test_save_that_gets_no_answer_goes_to_the_outbox_and_is_sent_again(live_server, phone):
    """The laptop takes the request and never answers (frozen, or a Wi-Fi that swallows the
    answer): after 8 s the deal waits in the outbox, and is stored once when answers come."""
    port = live_server.port
    token = table(port)
    held = []
    phone.context.route(WRITES, lambda route: held.append(route))  # taken, never answered
    open_table(phone, port, token)
    type_deal(phone, deal(1))
    tap_save(phone)
    expect(outbox_item(phone, 1)).to_contain_text(NOT_SENT.format(n=1), timeout=12000)
    assert held and stored(port, token) == []
    phone.context.unroute(WRITES)
    for route in held:  # the answers come after all, late: the sends reach the laptop now
        try:
            route.continue_()
        except Exception:  # the page gave up on this one (its timeout)
            pass
    wait_stored(port, token, 1, within=10)
    expect(outbox_item(phone, 1)).to_have_count(0, timeout=5000)
    phone.wait_for_timeout(1000)
    assert [d["facts"] for d in stored(port, token)] == [facts_of(deal(1))]
