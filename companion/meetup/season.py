"""Players across nights: a player's statistics and the season table, from finished matches.

Input is plain data, one :class:`MatchRecord` per finished match (its night, game, table,
players in seat order, places and final scores), as storage keeps them; nothing here reads a
database. Two names are one player by :func:`player_key`, the very rule a table uses to refuse
the same name twice; where storage keeps players apart or merges spellings, it gives each
record the players' ids instead, and those decide.

Place points are those of :mod:`companion.meetup.points` (the share of the other players, or
teams, beaten; ties count half). A *win* is a first place, shared or not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Iterable, Sequence

from ..games.text import T, Tn, Text
from .points import MatchResult, match_place_points, player_key

__all__ = ["MatchRecord", "record_of", "player_key", "PlayerStats", "GameLine", "MatchLine", "HeadToHead",
           "NightLine", "player_stats", "SeasonRow", "SeasonTable", "GameLeaders", "season_table",
           "game_leaders", "SEASON_ORDER", "FORM_LENGTH", "MIN_MATCHES", "min_matches_text"]

FORM_LENGTH = 5  # "recent form": the last five matches
MIN_MATCHES = 5  # matches a player needs in the span to be ranked in the season table (the page shows it)

SEASON_ORDER = T(
    "Ranked by place points per match, then by more matches played, then by more wins. A win is a first "
    "place, shared or not.")


def min_matches_text(n: int) -> Text:
    """The season table's line about the minimum, for its page."""
    return Tn("* Fewer than {n} match played: ranked after the players who have played {n}.",
              "* Fewer than {n} matches played: ranked after the players who have played {n} or more.", n)


@dataclass(frozen=True, init=False)
class MatchRecord:
    """One finished match as storage keeps it; every per-seat tuple is in seat order."""

    night: str  # the night's date, ISO (2026-11-24), so text order is time order
    game: str  # game id
    table: str  # the table's label or number within its night
    players: tuple[str, ...]  # names as written at the table
    places: tuple[int, ...]  # 1 = first; partners share their team's place; ties share a place
    scores: tuple[int, ...]  # final totals in the game's own scale (a team game: the team's total)
    entrants: tuple[int, ...] = ()  # per seat, what the game ranks (partners share one); () = each seat alone
    ids: tuple[str, ...] = ()  # per seat, the player's id where storage keeps players; () = by name
    at: str = ""  # when the match finished (ISO), to order matches within a night
    at_time: bool = False  # ended with the deals played when time was called (issue 33)

    # Worked out once, when the record is made: a season table reads them for every seat of
    # thousands of records (a cached_property's lookup alone cost a third of the table).
    keys: tuple[str, ...] = field(init=False, repr=False, compare=False)  # ids, else player_key of the names
    teams: tuple[int, ...] = field(init=False, repr=False, compare=False)  # entrants, or each seat its own
    shares: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)  # place points per seat
    size: int = field(init=False, repr=False, compare=False)  # entrants ranked (players, or teams)
    when: tuple[str, str] = field(init=False, repr=False, compare=False)  # (night, at): time order

    def __init__(self, night: str, game: str, table: str, players: tuple[str, ...], places: tuple[int, ...],
                 scores: tuple[int, ...], entrants: tuple[int, ...] = (), ids: tuple[str, ...] = (), at: str = "",
                 at_time: bool = False) -> None:
        # One update of the instance's dict, not fifteen frozen setattr calls: the first page
        # after a start makes a record of every stored match (4,000 over 200 nights).
        teams = tuple(entrants) if entrants else tuple(range(len(players)))
        shares, size = _shares(teams, tuple(places))  # place points as exact integers (num, den)
        self.__dict__.update(night=night, game=game, table=table, players=players, places=places, scores=scores,
                             entrants=entrants, ids=ids, at=at, at_time=at_time,
                             keys=tuple(ids) if ids else tuple(map(player_key, players)), teams=teams,
                             shares=shares, size=size, when=(night, at))


@lru_cache(maxsize=4096)
def _shares(teams: tuple[int, ...], places: tuple[int, ...]) -> tuple[tuple[tuple[int, int], ...], int]:
    """:attr:`MatchRecord.shares` and :attr:`~MatchRecord.size` of one pattern of places: the
    match's own place points (:func:`companion.meetup.points.match_place_points`, partners
    counted once) as integers, and the entrants ranked (cached: a season has thousands of
    matches but few patterns, 1-2-3-4 above all)."""
    shares = tuple((points.numerator, points.denominator) for points in match_place_points(teams, places))
    return shares, len(set(teams))


def record_of(result: MatchResult, night: str, table: str, at: str = "",
              ids: Sequence[str] = ()) -> MatchRecord:
    """The record of a replayed, finished match (:func:`companion.meetup.points.match_result`)."""
    seats = result.placings
    return MatchRecord(night, result.game, table, tuple(p.player for p in seats), tuple(p.place for p in seats),
                       tuple(p.score for p in seats), tuple(p.entrant for p in seats), tuple(ids), at,
                       result.at_time)


def _in_span(record: MatchRecord, since: str | None, until: str | None, game: str | None) -> bool:
    return ((since is None or record.night >= since) and (until is None or record.night <= until)
            and (game is None or record.game == game))


class _Points:
    """Exact place points added up per denominator (few distinct ones), made a Fraction once."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        self.parts: dict[int, int] = {}

    def add(self, share: tuple[int, int]) -> None:
        num, den = share
        self.parts[den] = self.parts.get(den, 0) + num

    def total(self) -> Fraction:
        return sum((Fraction(num, den) for den, num in self.parts.items()), Fraction(0))


# --------------------------------------------------------------------------------------------
# One player


@dataclass(frozen=True)
class MatchLine:
    """One of a player's matches."""

    night: str
    game: str
    table: str
    place: int
    of: int  # entrants ranked at the table (players, or teams)
    points: float  # place points
    score: int  # final total in the game's own scale
    at: str = ""


@dataclass(frozen=True)
class GameLine:
    """A player's record in one game."""

    game: str
    matches: int
    wins: int
    places: tuple[int, ...]  # how often 1st, 2nd, … (index 0 = first places)
    points: float  # total place points
    average: float  # place points per match
    best_score: int  # the highest final total (the game's own scale)
    worst_score: int


@dataclass(frozen=True)
class HeadToHead:
    """A player against one other player they shared a table with."""

    key: str
    name: str
    matches: int  # matches at the same table
    above: int  # times placed above them
    below: int  # times placed below them
    tied: int  # times in the same place (as opponents)
    partners: int  # times their partner in a team game (counted in matches, not above/below/tied)


@dataclass(frozen=True)
class NightLine:
    """A player's night, for the chart of place points over time."""

    night: str
    matches: int
    points: float
    average: float


@dataclass(frozen=True)
class PlayerStats:
    key: str
    name: str  # the latest spelling
    nights: int
    matches: int
    wins: int
    places: tuple[int, ...]  # how often 1st, 2nd, … (index 0 = first places)
    points: float  # total place points
    average: float  # place points per match
    games: tuple[GameLine, ...]  # most played first
    best: MatchLine  # the highest place points (equal: the bigger table, then the latest)
    worst: MatchLine  # the lowest place points (equal: the bigger table, then the latest)
    form: tuple[MatchLine, ...]  # the last FORM_LENGTH matches, latest first
    head_to_head: tuple[HeadToHead, ...]  # most matches together first
    timeline: tuple[NightLine, ...] = field(default=())  # night by night, oldest first


def _counts(places: Iterable[int]) -> tuple[int, ...]:
    counts: list[int] = []
    for place in places:
        counts.extend([0] * (place - len(counts)))
        counts[place - 1] += 1
    return tuple(counts)


def player_stats(records: Iterable[MatchRecord], key: str, *, since: str | None = None, until: str | None = None,
                 game: str | None = None, form_length: int = FORM_LENGTH) -> PlayerStats | None:
    """The statistics of the player ``key`` (an id, or :func:`player_key` of a name) over the
    records in the span (nights ``since``..``until``, inclusive; one ``game`` or all); None
    when they played no match there."""
    mine: list[tuple[MatchRecord, int]] = [(r, seat) for r in records if _in_span(r, since, until, game)
                                           for seat, k in enumerate(r.keys) if k == key]
    if not mine:
        return None
    mine.sort(key=lambda rs: rs[0].when)  # stable: records of one moment keep their order
    lines: list[MatchLine] = []
    total = _Points()
    per_game: dict[str, list[tuple[MatchLine, tuple[int, int]]]] = {}
    per_night: dict[str, list[tuple[int, int]]] = {}
    rivals: dict[str, list[int]] = {}  # key -> [matches, above, below, tied, partners]
    rival_names: dict[str, str] = {}
    for record, seat in mine:
        share = record.shares[seat]
        line = MatchLine(record.night, record.game, record.table, record.places[seat], record.size,
                         share[0] / share[1], record.scores[seat], record.at)
        lines.append(line)
        total.add(share)
        per_game.setdefault(record.game, []).append((line, share))
        per_night.setdefault(record.night, []).append(share)
        for other, other_key in enumerate(record.keys):
            if other == seat:
                continue
            tally = rivals.setdefault(other_key, [0, 0, 0, 0, 0])
            rival_names[other_key] = record.players[other]
            tally[0] += 1
            if record.teams[other] == record.teams[seat]:
                tally[4] += 1
            elif record.places[seat] < record.places[other]:
                tally[1] += 1
            elif record.places[seat] > record.places[other]:
                tally[2] += 1
            else:
                tally[3] += 1
    points = total.total()
    games = []
    for game_id, played in per_game.items():
        game_points = _Points()
        for _line, share in played:
            game_points.add(share)
        scores = [line.score for line, _share in played]
        counts = _counts(line.place for line, _share in played)
        games.append(GameLine(game_id, len(played), counts[0] if counts else 0, counts,
                              float(game_points.total()), float(game_points.total() / len(played)),
                              max(scores), min(scores)))
    games.sort(key=lambda g: (-g.matches, g.game))
    timeline = []
    for night, shares in sorted(per_night.items()):
        night_points = _Points()
        for share in shares:
            night_points.add(share)
        timeline.append(NightLine(night, len(shares), float(night_points.total()),
                                  float(night_points.total() / len(shares))))
    # Equal points: the bigger table, then the latest (lines are in time order). Equal fractions
    # give equal floats (division is correctly rounded), so the floats compare safely.
    best = max(enumerate(lines), key=lambda il: (il[1].points, il[1].of, il[0]))[1]
    worst = max(enumerate(lines), key=lambda il: (-il[1].points, il[1].of, il[0]))[1]
    counts = _counts(line.place for line in lines)
    head = [HeadToHead(k, rival_names[k], *tally) for k, tally in rivals.items()]
    head.sort(key=lambda h: (-h.matches, player_key(h.name), h.key))
    return PlayerStats(key, mine[-1][0].players[mine[-1][1]], len(per_night), len(lines), counts[0] if counts else 0,
                       counts, float(points), float(points / len(lines)), tuple(games), best, worst,
                       tuple(reversed(lines[-form_length:])) if form_length > 0 else (), tuple(head),
                       tuple(timeline))


# --------------------------------------------------------------------------------------------
# The season table


@dataclass(frozen=True)
class SeasonRow:
    rank: int  # players below the minimum are ranked after everyone who reached it
    key: str
    name: str  # the latest spelling
    nights: int
    matches: int
    wins: int
    places: tuple[int, ...]  # how often 1st, 2nd, … (index 0 = first places)
    points: float  # total place points
    per_match: float  # place points per match: what the table ranks by
    below_minimum: bool = False  # fewer matches than the minimum: shown marked, after the others
    exact: Fraction = Fraction(0)  # the total exactly ("8/3" where points says 2.667)


@dataclass(frozen=True)
class GameLeaders:
    """Per game over the span: who played it most and who won it most (all who share the top)."""

    game: str
    matches: int  # matches of this game in the span
    most_played: tuple[tuple[str, str], ...]  # (key, name), ordered by name
    played: int  # their matches of it
    most_won: tuple[tuple[str, str], ...]  # () when nobody won one
    won: int


@dataclass(frozen=True)
class SeasonTable:
    # Everyone with a match in the span, best first: those who reached the minimum, then those
    # below it (marked), so a new club's table is never empty.
    rows: tuple[SeasonRow, ...]
    min_matches: int
    games: tuple[GameLeaders, ...]  # per game, most matches first
    since: str | None = None
    until: str | None = None
    game: str | None = None


class _Tally:
    __slots__ = ("name", "when", "nights", "matches", "places", "points")

    def __init__(self) -> None:
        self.name = ""
        self.when: tuple[str, str] = ("", "")
        self.nights: set[str] = set()
        self.matches = 0
        self.places: list[int] = []
        self.points = _Points()


def season_table(records: Iterable[MatchRecord], *, since: str | None = None, until: str | None = None,
                 game: str | None = None, min_matches: int = MIN_MATCHES) -> SeasonTable:
    """Every player over the nights ``since``..``until`` (inclusive; None: open), in one game
    or all, ranked as :data:`SEASON_ORDER` says; players with fewer than ``min_matches``
    matches are ranked after the others, marked ``below_minimum``. Also each game's most played
    and most won."""
    kept = [r for r in records if _in_span(r, since, until, game)]
    tallies: dict[str, _Tally] = {}
    for record in kept:
        when, night = record.when, record.night
        for k, name, place, (num, den) in zip(record.keys, record.players, record.places, record.shares):
            tally = tallies.get(k)
            if tally is None:
                tally = tallies[k] = _Tally()
            if when >= tally.when:
                tally.name, tally.when = name, when
            tally.nights.add(night)
            tally.matches += 1
            counts = tally.places
            if place > len(counts):
                counts.extend([0] * (place - len(counts)))
            counts[place - 1] += 1
            parts = tally.points.parts
            parts[den] = parts.get(den, 0) + num
    rows = []
    for k, tally in tallies.items():
        points = tally.points.total()
        rows.append((points / tally.matches, k, tally, points))
    # Exact per-match points order the table (floats could split two equal averages).
    rows.sort(key=lambda row: (-row[0], -row[2].matches, -(row[2].places[0] if row[2].places else 0),
                               player_key(row[2].name), row[1]))
    ranked: list[SeasonRow] = []
    for below in (False, True):  # those who reached the minimum first, then the others
        previous = None
        rank = 0
        for per_match, k, tally, points in rows:
            if (tally.matches < min_matches) != below:
                continue
            wins = tally.places[0] if tally.places else 0
            order = (per_match, tally.matches, wins)
            if order != previous:
                rank = len(ranked) + 1
                previous = order
            ranked.append(SeasonRow(rank, k, tally.name, len(tally.nights), tally.matches, wins,
                                    tuple(tally.places), float(points), float(per_match), below, points))
    return SeasonTable(tuple(ranked), min_matches, game_leaders(kept), since, until, game)


def game_leaders(records: Iterable[MatchRecord], *, since: str | None = None,
                 until: str | None = None) -> tuple[GameLeaders, ...]:
    """Per game over the span: its matches, who played it most and who won it most."""
    matches: dict[str, int] = {}
    played: dict[str, dict[str, int]] = {}
    won: dict[str, dict[str, int]] = {}
    names: dict[str, tuple[tuple[str, str], str]] = {}
    for record in records:
        if not _in_span(record, since, until, None):
            continue
        matches[record.game] = matches.get(record.game, 0) + 1
        game_played = played.setdefault(record.game, {})
        game_won = won.setdefault(record.game, {})
        for seat, k in enumerate(record.keys):
            game_played[k] = game_played.get(k, 0) + 1
            if record.places[seat] == 1:
                game_won[k] = game_won.get(k, 0) + 1
            if k not in names or record.when >= names[k][0]:
                names[k] = (record.when, record.players[seat])

    def top(counts: dict[str, int]) -> tuple[tuple[tuple[str, str], ...], int]:
        if not counts:
            return (), 0
        most = max(counts.values())
        leaders = sorted(((k, names[k][1]) for k, c in counts.items() if c == most),
                         key=lambda kn: (player_key(kn[1]), kn[0]))
        return tuple(leaders), most

    out = []
    for game_id in sorted(matches, key=lambda g: (-matches[g], g)):
        most_played, n_played = top(played[game_id])
        most_won, n_won = top(won[game_id])
        out.append(GameLeaders(game_id, matches[game_id], most_played, n_played, most_won, n_won))
    return tuple(out)
