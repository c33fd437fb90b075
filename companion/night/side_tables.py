"""Side tables of a meetup night (issue 33).

The night counts its drawn tables, the tables the laptop opens or prepares, and the tables the
organiser adds to it: each has a number in the night ("Table 7"). A table phones opened outside
the draws is a *side table*: shown apart on the hall, on neither the board's count nor the
leaderboard, until the organiser adds it to tonight (it then gets the night's next number).
"""

from __future__ import annotations

from ..tables import service as table_service
from ..changes import Change, publish
from ..outcomes import Done, done, not_found
from ..store import Connection, write
from ..store import nights as night_rows
from ..store import tables as table_rows


def side_tables(conn: Connection, newest: int | None = None) -> list[table_service.Table]:
    """Tonight's side tables, in the order they were opened: opened by phones outside the
    draws and played (or rematches), not added to the night. ``newest``: only the last so many
    (phones may open hundreds: the hall loads what it shows, issue 32)."""
    found = (table_service.table_of(record)
             for record in table_rows.tables_after(conn, night_rows.night_after_table(conn), unnumbered=True,
                                                   newest=newest))
    return [table for table in found if table is not None]


def side_table_count(conn: Connection) -> int:
    """How many side tables tonight has (none loaded)."""
    return table_rows.count_tables_after(conn, night_rows.night_after_table(conn), unnumbered=True)


def add_to_night(conn: Connection, table_id: int) -> Done:
    """The organiser adds a side table to tonight: it gets the night's next number and counts
    from now on (the board, the leaderboard, the exports). Its value: that number."""
    with write(conn):
        table = next((t for t in side_tables(conn) if t.id == table_id), None)
        if table is None:
            return not_found()
        number = night_rows.next_table_number(conn)
        revision = table_rows.add_to_night(conn, table_id, number)
    publish(Change("night"))
    if revision is not None:  # its phones show its number now
        publish(Change("table", table.token, revision))
    return done(number)
