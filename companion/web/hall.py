"""A meetup night on the laptop: the hall view for the projector, tables prepared in
advance, printed QR table cards and the night's results in one file.

Every /hall page answers only the laptop itself, like the home page's table list. The
seating page of a prepared table (/t/<token>/seat) is for the phones at that table.
"""

from __future__ import annotations

import json
from datetime import datetime

from flask import Blueprint, Response, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import night
from .. import tables as store
from ..store import Repeated, StorageError, get_db
from ..qr import qr_svg
from .home import is_host_request
from .tables import (csv_download, export_rows, form_values, group_errors, join_link, local_time,
                     option_values, storage_message, table_document, table_or_404, write_id)

bp = Blueprint("hall", __name__)

HALL_POLL_MS = 1000  # the projector is the laptop itself: polling loopback costs nothing
CYCLE_MS = 8000  # how long the cycling mode shows each table


@bp.before_request
def laptop_only():
    if request.endpoint not in ("hall.seat", "hall.seat_players") and not is_host_request():
        return render_template("error.html", message=gettext(
            "The hall view opens only on the host laptop.")), 403


HALL_TIME = "%H:%M"  # the organiser reads the wall clock


def table_label(table: store.Table, position: int) -> str:
    """What the hall calls a table: the organiser's label, else "Table <number>"."""
    return table.label or gettext("Table %(n)s", n=table.seq or position)


def board_rows(tables: list[store.Table]) -> list[dict]:
    """What the hall shows per table: the table page's stakes, its leaders and its last change."""
    rows = []
    for table in tables:
        match = table.match()
        leaders = () if not (table.seated and match.deals) else tuple(e for place, e in match.ranking() if place == 1)
        rows.append(dict(table=table, match=match, leaders=leaders, changed=local_time(table.updated_at, HALL_TIME),
                         label=table_label(table, len(rows) + 1)))
    return rows


def hall_context(cycle: bool = False) -> dict:
    conn = get_db()
    return dict(rows=board_rows(night.night_tables(conn)), signature=night.night_signature(conn),
                poll_ms=HALL_POLL_MS, cycle_ms=CYCLE_MS, cycle=cycle,
                started=local_time(started, HALL_TIME) if (started := night.night_started(conn)) else None)


@bp.get("/hall")
def index():
    cycle = request.args.get("cycle") == "1"
    context = hall_context(cycle)
    if cycle:
        context["current"] = context["rows"][0] if context["rows"] else None
    return render_template("hall/index.html", values={}, errors={}, **context)


@bp.get("/hall/board")
def board():
    """The live part of the hall view: 204 while no table of the night has changed."""
    if request.args.get("sig") == night.night_signature(get_db()):
        return Response(status=204, headers={"Cache-Control": "no-store"})
    response = Response(render_template("hall/_board.html", **hall_context()))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/hall/cycle")
def cycle():
    """The next table's standings, for the mode that shows one table at a time."""
    rows = board_rows(night.night_tables(get_db()))
    after = request.args.get("after", type=int)
    later = [row for row in rows if after is not None and row["table"].id > after]
    current = (later or rows or [None])[0]
    response = Response(render_template("hall/_cycle.html", current=current, cycle_ms=CYCLE_MS))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/hall/prepare")
def prepare():
    values = form_values()
    raw = {key: values.get(key, "").strip() for key in ("players", "count")}
    numbers = {key: int(v) if v.isascii() and v.isdigit() and len(v) < 4 else 0 for key, v in raw.items()}
    label = " ".join(values.get("label", "").split())
    if label and "{n}" not in label:
        label += " {n}"
    try:
        night.prepare(get_db(), values.get("game", ""), numbers["players"], numbers["count"], label)
    except store.Refused as refused:
        return render_template("hall/index.html", values=values, errors=group_errors(refused.errors),
                               **hall_context()), 422
    except StorageError as error:
        return render_template("hall/index.html", values=values, errors={"count": [storage_message(error)]},
                               **hall_context()), 503
    return redirect(url_for("hall.index") + "#board", code=303)


@bp.get("/hall/cards")
def cards():
    """Printable QR cards for the night's tables: four to a page, or one big card per page."""
    tables = night.night_tables(get_db())
    cards = [dict(table=t, link=join_link(t), qr=qr_svg(join_link(t)), label=table_label(t, position))
             for position, t in enumerate(tables, start=1)]
    return render_template("hall/cards.html", cards=cards, big=request.args.get("big") == "1")


@bp.get("/hall/new-night")
def new_night_confirm():
    return render_template("hall/new_night.html", count=len(night.night_tables(get_db())))


@bp.post("/hall/nights")
def new_night():
    night.start_night(get_db())
    return redirect(url_for("hall.index"), code=303)


def night_name() -> str:
    started = night.night_started(get_db())
    return (started[:10] if started else datetime.now().strftime("%Y-%m-%d"))


@bp.get("/hall/export.json")
def export_json():
    conn = get_db()
    doc = {
        "night_started_at": night.night_started(conn) or None,
        "tables": [dict(table_document(t), label=table_label(t, position), token=t.token, seated=t.seated)
                   for position, t in enumerate(night.night_tables(conn), start=1)],
    }
    return Response(json.dumps(doc, ensure_ascii=False, indent=2), mimetype="application/json", headers={
        "Content-Disposition": f"attachment; filename=night-{night_name()}.json",
        "Cache-Control": "no-store"})


@bp.get("/hall/export.csv")
def export_csv():
    """Every deal of every table of the night, one row each; a table's columns name its players."""
    rows: list[dict] = []
    for position, table in enumerate(night.night_tables(get_db()), start=1):
        if not table.seated:
            continue
        _match, deal_rows = export_rows(table)
        head = {"table": table_label(table, position), "game": table.game.name_en,
                "players": " / ".join(table.setup.players)}
        rows.extend({**head, **row} for row in deal_rows)
    return csv_download(rows, ["table", "game", "players"], f"night-{night_name()}.csv",
                        **{"Cache-Control": "no-store"})


# --------------------------------------------------------------------------
# A prepared table's first phone gives the players


def seating(table: store.Table) -> dict:
    n = table.setup.n
    return dict(game=table.game, n=n, counts=[n], table=table, label=table_label(table, 1),
                form_action=url_for("hall.seat_players", token=table.token), seating=True)


@bp.get("/t/<token>/seat")
def seat(token: str):
    table = table_or_404(token)
    if table.seated:
        return redirect(url_for("tables.show", token=token), code=303)
    values = {opt.key: str(opt.default) for opt in table.game.options}
    return render_template("tables/new.html", values=values, errors={}, **seating(table))


@bp.post("/t/<token>/players")
def seat_players(token: str):
    table = table_or_404(token)
    if table.seated:  # another phone was first: everyone lands on the same table
        return redirect(url_for("tables.show", token=token), code=303)
    values = form_values()
    names = [values.get(f"name-{s}", "") for s in range(table.setup.n)]
    try:
        night.seat(get_db(), token, names, option_values(table.game, values), write_id=write_id())
    except (night.AlreadySeated, Repeated):
        return redirect(url_for("tables.show", token=token), code=303)
    except store.Refused as refused:
        return render_template("tables/new.html", values=values, errors=group_errors(refused.errors),
                               **seating(table)), 422
    except StorageError as error:
        return render_template("tables/new.html", values=values, errors={"table": [storage_message(error)]},
                               **seating(table)), 503
    return redirect(url_for("tables.show", token=token), code=303)
