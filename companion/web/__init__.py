"""The thin web layer: blueprints gather input, call the rules, render templates."""

from __future__ import annotations

import gzip
import sqlite3

from flask import Flask, Response, render_template, request
from werkzeug.routing import IntegerConverter
from flask_babel import Babel, get_locale, gettext
from flask_wtf.csrf import CSRFError, CSRFProtect

from ..games import GAMES
from ..games.cards import RANK_NAMES, SUIT_NAMES, SUIT_SYMBOLS
from ..games.text import Text

LANGUAGES = ("en", "ja")
LANG_COOKIE = "lang"

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


def select_locale() -> str:
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default="en")


def render_text(value) -> str:
    """Template filter: translate rules-engine Text (or pass plain strings through)."""
    if isinstance(value, Text):
        return value.render(gettext)
    return "" if value is None else str(value)


def game_name(game) -> str:
    return game.name_ja if str(get_locale()) == "ja" else game.name_en


def secure_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.update(FIXED_HEADERS)
    response.headers.setdefault("Vary", "Accept-Language, Cookie")
    return response


_STATIC_GZ: dict[tuple, bytes] = {}  # static files compressed once each (htmx alone is 37 KB raw)


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
        key = (request.path, response.headers.get("ETag"), response.content_length)
        packed = _STATIC_GZ.get(key)
        response.direct_passthrough = False
        if packed is None:
            packed = _STATIC_GZ[key] = gzip.compress(response.get_data(), compresslevel=9)
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


class DealNumber(IntegerConverter):
    """<int:...> in our URLs: at most 6 digits, so an absurd number is a plain 404
    (werkzeug's own converter calls int() first, which refuses over 4,300 digits)."""

    regex = r"\d{1,6}"


def init_app(app: Flask) -> None:
    app.url_map.converters["int"] = DealNumber
    Babel(app, locale_selector=select_locale)
    csrf.init_app(app)
    app.jinja_env.filters["t"] = render_text
    app.jinja_env.filters["names_of"] = lambda indexes, names: ", ".join(names[i] for i in indexes)
    app.jinja_env.globals.update(RANK_NAMES=RANK_NAMES, SUIT_NAMES=SUIT_NAMES, SUIT_SYMBOLS=SUIT_SYMBOLS)
    app.jinja_env.globals.update(GAMES=GAMES, game_name=game_name, LANGUAGES=LANGUAGES,
                                 get_locale=get_locale)
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.policies["ext.i18n.trimmed"] = True

    from . import games, home, tables
    app.register_blueprint(home.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(tables.bp)

    app.after_request(secure_headers)
    app.after_request(compress)

    from .live import UnchangedShortcut
    from .guard import LinkGuessGuard
    # Answers made outside Flask carry the same security headers as Flask's.
    headers = [("Content-Security-Policy", CSP)] + list(FIXED_HEADERS.items())
    app.wsgi_app = UnchangedShortcut(app.wsgi_app, lambda: app.config["DATABASE"], headers)
    app.wsgi_app = app.extensions["link_guard"] = LinkGuessGuard(app.wsgi_app, headers)

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

    @app.errorhandler(sqlite3.OperationalError)
    def not_saved(_error):
        # Disk full, read-only or locked: say so plainly; nothing half-done was stored.
        from .tables import not_saved_message
        return render_template("error.html", message=not_saved_message()), 503

    @app.errorhandler(500)
    def server_error(_error):
        return render_template("error.html", message=gettext("Something went wrong on the host laptop. Nothing you entered before was lost; try again.")), 500
