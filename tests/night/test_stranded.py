"""No table is ever stranded (issue 44, item 1). New night, three players, one RWD table drawn,
one deal entered, three more players added, "Draw round 2": it was accepted without a word, the
first table lost Call time and End at time (shown for the latest round only), and it never got a
result. Now the draw names the tables still playing and the organiser chooses: leave them
playing (their players sit this draw out and join the next; the table keeps Call time and End
at time, and its phones may change it as if its round were the latest) or end them at time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from companion.night import round_time
from companion.night import service as night
from companion.store import trust as trust_store
from companion.tables import access
from companion.tables import service as tables
from helpers import text_of
import table_writes
from table_writes import done

FIRST = ["Ann", "Bo", "Cy"]
LATE = ["Di", "Ed", "Fay"]
A_DEAL = {"chips": [8, 5, 4], "tricks": [3, 7, 7]}  # seat 3 wins it; RWD needs more deal wins


def first_table_playing(client, conn) -> night.RoundTable:
    for name in FIRST:
        done(night.join(conn, name))
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    (rt,) = night.night_rounds(conn)[0].tables
    table_writes.add_deal(conn, rt.table.token, 1, A_DEAL)
    for name in LATE:
        done(night.join(conn, name))
    return rt


def test_drawing_while_a_table_plays_names_it_and_draws_nothing(client, conn):
    rt = first_table_playing(client, conn)
    refused = client.post("/hall/rounds", data={"tables-rwd": "1"})
    assert refused.status_code == 422
    page = text_of(refused.get_data(as_text=True))
    assert f"Still playing: Table {rt.table.seq}." in page
    assert "Leave them playing" in page and "End them at time now" in page
    assert len(night.night_rounds(conn)) == 1
    # The hall lists it before the organiser presses anything: the choice is on the form.
    assert "1 table is still playing" in text_of(client.get("/hall").get_data(as_text=True))


def test_left_playing_its_players_sit_out_and_it_keeps_call_time_and_end_at_time(client, conn):
    rt = first_table_playing(client, conn)
    assert client.post("/hall/rounds", data={"tables-rwd": "1", "unfinished": "leave"}).status_code == 303
    first, second = night.night_rounds(conn)
    assert set(second.tables[0].player_ids) == {p.id for p in night.roster(conn) if p.name in LATE}
    board = client.get("/hall/board").get_data(as_text=True)
    assert f"/hall/tables/{rt.table.id}/call-time" in board  # the first round's table, not stranded
    assert client.post(f"/hall/tables/{rt.table.id}/call-time").status_code == 303
    assert client.post(f"/hall/tables/{rt.table.id}/end-at-time").status_code == 303
    ended = tables.load(conn, rt.table.token)
    assert ended.match().over and ended.match().at_time
    # It ended after round 2 was drawn: its phones' window is the usual one, not "round closed".
    assert trust_store.round_open(conn, rt.table.id) is None
    now = datetime.now(timezone.utc)
    assert access.decide(over=True, laptop=False, opened_before_end=True, round_is_open=None, ended=now,
                         now=now + timedelta(minutes=5)) is None
    # Round 3 seats everyone again, and round 1 counts as over.
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    assert {pid for t in night.night_rounds(conn)[-1].tables for pid in t.player_ids} == {
        p.id for p in night.roster(conn)}
    assert round_time.round_over(night.night_rounds(conn)[0])


def test_a_table_of_a_closed_round_that_ended_before_the_next_draw_stays_closed(client, conn):
    rt = first_table_playing(client, conn)
    table = tables.load(conn, rt.table.token)
    while not table.match().over:
        table = table_writes.add_deal(conn, rt.table.token, len(table.deals) + 1, A_DEAL)
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303  # nothing playing: no question
    assert trust_store.round_open(conn, rt.table.id) is False


def test_ended_at_time_everyone_is_drawn(client, conn):
    rt = first_table_playing(client, conn)
    assert client.post("/hall/rounds", data={"tables-rwd": "2", "unfinished": "end"}).status_code == 303
    ended = tables.load(conn, rt.table.token)
    assert ended.match().over and ended.match().at_time and len(ended.deals) == 1
    assert {pid for t in night.night_rounds(conn)[-1].tables for pid in t.player_ids} == {
        p.id for p in night.roster(conn)}


def test_a_new_night_asks_the_same_and_a_match_left_playing_stays_open(client, conn):
    rt = first_table_playing(client, conn)
    asked = client.post("/hall/nights", data={})
    assert asked.status_code == 422 and len(night.night_rounds(conn)) == 1
    page = text_of(client.get("/hall/new-night").get_data(as_text=True))
    assert "Leave them playing" in page and "End them at time now" in page
    assert client.post("/hall/nights", data={"unfinished": "leave"}).status_code == 303
    assert night.night_rounds(conn) == []  # the new night
    # Its phones may still play it, and once it ends, change it within the usual window.
    table = tables.load(conn, rt.table.token)
    while not table.match().over:
        table = table_writes.add_deal(conn, rt.table.token, len(table.deals) + 1, A_DEAL)
    assert trust_store.round_open(conn, rt.table.id) is None


def test_a_new_night_may_end_them_at_time(client, conn):
    rt = first_table_playing(client, conn)
    assert client.post("/hall/nights", data={"unfinished": "end"}).status_code == 303
    ended = tables.load(conn, rt.table.token)
    assert ended.match().over and ended.match().at_time
    assert trust_store.round_open(conn, rt.table.id) is False  # ended with its night: closed as before
