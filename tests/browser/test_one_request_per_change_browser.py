"""One request per phone per change: a phone watching its table (its event stream open)
fetches exactly its own partial for each deal another phone saves. The stream stays open
across changes (it is not inside the swapped live region), and no "has it changed?" check
follows the update. Against the real `companion serve` (gevent)."""

from __future__ import annotations

from helpers import Phone, enter_deals, rwd_form  # noqa: E402

# The element holding the page's stream, wherever the markup puts it.
STREAM_OPEN = "() => document.querySelector('[hx-sse\\\\:connect]')?._htmx?.sse?.status === 200"
DEALS = 8


def test_a_watching_phone_makes_one_request_per_change(server_process, phone):
    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(f"http://127.0.0.1:{port}/t/{token}")
    phone.wait_for_function(STREAM_OPEN)
    answered: list[tuple[str, int]] = []
    phone.on("response", lambda response: answered.append((response.url, response.status))
             if "/static/" not in response.url else None)
    asked: list[str] = []
    # Not counted: static files, and static/outbox.js's reachability check (/healthz), which
    # is about the laptop being there, not about a change (it runs whatever the table does).
    phone.on("request", lambda request: asked.append(request.url)
             if "/static/" not in request.url and not request.url.endswith("/healthz") else None)

    for number in range(1, DEALS + 1):
        enter_deals(port, token, [number])  # saved by another phone
        phone.wait_for_selector(f"#deal-{number}", state="attached", timeout=5000)
        # The update is in; anything it sets off (a check, a new stream) starts at once.
        phone.wait_for_function("n => document.querySelector('#live')?.dataset.rev == n", arg=number)
    # Requests the last update would set off are asked within a moment: wait for them (bounded).
    phone.wait_for_timeout(1500)

    partials = [url for url, status in answered if "/live?" in url and status == 200]
    checks = [url for url, status in answered if "/live?" in url and status != 200]
    streams = [url for url in asked if "/events" in url]
    assert len(partials) == DEALS, answered
    assert checks == [], checks
    assert streams == [], streams
    assert len(asked) == DEALS, "\n".join(asked)  # and nothing else
    # The one stream the page opened is still the one open.
    assert phone.evaluate(STREAM_OPEN)


def followed(phone, part: str) -> tuple[list[str], list[tuple[str, int]]]:
    """From now on, the phone's requests (static files and static/outbox.js's reachability
    check, /healthz, left out: that is about the laptop being there, not a change) and the
    answers to those whose URL holds ``part`` (url, status)."""
    asked: list[str] = []
    phone.on("request", lambda request: asked.append(request.url)
             if "/static/" not in request.url and not request.url.endswith("/healthz") else None)
    answered: list[tuple[str, int]] = []
    phone.on("response", lambda response: answered.append((response.url, response.status))
             if part in response.url else None)
    return asked, answered


NIGHT_CHANGES = 4
NIGHT_GAP_S = 2.5  # past a phone's night page's own gap (poll_ms, 2 s): each change its own ask


def test_a_phone_watching_its_night_makes_one_request_per_change(server_process, phone):
    """The night's pages follow their stream as a table's page does (issue 41): a phone on its
    night page asks once per change it is told of (its live part, 200), nothing else, and
    nothing while nothing changes."""
    port = server_process.port
    base = f"http://127.0.0.1:{port}"
    phone.goto(f"{base}/night")
    phone.fill("#f-name", "Ann")
    phone.get_by_role("button", name="Join", exact=True).tap()
    phone.wait_for_url(f"{base}/night/me")
    laptop = Phone(port)
    for name in ("Bob", "Cy", "Di"):
        assert laptop.request("POST", "/hall/players", {"csrf_token": laptop.csrf("/hall"), "name": name})[0] == 303
    assert laptop.request("POST", "/hall/rounds", {"csrf_token": laptop.csrf("/hall"), "draw": "1",
                                                   "tables-rwd": "1"})[0] == 303
    mine = phone.locator("#open-my-table")
    mine.wait_for(timeout=10_000)  # the draw reached the phone by push
    token = mine.get_attribute("href").rsplit("/", 1)[-1]
    phone.wait_for_timeout(NIGHT_GAP_S * 1000)  # whatever the draw set off is over
    asked, answered = followed(phone, "/night/me/live")
    phone.wait_for_timeout(NIGHT_GAP_S * 1000)
    assert asked == [], asked  # nothing changes: nothing asked
    for number in range(1, NIGHT_CHANGES + 1):
        enter_deals(port, token, [number])  # saved at Ann's table by another phone
        phone.wait_for_timeout(NIGHT_GAP_S * 1000)
    assert [status for _url, status in answered] == [200] * NIGHT_CHANGES, answered
    assert len(asked) == NIGHT_CHANGES, "\n".join(asked)  # and nothing else


def match_over(database, token: str) -> bool:
    """Is the table's match over, as the laptop's store and rules say?"""
    from companion import store
    from companion.tables import service as tables

    conn = store.connect(str(database))
    try:
        return tables.load(conn, token).match().over
    finally:
        conn.close()


def test_a_phone_on_the_season_table_asks_once_when_a_match_ends(server_process, phone):
    """The season's pages follow finished matches by push (issue 41): a phone on /season asks
    nothing while a match runs, once when it ends (its row appears without a reload), and
    nothing more."""
    port = server_process.port
    base = f"http://127.0.0.1:{port}"
    other = Phone(port)
    token = other.create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    phone.goto(f"{base}/season")
    phone.wait_for_function(STREAM_OPEN)
    phone.evaluate("() => { window.sameDocument = true; }")
    asked, answered = followed(phone, "/season?")
    csrf = other.csrf(f"/t/{token}")
    number, over = 0, False
    while not over:  # Ann wins every deal: the match ends after a few
        number += 1
        status, _headers, _body = other.request("POST", f"/t/{token}/deals",
                                                rwd_form(csrf, number, [3, 3, 3, 4], [7, 2, 2, 2]))
        assert status == 303
        over = match_over(server_process.db, token)
        if not over:
            phone.wait_for_timeout(700)  # past the season stream's gap: an ask would be under way
            assert asked == [], (number, asked)  # a running match is not the season's
        assert number < 20
    phone.locator("#season-live").get_by_text("Ann").first.wait_for(timeout=5000)
    phone.wait_for_timeout(1500)  # anything else the change set off is asked by now
    assert [status for _url, status in answered] == [200], answered
    assert len(asked) == 1, asked
    assert phone.evaluate("() => window.sameDocument") is True  # swapped in place, no reload
