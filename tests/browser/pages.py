"""Small helpers shared by the browser tests."""

from __future__ import annotations


def settled(page) -> None:
    """Loaded, with the live region running. Table pages hold an event stream, so the
    network never goes idle there: wait for htmx to have taken over the live region."""
    page.wait_for_load_state("load")
    page.wait_for_function("() => !document.querySelector('#live') || "
                           "document.querySelector('#live').hasAttribute('data-htmx-powered')")
    page.wait_for_timeout(300)
