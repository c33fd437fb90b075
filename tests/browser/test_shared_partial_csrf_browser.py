"""A table's live parts are the same bytes for every phone (rendered once per change), so
their forms carry no CSRF token: after another phone's change is pushed in, this phone's
Undo and next Save (forms it never got from the laptop with its own token) still work, with
the page's token (<meta name="csrf-token">, static/csrf.js and htmx's X-CSRFToken)."""

from __future__ import annotations

from helpers import enter_deals
from helpers import Phone

STREAM_OPEN = "() => document.querySelector('#live-stream')?._htmx?.sse?.status === 200"


def test_forms_pushed_in_from_another_phones_change_use_this_pages_token(live_server, phone):
    port = live_server.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(live_server(f"/t/{token}"))
    phone.wait_for_function(STREAM_OPEN)
    enter_deals(port, token, [1, 2])  # another phone (no JavaScript) saves two deals
    phone.wait_for_selector("#deal-2", state="attached", timeout=10000)
    # The swapped-in actions came in the shared partial: an empty token field.
    assert phone.locator("#actions input[name=csrf_token]").first.get_attribute("value") == ""
    phone.locator("#actions button", has_text="Undo deal 2").click()
    phone.wait_for_selector("#deal-2", state="detached", timeout=10000)
    assert "security check failed" not in phone.content()
    with live_server.app.app_context():
        from companion.tables import service as store
        from companion.store import get_db
        assert len(store.load(get_db(), token).deals) == 1
    assert not [e for e in phone.errors if "400" in e], phone.errors
