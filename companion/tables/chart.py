"""Score progression as SVG geometry (rendered by a template; no chart library in the browser)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..games import GAMES, Match
from ..games import Progress
from ..games.text import Text

WIDTH, HEIGHT, PAD_LEFT, PAD_RIGHT, PAD_Y = 320, 180, 34, 12, 14


@dataclass(frozen=True)
class Series:
    name: str
    index: int
    points: str  # "x,y x,y ..." for <polyline>
    last_x: float
    last_y: float
    total: int


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    series: tuple[Series, ...]
    ticks: tuple[tuple[float, int], ...]  # (y, value)
    deals: int
    zero_y: float
    # What decides the match beside the points (a game's deal wins), one chart per deciding tally:
    # (its label, its chart). Empty for games decided by the points.
    tallies: tuple[tuple[Text, "Chart"], ...] = ()


def nice_step(span: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500):
        if span / step <= 5:
            return step
    return 1000


def _chart(history: Sequence[Sequence[int]], names: Sequence[str], deals: int) -> Chart:
    """The lines of ``history`` (one row of values per entrant before deal 1, then after each)."""
    values = [v for row in history for v in row]
    low, high = min(values + [0]), max(values + [0])
    if high == low:
        high = low + 1
    step = nice_step(high - low)
    low, high = (low // step) * step, -(-high // step) * step
    inner_w, inner_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - 2 * PAD_Y

    def x(i: int) -> float:
        return round(PAD_LEFT + inner_w * i / max(1, len(history) - 1), 1)

    def y(v: int) -> float:
        return round(PAD_Y + inner_h * (high - v) / (high - low), 1)

    series = []
    for e, name in enumerate(names):
        pts = " ".join(f"{x(i)},{y(row[e])}" for i, row in enumerate(history))
        series.append(Series(name, e, pts, x(len(history) - 1), y(history[-1][e]), history[-1][e]))
    ticks = tuple((y(v), v) for v in range(low, high + 1, step))
    return Chart(WIDTH, HEIGHT, tuple(series), ticks, deals, y(0))


def tally_charts(match: Match) -> tuple[tuple[Text, Chart], ...]:
    """One chart per tally that decides the match (``Tally.decides``), deal by deal: the game's
    own stakes of the match after each deal, so the chart says what the standings say."""
    game = GAMES.get(match.setup.game)
    if game is None or not any(t.decides for t in match.stakes.tallies):
        return ()
    start = [t - p for t, p in zip(match.deals[0].totals, match.deals[0].score.points)]
    rows: list[list[tuple[int, ...]]] = []
    labels: list[Text] = []
    for upto in range(len(match.deals) + 1):
        totals = match.deals[upto - 1].totals if upto else tuple(start)
        progress = Progress(match.setup, match.deals[:upto], totals)
        deciding = [t for t in game.stakes(progress, game.outcome(progress, False)).tallies if t.decides]
        labels = [t.label for t in deciding]
        rows.append([t.values for t in deciding])
    return tuple((label, _chart([row[k] for row in rows], match.entrants, len(match.deals)))
                 for k, label in enumerate(labels))


def progression_chart(match: Match) -> Chart | None:
    if not match.deals:
        return None
    start = [t - p for t, p in zip(match.deals[0].totals, match.deals[0].score.points)]
    history = [tuple(start)] + [r.totals for r in match.deals]
    chart = _chart(history, match.entrants, len(match.deals))
    tallies = tally_charts(match)
    return Chart(chart.width, chart.height, chart.series, chart.ticks, chart.deals, chart.zero_y, tallies)
