"""Issue 31: the season's records after a start (every stored result in one query, one JSON
parse, read before the port opens) give the very figures of a full recompute: every table of
a seeded season replayed through its rules from its deals, its seats' players looked up
afresh. Checked after a start, after `companion serve`'s warm-up, after a change to one
finished table, and after who-is-who changes (a seat given to a namesake, a merge)."""

from __future__ import annotations

import json
import random

import pytest

from companion import store
from companion.cli import bring_results_up_to_date
from companion.meetup.points import match_result
from companion.meetup.season import player_stats, record_of, season_table
from companion.names import name_key
from companion.night import service as night
from companion.players import service as players
from companion.tables import service as tables

from helpers import LUCKY, MIRAI_SEAT0, MIRAI_SEAT1, TWIN, NightClock, mirai, play_table, rwd4
import table_writes
from table_writes import done

# Whole matches as the rules play them: (game, players, options, deals).
MATCHES = [
    ("rwd", 4, {"first_start_player": 0}, [rwd4(s % 4) for s in range(9)]),
    ("rwd", 4, {"first_start_player": 0}, [rwd4(2), rwd4(3), rwd4(2), rwd4(1), rwd4(1), rwd4(1)]),
    ("miraiscope", 2, {"first_dealer": 0}, MIRAI_SEAT0),
    ("miraiscope", 2, {"first_dealer": 0}, MIRAI_SEAT1),
    ("lucky_cube", 4, {"first_dealer": 0}, LUCKY),
    ("twin_shoot", 4, {}, [TWIN] * 3),
]
REGULARS = "Ann Bo Cy Di Ed Fay Gus Hal Ivy Jo".split()
NIGHTS = [f"2026-{month:02d}-{day:02d}" for month in (3, 4, 5, 6) for day in (3, 17)]


@pytest.fixture
def seeded(app, monkeypatch):
    """Eight nights of six tables each (seeded: the same season every run), a few of them left
    unfinished; yields (conn, tokens)."""
    rng = random.Random(31)
    clock = NightClock(monkeypatch)
    conn = store.connect(app.config["DATABASE"])
    tokens = []
    for day in NIGHTS:
        clock.at(day, "09:00")
        done(night.start_night(conn))
        for table in range(6):
            game, size, options, deals = rng.choice(MATCHES)
            names = [n.upper() if rng.random() < 0.15 else n for n in rng.sample(REGULARS, size)]
            clock.at(day, f"{19 + table // 3}:{table % 3 * 15:02d}")
            played = deals if rng.random() < 0.9 else deals[:1]  # now and then a match not over
            tokens.append(play_table(conn, game, names, options, played))
    players.RECORDS.clear()
    yield conn, tokens
    players.RECORDS.clear()
    conn.close()


def recomputed(conn) -> list:
    """Every ended match replayed from its deals, with each seat's player as who-is-who says
    now: the season's records the slow way, in table order."""
    found = []
    rows = conn.execute("SELECT t.id, t.game, t.players, t.options, t.finished, t.ended_at_time, t.updated_at, t.ended_at,"
                        " t.label, t.seq, t.created_at, (SELECT n.started_at FROM nights AS n"
                        "  WHERE n.after_table < t.id ORDER BY n.id DESC LIMIT 1) AS night_started"
                        " FROM tables AS t WHERE t.seated = 1 ORDER BY t.id").fetchall()
    for row in rows:
        deals = [json.loads(d[0]) for d in conn.execute("SELECT facts FROM deals WHERE table_id = ? ORDER BY number",
                                                        (row["id"],))]
        names = json.loads(row["players"])
        result = match_result(row["game"], names, deals, json.loads(row["options"]), bool(row["finished"]),
                              at_time=bool(row["ended_at_time"]))
        if not result.over:
            continue
        seats = players.seat_players(conn, row["id"], names)
        ids = [str(p) if p is not None else "k:" + name_key(n) for p, n in zip(seats, names)]
        found.append(record_of(result, (row["night_started"] or row["created_at"])[:10], players.table_label(dict(row)),
                               row["ended_at"] or row["updated_at"], ids))  # its finishing moment (issue 43)
    return found


def assert_same_figures(conn) -> None:
    """The season tables and every player's statistics and matches, from the kept records and
    from a full recompute."""
    kept = players.records(conn)  # brings the stored results up to date first (new names become players)
    full = recomputed(conn)
    assert kept == full  # the records themselves (ids, places, scores, when)
    assert [r.keys for r in kept] == [r.keys for r in full]
    spans = [{}, {"since": NIGHTS[2], "until": NIGHTS[5]}, {"game": "rwd"}, {"game": "miraiscope"}]
    for span in spans:
        assert players.season(conn, min_matches=1, **span) == season_table(full, min_matches=1, **span)
        assert players.season(conn, **span) == season_table(full, **span)
    everyone = players.everyone(conn)
    assert len(everyone) >= len(REGULARS)
    for player in everyone:
        for span in spans:
            assert players.stats(conn, player, **span) == player_stats(full, player.sid, **span)


def test_after_a_start_the_figures_are_a_full_recomputes(seeded):
    conn, _tokens = seeded
    players.refresh(conn)
    players.RECORDS.clear()  # the laptop started: nothing kept in memory
    assert_same_figures(conn)


def test_after_serve_read_the_records_before_its_port_opened(seeded, app):
    conn, _tokens = seeded
    players.RECORDS.clear()
    bring_results_up_to_date(app.config["DATABASE"])  # what `companion serve` does before answering
    assert players.RECORDS.by_path  # read once, on serve's own connection, for every page after
    season = players.RECORDS.get(conn)
    assert len(season.records) == len(recomputed(conn)) and season.memo  # the default season table too
    assert_same_figures(conn)


def test_after_one_table_changes_and_who_is_who_changes(seeded):
    conn, tokens = seeded
    assert_same_figures(conn)  # the records now kept; the changes below are read into them
    ended = [row[0] for row in conn.execute("SELECT t.token FROM results AS r JOIN tables AS t ON t.id = r.table_id"
                                            " WHERE r.over = 1 ORDER BY t.id")]
    assert set(ended) <= set(tokens) and len(ended) > 30
    miraiscope = next(t for t in ended if tables.load(conn, t).game.id == "miraiscope")
    table_writes.undo_last(conn, miraiscope, 5)  # its result changes (level, or no longer over)
    table_writes.add_deal(conn, miraiscope, 5, mirai(4, 20, 1))
    assert_same_figures(conn)
    names = json.loads(conn.execute("SELECT players FROM tables WHERE token = ?", (ended[3],)).fetchone()[0])
    done(players.keep_apart(conn, ended[3], 1, f"{names[1]} K."))  # a namesake gets the seat
    assert_same_figures(conn)
    first, second = players.everyone(conn)[:2]
    shared = {str(first.id), str(second.id)}
    if not any(shared <= set(r.keys) for r in players.records(conn)):
        done(players.merge(conn, first.id, second.id))
    else:
        done(players.rename(conn, first.id, f"{first.name} Z"))
    assert_same_figures(conn)
