"""Tables: one match each, stored as raw facts per deal.

Every change runs in one ``BEGIN IMMEDIATE`` transaction that re-reads the
table, replays the match with the change applied and only then writes, so two
phones acting at once can neither double nor lose a deal, and nothing invalid
is ever stored. Every change is appended to a log with its before/after facts.

This is the service layer: the rules (replay, checks, corrections) decide, and
:mod:`companion.store` stores; no SQL here (package :mod:`companion.tables`: this
service, its blueprint ``views``, its ``exports``). Every change accepts an optional ``write_id``
(a phone's name for the change, at most 64 characters): the change and its outcome are
stored in one transaction, and the same ``write_id`` sent again changes nothing and answers
:attr:`Outcome.REPEATED` carrying the first outcome (``{"action": "add", "number": 3}``…).
Every change returns a :class:`Written` (companion/outcomes.py), never raises its decision.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field, replace
from functools import cached_property
from datetime import datetime, timezone
from typing import Any, Callable, Mapping, Sequence

from ..games import GAMES, DealScore, Game, InvalidDeal, Match, MatchSetup, Progress
from ..lru import BytesLRU
from ..games import Choice, FieldError
from ..games.contract import after_end
from ..games.text import T, Text, Tn, join_sentences
# Names are cleaned and compared in companion/names.py (pure: the meetup roster and the season's
# statistics compare names by this same rule without importing storage).
from ..names import clean_name, name_key  # noqa: F401
from .confirming import LAPTOP, ToConfirm, Who, why_not
from ..changes import Change, publish
from ..numbers import ascii_number
# The one vocabulary of writes (issue 41), the tables' by these names too.
from ..outcomes import Outcome, Result  # noqa: F401  (Outcome: the tables' callers name it from here)
from ..store import Connection, write  # noqa: F401  (write: night.service and callers use it from here)
from ..store import tables as table_rows
from ..store import nights as night_rows
from ..store import players as player_rows
from ..store.errors import Conflict, NotFound, Repeated  # noqa: F401  (the domain's conflicts are the store's)

MAX_NAME = 40
MAX_DEALS = 100  # far beyond any real match (the table page says so); keeps a replay cheap


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_token() -> str:
    """Unguessable link token: 128 bits from the OS CSPRNG, URL-safe."""
    return secrets.token_urlsafe(16)


def facts_json(facts: dict[str, Any]) -> str:
    return json.dumps(facts, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def fingerprint(facts: dict[str, Any]) -> str:
    """Short hash of a deal's facts: an edit form carries it to detect a concurrent change."""
    return hashlib.sha256(facts_json(facts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Table:
    id: int
    token: str
    game: Game
    setup: MatchSetup
    finished: bool
    revision: int
    created_at: str
    updated_at: str
    deals: tuple[dict[str, Any], ...]
    label: str | None = None  # the organiser's label of a prepared table ("Cube 3"), if any
    seated: bool = True  # False while a prepared table waits for its players' names
    rematch_token: str | None = None  # the table its rematch started, once someone pressed Rematch
    seq: int | None = None  # a prepared table's number in its night (shown as "Table 3")
    ended_at_time: bool = False  # its players ended the match with the deals played when time was called
    ended_at: str | None = None  # its match's finishing moment (UTC, ISO; see season_moved); None: never ended
    ended_deals: int | None = None  # the deals it had then
    opened_from: str | None = None  # the address of the phone that opened it (None: the laptop)
    room_table: int | None = None  # the room's table it is played at (issue 44), if the room has them
    confirm: bool | None = None  # asks another seat to confirm each deal (issue 45); None: not decided yet
    pending: tuple[dict[str, Any] | None, ...] = ()  # per deal: who saved it, while it waits for confirmation
    pending_undos: tuple[dict[str, Any], ...] = ()  # confirmed deals undone, the undo waiting for confirmation
    disputes: tuple[dict[str, Any], ...] = ()  # another seat's version of a waiting deal, for the organiser

    def disputed(self, number: int) -> dict[str, Any] | None:
        """The open dispute over deal ``number``, if any."""
        return next((d for d in self.disputes if d["number"] == number), None)

    def to_confirm(self) -> tuple[ToConfirm, ...]:
        """What waits for another seat's confirmation, in deal order (issue 45)."""
        found = [ToConfirm("deal", number, by) for number, by in enumerate(self.pending, start=1) if by]
        found += [ToConfirm("undo", undo["number"], undo) for undo in self.pending_undos]
        return tuple(sorted(found, key=lambda item: (item.number, item.kind)))

    @property
    def confirmed(self) -> bool:
        """Nothing waits for confirmation: outside the table its match counts (once over)."""
        return not any(self.pending) and not self.pending_undos

    def teams(self) -> tuple[int, ...] | None:
        """Each seat's team in a team game (None: everyone plays alone)."""
        n = len(self.setup.players)
        found = tuple(self.game.team_of(n, seat) for seat in range(n))
        return None if all(team is None for team in found) else tuple(-1 - s if t is None else t
                                                                       for s, t in enumerate(found))

    def progress(self, upto: int | None = None) -> Progress:
        """The match state after the first ``upto`` stored deals (all by default)."""
        if upto is None or upto >= len(self.deals):
            return self._replayed
        return self._replay(upto)

    def _replay(self, upto: int) -> Progress:
        progress = self.game.start(self.setup)
        for facts in self.deals[:upto]:
            progress = self.game.add_deal(progress, facts)
        return progress

    @cached_property
    def _replayed(self) -> Progress:
        # A page asks for the standings several times; the table is immutable, so replay once,
        # and remember it per revision: every phone's next request asks about the same state.
        key = (self.token, self.revision, len(self.deals))
        progress = REPLAYS.get(key)
        if progress is None:
            progress = self._replay(len(self.deals))
            REPLAYS.put(key, progress)
        return progress

    def match(self) -> Match:
        return self._concluded

    @cached_property
    def _concluded(self) -> Match:
        return self.game.conclude(self.progress(), self.finished, self.ended_at_time)

    def can_finish(self) -> bool:
        """Whether ending the match by hand means something: only after a deal, and where the
        rules let a match end by agreement (an open-ended match, accepting a tie)."""
        return bool(self.deals) and self.game.outcome(self.progress(), True).over


class ReplayCache(BytesLRU):
    """The replayed match per (token, revision, deals), for the most recently used tables.

    Every change bumps the revision, so a stored entry can never go stale; it only saves
    replaying the same facts again. ``Progress`` is immutable, so threads may share it.
    Bounded by an estimate of the bytes it holds, not by entries: one 500-deal table weighs
    as much as hundreds of fresh ones (the one byte-bounded LRU, companion.lru, weighing
    each match with :func:`progress_bytes`).
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024):
        super().__init__(max_bytes, size=progress_bytes)


# Measured with a deep sizeof of replayed matches (tests/web/test_caches.py checks the estimate
# stays above the real size): a deal record of the biggest built-in game (4 players) holds
# about 5 KB, its facts'
# JSON about 60 bytes; score lines and totals grow with the players.
PROGRESS_BASE_BYTES = 4_000
DEAL_BYTES_PER_FACT_BYTE = 24
DEAL_BYTES_PER_PLAYER = 1_100


def progress_bytes(progress: Progress) -> int:
    """An upper estimate of the memory a replayed match holds (cheap: no deep walk)."""
    players = len(progress.setup.players)
    total = PROGRESS_BASE_BYTES
    for record in progress.deals:
        total += DEAL_BYTES_PER_FACT_BYTE * len(facts_json(record.facts)) + DEAL_BYTES_PER_PLAYER * players
    return total


REPLAYS = ReplayCache()


class Refused(Exception):
    """The change breaks the rules; errors say which field and why."""

    def __init__(self, errors: Sequence[FieldError]):
        self.errors = list(errors)
        super().__init__("; ".join(str(e.message) for e in self.errors))


@dataclass(frozen=True)
class Written(Result):
    """What a table write did (companion/outcomes.py: ``outcome``, ``errors``, ``message``: a
    conflict's sentence), with the table as read inside its transaction (after the change when
    it was saved), so the page that answers needs no second read."""

    table: Table | None
    number: int | None = None  # the deal concerned (a repeated write's: the first time's)
    mine: DealScore | None = None  # a conflict on a recorded deal: what this phone's entry would score
    later_choices: tuple[tuple[int, Choice], ...] = ()  # a correction's later choices to ask again
    unanswered: tuple[int, ...] = ()
    removal: tuple[int, int] | None = None  # a correction ending the match earlier: (first, last) deals after it
    recorded: dict[str, Any] = field(default_factory=dict)  # a repeated write's first outcome
    undone: dict[str, Any] | None = None  # the facts of the deal an undo removed
    rematch_token: str | None = None  # the rematch's table
    lock: Any = None  # LOCKED: why this device may not (a companion.tables.access.Lock)
    season: int | None = None  # the season's version, where this write moved it (see season_moved)

    @property
    def saved(self) -> bool:
        """The change is stored (now, or by the first sending of this write, or it was already)."""
        return self.outcome in (Outcome.SAVED, Outcome.REPEATED, Outcome.SAME)

    @property
    def collides(self) -> bool:
        """A conflict over a deal that is recorded (another phone entered or changed it first)."""
        return (self.outcome in (Outcome.CONFLICT, Outcome.SAME) and self.table is not None
                and self.number is not None and 1 <= self.number <= len(self.table.deals))


def announced(written: Written) -> Written:
    """A committed write, published (companion/changes.py) so every phone at the table hears of
    it, and every season page too where it moved the season: called after the write's
    transaction, never inside it."""
    publish(Change("table", written.table.token, written.table.revision))
    if written.season is not None:
        publish(Change("players", "", written.season))
    return written


def season_moved(conn: Connection, before: Table, after: Table, stamp: str | None = None) -> int | None:
    """Inside a table's write: where it changes what the season's pages show (a match that
    ends, is reopened, or is changed once ended), the season's new version; else None.

    A match that ends here for the first time gets its finishing moment (issue 43), kept
    through corrections, undo and re-entry, reopening and Rematch presses: the season orders
    its matches (ratings, a player's list) and a finished match's window for changes go by it,
    so a write that changes no result moves nothing. It moves only when a reopened match ends
    with more deals than it ended with before."""
    if not (before.match().over or after.match().over):
        return None
    if after.match().over and (after.ended_at is None or len(after.deals) > (after.ended_deals or 0)):
        table_rows.mark_ended(conn, after.id, stamp or now(), len(after.deals))
    return player_rows.move_season(conn)


def refused(table: Table, refusal: Refused) -> Written:
    """A refusal as a write's result, with what its kind carries (later choices, a removal)."""
    return Written(Outcome.REFUSED, table, errors=tuple(refusal.errors),
                   later_choices=tuple(getattr(refusal, "choices", ())),
                   unanswered=tuple(getattr(refusal, "unanswered", ())),
                   removal=(refusal.end + 1, refusal.last) if isinstance(refusal, EndsEarlier) else None)


# --------------------------------------------------------------------------
# Creating and reading


def check_names(raw_names: Sequence[str], game: Game | None = None) -> tuple[list[str], list[FieldError]]:
    """Cleaned names and the errors (by seat field); with ``game``, its entrants (a team game's
    teams "A & B") must also differ, so standings and exports never merge two of them."""
    names, errors, seen = [], [], {}
    for seat, raw in enumerate(raw_names):
        name = clean_name(raw)
        field = f"name-{seat}"
        if not name:
            message = (T("Seat {seat}: this name has only invisible characters; enter letters someone can read.",
                         seat=seat + 1) if (raw or "").strip() else T("Seat {seat}: enter a name.", seat=seat + 1))
            errors.append(FieldError(field, message))
        elif len(name) > MAX_NAME:
            errors.append(FieldError(field, T("Seat {seat}: names can be at most {max} characters.",
                                              seat=seat + 1, max=MAX_NAME)))
        elif name_key(name) in seen:
            errors.append(FieldError(field, T("“{name}” is already at seat {other}; give each player a different name.",
                                              name=name, other=seen[name_key(name)] + 1)))
        else:
            seen[name_key(name)] = seat
        names.append(name)
    if game is not None and game.teams and not errors:
        teams: dict[str, int] = {}
        for team, entrant in enumerate(game.entrants(names)):
            key = name_key(entrant)
            if key in teams:
                # Teams: "A & B" + "C" and "A" + "B & C" would both be "A & B & C".
                seat = game.seating(len(names))[team].seats[0]  # the team's first-named seat
                errors.append(FieldError(f"name-{seat}", T(
                    "Team “{name}” would have the same name as team {other}; change a name so the teams "
                    "can be told apart (for example, don't use “&” in names).",
                    name=entrant, other=teams[key] + 1)))
            else:
                teams[key] = team
    return names, errors


def check_setup(game: Game, names: Sequence[str], options: Mapping[str, int],
                 n: int | None = None) -> tuple[list[str], list[FieldError]]:
    """Cleaned names and what is wrong with this setup (names, team names, the game's options);
    ``n``: the number of players the table was prepared for, if any."""
    names, errors = check_names(names, game)
    if n is not None and len(names) != n:
        errors.append(FieldError("players", T("This table was prepared for {n} players.", n=n)))
    if not errors:
        try:
            game.start(MatchSetup(game.id, tuple(names), dict(options)))
        except Exception as exc:  # InvalidOptions carries field errors
            errors.extend(getattr(exc, "errors", [FieldError("players", T("These settings can't start a match."))]))
    return names, errors


def create(conn: Connection, game_id: str, names: Sequence[str], options: dict[str, int],
           rematch_of: int | None = None, numbered: bool = False, opened_from: str | None = None) -> Written:
    """A new table with its players (refused, nothing written, when the names or options are
    not a match's). ``numbered``: the organiser's own (opened on the laptop), so the night's
    next table number ("Table 4") and on the hall from the start, as a prepared one.
    ``opened_from``: the phone's address (the hall names a device that opened many)."""
    game = GAMES[game_id]
    names, errors = check_setup(game, names, options)
    if errors:
        return Written(Outcome.REFUSED, None, errors=tuple(errors))
    token = new_token()
    with write(conn):
        seq = night_rows.next_table_number(conn) if numbered else None
        # The organiser's table sits at the room's first free table, as a drawn one (issue 44);
        # with none free (or no room set) it is numbered by the night.
        place = next(iter(free_room_tables(conn)), None) if numbered else None
        table_rows.insert_table(conn, token, game_id, names, options, now(), rematch_of=rematch_of, seq=seq,
                                opened_from=opened_from, label=place["label"] if place else None,
                                room_table=place["id"] if place else None)
        stored = load(conn, token)
    publish(Change("table", token, 0))
    if numbered:  # one more table of the night's (the hall's board lists it)
        publish(Change("night"))
    return Written(Outcome.SAVED, stored)


def free_room_tables(conn: Connection) -> list[dict[str, Any]]:
    """The room's tables (id, label; in the room's order) nobody plays at now: none of tonight's
    tables there waits for its players or is without a result (a table left playing keeps its
    room table). Drawn, prepared and laptop tables all take them (issue 44)."""
    room = night_rows.room_tables(conn)
    if not room:  # no room set (most nights): nothing to read
        return []
    tonight = (table_of(record) for record in
               table_rows.tables_after(conn, night_rows.night_after_table(conn), organised_or_played=True))
    busy = {t.room_table for t in tonight
            if t is not None and t.room_table is not None and (not t.seated or not t.match().over)}
    return [row for row in room if row["id"] not in busy]


MAX_WRITE_ID = table_rows.MAX_WRITE_ID


def clean_write_id(raw: str | None) -> str | None:
    """A phone's write id as the store takes it, or None (absent, empty, longer than 64
    characters or not printable ASCII: then the change is made without exactly-once)."""
    if not raw or len(raw) > MAX_WRITE_ID or not (raw.isascii() and raw.isprintable()):
        return None
    return raw


def first_answer(conn: Connection, table: "Table", write_id: str | None) -> dict[str, Any] | None:
    """Inside the write transaction: what this write id's first sending did, if it was stored."""
    return None if write_id is None else table_rows.recorded_outcome(conn, table.id, write_id)


# Whether the device asking may change a table (companion/tables/access.py; None: it may), asked
# by a write inside its transaction, of the table as that transaction read it.
Gate = Callable[[Connection, "Table"], Any]


def _opened(conn: Connection, token: str, write_id: str | None,
            gate: Gate | None = None) -> tuple[Table | None, Written | None]:
    """Inside a write transaction, its first step: the table as stored, and the answer already
    given if there is one (no such table; this device may not change it, by ``gate``; this
    write id sent before: as the first time). One read of the table serves the check and the write."""
    table = load(conn, token)
    if table is None:
        return None, Written(Outcome.NO_TABLE, None)
    lock = gate(conn, table) if gate is not None else None
    if lock is not None:
        return table, Written(Outcome.LOCKED, table, message=lock.message, lock=lock)
    first = first_answer(conn, table, write_id)
    if first is not None:
        return table, Written(Outcome.REPEATED, table, first.get("number"), recorded=first,
                              rematch_token=first.get("token"))
    return table, None


def remember_outcome(conn: Connection, table: "Table", write_id: str | None,
                     outcome: dict[str, Any]) -> dict[str, Any]:
    """Inside the write transaction: remember the outcome of this write id."""
    if write_id is not None:
        table_rows.record_outcome(conn, table.id, write_id, outcome, now())
    return outcome


def recorded_outcome(conn: Connection, token: str, write_id: str) -> dict[str, Any] | None:
    """What the write ``write_id`` at this table recorded, or None if it never was."""
    table = load(conn, token)
    return None if table is None else table_rows.recorded_outcome(conn, table.id, write_id)


def start_rematch(conn: Connection, token: str, write_id: str | None = None,
                  opened_from: str | None = None) -> Written:
    """This table's rematch (``rematch_token``), started now unless someone pressed Rematch
    first (then :attr:`Outcome.SAME`, the same new table); ``opened_from``: the pressing
    phone's address (None: the laptop).

    The check and the insert share one write transaction, so sixteen phones pressing at once
    make one table. Starting it bumps the old table's revision: phones still on it learn of
    the rematch with their next live update (``Table.rematch_token``).
    """
    with write(conn):
        table, answered = _opened(conn, token, write_id)
        if answered is not None:
            return answered
        if table.rematch_token:
            remember_outcome(conn, table, write_id, {"action": "rematch", "token": table.rematch_token})
            return Written(Outcome.SAME, table, rematch_token=table.rematch_token)
        options = dict(table.setup.options)
        follow = getattr(table.game, "rematch_options", None)
        if follow is not None:  # e.g. continue the dealing rotation where the match ended
            options = dict(follow(table.match()))
        names, errors = check_setup(table.game, table.setup.players, options)
        if errors:
            return Written(Outcome.REFUSED, table, errors=tuple(errors))
        stamp = now()
        new = new_token()
        table_rows.insert_table(conn, new, table.game.id, names, options, stamp, rematch_of=table.id,
                                opened_from=opened_from)
        _touch(conn, table.id, "rematch", None, None, None, stamp)
        remember_outcome(conn, table, write_id, {"action": "rematch", "token": new})
        stored = load(conn, token)
    publish(Change("table", new, 0))
    return announced(Written(Outcome.SAVED, stored, rematch_token=new))


# --------------------------------------------------------------------------
# A prepared table (a meetup night's, issue 25) gets its players from the first phone

def seat(conn: Connection, token: str, names: Sequence[str], options: Mapping[str, int],
         write_id: str | None = None) -> Written:
    """Give a prepared table its players (and the game's opening choices), exactly once: another
    phone that gave them first makes this :attr:`Outcome.SAME` (nothing written; the table as
    that phone seated it). With ``write_id``, the same seating sent again is
    :attr:`Outcome.REPEATED` ({"action": "seat"})."""
    with write(conn):
        table, answered = _opened(conn, token, write_id)
        if answered is not None:
            return answered
        if table.seated:
            return Written(Outcome.SAME, table)
        # Team names too, where the game has teams; the game's own check of the options. The
        # number of players may differ from the prepared one (no deal yet): any the game allows.
        reason = table.game.check_players(len(names))
        if reason:
            return Written(Outcome.REFUSED, table, errors=(FieldError("players", reason),))
        cleaned, errors = check_setup(table.game, list(names), options)
        if errors:
            return Written(Outcome.REFUSED, table, errors=tuple(errors))
        table_rows.seat_players(conn, table.id, cleaned, options, now())
        remember_outcome(conn, table, write_id, {"action": "seat"})
        stored = load(conn, token)
    return announced(Written(Outcome.SAVED, stored))


def table_of(record: Mapping[str, Any] | None) -> Table | None:
    """The domain's Table for a table as the store gives it (None: none, or its game is unknown)."""
    if record is None or record["game"] not in GAMES:
        return None
    return Table(record["id"], record["token"], GAMES[record["game"]],
                 MatchSetup(record["game"], tuple(record["players"]), record["options"]),
                 record["finished"], record["revision"], record["created_at"], record["updated_at"],
                 tuple(record["deals"]), record["label"], record["seated"], record["rematch_token"],
                 seq=record["seq"], ended_at_time=record.get("ended_at_time", False),
                 ended_at=record.get("ended_at"), ended_deals=record.get("ended_deals"),
                 opened_from=record.get("opened_from"), room_table=record.get("room_table"),
                 confirm=record.get("confirm"), pending=tuple(record.get("pending") or ()),
                 pending_undos=tuple(record.get("pending_undos") or ()),
                 disputes=tuple(record.get("disputes") or ()))


def load(conn: Connection, token: str) -> Table | None:
    return table_of(table_rows.load_table(conn, token))


def revision(conn: Connection, token: str) -> int | None:
    """The cheap question every phone asks every second: has anything changed?"""
    return table_rows.revision(conn, token)


def changes(conn: Connection, table_id: int) -> list[dict[str, Any]]:
    """The table's change log, newest first (in the store's own order, never the clock's)."""
    return table_rows.changes(conn, table_id)


# --------------------------------------------------------------------------
# Changing (each re-reads inside its transaction: the stored state is the truth)


def _touch(conn: Connection, table_id: int, action: str, number: int | None,
           before: dict | None, after: dict | None, stamp: str | None = None) -> int:
    """Log the change and bump the table's revision; returns the new revision, as the store set it."""
    return table_rows.log_change(conn, table_id, action, number, before, after, stamp or now())


NoSuchTable = NotFound  # no table has this token (the store's error)


def read_deal(table: Table, number: int, form: Mapping[str, str],
              progress: Progress | None = None) -> tuple[dict[str, Any], list[FieldError]]:
    """A deal form's fields read by the game as deal ``number`` of this table (the next deal, or
    a correction of a recorded one): its facts and what is wrong with them. The one place a
    deal form is read, for a new deal and a correction alike. ``progress``: the match before
    deal ``number``, if the caller has it already."""
    return table.game.parse_deal(form, progress or table.progress(upto=number - 1))


def _collision(table: Table, number: int, facts: dict[str, Any] | None, form: Mapping[str, str] | None,
               message: Text) -> Written:
    """Deal ``number`` is recorded already: the same deal again is saved; another is a conflict,
    with what this phone's entry would have scored there (None if it is no valid deal)."""
    progress = table.progress(upto=number - 1)
    if form is not None:
        facts, errors = read_deal(table, number, form, progress)
        facts = None if errors else facts
    if facts is not None and facts == table.deals[number - 1]:
        return Written(Outcome.SAME, table, number, message=message)
    valid = facts is not None and not table.game.validate(progress, facts)
    mine = table.game.score_deal(progress, facts) if valid else None
    return Written(Outcome.CONFLICT, table, number, message=message, mine=mine)


def enter_deal(conn: Connection, token: str, number: int, facts: dict[str, Any] | None = None, *,
               form: Mapping[str, str] | None = None, write_id: str | None = None, who: Who = LAPTOP) -> Written:
    """Record deal ``number``, unless that deal exists already (another phone was first).

    Give the ``facts``, or the ``form`` fields a phone sent: then the game reads them against
    the match as stored, so an entry (the request players wait on) reads and replays the table
    once, inside the lock. Returns what happened, with the table as stored. ``who``: the device
    saving it; at a table that asks for confirmation a phone's deal waits for another seat's
    (issue 45), the laptop's is confirmed.
    """
    with write(conn):
        table, answered = _opened(conn, token, write_id)
        if answered is not None:
            return answered
        if not table.seated:  # a prepared table: its players are not known yet
            return Written(Outcome.CONFLICT, table, message=T(
                "This table is waiting for its players: open its link to enter them first."))
        recorded = len(table.deals)
        if 1 <= number <= recorded:
            return _collision(table, number, facts, form, T(
                "Deal {number} was already entered from another phone. Here is the recorded one; "
                "your entry was not saved.", number=number))
        if number != recorded + 1 or recorded >= MAX_DEALS:
            return Written(Outcome.CONFLICT, table, message=Tn(
                "This page is out of date: the table has {n} deal. Reload to enter the next one.",
                "This page is out of date: the table has {n} deals. Reload to enter the next one.", recorded))
        # Validate against the stored state, not whatever the phone saw.
        progress = table.progress()
        if form is not None:
            facts, errors = read_deal(table, number, form, progress)
            if errors:
                return Written(Outcome.REFUSED, table, number, errors=tuple(errors))
        state = table.match()
        if state.next is None:
            return Written(Outcome.REFUSED, table, number,
                           errors=(FieldError("deal", state.outcome.message or T("The match is over.")),))
        try:
            after = table.game.add_deal(progress, facts)  # checks, then scores
        except InvalidDeal as exc:
            return Written(Outcome.REFUSED, table, number, errors=tuple(exc.errors))
        stamp = now()
        who = who.seated([name_key(name) for name in table.setup.players])
        asks = asks_confirmation(conn, table, number)
        if table.confirm is None and number == 1:
            table_rows.set_confirm(conn, table.id, asks)
        pending = who.mark(stamp) if asks and not who.organiser else None
        table_rows.insert_deal(conn, table.id, number, facts, stamp, pending)
        # An undo of this deal number waiting for confirmation gives way to the deal now saved
        # there, which waits (or not) on its own.
        undos = tuple(u for u in table.pending_undos if u["number"] < number)
        if undos != table.pending_undos:
            table_rows.set_pending_undos(conn, table.id, undos)
        revision = _touch(conn, table.id, "add", number, None, facts, stamp)
        remember_outcome(conn, table, write_id, {"action": "add", "number": number})
        stored = replace(table, deals=table.deals + (facts,), revision=revision, updated_at=stamp,
                         pending=table.pending + (pending,), pending_undos=undos,
                         confirm=asks if table.confirm is None and number == 1 else table.confirm)
        REPLAYS.put((stored.token, stored.revision, len(stored.deals)), after)
        season = season_moved(conn, table, stored, stamp)
    return announced(Written(Outcome.SAVED, stored, number, season=season))


class NeedsChoices(Refused):
    """A correction changes a choice a later deal answered (e.g. who starts after a shared win):
    ``choices`` lists the (deal number, Choice) pairs to answer again; pass the answers to
    :func:`correct_deal` as ``choices={deal number: seat}``. ``errors`` say so: one for the whole
    correction (field "later") and one per answer given but not fitting (field ``later-<deal>``,
    where the correction page asks it). ``unanswered``: the deal numbers among ``choices`` that
    still need an answer (the others were answered by the ``choices`` given)."""

    def __init__(self, errors: Sequence[FieldError], choices: Sequence[tuple[int, Choice]],
                 unanswered: Sequence[int] = ()):
        super().__init__(errors)
        self.choices = list(choices)
        self.unanswered = list(unanswered)


def later_field(number: int) -> str:
    """The form field a correction page asks a later deal's choice in: ``later-3`` (a deal
    opens at most one choice)."""
    return f"later-{number}"


# The form field of a correction's refusal for deals after the match's new end: the correction
# page shows it in full next to Save.
AFTER_END = "after_end"


def after_end_message(end: int, last: int) -> Text:
    """Why a correction is refused when the match would now end after deal ``end`` while deals
    up to ``last`` are recorded: which deals would come after its end, and what to do."""
    if last == end + 1:
        return T("With this change the match ends after deal {end}, so deal {first} would come "
                 "after its end. Save the correction with deal {first} removed, or keep it and "
                 "change this deal.", end=end, first=end + 1)
    return T("With this change the match ends after deal {end}, so deals {first} to {last} would "
             "come after its end. Save the correction with them removed, or keep them and "
             "change this deal.", end=end, first=end + 1, last=last)


class EndsEarlier(Refused):
    """A correction makes the match end after deal ``end`` while deals up to ``last`` are
    recorded. :func:`correct_deal` with ``remove_after_end=last`` saves it and removes them."""

    def __init__(self, end: int, last: int):
        super().__init__([FieldError(AFTER_END, after_end_message(end, last))])
        self.end, self.last = end, last


def corrected_deals(table: Table, number: int, facts: dict[str, Any],
                    choices: Mapping[int, Any] | None = None,
                    remove_after_end: int | None = None) -> list[dict[str, Any]]:
    """The table's deals with deal ``number`` replaced by ``facts`` and the later deals' choices
    settled (see :func:`correct_deal`), checked by replaying the whole match; nothing is written.
    Raises :class:`NeedsChoices` or :class:`Refused` (:func:`correct_deal` returns them as its
    refusal), so a correction's preview can say what Save would. With ``remove_after_end`` (the last deal the player saw
    recorded), deals after the match's new end are left out instead of refused."""
    deals = list(table.deals)
    deals[number - 1] = facts
    given = {k: v for k, v in (choices or {}).items() if isinstance(k, int) and k > number}
    settled, needed, answered = table.game.settle_choices(table.setup, deals, given)
    if needed:
        errors = [FieldError("later", T("This correction changes who is chosen in a later deal: "
                                        "answer below and save again."))]
        errors += [FieldError(later_field(later), choice.question)
                   for later, choice in needed if later in given]
        # The choices answered so far stay on the page (with their answers), then the new one.
        raise NeedsChoices(errors, answered + needed, [later for later, _choice in needed])
    deals[number:] = settled[number:]
    try:
        table.game.replay(table.setup, deals, finished=table.finished)
    except InvalidDeal as exc:
        if exc.number == number:
            raise Refused(exc.errors) from exc
        ended = table.game.start(table.setup)
        for earlier in deals[:exc.number - 1]:  # all valid: the replay stopped at deal exc.number
            ended = table.game.add_deal(ended, earlier)
        if after_end(table.game, ended) is not None:
            if remove_after_end == len(deals):  # the player agreed to remove exactly these
                return deals[:exc.number - 1]
            raise EndsEarlier(exc.number - 1, len(deals)) from exc
        reasons = join_sentences([e.message for e in exc.errors])  # translated when shown
        raise Refused([FieldError("deal", T("With this change, deal {later} would no longer be valid: {reasons} "
                                           "Correct or undo the later deals first.",
                                           later=exc.number, reasons=reasons))]) from exc
    return deals


def later_answers(form: Mapping[str, str]) -> dict[int, str]:
    """A correction form's answers to later deals' choices it asked again (fields named
    ``later-<deal>``, see :func:`later_field`), by deal number."""
    return {number: value for name, value in form.items()
            if name.startswith("later-") and (number := ascii_number(name[6:], 5)) is not None}


def check_entry(table: Table, form: Mapping[str, str], correcting: int | None = None) -> dict[str, Any]:
    """The as-you-type check of a deal form, nothing saved: the next deal's, or a correction of
    deal ``correcting``, which is also replayed through the whole match, so the check never
    says "looks right" where Save would refuse for a later deal. Returns the ``progress`` the
    deal is read against, its ``errors``, its ``score`` (None unless valid) and ``asks_later``:
    the later deals' choices Save would ask again, (deal number, Choice) each."""
    number = correcting or len(table.deals) + 1
    progress = table.progress(upto=number - 1)
    facts, errors = read_deal(table, number, form)
    score, asks_later = None, []
    if not errors:
        errors = table.game.validate(progress, facts)
        if not errors:
            score = table.game.score_deal(progress, facts)
    if score is not None and correcting is not None:
        try:
            corrected_deals(table, correcting, facts, later_answers(form))
        except NeedsChoices as needs:
            # Those answered on the page are not asked again; each says what will be asked
            # (who starts, who deals, or an open bid the correction made illegal).
            asks_later = [(later, choice) for later, choice in needs.choices if later in needs.unanswered]
        except Refused as refusal:
            score, errors = None, refusal.errors
    return dict(progress=progress, errors=errors, score=score, asks_later=asks_later)


def correct_deal(conn: Connection, token: str, number: int, facts: dict[str, Any] | None = None, *,
                 form: Mapping[str, str] | None = None, was: str, choices: Mapping[int, Any] | None = None,
                 write_id: str | None = None, remove_after_end: int | None = None,
                 gate: Gate | None = None, who: Who = LAPTOP) -> Written:
    """Replace deal ``number``; everything after it is recomputed. ``was`` guards a concurrent edit.
    ``gate``: may the device asking change this table (asked inside the write)? ``who``: the
    device; where the table asks for confirmation a phone's correction waits for another
    seat's, even of a confirmed deal; the laptop's is confirmed (issue 45).

    Give the ``facts`` (and ``choices``), or the correction ``form`` a phone sent: then the game
    reads it against the match as stored, inside the lock, as :func:`enter_deal` does.

    Where the change ends the match earlier, the deals after its new end are refused (a
    refusal with ``removal``) unless ``remove_after_end`` is the table's last deal number (what
    the player was shown): then they are removed in the same transaction, each logged as undone.

    Where the change alters a choice a later deal answered (who starts or deals after a tie),
    the later deal's recorded answer is kept if it still fits, dropped where no choice is open
    any more, and else asked again (a refusal with ``later_choices``) until ``choices`` (deal
    number → the seat, or a mapping {choice key: seat} as a form sends it) answers it. The
    answers are written into those deals in the same transaction, each logged as an edit.
    """
    with write(conn):
        table, answered = _opened(conn, token, write_id, gate)
        if answered is not None:
            return answered
        if not 1 <= number <= len(table.deals):
            return Written(Outcome.CONFLICT, table, number, message=T(
                "Deal {number} no longer exists (it was undone from another phone).", number=number))
        if form is not None:
            facts, errors = read_deal(table, number, form)
            if errors:
                return Written(Outcome.REFUSED, table, number, errors=tuple(errors))
            choices = later_answers(form)
        old = table.deals[number - 1]
        if fingerprint(old) != was:
            return Written(Outcome.CONFLICT, table, number, message=T(
                "Deal {number} was changed from another phone while you were editing. "
                "Here is the recorded one; your change was not saved.", number=number))
        try:
            deals = corrected_deals(table, number, facts, choices, remove_after_end)
        except Refused as refusal:
            return refused(table, refusal)
        remember_outcome(conn, table, write_id, {"action": "edit", "number": number})
        if deals == list(table.deals):
            return Written(Outcome.SAVED, table, number)
        for gone in range(len(table.deals), len(deals), -1):  # after the new end: the last first
            table_rows.delete_deal(conn, table.id, gone)
            _touch(conn, table.id, "undo", gone, table.deals[gone - 1], None)
        for later in range(number, len(deals) + 1):  # this deal, then later ones whose answer changed
            before, after = table.deals[later - 1], deals[later - 1]
            if before != after:
                table_rows.update_deal(conn, table.id, later, after, now())
                _touch(conn, table.id, "edit", later, before, after)
        if table.confirm:
            who = who.seated([name_key(name) for name in table.setup.players])
            table_rows.set_pending(conn, table.id, number, None if who.organiser else who.mark(now()))
        if who.organiser and table.disputed(number):  # the organiser's version settles it (a third one too)
            table_rows.set_disputes(conn, table.id, [d for d in table.disputes if d["number"] != number])
        stored = load(conn, token)
        season = season_moved(conn, table, stored)
    return announced(Written(Outcome.SAVED, stored, number, season=season))


def undo_deal(conn: Connection, token: str, number: int, write_id: str | None = None,
              gate: Gate | None = None, who: Who = LAPTOP) -> Written:
    """Remove the last deal, only if it is still deal ``number`` (two phones can't undo twice).
    What happened carries the removed deal's facts (``undone``), to give back to the form.
    ``gate``: may the device asking change this table (asked inside the write)? ``who``: the
    device; where the table asks for confirmation, a phone's undo of a confirmed deal waits for
    another seat's confirmation as a deal does (one still waiting just goes; issue 45)."""
    with write(conn):
        table, answered = _opened(conn, token, write_id, gate)
        if answered is not None:
            return answered
        if len(table.deals) != number or number == 0:
            return Written(Outcome.CONFLICT, table, number, message=T(
                "Nothing was undone: deal {number} is no longer the last deal.", number=number))
        table_rows.delete_deal(conn, table.id, number)
        if table.disputed(number):  # the deal in dispute is gone
            table_rows.set_disputes(conn, table.id, [d for d in table.disputes if d["number"] != number])
        if table.confirm and not who.organiser and not table.pending[number - 1]:
            who = who.seated([name_key(name) for name in table.setup.players])
            table_rows.set_pending_undos(conn, table.id, table.pending_undos + (
                dict(who.mark(now()), number=number, facts=table.deals[-1]),))
        _touch(conn, table.id, "undo", number, table.deals[-1], None)
        remember_outcome(conn, table, write_id, {"action": "undo", "number": number})
        stored = load(conn, token)
        season = season_moved(conn, table, stored)
    return announced(Written(Outcome.SAVED, stored, number, undone=table.deals[-1], season=season))


def asks_confirmation(conn: Connection, table: Table, number: int) -> bool:
    """Whether deal ``number`` saved from a phone waits for another seat (issue 45): as the table
    decided at its first deal; a table deciding now asks where it is one of the night's (it has
    a number) and the hall's setting is on, or a seat turned it on. A table with deals from
    before confirmation existed never asks."""
    if table.confirm is not None:
        return table.confirm
    return number == 1 and table.seq is not None and night_rows.confirm_deals(conn)


def confirm(conn: Connection, token: str, keys: Sequence[str] | None = None, *, who: Who,
            write_id: str | None = None) -> Written:
    """``who`` confirms what waits at the table (``keys``: :attr:`ToConfirm.key` of each, None:
    all it may confirm). Each is checked by :func:`confirming.why_not`; refused, with the reason,
    when none may be. Nothing left waiting (another phone confirmed first): SAME, with a sentence."""
    with write(conn):
        table, answered = _opened(conn, token, write_id)
        if answered is not None:
            return answered
        waiting = [item for item in table.to_confirm() if keys is None or item.key in keys]
        if not who.organiser:  # a disputed deal is the organiser's to settle
            waiting = [item for item in waiting if not (item.kind == "deal" and table.disputed(item.number))]
        if not waiting:
            return Written(Outcome.SAME, table, message=T("Nothing here waits for confirmation any more."))
        teams = table.teams()
        who = who.seated([name_key(name) for name in table.setup.players])
        reasons = [(item, why_not(item, who, teams)) for item in waiting]
        allowed = [item for item, reason in reasons if reason is None]
        if not allowed:
            return Written(Outcome.REFUSED, table, errors=(FieldError("confirm", reasons[0][1]),))
        stamp = now()
        for item in allowed:
            if item.kind == "deal":
                table_rows.set_pending(conn, table.id, item.number, None)
        settled = {item.number for item in allowed if item.kind == "deal"}
        if any(d["number"] in settled for d in table.disputes):  # the organiser confirmed the saved one
            table_rows.set_disputes(conn, table.id, [d for d in table.disputes if d["number"] not in settled])
        undos = tuple(u for u in table.pending_undos if ToConfirm("undo", u["number"], u) not in allowed)
        if undos != table.pending_undos:
            table_rows.set_pending_undos(conn, table.id, undos)
        _touch(conn, table.id, "confirm", None, None,
               {"confirmed": [item.key for item in allowed], "by": who.mark(stamp)}, stamp)
        remember_outcome(conn, table, write_id, {"action": "confirm"})
        stored = load(conn, token)
        season = season_moved(conn, table, stored, stamp)
    return announced(Written(Outcome.SAVED, stored, season=season))


def dispute(conn: Connection, token: str, number: int, form: Mapping[str, str], *, who: Who,
            write_id: str | None = None) -> Written:
    """Another seat says "That's not right" about deal ``number`` waiting for confirmation, and
    gives what they saw (the deal ``form``): both versions go to the organiser (issue 45). The
    table plays on from the saved version meanwhile. Who may say it is who may confirm it
    (:func:`confirming.why_not`). Refused when what they saw is what was saved (then Confirm)."""
    with write(conn):
        table, answered = _opened(conn, token, write_id)
        if answered is not None:
            return answered
        item = next((i for i in table.to_confirm() if i.kind == "deal" and i.number == number), None)
        if item is None:
            return Written(Outcome.CONFLICT, table, number, message=T(
                "Deal {n} no longer waits for confirmation: ask the organiser to correct it.", n=number))
        who = who.seated([name_key(name) for name in table.setup.players])
        reason = why_not(item, who, table.teams())
        if reason is not None:
            return Written(Outcome.REFUSED, table, number, errors=(FieldError("deal", reason),))
        facts, errors = read_deal(table, number, form)
        if errors:
            return Written(Outcome.REFUSED, table, number, errors=tuple(errors))
        if facts == table.deals[number - 1]:
            return Written(Outcome.REFUSED, table, number, errors=(FieldError("deal", T(
                "That is what was saved for deal {n}: tap Confirm instead.", n=number)),))
        stamp = now()
        said = dict(who.mark(stamp), number=number, facts=facts)
        table_rows.set_disputes(conn, table.id, [d for d in table.disputes if d["number"] != number] + [said])
        _touch(conn, table.id, "dispute", number, table.deals[number - 1], said, stamp)
        remember_outcome(conn, table, write_id, {"action": "dispute", "number": number})
        stored = load(conn, token)
    return announced(Written(Outcome.SAVED, stored, number))


def settle(conn: Connection, token: str, number: int, keep: str) -> Written:
    """The organiser settles the dispute over deal ``number``: ``keep`` "saved" confirms the
    saved version; "theirs" puts the other seat's version in its place, a correction from the
    laptop (later deals replay; confirmed). A third version is the laptop's own correction of
    the deal (:func:`correct_deal`, which settles it too)."""
    table = load(conn, token)
    if table is None:
        return Written(Outcome.NO_TABLE, None)
    found = table.disputed(number)
    if found is None:
        return Written(Outcome.SAME, table, number, message=T("Deal {n} has no open dispute.", n=number))
    if keep == "theirs":
        return correct_deal(conn, token, number, found["facts"], was=fingerprint(table.deals[number - 1]),
                            who=LAPTOP)
    with write(conn):
        table, answered = _opened(conn, token, None)
        if answered is not None:
            return answered
        if table.disputed(number) is None:  # settled meanwhile
            return Written(Outcome.SAME, table, number)
        table_rows.set_disputes(conn, table.id, [d for d in table.disputes if d["number"] != number])
        if number <= len(table.deals):
            table_rows.set_pending(conn, table.id, number, None)
        stamp = now()
        _touch(conn, table.id, "settle", number, None, {"kept": "saved", "by": LAPTOP.mark(stamp)}, stamp)
        stored = load(conn, token)
        season = season_moved(conn, table, stored, stamp)
    return announced(Written(Outcome.SAVED, stored, number, season=season))


def set_confirming(conn: Connection, token: str, on: bool, write_id: str | None = None,
                   gate: Gate | None = None) -> Written:
    """A side table's seat asks (or stops asking) another seat to confirm each deal: only before
    the first deal (the night's tables follow the hall's setting)."""
    with write(conn):
        table, answered = _opened(conn, token, write_id, gate)
        if answered is not None:
            return answered
        if table.deals or table.seq is not None:
            return Written(Outcome.REFUSED, table, errors=(FieldError("confirm", T(
                "Confirmation is chosen before the first deal, and the night's tables follow the hall."),),))
        table_rows.set_confirm(conn, table.id, on)
        revision = _touch(conn, table.id, "confirming", None, None, {"on": on})
        remember_outcome(conn, table, write_id, {"action": "confirming"})
        stored = replace(table, confirm=on, revision=revision)
    return announced(Written(Outcome.SAVED, stored))


def finish_match(conn: Connection, token: str, finished: bool, write_id: str | None = None,
                 time_up: Callable[[Table], bool] | None = None, gate: Gate | None = None) -> Written:
    """End the match by hand (``finished``), where its rules let it end by agreement, or reopen it.
    ``gate``: may the device asking change this table (asked inside the write)?
    With ``time_up``, end it *at time* (issue 33): with the deals played, ranked by the game's
    rule for it (``Game.outcome_at_time``), when ``time_up(table)``, asked inside this write,
    says the table's time is up. Reopening undoes either."""
    with write(conn):
        table, answered = _opened(conn, token, write_id, gate)
        if answered is not None:
            return answered
        at_time = finished and time_up is not None
        if at_time:
            refusal = at_time_refusal(table, time_up)
            if refusal is not None:
                return Written(Outcome.REFUSED, table, errors=(FieldError("finished", refusal),))
        elif finished and not table.finished and not table.can_finish():
            reason = (T("This match ends by itself under its rules; there is nothing to finish by hand.")
                      if table.deals else T("Enter a deal first: there is no match to finish yet."))
            return Written(Outcome.REFUSED, table, errors=(FieldError("finished", reason),))
        remember_outcome(conn, table, write_id, {"action": "finish" if finished else "reopen"})
        if table.finished == finished:
            return Written(Outcome.SAVED, table)  # already so: nothing changed, nothing to announce
        table_rows.set_finished(conn, table.id, finished, at_time)
        _touch(conn, table.id, "finish" if finished else "reopen", None, None,
               {"at_time": True} if at_time else None)
        stored = load(conn, token)
        season = season_moved(conn, table, stored)
    return announced(Written(Outcome.SAVED, stored, season=season))


def at_time_refusal(table: Table, time_up: Callable[[Table], bool]) -> Text | None:
    """Why this table's match can't end at time now, or None when it can: a deal is played,
    the match is still running, and its time is up."""
    if not table.deals:
        return T("Enter a deal first: there is no match to end yet.")
    if table.finished or table.match().over:
        return T("This match is already over.")
    if not time_up(table):
        return T("The time of this table is not up yet: the match goes on.")
    return None
