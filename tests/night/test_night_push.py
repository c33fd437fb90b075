"""The night's pages are pushed, not polled (issue 33): GET /night/events is the night's event
stream, held outside Flask like a table's; it says "hello" when opened, "changed" once the
night or any table has changed (a run of saves at once is one "changed", NIGHT_GAP_S apart),
"ping" while nothing does; the players' season is none of its business. The pages then ask
for their part with the night's signature (tests/night/test_projector.py: 204 until changed)."""

from __future__ import annotations

import threading
from io import BytesIO

import pytest

from companion import changes
from companion.changes import Change
from companion.night import service as night
from companion.serving import events
from companion.store import get_db

from .screen_night import draw, join_everyone, play


def open_stream(app, address: str = "192.168.1.23"):
    """GET /night/events as the server hands it to the app: (status, headers, body iterator)."""
    answered = {}

    def start_response(status, headers):
        answered.update(status=status, headers=dict(headers))

    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/night/events", "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
               "SERVER_PORT": "80", "HTTP_HOST": "127.0.0.1", "REMOTE_ADDR": address, "wsgi.url_scheme": "http",
               "wsgi.input": BytesIO(b""), "wsgi.errors": BytesIO()}
    body = app.wsgi_app(environ, start_response)
    return answered, body


@pytest.fixture
def quick_gap(monkeypatch):
    monkeypatch.setattr(events, "NIGHT_GAP_S", 0.01)


def test_the_stream_says_hello_then_changed_for_a_table_or_the_night_never_for_the_season(app, quick_gap):
    answered, body = open_stream(app)
    assert answered["status"] == "200 OK"
    assert answered["headers"]["Content-Type"].startswith("text/event-stream")
    assert "Set-Cookie" not in answered["headers"]  # never Flask's: no session, no request context
    chunks = iter(body)
    try:
        assert b"event: hello" in next(chunks)
        watch = app.extensions["night_watch"]
        assert watch.streams == 1
        changes.publish(Change("players"))  # the season's stored results: not the night's
        changes.publish(Change("table", "some-token", 4))
        assert next(chunks).startswith(b"event: changed\n")
        with app.app_context():
            join_everyone(get_db(), ["Ann", "Bo", "Cy", "Di"])  # the roster: the night's own writes
        assert next(chunks).startswith(b"event: changed\n")
    finally:
        body.close()
    assert app.extensions["night_watch"].streams == 0


def test_a_run_of_saves_is_one_changed(app, monkeypatch):
    monkeypatch.setattr(events, "NIGHT_GAP_S", 0.3)
    answered, body = open_stream(app)
    chunks = iter(body)
    try:
        next(chunks)  # hello
        changes.publish(Change("table", "a", 1))
        first = next(chunks)
        for revision in range(2, 12):  # ten more saves while the first "changed" is on its way
            changes.publish(Change("table", "a", revision))
        second = next(chunks)
        assert first.startswith(b"event: changed\n") and second.startswith(b"event: changed\n")
        assert int(second.split(b"data: ")[1]) - int(first.split(b"data: ")[1]) == 10  # one event for ten
    finally:
        body.close()


def test_a_quiet_night_is_a_ping_now_and_then():
    watch = events.NightWatch()
    layer = events.TableEvents(lambda environ, start: [b""], None, [], None, heartbeat=0.05, night=watch)
    stream = layer.night_stream(watch, events.StreamHandle())
    assert b"event: hello" in next(stream)
    assert next(stream) == b"event: ping\ndata:\n\n"
    watch.close()


def test_a_waiting_stream_is_woken_by_the_write_itself(app):
    watch = app.extensions["night_watch"]
    shown = watch.count
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(watch.wait(shown, 10)))
    waiter.start()
    with app.app_context():
        conn = get_db()
        join_everyone(conn, ["Ann", "Bo", "Cy", "Di"])
        play(conn, draw(conn, tables=1).tables[0])
    waiter.join(5)
    assert not waiter.is_alive() and woke and woke[0] > shown


def test_the_night_pages_ask_on_push_not_on_a_timer(client, conn):
    join_everyone(conn, ["Ann", "Bo", "Cy", "Di"])
    draw(conn, tables=1)
    hall = client.get("/hall").get_data(as_text=True)
    screen = client.get("/hall/screen").get_data(as_text=True)
    for page in (hall, screen):
        assert 'data-stream="/night/events"' in page and "data-night-live" in page
        assert 'hx-trigger="every' not in page
    phone = client.get("/night/me")  # this test client is no player: it is sent to join first
    assert phone.status_code == 303
    night.join(conn, "Eve")
    client.post("/night/join", data={"name": "Eve"})
    me = client.get("/night/me").get_data(as_text=True)
    assert 'data-stream="/night/events"' in me and 'hx-trigger="changed"' in me and 'hx-trigger="every' not in me
