"""A player's night to keep (``/night/me/summary``, issue 33): each match with its game, the
player's partners and opponents, every side's final score, the place and how its place points
came ("2nd of 3 teams: ½"), and a total that is the sum of its rows.

Nothing here computes a result: each row reads its table's result as the night has it
(:func:`service.night_results`, whose place points are
:func:`companion.meetup.points.match_place_points`'), the same the leaderboard adds up. Points
are kept as exact fractions, so the total is the rows' sum to the last digit (⅓ + ⅓ + ⅓ is 1).
Side tables (opened by phones outside the draws, not added to tonight) are listed apart and never
counted, as on the leaderboard.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping, Sequence

from ..meetup.points import Placing
from ..store import Connection
from . import service
from .side_tables import side_tables


@dataclass(frozen=True)
class Entrant:
    """What the table ranks (a player, or a team of partners) with its final score."""

    names: tuple[str, ...]
    score: int
    place: int
    mine: bool


@dataclass(frozen=True)
class SummaryRow:
    """One of the player's matches tonight."""

    result: service.TableResult
    placing: Placing  # the player's own
    partners: tuple[str, ...]  # the player's partners (a team game), else ()
    ranking: tuple[Entrant, ...]  # every entrant, best first (the player's own marked ``mine``)
    of: int  # players or teams ranked at the table
    teams: bool  # the table ranks teams
    shared: bool  # the player's place is shared (a tie)

    @property
    def over(self) -> bool:
        return self.result.result.over

    @property
    def at_time(self) -> bool:
        return self.result.result.at_time

    @property
    def exact(self) -> Fraction:
        """The place points the row counts for (0 while the match is still being played)."""
        return self.placing.exact if self.over else Fraction(0)

    @property
    def own(self) -> Entrant:
        """The player's own entrant (themselves, or their team)."""
        return next(entrant for entrant in self.ranking if entrant.mine)

    @property
    def opponents(self) -> tuple[Entrant, ...]:
        return tuple(entrant for entrant in self.ranking if not entrant.mine)


@dataclass(frozen=True)
class NightSummary:
    rows: tuple[SummaryRow, ...]  # tonight's tables, in the night's order
    apart: tuple[SummaryRow, ...]  # side tables: shown apart, never counted
    apart_numbers: Mapping[int, int] = field(default_factory=dict)  # table id -> "Side table n", as on the hall
    # Issue 44: tables they left mid-match: (the table, after which deal, who took the seat).
    left: tuple[tuple[service.Table, int, str], ...] = ()

    @property
    def counted(self) -> tuple[SummaryRow, ...]:
        """The finished matches: the ones the total (and the leaderboard) adds up."""
        return tuple(row for row in self.rows if row.over)

    @property
    def total(self) -> Fraction:
        """The sum of the counted rows, exactly."""
        return sum((row.exact for row in self.counted), Fraction(0))


def summary_row(found: service.TableResult, placing: Placing) -> SummaryRow:
    """The row of ``placing`` (one seat of ``found``): its entrants from the table's own placings."""
    placings = found.result.placings
    by_entrant: dict[int, list[Placing]] = {}
    for p in placings:
        by_entrant.setdefault(p.entrant, []).append(p)
    ranking = sorted((Entrant(tuple(p.player for p in seats), seats[0].score, seats[0].place,
                              entrant == placing.entrant)
                      for entrant, seats in by_entrant.items()),
                     key=lambda e: (e.place, -e.score, not e.mine))
    partners = tuple(p.player for p in by_entrant[placing.entrant] if p.seat != placing.seat)
    shared = sum(1 for e in ranking if e.place == placing.place) > 1
    return SummaryRow(found, placing, partners, tuple(ranking), len(ranking),
                      any(len(seats) > 1 for seats in by_entrant.values()), shared)


def rows_of(results: Sequence[service.TableResult], who: service.Player) -> tuple[SummaryRow, ...]:
    return tuple(summary_row(item["result"], item["placing"]) for item in service.player_summary(results, who))


def night_summary(conn: Connection, who: service.Player,
                  results: Sequence[service.TableResult] | None = None) -> NightSummary:
    """``who``'s night: tonight's tables (``results``: the night's, if already read) and, apart,
    the side tables they played at."""
    results = service.night_results(conn) if results is None else results
    apart = side_tables(conn)
    apart_results = service.night_results(conn, apart, [])
    tables = {found.table.id: found.table for found in results}
    left = tuple((tables[change["table_id"]], change["number"], change["after"]["player"])
                 for change in service.seat_changes(conn, list(tables.values()))
                 if change["action"] == "substitute" and change["before"].get("player_id") == who.id
                 and change["table_id"] in tables)
    return NightSummary(rows_of(results, who), rows_of(apart_results, who),
                        {table.id: number for number, table in enumerate(apart, start=1)}, left)


# Unicode's vulgar fractions: the place points a table of up to six entrants can give.
_VULGAR = {(1, 2): "½", (1, 3): "⅓", (2, 3): "⅔", (1, 4): "¼", (3, 4): "¾", (1, 5): "⅕", (2, 5): "⅖",
           (3, 5): "⅗", (4, 5): "⅘", (1, 6): "⅙", (5, 6): "⅚", (1, 8): "⅛", (3, 8): "⅜", (5, 8): "⅝",
           (7, 8): "⅞", (1, 10): "⅒"}


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def fraction_text(value: Fraction) -> str:
    """Exact place points as read on paper: "1", "½", "2⅚", and where Unicode has no glyph
    (a night's total in twelfths, a table of six) "³⁄₁₀", "4¹⁄₁₂"."""
    whole, part = divmod(value, 1)
    if not part:
        return str(int(whole))
    glyph = _VULGAR.get((part.numerator, part.denominator)) or \
        f"{str(part.numerator).translate(_SUPERSCRIPT)}\u2044{str(part.denominator).translate(_SUBSCRIPT)}"
    return f"{int(whole)}{glyph}" if whole else glyph
