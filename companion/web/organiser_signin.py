"""The organiser behind a reverse proxy (issue 46): signed in with a passcode, not by address.

Through a trusted proxy (``serve --trusted-proxy``) every request arrives from the proxy's
address, with any Host the phone chose, so neither says who the organiser is
(companion/devices.py). There the organiser types the passcode `companion serve` printed at
start (or read from ``--organiser-passcode-file``) on the sign-in page; the browser then holds a
signed cookie, good until the next "Start a new night" or :data:`SIGN_IN_HOURS` hours, whichever
comes first. The cookie is signed with the app's SECRET_KEY (a PostgreSQL database's shared
secret, the same in every worker and on every laptop), and names the night it was given in: no
table of sessions, no schema.

Organiser pages asked for through the proxy without it answer with the sign-in form
(:func:`organiser_only`), not a bare 403; a phone without the passcode still gets no /hall.
"""

from __future__ import annotations

import hmac
import secrets
import time
from typing import Callable
from urllib.parse import urlsplit

from flask import Blueprint, Flask, current_app, redirect, render_template, request
from flask_babel import gettext, ngettext
from itsdangerous import BadSignature, URLSafeSerializer
from werkzeug.http import parse_cookie

from ..devices import Devices, device_of, trusted_addresses, via_proxy

bp = Blueprint("organiser", __name__)

COOKIE = "companion_organiser"
SIGN_IN_HOURS = 12
_SALT = "companion.organiser-sign-in"
PASSCODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read off a terminal and typed
PASSCODE_GROUPS, PASSCODE_GROUP = 3, 4  # "k7m2-x9qp-4hrt": ~59 bits


def new_passcode() -> str:
    """A passcode for this start of the server, printed for the organiser."""
    return "-".join("".join(secrets.choice(PASSCODE_ALPHABET) for _ in range(PASSCODE_GROUP))
                    for _ in range(PASSCODE_GROUPS))


def _plain(passcode: str) -> str:
    """A passcode as compared: case, spaces and hyphens don't matter (typed on a phone)."""
    return "".join(passcode.lower().split()).replace("-", "")


def passcode_matches(typed: str, passcode: str) -> bool:
    return bool(passcode) and hmac.compare_digest(_plain(typed).encode(), _plain(passcode).encode())


def _serializer(app: Flask) -> URLSafeSerializer:
    return URLSafeSerializer(app.config["SECRET_KEY"], salt=_SALT)


def _clock(app: Flask) -> float:
    """Seconds since the epoch (ORGANISER_CLOCK: a test's clock, to reach the 12 h without waiting)."""
    return app.config.get("ORGANISER_CLOCK", time.time)()


def _current_night(app: Flask) -> int:
    from ..store import nights as night_rows  # the store's, not the night package's: it imports this one
    from ..store.connection import pool

    with pool.lend(app.config["DATABASE"]) as conn:
        return night_rows.current_night(conn)


def sign_in_cookie(app: Flask, night: int, at: float) -> str:
    """The cookie's value for a sign-in at ``at`` (epoch seconds) during ``night``."""
    return _serializer(app).dumps({"night": night, "at": int(at)})


def cookie_holds(app: Flask, value: str | None) -> bool:
    """Is ``value`` a sign-in cookie of this app, given less than 12 h ago, in tonight's night?"""
    if not value:
        return False
    try:
        found = _serializer(app).loads(value)
        at, night = int(found["at"]), int(found["night"])
    except (BadSignature, KeyError, TypeError, ValueError):
        return False
    if not 0 <= _clock(app) - at < SIGN_IN_HOURS * 3600:
        return False
    return night == _current_night(app)  # read only for a cookie that verified: the organiser's


def signed_in_check(app: Flask) -> Callable[[dict], bool]:
    """environ -> does it carry a sign-in that holds (companion/devices.py asks it once a request)."""

    def signed_in(environ: dict) -> bool:
        return cookie_holds(app, parse_cookie(environ.get("HTTP_COOKIE", "")).get(COOKIE))

    return signed_in


def install(app: Flask, tries: Callable[[str, str], float]) -> None:
    """The sign-in's pages, and companion/devices.py's layer outermost (every layer in front of
    Flask asks it who the device is): the trusted proxies come from TRUSTED_PROXIES. ``tries``:
    the serving layer's one map of what a device may do (companion/serving/limits.py), handed in
    by the app so this package never imports the serving layer, which imports it."""
    app.extensions["sign_in_tries"] = tries
    app.register_blueprint(bp)
    trusted = trusted_addresses(app.config.get("TRUSTED_PROXIES") or ())
    app.wsgi_app = app.extensions["devices"] = Devices(app.wsgi_app, trusted, signed_in_check(app))


def _next_path(raw: str | None) -> str:
    """Where to go after signing in: a path of this site only (never another site's address)."""
    parts = urlsplit(raw or "")
    if (not raw or parts.scheme or parts.netloc or not raw.startswith("/") or raw.startswith("//") or "\\" in raw
            or any(c.isspace() or ord(c) < 32 for c in raw)):  # browsers drop tabs: "/\t/x" is "//x"
        return "/hall"
    return raw


def sign_in_page(next_path: str | None, errors: dict | None = None, status: int = 200, typed: str = ""):
    return render_template("organiser/sign_in.html", next_path=_next_path(next_path), errors=errors or {},
                           typed=typed), status


@bp.route("/organiser/sign-in", methods=("GET", "POST"))
def sign_in():
    """The sign-in form (GET), and the passcode typed in it (POST)."""
    form = request.form if request.method == "POST" else request.args
    next_path, typed = form.get("next"), form.get("passcode", "")
    if not via_proxy(request.environ):  # the laptop itself needs none: its own browser is the organiser's
        return redirect(_next_path(next_path), code=303)
    if request.method == "GET":
        return sign_in_page(next_path)
    wait = current_app.extensions["sign_in_tries"](device_of(request.environ), "sign_in")
    if wait:
        message = ngettext("Too many tries from this device: try again in %(num)d second.",
                           "Too many tries from this device: try again in %(num)d seconds.", wait)
        page, status = sign_in_page(next_path, {"passcode": [message]}, 429, typed)
        return page, status, {"Retry-After": str(wait)}
    if not passcode_matches(typed, current_app.config.get("ORGANISER_PASSCODE") or ""):
        return sign_in_page(next_path, {"passcode": [gettext(
            "That is not the passcode. It was printed where the server was started (or is in its passcode file).")]},
            403, typed)
    response = redirect(_next_path(next_path), code=303)
    secure = (current_app.config.get("PUBLIC_URL") or "").startswith("https://")
    response.set_cookie(COOKIE, sign_in_cookie(current_app, _current_night(current_app), _clock(current_app)),
                        max_age=SIGN_IN_HOURS * 3600, httponly=True, samesite="Lax", secure=secure)
    return response
