"""A table as its link names it: the token's shape, the table or a 404, its address and the
join link phones open (the table's pages and the night's cards and seating use them)."""

from __future__ import annotations

from flask import abort, url_for
from flask_babel import gettext

from .. import tokens
from ..store import get_db
from ..web.host import join_url
from . import service
from .service import Table

TOKEN_SHAPE = tokens.TOKEN_SHAPE  # the one shape of a table's link (companion/tokens.py)


def table_or_404(token: str) -> Table:
    table = service.load(get_db(), token) if TOKEN_SHAPE.match(token) else None
    if table is None:
        abort(404)
    return table


def table_url(table: Table, **kw) -> str:
    return url_for("tables.show", token=table.token, **kw)


def join_link(table: Table) -> str:
    base, _warning = join_url()
    return base.rstrip("/") + table_url(table)


def table_label(table: Table, position: int) -> str:
    """What the hall, its files and a prepared table's seating call a table: the organiser's
    label (a room table's: "Window"; a number is "Table 3"), else "Table <number>" (its number
    in the night, else ``position``)."""
    return label_text(table.label) if table.label else gettext("Table %(n)s", n=table.seq or position)


def label_text(label: str) -> str:
    """A table's label as the pages say it: a number is "Table 3", a word ("Window") itself."""
    return gettext("Table %(n)s", n=label) if label.isdigit() else label
