"""A meetup night: tables prepared on the laptop before people sit down, and the hall
view's list of every table opened since the night began.

A prepared table is an ordinary table whose players are not known yet (``seated`` is 0,
its names are placeholders). The first phone that opens it gives the names in seat
order; from then on it plays like any other table. Nights only mark a start time:
tables are never deleted, a new night just leaves the older ones out of the hall view.

The night's people (issue 25): a roster (players join from their phones or are added on the
laptop), rounds drawn by companion.meetup.seating whose tables are created seated, a round
clock, and the leaderboard of place points (companion.meetup.points) over the night's tables.
"""

from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Mapping, Sequence

from ..changes import Change, publish
from ..games import GAMES
from ..games import FieldError, Game, MatchSetup, Option
from ..games.text import T, Tn
from ..meetup import points as place_points
from ..meetup import draw_process, seating
from ..players import service as season
from ..names import clean_name, name_key
from ..outcomes import Done, conflict, done, not_found, refused, started
from ..store import Connection, write
from ..store import nights as night_rows
from ..store import players as player_rows
from ..store import tables as table_rows
# The tables' service by its module, never its names copied: its clock (``now``) is one, and a
# test that sets it sets the night's too.
from ..tables import service as table_service
from ..tables.service import Table
from . import game_requests

MAX_PREPARED = 64  # one evening's tables at once; a typo like 600 must not fill the hall


def night_started(conn: Connection) -> str:
    """When the current night began ("" = no night was ever started: every table is tonight's)."""
    return night_rows.night_started(conn)


def start_night(conn: Connection) -> Done:
    """Begin a new night: the hall view forgets (but keeps) every table opened before. Its
    value: when it began."""
    stamp = table_service.now()
    with write(conn):
        night_rows.insert_night(conn, stamp)
    publish(Change("night"))
    return done(stamp)


def night_tables(conn: Connection) -> list[Table]:
    """The current night's tables, in the order they were opened (one query for all): those with
    a number in the night, which the organiser drew, prepared, opened on the laptop or added
    (a table phones opened outside the draws is a side table until then: :func:`side_tables`)."""
    found = (table_service.table_of(record)
             for record in table_rows.tables_after(conn, night_rows.night_after_table(conn), organised_or_played=True))
    return [table for table in found if table is not None]


def most_recent_first(conn: Connection, tables: Sequence[Table]) -> list[Table]:
    """``tables`` (the night's), the most recently changed first, by the store's sequence of
    changes (a wall clock set back can't reorder them)."""
    last = table_rows.last_changes(conn, night_rows.night_after_table(conn))
    return sorted(tables, key=lambda t: (last.get(t.id, 0), t.id), reverse=True)


def night_signature(conn: Connection) -> str:
    """Changes whenever any table of the night changes: the hall view's cheap "anything new?".

    A page drawn with it reads it *before* anything it shows: a save committed while the page
    is drawn then leaves it an older signature (its next ask brings the save), never a newer
    one (that ask would be answered 204 and the save not shown until some later change)."""
    return night_rows.night_signature(conn)


def next_table_number(conn: Connection) -> int:
    return night_rows.next_table_number(conn)


def check_plan(game_id: str, players: int, count: int) -> list[FieldError]:
    errors = []
    game = GAMES.get(game_id)
    if game is None:
        return [FieldError("game", T("Choose one of the games."))]
    reason = game.check_players(players)
    if reason:
        errors.append(FieldError("players", reason))
    if not 1 <= count <= MAX_PREPARED:
        errors.append(FieldError("count", T("Prepare from 1 to {max} tables at a time.", max=MAX_PREPARED)))
    return errors


def prepare(conn: Connection, game_id: str, players: int, count: int,
            label: str = "") -> Done:
    """Create ``count`` tables waiting for their players, numbered on from the night's
    prepared tables. ``label`` is the organiser's own, such as "Cube {n}" ({n} = the
    number); without one a table is shown as "Table 3" in the reader's language.
    Its value: their tokens."""
    errors = check_plan(game_id, players, count)
    if errors:
        return refused(errors)
    game = GAMES[game_id]
    options = {opt.key: opt.default for opt in game.options}
    placeholders = [str(seat + 1) for seat in range(players)]
    tokens = []
    with write(conn):
        # With the room's tables set, prepared tables take free ones, as a draw's do (issue 44),
        # named as the room names them unless the organiser gave a label of their own.
        places: list[RoomTable | None] = [None] * count
        if (the_room := room(conn)):
            free = free_room_tables(conn)
            if count > len(free):
                return refused([FieldError("count", Tn(
                    "The room has {free} table free (of {all}): prepare at most that many.",
                    "The room has {free} tables free (of {all}): prepare at most that many.",
                    len(free), free=len(free), all=len(the_room)))])
            places = list(free[:count])
        first = next_table_number(conn)
        stamp = table_service.now()
        for offset, place in enumerate(places):
            token = table_service.new_token()
            own = label.replace("{n}", str(first + offset))[:table_service.MAX_NAME]
            table_rows.insert_table(conn, token, game_id, placeholders, options, stamp, seated=False,
                                    seq=first + offset, label=own or (place.label if place else None),
                                    room_table=place.id if place else None)
            tokens.append(token)
    publish(Change("night"))
    publish_tables({token: 0 for token in tokens})
    return done(tokens)


# ==========================================================================================
# The night's roster, seating draws, round clock and leaderboard (issue 25)
#
# The roster is the night's players (one row each; the same name typed twice, compared by
# ``tables.name_key``, is one player). A round is a seating draw (companion.meetup.seating)
# stored as ordinary tables created with their players already seated, plus which roster
# player sits in which seat: the next draw's history, the leaderboard's "who is who" and each
# phone's "your table". Place points and the leaderboard are companion.meetup.points'.

MAX_ROSTER = 200
MAX_MINUTES = 240  # a round clock longer than four hours is a typo
EXTEND_MINUTES = 5  # the organiser's "more time" for one table


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    key: str
    added_at: str
    left: bool = False
    sit_out_round: int | None = None  # the round they sit out (issue 44), from their phone or the hall
    leaving: bool = False  # leaving after their match: the next draw leaves them out, and off the list
    room_table: int | None = None  # the room's table they keep all night (mobility): every draw seats them there

    def away_from(self, round_number: int) -> bool:
        """Whether the draw of round ``round_number`` leaves them out (they asked, or the organiser)."""
        return self.leaving or self.sit_out_round == round_number


def _player(row: Mapping | None) -> Player | None:
    return None if row is None else Player(row["id"], row["name"], row["key"], row["added_at"], row["left"],
                                            row.get("sit_out_round"), bool(row.get("leaving")), row.get("room_table"))


def current_night(conn: Connection) -> int:
    return night_rows.current_night(conn)


def roster(conn: Connection, with_left: bool = False) -> list[Player]:
    """Tonight's players, in the order they arrived."""
    return [_player(row) for row in night_rows.roster(conn, current_night(conn), with_left)]  # type: ignore[misc]


def player(conn: Connection, player_id: int | None) -> Player | None:
    """Tonight's player with this id (None: unknown, or from another night)."""
    if not player_id:
        return None
    row = night_rows.player(conn, player_id)
    return _player(row) if row is not None and row["night"] == current_night(conn) else None


def check_name(raw: str | None, field_name: str = "name") -> tuple[str, list[FieldError]]:
    """A name typed for tonight's list, cleaned, and what is wrong with it (nothing: [])."""
    name = clean_name(raw)
    if not name:
        return name, [FieldError(field_name, T(
            "This name has only invisible characters; enter letters someone can read.") if (raw or "").strip()
            else T("Enter a name."))]
    if len(name) > table_service.MAX_NAME:
        return name, [FieldError(field_name, T("Names can be at most {max} characters.", max=table_service.MAX_NAME))]
    return name, []


def join(conn: Connection, raw_name: str | None) -> Done:
    """Put a name on tonight's roster, or find it there: the same name typed twice (as a table
    compares names: "Ann", "ann" and "ＡＮＮ") is one player. A player who had left is back.
    Its value: the player."""
    name, errors = check_name(raw_name)
    if errors:
        return refused(errors)
    key = name_key(name)
    with write(conn):
        night = current_night(conn)
        found = night_rows.player_by_key(conn, night, key)
        if found is not None:
            if found["left"]:
                night_rows.update_player(conn, found["id"], left=False)
                night_rows.set_away(conn, found["id"], None, False)
            joined = _player(dict(found, left=False))
        elif len(night_rows.roster(conn, night)) >= MAX_ROSTER:
            return refused([FieldError("name", T("Tonight's list is full ({max} players).", max=MAX_ROSTER))])
        else:
            stamp = table_service.now()
            joined = Player(night_rows.insert_player(conn, night, name, key, stamp), name, key, stamp)
    publish(Change("night"))
    return done(joined)


def rename(conn: Connection, player_id: int, raw_name: str | None, same_person: bool | None = None) -> Done:
    """The organiser corrects a name. Tables already drawn keep the name they were given (their
    records say "entered as"); the leaderboard, the phones, the night's files and the season
    show the new one: the season player of the old name is renamed too, so one person stays one
    player (issue 43). A new name that is already another season player's is refused until the
    organiser says whether it is the same person (``same_person``: merged) or gives tonight's
    name something to tell them apart. Its value: the player renamed."""
    name, errors = check_name(raw_name)
    if errors:
        return refused(errors)
    key = name_key(name)
    season.refresh(conn)  # every name at a counted table a season player, before the write (its own)
    shared = None
    if same_person:  # read before the write (the season's records refresh in a write of their own)
        before = player(conn, player_id)
        mine = season.season_player_of_key(conn, before.key) if before else None
        theirs = season.season_player_of_key(conn, key)
        if mine is not None and theirs is not None and mine != theirs:
            shared = season.shared_table(conn, mine, theirs)
    with write(conn):
        found = player(conn, player_id)
        if found is None:
            return not_found()
        other = night_rows.player_by_key(conn, current_night(conn), key)
        if other is not None and other["id"] != player_id:
            return refused([FieldError("name", T("“{name}” is already on tonight's list.", name=other["name"]))])
        errors, season_changed = season.follow_roster_rename(conn, found.key, name, same_person, shared)
        if errors:
            return refused(errors)
        night_rows.update_player(conn, player_id, name=name, key=key)
    publish(Change("night"))
    if season_changed:
        publish(Change("players", "", season.season_version(conn)))
    return done(replace(found, name=name, key=key))


def set_left(conn: Connection, player_id: int, left: bool = True) -> Done:
    """Take a player off tonight's list (the next draw leaves them out; earlier rounds keep
    them), or put them back."""
    with write(conn):
        if player(conn, player_id) is None:
            return not_found()
        night_rows.update_player(conn, player_id, left=left)
        # Back on the list: playing, whatever they said before they left. Taken off by the
        # organiser: not "leaving" (a leaver's phone keeps their night; a removed name's doesn't).
        night_rows.set_away(conn, player_id, None, False)
    publish(Change("night"))
    return done()


# ---- the room's tables (issue 44) ---------------------------------------------------------

MAX_ROOM_TABLES = 200
MAX_ROOM_LABEL = 20


@dataclass(frozen=True)
class RoomTable:
    id: int
    label: str  # "3", "Window": a number reads "Table 3"


def room(conn: Connection) -> list[RoomTable]:
    """The room's tables, as the organiser set them (kept for later nights); none: tables are
    numbered by the night, as before."""
    return [RoomTable(row["id"], row["label"]) for row in night_rows.room_tables(conn)]


def read_room(raw: str | None) -> tuple[list[str], list[FieldError]]:
    """The room's tables as typed: a count ("8"), a range ("1-8", "1–8") or labels, separated by
    commas or lines ("1-6, Window, Bar"). Returns the labels in order, each once, and what is wrong."""
    labels: list[str] = []
    for part in (raw or "").replace("\n", ",").replace("、", ",").replace("，", ",").split(","):
        part = " ".join(part.split())
        if not part:
            continue
        # A range as a Japanese keyboard types it too: 1〜8, 1～8 (full-width), 1－8.
        span = part.replace("–", "-").replace("〜", "-").replace("～", "-").replace("~", "-").replace("－", "-").split("-")
        if len(span) == 2 and all(side.strip().isdigit() for side in span):
            first, last = int(span[0]), int(span[1])
            if first > last or last - first >= MAX_ROOM_TABLES:
                return [], [FieldError("room", T("“{part}” is not a range of tables from low to high.", part=part))]
            labels.extend(str(n) for n in range(first, last + 1))
        elif part.isdigit() and len(labels) == 0 and "," not in (raw or "") and int(part) <= MAX_ROOM_TABLES:
            labels.extend(str(n) for n in range(1, int(part) + 1))  # a count alone: tables 1 to N
        elif len(part) > MAX_ROOM_LABEL:
            return [], [FieldError("room", T("A table's label has at most {max} characters: {part}",
                                             max=MAX_ROOM_LABEL, part=part[:MAX_ROOM_LABEL]))]
        else:
            labels.append(part)
    unique = list(dict.fromkeys(labels))
    if len(unique) > MAX_ROOM_TABLES:
        return [], [FieldError("room", T("A room has at most {max} tables.", max=MAX_ROOM_TABLES))]
    return unique, []


def set_room(conn: Connection, raw: str | None) -> Done:
    """The organiser sets the room's tables (empty: none, the night numbers its tables). A table
    kept keeps its printed card. Its value: the room."""
    labels, errors = read_room(raw)
    if errors:
        return refused(errors)
    with write(conn):
        night_rows.set_room_tables(conn, labels)
    publish(Change("night"))
    return done(room(conn))


def free_room_tables(conn: Connection) -> list[RoomTable]:
    """The room's tables nobody plays at now (:func:`tables.service.free_room_tables`)."""
    return [RoomTable(row["id"], row["label"]) for row in table_service.free_room_tables(conn)]


def keep_at_table(conn: Connection, player_id: int, room_table: int | None) -> Done:
    """A player who needs one table (mobility, issue 44) keeps this room table for the night:
    every draw seats their table there (None: any table again). Its value: the player."""
    with write(conn):
        found = player(conn, player_id)
        if found is None:
            return not_found()
        if room_table is not None and room_table not in {place.id for place in room(conn)}:
            return refused([FieldError("keep", T("Choose one of the room's tables."))])
        night_rows.keep_at_table(conn, player_id, room_table)
        kept = player(conn, player_id)
    publish(Change("night"))
    return done(kept)


def room_places(seated: Sequence[tuple[Game, list[str], tuple[int, ...]]], free: Sequence[RoomTable],
                kept: Mapping[int, int]) -> list[RoomTable]:
    """Which free room table each drawn table gets: a table with a player who keeps a room table
    (``kept``: player id -> room table id) gets that one where it is free; the others the rest,
    in the room's order. ``free`` holds at least as many as ``seated``."""
    by_id = {place.id: place for place in free}
    places: list[RoomTable | None] = [None] * len(seated)
    taken: set[int] = set()
    for index, (_game, _players, player_ids) in enumerate(seated):
        wanted = next((kept[pid] for pid in player_ids if kept.get(pid) in by_id and kept[pid] not in taken), None)
        if wanted is not None:
            places[index] = by_id[wanted]
            taken.add(wanted)
    rest = iter(place for place in free if place.id not in taken)
    return [place if place is not None else next(rest) for place in places]


def played_at(conn: Connection, room_table: int) -> Table | None:
    """The table played at a room table now: the newest without a result, else the newest (a
    printed card's code leads there); None before any."""
    held = {rt.table.id for r in night_rounds(conn) if r.held for rt in r.tables}  # not shown yet: not there yet
    found = [t for token in table_rows.at_room_table(conn, room_table)
             if (t := table_service.load(conn, token)) and t.id not in held]
    return next((t for t in found if t.seated and not t.match().over), found[0] if found else None)


SIT_OUT, LEAVING = "sit_out", "leaving"  # what a player says of the next round (issue 44)


def set_away(conn: Connection, player_id: int, away: str | None) -> Done:
    """Late, leaving, back (issue 44), from the player's phone or the hall: ``"sit_out"`` the next
    round (drawn without them, and with them again after), ``"leaving"`` after their match (the
    next draw leaves them out and takes them off tonight's list; their results stay), or None:
    playing on. Its value: the player as they are now."""
    with write(conn):
        if (found := player(conn, player_id)) is None:
            return not_found()
        next_round = len(night_rows.rounds(conn, current_night(conn))) + 1
        night_rows.set_away(conn, player_id, next_round if away == SIT_OUT else None, away == LEAVING)
        if away is None and found.left and found.leaving:  # left after their match, and came back
            night_rows.update_player(conn, player_id, left=False)
        changed = player(conn, player_id)
    publish(Change("night"))
    return done(changed)


# ---- rounds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundTable:
    table: Table
    number: int  # "Table 3" of the round
    player_ids: tuple[int, ...]  # the roster players in seat order
    extra_minutes: int = 0
    time_called: str | None = None  # when the organiser called time for this table (UTC)
    released: bool = False  # rolling tables (issue 47): the organiser let its players go before a settlement

    @property
    def started(self) -> bool:
        """A deal is recorded: from then on the seating is the table's own."""
        return bool(self.table.deals)


# How a draw seats the round: mixing, by standings (issue 33), or tables of even strength (issue 36).
DRAW_WAYS = ("mix", "standings", "balanced")


@dataclass(frozen=True)
class HowDrawn:
    """How a round was drawn: its way (:data:`DRAW_WAYS`) and the room's wishes (issue 36),
    stored with the round so the next draw starts from them. A round drawn before they were
    stored reads as the default: mixed, no wishes."""
    way: str = "mix"
    every_game: bool = False
    newcomers: bool = False
    never: tuple[tuple[int, int], ...] = ()  # pairs of roster player ids kept apart

    def stored(self) -> dict:
        return {"way": self.way, "every_game": self.every_game, "newcomers": self.newcomers,
                "never": [list(pair) for pair in self.never]}

    @classmethod
    def read(cls, stored: Mapping | None) -> HowDrawn:
        if not stored:
            return cls()
        way = stored.get("way")
        return cls(way if way in DRAW_WAYS else "mix", bool(stored.get("every_game")), bool(stored.get("newcomers")),
                   tuple((int(a), int(b)) for a, b in stored.get("never") or ()))


def clock_now() -> datetime:
    """Now, as the clock reads it: the same clock the writes stamp (``tables.service.now``), so
    a round started, paused or called at a moment reads from that same moment."""
    return datetime.fromisoformat(table_service.now())


def clock_left(minutes: int | None, clock_from: str | None, extra_minutes: int = 0, paused_at: str | None = None,
               now: datetime | None = None) -> int | None:
    """The one reading of a round clock (issue 44: the hall, the screen and every phone read
    it, from the stored state): the seconds left for a table given ``extra_minutes`` more; None
    with no clock running (no minutes, or not started yet); frozen while paused (counted to
    ``paused_at``)."""
    if not minutes or not clock_from:
        return None
    ends = datetime.fromisoformat(clock_from) + timedelta(minutes=minutes + extra_minutes)
    at = datetime.fromisoformat(paused_at) if paused_at else (now or clock_now())
    return max(0, int((ends - at).total_seconds()))


@dataclass(frozen=True)
class Round:
    id: int
    number: int
    drawn_at: str
    seed: str
    minutes: int | None
    clock_from: str | None
    tables: tuple[RoundTable, ...] = field(default=())
    draw: HowDrawn = HowDrawn()
    paused_at: str | None = None  # its clock paused then (UTC), None: running or not started
    held: bool = False  # drawn for the organiser's review: shown on the hall only until "Start round N"
    rolling: bool = False  # one table of a night of rolling tables (issue 47): its clock is its own

    def seating(self) -> tuple[seating.Seating, ...]:
        return tuple(seating.Seating(t.table.game.id, t.player_ids) for t in self.tables)

    def together_anyway(self) -> list[tuple[int, int, RoundTable]]:
        """The never-together pairs of its draw seated at one table all the same (no seating
        the bounded search found kept every pair apart, or a swap since), each with its table,
        in the order the organiser gave them."""
        found = []
        for a, b in self.draw.never:
            seat = self.table_of(a)
            if seat is not None and b in seat[0].player_ids:
                found.append((a, b, seat[0]))
        return found

    def table_of(self, player_id: int) -> tuple[RoundTable, int] | None:
        """(the player's table, their 0-based seat) in this round."""
        for rt in self.tables:
            if player_id in rt.player_ids:
                return rt, rt.player_ids.index(player_id)
        return None

    def seconds_left(self, rt: RoundTable | None = None, now: datetime | None = None) -> int | None:
        """The clock's seconds left (for one table: with its extension): :func:`clock_left`."""
        return clock_left(self.minutes, self.clock_from, rt.extra_minutes if rt else 0, self.paused_at, now)


def night_rounds(conn: Connection, tables: Sequence[Table] | None = None) -> list[Round]:
    """Tonight's rounds in order, with their tables (``tables``: the night's, if already read)."""
    by_id = {t.id: t for t in (night_tables(conn) if tables is None else tables)}
    rolling = rolling_night(conn)
    found = []
    for row in night_rows.rounds(conn, current_night(conn)):
        round_tables = tuple(RoundTable(by_id[t["table_id"]], t["number"], tuple(t["seats"]), t["extra_minutes"],
                                        t["time_called"], t["released"])
                             for t in row["tables"] if t["table_id"] in by_id)
        found.append(Round(row["id"], row["number"], row["drawn_at"], row["seed"], row["minutes"], row["clock_from"],
                           round_tables, HowDrawn.read(row["draw"]), row["paused_at"], bool(row["held"]), rolling))
    return found


def rolling_night(conn: Connection) -> bool:
    """Tonight runs as rolling tables (issue 47, companion/night/rolling.py), not rounds."""
    found = night_rows.rolling(conn)
    return bool(found and found.get("on") and found.get("night") == current_night(conn))


def shown_rounds(rounds: Sequence[Round]) -> list[Round]:
    """The rounds the room and the phones see: not one held for the organiser's review (issue 44,
    "Review each draw before it is shown"), which only the hall shows until "Start round N"."""
    return [r for r in rounds if not r.held]


def review_draws(conn: Connection) -> bool:
    return night_rows.review_draws(conn)


def confirm_deals(conn: Connection) -> bool:
    return night_rows.confirm_deals(conn)


def set_confirm_deals(conn: Connection, on: bool) -> Done:
    """The hall's setting (issue 45), on unless turned off, kept for later nights: each of the
    night's tables asks a phone of another seat to confirm each deal a phone saves (a table
    decides at its first deal, so one already playing keeps what it had)."""
    with write(conn):
        night_rows.set_confirm_deals(conn, on)
    publish(Change("night"))
    return done(on)


def set_review_draws(conn: Connection, on: bool) -> Done:
    """The hall's setting, kept for later nights: each draw is held, shown on the hall only,
    until the organiser presses "Start round N"."""
    with write(conn):
        night_rows.set_review_draws(conn, on)
    publish(Change("night"))
    return done(on)


def _names(conn: Connection) -> dict[int, str]:
    return {row["id"]: row["name"] for row in night_rows.roster(conn, current_night(conn), with_left=True)}


def _minutes(raw: int | None) -> tuple[int | None, list[FieldError]]:
    """A round clock's minutes (None: no clock), and what is wrong with them."""
    if raw is None or raw == 0:
        return None, []
    if not 1 <= raw <= MAX_MINUTES:
        return None, [FieldError("minutes", T("A round clock runs from 1 to {max} minutes; 0 or empty: no clock.",
                                              max=MAX_MINUTES))]
    return raw, []


# The options that shape a drawn table's match (how long it runs), set per game for a round;
# who starts (a seat or a team) is left at its default: the drawn seat order is already random.
MATCH_FORMAT_KINDS = ("choice", "deals")


def match_format(game: Game) -> tuple[Option, ...]:
    return tuple(opt for opt in game.options if opt.kind in MATCH_FORMAT_KINDS)


def format_field(game_id: str, key: str) -> str:
    """The draw form's field for one game's match-format option."""
    return f"format-{game_id}-{key}"


def _drawn_options(formats: Mapping[str, Mapping[str, int]] | None
                   ) -> tuple[dict[str, dict[str, int]], list[FieldError]]:
    """Every game's options for the round's tables: defaults, with the organiser's match formats
    (checked by the game); and what is wrong with them, each next to its field."""
    formats = formats or {}
    options: dict[str, dict[str, int]] = {}
    errors: list[FieldError] = []
    for game in GAMES.values():
        chosen = {opt.key: int(formats.get(game.id, {}).get(opt.key, opt.default)) for opt in match_format(game)}
        options[game.id] = {**{opt.key: opt.default for opt in game.options}, **chosen}
        seats = tuple(f"P{i + 1}" for i in range(min(game.players)))
        errors.extend(FieldError(format_field(game.id, e.field), e.message)
                      for e in game.check_options(MatchSetup(game.id, seats, options[game.id])) if e.field in chosen)
    return options, errors


def draw_round(conn: Connection, chosen: Sequence[seating.Chosen] | None = None,
               offered: Sequence[str] | None = None, minutes: int | None = None,
               seed: str | None = None, formats: Mapping[str, Mapping[str, int]] | None = None,
               by_standings: bool = False, balanced: bool = False, every_game: bool = False,
               newcomers: bool = False, never: Sequence[tuple[int, int]] = (),
               left_playing: Sequence[RoundTable] = (), review: bool | None = None) -> Done:
    """Draw the next round for tonight's roster and create its tables with the players seated
    in the drawn order (one transaction). ``by_standings``: players with similar place points
    so far sit together (the leaders at the round's first table) instead of mixing; the room's wishes (issue
    36): ``balanced`` tables by skill (μ), ``every_game`` in turn, ``newcomers`` looked after,
    ``never`` these pairs of player ids together. ``chosen``: the organiser's games for the tables;
    else tables are filled from the ``offered`` games (all by default). Refused (field "games")
    when the roster can't be seated so, a conflict when the list or the rounds changed while
    drawing. ``formats``: per game, its match-format options (:func:`match_format`) for the
    round's tables of that game. The round keeps its way and wishes (:class:`HowDrawn`).
    ``left_playing``: tables of earlier rounds the organiser leaves playing: their players sit
    this draw out and join the next (round_time.draw_next_round decides). ``review``: the hall's
    "Review each draw before it is shown", kept for later draws (None: as kept): the round is
    held, shown on the hall only, until :func:`start_round`. Its value: the round drawn."""
    how = HowDrawn("standings" if by_standings else "balanced" if balanced else "mix", every_game, newcomers,
                   tuple((a, b) for a, b in never))
    minutes, errors = _minutes(minutes)
    if errors:
        return refused(errors)
    options_of, errors = _drawn_options(formats)
    if errors:
        return refused(errors)
    listed = roster(conn)
    sitting_out = {pid for rt in left_playing for pid in rt.player_ids}
    earlier = night_rounds(conn)
    people = [p for p in listed if p.id not in sitting_out and not p.away_from(len(earlier) + 1)]
    if len(people) < 2:
        return refused([FieldError("games", T("Tonight's list needs at least two players for a draw."))])
    seed = seed or secrets.token_hex(4)
    wishes = game_requests.draw_options(conn, [p.id for p in people], lambda: games_played(conn, people))
    seated, errors = _search(conn, people, earlier, how, seed, options_of, chosen=chosen, offered=offered,
                             requests=wishes)
    if errors:
        return refused(errors)
    places: list[RoomTable | None] = [None] * len(seated)
    if (the_room := room(conn)):  # every draw seats at the room's free tables, in the room's order
        free = free_room_tables(conn)
        if len(seated) > len(free):
            return refused([FieldError("games", Tn(
                "This draw needs {needed} table and the room has {free} free (of {all}): give fewer tables "
                "or wait for a table to finish.",
                "This draw needs {needed} tables and the room has {free} free (of {all}): give fewer tables "
                "or wait for a table to finish.", len(seated), needed=len(seated), free=len(free),
                all=len(the_room)))])
        places = room_places(seated, free, {p.id: p.room_table for p in people if p.room_table is not None})
    with write(conn):
        night = current_night(conn)
        if len(night_rows.rounds(conn, night)) != len(earlier) or \
                [p["id"] for p in night_rows.roster(conn, night)] != [p.id for p in listed]:
            return conflict(T("The list changed while drawing. Draw again."))
        if not {place.id for place in places if place} <= {place.id for place in free_room_tables(conn)}:
            # a table opened on the laptop meanwhile took one of the room's tables
            return conflict(T("The list changed while drawing. Draw again."))
        stamp = table_service.now()
        if review is not None:
            night_rows.set_review_draws(conn, review)
        round_id = night_rows.insert_round(conn, night, len(earlier) + 1, stamp, seed, minutes, how.stored(),
                                           held=night_rows.review_draws(conn))
        night_rows.leave_playing(conn, [rt.table.id for rt in left_playing])
        for p in listed:  # leaving after their match, which is over: off tonight's list now
            if p.leaving and p.id not in sitting_out:
                night_rows.update_player(conn, p.id, left=True)
        # A drawn table continues the night's numbering ("Table 8" after seven prepared or laptop
        # tables), so no two tables of the night share a label on the hall or in the seating list.
        first = next_table_number(conn)
        made = {}  # token -> revision (0: new)
        for number, ((game, players, player_ids), place) in enumerate(zip(seated, places), start=1):
            token = table_service.new_token()
            table_id = table_rows.insert_table(conn, token, game.id, players, options_of[game.id], stamp,
                                               seq=first + number - 1, label=place.label if place else None,
                                               room_table=place.id if place else None)
            night_rows.insert_round_table(conn, round_id, table_id, number, list(player_ids))
            made[token] = 0
        game_requests.settle(conn, round_id, [(g.id, ids) for g, _p, ids in seated], [r.seating() for r in earlier],
                             wishes)
    publish(Change("night"))
    publish_tables(made)
    return done(night_rounds(conn)[-1])


def _search(conn: Connection, people: Sequence[Player], earlier: Sequence[Round], how: HowDrawn, seed: str,
            options_of: Mapping[str, Mapping[str, int]], *, chosen: Sequence[seating.Chosen] | None = None,
            offered: Sequence[str] | None = None, requests: Mapping | None = None
            ) -> tuple[list[tuple[Game, list[str], tuple[int, ...]]], list[FieldError]]:
    """A draw's search for ``people`` after the ``earlier`` rounds, seated ``how``: each drawn
    table's game, names and player ids, checked by its game before anything is written; or why
    not (field "games")."""
    try:
        # Under `companion serve` in a process of its own: a long search never freezes the room.
        drawn = draw_process.draw_round([p.id for p in people], [r.seating() for r in earlier],
                                        offered=offered or None, chosen=chosen or None, seed=seed,
                                        standings=points_so_far(conn, people) if how.way == "standings" else None,
                                        strength=strengths(conn, people) if how.way == "balanced" else None,
                                        every_game=how.every_game,
                                        experience=games_played(conn, people) if how.newcomers else None,
                                        never=how.never, **(requests or {}))
    except seating.SeatingError as cannot:
        return [], [FieldError("games", cannot.message)]
    names = {p.id: p.name for p in people}
    seated = []
    for table in drawn.tables:
        game = GAMES[table.game]
        players, errors = table_service.check_setup(game, [names[p] for p in table.players], options_of[game.id])
        if errors:
            return [], [FieldError("games", error.message) for error in errors]
        seated.append((game, players, table.players))
    return seated, []


def still_playing(rounds: Sequence[Round]) -> list[tuple[Round, RoundTable]]:
    """The tables of ``rounds`` still playing: a deal played and no result yet (what a new draw
    would strand, issue 44), each with its round."""
    return [(r, rt) for r in rounds for rt in r.tables if rt.table.deals and not rt.table.match().over]


def redraw_round(conn: Connection) -> Done:
    """Fix a draw (issue 44): until any table of the latest round has a deal, the round is drawn
    again, the same way and wishes, the same games, clock and match formats, with a new seed and
    everyone on tonight's list now (a late arrival too; players at a table left playing still sit
    out). Its tables keep their links, numbers and printed cards: each gets its new players.
    Refused once a table has a deal (swap or move players at the tables without one instead).
    Its value: the round."""
    rounds_ = night_rounds(conn)
    if not rounds_:
        return no_round("redraw")
    latest, earlier = rounds_[-1], rounds_[:-1]
    if any(rt.table.deals for rt in latest.tables):
        return refused([FieldError("redraw", T("A table of round {n} has a deal already: swap or move players at "
                                               "the tables without one instead.", n=latest.number))])
    playing = {pid for _r, rt in still_playing(earlier) for pid in rt.player_ids}
    listed = roster(conn)
    people = [p for p in listed if p.id not in playing and not p.away_from(latest.number)]
    options_of = {rt.table.game.id: dict(rt.table.setup.options) for rt in latest.tables}
    seed = secrets.token_hex(4)  # kept with the round, as a first draw's is
    wishes = game_requests.draw_options(conn, [p.id for p in people], lambda: games_played(conn, people), latest.id)
    seated, errors = _search(conn, people, earlier, latest.draw, seed, options_of,
                             chosen=[rt.table.game.id for rt in latest.tables], requests=wishes)
    if errors:
        return refused([FieldError("redraw", e.message) for e in errors])
    # Each drawn table to one of the round's tables of its game, in order.
    free: dict[str, list[RoundTable]] = {}
    for rt in latest.tables:
        free.setdefault(rt.table.game.id, []).append(rt)
    with write(conn):
        if [p["id"] for p in night_rows.roster(conn, current_night(conn))] != [p.id for p in listed] or \
                len(night_rows.rounds(conn, current_night(conn))) != len(rounds_):
            return conflict(T("The list changed while drawing. Draw again."))
        stamp = table_service.now()
        moved = {}
        for game, players, player_ids in seated:
            rt = free[game.id].pop(0)
            if (now_stored := table_service.load(conn, rt.table.token)) is None or now_stored.deals:  # saved meanwhile
                return started(TABLE_STARTED)
            moved[rt.table.token] = table_rows.seat_players(conn, rt.table.id, players, rt.table.setup.options, stamp)
            night_rows.set_seats(conn, rt.table.id, list(player_ids))
        night_rows.bump_round(conn, latest.id, seed)
        game_requests.settle(conn, latest.id, [(g.id, ids) for g, _p, ids in seated], [r.seating() for r in earlier],
                             wishes, redrawn=True)
    publish(Change("night"))
    publish_tables(moved)
    return done(_latest(conn))


def season_player(conn: Connection, name: str):
    """The season's player of tonight's ``name`` (found, or made): a phone's "My season"."""
    return season.ensure_player(conn, name)


def points_so_far(conn: Connection, people: Sequence[Player]) -> dict[int, float]:
    """Each of ``people``'s place points tonight, as the leaderboard reads them from the
    night's results (0 before a first finished table)."""
    totals = {standing.key: standing.points for standing in leaderboard(night_results(conn))}
    return {p.id: totals.get(p.key, 0.0) for p in people}


def _season_ids(conn: Connection, people: Sequence[Player]) -> dict[int, str]:
    """Tonight's players' ids in the season's records (a name at a table is its player)."""
    by_key = player_rows.name_map(conn)
    return {p.id: str(by_key[p.key]) for p in people if p.key in by_key}


def strengths(conn: Connection, people: Sequence[Player]) -> dict[int, dict[str, float]]:
    """Each of ``people``'s rating μ per game and overall (""), from the season's ratings (a
    player with none has the fresh rating's μ): what a *balanced* draw evens out."""
    ratings = season.ratings(conn)
    ids = _season_ids(conn, people)
    found = {}
    for p in people:
        sid = ids.get(p.id)
        row = {"": ratings.of(sid).mu if sid else ratings.of("").mu}
        if sid:
            row.update({game: table[sid].mu for game, table in ratings.by_game.items() if sid in table})
        found[p.id] = row
    return found


def rating_by_key(conn: Connection):
    """A player's overall rating by their name key (a leaderboard line's ``key``); a name the
    season doesn't know has the fresh rating."""
    ratings = season.ratings(conn)
    ids = player_rows.name_map(conn)
    return lambda key: ratings.of(str(ids[key]) if key in ids else "")


def games_played(conn: Connection, people: Sequence[Player]) -> dict[int, set[str]]:
    """The games each of ``people`` has finished a match of, on any night (the stored results)."""
    records = season.records(conn)  # first: it stores the results not yet stored, giving new names their ids
    ids = _season_ids(conn, people)
    wanted = {sid: pid for pid, sid in ids.items()}
    found: dict[int, set[str]] = {p.id: set() for p in people}
    for record in records:
        for key in record.keys:
            if key in wanted:
                found[wanted[key]].add(record.game)
    return found


# What a seating change answers when a table it touches has started.
TABLE_STARTED = T("That table has started (a deal is recorded): its players stay as they are.")


def no_round(field_name: str = "round") -> Done:
    """A change to the latest round before any round was drawn."""
    return refused([FieldError(field_name, T("Draw a round first."))])


def swap(conn: Connection, a: int, b: int) -> Done:
    """The organiser's swap in the latest round, before its tables start: players ``a`` and
    ``b`` change seats; ``b`` may be a player not seated this round (a late arrival, who then
    takes ``a``'s seat). One transaction; the tables keep their links. Its value: the round."""
    with write(conn):
        latest = _latest(conn)
        if latest is None:
            return no_round()
        where_a, where_b = latest.table_of(a), latest.table_of(b)
        if where_a is None or a == b or player(conn, b) is None:
            return refused([FieldError("swap", T("Choose a seated player and another player."))])
        touched = [where_a[0]] + ([where_b[0]] if where_b else [])
        if any(rt.started for rt in touched):
            return started(TABLE_STARTED)
        names = _names(conn)
        draw = seating.Draw(latest.seating())
        swapped = seating.swap_players(draw, a, b)
        changed = []  # each touched table's new players, checked by its game before anything is written
        for rt, seats in zip(latest.tables, swapped.tables):
            if rt in touched and seats.players != rt.player_ids:
                players, errors = table_service.check_setup(rt.table.game, [names[p] for p in seats.players],
                                                            rt.table.setup.options)
                if errors:
                    return refused([FieldError("swap", error.message) for error in errors])
                changed.append((rt, seats, players))
        stamp = table_service.now()
        moved = {}  # token -> its new revision
        for rt, seats, players in changed:
            moved[rt.table.token] = table_rows.seat_players(conn, rt.table.id, players, rt.table.setup.options, stamp)
            for seat, (old, new) in enumerate(zip(rt.player_ids, seats.players)):
                if old != new:
                    night_rows.set_seat(conn, rt.table.id, seat, new)
        night_rows.bump_round(conn, latest.id)
    publish(Change("night"))
    for token, revision in moved.items():
        publish(Change("table", token, revision))  # their players changed
    return done(_latest(conn))


def _reseat(conn: Connection, latest: Round, rt: RoundTable, player_ids: list[int], field_name: str) -> Done:
    """Inside the write: one round table gets ``player_ids`` in seat order, if its game takes them;
    its value: the table's new revision."""
    if rt.started:
        return started(TABLE_STARTED)
    names = _names(conn)
    players, errors = table_service.check_setup(rt.table.game, [names[p] for p in player_ids], rt.table.setup.options)
    if errors:
        return refused([FieldError(field_name, error.message) for error in errors])
    revision = table_rows.seat_players(conn, rt.table.id, players, rt.table.setup.options, table_service.now())
    night_rows.set_seats(conn, rt.table.id, player_ids)
    night_rows.bump_round(conn, latest.id)
    return done(revision)


def change_seat(conn: Connection, table_id: int, seat: int, player_id: int, from_start: bool = False) -> Done:
    """Mid-match (issue 44): ``player_id`` takes seat ``seat`` (0-based) of a round table that
    has started and has no result: a substitute for a player who left, after the deals played
    so far, or, ``from_start``, the person who really sat there (the wrong one was seated: the
    seat's deals are theirs). Whoever holds the seat when the match ends gets its place and
    place points; the table's log and the night's files say who took it after which deal. The
    one who left keeps their other tables. Its value: the round."""
    with write(conn):
        rounds_ = night_rounds(conn)
        found = next(((r, rt) for r in rounds_ for rt in r.tables if rt.table.id == table_id), None)
        if found is None:
            return not_found()
        r, rt = found
        who = player(conn, player_id)
        if not 0 <= seat < len(rt.player_ids) or who is None or who.left:
            return refused([FieldError("seat_change", T("Choose a seat at the table and a player on tonight's list."))])
        if rt.player_ids[seat] == player_id:
            return done(r)  # sent again (a double tap): the seat is theirs already
        if rt.table.match().over:
            return refused([FieldError("seat_change", T("This match has ended: its seats stay as they were."))])
        if player_id in rt.player_ids:
            return refused([FieldError("seat_change", T("{name} already sits at this table.", name=who.name))])
        # Seated at a table playing now (started, or the latest round's): not free to take a seat.
        busy = next((other for q in rounds_ for other in q.tables
                     if player_id in other.player_ids and not other.table.match().over
                     and (other.table.deals or q is rounds_[-1])), None)
        if busy is not None:
            return refused([FieldError("seat_change", T("{name} is playing at another table now.", name=who.name))])
        names = list(rt.table.setup.players)
        leaver = names[seat]
        names[seat] = who.name
        players, errors = table_service.check_setup(rt.table.game, names, rt.table.setup.options)
        if errors:
            return refused([FieldError("seat_change", error.message) for error in errors])
        after = 0 if from_start else len(rt.table.deals)
        revision = table_rows.change_seat(
            conn, rt.table.id, players, "reseat" if from_start else "substitute", after,
            {"seat": seat + 1, "player": leaver, "player_id": rt.player_ids[seat]},
            {"seat": seat + 1, "player": who.name, "player_id": player_id}, table_service.now())
        night_rows.set_seat(conn, rt.table.id, seat, player_id)
        night_rows.bump_round(conn, r.id)
    publish(Change("night"))
    publish(Change("table", rt.table.token, revision))
    return done(r)


def seat_changes(conn: Connection, tables: Sequence[Table]) -> list[dict]:
    """The night's seat changes (:func:`change_seat`), oldest first: table id, ``action``
    ("substitute" or "reseat"), ``number`` (after which deal), ``before`` and ``after`` (the
    seat's player: seat, name, id)."""
    return table_rows.seat_changes(conn, [t.id for t in tables])


def _latest(conn: Connection) -> Round | None:
    """Tonight's latest round (None: none drawn yet)."""
    rounds_ = night_rounds(conn)
    return rounds_[-1] if rounds_ else None


def join_table(conn: Connection, player_id: int, table_number: int) -> Done:
    """A player not seated in the latest round (a late arrival) takes the last seat of one of its
    tables before that table starts, when the game takes one more player (4 → 5, say). Its
    value: the round."""
    with write(conn):
        latest = _latest(conn)
        if latest is None:
            return no_round()
        target = next((rt for rt in latest.tables if rt.number == table_number), None)
        who = player(conn, player_id)
        if target is None or who is None or who.left or latest.table_of(player_id) is not None:
            return refused([FieldError("join", T("Choose a player without a seat this round and a table."))])
        reseated = _reseat(conn, latest, target, [*target.player_ids, player_id], "join")
        if not reseated.saved:
            return reseated
    publish(Change("night"))
    publish(Change("table", target.table.token, reseated.value))
    return done(_latest(conn))


def leave_table(conn: Connection, player_id: int) -> Done:
    """A seated player leaves their table of the latest round before it starts, when the game
    can be played by one fewer (5 → 4, say); the others keep their order. Its value: the round."""
    with write(conn):
        latest = _latest(conn)
        if latest is None:
            return no_round()
        found = latest.table_of(player_id)
        if found is None:
            return refused([FieldError("leave", T("Choose a player seated this round."))])
        rt = found[0]
        reseated = _reseat(conn, latest, rt, [p for p in rt.player_ids if p != player_id], "leave")
        if not reseated.saved:
            return reseated
    publish(Change("night"))
    publish(Change("table", rt.table.token, reseated.value))
    return done(_latest(conn))


def extra_after(found: Mapping, minutes: int, now: datetime | None = None) -> int:
    """A round table's extra minutes once it is given ``minutes`` more (``found``: its
    ``night_rows.table_round`` row): counted from its end, or from now where that has passed
    or time was called (whole minutes, rounded up: never less than asked)."""
    if not found["minutes"] or not found["clock_from"]:
        return found["extra_minutes"] + minutes  # no clock running: kept for when it starts
    start = datetime.fromisoformat(found["clock_from"])
    ends = start + timedelta(minutes=found["minutes"] + found["extra_minutes"])
    if found.get("paused_at"):
        now = datetime.fromisoformat(found["paused_at"])  # the clock stands where it was paused
    now = now or clock_now()
    if found["time_called"] or ends < now:
        ends = now
    return math.ceil((ends - start).total_seconds() / 60) + minutes - found["minutes"]


def publish_tables(moved: Mapping[str, int]) -> None:
    """Announce each table a committed write moved, at the revision the store gave it."""
    for token, revision in moved.items():
        publish(Change("table", token, revision))


def start_clock(conn: Connection, minutes: int | None) -> Done:
    """Start (or restart, or with 0/None stop) the latest round's clock from now."""
    minutes, errors = _minutes(minutes)
    if errors:
        return refused(errors)
    with write(conn):
        rounds_ = night_rows.rounds(conn, current_night(conn))
        if not rounds_:
            return no_round()
        night_rows.set_clock(conn, rounds_[-1]["id"], minutes, table_service.now() if minutes else None)
        # Each table of the round shows the clock: its phones are told as of any other change.
        moved = table_rows.shown_again(conn, night_rows.round_table_ids(conn, rounds_[-1]["id"]))
    publish(Change("night"))
    publish_tables(moved)
    return done()


def start_round(conn: Connection) -> Done:
    """"Start round N": a round held for review is shown to the room and the phones, and its
    clock starts now from the minutes its draw set (it never starts by itself). Refused when
    there is nothing to start: a round shown already without minutes (set them with
    :func:`start_clock`), or whose clock runs already."""
    with write(conn):
        rounds_ = night_rows.rounds(conn, current_night(conn))
        if not rounds_:
            return no_round()
        latest = rounds_[-1]
        if latest["held"]:
            night_rows.show_round(conn, latest["id"])
        elif not latest["minutes"]:
            return refused([FieldError("clock", T("This round has no clock: give it minutes below."))])
        elif latest["clock_from"]:
            return refused([FieldError("clock", T("Round {n}'s clock has started already.", n=latest["number"]))])
        if latest["minutes"] and not latest["clock_from"]:
            night_rows.set_clock(conn, latest["id"], latest["minutes"], table_service.now())
        moved = table_rows.shown_again(conn, night_rows.round_table_ids(conn, latest["id"]))
    publish(Change("night"))
    publish_tables(moved)
    return done()


def pause_round_clock(conn: Connection, round_row: Mapping, pause: bool) -> Done | None:
    """Inside the caller's write: pause ``round_row``'s clock, or resume it from the seconds it
    was paused at (its start moved on by the pause). A refusal when it is not running (or not
    paused), else None. A round's clock and a rolling table's (a round of one table) alike."""
    if not round_row["clock_from"] or bool(round_row["paused_at"]) == pause:
        return refused([FieldError("clock", T("The clock is not running.") if pause else
                                   T("The clock is not paused."))])
    stamp = table_service.now()
    if pause:
        night_rows.pause_clock(conn, round_row["id"], stamp, round_row["clock_from"])
    else:
        stood = datetime.fromisoformat(stamp) - datetime.fromisoformat(round_row["paused_at"])
        moved_from = (datetime.fromisoformat(round_row["clock_from"]) + stood).isoformat(timespec="seconds")
        night_rows.pause_clock(conn, round_row["id"], None, moved_from)
    return None


def pause_clock(conn: Connection, pause: bool = True) -> Done:
    """Pause the latest round's clock (every table's seconds stand still, extensions too) or
    resume it from the seconds it was paused at. Refused when it is not running (or not paused)."""
    with write(conn):
        rounds_ = night_rows.rounds(conn, current_night(conn))
        if not rounds_:
            return no_round()
        latest = rounds_[-1]
        refusal = pause_round_clock(conn, latest, pause)
        if refusal is not None:
            return refusal
        moved = table_rows.shown_again(conn, night_rows.round_table_ids(conn, latest["id"]))
    publish(Change("night"))
    publish_tables(moved)
    return done()


def extend_tables(conn: Connection, table_ids: Sequence[int], minutes: int = EXTEND_MINUTES) -> Done:
    """Give these round tables ``minutes`` more each (:func:`extend_table` for every one, in one
    write: "+5 min for every table"). Its value: how many."""
    with write(conn):
        found = [(table_id, night_rows.table_round(conn, table_id)) for table_id in table_ids]
        found = [(table_id, row) for table_id, row in found if row is not None]
        for table_id, row in found:
            night_rows.extend_table(conn, table_id, extra_after(row, minutes))
        moved = table_rows.shown_again(conn, [table_id for table_id, _row in found])
    publish(Change("night"))
    publish_tables(moved)
    return done(len(found))


def extend_table(conn: Connection, table_id: int, minutes: int = EXTEND_MINUTES) -> Done:
    """Give one table of a round ``minutes`` more: its time ends that long after its end, or
    after now if its time is up already (the clock at zero, or time called: calling time is
    taken back). The hall, the screen and its phones then agree it has time left."""
    with write(conn):
        found = night_rows.table_round(conn, table_id)
        if found is None:
            return not_found()
        night_rows.extend_table(conn, table_id, extra_after(found, minutes))
        moved = table_rows.shown_again(conn, [table_id])  # its phones show its clock
    publish(Change("night"))
    publish_tables(moved)
    return done()


# ---- results and the leaderboard ----------------------------------------------------------


@dataclass(frozen=True)
class TableResult:
    table: Table
    round: Round | None
    number: int | None  # the table's number in its round
    player_ids: tuple[int | None, ...]  # per seat: the roster player, if known
    result: place_points.MatchResult  # placings named by tonight's names


def night_results(conn: Connection, tables: Sequence[Table] | None = None,
                  rounds_: Sequence[Round] | None = None) -> list[TableResult]:
    """Every seated table of the night with its players' places and place points. A roster
    player is named by their current name (a rename shows everywhere); at a table opened
    outside the draws, a name on tonight's list is that player."""
    tables = night_tables(conn) if tables is None else tables
    rounds_ = night_rounds(conn, tables) if rounds_ is None else rounds_
    people = night_rows.roster(conn, current_night(conn), with_left=True)
    names = {row["id"]: row["name"] for row in people}
    by_key = {row["key"]: row["id"] for row in people}
    where = {rt.table.id: (r, rt) for r in rounds_ for rt in r.tables}
    found = []
    for table in tables:
        if not table.seated:
            continue
        try:
            result = place_points.result_of(table.match())
        except Exception:  # a table whose facts no longer replay: left out, never a 500
            continue
        if not table.confirmed:  # issue 45: a match counts once another seat confirmed its deals
            result = replace(result, over=False)
        r, rt = where.get(table.id, (None, None))
        ids = rt.player_ids if rt else tuple(by_key.get(name_key(n)) for n in table.setup.players)
        placings = tuple(replace(p, player=names.get(ids[p.seat], p.player) if ids[p.seat] else p.player)
                         for p in result.placings)
        found.append(TableResult(table, r, rt.number if rt else None, ids, replace(result, placings=placings)))
    return found


def leaderboard(results: Sequence[TableResult]) -> tuple[place_points.Standing, ...]:
    """Tonight's players ranked by place points: only players on tonight's list (someone else at
    a table counts for its places, never gets a line)."""
    return place_points.leaderboard(replace(r.result, placings=tuple(p for p in r.result.placings
                                                                     if r.player_ids[p.seat] is not None))
                                    for r in results)


def player_summary(results: Sequence[TableResult], who: Player) -> list[dict]:
    """A player's tables tonight: table result, their placing (seat order) — their night."""
    mine = []
    for r in results:
        for placing in r.result.placings:
            pid = r.player_ids[placing.seat]
            if pid == who.id or (pid is None and name_key(placing.player) == who.key):
                mine.append(dict(result=r, placing=placing))
                break
    return mine


def unseat(conn: Connection, table_id: int) -> Done:
    """Take a seated table with no deal back to "waiting for its players" (the organiser's
    "change the players"); a table of a drawn round keeps its seating (swap instead)."""
    with write(conn):
        found = [t for t in night_tables(conn) if t.id == table_id]
        if not found or not found[0].seated or night_rows.table_round(conn, table_id) is not None:
            return not_found()
        if found[0].deals:
            return started(T("That table has a deal recorded: its players stay as they are."))
        revision = night_rows.unseat_table(conn, table_id, table_service.now())
    publish(Change("table", found[0].token, revision))  # the night's pages follow every table of it
    return done()
