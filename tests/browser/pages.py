"""Small helpers shared by the browser tests."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from typing import Iterator

# The browser contexts of the phone and laptop fixtures (tests/browser/conftest.py).
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
             has_touch=True, locale="en-US")
LAPTOP = dict(viewport={"width": 1280, "height": 800}, locale="en-US")
TIMEOUT_MS = 10_000
SEATED_NAMES = ["Aiko", "Ben", "Chiyo", "Daisuke", "Emi", "Fumi"]  # open_table's players


def settled(page) -> None:
    """Loaded, with the live region running. Table pages hold an event stream, so the
    network never goes idle there: wait for htmx to have taken over the live region."""
    page.wait_for_load_state("load")
    page.wait_for_function("() => !document.querySelector('#live') || "
                           "document.querySelector('#live').hasAttribute('data-htmx-powered')")
    page.wait_for_timeout(300)


@contextmanager
def next_document(page) -> Iterator[None]:
    """Around an action after which the page loads a new document, wait until that document has
    fired its load event (parsed, its deferred scripts run), so that what is read next is read
    there. For static/outbox.js's plain forms under /t/<token>/ (undo, finish, reopen, a
    correction): it sends the form with fetch, then goes to the table with location.assign, or,
    when that is the page it is on, with history.replaceState and location.reload. Not
    expect_navigation: that replaceState is a navigation within the document, which ends
    expect_navigation's wait at once (the old document is loaded), and a read then races the
    reload ("Execution context was destroyed"). Only a new document fires "load"."""
    with page.expect_event("load"):
        yield


def put(page, name: str, value) -> None:
    """Set one deal field as a person would: tap its value in a tap row, or type into a box."""
    radio = page.locator(f'#entry input[type=radio][name="{name}"][value="{value}"]')
    if radio.count():
        page.locator(f'#entry label:has(> input[type=radio][name="{name}"][value="{value}"])').first.tap()
    else:
        page.locator(f'#entry [name="{name}"]').fill(str(value))


def open_table(page, live_server, game: str, n: int) -> str:
    """``page`` opens a table of ``game`` for ``n`` players (Aiko, Ben…) through the form; its URL."""
    page.goto(live_server(f"/tables/new?game={game}&players={n}"))
    for seat in range(n):
        page.locator(f"#f-name-{seat}").fill(SEATED_NAMES[seat])
    page.locator("main form button[type=submit]").last.click()
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]{16,}$"))
    settled(page)
    return page.url


def save(page) -> None:
    """Tap Save; return once the laptop answered 200 (not waiting for the page to show it)."""
    with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as info:
        page.locator("#entry button[type=submit]").tap()
    assert info.value.status == 200


# The Save's answer is shown: htmx put it in place of the whole #entry-wrap the Save was tapped
# in, and app.js has set up the new form, if the answer has one (on htmx's after:swap).
ANSWER_SHOWN = """wrap => {
    if (wrap.isConnected) return false;
    const form = document.querySelector('form#entry[data-table]');
    return !form || form.dataset.ready === '1';
}"""


def save_shown(page, status: int = 200) -> None:
    """Tap Save; return once the laptop's answer is on the page (the response alone comes
    before htmx has put it there)."""
    wrap = page.locator("#entry-wrap").element_handle()
    with page.expect_response(lambda r: r.url.endswith("/deals") and r.request.method == "POST") as info:
        page.locator("#entry button[type=submit]").tap()
    assert info.value.status == status
    page.wait_for_function(ANSWER_SHOWN, arg=wrap)


def wait_until(check, what: str, within: float = 10.0):
    """``check()`` until it gives something true (a state the server reaches); its value. For
    what a page can't wait on itself: the store, another server, a phone's stream."""
    deadline = time.monotonic() + within
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"not within {within} s: {what}"
        time.sleep(0.05)
