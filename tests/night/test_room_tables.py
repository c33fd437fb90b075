"""The room's tables (issue 44 item 6): table numbers moved every round ("Table 4…" in round 2)
while the room's tables and the printed cards stayed put. Now the organiser sets the room's
tables once (kept for later nights); every draw seats at free room tables, so a table keeps the
room's number; a card printed for a room table opens whatever is played there now."""

from __future__ import annotations

import csv
import io
import json
import re

from companion.night import service as night
from companion.tables import service as tables
from helpers import create_table, text_of
import table_writes
from table_writes import done

SIXTEEN = [f"P{n}" for n in range(1, 17)]


def labels(conn) -> list[str]:
    return [rt.table.label for rt in night.night_rounds(conn)[-1].tables]


def test_draws_seat_at_the_rooms_free_tables_and_a_card_follows_its_table(client, conn):
    assert client.post("/hall/room", data={"room": "1-6, Window"}).status_code == 303
    assert [t.label for t in night.room(conn)] == ["1", "2", "3", "4", "5", "6", "Window"]
    cards = client.get("/hall/cards").get_data(as_text=True)  # printed before round 1
    links = re.findall(r'<p class="tc-url">([^<]+)</p>', cards)
    assert len(links) == 7 and "Window" in text_of(cards) and "Table 1" in text_of(cards)
    first_card = "/" + links[0].split("/", 3)[3]
    empty = client.get(first_card)  # nothing played at Table 1 yet: said so
    assert empty.status_code == 200 and "Nothing is played at Table 1 yet" in text_of(empty.get_data(as_text=True))

    for name in SIXTEEN:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "4"}).status_code == 303
    assert labels(conn) == ["1", "2", "3", "4"]
    first = night.night_rounds(conn)[0].tables
    assert "Table 1" in text_of(client.get("/hall").get_data(as_text=True))
    # Tables 1 and 2 finish; 3 and 4 play on into round 2, which seats its eight at free tables.
    for rt in first[:2]:
        table_writes.play_until_over(conn, rt.table.token, 0)
    for rt in first[2:]:
        table_writes.add_deal(conn, rt.table.token, 1, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
    assert client.post("/hall/rounds", data={"tables-rwd": "2", "unfinished": "leave"}).status_code == 303
    assert labels(conn) == ["1", "2"]  # the room's numbers again, never "Table 5"
    second = night.night_rounds(conn)[-1].tables
    assert client.get(first_card).headers["Location"].endswith(f"/t/{second[0].table.token}")
    # More tables than the room has free: said, and nobody seated.
    for rt in second:
        table_writes.play_until_over(conn, rt.table.token, 0)
    # A smaller room (tables 5 and 6 put away): 1, 2 and Window are free, 3 and 4 still play.
    assert client.post("/hall/room", data={"room": "1-4, Window"}).status_code == 303
    refused = client.post("/hall/rounds", data={"tables-miraiscope": "4", "unfinished": "leave"})
    assert refused.status_code == 422
    assert "This draw needs 4 tables and the room has 3 free (of 5)" in text_of(refused.get_data(as_text=True))
    assert len(night.night_rounds(conn)) == 2


def test_the_room_is_kept_for_later_nights_and_a_table_kept_keeps_its_card(client, conn):
    done(night.set_room(conn, "8"))
    assert [t.label for t in night.room(conn)] == [str(n) for n in range(1, 9)]
    table_one = night.room(conn)[0].id
    done(night.start_night(conn))
    done(night.set_room(conn, "1-4, Window"))
    assert night.room(conn)[0].id == table_one and [t.label for t in night.room(conn)][-1] == "Window"


def test_what_cannot_be_read_as_tables_is_said_beside_the_field(client, conn):
    refused = client.post("/hall/room", data={"room": "8-1"})
    assert refused.status_code == 422
    assert "“8-1” is not a range of tables from low to high." in text_of(refused.get_data(as_text=True))
    assert 'value="8-1"' in refused.get_data(as_text=True)  # what was typed, kept
    assert night.room(conn) == []


def test_a_japanese_keyboards_range_and_commas_are_read():
    """The Japanese review: 「1～8」 from a Windows IME (full-width tilde) was one table labelled so."""
    for typed in ("1～8", "1〜8", "1－8", "1-4，5-8", "1-4、5-8"):
        labels, errors = night.read_room(typed)
        assert errors == [] and labels == [str(n) for n in range(1, 9)], typed


def test_a_player_who_needs_one_table_keeps_it_every_round(client, conn):
    """Issue 44: a player who needs one table (mobility) is given it for the night; every draw
    seats their table at that room table."""
    done(night.set_room(conn, "1-4"))
    for name in SIXTEEN[:8]:
        done(night.join(conn, name))
    p7 = next(p for p in night.roster(conn) if p.name == "P7")
    table_three = night.room(conn)[2]
    assert client.post("/hall/keep-table", data={"player": str(p7.id), "room_table": str(table_three.id)}
                       ).status_code == 303
    assert "P7 keeps Table 3" in text_of(client.get("/hall").get_data(as_text=True))
    for number in range(3):
        assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
        tables_now = night.night_rounds(conn)[-1].tables
        mine = next(rt for rt in tables_now if p7.id in rt.player_ids)
        assert mine.table.room_table == table_three.id and mine.table.label == "3", number
        for rt in tables_now:
            table_writes.play_until_over(conn, rt.table.token, 0)
    assert client.post("/hall/keep-table", data={"player": str(p7.id), "room_table": ""}).status_code == 303
    assert night.player(conn, p7.id).room_table is None


def test_tables_of_several_rounds_are_named_with_their_round(client, conn):
    """Issue 44: the room's Table 1 holds a table each round, so where tables of several rounds
    are listed (the night's files, a table still playing at the next draw, a player's history)
    it is "R2 · Table 1", never two tables both called "Table 1"."""
    assert client.post("/hall/room", data={"room": "1-4"}).status_code == 303
    for name in SIXTEEN[:8]:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    first = night.night_rounds(conn)[0].tables
    table_writes.play_until_over(conn, first[0].table.token, 0)
    table_writes.add_deal(conn, first[1].table.token, 1, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
    # The next draw names the table still playing with its round.
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "1 table is still playing: R1 · Table 2" in hall
    assert client.post("/hall/rounds", data={"tables-rwd": "1", "unfinished": "leave"}).status_code == 303
    second = night.night_rounds(conn)[-1].tables
    assert [rt.table.label for rt in second] == ["1"]  # the room's Table 1 again
    table_writes.play_until_over(conn, second[0].table.token, 0)
    rows = list(csv.DictReader(io.StringIO(client.get("/hall/export.csv").get_data().decode("utf-8-sig"))))
    assert {(r["round"], r["table"]) for r in rows} == {("1", "R1 · Table 1"), ("1", "R1 · Table 2"),
                                                      ("2", "R2 · Table 1")}
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    assert sorted(t["label"] for t in doc["tables"]) == ["R1 · Table 1", "R1 · Table 2", "R2 · Table 1"]
    # A player at Table 1 in both rounds: their history tells the two apart.
    both = set(first[0].player_ids) & set(second[0].player_ids)
    name = next(p.name for p in night.roster(conn) if p.id in both)
    pid = next(p["player_id"] for p in json.loads(client.get("/season.json").get_data(as_text=True))["ranked"]
               if p["name"] == name)
    history = json.loads(client.get(f"/players/{pid}/history.json").get_data(as_text=True))["matches"]
    assert sorted(m["table"] for m in history) == ["R1 · Table 1", "R2 · Table 1"]


def test_prepared_and_laptop_tables_take_the_rooms_free_tables(client, conn):
    """Issue 44: with the room's tables set, a prepared table and a table opened on the laptop
    sit at free room tables, as a drawn one does, so a card printed for the room opens them and
    the next draw seats at the tables still free; more than the room has free is said."""
    assert client.post("/hall/room", data={"room": "1-3, Window"}).status_code == 303
    cards = client.get("/hall/cards").get_data(as_text=True)
    links = ["/" + link.split("/", 3)[3] for link in re.findall(r'<p class="tc-url">([^<]+)</p>', cards)]
    assert client.post("/hall/prepare", data={"game": "rwd", "players": "4", "count": "2"}).status_code == 303
    opened = create_table(client, "rwd", ["Ann", "Bo", "Cy", "Di"])  # the laptop's own table
    made = night.night_tables(conn)
    assert [t.label for t in made] == ["1", "2", "3"]  # the room's, not the night's "Table 1, 2, 3"
    assert client.get(links[2]).headers["Location"].endswith(f"/t/{opened}")
    refused = client.post("/hall/prepare", data={"game": "rwd", "players": "4", "count": "2"})
    assert refused.status_code == 422
    assert "The room has 1 table free (of 4): prepare at most that many." in text_of(refused.get_data(as_text=True))
    for name in SIXTEEN[:4]:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    assert labels(conn) == ["Window"]  # the one table still free
    assert client.post("/hall/rounds", data={"tables-rwd": "1", "unfinished": "leave"}).status_code == 422
    # The laptop's table ends: its room table is free for the next.
    table_writes.play_until_over(conn, opened, 0)
    assert [place.label for place in night.free_room_tables(conn)] == ["3"]
