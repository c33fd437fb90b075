"""Prepared tables on the hall (issue 25): their cards refuse codes phones can't open when serving
on loopback; a new night names the matches still in play and asks before leaving them out; the
cycling mode skips tables still waiting; a prepared table's player count can change until its
first deal. Once test_night_fixes.py."""

from __future__ import annotations

import re

from companion.night import service as night
from companion.tables import service as store
from companion.store import connect
from helpers import text_of
import table_writes

TOKEN = re.compile(r"/t/([A-Za-z0-9_-]{16,})/seat")
PHONE = {"REMOTE_ADDR": "192.168.1.23"}


def prepare(client, game="rwd", players=4, count=2):
    assert client.post("/hall/prepare", data={"game": game, "players": str(players),
                                              "count": str(count)}).status_code == 303
    return TOKEN.findall(client.get("/hall").get_data(as_text=True))


def seat(client, token, names):
    return client.post(f"/t/{token}/players", data={**{f"name-{i}": n for i, n in enumerate(names)},
                                                    "players": str(len(names)), "first_start_player": "0"})


def test_cards_refuse_codes_when_serving_on_loopback(app, client):
    prepare(client)
    app.config["JOIN_URL"] = "http://127.0.0.1:8000/"
    page = client.get("/hall/cards").get_data(as_text=True)
    assert "works only on the laptop itself" in page and "<svg" not in page
    assert "127.0.0.1:8000/t/" not in page and text_of(page).count("No code:") == 2
    app.config["JOIN_URL"] = "http://192.168.1.20:8000/"
    page = client.get("/hall/cards").get_data(as_text=True)
    assert page.count('<svg role="img"') == 2 and "works only on the laptop itself" not in page


def test_a_new_night_names_unfinished_matches_and_asks(app, client):
    tokens = prepare(client)
    seat(client, tokens[0], ["Ann", "Bob", "Cy", "Di"])
    confirm = text_of(client.get("/hall/new-night").get_data(as_text=True))
    assert "1 match is still being played" in confirm and "Ann, Bob, Cy, Di" in confirm
    refused = client.post("/hall/nights", data={})
    assert refused.status_code == 422
    assert "Choose what happens to the matches still being played" in text_of(refused.get_data(as_text=True))
    conn = connect(app.config["DATABASE"])
    try:
        assert len(night.night_tables(conn)) == 2  # still tonight's
        assert client.post("/hall/nights", data={"unfinished": "leave"}).status_code == 303
        assert night.night_tables(conn) == []
    finally:
        conn.close()
    assert client.get(f"/t/{tokens[0]}", environ_base=PHONE).status_code == 200  # still playable


def test_cycle_skips_tables_waiting_for_players(client):
    tokens = prepare(client, count=3)
    seat(client, tokens[1], ["Ann", "Bob", "Cy", "Di"])
    seen, after = [], None
    for _ in range(3):
        page = client.get("/hall/cycle" + (f"?after={after}" if after else "")).get_data(as_text=True)
        seen.append(re.search(r'class="hall-label">([^<]+)<', page).group(1))
        after = re.search(r'/hall/cycle\?after=(\d+)', page).group(1)
    assert seen == ["Table 2", "Table 2", "Table 2"]
    first = client.get("/hall?cycle=1").get_data(as_text=True)
    assert re.search(r'class="hall-label">([^<]+)<', first.split('id="cycle"')[1]).group(1) == "Table 2"


def test_a_prepared_table_seats_another_count(app, client):
    (token,) = prepare(client, count=1)
    form = client.get(f"/t/{token}/seat?players=5", environ_base=PHONE).get_data(as_text=True)
    assert 'id="f-name-4"' in form and f'href="/t/{token}/seat?players=4"' in form
    assert seat(client, token, ["Ann", "Bob", "Cy", "Di", "Eve"]).status_code == 303
    conn = connect(app.config["DATABASE"])
    try:
        assert store.load(conn, token).setup.players == ("Ann", "Bob", "Cy", "Di", "Eve")
    finally:
        conn.close()


def test_a_seated_table_goes_back_to_waiting_until_its_first_deal(app, client):
    tokens = prepare(client, count=2)
    seat(client, tokens[0], ["Ann", "Bob", "Cy", "Di"])
    seat(client, tokens[1], ["Eve", "Fay", "Gus", "Hal"])
    conn = connect(app.config["DATABASE"])
    try:
        first, second = night.night_tables(conn)
        table_writes.add_deal(conn, second.token, 1, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
        assert client.post(f"/hall/tables/{first.id}/unseat").status_code == 303
        assert not store.load(conn, first.token).seated
        assert seat(client, first.token, ["Ann", "Bob", "Cy", "Di", "Eve"]).status_code == 303
        assert store.load(conn, first.token).setup.n == 5
        refused = client.post(f"/hall/tables/{second.id}/unseat")
        assert refused.status_code == 409 and "has a deal recorded" in text_of(refused.get_data(as_text=True))
        assert store.load(conn, second.token).seated
    finally:
        conn.close()
    assert client.post(f"/hall/tables/{first.id}/unseat", environ_base=PHONE).status_code == 403
