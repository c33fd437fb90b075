"""Players across nights (issue 26): who is who, each table's stored result, and the season.

The laptop keeps the players it has seen (no accounts). A name as a table compares it
(:func:`companion.names.name_key`) is one player on every night; the organiser can merge two
spellings (every match of one becomes the other's), rename a player, or keep apart two people
who share a name (a seat given to the other person). The statistics are
:mod:`companion.meetup.season`'s, from one :class:`~companion.meetup.season.MatchRecord` per
ended match, built from the stored results (``store.players``): a table is replayed through its
rules once per revision (:func:`refresh`), never per page.
"""

from __future__ import annotations

import gc
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timezone
from fractions import Fraction
from typing import Any, Callable, Sequence

from ..changes import Change, publish
from ..games import GAMES
from ..games import FieldError, InvalidDeal
from ..games.text import T, Text
from ..meetup.points import match_result
from ..meetup.ratings import Ratings, Replay, carry_on
from ..meetup.season import MIN_MATCHES, MatchRecord, PlayerStats, SeasonTable, player_stats, season_table
from ..names import clean_name, name_key
from ..outcomes import Done, done, not_found, refused
from ..store import Connection, write
from ..store import players as player_rows

__all__ = ["Player", "refresh", "records", "warm", "everyone", "get", "player_of_name", "merge", "rename", "keep_apart",
           "give_seat", "span_bounds", "SPANS", "stats", "season", "table_label", "seat_players"]


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    key: str
    keys: tuple[str, ...] = ()  # the name keys that point to them (a merge adds one)

    @property
    def sid(self) -> str:
        """The id the season's records carry."""
        return str(self.id)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def table_label(table: dict[str, Any]) -> str:
    """How a match names its table: the organiser's label, else its number in the night; a
    round's table with its round ("R2 · Table 3"), as the room's table 3 holds one table a round
    (issue 44: a player's history lists tables of several rounds)."""
    if table.get("label"):
        label = str(table["label"])
    elif table.get("seq"):
        label = str(table["seq"])
    else:
        return f"#{table['id']}"
    if not table.get("round"):
        return label
    # In the files' one language (the night's files are English, issue 48), as the night's CSV names it.
    return f"R{table['round']} · " + (f"Table {label}" if label.isdigit() else label)


# --------------------------------------------------------------------------
# Stored results


def season_version(conn: Connection) -> int:
    """The season's version: moved by every write that changes what its pages show (a match
    that ends, is reopened or changed once ended; who-is-who). A page reads it before anything
    it shows, so a change committed meanwhile leaves it older (asked again), never newer."""
    return player_rows.season_version(conn)


def results_stale(conn: Connection) -> bool:
    """Whether any table's stored result is missing or older than the table."""
    return bool(player_rows.stale_tables(conn, limit=1))


def refresh(conn: Connection) -> int:
    """Replay every table whose stored result is missing or stale and store it; give each new
    name at a counted table a player (a name typed only at side tables nobody added is nobody's
    yet: a stranger's invented names make no players). Returns how many tables were replayed
    (0 on an unchanged laptop: one query)."""
    done = 0
    while True:
        stale = player_rows.stale_tables(conn)
        if not stale:
            return done
        replayed = []
        for table in stale:
            game = GAMES.get(table["game"])
            over, names, places, scores, entrants = False, list(table["players"]), [], [], []
            at_time = False
            if game is not None and (table["deals"] or table["finished"]):
                try:
                    result = match_result(table["game"], table["players"], table["deals"], table["options"],
                                          table["finished"], at_time=table["ended_at_time"])
                except (InvalidDeal, ValueError, KeyError, TypeError):  # a table its game no longer reads
                    result = None
                if result is not None:
                    # Issue 45: a match counts once another seat confirmed every deal of it.
                    over, at_time = result.over and not table.get("unconfirmed"), result.at_time
                    names = [p.player for p in result.placings]
                    places = [p.place for p in result.placings]
                    scores = [p.score for p in result.placings]
                    entrants = [p.entrant for p in result.placings]
            started = table["night_started"] or table["created_at"]
            replayed.append((table, over, names, places, scores, entrants, started[:10], at_time))
        stamp = now()
        with write(conn):
            keys_seen: dict[str, str] = {}
            for table, over, names, places, scores, entrants, night, at_time in replayed:
                keys = [name_key(n) for n in names]
                counted = table["counted"]  # some night's leaderboard counts it (issue 43)
                if counted:
                    for k, n in zip(keys, names):
                        keys_seen[k] = n  # the latest table's spelling (tables come oldest first)
                player_rows.save_result(conn, table["id"], table["revision"], table["finished"], over, night,
                                        table["ended_at"] or table["updated_at"], table["game"], table_label(table),
                                        names, keys, places, scores, entrants, at_time, counted)
            for k in sorted(player_rows.missing_keys(conn, keys_seen)):
                if k:
                    player_rows.insert_player(conn, keys_seen[k], k, stamp)
        publish(Change("players"))
        done += len(stale)


UNCOUNTED_PAGE = 20  # "Matches not counted" lists this many a page


def uncounted_matches(conn: Connection, page: int = 1) -> tuple[list[dict[str, Any]], int]:
    """Ended matches no night counts (side tables never added), newest first, by the names typed
    at them (nobody's figures or rating, issue 43), one page of them; and how many there are."""
    refresh(conn)
    total = player_rows.count_uncounted(conn)
    return player_rows.uncounted_results(conn, UNCOUNTED_PAGE, (max(page, 1) - 1) * UNCOUNTED_PAGE), total


class _Season:
    """One database's season as records, with what they were built from, and the statistics
    pages asked of them (kept until anything changes)."""

    def __init__(self) -> None:
        self.results_mark: tuple = ()
        self.who_mark: tuple = ()
        self.rows: dict[int, tuple] = {}  # table id -> (revision, finished, night, at, game, label, data...)
        self.built: dict[int, MatchRecord] = {}  # table id -> its record (players by id)
        self.records: list[MatchRecord] = []
        self.table_of: dict[int, int] = {}  # record index -> table id
        self.memo: dict[tuple, Any] = {}  # (what, arguments) -> a statistic of these records


@contextmanager
def _no_collection():
    """Hold the cyclic garbage collector off while thousands of records are made: they hold no
    cycles, but their allocations would set off full collections walking the whole heap (about
    a third of the first season page's time after a start)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


class _Ids(dict):
    """Name key -> the player id a record carries (as text); a key no player has yet stands
    for itself ("k:" + key)."""

    def __init__(self, by_key: dict[str, int]) -> None:
        super().__init__((k, str(player_id)) for k, player_id in by_key.items())

    def __missing__(self, key: str) -> str:
        return "k:" + key


class _Cache:
    """The season's records per database. A page asks two cheap questions (did any stored
    result change? did who-is-who change?); a changed result is read again alone, and only a
    change of who-is-who gives every record its players' ids again. Statistics asked of
    unchanged records (a season table, a player's figures) are remembered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_path: dict[tuple, _Season] = {}

    def get(self, conn: Connection) -> _Season:
        path = (getattr(conn, "path", ""), getattr(conn, "identity", None))  # a restored file is another season
        results_mark, who_mark = player_rows.results_signature(conn), player_rows.who_signature(conn)
        with self.lock:
            season = self.by_path.get(path)
            if season is None:
                season = self.by_path[path] = _Season()
            if season.results_mark == results_mark and season.who_mark == who_mark:
                return season
            with _no_collection():
                self._read(conn, season, results_mark, who_mark)
            return season

    @staticmethod
    def _read(conn: Connection, season: _Season, results_mark: tuple, who_mark: tuple) -> None:
        """Read the changed results into ``season`` and make the records they change."""
        changed: set[int] = set()
        if season.results_mark != results_mark:
            if not season.rows:  # the first page after a start: every stored result, one query
                found, gone = player_rows.ended_results(conn), set()
            else:
                marks = player_rows.result_marks(conn)
                gone = set(season.rows) - set(marks)
                for table_id in gone:
                    season.rows.pop(table_id, None)
                    season.built.pop(table_id, None)
                stale = [t for t, mark in marks.items() if season.rows.get(t, (None, None))[:2] != mark]
                found = player_rows.results_of(conn, stale)
            # One parse of every result's JSON, not one call per match (4,000 after a start).
            decoded = json.loads("[" + ",".join(row[7] for row in found) + "]")
            for (table_id, revision, finished, night, at, game, label, _data, at_time), data in zip(found, decoded):
                names, keys, places, scores, entrants = data
                season.rows[table_id] = (revision, finished, night, at, game, label, tuple(names), tuple(keys),
                                         tuple(places), tuple(scores), tuple(entrants), bool(at_time))
            changed = {row[0] for row in found} | gone
        if season.who_mark != who_mark:
            season.built.clear()  # every record's players by id again
        by_seat: dict[tuple[int, int], int] | None = None
        ids_of: _Ids | None = None
        ids_of_keys: dict[tuple, tuple[str, ...]] = {}
        for table_id, row in season.rows.items():
            if table_id in season.built and table_id not in changed:
                continue
            if ids_of is None:
                ids_of, by_seat = _Ids(player_rows.name_map(conn)), player_rows.seat_map(conn)
            _revision, _finished, night, at, game, label, names, keys, places, scores, entrants, at_time = row
            ids = ids_of_keys.get(keys)
            if ids is None:
                ids = ids_of_keys[keys] = tuple(map(ids_of.__getitem__, keys))
            if by_seat:
                seats = [by_seat.get((table_id, seat)) for seat in range(len(keys))]
                if any(x is not None for x in seats):
                    ids = tuple(str(x) if x is not None else i for x, i in zip(seats, ids))
            season.built[table_id] = MatchRecord(night, game, label, names, places, scores, entrants, ids, at,
                                                 at_time)
        order = sorted(season.built)
        season.records = [season.built[t] for t in order]
        season.table_of = dict(enumerate(order))
        season.memo = {}
        season.results_mark, season.who_mark = results_mark, who_mark

    def clear(self) -> None:
        with self.lock:
            self.by_path.clear()


RECORDS = _Cache()


def forget() -> None:
    """Drop every season and ratings replay kept in memory. For a database emptied or replaced
    under the same address while this process runs (the PostgreSQL tests empty one database
    per test; a SQLite file has its identity, and ``companion restore`` refuses while a server
    runs): what is kept is then worked out again from the store."""
    RECORDS.clear()
    with _REPLAYS_LOCK:
        _REPLAYS.clear()


def _memo(conn: Connection, what: tuple, work):
    """``work(records)`` for the current records, remembered until anything changes."""
    season = RECORDS.get(conn)
    if what not in season.memo:
        season.memo[what] = work(season.records)
    return season.memo[what]


def records(conn: Connection, fresh: bool = True) -> list[MatchRecord]:
    """Every ended match as a season record (players by id), after :func:`refresh`."""
    if fresh:
        refresh(conn)
    return RECORDS.get(conn).records


def warm(conn: Connection) -> int:
    """Read every stored result into the season's records and work out the season table's
    default page (all nights, all games) and the ratings, as the first pages after a start
    would: `companion
    serve` does it before its port opens, so no page pays for it. Returns the records' count."""
    refresh(conn)
    season(conn, min_matches=MIN_MATCHES)
    ratings(conn)  # every player's page shows them: a season's replay (1-2 s) is paid here, once
    return len(RECORDS.get(conn).records)


def record_tables(conn: Connection) -> dict[int, int]:
    """Record index -> table id (records' order), for links from a player's matches."""
    return RECORDS.get(conn).table_of


# --------------------------------------------------------------------------
# Who is who


def everyone(conn: Connection) -> list[Player]:
    refresh(conn)  # a name seen at a table since is a player
    return [Player(p["id"], p["name"], p["key"], tuple(p["keys"])) for p in player_rows.all_players(conn)]


def get(conn: Connection, player_id: int) -> Player | None:
    refresh(conn)
    found = player_rows.player(conn, player_id)
    if found is None:
        return None
    keys = tuple(k for k, pid in player_rows.name_map(conn).items() if pid == player_id)
    return Player(found["id"], found["name"], found["key"], keys)


def player_of_name(conn: Connection, name: str) -> Player | None:
    """The player a name at a table is (by its key), or None if the laptop never saw it."""
    refresh(conn)
    player_id = player_rows.name_map(conn).get(name_key(name))
    return None if player_id is None else get(conn, player_id)


def ensure_player(conn: Connection, raw: str) -> Done:
    """The player of this name (its value), made now if the laptop never saw it at a table (a
    roster name with no match yet); not found for an empty name."""
    found = player_of_name(conn, raw)
    name = clean_name(raw)
    if found is not None:
        return done(found)
    if not name:
        return not_found()
    with write(conn):
        if player_rows.name_map(conn).get(name_key(name)) is None:
            stamp = now()
            player_id = player_rows.insert_player(conn, name, name_key(name), stamp)
            player_rows.log(conn, "add", {"player": player_id, "name": name}, stamp)
            added = True
        else:
            added = False  # another request made them first
    if added:
        publish(Change("players"))
    return done(player_of_name(conn, name))


def seat_players(conn: Connection, table_id: int, names: Sequence[str]) -> list[int | None]:
    """Per seat of a table, its player's id (a seat given to someone else counts first)."""
    return seat_resolver(conn)(table_id, names)


def seat_resolver(conn: Connection) -> Callable[[int, Sequence[str]], list[int | None]]:
    """:func:`seat_players` for many tables: who-is-who read once."""
    by_key, by_seat = player_rows.name_map(conn), player_rows.seat_map(conn)
    return lambda table_id, names: [by_seat.get((table_id, seat), by_key.get(name_key(n)))
                                    for seat, n in enumerate(names)]


def shared_table(conn: Connection, one: int, other: int) -> MatchRecord | None:
    """A match both players played (then they are two people, never two spellings), if any."""
    both = {str(one), str(other)}
    return next((r for r in records(conn) if both <= set(r.keys)), None)


def two_people(shared: MatchRecord) -> Text:
    return T("These two played at the same table on {night}: they are two people, not two spellings.",
             night=shared.night)


def follow_roster_rename(conn: Connection, old_key: str, name: str, same_person: bool | None,
                         shared: MatchRecord | None = None) -> tuple[list[FieldError], bool]:
    """Inside the caller's write: the season follows a name the organiser corrected on
    tonight's list (issue 43, one player one identity: "Fay" corrected to "Faye" after round 1
    was two season players). The player ``old_key`` names shows as ``name`` from now on, and
    ``name`` at a table is them. Where ``name`` is already another season player's, the
    organiser says whether it is the same person (``same_person``: that player takes this one's
    matches, a merge; ``shared``, a match they both played, refuses it) or not (refused: give
    tonight's name something to tell them apart). Returns the refusal, and whether the season
    changed."""
    names = player_rows.name_map(conn)
    mine, key = names.get(old_key), name_key(name)
    if mine is None:  # not at a counted table yet: the name simply starts as the new one
        return [], False
    theirs = names.get(key)
    stamp = now()
    if theirs is not None and theirs != mine:
        other = player_rows.player(conn, theirs)
        other_name = other["name"] if other else name
        if not same_person:
            return [FieldError("same_person", T(
                "“{name}” is already a player in the season. If this is the same person, tick “Same person” and "
                "rename again; if not, add something to tell them apart (“{name} K.”).", name=other_name))], False
        if shared is not None:
            return [FieldError("same_person", two_people(shared))], False
        before = player_rows.merge(conn, theirs, mine)
        player_rows.log(conn, "merge", {"keep": other, **before}, stamp)
        mine = theirs
    found = player_rows.player(conn, mine)
    player_rows.rename(conn, mine, name, key, point_key=True)
    player_rows.log(conn, "rename", {"player": mine, "before": found["name"] if found else "", "after": name}, stamp)
    return [], True


def season_player_of_key(conn: Connection, key: str) -> int | None:
    """The season player a name key names (None: nobody yet)."""
    return player_rows.name_map(conn).get(key)


def merge(conn: Connection, keep_id: int, gone_id: int | None) -> Done:
    """Every match and spelling of ``gone_id`` becomes ``keep_id``'s (logged with what it had);
    its value: the player kept. ``gone_id`` None: none was chosen."""
    if gone_id is None:
        return refused([FieldError("gone", T("Choose the player to merge into this one."))])
    if keep_id == gone_id:
        return refused([FieldError("gone", T("Choose two different players to merge."))])
    shared = shared_table(conn, keep_id, gone_id)
    if shared is not None:  # one person can't sit at a table twice
        return refused([FieldError("gone", two_people(shared))])
    with write(conn):
        keep, gone = player_rows.player(conn, keep_id), player_rows.player(conn, gone_id)
        if keep is None or gone is None:
            return refused([FieldError("gone" if gone is None else "keep",
                                       T("That player is no longer on the list: reload the page."))])
        before = player_rows.merge(conn, keep_id, gone_id)
        player_rows.log(conn, "merge", {"keep": keep, **before}, now())
    publish(Change("players"))
    return done(get(conn, keep_id))


def ratings_for_everyone(conn: Connection) -> bool:
    """Whether every device may see the ratings (the organiser's choice on /players, issue 43);
    else the laptop only, as a new season starts."""
    return player_rows.ratings_for_everyone(conn)


def show_ratings_to_everyone(conn: Connection, everyone: bool) -> Done:
    """The organiser's choice of who sees the ratings: every device, or the laptop only. The
    season's pages show it, so the season's version moves with it."""
    with write(conn):
        player_rows.show_ratings_to_everyone(conn, everyone)
        version = player_rows.move_season(conn)
    publish(Change("players", "", version))
    return done(everyone)


def forgotten_name(player_id: int) -> str:
    """What a forgotten player is called from then on: their number on the players list."""
    return f"#{player_id}"


def forget_player(conn: Connection, player_id: int, confirmed: bool = True) -> Done:
    """Forget a player on their request (issue 43): their name, every spelling of it, replaced
    by :func:`forgotten_name` at every table they sat at, on tonight's lists, on the players
    list and in the log of who-is-who changes; a copy of the database made afterwards holds it
    nowhere (SQLite: erased in the file as it is overwritten, then the write-ahead log emptied).
    Their results stay theirs, so nobody's place points or rating change. Its value: the player.
    Refused unless ``confirmed`` (it can't be undone)."""
    if not confirmed:
        return refused([FieldError("forget", T("Tick the box to confirm: a forgotten name can't be brought back."))])
    found = get(conn, player_id)  # after its refresh: every name seen at a table is a player's
    if found is None:
        return not_found()
    name = forgotten_name(player_id)
    with write(conn, erase=True):  # their seats and spellings as they are when it is written
        old_keys = sorted({k for k, pid in player_rows.name_map(conn).items() if pid == player_id} | {found.key})
        old_names = {found.name}
        seats: dict[int, list[str]] = {}
        players_of = seat_resolver(conn)
        for table_id, names in player_rows.seated_tables(conn):
            mine = [seat for seat, pid in enumerate(players_of(table_id, names)) if pid == player_id]
            if mine:
                old_names.update(names[seat] for seat in mine)
                seats[table_id] = [name if seat in mine else typed for seat, typed in enumerate(names)]
        tonight = bool(player_rows.on_tonights_list(conn, old_keys))
        keys = set(old_keys) | {name_key(n) for n in old_names}
        version, revisions = player_rows.forget_player(conn, player_id, name, name_key(name), seats, old_keys,
                                                       lambda text: name_key(text) in keys, now())
        tokens = player_rows.tokens(conn, list(revisions))
    publish(Change("players", "", version))
    for table_id, revision in revisions.items():  # their tables' pages show the new name
        publish(Change("table", tokens[table_id], revision))
    if tonight:
        publish(Change("night"))
    # As stored now (not through get: its refresh would store their results again, a write of its own).
    return done(Player(player_id, name, name_key(name), (name_key(name),)))


def check_name(raw: str) -> tuple[str, list[FieldError]]:
    """A player's name typed by the organiser, cleaned, and what is wrong with it (nothing: [])."""
    name = clean_name(raw)
    if not name:
        return name, [FieldError("name", T("Type a name."))]
    if len(name) > 40:
        return name, [FieldError("name", T("A name can be at most {n} characters.", n=40))]
    return name, []


def rename(conn: Connection, player_id: int, raw: str) -> Done:
    """Show the player under a new name; the new name, typed at a table, is them too (unless it
    is already another player's: merge them instead). Its value: the player renamed."""
    name, errors = check_name(raw)
    if errors:
        return refused(errors)
    key = name_key(name)
    with write(conn):
        found = player_rows.player(conn, player_id)
        if found is None:
            return refused([FieldError("name", T("That player is no longer on the list: reload the page."))])
        owner = player_rows.name_map(conn).get(key)
        if owner is not None and owner != player_id:
            other = player_rows.player(conn, owner)
            return refused([FieldError("name", T("{name} is already another player: merge the two instead.",
                                                 name=other["name"] if other else name))])
        # A namesake kept apart (their key belongs to someone else) keeps being reached by seat only.
        player_rows.rename(conn, player_id, name, key, point_key=owner is None or owner == player_id)
        player_rows.log(conn, "rename", {"player": player_id, "before": found["name"], "after": name}, now())
    publish(Change("players"))
    return done(get(conn, player_id))


def _table_seat(conn: Connection, token: str, seat: int) -> tuple[dict[str, Any] | None, list[FieldError]]:
    """The table of ``token`` as the players' store reads it, and what is wrong with ``seat``."""
    table = player_rows.table_ref(conn, token)
    if table is None:
        return None, [FieldError("table", T("There is no such table."))]
    if not 0 <= seat < len(table["players"]):
        return table, [FieldError("seat", T("Choose one of the table's seats."))]
    return table, []


def keep_apart(conn: Connection, token: str, seat: int, raw: str, was: int | None = None) -> Done:
    """The player in this seat is someone else who shares the name: a new player, called
    ``raw`` (e.g. "Sam K."), gets the seat (its value); the name stays the first person's
    elsewhere. ``was``: the player the organiser saw in the seat (refused if it is someone
    else's by now)."""
    name, errors = check_name(raw)
    if errors:
        return refused(errors)
    with write(conn):
        table, errors = _table_seat(conn, token, seat)
        if errors:
            return refused(errors)
        if was is not None and seat_players(conn, table["id"], table["players"])[seat] != was:
            return refused([FieldError("seat", T("That seat is not this player's any more: reload the page."))])
        key = name_key(name)
        owner = player_rows.name_map(conn).get(key)
        stamp = now()
        # Their own name points to them when no one else has it (so "Sam K." at a later table is them).
        player_id = player_rows.insert_player(conn, name, key, stamp, own_name=owner is None)
        player_rows.assign_seat(conn, table["id"], seat, player_id)
        player_rows.log(conn, "seat", {"table": table["id"], "seat": seat, "player": player_id, "new": True}, stamp)
    publish(Change("players"))
    return done(get(conn, player_id))


def give_seat(conn: Connection, token: str, seat: int, player_id: int | None) -> Done:
    """Give a table's seat to an existing player (None: back to whoever its name is)."""
    with write(conn):
        table, errors = _table_seat(conn, token, seat)
        if errors:
            return refused(errors)
        if player_id is not None and player_rows.player(conn, player_id) is None:
            return refused([FieldError("player", T("That player is no longer on the list: reload the page."))])
        player_rows.assign_seat(conn, table["id"], seat, player_id)
        player_rows.log(conn, "seat", {"table": table["id"], "seat": seat, "player": player_id}, now())
    publish(Change("players"))
    return done()


# --------------------------------------------------------------------------
# The season


SPANS = ("month", "year", "all")


def span_bounds(span: str, today: date | None = None) -> tuple[str | None, str | None]:
    """The nights of a span: this month, this year, or all (None: open)."""
    today = today or datetime.now(timezone.utc).date()
    if span == "month":
        return f"{today:%Y-%m}-01", f"{today:%Y-%m}-31"
    if span == "year":
        return f"{today:%Y}-01-01", f"{today:%Y}-12-31"
    return None, None


def stats(conn: Connection, player: Player, *, since: str | None = None, until: str | None = None,
          game: str | None = None) -> PlayerStats | None:
    refresh(conn)
    return _memo(conn, ("stats", player.sid, since, until, game),
                 lambda records: player_stats(records, player.sid, since=since, until=until, game=game))


def matches_of(conn: Connection, player: Player, *, since: str | None = None, until: str | None = None,
               game: str | None = None) -> list[dict[str, Any]]:
    """The player's matches in the span, latest first, each with its table id, seat, place,
    place points, score and the others at the table ((name, player id) pairs)."""
    refresh(conn)
    sid = player.sid

    def work(records: list[MatchRecord]) -> list[dict[str, Any]]:
        tables = RECORDS.get(conn).table_of
        found = []
        for index, r in enumerate(records):
            if sid not in r.keys or (since and r.night < since) or (until and r.night > until) \
                    or (game and r.game != game):
                continue
            for seat, k in enumerate(r.keys):
                if k == sid:
                    num, den = r.shares[seat]
                    found.append({"index": index, "table_id": tables[index], "seat": seat, "night": r.night,
                                  "at": r.at, "game": r.game, "table": r.table, "name": r.players[seat],
                                  "place": r.places[seat], "of": r.size, "points": num / den, "exact": Fraction(num, den),
                                  "score": r.scores[seat],
                                  "at_time": r.at_time,
                                  "with": [(r.players[o], r.keys[o]) for o in range(len(r.keys)) if o != seat]})
        found.sort(key=lambda m: (m["night"], m["at"], m["index"]), reverse=True)
        return found

    return _memo(conn, ("matches", sid, since, until, game), work)


def spellings(conn: Connection) -> dict[str, tuple[str, ...]]:
    """Player id -> the names they were written as at tables, as typed (first seen first):
    what "Names at tables" lists, never the folded keys tables compare."""
    refresh(conn)

    def work(records: list[MatchRecord]) -> dict[str, tuple[str, ...]]:
        found: dict[str, dict[str, None]] = {}
        for r in records:
            for name, k in zip(r.players, r.keys):
                found.setdefault(k, {})[name] = None
        return {k: tuple(names) for k, names in found.items()}

    return _memo(conn, ("spellings",), work)


def season(conn: Connection, *, since: str | None = None, until: str | None = None, game: str | None = None,
           min_matches: int | None = None) -> SeasonTable:
    kwargs: dict[str, Any] = {} if min_matches is None else {"min_matches": min_matches}
    refresh(conn)
    return _memo(conn, ("season", since, until, game, min_matches),
                 lambda records: season_table(records, since=since, until=until, game=game, **kwargs))


SPAN_LABELS: dict[str, Text] = {"month": T("This month"), "year": T("This year"), "all": T("All nights")}


_REPLAYS: dict[tuple, Replay] = {}  # per database: the ratings' replay so far
_REPLAYS_LOCK = threading.Lock()


def ratings(conn: Connection) -> Ratings:
    """Every player's rating (per game and overall) from every stored result, worked out again
    whenever a result or who-is-who changed (a merge or a correction re-rates everyone it
    touches). The replay is kept and taken back only to the first match that changed, so a match
    just finished or a correction to tonight's costs milliseconds (a season of 4,000 matches
    from nothing: 1-2 s)."""
    refresh(conn)
    path = (getattr(conn, "path", ""), getattr(conn, "identity", None))

    def work(records: list[MatchRecord]) -> Ratings:
        with _REPLAYS_LOCK:
            replay = _REPLAYS[path] = carry_on(_REPLAYS.get(path), records)
            return replay.ratings()

    return _memo(conn, ("ratings",), work)
