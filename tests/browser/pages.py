"""Small helpers shared by the browser tests."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


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
