"""Calling time on a meetup night's round, and a round that ends (issue 33).

When a round table's time is up (the round clock reached zero, with the table's extension, or
the organiser called time for it), its players may end their match with the deals played: one
tap on the table, after saving the deal they were typing. The organiser may do the same for every
unfinished table of the latest round in one action. Either way it is the table's ordinary finish
(``tables.service.finish_match``) marked *at time*: the result follows the game's own rule for it
(``Game.outcome_at_time``, declared as the game's ``at_time`` ruling) and reopening undoes it.

Once every table of a round has a result, the round is over: its clock stops, and the hall, the
tables and the phones say so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Mapping, Sequence

from . import service
from ..tables import service as table_service
from ..changes import Change, publish
from ..games import FieldError
from ..games.text import NameList, T, Text
from ..outcomes import Done, Outcome, done, not_found, refused
from ..store import Connection, write
from ..store import nights as night_rows
from ..store import tables as table_rows


def _row_seconds(found: Mapping, now: datetime | None = None) -> int | None:
    """A round table's seconds left, from its ``night_rows.table_round`` row (service.clock_left)."""
    return service.clock_left(found["minutes"], found["clock_from"], found["extra_minutes"], found.get("paused_at"),
                              now)


def _row_time_up(found: Mapping, now: datetime | None = None) -> bool:
    """Whether a round table's time is up, from its ``night_rows.table_round`` row."""
    return bool(found.get("time_called")) or _row_seconds(found, now) == 0


def time_is_up(conn: Connection, table: table_service.Table) -> bool:
    """Whether ``table`` is a round table whose time is up (clock at zero, or time called)."""
    found = night_rows.table_round(conn, table.id)
    return found is not None and _row_time_up(found)


def round_time_is_up(r: service.Round, rt: service.RoundTable, now: datetime | None = None) -> bool:
    return bool(rt.time_called) or r.seconds_left(rt, now) == 0


def round_over(r: service.Round | None) -> bool:
    """Every table of the round has a result (its match is over, by its rules, by hand or at
    time) and none waits for the organiser to settle a dispute (issue 45)."""
    return r is not None and bool(r.tables) and all(rt.table.match().over and not rt.table.disputes
                                                    for rt in r.tables)


def named(table: table_service.Table, number: int | None = None) -> Text | str:
    """A table as the hall names it, in a sentence of this module's (which has no Flask):
    "Table 3", a room's "Window" (tables.links.label_text's rule, as a Text)."""
    label = table.label or str(table.seq or number or "")
    return T("Table {n}", n=label) if label.isdigit() else label


def disputed_refusal(tables: Sequence[table_service.Table]) -> FieldError | None:
    """Tables whose disputes the organiser must settle before the next draw or night (issue 45),
    named with their deals: the room waits for them as for a table still playing."""
    waiting = [T("{table}, deal {n}", table=named(t), n=d["number"]) for t in tables for d in t.disputes]
    if not waiting:
        return None
    return FieldError("disputed", T("Settle first (Disputes, on the hall): {tables}. Both versions wait there.",
                                      tables=NameList(waiting)))


def can_end_at_time(r: service.Round, rt: service.RoundTable) -> bool:
    """The table may end its match at time now: a deal is played, it runs, and its time is up."""
    return bool(rt.table.deals) and not rt.table.match().over and round_time_is_up(r, rt)


def end_at_time(conn: Connection, token: str, write_id: str | None = None) -> table_service.Written:
    """A round table's players end their match with the deals played, once its time is up: a
    table write, answered as every one (refused, field "finished", when it may not, saying why)."""
    return table_service.finish_match(conn, token, True, write_id=write_id, time_up=lambda table: time_is_up(conn, table))


def left_playing(rounds: list[service.Round]) -> list[tuple[service.Round, service.RoundTable]]:
    """Tables of earlier rounds still playing (a deal played, no result yet) when a later round
    was drawn: left playing by the organiser (issue 44), as if their round were the latest."""
    return service.still_playing(rounds[:-1])


def playing_now(rounds: list[service.Round]) -> list[tuple[service.Round, service.RoundTable]]:
    """Every table whose time the organiser may call or end now: the latest round's unfinished
    tables and the tables left playing from earlier rounds, whatever their round (no table is
    ever stranded without Call time and End at time)."""
    if not rounds:
        return []
    if rounds[-1].rolling:  # rolling tables (issue 47): every table is its own round
        return [(r, rt) for r in rounds for rt in unfinished(r)]
    return left_playing(rounds) + [(rounds[-1], rt) for rt in unfinished(rounds[-1])]


def call_time(conn: Connection, table_id: int) -> Done:
    """The organiser calls time for one table playing now (:func:`playing_now`): its players may
    end the match."""
    if table_id not in {rt.table.id for _r, rt in playing_now(service.night_rounds(conn))}:
        return not_found()
    with write(conn):
        night_rows.call_time(conn, [table_id], table_service.now())
        moved = table_rows.shown_again(conn, [table_id])  # its phones now offer the end at time
    publish(Change("night"))
    service.publish_tables(moved)
    return done()


def unfinished(r: service.Round) -> list[service.RoundTable]:
    return [rt for rt in r.tables if not rt.table.match().over]


def clock_seconds(r: service.Round) -> int | None:
    """The round's clock as the hall and the screen show it: the seconds left, but 0 once time
    is called for every table still playing (the clock counted on, 29:19, while every table was
    told time is up); None: the round has no clock."""
    seconds = r.seconds_left()
    running = unfinished(r)
    if seconds is not None and running and all(rt.time_called for rt in running):
        return 0
    return seconds


def call_time_for_round(conn: Connection) -> Done:
    """The organiser calls time for every unfinished table of the latest round and every table
    left playing from an earlier one; its value: their ids (refused before a round is drawn)."""
    rounds = service.night_rounds(conn)
    if not rounds:
        return service.no_round()
    ids = [rt.table.id for _r, rt in playing_now(rounds)]
    with write(conn):
        night_rows.call_time(conn, ids, table_service.now())
        moved = table_rows.shown_again(conn, ids)  # their phones now offer the end at time
    publish(Change("night"))
    service.publish_tables(moved)
    return done(ids)


def end_round_at_time(conn: Connection) -> Done:
    """The organiser's one action: time is called for every unfinished table of the latest round
    and each with a deal played ends at time. Its value: (the tables ended, those left running:
    no deal played yet, so no result to end with); refused before a round is drawn."""
    called = call_time_for_round(conn)
    if not called.saved:
        return called
    ended, left = [], []
    for _r, rt in playing_now(service.night_rounds(conn)):
        if not rt.table.deals:
            left.append(rt)
            continue
        if end_at_time(conn, rt.table.token).outcome is Outcome.SAVED:
            ended.append(rt)  # else a phone ended it (or saved the deal that ends it) meanwhile
    return done((ended, left))


def table_clock(conn: Connection, table: table_service.Table) -> dict | None:
    """A round table's clock for its phones: {"round", "table", "seconds"} (seconds None: no clock
    running, or the match is over), or None for a table outside the night's rounds."""
    found = night_rows.table_round(conn, table.id)
    if found is None:
        return None
    # Named as the hall board names it (the night-wide number, or the organiser's label), not by
    # its number within the round.
    numbered = table.label is not None and table.label.isdigit()  # a room's table "3": "Table 3"
    clock = {"round": found["number"], "table": table.label if numbered else table.seq or found["table_number"],
             "label": None if numbered else table.label,
             "seconds": None, "paused": bool(found.get("paused_at")),
             "rolling": service.rolling_night(conn)}  # issue 47: the table's own clock, no round
    if not table.match().over:
        clock["seconds"] = _row_seconds(found)
    return table_clock_ending(conn, table, found, clock)


def table_clock_ending(conn: Connection, table: table_service.Table, found: Mapping, clock: dict) -> dict:
    """A round table's clock (:func:`table_clock`) with what calling time adds: ``time_up``
    (the table may end its match at time now), ``at_time`` (it did), ``round_over`` (every
    table of its round has a result: the clock stops)."""
    match = table.match()
    clock.update(time_up=False, at_time=match.at_time, round_over=False)
    if match.over and not clock.get("rolling"):  # a rolling table has no round to wait for
        r = next((r for r in service.night_rounds(conn) if r.id == found["id"]), None)
        clock["round_over"] = round_over(r)
    elif _row_time_up(found):
        clock["time_up"] = bool(table.deals)
        clock["seconds"] = 0
    return clock


# --------------------------------------------------------------------------
# The next round while tables still play (issue 44: no table is ever stranded)

LEAVE, END = "leave", "end"  # what the organiser chose for the tables still playing


def draw_next_round(conn: Connection, unfinished_tables: str | None = None, **draw) -> Done:
    """Draw the next round (``draw``: :func:`service.draw_round`'s choices). Where tables still
    play, refused (field "unfinished", naming them) until the organiser chooses: ``"leave"``
    them playing (their players sit this draw out and join the next; their phones keep Call time
    and End at time), or ``"end"`` them at time now (each ends with the deals played, by its
    game's ruling). A table with no deal played is not playing: its players are drawn again."""
    rounds = service.night_rounds(conn)
    if service.rolling_night(conn):  # issue 47: tonight's tables start by themselves
        return refused([FieldError("rolling", T("Tonight runs as rolling tables: each table starts by itself as soon "
                                              "as enough players are free."))])
    if (disputed := disputed_refusal([rt.table for r in rounds for rt in r.tables])) is not None:
        return refused([disputed])
    playing = [rt for _r, rt in service.still_playing(rounds)]
    if playing and unfinished_tables not in (LEAVE, END):
        # Named as the hall names them ("Table 3", a room's "Window"), 「、」 between them in Japanese.
        labels = NameList([named(rt.table, rt.number) for rt in playing])
        return refused([FieldError("unfinished", T(
            "Still playing: {tables}. Choose below: leave them playing (their players sit out this draw and "
            "join the next) or end them at time now.", tables=labels))])
    if playing and unfinished_tables == END:
        for rt in playing:  # the organiser's word is the time called: each ends now, as the hall's End at time
            table_service.finish_match(conn, rt.table.token, True, time_up=lambda _table: True)
        playing = []
    return service.draw_round(conn, left_playing=playing, **draw)


def start_next_night(conn: Connection, unfinished_tables: str | None = None) -> Done:
    """Start a new night. Where tonight's matches are still being played (seated, no result),
    refused (field "unfinished") until the organiser chooses, as for the next draw: ``"leave"``
    them playing (they stay playable by their links, and their phones may change them as if
    their round were the latest, until the window after their end) or ``"end"`` them at time now
    (each with a deal played ends with the deals played). Its value: when the night began."""
    tonight = service.night_tables(conn)
    if (disputed := disputed_refusal(tonight)) is not None:
        return refused([disputed])
    running = [t for t in tonight if t.seated and not t.match().over]
    if running and unfinished_tables not in (LEAVE, END):
        return refused([FieldError("unfinished", T(
            "Choose what happens to the matches still being played: leave them playing, or end them at time now."))])
    if unfinished_tables == END:
        for table in running:
            if table.deals:
                table_service.finish_match(conn, table.token, True, time_up=lambda _table: True)
    elif running:
        with write(conn):
            night_rows.leave_playing(conn, [t.id for t in running])
    return service.start_night(conn)
