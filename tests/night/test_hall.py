"""A meetup night: prepared tables, the hall view, table cards and the night's exports,
all refused to any device but the laptop."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from companion.night import service as night
from companion.tables import service as store
from companion.store import connect
from .screen_night import draw, join_everyone, played_round

PHONE_ON_WIFI = {"REMOTE_ADDR": "192.168.1.23"}
TOKEN = re.compile(r"/t/([A-Za-z0-9_-]{16,})/seat")


def prepare(client, game="rwd", players=4, count=3, label=""):
    response = client.post("/hall/prepare", data={"game": game, "players": str(players),
                                                  "count": str(count), "label": label})
    assert response.status_code == 303, response.data[:500]
    return TOKEN.findall(client.get("/hall").get_data(as_text=True))


def seat(client, token, names, **options):
    data = {f"name-{i}": name for i, name in enumerate(names)}
    data.update({k: str(v) for k, v in options.items()})
    return client.post(f"/t/{token}/players", data=data)


def rwd_deal(client, token, number, winner=0):
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return client.post(f"/t/{token}/deals", data={"number": str(number), "chips-0": "3", "chips-1": "3",
                                                  "chips-2": "3", "chips-3": "4",
                                                  **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}})


@pytest.mark.parametrize("path", ["/hall", "/hall/board", "/hall/cycle", "/hall/cards", "/hall/new-night",
                                  "/hall/export.csv", "/hall/export.json"])
def test_every_hall_page_is_refused_to_other_devices(client, path):
    refused = client.get(path, environ_base=PHONE_ON_WIFI)
    assert refused.status_code == 403
    assert "only on the host laptop" in refused.get_data(as_text=True)
    assert client.get(path).status_code in (200, 204)


def test_hall_posts_are_refused_to_other_devices(client, app):
    for path, data in (("/hall/prepare", {"game": "rwd", "players": "4", "count": "2"}), ("/hall/nights", {})):
        assert client.post(path, data=data, environ_base=PHONE_ON_WIFI).status_code == 403
    with app.app_context():
        conn = connect(app.config["DATABASE"])
        assert conn.execute("SELECT count(*) FROM tables").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM nights").fetchone()[0] == 0


def test_prepared_tables_are_labelled_and_wait_for_their_players(client, app):
    tokens = prepare(client, "twin_shoot", 4, 3)
    assert len(tokens) == 3
    page = client.get("/hall").get_data(as_text=True)
    for n in (1, 2, 3):
        assert f"Table {n}" in page
    assert page.count("Waiting for 4 players") == 3
    # Numbering continues within the night, with the organiser's own label.
    more = prepare(client, "lucky_cube", 3, 2, label="Cube {n}")
    assert len(more) == 5
    page = client.get("/hall").get_data(as_text=True)
    assert "Cube 4" in page and "Cube 5" in page
    # A phone opening a prepared table is asked for the players, in seat order.
    first = client.get(f"/t/{tokens[0]}", environ_base=PHONE_ON_WIFI)
    assert first.status_code == 303 and first.headers["Location"].endswith(f"/t/{tokens[0]}/seat")
    form = client.get(f"/t/{tokens[0]}/seat", environ_base=PHONE_ON_WIFI).get_data(as_text=True)
    assert "Table 1" in form and 'id="f-name-3"' in form and 'id="f-name-4"' not in form


def test_first_phone_seats_the_table_then_it_plays_as_any_table(client, app):
    token = prepare(client, "rwd", 4, 1)[0]
    # A deal can't be entered before the players are known.
    assert rwd_deal(client, token, 1).status_code == 409
    refused = seat(client, token, ["Ann", "", "Cy", "Di"], first_start_player=0)
    assert refused.status_code == 422
    text = refused.get_data(as_text=True)
    assert "Seat 2: enter a name." in text and 'value="Ann"' in text  # nothing typed is lost
    ok = seat(client, token, ["Ann", "Bob", "Cy", "Di"], first_start_player=2)
    assert ok.status_code == 303 and ok.headers["Location"].endswith(f"/t/{token}")
    # The second phone, a moment later, is simply sent to the table: players are not replaced.
    late = seat(client, token, ["W", "X", "Y", "Z"], first_start_player=0)
    assert late.status_code == 303
    with app.app_context():
        table = store.load(connect(app.config["DATABASE"]), token)
    assert table.seated and table.setup.players == ("Ann", "Bob", "Cy", "Di")
    assert table.setup.options["first_start_player"] == 2
    assert rwd_deal(client, token, 1, winner=1).status_code == 303
    board = client.get("/hall/board").get_data(as_text=True)
    assert "Ann · Bob · Cy · Di" in re.sub(r"</?bdi>", "", board)
    assert "1 deal played" in board


def test_board_answers_204_until_a_table_of_the_night_changes(client):
    token = prepare(client, "rwd", 4, 1)[0]
    board = client.get("/hall/board").get_data(as_text=True)
    signature = re.search(r'rev=([0-9-]+)', board).group(1)
    assert client.get(f"/hall/board?rev={signature}").status_code == 204
    seat(client, token, ["Ann", "Bob", "Cy", "Di"], first_start_player=0)
    changed = client.get(f"/hall/board?rev={signature}")
    assert changed.status_code == 200 and "Ann" in changed.get_data(as_text=True)


def test_cycle_mode_steps_through_every_table(client):
    tokens = prepare(client, "rwd", 4, 3)
    for i, token in enumerate(tokens):
        seat(client, token, [f"P{i}a", f"P{i}b", f"P{i}c", f"P{i}d"], first_start_player=0)
    seen, after = [], None
    for _ in range(4):
        page = client.get("/hall/cycle" + (f"?after={after}" if after else "")).get_data(as_text=True)
        seen.append(re.search(r'class="hall-label">([^<]+)<', page).group(1))
        after = re.search(r'/hall/cycle\?after=(\d+)', page).group(1)
    assert seen == ["Table 1", "Table 2", "Table 3", "Table 1"]  # and round again


def test_a_new_night_keeps_old_tables_out_of_the_hall_but_never_deletes_them(client, app):
    old = prepare(client, "rwd", 4, 2)
    confirm = client.get("/hall/new-night").get_data(as_text=True)
    assert "2 tables" in confirm and "Nothing is deleted" in confirm
    assert client.post("/hall/nights").status_code == 303
    page = client.get("/hall").get_data(as_text=True)
    assert not TOKEN.findall(page) and "No tables tonight yet" in page
    new = prepare(client, "rwd", 4, 1)
    assert "Table 1" in client.get("/hall").get_data(as_text=True)  # numbering starts again
    with app.app_context():
        conn = connect(app.config["DATABASE"])
        assert conn.execute("SELECT count(*) FROM tables").fetchone()[0] == 3
        assert [t.token for t in night.night_tables(conn)] == new
    assert client.get(f"/t/{old[0]}").status_code == 303  # the old table still answers


def test_the_nights_exports_hold_every_deal_of_every_table(client):
    tokens = prepare(client, "rwd", 4, 2)
    seat(client, tokens[0], ["Ann", "Bob", "Cy", "Di"], first_start_player=0)
    seat(client, tokens[1], ["Eve", "Fay", "Gus", "Hal"], first_start_player=0)
    for number, winner in ((1, 0), (2, 1)):
        assert rwd_deal(client, tokens[0], number, winner).status_code == 303
    assert rwd_deal(client, tokens[1], 1, 3).status_code == 303
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    by_label = {t["label"]: t for t in doc["tables"]}
    assert set(by_label) == {"Table 1", "Table 2"}
    assert [d["number"] for d in by_label["Table 1"]["deals"]] == [1, 2]
    assert by_label["Table 2"]["players"] == ["Eve", "Fay", "Gus", "Hal"]
    assert len(by_label["Table 2"]["deals"]) == 1 and by_label["Table 2"]["deals"][0]["facts"]["tricks"][3] == 7
    for table in doc["tables"]:
        assert table["totals"]  # totals and winners come with every table
    rows = list(csv.DictReader(io.StringIO(client.get("/hall/export.csv").get_data(as_text=True).lstrip("\ufeff"))))
    # One row per player per deal (issue 25): the same tables and deals, each as its players' rows.
    assert [(r["table"], r["deal"]) for r in rows] == [("Table 1", "1")] * 4 + [("Table 1", "2")] * 4 + [("Table 2", "1")] * 4
    assert [r["player"] for r in rows[8:]] == ["Eve", "Fay", "Gus", "Hal"]


def test_prepare_refuses_bad_plans_next_to_the_field_and_keeps_them(client):
    response = client.post("/hall/prepare", data={"game": "twin_shoot", "players": "5", "count": "500",
                                                  "label": "Tisch {n}"})
    assert response.status_code == 422
    text = response.get_data(as_text=True)
    assert "not 5" in text and "from 1 to 64" in text
    assert 'value="Tisch {n}"' in text and 'value="500"' in text
    for bad in ({"game": "chess", "players": "4", "count": "1"}, {"game": "rwd", "players": "x", "count": "y"}):
        assert client.post("/hall/prepare", data=bad).status_code == 422


def test_cycle_mode_shows_only_the_latest_rounds_tables(client, conn):
    """An earlier round's table came up between this round's on the projector (issue 33)."""
    join_everyone(conn)
    first = played_round(conn)
    second = draw(conn, minutes=30)
    labels = {rt.table.id: rt for rt in second.tables}
    seen, after = [], None
    for _ in range(len(second.tables) + 1):
        page = client.get("/hall/cycle" + (f"?after={after}" if after else "")).get_data(as_text=True)
        after = int(re.search(r'/hall/cycle\?after=(\d+)', page).group(1))
        seen.append(after)
    assert not set(seen) & {rt.table.id for rt in first.tables}
    assert seen == [rt.table.id for rt in second.tables] + [second.tables[0].table.id]  # and round again
    assert set(seen) == set(labels)
    first_page = client.get("/hall?cycle=1").get_data(as_text=True)
    assert f"/hall/cycle?after={second.tables[0].table.id}" in first_page


def test_hall_seating_keeps_each_seat_label_on_one_line(client, conn):
    """At 1920 px the hall's three seating columns broke "seat 3" after "seat" (a new
    organiser's night, issue 33): each seat label is one unbreakable piece."""
    join_everyone(conn)
    latest = draw(conn)
    page = client.get("/hall").get_data(as_text=True)
    seats = re.findall(r'<span class="nowrap">seat (\d+)</span></span></li>', page)
    assert len(seats) == sum(len(rt.player_ids) for rt in latest.tables)
    css = client.get("/static/hall.css").get_data(as_text=True)
    assert re.search(r"\.hall-seating \.nowrap\s*\{\s*white-space:\s*nowrap", css)  # served minified
