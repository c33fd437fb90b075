"""The night's pages are pushed, not polled (issue 33), as every live page (issue 41): GET
/night/events is the night's event stream, held outside Flask like a table's, following the
night's signature as a table's follows its revision; it says "hello" when opened, "changed"
with the signature once the night or any table of it has changed (a run of saves at once is
one "changed", GAP_S apart), "ping" while nothing does; the players' season is none of its
business. It catches up from the signature the page shows. The pages then ask for their part
with the signature they show (tests/night/test_projector.py: 204 until changed)."""

from __future__ import annotations

import threading

import pytest

from companion import changes
from companion.changes import Change
from companion.night import service as night
from companion.serving import events
from companion.topics import NIGHT
from companion.store import get_db

from helpers import open_event_stream

from .screen_night import draw, join_everyone, play
from table_writes import done


def open_stream(app, query: str = ""):
    """GET /night/events as the server hands it to the app, from a phone."""
    return open_event_stream(app, "/night/events", query)


@pytest.fixture
def quick_gap(monkeypatch):
    monkeypatch.setitem(events.GAP_S, NIGHT, 0.01)


def signature(app) -> str:
    with app.app_context():
        return night.night_signature(get_db())


def data_of(chunk: bytes) -> str:
    return chunk.split(b"data: ")[1].split(b"\n")[0].decode()


def test_the_stream_says_hello_then_changed_for_a_table_or_the_night_never_for_the_season(app, quick_gap):
    with app.app_context():
        conn = get_db()
        join_everyone(conn, ["Ann", "Bo", "Cy", "Di"])
        round_ = draw(conn, tables=1)
    answered, body = open_stream(app, query=f"rev={signature(app)}")
    assert answered["status"] == "200 OK"
    assert answered["headers"]["Content-Type"].startswith("text/event-stream")
    assert "Set-Cookie" not in answered["headers"]  # never Flask's: no session, no request context
    chunks = iter(body)
    try:
        assert b"event: hello" in next(chunks)
        assert app.extensions["event_streams"].open_by_topic == {NIGHT: 1}
        changes.publish(Change("players", "", 7))  # the season's: not the night's
        with app.app_context():
            play(get_db(), round_.tables[0])  # a table of the night: its deals
        changed = next(chunks)
        assert changed.startswith(b"event: changed\n") and data_of(changed) == signature(app)
        with app.app_context():
            done(night.join(get_db(), "Eve"))  # the roster: the night's own writes
        changed = next(chunks)
        assert changed.startswith(b"event: changed\n") and data_of(changed) == signature(app)
    finally:
        body.close()
    assert app.extensions["event_streams"].open_by_topic == {}


def test_a_page_drawn_before_a_change_catches_up_when_its_stream_opens(app, quick_gap):
    shown = signature(app)
    with app.app_context():
        join_everyone(get_db(), ["Ann", "Bo"])
    answered, body = open_stream(app, query=f"rev={shown}")
    chunks = iter(body)
    try:
        assert b"event: hello" in next(chunks)
        changed = next(chunks)
        assert changed.startswith(b"event: changed\n") and data_of(changed) == signature(app) != shown
    finally:
        body.close()


def test_a_run_of_saves_is_one_changed(app, monkeypatch):
    monkeypatch.setitem(events.GAP_S, NIGHT, 0.5)
    with app.app_context():
        conn = get_db()
        join_everyone(conn, ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"])
    answered, body = open_stream(app, query=f"rev={signature(app)}")
    chunks = iter(body)
    try:
        next(chunks)  # hello
        with app.app_context():
            done(night.join(get_db(), "Ida"))
        first = next(chunks)
        with app.app_context():
            for name in ("Jo", "Kai", "Lu", "Max", "Ned"):  # more saves while the first "changed" is on its way
                done(night.join(get_db(), name))
        second = next(chunks)
        assert first.startswith(b"event: changed\n") and second.startswith(b"event: changed\n")
        assert data_of(second) == signature(app)  # one event for the five
    finally:
        body.close()


class StillRevisions:
    """The store's versions, never moving."""

    def of(self, topic):
        return "1-2-3"

    def of_many(self, topics):
        return {topic: "1-2-3" for topic in topics}


def test_a_quiet_night_is_a_ping_now_and_then():
    watch = events.Watch(StillRevisions())
    layer = events.EventStreams(lambda environ, start: [b""], watch, [], None, heartbeat=0.05)
    current = watch.watch(NIGHT)
    stream = layer.stream(NIGHT, "1-2-3", current, events.StreamHandle())
    assert b"event: hello" in next(stream)
    assert next(stream) == b"event: ping\ndata:\n\n"
    watch.close()


def test_a_waiting_stream_is_woken_by_the_write_itself(app):
    watch = app.extensions["watch"]
    shown = watch.watch(NIGHT)
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(watch.wait(NIGHT, str(shown), 10)))
    waiter.start()
    try:
        with app.app_context():
            conn = get_db()
            join_everyone(conn, ["Ann", "Bo", "Cy", "Di"])
        waiter.join(5)
        assert not waiter.is_alive() and woke and woke[0] != shown
    finally:
        watch.unwatch(NIGHT)
