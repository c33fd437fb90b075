"""Two phones, one deal, stored once: every time (issue 32, item 10). Phone A and phone B enter
the same values for deal N and tap Save 0 to 300 ms apart, 50 times (two pairs of open table
pages raced in turn, the same pages from deal to deal), A first and B first in turn. Every time
the laptop stores deal N once, the phone whose Save came second is told it was already recorded
with the same values, the form a finger taps Save on is still for deal N when it is tapped (a
pushed update never renumbers it), and both phones end on an empty form for deal N + 1 (typed
values never move into the next deal's form, not even through a draft). The same race without
JavaScript: tests/test_same_deal_race.py."""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.browser.conftest import PHONE, _open
from tests.browser.pages import settled
from helpers import Phone

from .test_outbox_browser import NAMES, deal, form_is_empty

pytestmark = pytest.mark.browser

RACES = 50
DEALS_PER_TABLE = 8  # deal(n) rotates the winner: no match ends within 8 deals
# How long after the first Save the second comes (ms): at once, a few ms, and long enough for
# the first phone's deal to be pushed to the second phone before its tap.
GAPS = (0, 2, 5, 10, 30, 80, 150, 300)

# Set the deal's values as taps do (each tap fires "input" and "change").
TYPE = """fields => {
    const form = document.querySelector('form#entry');
    for (const [name, value] of Object.entries(fields)) {
        const input = form.querySelector(`input[name="${name}"][value="${value}"]`);
        input.checked = true;
        input.dispatchEvent(new Event('input', {bubbles: true}));
        input.dispatchEvent(new Event('change', {bubbles: true}));
    }
}"""
# A tap on Save at a moment both pages share (one machine, one clock); notes the deal number
# the form had when it was tapped, and whether Save could be tapped.
TAP_AT = """when => new Promise(resolve => setTimeout(() => {
    const form = document.querySelector('form#entry');
    const button = form.querySelector('button[type=submit]');
    window.tapped = {number: form.elements.number.value, enabled: !button.disabled};
    button.click();
    resolve();
}, when - Date.now()))"""
READY = """n => {
    const form = document.querySelector('form#entry[data-table]');
    return form && form.dataset.ready === '1' && form.elements.number.value === String(n)
        && !form.querySelector('button[type=submit]').disabled
        && !document.querySelector('.htmx-request');
}"""
SHOWS = """([n, rev]) => {
    const form = document.querySelector('form#entry[data-table]');
    return form && form.dataset.ready === '1' && form.elements.number.value === String(n)
        && (rev === null || document.querySelector('#live')?.dataset.rev === String(rev))
        && !document.querySelector('.htmx-request');
}"""


@pytest.fixture
def phone3(browser):
    yield from _open(browser, PHONE)


@pytest.fixture
def phone4(browser):
    yield from _open(browser, PHONE)


def server_state(port: int, token: str) -> tuple[int, int]:
    """(deals stored, revision) as the laptop has them."""
    status, _headers, body = Phone(port).request("GET", f"/t/{token}/export.json")
    assert status == 200, status
    _status, _headers, page = Phone(port).request("GET", f"/t/{token}")
    return len(json.loads(body)["deals"]), int(re.search(r'id="live"[^>]*data-rev="(\d+)"', page, re.S).group(1))


def settle(page, number: int, revision: int | None) -> None:
    """Wait (5 s at most) until the page's form is set up for deal ``number`` and, given a
    revision, its scoresheet shows it; what a page that never gets there shows is checked after."""
    try:
        page.wait_for_function(SHOWS, arg=[number, revision], timeout=5000)
    except PlaywrightError:
        pass


class Pair:
    """Two phones open on one table; ``number``: the deal they are both about to enter."""

    def __init__(self, port: int, a, b):
        self.port, self.a, self.b = port, a, b
        self.token, self.number = None, DEALS_PER_TABLE + 1

    def ready(self) -> None:
        """Both phones on an empty form for ``number`` (a new table after deal 8)."""
        if self.number > DEALS_PER_TABLE:
            self.token, self.number = Phone(self.port).create_table("rwd", NAMES), 1
            for page in (self.a, self.b):
                if page.url.startswith("http"):
                    page.evaluate("localStorage.clear()")  # the last table's drafts, if any
                page.goto(f"http://127.0.0.1:{self.port}/t/{self.token}")
                settled(page)


def test_two_phones_saving_the_same_deal_store_it_once_every_time(server_process, phone, phone2, phone3, phone4):
    port = server_process.port
    doubles, filled, renumbered, untold = [], [], [], []
    # Two tables raced in turn: one pair's race runs while the other pair's Save buttons rest
    # after their answer (app.js ignores taps on a just-saved form for a second: double taps).
    pairs = [Pair(port, phone, phone2), Pair(port, phone3, phone4)]
    started = time.monotonic()
    for race in range(RACES):
        pair = pairs[race % 2]
        pair.ready()
        number = pair.number
        first, second = (pair.a, pair.b) if race // 2 % 2 == 0 else (pair.b, pair.a)
        gap = GAPS[race // 4 % len(GAPS)]
        for page in (first, second):
            page.wait_for_function(READY, arg=number)
            page.evaluate(TYPE, {k: str(v) for k, v in deal(number).items()})
        when = first.evaluate("Date.now()") + 60
        first.evaluate(TAP_AT, when)
        second.evaluate(TAP_AT, when + gap)

        # Both answered and the push heard on both: nothing more is coming for this race (a
        # phone that shows something else is read as it is, below).
        for page in (first, second):
            settle(page, number + 1, None)
        count, revision = server_state(port, pair.token)
        for page in (first, second):
            settle(page, count + 1, revision)
        where = f"race {race} (deal {number}, {'A' if first is pair.a else 'B'} first, +{gap} ms)"
        if count != number:
            doubles.append(f"{where}: {count} deals stored")
        for name, page in (("A", pair.a), ("B", pair.b)):
            tapped = page.evaluate("window.tapped")
            if tapped != {"number": str(number), "enabled": True}:
                renumbered.append(f"{where}: phone {name} tapped Save on {tapped}")
            if page.locator("form#entry").count() == 0 or not form_is_empty(page):
                filled.append(f"{where}: phone {name}: {page.locator('#entry-wrap').inner_text()[:300]!r}")
        told = [page.locator("#entry-wrap .saved-same").count() for page in (pair.a, pair.b)]
        if sorted(told) != [0, 1]:
            untold.append(f"{where}: 'already recorded' shown on {told}")
        pair.number = count + 1
        if count != number or filled or renumbered:  # the phones no longer fit the table
            pair.number = DEALS_PER_TABLE + 1
    took = time.monotonic() - started
    print(f"{RACES} races in {took:.1f} s: {len(doubles)} doubles, {len(filled)} pre-filled forms,"
          f" {len(renumbered)} renumbered, {len(untold)} not told")
    assert doubles == [], doubles
    assert filled == [], filled
    assert renumbered == [], renumbered
    assert untold == [], untold
    for page in (phone, phone2, phone3, phone4):
        assert page.errors == [], page.errors
