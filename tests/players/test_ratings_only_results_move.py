"""Ratings only results move (issue 43), as a property: after a season of finished matches, any
sequence of writes that changes no result (a correction keeping every place, an undo and the
same deal entered again, a Rematch press, a side table opened and abandoned, a rename) leaves
every player's μ and σ exactly equal (==). Before, the replay was ordered by each table's last
change, so a Rematch press or a correction reordered the season. Slow tier (hypothesis)."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import store
from companion.players import service as players
from companion.tables import service as tables
import table_writes
from table_writes import done

pytestmark = pytest.mark.slow

NAMES = ["Ann", "Bo", "Cy", "Di", "Eve"]
SEATINGS = [NAMES[:4], NAMES[1:], [NAMES[0], NAMES[2], NAMES[3], NAMES[4]]]


class Clock:
    """The domain's clock, a minute on at every write: every write is later than the last."""

    def __init__(self):
        self.ticks = itertools.count()

    def __call__(self) -> str:
        minutes = next(self.ticks)
        return f"2026-11-20T{18 + minutes // 60:02d}:{minutes % 60:02d}:00+00:00"


def season(conn) -> list[str]:
    """Three finished matches of four among five players, each with its own winner."""
    return [table_writes.finished_match(conn, seated, number % 4) for number, seated in enumerate(SEATINGS)]


def ratings(conn) -> dict:
    players.refresh(conn)
    rated = players.ratings(conn)
    return {"overall": {k: (r.mu, r.sigma) for k, r in rated.overall.items()},
            "games": {g: {k: (r.mu, r.sigma) for k, r in by.items()} for g, by in rated.by_game.items()}}


def correct_keeping_places(conn, token: str) -> None:
    table = tables.load(conn, token)
    first = table.deals[0]
    chips = list(reversed(first["chips"])) if first["chips"] != list(reversed(first["chips"])) else first["chips"]
    changed = dict(first, chips=chips)  # who had which chips: the same deal winner, the same places
    written = tables.correct_deal(conn, token, 1, changed, was=tables.fingerprint(first))
    assert written.saved, written


def undo_and_enter_again(conn, token: str) -> None:
    table = tables.load(conn, token)
    last = len(table.deals)
    facts = table.deals[-1]
    assert tables.undo_deal(conn, token, last).saved
    table_writes.add_deal(conn, token, last, facts)


def rematch(conn, token: str) -> None:
    assert tables.start_rematch(conn, token).saved


def side_table_abandoned(conn, token: str) -> None:
    opened = table_writes.create(conn, "rwd", NAMES[:4], {})
    table_writes.add_deal(conn, opened, 1, table_writes.rwd_win(2))  # never finished


def rename(conn, token: str) -> None:
    players.refresh(conn)
    bo = players.player_of_name(conn, "Bo") or players.player_of_name(conn, "Bob")
    done(players.rename(conn, bo.id, "Bob" if bo.name == "Bo" else "Bo"))


WRITES = [correct_keeping_places, undo_and_enter_again, rematch, side_table_abandoned, rename]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(WRITES), st.integers(0, len(SEATINGS) - 1)), min_size=1, max_size=6))
def test_writes_that_change_no_result_move_no_rating(monkeypatch, steps):
    monkeypatch.setattr(tables, "now", Clock())
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "season.sqlite")
        store.migrate(path)
        conn = store.connect(path)
        try:
            tokens = season(conn)
            before = ratings(conn)
            for write, which in steps:
                write(conn, tokens[which])
                assert ratings(conn) == before, [w.__name__ for w, _ in steps]
        finally:
            conn.close()
