"""Tables: create, join, enter deals, correct them, watch live, export.

Every page works as a plain HTML form. With htmx, the same routes answer with
just the part that changed (``HX-Request``), as in Hypermedia Systems' Contact.app.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import partial

from flask import (Blueprint, Response, abort, current_app, flash, g, get_flashed_messages, make_response, redirect,
                   render_template, request, url_for)
from flask_babel import get_locale, gettext, ngettext
from markupsafe import Markup
from flask_wtf.csrf import generate_csrf

from .. import metrics
from ..devices import device_of
from ..outcomes import Outcome
from ..store import StorageError, get_db
from ..games import GAMES
from ..games.text import Text
from ..lru import BytesLRU
from ..numbers import ascii_number, number_or_error
from ..qr import qr_svg
from ..web import render_text
from ..web.downloads import csv_download, json_download
from ..web.forms import form_values, group_errors
from ..web.host import is_host_request, phone_address
from ..web.phone_id import device_id
from ..web.outcomes import NOT_SAVED, STALE, STATUS, answer, status_of
from ..web.refusals import storage_message, the_apps_refusal
from ..web.times import local_time
from ..serving.limits import device_limits
from ..serving.live import SharedPartials, partial_key
from . import service
from .chart import progression_chart
from .exports import download_name, export_rows, fact_groups, table_document
from .forms import option_values, write_id
from . import additions
from .links import TOKEN_SHAPE, join_link, table_label, table_or_404, table_url
from .record import change_lock, device_key, lock_key, remember_opened, who_here

bp = Blueprint("tables", __name__)


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


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


# --------------------------------------------------------------------------
# Creating a table


@bp.get("/tables/new")
def new():
    game = GAMES.get(request.args.get("game", ""))
    if game is None:
        return render_template("tables/choose_game.html")
    counts = sorted(set(game.players) | set(game.variant_players))
    usual = min(game.players)  # the game's own count, never a variant count
    n = ascii_number(request.args.get("players", str(usual)), 3)
    if n is None:
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
    asked = ascii_number(raw_n, 3)
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
    wait = 0 if is_host_request() else device_limits(current_app).take(device_of(request.environ), "tables")
    if wait:
        page = render_template("tables/new.html", game=game, n=n, counts=counts, values=form_values(),
                               errors={"table": [ngettext(
                                   "This device opened many tables in a short time. Wait %(num)s second, "
                                   "then press “Open the table” again.",
                                   "This device opened many tables in a short time. Wait %(num)s seconds, "
                                   "then press “Open the table” again.", wait)]})
        metrics.refused("tables")
        return page, 429, {"Retry-After": str(wait)}

    def form_again(errors: dict, status: int):
        if status == STATUS[Outcome.REFUSED] and not is_host_request():
            device_limits(current_app).give_back(device_of(request.environ), "tables")  # a refused form opened nothing
        return render_template("tables/new.html", game=game, n=n, counts=counts, values=form_values(),
                               errors=errors), status

    return answer(lambda: service.create(get_db(), game.id, names, options, numbered=is_host_request(),
                                                opened_from=phone_address()),
                  saved=lambda created: redirect(url_for("tables.show", token=created.table.token), code=303),
                  page=form_again, field="table")


# --------------------------------------------------------------------------
# The table page and its live parts

HISTORY_RECENT = 10  # deals shown on the table page; older ones behind "show all" (?all=1)
BANNER = "table"  # flash category of the table page's one-sentence banners


def tell(table: service.Table, kind: str, number: int | None = None, message: str | None = None,
         values: dict | None = None) -> None:
    """A banner for this phone's next view of the table ("Deal 3 saved."), kept in its session,
    so reload, back and an edited URL can never show it again or show a false one. ``values``:
    an undone deal's fields, given back to this phone's form (issue 27)."""
    flash({"token": table.token, "kind": kind, "number": number, "message": message,
           **({"values": values} if values else {})}, BANNER)


def banner_for(table: service.Table) -> dict | None:
    """The banner this phone was told for this table, if any (consumed by reading)."""
    found = None
    for item in get_flashed_messages(category_filter=[BANNER]):
        if isinstance(item, dict) and item.get("token") == table.token:
            found = item
    return found


def sheet_context(table: service.Table, form_number: int | None = None) -> dict:
    match = table.match()
    show_all = request.args.get("all") == "1"
    deals = match.deals if show_all else match.deals[-HISTORY_RECENT:]
    return dict(table=table, game=table.game, match=match, chart=progression_chart(match),
                form_number=form_number, show_all=show_all, history=deals[::-1],
                max_deals=service.MAX_DEALS, full=len(table.deals) >= service.MAX_DEALS,
                # "Finish match" while it runs; a tie at the end has its own "accept the tie".
                can_finish=table.can_finish() and not match.over, lock=change_lock(table))


def upcoming_deal(table: service.Table, match):
    """The next deal a phone may enter: none once the match is over or the table is full."""
    return None if len(table.deals) >= service.MAX_DEALS else match.next


def entry_context(table: service.Table, values: dict | None = None, errors: dict | None = None,
                  notice: Text | None = None, preview=None, banner: dict | None = None,
                  conflict: dict | None = None, given_back: bool = False) -> dict:
    progress = table.progress()
    match = table.match()
    full = len(table.deals) >= service.MAX_DEALS
    upcoming = upcoming_deal(table, match)
    number = len(table.deals) + 1
    return dict(table=table, game=table.game, match=match, progress=progress, upcoming=upcoming,
                columns=table.game.column_map(table.setup),  # the deal form's numbers, as the game declares
                values=values or {}, errors=errors or {}, notice=notice, preview=preview,
                number=number, mode="add", banner=banner, conflict=conflict,
                # A whole deal put back in the form (undone, or this phone's side of a conflict).
                given_back=given_back or bool(banner and banner.get("kind") == "undone" and values),
                full=full, max_deals=service.MAX_DEALS,
                # The form a phone shows, as its live requests report it: 0 for none (the match
                # is over), so Finish, Accept the tie and Reopen reach other phones too.
                form_number=number if upcoming else 0, lock=change_lock(table))


def page_context(table: service.Table, **kw) -> dict:
    """Everything the whole table page shows."""
    context = entry_context(table, **kw)
    context.update(sheet_context(table, form_number=context["form_number"]))
    context["join_link"] = join_link(table)
    context["join_qr"] = qr_svg(context["join_link"])
    context["additions"] = additions.parts_of(get_db(), table)  # what other features show here
    context["phone_id"] = page_context_phone_id()  # its own saves wait for another seat
    return context


def page_context_phone_id() -> str | None:
    """The id the page gives this phone (static/app.js marks its own saves by it); the laptop: none.
    Made now if the phone has none yet (a side table's phones never joined tonight): the id its
    saves from this page will carry."""
    return None if is_host_request() else device_id(create=True)


def render_page(table: service.Table, status: int = 200, **kw):
    """The whole table page; never cached, so the back button shows the table as it is now."""
    response = make_response(render_template("tables/show.html", **page_context(table, **kw)), status)
    response.headers["Cache-Control"] = "no-store"
    return response


def stale(table: service.Table, message, values: dict | None = None) -> Response:
    """A stale button or form (Undo, Finish, a correction of a deal undone meanwhile): the
    table as it is now, with one plain sentence; a correction's typed values wait, unsaved,
    in the next deal's form, so nothing typed is lost."""
    return render_page(table, STALE, banner={"kind": "conflict", "message": render_text(message)},
                       values=values)


def table_problem(table: service.Table, message: str, status: int):
    """An error page about a table, with the way back to it."""
    return render_template("error.html", message=message, back_url=table_url(table),
                           back_label=gettext("Back to the table")), status


@bp.get("/t/<token>")
def show(token: str):
    table = table_or_404(token)
    if not table.seated:  # prepared for a meetup night: the first phone gives the players
        return redirect(url_for("tables.seat", token=token), code=303)
    remember_opened(table)  # issue 32: this device had it open while the match ran
    banner = banner_for(table)
    if banner is not None:
        # An undone deal's values wait in the form for its number, to fix one and save again.
        given = banner.get("values") if banner.get("number") == len(table.deals) + 1 else None
        return render_page(table, banner=banner, values=given if isinstance(given, dict) else None)
    # The same page for every phone that asks at this revision (a 100-deal table's ?all=1 is
    # heavy: one device asking again and again must not replay it each time; issue 23):
    # rendered once per (revision, language, address), each phone given its own CSRF token and
    # its own id (issue 45: app.js tells this phone's saves from others' by it; the laptop has none).
    key = ("page", token, table.revision, str(get_locale()), request.host, request.full_path, service.MAX_DEALS,
           lock_key(table))
    page = LIVE_PAGES.get(key)
    if page is None:
        g.csrf_stand_in = CSRF_SLOT
        try:
            page = render_template("tables/show.html", **dict(page_context(table), phone_id=PHONE_SLOT)).encode()
        finally:
            g.csrf_stand_in = None
        LIVE_PAGES.put(key, page)
    own = page_context_phone_id()
    page = page.replace(PHONE_META_SLOT, f'<meta name="phone-id" content="{Markup.escape(own)}">'.encode() if own else b"")
    response = make_response(page.replace(CSRF_SLOT.encode(), generate_csrf().encode()))
    response.headers["Cache-Control"] = "no-store"
    return response


# Rendered pages shared by the phones of a table (show(), previews); bounded in bytes.
LIVE_PAGES = BytesLRU(16 * 1024 * 1024)
CSRF_SLOT = "\x00csrf-token\x00"  # stands for this phone's token in a shared full page
PHONE_SLOT = "\x00phone-id\x00"  # and for its id (tables/show.html's <meta name="phone-id">), with the tag
PHONE_META_SLOT = f'<meta name="phone-id" content="{PHONE_SLOT}">'.encode()


@bp.get("/t/<token>/live")
def live(token: str):
    """A phone's live region fetches this when its table changed (its event stream said so).
    ``?rev=R`` when unchanged is answered 204 before Flask (companion/serving/live.py).

    Otherwise the scoresheet, plus out-of-band parts (history, actions) and, when the phone's
    form is for another deal than the next one, the next deal's form in a <template>: app.js
    swaps it in if nothing is typed, else keeps what is typed and says which deal it will be.

    Every phone at a table asks for the same revision at once after a change, so it is rendered
    and compressed once per (revision, language, view, form) and filed with the serving layer,
    which gives the other phones those bytes without Flask. It carries no CSRF token (its forms'
    fields are empty): they use the page's own (<meta name="csrf-token">, sent by htmx as
    X-CSRFToken and put into a form's data by static/csrf.js), so every phone's bytes are equal.
    """
    if not TOKEN_SHAPE.match(token):
        abort(404)
    current = service.revision(get_db(), token)
    if current is None:
        abort(404)
    form_number = request.args.get("form", type=number_or_error)
    view = "host" if request.args.get("view") == "host" else "sheet"
    key = partial_key(token, current, str(get_locale()), view, form_number, request.args.get("all") == "1")
    partials: SharedPartials | None = current_app.extensions.get("shared_partials")
    found = partials.get(key) if partials is not None else None
    if found is None:
        table = table_or_404(token)
        # A finished match's change buttons depend on the device (issue 32: who may still change
        # it), so its partial is this device's own, kept here by that; a running match's is the
        # same for every phone, filed with the serving layer to be served without Flask.
        device = device_key(token, lambda: table) if table.match().over or table.finished else None
        mine = LIVE_PAGES.get((key, device)) if device is not None else None
        if mine is not None:
            found = (mine, None)
        else:
            if view == "host":
                context = sheet_context(table, form_number)
                template = "tables/_host_board.html"
            else:
                context = entry_context(table)
                context.update(sheet_context(table, form_number=context["form_number"]))
                context["asked_number"] = form_number
                template = "tables/_live_response.html"
            g.csrf_stand_in = ""  # no phone's token: the page's is used (see above)
            try:
                body = render_template(template, **context).encode()
            finally:
                g.csrf_stand_in = None
            if device is not None:
                LIVE_PAGES.put((key, device), body)
                found = (body, None)
            elif partials is None or table.revision != current:  # never file a newer table under an older revision
                found = (body, None)
            else:
                found = partials.put(key, body)
    plain, packed = found
    if packed is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        response = make_response(packed)
        response.headers["Content-Encoding"] = "gzip"  # compressed once, for every phone (compress() skips it)
        response.headers["Vary"] = "Accept-Language, Cookie, Accept-Encoding"
    else:
        response = make_response(plain)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/t/<token>/host")
def host(token: str):
    table = table_or_404(token)
    link = join_link(table)
    return render_template("tables/host.html", join_link=link, join_qr=qr_svg(link), **sheet_context(table))


def render_entry(table: service.Table, status: int = 200, **kw):
    if is_htmx():
        # The form plus every part of the page that changed, so the phone that entered is as
        # current as every other phone (scoresheet, history, actions).
        context = entry_context(table, **kw)
        context.update(sheet_context(table, form_number=context["form_number"]))
        return render_template("tables/_entry_response.html", **context), status
    return render_page(table, status, **kw)


@bp.post("/t/<token>/deals")
def add_deal(token: str):
    if not TOKEN_SHAPE.match(token):
        abort(404)
    values = form_values()
    number = request.form.get("number", type=number_or_error)
    if number is None:
        return render_entry(table_or_404(token), 422, values=values,
                            errors={"deal": [gettext("This form is missing its deal number. Reload the page.")]})
    try:
        # The service reads the form against the match as stored, in one read and one replay.
        with metrics.save_timer():  # how long a deal's save takes (/metrics)
            entry = service.enter_deal(get_db(), token, number, form=values, write_id=write_id(), who=who_here(token))
    except StorageError as error:
        if the_apps_refusal(error):  # the page's frame, swapped nowhere; the outbox keeps the deal (issue 46)
            raise
        return render_entry(table_or_404(token), NOT_SAVED, values=values, errors={"deal": [storage_message(error)]})
    table = entry.table
    if table is None:
        abort(status_of(entry))
    if entry.saved:  # now, or sent again (answered as the first time), or the same deal again
        # The same values as the deal recorded (a double tap, or two phones typing the same):
        # stored once, and this phone is told so.
        return saved(table, entry.number, "same" if entry.outcome is Outcome.SAME else "saved")
    if entry.outcome is Outcome.REFUSED:
        return render_entry(table, status_of(entry), values=values, errors=group_errors(entry.errors))
    if len(table.deals) >= service.MAX_DEALS:
        return render_entry(table, status_of(entry))  # the page says the table is full
    if entry.collides:
        # Another phone was first: show the recorded deal beside this one; the next form starts empty.
        return render_entry(table, status_of(entry), notice=entry.message,
                            conflict={"number": number, "mine": entry.mine, "typed": values})
    return render_entry(table, status_of(entry), values=values, notice=entry.message)


def saved(table: service.Table, number: int, kind: str = "saved"):
    """The answer to a saved deal: "Deal N saved" with its points and an Undo right there
    (kind "same": it was already recorded with the same values, by another phone or a second tap)."""
    if is_htmx():
        return render_entry(table, 200, banner={"kind": kind, "number": number})
    tell(table, kind, number)
    return redirect(table_url(table) + "#entry-wrap", code=303)


def check_deal(table: service.Table, values: dict, correcting: int | None = None):
    """The as-you-type check (the service's), rendered: the deal's messages and its score."""
    return render_template("tables/_preview.html", table=table, game=table.game, match=table.match(), values=values,
                           **service.check_entry(table, values, correcting))


def once_per_revision(table: service.Table, number: int, values: dict, render) -> Response:
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
    return once_per_revision(table, 0, values, lambda: check_deal(table, values))


@bp.post("/t/<token>/deals/<int:number>/preview")
def preview_edit(token: str, number: int):
    """Checks a correction of deal ``number`` as the player types."""
    table = table_or_404(token)
    if not 1 <= number <= len(table.deals):
        return "", 204  # undone meanwhile: saving will say so
    values = form_values()
    return once_per_revision(table, number, values, lambda: check_deal(table, values, correcting=number))


def refused_change(table: service.Table):
    """The table as it is, with why this device can't change it (403), or None: it may (issue 32:
    a finished match's changes stay with its table, companion/tables/access.py)."""
    lock = change_lock(table)
    if lock is None:
        return None
    return locked(table, lock)


def locked(table: service.Table, lock):
    """The table as it is, with why this device can't change it (403)."""
    return render_page(table, status_of(Outcome.LOCKED), banner={"kind": "conflict", "message": render_text(lock.message)})


def change_gate(_conn, table: service.Table):
    """For a write to a table: may this device change it? Asked by the service inside the write's
    transaction, of the table it read there (one read of the table serves the check and the write);
    remembered for the page that answers (change_lock: this request's connection, the same one)."""
    return change_lock(table)


@bp.get("/t/<token>/deals/<int:number>/edit")
def edit(token: str, number: int):
    table = table_or_404(token)
    if (refused := refused_change(table)) is not None:  # a finished match stays with its table
        return refused
    if not 1 <= number <= len(table.deals):
        return table_problem(table, gettext("This table has no deal %(number)s (any more).", number=number), 404)
    facts = table.deals[number - 1]
    return render_edit(table, number, table.game.form_values(facts), {}, None, service.fingerprint(facts))


@bp.post("/t/<token>/mine")
def use_mine(token: str):
    """A conflict's "use mine": this phone's values, sent back from the conflict box, put into a
    form (nothing is saved): the next deal's, or the correction of the deal recorded meanwhile."""
    table = table_or_404(token)
    if (refused := refused_change(table)) is not None:
        return refused
    values = {name[len("mine-"):]: value for name, value in request.form.items() if name.startswith("mine-")}
    number = request.form.get("number", type=number_or_error)
    recorded = bool(number) and 1 <= number <= len(table.deals)
    # The match may have ended since the box was drawn: then no next form exists to fill.
    has_next = upcoming_deal(table, table.match()) is not None
    if recorded and (request.form.get("use") == "correct" or not has_next):
        notice = (gettext("Your values for deal %(number)s are in the form: check them, then save the correction.",
                          number=number) if has_next else
                  gettext("The match is over, so there is no next deal for your values. They are in the "
                          "correction of deal %(number)s: save it to replace the recorded deal, or leave "
                          "this page to keep it.", number=number))
        return render_edit(table, number, values, {}, notice, service.fingerprint(table.deals[number - 1]))
    if not has_next:
        return render_page(table, 200, notice=gettext(
            "The match is over, so there is no next deal for your values. Nothing was saved."))
    return render_page(table, 200, values=values, given_back=True, notice=gettext(
        "Your values are in the form for deal %(number)s: check them, then save.", number=len(table.deals) + 1))


def render_edit(table: service.Table, number: int, values: dict, errors: dict, notice, was: str, status: int = 200,
                later_choices=(), removal: dict | None = None, dispute: bool = False):
    progress = table.progress(upto=number - 1)
    upcoming = table.game.next_deal(progress)
    return render_template("tables/edit.html", table=table, game=table.game, progress=progress,
                           upcoming=upcoming, columns=table.game.column_map(table.setup),
                           values=values, errors=errors, notice=notice, number=number,
                           was=was, mode="edit", match=table.match(), later_choices=later_choices,
                           removal=removal, lock=change_lock(table), dispute=dispute), status


@bp.post("/t/<token>/deals/<int:number>")
def update(token: str, number: int):
    if not TOKEN_SHAPE.match(token):
        abort(404)
    values = form_values()
    was = request.form.get("was", "")
    try:
        # The service reads the correction against the match as stored, as for a new deal, after
        # asking whether this device may change the table (a finished match's trust).
        correction = service.correct_deal(get_db(), token, number, form=values, was=was, write_id=write_id(),
                                          remove_after_end=request.form.get("remove_after_end", type=number_or_error),
                                          gate=change_gate, who=who_here(token))
    except StorageError as error:
        if the_apps_refusal(error):  # as for a new deal
            raise
        return render_edit(table_or_404(token), number, values, {"deal": [storage_message(error)]}, None, was,
                           NOT_SAVED)
    table = correction.table
    if table is None:
        abort(status_of(correction))
    if correction.outcome is Outcome.LOCKED:  # what was typed stays in the form, not saved
        return render_edit(table, number, values, {}, correction.lock.message, was, status_of(correction)) \
            if 1 <= number <= len(table.deals) else locked(table, correction.lock)
    if correction.saved:  # now, or sent again (maybe after the deal was undone): as the first time
        tell(table, "edited", number)
        return redirect(table_url(table) + f"#deal-{number}", code=303)
    if correction.outcome is Outcome.CONFLICT:
        if not correction.collides:  # undone from another phone meanwhile
            return stale(table, gettext("Deal %(number)s no longer exists (it was undone from another phone); "
                                        "nothing was changed. What you typed is in the form below, not saved.",
                                        number=number), values)
        recorded = table.deals[number - 1]
        return render_edit(table, number, values, {}, correction.message, service.fingerprint(recorded),
                           status_of(correction))
    # Refused: the reasons by field, the later deals' choices it asks again, or the deals it
    # would leave after the match's new end (removing them is offered beside Save).
    removal = {"first": correction.removal[0], "last": correction.removal[1]} if correction.removal else None
    return render_edit(table, number, values, group_errors(list(correction.errors)), None, was,
                       status_of(correction), correction.later_choices, removal)


@bp.post("/t/<token>/undo")
def undo(token: str):
    if not TOKEN_SHAPE.match(token):
        abort(404)
    number = request.form.get("number", type=number_or_error) or 0
    undone = service.undo_deal(get_db(), token, number, write_id=write_id(), gate=change_gate, who=who_here(token))
    table = undone.table
    if table is None:
        abort(status_of(undone))
    if undone.outcome is Outcome.LOCKED:
        return locked(table, undone.lock)
    if undone.outcome is Outcome.CONFLICT:
        return stale(table, undone.message)
    # Undo gives the deal back: its values return to the form, ready to fix one and save.
    values = table.game.form_values(undone.undone) if undone.undone is not None else None
    tell(table, "undone", undone.number, values=values)  # a resend: the first time's number
    return redirect(table_url(table) + "#entry-wrap", code=303)


@bp.post("/t/<token>/confirm")
def confirm(token: str):
    """A phone of another seat (or the laptop) confirms what waits at the table (issue 45): one
    deal (``item``: "deal-4"), or everything it may (``item`` "all")."""
    if not TOKEN_SHAPE.match(token):
        abort(404)
    item = request.form.get("item", "all")
    done = service.confirm(get_db(), token, None if item == "all" else [item], who=who_here(token),
                           write_id=write_id())
    table = done.table
    if table is None:
        abort(status_of(done))
    if done.outcome is Outcome.REFUSED:
        return stale(table, done.errors[0].message)
    # SAME: nothing waits any more (a double tap, or another phone confirmed first): as confirmed.
    tell(table, "confirmed")
    return redirect(table_url(table) + "#sheet", code=303)


@bp.route("/t/<token>/deals/<int:number>/dispute", methods=["GET", "POST"])
def dispute(token: str, number: int):
    """"That's not right" (issue 45): GET, deal ``number``'s form filled as saved, to change
    into what this seat saw; POST, both versions go to the organiser, and the table's phones
    say the organiser settles it."""
    if request.method != "POST":  # GET, or HEAD (never a write)
        table = table_or_404(token)
        if not 1 <= number <= len(table.deals):
            return table_problem(table, gettext("This table has no deal %(number)s (any more).", number=number), 404)
        return render_edit(table, number, table.game.form_values(table.deals[number - 1]), {}, None,
                           service.fingerprint(table.deals[number - 1]), dispute=True)
    values = form_values()
    said = service.dispute(get_db(), token, number, values, who=who_here(token), write_id=write_id())
    table = said.table
    if table is None:
        abort(status_of(said))
    if said.outcome is Outcome.REFUSED:
        return render_edit(table, number, values, group_errors(list(said.errors)), None, "", status_of(said),
                           dispute=True)
    if said.outcome is Outcome.CONFLICT:
        return stale(table, said.message)
    tell(table, "disputed", said.number)
    return redirect(table_url(table) + "#confirm-box", code=303)


@bp.post("/t/<token>/confirming")
def confirming(token: str):
    """A side table's seat turns confirmation on (or off) before the first deal (issue 45)."""
    if not TOKEN_SHAPE.match(token):
        abort(404)
    done = service.set_confirming(get_db(), token, request.form.get("on") == "1", write_id=write_id(),
                                  gate=change_gate)
    table = done.table
    if table is None:
        abort(status_of(done))
    if done.outcome is Outcome.LOCKED:
        return locked(table, done.lock)
    if done.outcome is Outcome.REFUSED:
        return stale(table, done.errors[0].message)
    return redirect(table_url(table), code=303)


@bp.post("/t/<token>/finish")
def finish(token: str):
    if not TOKEN_SHAPE.match(token):
        abort(404)
    return finish_answer(service.finish_match(get_db(), token, request.form.get("finished", "1") == "1",
                                              write_id=write_id(), gate=change_gate))


def finish_answer(finished: service.Written):
    """The answer to a write that ends or reopens a match (Finish, Reopen, Accept the tie, an
    addition's end at time): the table's sheet, or why not beside the table as it is now."""
    table = finished.table
    if table is None:
        abort(status_of(finished))
    if finished.outcome is Outcome.LOCKED:  # reopening, or accepting a tie
        return locked(table, finished.lock)
    if finished.outcome is Outcome.REFUSED:  # a button, not a form: the table as it is now (409)
        return stale(table, finished.errors[0].message)
    return redirect(table_url(table) + "#sheet", code=303)  # saved now, or before (sent again)


@bp.post("/t/<token>/rematch")
def rematch(token: str):
    if not TOKEN_SHAPE.match(token):
        abort(404)
    table = table_or_404(token)
    if (lock := change_lock(table)) is not None and lock.late:  # not at this table: no rematch link
        return refused_change(table)
    # Exactly once: a phone pressing after another (or sending again) lands on the same new table.
    started = service.start_rematch(get_db(), token, write_id=write_id(), opened_from=phone_address())
    if started.table is None:
        abort(status_of(started))
    if started.outcome is Outcome.REFUSED:  # a button: the table as it is now (409)
        return stale(started.table, started.errors[0].message)
    return redirect(url_for("tables.show", token=started.rematch_token), code=303)


@bp.get("/t/<token>/log")
def log(token: str):
    table = table_or_404(token)
    return render_template("tables/log.html", table=table, game=table.game,
                           changes=service.changes(get_db(), table.id), match=table.match(), lock=change_lock(table),
                           fact_groups=partial(fact_groups, game=table.game), local_time=local_time)


# --------------------------------------------------------------------------
# Export


@bp.get("/t/<token>/export.csv")
def export_csv(token: str):
    table = table_or_404(token)
    _match, rows = export_rows(table)
    return csv_download(rows, [] if rows else [gettext("Deal")], download_name(table, "csv"))


@bp.get("/t/<token>/export.json")
def export_json(token: str):
    table = table_or_404(token)
    return json_download(table_document(table), download_name(table, "json"))


# --------------------------------------------------------------------------
# A prepared table (a meetup night's): the first phone gives its players


def seating(table: service.Table, n: int | None = None) -> dict:
    """The seating form of a prepared table. Until its first deal its number of players may
    change (a fifth player walks up to a table prepared for four): any count its game allows."""
    n = n or table.setup.n
    counts = sorted(set(table.game.players) | set(table.game.variant_players))
    return dict(game=table.game, n=n, counts=counts, table=table, label=table_label(table, 1),
                count_links={c: url_for("tables.seat", token=table.token, players=c) for c in counts},
                form_action=url_for("tables.seat_players", token=table.token), seating=True)


def asked_count(table: service.Table, raw: str | None) -> int:
    """The number of players asked for (the prepared count if none, or one the game doesn't allow)."""
    counts = set(table.game.players) | set(table.game.variant_players)
    asked = ascii_number((raw or "").strip(), 2)
    return asked if asked in counts else table.setup.n


@bp.get("/t/<token>/seat")
def seat(token: str):
    table = table_or_404(token)
    if table.seated:
        return redirect(url_for("tables.show", token=token), code=303)
    values = {opt.key: str(opt.default) for opt in table.game.options}
    return render_template("tables/new.html", values=values, errors={},
                           **seating(table, asked_count(table, request.args.get("players"))))


@bp.post("/t/<token>/players")
def seat_players(token: str):
    table = table_or_404(token)
    if table.seated:  # another phone was first: everyone lands on the same table
        return redirect(url_for("tables.show", token=token), code=303)
    values = form_values()
    n = asked_count(table, values.get("players"))
    names = [values.get(f"name-{s}", "") for s in range(n)]
    # Seated now, or by another phone first, or by this one before (sent again): everyone lands
    # on the same table.
    return answer(lambda: service.seat(get_db(), token, names, option_values(table.game, values), write_id=write_id()),
                  saved=lambda _seated: redirect(url_for("tables.show", token=token), code=303),
                  page=lambda errors, status: (render_template("tables/new.html", values=values, errors=errors,
                                                               **seating(table, n)), status),
                  field="table")


# --------------------------------------------------------------------------
# What other features add to a table's page (companion/tables/additions.py)


def addition_part(token: str, name: str):
    """One addition alone (the round clock), asked again by the page when its table moves."""
    addition = additions.named(name)
    if addition is None:
        abort(404)
    table = table_or_404(token)
    part = addition.read(get_db(), table)
    response = make_response(render_template(addition.template, table=table, part=part, fragment=True)
                             if part is not None else "")
    response.headers["Cache-Control"] = "no-store"
    return response


def addition_act(token: str, action: str):
    """An addition's table write (ending a round table's match at time)."""
    addition = additions.acting(action)
    if addition is None or addition.act is None:
        abort(404)
    table_or_404(token)
    return finish_answer(addition.act(get_db(), token, write_id()))


@bp.record_once
def addition_routes(state) -> None:
    """Each declared addition's own routes, once the app's features are imported (create_app
    imports every blueprint before registering any): GET /t/<token>/<name> and, with an
    action, POST /t/<token>/<action>. Named routes, not a catch-all: a GET of a POST-only
    route stays 405."""
    for addition in additions.ADDITIONS.values():
        state.add_url_rule(f"/t/<token>/{addition.name}", "addition_part", addition_part,
                           defaults={"name": addition.name}, methods=["GET"])
        if addition.action is not None:
            state.add_url_rule(f"/t/<token>/{addition.action}", "addition_act", addition_act,
                               defaults={"action": addition.action}, methods=["POST"])
