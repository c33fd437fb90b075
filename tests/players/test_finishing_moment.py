"""A match's finishing moment (issue 43): set when it first ends, kept through corrections,
undo and re-entry, reopening and Rematch presses; the season's order goes by it, so ratings move
only when a result does. (Before, the order was the table's last change: two matches ending a
second apart swapped their ratings when a phone at the first pressed Rematch.)"""

from __future__ import annotations

from companion.players import service as players
from companion.tables import service as tables
from helpers import N1
from helpers import NightClock as Clock
import table_writes
from table_writes import play_until_over, rwd_win

FOUR = ["Ann", "Bo", "Cy", "Di"]


def everyone(conn) -> dict:
    players.refresh(conn)
    rated = players.ratings(conn)
    return {key: (r.mu, r.sigma) for key, r in rated.overall.items()}


def two_matches_a_second_apart(conn, clock) -> tuple[str, str]:
    """Ann wins the first, Bo the second: the order decides their ratings."""
    clock.at(N1, "20:00")
    first = table_writes.create(conn, "rwd", FOUR, {}, numbered=True)
    second = table_writes.create(conn, "rwd", FOUR, {}, numbered=True)
    play_until_over(conn, first, 0)
    clock.stamp = f"{N1}T20:00:01+00:00"
    play_until_over(conn, second, 1)
    return first, second


def test_a_rematch_pressed_at_the_first_match_moves_no_rating(conn, monkeypatch):
    clock = Clock(monkeypatch)
    first, _second = two_matches_a_second_apart(conn, clock)
    before = everyone(conn)
    clock.at(N1, "20:05")
    table_writes.rematch(conn, first)  # the first table's last change is now the latest
    assert everyone(conn) == before


def test_a_correction_that_keeps_every_place_moves_no_rating(conn, monkeypatch):
    clock = Clock(monkeypatch)
    first, _second = two_matches_a_second_apart(conn, clock)
    before = everyone(conn)
    ended = tables.load(conn, first).ended_at
    clock.at(N1, "21:00")
    table = tables.load(conn, first)
    changed = dict(table.deals[0], chips=[4, 3, 3, 3])  # who had how many chips; the same winner
    table_writes.edit_deal(conn, first, 1, changed, was=tables.fingerprint(table.deals[0]))
    assert tables.load(conn, first).ended_at == ended
    assert everyone(conn) == before


def test_undo_and_re_entry_keep_the_moment(conn, monkeypatch):
    clock = Clock(monkeypatch)
    clock.at(N1, "20:00")
    token = table_writes.create(conn, "rwd", FOUR, {}, numbered=True)
    play_until_over(conn, token, 0)
    table = tables.load(conn, token)
    assert table.ended_at == f"{N1}T20:00:00+00:00" and table.ended_deals == len(table.deals)
    last = len(table.deals)
    clock.at(N1, "20:30")
    tables.undo_deal(conn, token, last)  # reopened: the moment is kept
    assert tables.load(conn, token).ended_at == f"{N1}T20:00:00+00:00"
    table_writes.add_deal(conn, token, last, rwd_win(0))  # ends again with as many deals
    assert tables.load(conn, token).ended_at == f"{N1}T20:00:00+00:00"
    assert tables.load(conn, token).ended_deals == last


def test_the_season_orders_a_players_matches_by_their_finishing_moment(conn, monkeypatch):
    clock = Clock(monkeypatch)
    first, second = two_matches_a_second_apart(conn, clock)
    clock.at(N1, "22:00")
    table_writes.rematch(conn, first)
    players.refresh(conn)
    ann = players.player_of_name(conn, "Ann")
    listed = players.matches_of(conn, ann)
    assert [m["table_id"] for m in listed] == [tables.load(conn, second).id, tables.load(conn, first).id]
