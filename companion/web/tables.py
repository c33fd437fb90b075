"""Tables: create, join, enter deals, correct them, watch live, export.

Every page works as a plain HTML form. With htmx, the same routes answer with
just the part that changed (``HX-Request``), as in Hypermedia Systems' Contact.app.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import re
import sys
import time
from datetime import datetime
from functools import partial
from typing import Sequence

from flask import (Blueprint, Response, abort, current_app, flash, get_flashed_messages, make_response, redirect,
                   render_template, request, url_for)
from flask_babel import get_locale, gettext, ngettext
from markupsafe import Markup
from flask_wtf.csrf import generate_csrf

from .. import tables as store
from ..store import NotSaved, Repeated, StorageError, StorageReplaced, get_db
from ..games import GAMES, Game
from ..games import FieldError
from ..games.text import Text
from ..qr import qr_svg
from . import BytesLRU, render_text
from .chart import progression_chart
from .home import is_host_request, join_url
from ..serving.creation import creation_limit


def is_the_laptop() -> bool:
    """The laptop's own browser: its own loopback address (127.0.0.1, ::1), naming itself in
    Host. Other loopback addresses (127.0.0.2…) are other devices, as in the tests and benches."""
    return request.remote_addr in ("127.0.0.1", "::1", "::ffff:127.0.0.1") and is_host_request()


bp = Blueprint("tables", __name__)

TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


def not_saved_message() -> str:
    """Said when SQLite can't write (disk full, read-only file, locked too long): nothing was saved."""
    return gettext("The host laptop could not save this: its disk may be full or its database read-only. "
                   "Nothing was changed; try again.")


def damaged_message() -> str:
    """Said when the database file was damaged while the app ran (store.StorageDamaged)."""
    return gettext("The host laptop's database file is damaged, so this was not saved. What you entered "
                   "is kept here; the host should restart Table Companion (it checks the file at start).")


def replaced_message() -> str:
    """Said when the database file was deleted or replaced under the running server
    (store.StorageReplaced): nothing more can be saved until the host restarts it."""
    return gettext("The host laptop could not save this: its database file was deleted or replaced while "
                   "Table Companion was running. Nothing was changed and what you entered is kept here; "
                   "the host should restart Table Companion.")


def storage_message(error: StorageError) -> str:
    """Why the store refused: a full or read-only disk, a replaced file, or a damaged one.
    Every refusal shown is also said in the terminal (the host must act on it)."""
    say_in_terminal(error)
    if isinstance(error, StorageReplaced):
        return replaced_message()
    return not_saved_message() if isinstance(error, NotSaved) else damaged_message()


# The terminal the host watches: `companion serve` gives Flask's own log no stream (gevent's
# wsgi.errors is silenced), so storage refusals have their own logger writing to stderr, each
# kind at most once every LOG_EVERY seconds (a room of phones retrying must not flood it).
STORAGE_LOG = logging.getLogger("companion.storage")
if not STORAGE_LOG.handlers:
    _handler = logging.StreamHandler(sys.stderr)
    _handler.setFormatter(logging.Formatter("companion: %(message)s"))
    STORAGE_LOG.addHandler(_handler)
    STORAGE_LOG.setLevel(logging.WARNING)
LOG_EVERY = 10.0
_last_said: dict[str, float] = {}  # "<kind> <database>" -> when it was last said


def say_in_terminal(error: StorageError) -> None:
    kind = type(error).__name__
    key, now = f"{kind} {current_app.config.get('DATABASE')}", time.monotonic()
    if now - _last_said.get(key, -LOG_EVERY) < LOG_EVERY:
        return
    _last_said[key] = now
    if isinstance(error, StorageReplaced):
        STORAGE_LOG.error(
            "NOT SAVED: the database file %s was deleted or replaced while serving (%s). Every change is "
            "refused until Table Companion is restarted; to restore a backup: stop it, run `companion "
            "restore FILE`, start it again.", current_app.config.get("DATABASE"), error)
    else:
        STORAGE_LOG.error("NOT SAVED (%s) on %s %s: %s", kind, request.method, request.path, error)


def write_id() -> str | None:
    """The phone's name for this change (hidden field ``write_id``, at most 64 characters):
    the store makes the change at most once, and a resend is answered as the first time was.
    Absent or unusable: the change is made as it always was."""
    return store.clean_write_id(request.form.get("write_id"))


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def table_or_404(token: str) -> store.Table:
    table = store.load(get_db(), token) if TOKEN_SHAPE.match(token) else None
    if table is None:
        abort(404)
    return table


def group_errors(errors: list[FieldError]) -> dict[str, list[Text]]:
    grouped: dict[str, list[Text]] = {}
    for error in errors:
        grouped.setdefault(error.field, []).append(error.message)
    return grouped


@bp.app_template_test("table_token")
def is_table_token(value: str) -> bool:
    """A string shaped like a table's link token (the rules page's way back to a table)."""
    return bool(TOKEN_SHAPE.match(value or ""))


# Pieces of a sentence's HTML that must never be cut: an isolated name, a character reference, a tag.
_WHOLE = re.compile(r"(<bdi>.*?</bdi>|&#?\w+;|<[^>]*>)", re.S)
HEADLINE_MAX = 40


@bp.app_template_filter("error_headline")
def error_headline(message: str) -> str:
    """The short form of an error for the summary at the top of a form: what comes before its
    colon ("Start player: choose who starts." → "Start player"), else its first sentence in
    Japanese, else its first words.

    ``|t`` gives a table page's sentence as HTML with each name isolated (<bdi>): it is cut
    between whole names and character references, never inside one, and stays HTML."""
    if not isinstance(message, Markup):
        message = Markup.escape(str(message))
    pieces = _WHOLE.split(str(message))  # text, whole, text, whole, ...: whole ones at odd places
    # Letters a reader sees: a whole piece's text; the words between hold no "&" or "<" any more.
    shown = [len(Markup(piece).striptags()) if at % 2 else len(piece) for at, piece in enumerate(pieces)]
    for at in range(0, len(pieces), 2):  # the colon, in the sentence's own words only
        for colon in (": ", "："):
            head, found, _rest = pieces[at].partition(colon)
            if found and 0 < sum(shown[:at]) + len(head) <= HEADLINE_MAX:
                return Markup("".join(pieces[:at]) + head)
    if sum(shown) <= HEADLINE_MAX:
        return message
    for at in range(0, len(pieces), 2):  # Japanese has no spaces to cut at: its first sentence
        head, found, _rest = pieces[at].partition("。")
        if found and sum(shown[:at]) + len(head) < HEADLINE_MAX:
            return Markup("".join(pieces[:at]) + head + found)
    kept, room = [], HEADLINE_MAX - 2
    for at, piece in enumerate(pieces):
        if shown[at] <= room:
            kept.append(piece)
            room -= shown[at]
            continue
        if at % 2 == 0:  # the sentence's own words: up to the last space that fits
            kept.append(piece[:room].rsplit(" ", 1)[0])
        break
    return Markup("".join(kept).rstrip() + "…")


def form_values() -> dict[str, str]:
    return {k: v for k, v in request.form.items() if k not in ("csrf_token", "write_id")}


def table_url(table: store.Table, **kw) -> str:
    return url_for("tables.show", token=table.token, **kw)


def join_link(table: store.Table) -> str:
    base, _warning = join_url()
    return base.rstrip("/") + table_url(table)


# --------------------------------------------------------------------------
# Creating a table


def option_values(game: Game, source) -> dict[str, int]:
    values = {}
    for opt in game.options:
        raw = str(source.get(opt.key, "")).strip()
        if raw == "":
            values[opt.key] = opt.default
        else:  # anything unreadable becomes -1, which the game's option check refuses with a message
            values[opt.key] = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else -1
    return values


@bp.get("/tables/new")
def new():
    game = GAMES.get(request.args.get("game", ""))
    if game is None:
        return render_template("tables/choose_game.html")
    counts = sorted(set(game.players) | set(game.variant_players))
    usual = min(game.players)  # the game's own count, never a variant count
    try:
        n = int(request.args.get("players", usual))
    except ValueError:
        n = usual
    errors: dict = {}
    if n not in counts:
        errors["players"] = [game.check_players(n)]
        n = usual
    values = {opt.key: str(opt.default) for opt in game.options}
    return render_template("tables/new.html", game=game, n=n, counts=counts, values=values, errors=errors)


@bp.post("/tables")
def create():
    game = GAMES.get(request.form.get("game", ""))
    if game is None:
        return render_template("tables/choose_game.html", errors={"game": [gettext(
            "There is no such game here: choose one of these.")]}), 422
    counts = sorted(set(game.players) | set(game.variant_players))
    raw_n = request.form.get("players", "").strip()
    asked = int(raw_n) if raw_n.isascii() and raw_n.isdigit() and len(raw_n) < 4 else None
    if asked not in counts:
        # Never start a table for a different number of players than was asked for.
        n = counts[0] if asked is None else min(counts, key=lambda c: abs(c - asked))
        reason = game.check_players(asked) if asked is not None else None
        return render_template("tables/new.html", game=game, n=n, counts=counts, values=form_values(),
                               errors={"players": [reason or gettext("Choose the number of players.")]}), 422
    n = asked
    names = [request.form.get(f"name-{seat}", "") for seat in range(n)]
    options = option_values(game, request.form)
    # A few tables at once per device, then one every few seconds (issue 23: one device opened
    # 15,946 in 20 s). Refused with what was typed kept; Retry-After says when to press again.
    # The laptop itself (the organiser, who may prepare 64 at a time anyway) is not limited.
    wait = 0 if is_the_laptop() else creation_limit(current_app).take(request.remote_addr or "")
    if wait:
        page = render_template("tables/new.html", game=game, n=n, counts=counts, values=form_values(),
                               errors={"table": [ngettext(
                                   "This device opened many tables in a short time. Wait %(num)s second, "
                                   "then press “Open the table” again.",
                                   "This device opened many tables in a short time. Wait %(num)s seconds, "
                                   "then press “Open the table” again.", wait)]})
        return page, 429, {"Retry-After": str(wait)}
    try:
        token = store.create(get_db(), game.id, names, options, numbered=is_the_laptop())
    except store.Refused as refused:
        if not is_the_laptop():
            creation_limit(current_app).give_back(request.remote_addr or "")  # a refused form opened nothing
        return render_template("tables/new.html", game=game, n=n, counts=counts, values=form_values(),
                               errors=group_errors(refused.errors)), 422
    except StorageError as error:
        return render_template("tables/new.html", game=game, n=n, counts=counts, values=form_values(),
                               errors={"table": [storage_message(error)]}), 503
    return redirect(url_for("tables.show", token=token), code=303)


# --------------------------------------------------------------------------
# The table page and its live parts

HISTORY_RECENT = 10  # deals shown on the table page; older ones behind "show all" (?all=1)
BANNER = "table"  # flash category of the table page's one-sentence banners


def tell(table: store.Table, kind: str, number: int | None = None, message: str | None = None,
         values: dict | None = None) -> None:
    """A banner for this phone's next view of the table ("Deal 3 saved."), kept in its session,
    so reload, back and an edited URL can never show it again or show a false one. ``values``:
    an undone deal's fields, given back to this phone's form (issue 27)."""
    flash({"token": table.token, "kind": kind, "number": number, "message": message,
           **({"values": values} if values else {})}, BANNER)


def banner_for(table: store.Table) -> dict | None:
    """The banner this phone was told for this table, if any (consumed by reading)."""
    found = None
    for item in get_flashed_messages(category_filter=[BANNER]):
        if isinstance(item, dict) and item.get("token") == table.token:
            found = item
    return found


def sheet_context(table: store.Table, form_number: int | None = None) -> dict:
    match = table.match()
    show_all = request.args.get("all") == "1"
    deals = match.deals if show_all else match.deals[-HISTORY_RECENT:]
    return dict(table=table, game=table.game, match=match, chart=progression_chart(match),
                form_number=form_number, show_all=show_all, history=deals[::-1],
                max_deals=store.MAX_DEALS, full=len(table.deals) >= store.MAX_DEALS,
                # "Finish match" while it runs; a tie at the end has its own "accept the tie".
                can_finish=table.can_finish() and not match.over)


def upcoming_deal(table: store.Table, match):
    """The next deal a phone may enter: none once the match is over or the table is full."""
    return None if len(table.deals) >= store.MAX_DEALS else match.next


def entry_context(table: store.Table, values: dict | None = None, errors: dict | None = None,
                  notice: Text | None = None, preview=None, banner: dict | None = None,
                  conflict: dict | None = None, given_back: bool = False) -> dict:
    progress = table.progress()
    match = table.match()
    full = len(table.deals) >= store.MAX_DEALS
    upcoming = upcoming_deal(table, match)
    number = len(table.deals) + 1
    return dict(table=table, game=table.game, match=match, progress=progress, upcoming=upcoming,
                columns=table.game.column_map(table.setup),  # the deal form's numbers, as the game declares
                values=values or {}, errors=errors or {}, notice=notice, preview=preview,
                number=number, mode="add", banner=banner, conflict=conflict,
                # A whole deal put back in the form (undone, or this phone's side of a conflict).
                given_back=given_back or bool(banner and banner.get("kind") == "undone" and values),
                full=full, max_deals=store.MAX_DEALS,
                # The form a phone shows, as its live requests report it: 0 for none (the match
                # is over), so Finish, Accept the tie and Reopen reach other phones too.
                form_number=number if upcoming else 0)


def page_context(table: store.Table, **kw) -> dict:
    """Everything the whole table page shows."""
    context = entry_context(table, **kw)
    context.update(sheet_context(table, form_number=context["form_number"]))
    context["join_link"] = join_link(table)
    context["join_qr"] = qr_svg(context["join_link"])
    return context


def render_page(table: store.Table, status: int = 200, **kw):
    """The whole table page; never cached, so the back button shows the table as it is now."""
    response = make_response(render_template("tables/show.html", **page_context(table, **kw)), status)
    response.headers["Cache-Control"] = "no-store"
    return response


def stale(table: store.Table, message, values: dict | None = None) -> Response:
    """A stale button or form (Undo, Finish, a correction of a deal undone meanwhile): the
    table as it is now, with one plain sentence; a correction's typed values wait, unsaved,
    in the next deal's form, so nothing typed is lost."""
    return render_page(table, 409, banner={"kind": "conflict", "message": render_text(message)},
                       values=values)


def table_problem(table: store.Table, message: str, status: int):
    """An error page about a table, with the way back to it."""
    return render_template("error.html", message=message, back_url=table_url(table),
                           back_label=gettext("Back to the table")), status


@bp.get("/t/<token>")
def show(token: str):
    table = table_or_404(token)
    if not table.seated:  # prepared for a meetup night: the first phone gives the players
        return redirect(url_for("hall.seat", token=token), code=303)
    banner = banner_for(table)
    if banner is not None:
        # An undone deal's values wait in the form for its number, to fix one and save again.
        given = banner.get("values") if banner.get("number") == len(table.deals) + 1 else None
        return render_page(table, banner=banner, values=given if isinstance(given, dict) else None)
    # The same page for every phone that asks at this revision (a 100-deal table's ?all=1 is
    # heavy: one device asking again and again must not replay it each time; issue 23):
    # rendered once per (revision, language, address), each phone given its own CSRF token.
    key = ("page", token, table.revision, str(get_locale()), request.host, request.full_path, store.MAX_DEALS)
    page = LIVE_PAGES.get(key)
    if page is None:
        page = render_template("tables/show.html", csrf_token=lambda: CSRF_SLOT, **page_context(table)).encode()
        LIVE_PAGES.put(key, page)
    response = make_response(page.replace(CSRF_SLOT.encode(), generate_csrf().encode()))
    response.headers["Cache-Control"] = "no-store"
    return response


# Rendered live answers, shared by the phones of a table (see live()); bounded in bytes.
LIVE_PAGES = BytesLRU(16 * 1024 * 1024)
CSRF_SLOT = "\x00csrf-token\x00"  # stands for this phone's token in a shared rendering


@bp.get("/t/<token>/live")
def live(token: str):
    """A phone's live region fetches this when its table changed (its event stream said so).
    ``?rev=R`` when unchanged is answered 204 before Flask (companion/serving/live.py).

    Otherwise the scoresheet, plus out-of-band parts (history, actions) and, when the phone's
    form is for another deal than the next one, the next deal's form in a <template>: app.js
    swaps it in if nothing is typed, else keeps what is typed and says which deal it will be.
    """
    if not TOKEN_SHAPE.match(token):
        abort(404)
    current = store.revision(get_db(), token)
    if current is None:
        abort(404)
    form_number = request.args.get("form", type=int)
    view = "host" if request.args.get("view") == "host" else "sheet"
    # Every phone at a table asks for the same revision at once after a change: render it
    # once per (revision, language, view, form) and give each phone its own CSRF token.
    key = (token, current, str(get_locale()), view, form_number)
    page = LIVE_PAGES.get(key)
    if page is None:
        table = table_or_404(token)
        if view == "host":
            context = sheet_context(table, form_number)
            template = "tables/_host_board.html"
        else:
            context = entry_context(table)
            context.update(sheet_context(table, form_number=context["form_number"]))
            context["asked_number"] = form_number
            template = "tables/_live_response.html"
        page = render_template(template, csrf_token=lambda: CSRF_SLOT, **context).encode()
        if table.revision == current:  # never file a newer table under an older revision
            LIVE_PAGES.put(key, page)
    response = make_response(page.replace(CSRF_SLOT.encode(), generate_csrf().encode()))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/t/<token>/host")
def host(token: str):
    table = table_or_404(token)
    link = join_link(table)
    return render_template("tables/host.html", join_link=link, join_qr=qr_svg(link), **sheet_context(table))


def render_entry(table: store.Table, status: int = 200, **kw):
    if is_htmx():
        # The form plus every part of the page that changed, so the phone that entered is as
        # current as every other phone (scoresheet, history, actions).
        context = entry_context(table, **kw)
        context.update(sheet_context(table, form_number=context["form_number"]))
        return render_template("tables/_entry_response.html", **context), status
    return render_page(table, status, **kw)


def typed_score(table: store.Table, number: int, values: dict):
    """What this phone's entry for deal ``number`` would have scored (shown beside the recorded
    deal after a conflict); None if it doesn't read as a valid deal."""
    if not 1 <= number <= len(table.deals):
        return None
    progress = table.progress(upto=number - 1)
    facts, errors = table.game.parse_deal(values, progress)
    if errors or table.game.validate(progress, facts):
        return None
    return facts, table.game.score_deal(progress, facts)


@bp.post("/t/<token>/deals")
def add_deal(token: str):
    if not TOKEN_SHAPE.match(token):
        abort(404)
    values = form_values()
    number = request.form.get("number", type=int)
    if number is None:
        return render_entry(table_or_404(token), 422, values=values,
                            errors={"deal": [gettext("This form is missing its deal number. Reload the page.")]})
    try:
        # The store reads the form against the match as stored, in one read and one replay.
        table = store.add_deal(get_db(), token, number, form=values, write_id=write_id())
    except store.NoSuchTable:
        abort(404)
    except Repeated as repeated:  # sent again (its answer was lost): answered as the first time
        return saved(table_or_404(token), repeated.outcome["number"])
    except store.Conflict as conflict:
        table = table_or_404(token)
        if len(table.deals) >= store.MAX_DEALS:
            return render_entry(table, 409)  # the page says the table is full
        mine = typed_score(table, number, values) if conflict.number == number else None
        if mine is not None and mine[0] == table.deals[number - 1]:
            # The same deal again (a double tap, or two phones typing the same): it is saved.
            return saved(table, number)
        if conflict.number == number and 1 <= number <= len(table.deals):
            # Another phone was first: show the recorded deal beside this one; the next form starts empty.
            return render_entry(table, 409, notice=conflict.message,
                                conflict={"number": number, "mine": mine[1] if mine else None, "typed": values})
        return render_entry(table, 409, values=values, notice=conflict.message)
    except store.Refused as refused:
        return render_entry(table_or_404(token), 422, values=values, errors=group_errors(refused.errors))
    except StorageError as error:
        return render_entry(table_or_404(token), 503, values=values, errors={"deal": [storage_message(error)]})
    return saved(table, number)


def saved(table: store.Table, number: int):
    """The answer to a saved deal: "Deal N saved" with its points and an Undo right there."""
    if is_htmx():
        return render_entry(table, 200, banner={"kind": "saved", "number": number})
    tell(table, "saved", number)
    return redirect(table_url(table) + "#entry-wrap", code=303)


def check_deal(table: store.Table, progress, values: dict, correcting: int | None = None):
    """The as-you-type check: the deal's messages and its score, nothing saved. A correction
    (of deal ``correcting``) is also replayed through the whole match, so the preview never
    says "looks right" where Save would refuse for a later deal."""
    facts, errors = table.game.parse_deal(values, progress)
    score, asks_later = None, ()
    if not errors:
        errors = table.game.validate(progress, facts)
        if not errors:
            score = table.game.score_deal(progress, facts)
    if score is not None and correcting is not None:
        try:
            store.corrected_deals(table, correcting, facts, **later_answers(values))
        except store.NeedsChoices as needs:
            # Those answered on the page are not asked again; each says what will be asked
            # (who starts, who deals, or an open bid the correction made illegal).
            asks_later = [(later, choice) for later, choice in needs.choices if later in needs.unanswered]
        except store.Refused as refused:
            score, errors = None, refused.errors
    return render_template("tables/_preview.html", table=table, game=table.game, errors=errors, score=score,
                           match=table.match(), values=values, progress=progress, asks_later=asks_later)


def once_per_revision(table: store.Table, number: int, values: dict, render) -> Response:
    """A preview rendered once per (revision, deal, typed values, language): the same preview
    asked again and again (a correction of a 100-deal match replays it all) is not redone
    each time (issue 23). Previews carry no CSRF token."""
    typed = hashlib.sha256(json.dumps(sorted(values.items())).encode()).hexdigest()
    key = ("preview", table.token, table.revision, number, str(get_locale()), typed)
    page = LIVE_PAGES.get(key)
    if page is None:
        page = render().encode()
        LIVE_PAGES.put(key, page)
    return make_response(page)


@bp.post("/t/<token>/preview")
def preview(token: str):
    """Checks the next deal as the player types."""
    table = table_or_404(token)
    values = form_values()
    return once_per_revision(table, 0, values, lambda: check_deal(table, table.progress(), values))


@bp.post("/t/<token>/deals/<int:number>/preview")
def preview_edit(token: str, number: int):
    """Checks a correction of deal ``number`` as the player types."""
    table = table_or_404(token)
    if not 1 <= number <= len(table.deals):
        return "", 204  # undone meanwhile: saving will say so
    values = form_values()
    return once_per_revision(table, number, values, lambda: check_deal(
        table, table.progress(upto=number - 1), values, correcting=number))


@bp.get("/t/<token>/deals/<int:number>/edit")
def edit(token: str, number: int):
    table = table_or_404(token)
    if not 1 <= number <= len(table.deals):
        return table_problem(table, gettext("This table has no deal %(number)s (any more).", number=number), 404)
    facts = table.deals[number - 1]
    return render_edit(table, number, table.game.form_values(facts), {}, None, store.fingerprint(facts))


@bp.post("/t/<token>/mine")
def use_mine(token: str):
    """A conflict's "use mine": this phone's values, sent back from the conflict box, put into a
    form (nothing is saved): the next deal's, or the correction of the deal recorded meanwhile."""
    table = table_or_404(token)
    values = {name[len("mine-"):]: value for name, value in request.form.items() if name.startswith("mine-")}
    number = request.form.get("number", type=int)
    recorded = bool(number) and 1 <= number <= len(table.deals)
    # The match may have ended since the box was drawn: then no next form exists to fill.
    has_next = upcoming_deal(table, table.match()) is not None
    if recorded and (request.form.get("use") == "correct" or not has_next):
        notice = (gettext("Your values for deal %(number)s are in the form: check them, then save the correction.",
                          number=number) if has_next else
                  gettext("The match is over, so there is no next deal for your values. They are in the "
                          "correction of deal %(number)s: save it to replace the recorded deal, or leave "
                          "this page to keep it.", number=number))
        return render_edit(table, number, values, {}, notice, store.fingerprint(table.deals[number - 1]))
    if not has_next:
        return render_page(table, 200, notice=gettext(
            "The match is over, so there is no next deal for your values. Nothing was saved."))
    return render_page(table, 200, values=values, given_back=True, notice=gettext(
        "Your values are in the form for deal %(number)s: check them, then save.", number=len(table.deals) + 1))


def render_edit(table: store.Table, number: int, values: dict, errors: dict, notice, was: str, status: int = 200,
                later_choices=(), removal: dict | None = None):
    progress = table.progress(upto=number - 1)
    upcoming = table.game.next_deal(progress)
    return render_template("tables/edit.html", table=table, game=table.game, progress=progress,
                           upcoming=upcoming, columns=table.game.column_map(table.setup),
                           values=values, errors=errors, notice=notice, number=number,
                           was=was, mode="edit", match=table.match(), later_choices=later_choices,
                           removal=removal), status


@bp.post("/t/<token>/deals/<int:number>")
def update(token: str, number: int):
    table = table_or_404(token)
    values = form_values()
    was = request.form.get("was", "")
    if (wid := write_id()) and store.recorded_outcome(get_db(), token, wid) is not None:
        # Sent again (its answer was lost), maybe after the deal was undone: as the first time.
        tell(table, "edited", number)
        return redirect(table_url(table) + f"#deal-{number}", code=303)
    if not 1 <= number <= len(table.deals):
        return stale(table, gettext("Deal %(number)s no longer exists (it was undone from another phone); "
                                    "nothing was changed. What you typed is in the form below, not saved.",
                                    number=number), values)
    progress = table.progress(upto=number - 1)
    facts, errors = table.game.parse_deal(values, progress)
    later_choices = ()
    removal = None
    if not errors:
        try:
            store.edit_deal(get_db(), token, number, facts, was, write_id=write_id(), **later_answers(values),
                            remove_after_end=request.form.get("remove_after_end", type=int))
        except Repeated:
            errors = []  # sent again: answered as the first time
        except store.Conflict as conflict:
            table = table_or_404(token)
            if number > len(table.deals):
                return stale(table, conflict.message, values)
            recorded = table.deals[number - 1]
            return render_edit(table, number, values, {}, conflict.message, store.fingerprint(recorded), 409)
        except store.EndsEarlier as ends:
            errors = ends.errors
            removal = {"first": ends.end + 1, "last": ends.last}  # offered beside Save
        except store.Refused as refused:
            errors = refused.errors
            # store.NeedsChoices: the later deals' choices this correction asks again.
            later_choices = tuple(getattr(refused, "choices", ()))
        except StorageError as error:
            return render_edit(table, number, values, {"deal": [storage_message(error)]}, None, was, 503)
    if errors:
        return render_edit(table, number, values, group_errors(errors), None, was, 422, later_choices, removal)
    tell(table, "edited", number)
    return redirect(table_url(table) + f"#deal-{number}", code=303)


def later_answers(values: dict) -> dict:
    """Answers to later deals' choices that a correction asked for again (fields named
    ``later-<deal>``, see store.later_field), by deal number as ``store.edit_deal`` takes them."""
    answers = {int(name[6:]): value for name, value in values.items()
               if name.startswith("later-") and name[6:].isdigit() and len(name) < 12}
    if not answers:
        return {}
    return {"choices": answers}


@bp.post("/t/<token>/undo")
def undo(token: str):
    table = table_or_404(token)
    number = request.form.get("number", type=int) or 0
    # Undo gives the deal back: its values return to the form, ready to fix one and save.
    values = (table.game.form_values(table.deals[number - 1])
              if 1 <= number == len(table.deals) else None)
    try:
        table = store.undo_last(get_db(), token, number, write_id=write_id())
    except Repeated as repeated:  # sent again: answered as the first time
        number = repeated.outcome["number"]
    except store.Conflict as conflict:
        return stale(table_or_404(token), conflict.message)
    tell(table, "undone", number, values=values)
    return redirect(table_url(table) + "#entry-wrap", code=303)


@bp.post("/t/<token>/finish")
def finish(token: str):
    table = table_or_404(token)
    try:
        store.set_finished(get_db(), token, request.form.get("finished", "1") == "1", write_id=write_id())
    except Repeated:
        pass  # sent again: answered as the first time
    except store.Refused as refused:
        return stale(table_or_404(token), refused.errors[0].message)
    return redirect(table_url(table) + "#sheet", code=303)


@bp.post("/t/<token>/rematch")
def rematch(token: str):
    table = table_or_404(token)
    try:  # exactly once: a phone pressing after another lands on the same new table
        new_token = store.rematch(get_db(), table.token, write_id=write_id())
    except Repeated as repeated:  # sent again: the same new table
        new_token = repeated.outcome["token"]
    except store.Refused as refused:
        return stale(table_or_404(token), refused.errors[0].message)
    return redirect(url_for("tables.show", token=new_token), code=303)


@bp.get("/t/<token>/log")
def log(token: str):
    table = table_or_404(token)
    return render_template("tables/log.html", table=table, game=table.game,
                           changes=store.changes(get_db(), table.id), match=table.match(),
                           fact_groups=partial(fact_groups, game=table.game), local_time=local_time)


# --------------------------------------------------------------------------
# Export


# Readable facts: what the log and the CSV say about a deal, in the players' words. Each game
# describes its own facts (Game.describe_facts: its fact_labels, seat_facts and team_facts).


def fact_items(facts: dict, players: Sequence[str], entrants: Sequence[str],
               game: Game) -> list[tuple[str, str, str]]:
    """(label, name or "", value) per fact, as the game describes them, in this reader's language."""
    return [(render_text(item.label), item.owner, render_text(item.value))
            for item in game.describe_facts(facts, players, entrants)]


def fact_groups(facts: dict, players: Sequence[str], entrants: Sequence[str], game: Game):
    """The facts for reading: what concerns the whole deal ("Start player: Ann"), then each
    player's (or team's) own facts together ("Ann: Chips 4 · Tricks 2")."""
    general, per_name = [], {}
    for label, name, value in fact_items(facts, players, entrants, game):
        if name:
            per_name.setdefault(name, []).append((label, value))
        else:
            general.append((label, value))
    return general, list(per_name.items())


def local_time(stamp: str | None, shown: str = "%Y-%m-%d %H:%M:%S") -> str:
    """A stored UTC time as the laptop's local time (the clock on the players' wall), written
    ``shown`` (the change log: to the second; the hall: "%H:%M"); unreadable stays as stored."""
    if not stamp:
        return ""
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime(shown)
    except ValueError:
        return stamp


def distinct(labels: Sequence[str]) -> list[str]:
    """The labels made unique (" (2)", " (3)"…), so no two columns or keys ever merge."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} ({seen[label]})")
    return out


def export_rows(table: store.Table):
    """One row per deal, column -> value in order; every entrant has its own columns even if
    two share a name (seat-ordered, made distinct)."""
    match = table.match()
    players, entrants = table.setup.players, match.entrants
    rows = []
    for record in match.deals:
        pairs = [(gettext("Deal"), str(record.number))]
        pairs += [(f"{label}: {name}" if name else label, value)
                  for label, name, value in fact_items(record.facts, players, entrants, table.game)]
        pairs += [(gettext("Points: %(name)s", name=name), str(record.score.points[i]))
                  for i, name in enumerate(entrants)]
        pairs += [(gettext("Total: %(name)s", name=name), str(record.totals[i])) for i, name in enumerate(entrants)]
        if match.at_time and record.number == len(match.deals):  # issue 33: the result, marked
            pairs.append((gettext("Ended at time"), render_text(match.outcome.message)))
        rows.append(dict(zip(distinct([c for c, _v in pairs]), [v for _c, v in pairs])))
    return match, rows


def download_name(table: store.Table, ext: str) -> str:
    return f"{table.game.id}-{table.created_at[:10]}-{table.token[:6]}.{ext}"


# What a spreadsheet runs as a formula when a cell starts with it (=HYPERLINK(…) in a name).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


PLAIN_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def csv_cell(value) -> str:
    """A cell a spreadsheet shows as text: one that would start a formula gets a leading
    single quote (OWASP's advice), so a player's name can never run as one. A plain negative
    number (points "-10") is a number to a spreadsheet, never a formula: it stays as it is."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_download(rows: list[dict], first_columns: Sequence[str], filename: str, **headers) -> Response:
    """Rows as a CSV file for spreadsheets (every export's one way): columns in the order
    they first appear after ``first_columns``, a BOM for UTF-8, every cell formula-safe."""
    columns: list[str] = list(first_columns)
    for row in rows:
        columns.extend(c for c in row if c not in columns)
    out = io.StringIO()
    out.write("\ufeff")  # BOM: spreadsheet software then reads the names as UTF-8
    writer = csv.writer(out)
    writer.writerow([csv_cell(c) for c in columns])
    writer.writerows([csv_cell(row.get(c, "")) for c in columns] for row in rows)
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": f"attachment; filename={filename}", **headers})


@bp.get("/t/<token>/export.csv")
def export_csv(token: str):
    table = table_or_404(token)
    _match, rows = export_rows(table)
    return csv_download(rows, [] if rows else [gettext("Deal")], download_name(table, "csv"))


@bp.get("/t/<token>/export.json")
def export_json(token: str):
    table = table_or_404(token)
    doc = table_document(table)
    return Response(json.dumps(doc, ensure_ascii=False, indent=2), mimetype="application/json", headers={
        "Content-Disposition": f"attachment; filename={download_name(table, 'json')}"})


def table_document(table: store.Table) -> dict:
    """One table as JSON-able data: its facts, every deal's points, totals and winners
    (the table's own export and the meetup night's export share it)."""
    match = table.match()
    return {
        "game": table.game.id,
        "players": list(table.setup.players),
        "entrants": list(match.entrants),
        "options": dict(table.setup.options),
        "created_at": table.created_at,  # UTC, ISO 8601
        "created_at_local": local_time(table.created_at),  # the laptop's clock
        "finished": table.finished,
        "ended_at_time": match.at_time,  # issue 33: ended with the deals played when time was called
        "deals": [{
            "number": r.number,
            "facts": r.facts,
            "points": list(r.score.points),
            "totals": list(r.totals),
            "winners": [match.entrants[i] for i in r.score.winners],
            # Lists by seat (or team) order, never keyed by name: two equal names can't merge.
            "breakdown": [{"name": match.entrants[i],
                           "lines": [{"label": str(line.label), "points": line.points} for line in lines]}
                          for i, lines in enumerate(r.score.breakdown)],
            "rulings": list(r.score.rulings),
        } for r in match.deals],
        "totals": [{"name": name, "total": total} for name, total in zip(match.entrants, match.totals)],
        "over": match.over,
        "winners": [match.entrants[i] for i in match.winners],
        "rulings": list(match.outcome.rulings),
    }
