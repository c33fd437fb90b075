"""Side tables of a meetup night (issue 33).

The night counts its drawn tables, the tables the laptop opens or prepares, and the tables the
organiser adds to it: each has a number in the night ("Table 7"). A table phones opened outside
the draws is a *side table*: shown apart on the hall, on neither the board's count nor the
leaderboard, nor in the season, until the organiser adds it to its night (it then gets that
night's next number: from the hall tonight, from the players list afterwards).
"""

from __future__ import annotations

from ..tables import service as table_service
from ..changes import Change, publish
from ..outcomes import Done, done, not_found
from ..store import Connection, write
from ..store import nights as night_rows
from ..store import players as player_rows
from ..store import tables as table_rows


# A device that opened more tables than this tonight is named on the hall (issue 43: a
# stranger's phone opened ten side tables with real players' names in a second).
BUSY_OPENER = 5


def side_tables(conn: Connection, newest: int | None = None, skip: int = 0) -> list[table_service.Table]:
    """Tonight's side tables, in the order they were opened: opened by phones outside the
    draws and played (or rematches), not added to the night. ``newest``: only the last so many,
    past the ``skip`` newest (phones may open hundreds: the hall loads what it shows, a page at
    a time, issue 32)."""
    found = (table_service.table_of(record)
             for record in table_rows.tables_after(conn, night_rows.night_after_table(conn), unnumbered=True,
                                                   newest=newest, skip=skip))
    return [table for table in found if table is not None]


def busy_devices(conn: Connection) -> list[tuple[str, int]]:
    """The phones (by address) that opened more than :data:`BUSY_OPENER` tables tonight, played
    or not, and how many each, the most first."""
    return table_rows.busy_openers(conn, night_rows.night_after_table(conn), BUSY_OPENER)


def side_table_count(conn: Connection) -> int:
    """How many side tables tonight has (none loaded)."""
    return table_rows.count_tables_after(conn, night_rows.night_after_table(conn), unnumbered=True)


def add_to_night(conn: Connection, table_id: int) -> Done:
    """The organiser counts a table phones opened outside the draws: it gets the next number in
    its night (tonight's, or the past night it was played in) and counts from now on: that
    night's board, leaderboard and exports, and the season (issue 43: the season and ratings
    read counted matches only). Its value: that number."""
    with write(conn):
        found = table_rows.numbering(conn, table_id)
        if found is None or found[1] is not None:
            return not_found()
        token = found[0]
        number = night_rows.number_in_night_of(conn, table_id)
        revision = table_rows.add_to_night(conn, table_id, number)
        season = player_rows.move_season(conn)  # its match, if ended, counts now
    publish(Change("night"))
    if revision is not None:  # its phones show its number now
        publish(Change("table", token, revision))
    publish(Change("players", "", season))
    return done(number)
