"""Small helpers shared by the browser tests."""

from __future__ import annotations


def settled(page) -> None:
    """Loaded, with the live region running. Table pages hold an event stream, so the
    network never goes idle there: wait for htmx to have taken over the live region."""
    page.wait_for_load_state("load")
    page.wait_for_function("() => !document.querySelector('#live') || "
                           "document.querySelector('#live').hasAttribute('data-htmx-powered')")
    page.wait_for_timeout(300)


def put(page, name: str, value) -> None:
    """Set one deal field as a person would: tap its value in a tap row, or type into a box."""
    radio = page.locator(f'#entry input[type=radio][name="{name}"][value="{value}"]')
    if radio.count():
        page.locator(f'#entry label:has(> input[type=radio][name="{name}"][value="{value}"])').first.tap()
    else:
        page.locator(f'#entry [name="{name}"]').fill(str(value))
