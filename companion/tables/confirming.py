"""Two sides agree (issue 45): who may confirm what another phone saved at a table.

A table that asks for confirmation (the night's tables, unless the organiser turned it off; a
side table whose seat turned it on before its first deal) keeps, for each deal a phone saved,
changed or undid, who did it: the phone's device id and the seats it holds at the table (its
claimed names on tonight's list). Outside the table the match counts once every such change
is confirmed by a phone of another seat, or by the organiser on the laptop.

This module is the rule, one function of plain values (no Flask, no store), so every refusal
has one reason and the page shows it: :func:`why_not`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from ..games.text import T, Text


@dataclass(frozen=True)
class Who:
    """The device asking: its id (a phone's session; None: a page without one), the seats it
    holds at this table (by its claimed names tonight), when it first opened the table while
    the match ran (a side table's phone without a name stands for a seat it had open before
    the deal), and whether it is the organiser's laptop."""

    device: str | None
    seats: tuple[int, ...] = ()
    opened_at: str | None = None
    organiser: bool = False
    keys: frozenset[str] = frozenset()  # the name keys of tonight's players this phone holds

    def seated(self, seat_keys: Sequence[str]) -> "Who":
        """The same device with the seats its names hold at a table (``seat_keys``: each seat's name key)."""
        return replace(self, seats=tuple(seat for seat, key in enumerate(seat_keys) if key in self.keys))

    def mark(self, stamp: str) -> dict[str, Any]:
        """What a deal waiting for confirmation keeps of who saved it."""
        return {"by": self.device, "seats": list(self.seats), "at": stamp}


LAPTOP = Who(None, organiser=True)


@dataclass(frozen=True)
class ToConfirm:
    """One change waiting at a table: a deal saved or changed (``kind`` "deal"), or a
    confirmed deal undone ("undo"), with who made it (:meth:`Who.mark`)."""

    kind: str
    number: int
    by: Mapping[str, Any]

    @property
    def key(self) -> str:
        """How a form names it: "deal-4", "undo-5"."""
        return f"{self.kind}-{self.number}"


def why_not(item: ToConfirm, who: Who, teams: Sequence[int] | None = None) -> Text | None:
    """Why ``who`` may not confirm ``item`` (None: they may). ``teams``: the team of each seat
    in a team game (a player of the other team confirms), else None.

    The organiser always may (the laptop settles a table without a phone per seat). A phone
    may not confirm what it saved itself; it must hold a seat at the table (its name on
    tonight's list), or, where seats have no names on the list (a side table), have had the
    table open before the change was made; a seat that made the change can't confirm it from
    another phone (a claim that moved); in a team game the confirming seat is of another team."""
    if who.organiser:
        return None
    if who.device is not None and who.device == item.by.get("by"):
        return T("This phone saved deal {n}: a phone of another seat confirms it.", n=item.number)
    made_by = set(item.by.get("seats") or ())
    if who.seats:
        mine = set(who.seats)
        if mine <= made_by:
            return T("Your seat saved deal {n}: a player of another seat confirms it.", n=item.number)
        if teams is not None and made_by and {teams[s] for s in mine} <= {teams[s] for s in made_by}:
            return T("Your team saved deal {n}: a player of the other team confirms it.", n=item.number)
        return None
    if made_by:  # the change came from a seat on tonight's list: so must its confirmation
        return T("Only a player at this table confirms its deals: join tonight under your name on this phone.")
    if who.opened_at is None or who.opened_at > str(item.by.get("at") or ""):
        return T("Only a phone that had this table open before deal {n} was saved confirms it.", n=item.number)
    return None
