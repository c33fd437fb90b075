"""Push in a real browser against the real `companion serve` (gevent): the page's event
stream brings a change without polling, survives the server being killed, and a removed
table's page says so and stops asking."""

from __future__ import annotations

import sys
import time

import pytest
from playwright.sync_api import expect

from helpers import Phone, enter_deals  # noqa: E402

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")

STREAM_OPEN = "() => document.querySelector('#live-stream')?._htmx?.sse?.status === 200"


def watch_requests(page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url) if "/static/" not in request.url else None)
    return seen


@posix_only
def test_page_follows_changes_pushed_and_after_the_server_is_killed(server_process, phone):
    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(f"http://127.0.0.1:{port}/t/{token}")
    phone.wait_for_function(STREAM_OPEN)
    # After a drop the stream retries at most 5 s apart (hx-sse's own cap is 60 s).
    assert phone.evaluate("document.querySelector('#live-stream')._htmx.sse.config.reconnectMaxDelay") == 5000
    requests = watch_requests(phone)

    enter_deals(port, token, [1])
    phone.wait_for_selector("#deal-1", timeout=3000)  # pushed: no poll would come within 30 s
    assert not any("/events" in url and "rev=0" in url for url in requests[1:])

    server_process.kill()
    time.sleep(1)  # the page notices and retries
    server_process.start(port=port)
    enter_deals(port, token, [2, 3])
    phone.wait_for_selector("#deal-3", timeout=15000)  # reconnected, caught up on both at once
    assert phone.locator("#deal-2").count() == 1
    # while the server was down: failed fetches, logged by the browser and by htmx; nothing else
    unexpected = [e for e in phone.errors if not any(k in e for k in ("Failed to load resource", "net::", "htmx:"))]
    assert unexpected == [], phone.errors


def test_idle_page_makes_no_requests_and_a_removed_table_stops_asking(live_server, phone):
    port = live_server.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(live_server(f"/t/{token}"))
    phone.wait_for_function(STREAM_OPEN)
    requests = watch_requests(phone)
    phone.wait_for_timeout(3000)
    assert requests == [], requests  # the stream is held; nothing is asked while nothing changes

    with live_server.app.app_context():
        from companion.store import get_db
        db = get_db()
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("DELETE FROM tables WHERE token = ?", (token,))
        db.commit() if db.in_transaction else None
    # As a service removing a table would, once committed, announce it (companion/changes.py):
    # the stream learns it is gone; the page fetches, gets the notice, and has nothing left to ask with
    from companion.changes import Change, publish
    publish(Change("table", token))
    phone.wait_for_selector("#live[role=alert]", timeout=5000)
    assert "no longer on the host laptop" in phone.locator("#live").inner_text()
    asked = len(requests)
    phone.wait_for_timeout(3000)
    assert len(requests) == asked, requests[asked:]


def test_page_falls_back_to_polling_where_no_stream_gets_through(live_server, phone):
    """A proxy or network that never lets the stream through: after a silence (45 s; 1 s here)
    the page asks every 5 s (0.5 s here), long before the region's own 30 s fallback."""
    port = live_server.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.route("**/events?*", lambda route: route.abort())
    phone.add_init_script("window.liveSilenceMs = 1000; window.livePollMs = 500;")
    phone.goto(live_server(f"/t/{token}"))
    phone.wait_for_timeout(1500)
    enter_deals(port, token, [1])
    phone.wait_for_selector("#deal-1", state="attached", timeout=5000)


def test_a_table_that_went_back_is_shown_as_the_laptop_has_it(live_server, phone):
    """A live answer older than what the page shows is dropped only when it was asked before the
    page moved on (static/live.js). One older than the revision it was asked from is the laptop's
    truth (a database restored from a backup, here a replayed answer): it is shown."""
    port = live_server.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(live_server(f"/t/{token}"))
    phone.wait_for_function(STREAM_OPEN)
    before = phone.request.get(live_server(f"/t/{token}/live"))  # the table at revision 0
    assert before.status == 200 and 'data-rev="0"' in before.text()
    enter_deals(port, token, [1])
    phone.wait_for_selector("#deal-1", timeout=5000)

    asked = []
    phone.route(lambda url: f"/t/{token}/live" in url,
                lambda route: (asked.append(route.request.url), route.fulfill(response=before)))
    enter_deals(port, token, [2])  # the stream says "changed"; the laptop answers with revision 0
    expect(phone.locator("#live")).to_have_attribute("data-rev", "0", timeout=5000)
    assert "rev=1" in asked[0], asked
    expect(phone.locator("#deal-1")).to_have_count(0)


def test_a_live_fetch_that_fails_is_asked_again_with_backoff_not_at_once(live_server, phone):
    """The laptop busy (503): the region asks again 4, then 8 s later (static/live.js), never in a
    loop; once answers come, the change is shown without another one."""
    port = live_server.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(live_server(f"/t/{token}"))
    phone.wait_for_function(STREAM_OPEN)
    asked = []
    busy = lambda url: f"/t/{token}/live" in url  # noqa: E731
    phone.route(busy, lambda route: (asked.append(time.monotonic()), route.fulfill(status=503, body="busy")))
    enter_deals(port, token, [1])
    phone.wait_for_timeout(5000)
    assert 1 <= len(asked) <= 3, [round(t - asked[0], 2) for t in asked]
    phone.unroute(busy)
    phone.wait_for_selector("#deal-1", timeout=15000)
