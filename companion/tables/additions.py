"""What another feature adds to a table's page: the one declared seam (issue 41).

A table's page belongs to this package: its routes (every /t/<token>/…), its views and its
templates. Another feature that shows something on some tables' pages (the night: a round
table's clock, and the one tap that ends its match at time) declares one :class:`Addition`
with :func:`add`; the tables views read it in the request (never a template global reading
the database), include its templates in the page, serve it alone at GET /t/<token>/<name>
(asked again by the page when its table moves), and send its form to POST /t/<token>/<action>.
This package never imports the features that add to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..store import Connection
from .service import Table


@dataclass(frozen=True)
class Addition:
    """``read(conn, table)``: what the addition shows of this table, handed to its templates as
    ``part`` (None: nothing on this table's page). ``template``: where the page starts, and
    alone at GET /t/<token>/<name> (with ``fragment`` true); ``under_form``: a second piece
    under the deal form, where a player typing looks. ``act(conn, token, write_id)``: the table
    write its form asks for at POST /t/<token>/<action>, a :class:`~companion.tables.service.Written`
    that ends the match (answered as the table's Finish is)."""

    name: str
    read: Callable[[Connection, Table], Any]
    template: str
    under_form: str | None = None
    action: str | None = None
    act: Callable[[Connection, str, str | None], Any] | None = None


ADDITIONS: dict[str, Addition] = {}


def add(addition: Addition) -> Addition:
    """Declare ``addition`` (once per name: a feature's module does it when imported)."""
    ADDITIONS[addition.name] = addition
    return addition


def named(name: str) -> Addition | None:
    return ADDITIONS.get(name)


def acting(action: str) -> Addition | None:
    """The addition whose form posts to /t/<token>/<action>."""
    return next((found for found in ADDITIONS.values() if found.action == action), None)


@dataclass(frozen=True)
class Part:
    """One addition as a table's page shows it: its templates and what it read."""

    addition: Addition
    part: Any


def parts_of(conn: Connection, table: Table) -> list[Part]:
    """What the declared additions show on ``table``'s page, in the order they were declared."""
    found = []
    for addition in ADDITIONS.values():
        part = addition.read(conn, table)
        if part is not None:
            found.append(Part(addition, part))
    return found
