"""Rolling tables (issue 47): a second way to run a night, beside rounds.

The organiser sets the games on offer with how many copies the room has of each, minutes per
game and a closing time (after it no new table starts), before the first draw. From then on a
table starts as soon as it can: when a table finishes (its match is over and confirmed, with no
open dispute, or the organiser let its players go), its players are free, and :func:`fill`
seats every table that free players, a free copy and a free room table allow, among the free
players only (companion.meetup.rolling chooses who and which game, by the draw's costs;
companion.meetup.seating gives the seat order). Each such table is stored as a round of one
table, so its clock (minutes per game, from when it was seated), calling time, pause and more
minutes are its own, and the leaderboard, the history of who met whom, the phones' "your
table" and the night's files read it as any round table.

:func:`fill` runs after every write that may free players or a table (a table's write that
ended a match, a settled dispute, a player joining or back, the organiser letting a table go,
the settings), inside one write transaction that reads everything afresh: two phones ending
two tables at once each run it, and the second finds the players seated already.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from typing import Mapping, Sequence

from . import game_requests, service
from ..changes import Change, publish
from ..games import GAMES, FieldError, Game
from ..games.text import T
from ..meetup import points as place_points
from ..meetup import rolling as choose
from ..meetup import seating
from ..outcomes import Done, done, not_found, refused
from ..store import Connection, write
from ..store import nights as night_rows
from ..store import tables as table_rows
from ..tables import service as table_service

MAX_COPIES = 50
MINUTES_PER_DEAL = 4  # a match's minutes from its deal count, where the game's options give one
DEFAULT_MINUTES = 30


@dataclass(frozen=True)
class Settings:
    """How tonight's rolling tables run: ``games`` (game id -> copies), ``minutes`` per game,
    ``closing`` (UTC; None: no closing time) and the draw's options."""

    games: dict[str, int]
    minutes: dict[str, int]
    closing: str | None = None
    every_game: bool = False
    newcomers: bool = False
    never: tuple[tuple[int, int], ...] = field(default=())

    def stored(self, night: int, on: bool = True) -> dict:
        return {"on": on, "night": night, "games": self.games, "minutes": self.minutes, "closing": self.closing,
                "every_game": self.every_game, "newcomers": self.newcomers, "never": [list(p) for p in self.never]}

    @classmethod
    def read(cls, stored: Mapping) -> Settings:
        return cls({g: int(n) for g, n in (stored.get("games") or {}).items() if g in GAMES},
                   {g: int(n) for g, n in (stored.get("minutes") or {}).items() if g in GAMES},
                   stored.get("closing"), bool(stored.get("every_game")), bool(stored.get("newcomers")),
                   tuple((int(a), int(b)) for a, b in stored.get("never") or ()))

    def closed(self, now: str) -> bool:
        return self.closing is not None and datetime.fromisoformat(now) >= datetime.fromisoformat(self.closing)


def settings(conn: Connection) -> Settings | None:
    """Tonight's rolling settings (None: tonight runs as rounds)."""
    found = night_rows.rolling(conn)
    if not found or not found.get("on") or found.get("night") != service.current_night(conn):
        return None
    return Settings.read(found)


def last_settings(conn: Connection) -> Settings | None:
    """The settings as last set, any night's: the hall's form starts from them."""
    found = night_rows.rolling(conn)
    return Settings.read(found) if found else None


def default_minutes(game: Game) -> int:
    """A game's minutes when the organiser gives none: from its match length where its options
    give a deal count, else :data:`DEFAULT_MINUTES`."""
    deals = next((opt.default for opt in game.options if opt.kind == "deals" and opt.default), 0)
    return min(service.MAX_MINUTES, deals * MINUTES_PER_DEAL) if deals else DEFAULT_MINUTES


def closing_stamp(raw: str | None, now: str) -> tuple[str | None, list[FieldError]]:
    """A closing time typed as the laptop's clock shows it ("22:30"): the next such moment, in
    UTC (None: none typed)."""
    raw = (raw or "").strip().replace("：", ":")
    if not raw:
        return None, []
    matched = re.fullmatch(r"(\d{1,2}):(\d{2})", raw)
    if not matched or int(matched[1]) > 23 or int(matched[2]) > 59:
        return None, [FieldError("closing", T("Give the closing time as hours:minutes, such as 22:30."))]
    here = datetime.fromisoformat(now).astimezone()
    at = here.replace(hour=int(matched[1]), minute=int(matched[2]), second=0, microsecond=0)
    if at < here - timedelta(hours=12):
        at += timedelta(days=1)  # just after midnight, for a night that began before it
    return at.astimezone(timezone.utc).isoformat(timespec="seconds"), []


def set_rolling(conn: Connection, copies: Mapping[str, int | None], minutes: Mapping[str, int | None] | None = None,
                closing: str | None = None, every_game: bool = False, newcomers: bool = False,
                never: Sequence[tuple[int, int]] = ()) -> Done:
    """Run tonight as rolling tables with these games (game id -> copies; 0 or None: not on
    offer), minutes per game (None: :func:`default_minutes`), ``closing`` as typed ("22:30";
    empty: none) and the draw's options. Refused once a round was drawn in rounds; while rolling
    it may change at any time (the next tables follow it). Then seats whoever can play. Its
    value: the settings."""
    errors: list[FieldError] = []
    games: dict[str, int] = {}
    for game_id, count in copies.items():
        if game_id not in GAMES or not count:
            continue
        if not 0 < count <= MAX_COPIES:
            errors.append(FieldError(f"copies-{game_id}", T("Give from 0 to {max} copies.", max=MAX_COPIES)))
        else:
            games[game_id] = count
    if not games and not errors:
        errors.append(FieldError("copies", T("Give at least one game a number of copies.")))
    chosen_minutes: dict[str, int] = {}
    for game_id in games:
        given = (minutes or {}).get(game_id)
        if given is None:
            chosen_minutes[game_id] = default_minutes(GAMES[game_id])
        elif not 1 <= given <= service.MAX_MINUTES:
            errors.append(FieldError(f"minutes-{game_id}", T("Give from 1 to {max} minutes.", max=service.MAX_MINUTES)))
        else:
            chosen_minutes[game_id] = given
    stamp, wrong = closing_stamp(closing, table_service.now())
    errors.extend(wrong)
    if errors:
        return refused(errors)
    chosen = Settings(games, chosen_minutes, stamp, every_game, newcomers, tuple(never))
    with write(conn):
        night = service.current_night(conn)
        if not service.rolling_night(conn) and night_rows.rounds(conn, night):
            return refused([FieldError("mode", T("Tonight runs in rounds already: rolling tables are chosen before "
                                                  "the first draw."))])
        night_rows.set_rolling(conn, chosen.stored(night))
    made = _seat_free(conn).value.made  # whoever can play starts now: one announcement for both
    publish(Change("night"))
    service.publish_tables(made)
    return done(chosen)


def set_rounds(conn: Connection) -> Done:
    """Back to rounds, before any rolling table was seated (the settings are kept for the form)."""
    with write(conn):
        night = service.current_night(conn)
        if service.rolling_night(conn) and night_rows.rounds(conn, night):
            return refused([FieldError("mode", T("Rolling tables have started tonight: the night goes on so."))])
        night_rows.set_rolling(conn, dict(night_rows.rolling(conn) or {}, on=False))
    publish(Change("night"))
    return done()


# ---- who is free ---------------------------------------------------------------------------


def frees_its_players(rt: service.RoundTable) -> bool:
    """A rolling table's players are free: its match is over, confirmed and without an open
    dispute (issue 45), or the organiser let them go."""
    table = rt.table
    return rt.released or (table.match().over and table.confirmed and not table.disputes)


def playing(rounds: Sequence[service.Round]) -> list[service.RoundTable]:
    """Tonight's tables whose players are not free yet."""
    return [rt for r in rounds for rt in r.tables if not frees_its_players(rt)]


def waiting(conn: Connection, rounds: Sequence[service.Round] | None = None) -> list[service.Player]:
    """Tonight's players free now (at no table that plays), in the order they arrived; those
    sitting out the next table or leaving too (:func:`sitting_out`)."""
    rounds = service.night_rounds(conn) if rounds is None else rounds
    busy = {pid for rt in playing(rounds) for pid in rt.player_ids}
    return [p for p in service.roster(conn) if p.id not in busy]


def sitting_out(who: service.Player) -> bool:
    """In rolling tables, "sit out the next table": left out until a table starts without them."""
    return who.sit_out_round is not None or who.leaving


# ---- seating -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seated:
    """A table :func:`fill` seated: its round (one table) and the players' names in seat order."""

    round_number: int
    table: table_service.Table
    names: tuple[str, ...]


def fill(conn: Connection, seed: str | None = None) -> Done:
    """Seat every table that can start now (see the module): idempotent, each call reading the
    night afresh inside one write. Its value: the tables seated (none: nothing could start)."""
    now = _seat_free(conn, seed).value
    if now.changed:
        publish(Change("night"))
        service.publish_tables(now.made)
    return done(now.seated)


@dataclass(frozen=True)
class SeatedNow:
    """What :func:`_seat_free` wrote: the tables seated, their tokens (revision 0: new), and
    whether anything was written at all (a leaver taken off the list is a write too)."""

    seated: list[Seated]
    made: dict[str, int]
    changed: bool


NOTHING_SEATED = SeatedNow([], {}, False)


def _seat_free(conn: Connection, seed: str | None = None) -> Done:
    """:func:`fill`'s write, announced by its caller (once, with the caller's own change); its
    value a :class:`SeatedNow`."""
    found = settings(conn)
    if found is None or found.closed(table_service.now()):
        return done(NOTHING_SEATED)
    experience = known = None
    # Read outside the write (the season stores what it has not stored yet): who played which
    # game before, for newcomers looked after and for whoever asks to learn a game.
    if found.newcomers or any(r.learn for r in game_requests.open_requests(conn).values()):
        known = service.games_played(conn, service.roster(conn))
        experience = known if found.newcomers else None
    seed = seed or secrets.token_hex(4)
    made: dict[str, int] = {}
    seated: list[Seated] = []
    with write(conn):
        found = settings(conn)  # the settings may have changed meanwhile
        if found is None or found.closed(table_service.now()):
            return done(NOTHING_SEATED)
        rounds = service.night_rounds(conn)
        history = [r.seating() for r in rounds]
        busy_tables = playing(rounds)
        busy = {pid for rt in busy_tables for pid in rt.player_ids}
        in_use = [rt.table.game.id for rt in busy_tables]
        the_room = service.room(conn)
        room_free: list[int] | None = None
        if the_room:
            taken = {rt.table.room_table for rt in busy_tables}
            room_free = [place.id for place in service.free_room_tables(conn) if place.id not in taken]
        listed = service.roster(conn)
        tables_of = {p.id: 0 for p in listed}
        last_of = {p.id: 0 for p in listed}
        for r in rounds:
            for rt in r.tables:
                for pid in rt.player_ids:
                    if pid in tables_of:
                        tables_of[pid] += 1
                        last_of[pid] = r.number
        free = [p for p in listed if p.id not in busy and not sitting_out(p)]
        passed = [p for p in listed if p.id not in busy and p.sit_out_round is not None]
        leavers = [p for p in listed if p.id not in busy and p.leaving]
        options_of, _errors = service._drawn_options(None)
        names = {p.id: p.name for p in listed}
        labels = {place.id: place.label for place in the_room}
        stamp = table_service.now()
        number = len(rounds)
        # The free players' game requests, read afresh here (a learn request asked meanwhile
        # is judged by tonight's tables alone).
        wishes = game_requests.draw_options(conn, [p.id for p in free], lambda: known or {})
        while True:
            start = choose.next_table(
                [choose.Free(p.id, tables_of[p.id], last_of[p.id], p.room_table if the_room else None) for p in free],
                history, choose.free_copies(found.games, in_use), room_free, others_playing=bool(busy_tables or seated),
                every_game=found.every_game, experience=experience, never=found.never, seed=f"{seed}/{number}",
                **wishes)
            if start is None:
                break
            drawn = seating.draw_round(list(start.players), history, chosen=[(start.game, len(start.players))],
                                       seed=f"{seed}/{number}", every_game=found.every_game, experience=experience,
                                       never=found.never)
            order = drawn.tables[0].players
            game = GAMES[start.game]
            players, errors = table_service.check_setup(game, [names[p] for p in order], options_of[game.id])
            if errors:
                break  # a name the game refuses: the organiser sees the players waiting
            number += 1
            how = service.HowDrawn("mix", found.every_game, found.newcomers, found.never)
            round_id = night_rows.insert_round(conn, service.current_night(conn), number, stamp, seed,
                                               found.minutes.get(game.id), how.stored())
            if found.minutes.get(game.id):
                night_rows.set_clock(conn, round_id, found.minutes[game.id], stamp)  # its clock starts now
            token = table_service.new_token()
            table_id = table_rows.insert_table(
                conn, token, game.id, players, options_of[game.id], stamp, seq=service.next_table_number(conn),
                label=labels.get(start.room_table) if start.room_table else None, room_table=start.room_table)
            night_rows.insert_round_table(conn, round_id, table_id, 1, list(order))
            made[token] = 0
            game_requests.settle(conn, None, [(game.id, order)], history, wishes)  # closes the ones it meets
            seated.append(Seated(number, table_service.load(conn, token), tuple(players)))
            history.append(drawn.tables)
            in_use.append(game.id)
            if room_free is not None:
                room_free.remove(start.room_table)
            free = [p for p in free if p.id not in order]
            for pid in order:
                tables_of[pid] += 1
                last_of[pid] = number
        if seated:
            for p in passed:  # a table started without them: they sat out "the next table"
                night_rows.set_away(conn, p.id, None, p.leaving)
        for p in leavers:  # leaving after their match, which is over: off tonight's list now
            night_rows.update_player(conn, p.id, left=True)
    return done(SeatedNow(seated, made, bool(seated or leavers)))


# ---- the organiser's hand on one table ------------------------------------------------------


def release(conn: Connection, table_id: int) -> Done:
    """The organiser lets a rolling table's players go while its dispute waits to be settled
    (the dispute stays on the hall), then seats whoever can play."""
    with write(conn):
        if night_rows.table_round(conn, table_id) is None or settings(conn) is None:
            return not_found()
        night_rows.release_table(conn, table_id)
    made = _seat_free(conn).value.made
    publish(Change("night"))
    service.publish_tables(made)
    return done()


def pause_table(conn: Connection, table_id: int, pause: bool = True) -> Done:
    """Pause one rolling table's clock (or resume it from the seconds it was paused at)."""
    with write(conn):
        found = night_rows.table_round(conn, table_id)
        if found is None:
            return not_found()
        refusal = service.pause_round_clock(conn, found, pause)
        if refusal is not None:
            return refusal
        moved = table_rows.shown_again(conn, [table_id])
    publish(Change("night"))
    service.publish_tables(moved)
    return done()


# ---- what the room sees ---------------------------------------------------------------------


@dataclass(frozen=True)
class Announcement:
    """"Table 3 is free: Ann, Bob, Cy, Di → <game>": a table seated and not started yet."""

    label: object  # a Text ("Table 3") or the room's own label
    names: tuple[str, ...]
    game: Game
    table: table_service.Table
    player_ids: tuple[int, ...]


def announcements(rounds: Sequence[service.Round], names: Mapping[int, str]) -> list[Announcement]:
    """The tables seated and waiting for their first deal, the newest first."""
    from .round_time import named  # round_time imports this module's service too
    found = []
    for r in reversed(rounds):
        for rt in r.tables:
            if not rt.table.deals and not rt.table.match().over and not rt.released:
                found.append(Announcement(named(rt.table, rt.number), tuple(names.get(p, "?") for p in rt.player_ids),
                                          rt.table.game, rt.table, rt.player_ids))
    return found


def rank_per_match(standings: Sequence[place_points.Standing]) -> tuple[place_points.Standing, ...]:
    """The rolling leaderboard: place points per match first (each match counts once; more
    matches are no advantage of their own), then matches played; ties share a rank."""
    def order(s: place_points.Standing) -> tuple:
        exact = s.exact if s.exact else Fraction(s.points)
        return (-(exact / s.tables), -s.tables)
    ranked = sorted(standings, key=lambda s: (order(s), s.key))
    found, rank = [], 0
    for position, s in enumerate(ranked):
        if position == 0 or order(s) != order(ranked[position - 1]):
            rank = position + 1
        found.append(place_points.Standing(rank, s.key, s.name, s.tables, s.places, s.points, s.average, s.exact))
    return tuple(found)


def leaderboard(conn: Connection, results: Sequence[service.TableResult]) -> tuple[place_points.Standing, ...]:
    """Tonight's leaderboard as the night runs: by place points, or per match in rolling tables."""
    standings = service.leaderboard(results)
    return rank_per_match(standings) if settings(conn) is not None else standings


def closing_soon(conn: Connection) -> str | None:
    found = settings(conn)
    return found.closing if found else None
