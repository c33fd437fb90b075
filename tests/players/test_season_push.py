"""The season's pages follow finished matches by push (issue 41), as every live page does:
GET /players/events follows the season's version, which moves with a write that ends, reopens
or changes an ended match, and with who-is-who (a rename, a merge…); a deal of a running match
leaves it alone. The season table and a player's page ask for themselves with ``live=1`` and
the version they show: 204 while it is current."""

from __future__ import annotations

import re

import pytest

from companion.players import service as players
from companion.serving import events
from companion.store import get_db
from companion.tables import service as tables
from companion.topics import SEASON

import table_writes
from helpers import open_event_stream
from table_writes import done

NAMES = ["Ann", "Bo", "Cy", "Dee"]
RWD_DEAL = table_writes.rwd_win(0)  # Ann wins it
PHONE = {"REMOTE_ADDR": "192.168.1.23"}


def open_stream(app, query: str):
    """GET /players/events as the server hands it to the app, from a phone."""
    return open_event_stream(app, "/players/events", query)


def version(app) -> int:
    with app.app_context():
        return players.season_version(get_db())


def almost_over(app) -> tuple[str, int]:
    """A table one deal before its match ends, and that deal's number."""
    with app.app_context():
        conn = get_db()
        token = table_writes.create(conn, "rwd", NAMES, {}, numbered=True)
        last = len(table_writes.play_until_over(conn, token, 0).deals)
        tables.undo_deal(conn, token, last)
    return token, last


@pytest.fixture
def quick_gap(monkeypatch):
    monkeypatch.setitem(events.GAP_S, SEASON, 0.01)


def test_the_season_stream_says_changed_when_a_match_ends_not_for_a_running_deal(app, quick_gap, monkeypatch):
    monkeypatch.setattr(app.extensions["event_streams"], "heartbeat", 0.2)  # a ping soon after the running deal
    token, last = almost_over(app)
    with app.app_context():
        running = table_writes.create(get_db(), "rwd", NAMES, {}, numbered=True)
    shown = version(app)
    answered, body = open_stream(app, f"rev={shown}")
    assert answered["status"] == "200 OK", answered
    chunks = iter(body)
    try:
        assert b"event: hello" in next(chunks)
        with app.app_context():
            table_writes.add_deal(get_db(), running, 1, RWD_DEAL)  # a running match: not the season's
        assert next(chunks) == b"event: ping\ndata:\n\n"
        with app.app_context():
            tables.enter_deal(get_db(), token, last, RWD_DEAL)  # the deal that ends the match
        changed = next(chunks)
        assert changed == f"event: changed\nid: {version(app)}\ndata: {version(app)}\n\n".encode()
        assert version(app) > shown
        with app.app_context():
            players.refresh(get_db())
            ann = players.player_of_name(get_db(), "Ann")
            done(players.rename(get_db(), ann.id, "Anne"))  # who is who
        assert next(chunks).startswith(f"event: changed\nid: {version(app)}\n".encode())
    finally:
        body.close()


def test_a_season_page_opened_before_a_match_ended_catches_up_when_its_stream_opens(app, quick_gap):
    token, last = almost_over(app)
    shown = version(app)
    with app.app_context():
        tables.enter_deal(get_db(), token, last, RWD_DEAL)
    answered, body = open_stream(app, f"rev={shown}")
    chunks = iter(body)
    try:
        next(chunks)  # hello
        assert next(chunks).startswith(f"event: changed\nid: {version(app)}\n".encode())
    finally:
        body.close()


def test_the_season_pages_answer_their_live_ask_204_until_a_match_ends(app, client):
    token, last = almost_over(app)
    page = client.get("/season", environ_base=PHONE).get_data(as_text=True)
    shown = re.search(r'id="season-live" data-live data-rev="(\d+)"', page).group(1)
    assert f'/players/events?rev={shown}"' in page  # its stream catches up from there
    asked = re.search(r'hx-get="([^"]+)"', page[page.index('id="season-live"'):]).group(1).replace("&amp;", "&")
    assert f"rev={shown}" in asked and "live=1" in asked
    assert client.get(asked, environ_base=PHONE).status_code == 204
    with app.app_context():
        tables.enter_deal(get_db(), token, last, RWD_DEAL)
    answer = client.get(asked, environ_base=PHONE)
    assert answer.status_code == 200
    assert f'data-rev="{version(app)}"' in answer.get_data(as_text=True) and "Ann" in answer.get_data(as_text=True)
    with app.app_context():
        ann = players.player_of_name(get_db(), "Ann")
    mine = client.get(f"/players/{ann.id}", environ_base=PHONE).get_data(as_text=True)
    assert f'data-rev="{version(app)}"' in mine
    assert client.get(f"/players/{ann.id}?live=1&rev={version(app)}", environ_base=PHONE).status_code == 204
    assert client.get(f"/players/{ann.id}?live=1&rev={int(shown)}", environ_base=PHONE).status_code == 200
