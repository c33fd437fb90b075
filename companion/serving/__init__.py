"""The serving layer: what stands between the network and the Flask app.

- :mod:`.server`: gevent's WSGI server behind `companion serve`, hardened for a venue
  (connections per device, slow senders, large bodies, a log one device can't flood).
- WSGI layers in front of Flask, outermost first (:func:`install` wires them):

  1. :mod:`.guard`: a device trying table links at random is cut off (429);
  2. :mod:`.events`: each table page's event stream (push), held open outside Flask;
  3. :mod:`.live`: "has my table changed?" answered 204 without Flask when it hasn't;
  4. :mod:`.turns`: a few requests per table at a time, so one heavy table can't starve the rest;

  and around them all :mod:`.fair`: the app's work in turns, round-robin by device, so one
  device can't slow the room.

- :mod:`.pages`: the answers these layers give without Flask (busy, gone, too many wrong
  links, too large), rendered from templates and translated through the catalog.

Every layer finds the table a request is about with :func:`table_token`, and asks the store
for revisions (companion/store/revisions.py); none runs SQL itself.
"""

from __future__ import annotations

import re
from typing import Callable

from ..numbers import ascii_number

# /t/<token> and /t/<token>/<anything>: a table's link (secrets.token_urlsafe(16) is 22 chars)
TABLE_PATH = re.compile(r"/t/([A-Za-z0-9_-]{16,64})(?:/|$)")
_KEY = "companion.table_token"
FLOOD_KEY = "companion.flood"  # the server's FloodLog (companion/serving/server.py), if it has one


def client_trouble(environ: dict, kind: str, message: str) -> None:
    """Say that this request's device did something refused, once a minute per kind and device
    (through the server's flood log; nothing under a server without one, e.g. in tests)."""
    flood = environ.get(FLOOD_KEY)
    if flood is not None:
        flood(kind, environ.get("REMOTE_ADDR", ""), message)


def table_token(environ: dict) -> str | None:
    """The table a request is about (the token in /t/<token>/…), or None. Parsed once per
    request and remembered in the environ, for the other layers."""
    try:
        return environ[_KEY]
    except KeyError:
        pass
    match = TABLE_PATH.match(environ.get("PATH_INFO", ""))
    token = environ[_KEY] = match.group(1) if match else None
    return token


def table_route(environ: dict) -> str | None:
    """What under the table is asked for: "" for the table's page, "live", "events",
    "deals/3/edit"… (the path after the token); None if the request is not about a table."""
    token = table_token(environ)
    if token is None:
        return None
    rest = environ.get("PATH_INFO", "")[3 + len(token):]
    return rest[1:]


def query_revision(environ: dict) -> int | None:
    """The ``rev=R`` in the query string (the revision the phone shows), or None."""
    for part in environ.get("QUERY_STRING", "").split("&"):
        if part.startswith("rev="):
            value = part[4:]
            return ascii_number(value, 12)
    return None


def install(app, headers: list[tuple[str, str]], join_host: Callable[[], str | None]) -> None:
    """Wrap ``app.wsgi_app`` in the serving layers (see the module's docstring for the order).
    ``headers``: the security headers every answer carries, Flask's or not."""
    from .events import TableEvents
    from .fair import FairShare
    from .guard import LinkGuessGuard
    from .live import UnchangedShortcut
    from .pages import Pages
    from .turns import TableTurns

    database = lambda: app.config["DATABASE"]  # noqa: E731  (read per call: tests repoint it)
    pages = app.extensions["serving_pages"] = Pages(app)
    # A few requests per table at a time (one heavy table can't starve the rest); the cheap
    # "unchanged" live answer in front of it is never held up.
    app.wsgi_app = app.extensions["table_turns"] = TableTurns(app.wsgi_app, headers, pages)
    app.wsgi_app = UnchangedShortcut(app.wsgi_app, database, headers, pages)
    # Each table page's event stream (push): held open outside Flask and the table turns.
    app.wsgi_app = app.extensions["table_events"] = TableEvents(app.wsgi_app, database, headers, pages)
    app.wsgi_app = app.extensions["link_guard"] = LinkGuessGuard(app.wsgi_app, headers, pages,
                                                                 join_host=join_host)
    # Outermost: the app's work in turns, round-robin by device (one device can't slow the room).
    app.wsgi_app = app.extensions["fair_share"] = FairShare(app.wsgi_app, headers, pages)
