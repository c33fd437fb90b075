"""The night's leaderboard across games (issue 25): finished tables give their players place
points (companion.meetup.points), the hall shows every player's line with the rule said on the
page, live (the board's signature changes with every deal), a player's phone shows its own line,
and its night summary lists its tables, games, places and points."""

from __future__ import annotations

import re

import pytest

from companion.night import service as night
from companion.tables import service as store
from helpers import NIGHT_NAMES, text_of
from helpers import join_night as join_all
import table_writes

NAMES = NIGHT_NAMES


def rwd_deal(winner: int) -> dict:
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return {"chips": [3, 3, 3, 4], "tricks": tricks}


def play_until_over(conn, token: str, winner: int) -> store.Table:
    """Deals won by the same seat until the rules end the match (RWD ends by itself)."""
    table = store.load(conn, token)
    while not table.match().over:
        table = table_writes.add_deal(conn, token, len(table.deals) + 1, rwd_deal(winner))
    return table


def test_finished_tables_make_the_leaderboard_and_the_rule_is_on_the_page(app, client, conn):
    phones = join_all(app)
    client.post("/hall/rounds", data={"tables-rwd": "3"})
    (r,) = night.night_rounds(conn)
    names = {p.id: p.name for p in night.roster(conn)}
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "No finished tables yet" in hall and "share of the other players you beat" in hall
    board = client.get("/hall/board").get_data(as_text=True)
    signature = re.search(r'rev=([0-9-]+)', board).group(1)

    first = play_until_over(conn, r.tables[0].table.token, winner=0)
    second = play_until_over(conn, r.tables[1].table.token, winner=2)
    table_writes.add_deal(conn, r.tables[2].table.token, 1, rwd_deal(1))  # the third table still plays
    # The hall's live board answers with the new leaderboard (no reload: the board polls by signature).
    live = client.get(f"/hall/board?rev={signature}")
    assert live.status_code == 200
    text = text_of(live.get_data(as_text=True))
    expected = night.leaderboard(night.night_results(conn))
    assert len(expected) == 8  # the players of the two finished tables only
    winners = {names[r.tables[0].player_ids[0]], names[r.tables[1].player_ids[2]]}
    assert {s.name for s in expected if s.rank == 1} == winners
    for s in expected:
        points = f"{s.points:.2f}".rstrip("0").rstrip(".")
        assert f"{s.rank} {s.name} {s.tables} " in text and points in text
    # Each finished table hands out half a point per player: 2 + 2.
    assert sum(s.points for s in expected) == pytest.approx(4.0)
    for winner in winners:
        assert f"{winner} 1 1st: 1× 1" in text
    assert first.match().over and second.match().over

    # A winner's phone shows their own line; a player of the unfinished table is told to wait.
    winner = sorted(winners)[0]
    mine = text_of(phones[winner].get("/night/me").get_data(as_text=True))
    assert "Place 1 of 8 · 1 place point" in mine and "1 table finished · 1st: 1×" in mine
    waiting = names[r.tables[2].player_ids[0]]
    assert "once your first table finishes" in text_of(phones[waiting].get("/night/me").get_data(as_text=True))


def test_a_players_night_summary(app, client, conn):
    phones = join_all(app, NAMES[:8])
    client.post("/hall/rounds", data={"tables-rwd": "2"})
    (r1,) = night.night_rounds(conn)
    for rt in r1.tables:
        play_until_over(conn, rt.table.token, winner=1)
    client.post("/hall/rounds", data={"tables-lucky_cube": "2"})
    r2 = night.night_rounds(conn)[-1]
    names = {p.id: p.name for p in night.roster(conn)}
    who = names[r1.tables[0].player_ids[1]]  # won round 1
    summary = client.get("/night/me/summary")  # the laptop has no player: asked to join
    assert summary.status_code == 303
    page = text_of(phones[who].get("/night/me/summary").get_data(as_text=True))
    assert f"{who}'s night" in page
    assert "Round 1 · Table 1 RWD (Rewind)" in page and "1st of 4 players: 1" in page
    rt2, _seat = r2.table_of(next(p for p, n in names.items() if n == who))
    assert f"Round 2 · Table {rt2.table.seq} Lucky Cube" in page and "players (playing)" in page
    assert "share of the other players you beat" in page


def test_a_rename_shows_on_the_leaderboard(app, client, conn):
    join_all(app, NAMES[:4])
    client.post("/hall/rounds", data={"tables-rwd": "1"})
    (r,) = night.night_rounds(conn)
    play_until_over(conn, r.tables[0].table.token, winner=0)
    winner = r.tables[0].player_ids[0]
    assert client.post(f"/hall/players/{winner}", data={"name": "Annabel"}).status_code == 303
    board = night.leaderboard(night.night_results(conn))
    assert board[0].name == "Annabel" and board[0].rank == 1


def test_the_japanese_leaderboard(app, client, conn):
    join_all(app, NAMES[:4])
    client.post("/hall/rounds", data={"tables-rwd": "1"})
    (r,) = night.night_rounds(conn)
    play_until_over(conn, r.tables[0].table.token, winner=0)
    page = text_of(client.get("/hall?lang=ja").get_data(as_text=True))
    assert "1位" in page and "Tonight's leaderboard" not in page


@pytest.mark.parametrize("page", ["/hall/board", "/hall/screen/live", "/night/me/live"])
def test_a_change_committed_while_a_night_page_is_drawn_is_asked_for_again(app, client, conn, monkeypatch, page):
    """A night page's answer carries the signature it shows; the next ask with it is answered 204
    when nothing changed. A deal saved while the answer was being drawn (after its tables were
    read) must leave the page an older signature, so the next ask brings the deal; a newer one
    would have hidden it until some later change (CI: the hall's leaderboard stayed short)."""
    phones = join_all(app)
    client.post("/hall/rounds", data={"tables-rwd": "3"})
    (r,) = night.night_rounds(conn)
    asker = phones[NAMES[0]] if page == "/night/me/live" else client
    token = r.tables[0].table.token
    first = asker.get(page)
    signature = re.search(r'rev=([0-9-]+)', first.get_data(as_text=True)).group(1)

    drawn = night.night_results
    saved = []

    def saved_meanwhile(*args, **kwargs):
        if not saved:  # the tables are read; a phone's deal commits before the page is done
            saved.append(table_writes.add_deal(conn, token, 1, rwd_deal(0)))
        return drawn(*args, **kwargs)

    monkeypatch.setattr(night, "night_results", saved_meanwhile)
    table_writes.add_deal(conn, r.tables[1].table.token, 1, rwd_deal(1))  # something for the ask to fetch
    racing = asker.get(f"{page}?rev={signature}")
    assert racing.status_code == 200 and saved
    monkeypatch.setattr(night, "night_results", drawn)
    shown = re.search(r'rev=([0-9-]+)', racing.get_data(as_text=True)).group(1)
    again = asker.get(f"{page}?rev={shown}")
    assert again.status_code == 200, "the deal saved meanwhile was announced, but the page's ask is told 'nothing new'"
