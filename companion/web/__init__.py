"""What every page shares: rendering (the |t, |bdi, |names_of filters), security headers, CSRF,
sessions, compression, error pages; the shared helpers beside it (language, host, forms,
downloads, refusals, times, static). Each feature's blueprint lives with the feature
(companion/tables, companion/night, companion/players); the app factory registers them."""

from __future__ import annotations

import copy as _copy
import gzip

from flask import Flask, Response, current_app, g, render_template, request
from jinja2 import pass_context
from markupsafe import Markup
from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import IntegerConverter, RequestRedirect
from flask_babel import Babel, get_locale, get_translations, gettext
from flask_wtf.csrf import CSRFError, CSRFProtect, generate_csrf

from ..games import GAMES
from ..store import BackendError, StorageError, translate
from ..lru import BytesLRU
from ..games.cards import RANK_NAMES, SUIT_NAMES, SUIT_SYMBOLS
from ..games.text import NameList, Text, join_names
from . import static
from .language import LANGUAGES, remember_language, select_locale
from .live import live_part_url, live_stream_url
from .refusals import asked_again, kept_by_the_outbox, storage_message

csrf = CSRFProtect()

# A LAN app with no third parties: everything comes from this server, and no
# inline script may run, so a name like <script> can never execute.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")


# Sent on every response, the live fast path's included.
FIXED_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # table links carry their secret token: never leak it
    "X-Frame-Options": "DENY",
}


def render_text(value) -> str:
    """Template filter: translate rules-engine Text (or pass plain strings through)."""
    if isinstance(value, Text):
        return value.render(gettext, lambda one, many, n: get_translations().ungettext(one, many, n))
    return "" if value is None else str(value)


def _isolated(text: Text, names: frozenset[str]) -> Text:
    """A copy of ``text`` whose parameters that are ``names`` are isolated (<bdi>)."""
    copy = _copy.copy(text)

    def one(value):
        if isinstance(value, Text):
            return _isolated(value, names)
        return bdi(value) if isinstance(value, str) and value in names else value

    if isinstance(text, NameList):
        copy.names = tuple(one(n) for n in text.names)
    copy.params = {k: one(v) for k, v in text.params.items()}
    return copy


@pass_context
def html_text(context, value) -> Markup | str:
    """Template filter |t: translate rules-engine Text for a page. On a table's pages each
    player or team name in the sentence is isolated (<bdi>), so a right-to-left name can't
    reorder the words around it; the sentence itself is escaped."""
    if not isinstance(value, Text):
        return "" if value is None else str(value)
    table, match = context.get("table"), context.get("match")
    names = frozenset(getattr(getattr(table, "setup", None), "players", ()) or ()) | \
        frozenset(getattr(match, "entrants", ()) or ())
    if not names:
        return render_text(value)
    return Markup(_isolated(value, names).render(
        lambda message: Markup.escape(gettext(message)),
        lambda one, many, n: Markup.escape(get_translations().ungettext(one, many, n))))


def bdi(name) -> Markup:
    """Template filter: a name isolated (<bdi>), so right-to-left letters in it can't reorder
    the words and numbers around it."""
    return Markup("<bdi>%s</bdi>") % name


def names_of(indexes, names) -> Markup:
    """Template filter: the names at ``indexes``, joined the reader's way (「、」 in Japanese),
    each isolated."""
    return Markup(render_text(join_names([str(bdi(names[i])) for i in indexes])))


def page_here() -> str:
    """This page's address for a GET (the language switch returns there). A page answering a
    form post (a refusal, shown in place) lives at the nearest address above it a GET opens:
    /hall/join-table → /hall, /t/<token>/deals/1 → /t/<token>; the post's own address would
    answer "not meant to be opened like that"."""
    if request.method in ("GET", "HEAD"):
        return request.full_path.rstrip("?")
    adapter = current_app.url_map.bind_to_environ(request.environ)
    path = request.path.rstrip("/")
    while path:
        try:
            adapter.match(path, method="GET")
            return path
        except (NotFound, MethodNotAllowed, RequestRedirect):
            path = path.rsplit("/", 1)[0]
    return "/"


def game_name(game) -> str:
    return game.name_ja if str(get_locale()) == "ja" else game.name_en


# Pages that show a table (its secret link, names, scores), exports included: never kept by
# a browser or proxy cache, so a shared phone's back button or history can't show them later.
PRIVATE_BLUEPRINTS = ("tables", "hall", "players")


def secure_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.update(FIXED_HEADERS)
    response.headers.setdefault("Vary", "Accept-Language, Cookie")
    if request.blueprint in PRIVATE_BLUEPRINTS or request.path.startswith("/t/") or request.path == "/":
        response.headers["Cache-Control"] = "no-store"
    return response


# Static files compressed once each (htmx alone is 37 KB raw). Keyed by the file itself and
# its version, never by the URL: /static/x1/../app.css and /static/app.css are one entry.
_STATIC_GZ = BytesLRU(8 * 1024 * 1024)


def compress(response: Response) -> Response:
    """gzip text responses for phones on slow Wi-Fi (waitress does not compress)."""
    if (response.status_code < 200 or response.status_code >= 300
            or "gzip" not in request.headers.get("Accept-Encoding", "")
            or "Content-Encoding" in response.headers
            or not (response.mimetype.startswith("text/") or response.mimetype in
                    ("application/javascript", "text/javascript", "application/json", "image/svg+xml"))):
        return response
    if response.direct_passthrough:
        # Flask streams static files; ours are small, so read, compress once and remember.
        if request.endpoint != "static" or response.status_code != 200:  # never a 206 range
            return response
        key = static.request_version_key()
        if key is None:
            return response
        # The length sent is part of the key: a minified file's (web/static.py) or the file's own
        # (a file changed while being sent then differs from its new stat, and is not reused).
        key = key + (response.content_length,)
        packed = _STATIC_GZ.get(key)
        response.direct_passthrough = False
        if packed is None:
            packed = gzip.compress(response.get_data(), compresslevel=9)
            _STATIC_GZ.put(key, packed)
        else:
            response.close()  # the file Flask opened for streaming
        response.set_data(packed)
    else:
        body = response.get_data()
        if len(body) < 600:
            return response
        response.set_data(gzip.compress(body, compresslevel=6))
    response.headers["Content-Encoding"] = "gzip"
    response.headers["Content-Length"] = str(len(response.get_data()))
    vary = response.headers.get("Vary", "")
    if "Accept-Encoding" not in vary:
        response.headers["Vary"] = (vary + ", " if vary else "") + "Accept-Encoding"
    return response


def page_csrf_token() -> str:
    """``csrf_token()`` in templates, macros included: this phone's token, or in a rendering
    shared by phones ``g.csrf_stand_in``: "" for a table's live partial (its forms use the page's
    token, see companion/tables/views.py, live), a placeholder for a full page (each phone's copy
    gets its own token spliced in, see show)."""
    stand_in = g.get("csrf_stand_in")
    return generate_csrf() if stand_in is None else stand_in


class DealNumber(IntegerConverter):
    """<int:...> in our URLs: at most 6 digits, so an absurd number is a plain 404
    (werkzeug's own converter calls int() first, which refuses over 4,300 digits)."""

    regex = r"\d{1,6}"


def init_app(app: Flask) -> None:
    app.url_map.converters["int"] = DealNumber
    if app.config.get("SESSION_COOKIE_SAMESITE") is None:
        # The CSRF token's cookie: never sent along with a form posted from another site.
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    Babel(app, locale_selector=select_locale)
    # Sessions (and the CSRF token kept in them) outlive the laptop's clock jumping (issue 23).
    from .sessions import ClockFreeSessions
    app.session_interface = ClockFreeSessions()
    csrf.init_app(app)
    # Flask-WTF's generate_csrf, unless shared: as a global (macros) and in every page's context.
    app.jinja_env.globals["csrf_token"] = page_csrf_token
    app.context_processor(lambda: {"csrf_token": page_csrf_token})
    app.jinja_env.filters["t"] = html_text
    app.jinja_env.filters["names_of"] = names_of
    # Plain text (a <title>): names joined the reader's way, no markup.
    app.jinja_env.filters["name_list"] = lambda names: render_text(join_names(list(names)))
    app.jinja_env.filters["bdi"] = bdi
    app.jinja_env.globals.update(RANK_NAMES=RANK_NAMES, SUIT_NAMES=SUIT_NAMES, SUIT_SYMBOLS=SUIT_SYMBOLS)
    app.jinja_env.globals.update(GAMES=GAMES, game_name=game_name, LANGUAGES=LANGUAGES,
                                 get_locale=get_locale)
    from ..names import look_alike  # two names at a table that look alike across alphabets (issue 23)
    app.jinja_env.globals.update(look_alike=look_alike, page_here=page_here, live_stream_url=live_stream_url,
                                 live_part_url=live_part_url)
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.policies["ext.i18n.trimmed"] = True

    static.init_app(app)  # our scripts and style sheets minified, every page's scripts as one
    app.after_request(secure_headers)
    app.after_request(remember_language)
    app.after_request(compress)

    @app.errorhandler(CSRFError)
    def csrf_refused(error: CSRFError):
        message = gettext("This form is out of date (security check failed). Reload the page and try again.")
        return render_template("error.html", message=message), 400

    @app.errorhandler(404)
    def not_found(_error):
        return render_template("error.html", message=gettext("There is nothing here. Check the link or scan the table's QR code again.")), 404

    @app.errorhandler(405)
    def wrong_method(_error):
        return render_template("error.html", message=gettext("This address is not meant to be opened like that. Go back and use the page's buttons.")), 405

    @app.errorhandler(413)
    def too_large(_error):
        return render_template("error.html", message=gettext("That was far more data than any form here sends.")), 413

    @app.errorhandler(BackendError)
    def backend_error(error):
        # A backend error that left the store untranslated (a bug): still the clear refusal.
        return not_saved(translate(error))

    @app.errorhandler(StorageError)
    def not_saved(error: StorageError):
        # Disk full, read-only or locked, the file replaced, or damaged while running: say so
        # plainly (nothing half-done was stored) and give back what was typed, ready to send again.
        # storage_message says it in the terminal too.
        try:
            again = asked_again(error)  # issue 46: a lost connection costs a reconnect, not the request
        except StorageError as second:
            again, error = None, second
        if again is not None:
            return again
        message = storage_message(error, kept=kept_by_the_outbox())
        # Issue 46: the page's own frame, and a time to ask again. A table page's htmx request
        # (a save the outbox keeps, a live part) gets no whole page to swap into it: the outbox
        # shows the write waiting and sends it again by itself.
        headers = {"Retry-After": "5"}
        if request.headers.get("HX-Request"):
            return message, 503, {**headers, "HX-Reswap": "none", "Content-Type": "text/plain; charset=utf-8"}
        typed = {k: v for k, v in request.form.items(multi=False) if k != "csrf_token"} \
            if request.method == "POST" else {}
        return render_template("not_saved.html", message=message, typed=typed, action=request.path), 503, headers

    @app.errorhandler(500)
    def server_error(_error):
        return render_template("error.html", message=gettext("Something went wrong on the host laptop. Nothing you entered before was lost; try again.")), 500
