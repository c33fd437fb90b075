"""The paper pad (issue 45): per round, one printed page per table on which the players write
each deal's raw facts when phones die; the organiser types them in on the laptop afterwards.

What a deal records is never written here for a game: it is what the game's own deal form
reads when left blank (:func:`companion.tables.service.read_deal`, the one place a deal form is
read), sorted as the log reads facts (:meth:`Game.describe_facts`): a list with one value per
player is a column per seat (a seat's counts by kind, or its pair of cards, one cell each), a
key in ``seat_facts`` / ``team_facts`` names a player or a team for the whole deal, anything
else is one value for the whole deal; a ``choice_keys`` answer, asked only sometimes, is
marked so. A sixth game's pad follows from its declarations alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from ..games import Game, Text
from ..tables import service as tables
from ..tables.service import Table

# Deals a page has lines for: most matches fit; a longer one goes on to a second sheet.
ROWS = 16
# Past this many cells per deal across the page (a seat's facts times the seats), a deal takes
# two lines, the first half of the seats on the first: each cell stays wide enough to write in.
CELLS_ON_ONE_LINE = 20
ROWS_ON_TWO_LINES = 10
# Past this many cells on a line, a fact's label over one cell is printed sideways.
NARROW = 12


@dataclass(frozen=True)
class PadField:
    """One fact of a deal as the pad asks for it."""

    key: str
    label: Text | str
    per_seat: bool  # one cell (or ``parts``) per seat; else one cell for the whole deal
    parts: tuple[Text | str, ...] = ()  # sub-cells: a seat's counts by kind, its two cards
    who: str = ""  # a whole-deal fact naming "seat" or "team" (written as a name)
    asked: bool = False  # a choice the app asks only sometimes (after a tie)

    @property
    def cells(self) -> int:
        return max(1, len(self.parts))


def _parts(game: Game, item: Any) -> tuple[Text | str, ...]:
    if isinstance(item, Mapping):  # counts by kind: each kind named as the log names it
        return tuple(game.fact_labels.get(str(kind), str(kind)) for kind in item)
    if isinstance(item, list):  # several values (two bid cards): numbered
        return tuple(str(i) for i in range(1, len(item) + 1))
    return ()


def pad_fields(table: Table) -> tuple[PadField, ...]:
    """The facts of one deal of ``table``, per seat first, then those of the whole deal."""
    game, n = table.game, table.setup.n
    facts, _errors = tables.read_deal(table, 1, {})  # a blank form: the facts' shape, no values
    columns = game.column_map(table.setup)
    found: list[PadField] = []
    for key, value in facts.items():
        label = columns[key].label if key in columns else game.fact_label(key)
        who = "seat" if key in game.seat_facts else "team" if key in game.team_facts else ""
        if not who and isinstance(value, list) and len(value) == n:
            found.append(PadField(key, label, True, _parts(game, value[0])))
        else:  # a value (or a list of them, one per team) for the whole deal, written in one cell
            found.append(PadField(key, label, False, who=who, asked=key in game.choice_keys))
    for key in game.choice_keys:
        if key not in facts:  # asked only when the rules leave it open (a tie): a column all the same
            who = "seat" if key in game.seat_facts else "team" if key in game.team_facts else ""
            found.append(PadField(key, game.fact_label(key), False, who=who, asked=True))
    return tuple(sorted(found, key=lambda f: not f.per_seat))


@dataclass(frozen=True)
class Cell:
    text: Text | str = ""
    colspan: int = 1
    rowspan: int = 1
    kind: str = ""  # a CSS class: "seat", "field", "part", "write", "deal", "whole", "checked"
    note: Text | str | None = None  # under a seat's name: its team and side


@dataclass(frozen=True)
class Pad:
    """One table's page: its seats' names and the grid's header rows and deal lines."""

    table: Table
    label: str
    fields: tuple[PadField, ...]
    head: tuple[tuple[Cell, ...], ...]
    cols: tuple[str, ...]  # each column's kind, for its width: "deal", "cell", "seat", "team", "value", "checked"
    bands: tuple[tuple[int | None, ...], ...]  # the seats on each line of a deal (None: an empty slot)
    rows: int
    teams: tuple[tuple[Text, str], ...] = field(default=())  # (team label, its players' names)

    @property
    def seat_cells(self) -> int:
        return sum(f.cells for f in self.fields if f.per_seat)

    @property
    def narrow(self) -> bool:
        return bool(self.bands) and self.seat_cells * len(self.bands[0]) > NARROW

    @property
    def whole(self) -> tuple[PadField, ...]:
        return tuple(f for f in self.fields if not f.per_seat)

    @property
    def asked(self) -> bool:
        return any(f.asked for f in self.fields)


def pad_of(table: Table, label: str, checked_label: str, deal_label: str) -> Pad:
    """The grid of ``table``'s page: a column per seat and fact (in seat order), then the whole
    deal's facts and the players' initials once both sides agree."""
    game, n, names = table.game, table.setup.n, table.setup.players
    fields = pad_fields(table)
    seat_fields = [f for f in fields if f.per_seat]
    whole = [f for f in fields if not f.per_seat]
    per_seat = sum(f.cells for f in seat_fields)
    if seat_fields and per_seat * n > CELLS_ON_ONE_LINE:
        half = (n + 1) // 2
        bands: tuple[tuple[int | None, ...], ...] = (tuple(range(half)),
                                                     tuple(range(half, n)) + (None,) * (2 * half - n))
        rows = ROWS_ON_TWO_LINES
    else:
        bands, rows = ((tuple(range(n)),) if seat_fields else ()), ROWS
    has_parts = any(f.parts for f in seat_fields)
    band_rows = (2 + has_parts) if seat_fields else 0
    spanned = max(1, band_rows * len(bands))
    head: list[list[Cell]] = []
    for index, band in enumerate(bands):
        names_row: list[Cell] = []
        if index == 0:
            names_row.append(Cell(deal_label, rowspan=spanned, kind="deal"))
        for seat in band:
            if seat is None:
                names_row.append(Cell("", colspan=per_seat, kind="seat empty"))
            else:
                names_row.append(Cell(names[seat], colspan=per_seat, kind="seat", note=game.seat_note(n, seat)))
        if index == 0:
            names_row.extend(_whole_heads(whole, checked_label, spanned))
        fields_row = [Cell(f.label, colspan=f.cells, rowspan=1 if f.parts or not has_parts else 2,
                           kind="field" + (" first" if i == 0 else "") + (" one" if not f.parts else ""))
                      for _seat in band for i, f in enumerate(seat_fields)]
        head += [names_row, fields_row]
        if has_parts:
            parts = [part for f in seat_fields for part in f.parts]
            head.append([Cell(part, kind="part" + (" first" if i == 0 and seat_fields[0].parts else ""))
                         for _seat in band for i, part in enumerate(parts)])
    if not bands:
        head.append([Cell(deal_label, kind="deal"), *_whole_heads(whole, checked_label, 1)])
    cols = ("deal", *("cell",) * (per_seat * len(bands[0]) if bands else 0),
            *(f.who or "value" for f in whole), "checked")
    teams = tuple((game.team_label(n, t), " & ".join(names[s] for s in team.seats))
                  for t, team in enumerate(game.seating(n)))
    return Pad(table, label, fields, tuple(tuple(r) for r in head), cols, bands, rows, teams)


def _whole_heads(whole: list[PadField], checked_label: str, rowspan: int) -> list[Cell]:
    return [*(Cell(f.label, rowspan=rowspan, kind="whole" + (" asked" if f.asked else "")) for f in whole),
            Cell(checked_label, rowspan=rowspan, kind="checked")]
