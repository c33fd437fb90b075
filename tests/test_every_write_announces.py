"""Every write says what it changed (issue 41): each function of the tables, night and players
services that opens a write transaction is walked here, and a subscriber to the publish seam
(companion/changes.py) must hear exactly what the store shows moved: each table whose revision
moved (or that was made) at the revision the store gave it, the night when tonight's rows
changed, the players when the season's rows changed, and nothing else.

The walk is found, not listed by hand: a new write function in companion/{tables,night,players}
with no scenario here fails :func:`test_the_walk_covers_every_write`."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Callable

import pytest

from companion import changes
from companion.games import GAMES
from companion.night import claims, game_requests, rolling, round_time, side_tables
from companion.night import service as night
from companion.players import service as players
from companion.tables import service as tables
import table_writes
from companion.tables.confirming import Who
from table_writes import done

ROOT = Path(__file__).resolve().parent.parent
FEATURES = ("tables", "night", "players")

# Tonight's rows (the hall, the screen, the phones' night pages show them) and the season's.
NIGHT_ROWS = ("nights", "night_players", "night_rounds", "round_tables", "round_seats", "name_claims", "room_tables", "hall_settings")
SEASON_ROWS = ("players", "player_names", "seat_assignments", "results", "player_changes", "season")

RWD_DEAL = {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]}


def writes_in_features() -> set[str]:
    """'module:function' for every top-level function of the feature packages with ``with write(...)``."""
    found = set()
    for feature in FEATURES:
        for path in sorted((ROOT / "companion" / feature).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for function in ast.parse(path.read_text(encoding="utf-8")).body:
                if not isinstance(function, ast.FunctionDef):
                    continue
                if any(isinstance(node, ast.With) and any(
                        isinstance(item.context_expr, ast.Call) and getattr(item.context_expr.func, "id", "") == "write"
                        for item in node.items) for node in ast.walk(function)):
                    found.add(f"{module}:{function.name}")
    return found


# --- what the store shows -------------------------------------------------------------------

def digest(conn, names: tuple[str, ...]) -> str:
    hashed = hashlib.sha256()
    for name in names:
        for row in conn.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall():
            hashed.update(repr(tuple(row)).encode())
    return hashed.hexdigest()


def snapshot(conn) -> dict:
    return {
        "tables": dict(conn.execute("SELECT token, revision FROM tables").fetchall()),
        # A table's number and label in the night are the night's too (the board lists them).
        "night": digest(conn, NIGHT_ROWS) + repr([tuple(row) for row in conn.execute(
            "SELECT token, seq, label FROM tables WHERE seq IS NOT NULL ORDER BY id").fetchall()]),
        "players": digest(conn, SEASON_ROWS),
    }


def what_moved(before: dict, after: dict) -> list[tuple]:
    moved = [("table", token, revision) for token, revision in after["tables"].items()
             if before["tables"].get(token) != revision]
    moved += [(kind,) for kind in ("night", "players") if before[kind] != after[kind]]
    return sorted(moved)


def heard(change: changes.Change) -> tuple:
    return (change.kind, change.key, change.revision) if change.kind == "table" else (change.kind,)


# --- a night to write to --------------------------------------------------------------------

def a_round(conn, seated: int = 8, games=("rwd",)):
    people = [done(night.join(conn, name)) for name in ["Ann", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"][:seated]]
    drawn = done(night.draw_round(conn, offered=list(games), seed="walk", minutes=30))
    return people, drawn


def a_table_with_a_deal(conn, numbered: bool = True) -> str:
    token = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Dee"], {}, numbered=numbered)
    table_writes.add_deal(conn, token, 1, RWD_DEAL)
    return token


def a_finished_table(conn) -> str:
    token = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Dee"], {}, numbered=True)
    table = tables.load(conn, token)
    while not table.match().over:
        table = table_writes.add_deal(conn, token, len(table.deals) + 1, RWD_DEAL)
    return token


def _last_deal(conn):
    """The deal that ends a match: the season's pages show it (issue 41)."""
    token = a_finished_table(conn)
    table = tables.load(conn, token)
    last = len(table.deals)
    tables.undo_deal(conn, token, last)
    return lambda: tables.enter_deal(conn, token, last, RWD_DEAL)


def _undo_ended(conn):
    token = a_finished_table(conn)
    return lambda: tables.undo_deal(conn, token, len(tables.load(conn, token).deals))


def _correct_ended(conn):
    token = a_finished_table(conn)
    table = tables.load(conn, token)
    return lambda: tables.correct_deal(conn, token, 1, {"chips": [4, 3, 3, 3], "tricks": [7, 2, 2, 2]},
                                       was=tables.fingerprint(table.deals[0]))


def _forget(conn):
    token = a_table_with_a_deal(conn)  # Ann sat there, and is on tonight's list
    night.join(conn, "Ann")
    players.refresh(conn)
    ann = players.player_of_name(conn, "Ann")
    return lambda: players.forget_player(conn, ann.id)


def _side_table(conn):
    done(night.start_night(conn))
    token = a_table_with_a_deal(conn, numbered=False)  # opened by a phone, outside the draws: a side table
    table_id = tables.load(conn, token).id
    return lambda: done(side_tables.add_to_night(conn, table_id))


def _claim(conn):
    ann = done(night.join(conn, "Ann"))  # added by the organiser
    done(claims.join_as(conn, "device-1", "127.0.0.2", player_id=ann.id))  # the first phone owns it
    waiting = done(claims.join_as(conn, "device-2", "127.0.0.3", player_id=ann.id))
    return lambda: done(claims.answer(conn, waiting.claim_id, True))


def _refuse_all(conn):
    ann = done(night.join(conn, "Ann"))
    done(claims.join_as(conn, "device-1", "127.0.0.2", player_id=ann.id))
    done(claims.join_as(conn, "device-2", "127.0.0.3", player_id=ann.id))
    return lambda: done(claims.refuse_all(conn, ann.id))


def _give_up_typo(conn):
    dea = done(claims.join_as(conn, "device-1", "127.0.0.2", name="Dea"))
    return lambda: done(claims.give_up(conn, dea.id, "device-1"))


def _give_up_added(conn):
    ann = done(night.join(conn, "Ann"))
    done(claims.join_as(conn, "device-1", "127.0.0.2", player_id=ann.id))
    return lambda: done(claims.give_up(conn, ann.id, "device-1"))


def _four(conn, names=("Ann", "Bo", "Cy", "Dee")) -> None:
    for name in names:
        done(night.join(conn, name))


def _rolling_table(conn) -> int:
    return night.night_rounds(conn)[-1].tables[0].table.id


def _a_table_playing(conn):
    people, drawn = a_round(conn, 8)
    table_writes.add_deal(conn, drawn.tables[0].table.token, 1, RWD_DEAL)  # started, no result yet


def _change_seat(conn):
    people, drawn = a_round(conn, 4)
    table_writes.add_deal(conn, drawn.tables[0].table.token, 1, RWD_DEAL)
    late = done(night.join(conn, "Ivy"))
    return lambda: done(night.change_seat(conn, drawn.tables[0].table.id, 1, late.id))


def _swap(conn):
    people, drawn = a_round(conn, 8)
    a = drawn.tables[0].player_ids[0]
    b = drawn.tables[1].player_ids[0]
    return lambda: done(night.swap(conn, a, b))


def _join_table(conn):
    people, drawn = a_round(conn, 8)
    late = done(night.join(conn, "Ivy"))
    return lambda: done(night.join_table(conn, late.id, drawn.tables[0].number))


def _leave_table(conn):
    people, drawn = a_round(conn, 5)  # one table of five: RWD takes four
    return lambda: done(night.leave_table(conn, drawn.tables[0].player_ids[-1]))


def _season(conn):
    """A finished match the season has read (its players are players)."""
    token = a_finished_table(conn)
    players.refresh(conn)
    return token


def _merge(conn):
    _season(conn)
    ann = players.player_of_name(conn, "Ann")
    extra = done(players.ensure_player(conn, "Anne"))
    return lambda: done(players.merge(conn, ann.id, extra.id))


def _keep_apart(conn):
    token = _season(conn)
    return lambda: done(players.keep_apart(conn, token, 0, "Ann K."))


def _give_seat(conn):
    token = _season(conn)
    other = done(players.ensure_player(conn, "Zed"))
    return lambda: done(players.give_seat(conn, token, 1, other.id))


def _refresh(conn):
    a_finished_table(conn)
    return lambda: players.refresh(conn)


def _prepared(conn):
    token = done(night.prepare(conn, "rwd", 4, 1))[0]
    return lambda: table_writes.seat(conn, token, ["Ann", "Bo", "Cy", "Dee"], {})


def _unseat(conn):
    token = done(night.prepare(conn, "rwd", 4, 1))[0]
    table_writes.seat(conn, token, ["Ann", "Bo", "Cy", "Dee"], {})
    table_id = tables.load(conn, token).id
    return lambda: done(night.unseat(conn, table_id))


def _correct(conn):
    token = a_table_with_a_deal(conn)
    table = tables.load(conn, token)
    return lambda: tables.correct_deal(conn, token, 1, {"chips": [4, 3, 3, 3], "tricks": [7, 2, 2, 2]},
                                       was=tables.fingerprint(table.deals[0]))


def _a_pending_deal(conn) -> str:
    """A side table asking for confirmation, with a deal phone A saved (issue 45)."""
    token = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Dee"], {})
    done(tables.set_confirming(conn, token, True))
    done(tables.enter_deal(conn, token, 1, {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]}, who=Who("phone-a")))
    return token


def _a_disputed_deal(conn) -> str:
    """A side table's deal 1, saved by phone A, disputed by phone B (issue 45)."""
    token = _a_pending_deal(conn)
    done(tables.dispute(conn, token, 1, {"chips-0": "3", "chips-1": "3", "chips-2": "3", "chips-3": "4",
                                         "tricks-0": "2", "tricks-1": "7", "tricks-2": "2", "tricks-3": "2"},
                        who=Who("phone-b", opened_at="2000-01-01T00:00:00+00:00")))
    return token


def a_table_at_time(conn) -> str:
    """A round table with a deal played whose time is called: its match may end at time."""
    drawn = a_round(conn, 4)[1]
    token = drawn.tables[0].table.token
    table_writes.add_deal(conn, token, 1, RWD_DEAL)
    done(round_time.call_time_for_round(conn))
    return token


def _finish(conn):
    token = a_table_at_time(conn)
    return lambda: tables.finish_match(conn, token, True, time_up=lambda table: True)


def _reopen(conn):
    token = a_table_at_time(conn)
    tables.finish_match(conn, token, True, time_up=lambda table: True)
    return lambda: tables.finish_match(conn, token, False)


# Each write's scenario: given a connection, set the stage and return the write itself.
SCENARIOS: dict[str, list[tuple[str, Callable]]] = {
    "companion.tables.service:create": [
        ("a phone opens a table", lambda conn: lambda: table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy"], {})),
        ("the laptop opens a numbered one", lambda conn: lambda: table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy"], {},
                                                                               numbered=True))],
    "companion.tables.service:enter_deal": [
        ("a deal", lambda conn: (lambda token: lambda: tables.enter_deal(conn, token, 2, RWD_DEAL))(
            a_table_with_a_deal(conn))),
        ("the deal that ends the match", _last_deal)],
    "companion.tables.service:correct_deal": [("a correction", _correct), ("a correction once ended", _correct_ended)],
    "companion.tables.service:undo_deal": [
        ("an undo", lambda conn: (lambda token: lambda: tables.undo_deal(conn, token, 1))(a_table_with_a_deal(conn))),
        ("an undo that reopens the match", _undo_ended)],
    "companion.tables.service:finish_match": [("ended at time", _finish), ("reopened", _reopen)],
    "companion.tables.service:start_rematch": [
        ("a rematch", lambda conn: (lambda token: lambda: tables.start_rematch(conn, token))(a_finished_table(conn)))],
    "companion.night.service:start_night": [("a new night", lambda conn: lambda: done(night.start_night(conn)))],
    "companion.night.service:prepare": [("tables prepared", lambda conn: lambda: done(night.prepare(conn, "rwd", 4, 2)))],
    "companion.tables.service:seat": [("a prepared table gets its players", _prepared)],
    "companion.night.service:join": [("a name joins", lambda conn: lambda: done(night.join(conn, "Ann")))],
    "companion.night.service:rename": [
        ("a name corrected", lambda conn: (lambda ann: lambda: done(night.rename(conn, ann.id, "Anne")))(done(night.join(conn, "Ann"))))],
    "companion.night.service:set_left": [
        ("a player leaves", lambda conn: (lambda ann: lambda: done(night.set_left(conn, ann.id)))(done(night.join(conn, "Ann"))))],
    "companion.night.service:draw_round": [
        ("a round drawn", lambda conn: ([done(night.join(conn, n)) for n in ("Ann", "Bo", "Cy", "Dee")],
                                        lambda: done(night.draw_round(conn, offered=["rwd"], seed="walk")))[1])],
    "companion.night.round_time:start_next_night": [
        ("a new night, a match left playing", lambda conn: (_a_table_playing(conn),
                                                            lambda: done(round_time.start_next_night(conn, "leave")))[1])],
    "companion.night.service:redraw_round": [
        ("the round drawn again", lambda conn: (a_round(conn), lambda: done(night.redraw_round(conn)))[1])],
    "companion.night.service:set_away": [
        ("a player sits out the next round", lambda conn: (lambda ann: lambda: done(night.set_away(
            conn, ann.id, night.SIT_OUT)))(done(night.join(conn, "Ann"))))],
    "companion.night.claims:refuse_all": [("every phone asking for a name refused", _refuse_all)],
    "companion.night.game_requests:ask": [
        ("a player asks for a game for the next draw", lambda conn: (lambda ann: lambda: done(game_requests.ask(
            conn, ann.id, next(iter(GAMES)), learn=True)))(done(night.join(conn, "Ann"))))],
    "companion.night.service:set_room": [("the room's tables set", lambda conn: lambda: done(night.set_room(conn, "1-8")))],
    "companion.night.service:change_seat": [("a substitute takes a seat mid-match", _change_seat)],
    "companion.night.service:keep_at_table": [
        ("a player keeps a room table", lambda conn: (lambda ann, room: lambda: done(night.keep_at_table(
            conn, ann.id, room[0].id)))(done(night.join(conn, "Ann")), done(night.set_room(conn, "1-4"))))],
    "companion.night.service:swap": [("two players swapped", _swap)],
    "companion.night.service:join_table": [("a late arrival seated", _join_table)],
    "companion.night.service:leave_table": [("a player leaves a table", _leave_table)],
    "companion.night.service:start_clock": [
        ("the round clock started", lambda conn: (a_round(conn), lambda: done(night.start_clock(conn, 45)))[1])],
    "companion.night.service:start_round": [
        ("Start round 1", lambda conn: (a_round(conn), lambda: done(night.start_round(conn)))[1]),
        ("a round held for review shown", lambda conn: (done(night.set_review_draws(conn, True)), a_round(conn),
                                                        lambda: done(night.start_round(conn)))[2])],
    "companion.night.service:set_confirm_deals": [
        ("confirming turned on", lambda conn: lambda: done(night.set_confirm_deals(conn, True)))],
    "companion.tables.service:confirm": [
        ("another seat confirms a deal", lambda conn: (lambda token: lambda: done(tables.confirm(
            conn, token, who=Who("phone-b", opened_at="2000-01-01T00:00:00+00:00"))))(_a_pending_deal(conn)))],
    "companion.tables.service:dispute": [
        ("another seat disputes a deal", lambda conn: (lambda token: lambda: done(tables.dispute(
            conn, token, 1, {"chips-0": "3", "chips-1": "3", "chips-2": "3", "chips-3": "4", "tricks-0": "2",
                             "tricks-1": "7", "tricks-2": "2", "tricks-3": "2"},
            who=Who("phone-b", opened_at="2000-01-01T00:00:00+00:00"))))(_a_pending_deal(conn)))],
    "companion.tables.service:settle": [
        ("the organiser keeps the saved version", lambda conn: (lambda token: lambda: done(tables.settle(
            conn, token, 1, "saved")))(_a_disputed_deal(conn)))],
    "companion.tables.service:set_confirming": [
        ("a side table asks for confirmation", lambda conn: (lambda token: lambda: done(tables.set_confirming(
            conn, token, True)))(table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Dee"], {})))],
    "companion.night.service:set_review_draws": [
        ("each draw held for review", lambda conn: lambda: done(night.set_review_draws(conn, True)))],
    "companion.night.service:pause_clock": [
        ("the clock paused", lambda conn: (a_round(conn), done(night.start_round(conn)),
                                           lambda: done(night.pause_clock(conn)))[2])],
    "companion.night.service:extend_tables": [
        ("every table gets more time", lambda conn: (lambda drawn: lambda: done(night.extend_tables(
            conn, [rt.table.id for rt in drawn.tables])))(a_round(conn)[1]))],
    "companion.night.service:extend_table": [
        ("one table gets more time", lambda conn: (lambda drawn: lambda: done(night.extend_table(
            conn, drawn.tables[0].table.id)))(a_round(conn)[1]))],
    "companion.night.service:unseat": [("a table waits for its players again", _unseat)],
    "companion.night.round_time:call_time": [
        ("time called for one table", lambda conn: (lambda drawn: lambda: done(round_time.call_time(
            conn, drawn.tables[1].table.id)))(a_round(conn)[1]))],
    "companion.night.round_time:call_time_for_round": [
        ("time called for the round", lambda conn: (a_round(conn), lambda: done(round_time.call_time_for_round(conn)))[1])],
    "companion.night.side_tables:add_to_night": [("a side table added to tonight", _side_table)],
    # Rolling tables (issue 47): the settings seat whoever can play; a later fill seats newcomers;
    # back to rounds; a table's players let go (and seated again); one table's clock paused.
    "companion.night.rolling:set_rolling": [
        ("rolling tables seat four", lambda conn: (_four(conn), lambda: done(rolling.set_rolling(conn, {"rwd": 2})))[1])],
    "companion.night.rolling:set_rounds": [
        ("back to rounds", lambda conn: (done(rolling.set_rolling(conn, {"rwd": 1})),
                                         lambda: done(rolling.set_rounds(conn)))[1])],
    "companion.night.rolling:_seat_free": [  # rolling.fill announces it
        ("four more seated", lambda conn: (_four(conn), done(rolling.set_rolling(conn, {"rwd": 2})),
                                           _four(conn, ("Eve", "Fay", "Gus", "Hal")), lambda: done(rolling.fill(conn)))[3])],
    "companion.night.rolling:release": [
        ("a table's players let go", lambda conn: (_four(conn), done(rolling.set_rolling(conn, {"rwd": 1})),
                                                   lambda: done(rolling.release(conn, _rolling_table(conn))))[2])],
    "companion.night.rolling:pause_table": [
        ("one table's clock paused", lambda conn: (_four(conn), done(rolling.set_rolling(conn, {"rwd": 1})),
                                                   lambda: done(rolling.pause_table(conn, _rolling_table(conn))))[2])],
    "companion.night.claims:_join_as": [
        ("a phone joins", lambda conn: lambda: done(claims.join_as(conn, "device-1", "127.0.0.2", name="Ann")))],
    "companion.night.claims:answer": [("the organiser gives a name", _claim)],
    "companion.night.claims:give_up": [("a phone gives up a typo", _give_up_typo),
                                       ("a phone gives up a name the organiser added", _give_up_added)],
    "companion.night.claims:remove_players": [
        ("names removed", lambda conn: (lambda ids: lambda: done(claims.remove_players(conn, ids)))(
            [done(night.join(conn, n)).id for n in ("Ann", "Bo")]))],
    "companion.players.service:refresh": [("the season reads a finished match", _refresh)],
    "companion.players.service:ensure_player": [
        ("a roster name becomes a player", lambda conn: lambda: done(players.ensure_player(conn, "Newcomer")))],
    "companion.players.service:merge": [("two spellings merged", _merge)],
    "companion.players.service:rename": [
        ("a player renamed", lambda conn: (lambda ann: lambda: done(players.rename(conn, ann.id, "Annie")))(
            done(players.ensure_player(conn, "Ann"))))],
    "companion.players.service:keep_apart": [("a namesake kept apart", _keep_apart)],
    "companion.players.service:give_seat": [("a seat given to another player", _give_seat)],
    "companion.players.service:forget_player": [("a player forgotten on request", _forget)],
    "companion.players.service:show_ratings_to_everyone": [
        ("ratings shown to every phone", lambda conn: lambda: players.show_ratings_to_everyone(conn, True))],
}


def test_the_walk_covers_every_write():
    found = writes_in_features()
    assert len(found) >= 25, sorted(found)  # the reader finds them
    assert set(SCENARIOS) == found, (f"writes with no scenario: {sorted(found - set(SCENARIOS))}; "
                                     f"scenarios of no write: {sorted(set(SCENARIOS) - found)}")


@pytest.mark.parametrize("write,case", [(w, i) for w, cases in SCENARIOS.items() for i in range(len(cases))],
                         ids=lambda v: v if isinstance(v, str) else str(v))
def test_a_subscriber_hears_exactly_what_the_write_changed(conn, write, case):
    what, stage = SCENARIOS[write][case]
    run = stage(conn)
    if write != "companion.players.service:refresh":
        players.refresh(conn)  # the season has read the stage: what moves now is the write's
    before = snapshot(conn)
    said: list[changes.Change] = []
    stop = changes.subscribe(said.append)
    try:
        run()
    finally:
        stop()
    moved = what_moved(before, snapshot(conn))
    assert moved, f"{write} ({what}) changed nothing: the scenario proves nothing"
    told = [heard(change) for change in said]
    assert len(told) == len(set(told)), f"{write} ({what}) announced a change twice: {told}"
    assert sorted(told) == moved, f"{write} ({what}): announced {sorted(told)}, the store moved {moved}"
