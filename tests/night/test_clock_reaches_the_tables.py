"""A round's clock reaches its tables' phones by push (issue 41): starting the clock, more time
for one table, time called for one table or for the round, and a side table added to tonight
each move the tables' revisions in the store and announce them, so a table page's stream
(companion/serving/events.py's Watch, fed only by the announcements) wakes at once.
Before, each of these reached the phones only through the clock's 15-second poll: the watch was
told nothing (start_clock, extend_table, add_to_night) or told a revision it already had
(call_time, call_time_for_round)."""

from __future__ import annotations

import pytest

from companion.night import round_time, side_tables
from companion.night import service as night
from companion.serving.events import Watch
from companion.store import Revisions
from companion.tables import service as tables
import table_writes
from table_writes import done

RWD_DEAL = {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]}


@pytest.fixture
def watch(app):
    watching = Watch(Revisions(lambda: app.config["DATABASE"]))
    yield watching
    watching.close()


def a_round(conn):
    for name in ["Ann", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]:
        done(night.join(conn, name))
    return done(night.draw_round(conn, offered=["rwd"], seed="clock", minutes=30))


def woken(watch: Watch, shown: dict[str, int]) -> dict[str, bool]:
    """Per watched table, whether its streams would wake now (its known revision moved)."""
    return {token: watch.wait(token, revision, timeout=0) != revision for token, revision in shown.items()}


def watching(watch: Watch, tokens) -> dict[str, int]:
    return {token: watch.watch(token) for token in tokens}


def test_starting_the_clock_wakes_every_table_of_the_round(conn, watch):
    drawn = a_round(conn)
    shown = watching(watch, [rt.table.token for rt in drawn.tables])
    done(night.start_clock(conn, 45))
    assert woken(watch, shown) == {token: True for token in shown}


def test_more_time_for_one_table_wakes_that_table_only(conn, watch):
    drawn = a_round(conn)
    shown = watching(watch, [rt.table.token for rt in drawn.tables])
    done(night.extend_table(conn, drawn.tables[0].table.id))
    assert woken(watch, shown) == {rt.table.token: i == 0 for i, rt in enumerate(drawn.tables)}


def test_time_called_for_one_table_wakes_it(conn, watch):
    drawn = a_round(conn)
    shown = watching(watch, [rt.table.token for rt in drawn.tables])
    done(round_time.call_time(conn, drawn.tables[1].table.id))
    assert woken(watch, shown) == {rt.table.token: i == 1 for i, rt in enumerate(drawn.tables)}


def test_time_called_for_the_round_wakes_every_unfinished_table(conn, watch):
    drawn = a_round(conn)
    over = drawn.tables[0].table
    table = tables.load(conn, over.token)
    while not table.match().over:
        table = table_writes.add_deal(conn, table.token, len(table.deals) + 1, RWD_DEAL)
    shown = watching(watch, [rt.table.token for rt in drawn.tables])
    done(round_time.call_time_for_round(conn))
    assert woken(watch, shown) == {rt.table.token: i != 0 for i, rt in enumerate(drawn.tables)}


def test_a_side_table_added_to_tonight_wakes_its_phones(conn, watch):
    done(night.start_night(conn))
    token = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Dee"], {})
    table_writes.add_deal(conn, token, 1, RWD_DEAL)
    shown = watching(watch, [token])
    done(side_tables.add_to_night(conn, tables.load(conn, token).id))
    assert woken(watch, shown) == {token: True}
    # ... at the revision the store has, not one guessed: the "unchanged?" answer agrees
    assert watch.revision(token) == tables.revision(conn, token)
