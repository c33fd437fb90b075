"""The serving layer: what stands between the network and the Flask app.

- :mod:`.server`: gevent's WSGI server behind `companion serve`, hardened for a venue
  (connections per device, slow senders, large bodies, a log one device can't flood).
- WSGI layers in front of Flask, outermost first (:func:`install` wires them):

  0. :class:`companion.metrics.CountedRequests`: every answer counted by route and status;
  1. :mod:`.guard`: a device trying table links at random is cut off (429);
  2. :mod:`.events`: every live page's one event stream (push), held open outside Flask: a
     table's, the night's pages' (the screen for the room, the hall's board, a phone's night
     page) and the season's (the players' table, a player's page), all alike;
  3. :mod:`.live`: "has my table changed?" answered 204 without Flask when it hasn't, and a
     changed table's partial, rendered once by Flask, sent to the table's other phones as bytes;
  4. :mod:`.fair`: the app's work in turns, round-robin by device, so one device can't slow
     the room (what the layers above answer from memory costs no turn);
  5. :mod:`.turns`: a few requests per table at a time, so one heavy table can't starve the rest.

- :mod:`.pages`: the answers these layers give without Flask (busy, gone, too many wrong
  links, too large), rendered from templates and translated through the catalog.

Every layer finds the table a request is about with :func:`table_token` (parsed once per
request, kept in the environ), and learns what a page shows is at (a table's revision, the
night's signature, the season's version) from :class:`.events.Watch`: kept in memory from the
writes' own announcements (companion/changes.py) for everything a page watches, asked of the
store (companion/store/revisions.py) for the rest; none runs SQL itself.
"""

from __future__ import annotations

from typing import Callable

from ..devices import device_of
from ..metrics import refused
from ..numbers import ascii_number
from ..tokens import TABLE_PATH  # noqa: F401  (the one shape of a table's link, shared with the web layer)

_KEY = "companion.table_token"
_ROUTE_KEY = "companion.table_route"
_QUERY_KEY = "companion.query"
FLOOD_KEY = "companion.flood"  # the server's FloodLog (companion/serving/server.py), if it has one
SOCKET_KEY = "companion.fileno"  # the connection's file descriptor (companion/serving/server.py), if known
CLOSE_KEY = "companion.close"  # set by a layer: the server closes the connection once this answer is sent

def client_trouble(environ: dict, kind: str, message: str) -> None:
    """Say that this request's device did something refused, once a minute per kind and device
    (through the server's flood log; nothing under a server without one, e.g. in tests), and
    count it (/metrics: companion/metrics.py)."""
    refused(kind)
    flood = environ.get(FLOOD_KEY)
    if flood is not None:
        flood(kind, device_of(environ), message)


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
    try:
        return environ[_ROUTE_KEY]
    except KeyError:
        pass
    token = table_token(environ)
    route = environ[_ROUTE_KEY] = None if token is None else environ.get("PATH_INFO", "")[4 + len(token):]
    return route


def query(environ: dict) -> dict[str, str]:
    """The query string's parameters, the first value of each as Flask's ``request.args.get``
    takes it (plain ``name=value`` pairs; a percent-escaped one is left to Flask). Parsed once."""
    try:
        return environ[_QUERY_KEY]
    except KeyError:
        pass
    found: dict[str, str] = {}
    for part in environ.get("QUERY_STRING", "").split("&"):
        name, _, value = part.partition("=")
        if name and name not in found:
            found[name] = value
    environ[_QUERY_KEY] = found
    return found


def number(value: str | None) -> int | None:
    """A plain decimal number from the query string (ASCII digits only), or None."""
    return ascii_number(value, 12)


def query_revision(environ: dict) -> int | None:
    """The ``rev=R`` in the query string (the revision the phone shows), or None."""
    return number(query(environ).get("rev"))


def install(app, headers: list[tuple[str, str]], join_host: Callable[[], str | None]) -> None:
    """Wrap ``app.wsgi_app`` in the serving layers (see the module's docstring for the order).
    ``headers``: the security headers every answer carries, Flask's or not."""
    from .events import HEARTBEAT_S, EventStreams, Watch
    from .fair import FairShare
    from .guard import LinkGuessGuard
    from .limits import device_limits
    from .live import LiveAnswers, SharedPartials
    from .pages import Pages
    from .turns import TableTurns
    from ..metrics import CountedRequests, Routes
    from ..store.revisions import Revisions

    database = lambda: app.config["DATABASE"]  # noqa: E731  (read per call: tests repoint it)
    pages = app.extensions["serving_pages"] = Pages(app)
    # What the open pages show (tables, the night, the season), at the versions the writes
    # announce (companion/changes.py), for streams and 204s.
    watch = app.extensions["watch"] = Watch(Revisions(database))
    partials = app.extensions["shared_partials"] = SharedPartials()
    # A few requests per table at a time (one heavy table can't starve the rest).
    app.wsgi_app = app.extensions["table_turns"] = TableTurns(app.wsgi_app, headers, pages)
    # The app's work in turns, round-robin by device (one device can't slow the room).
    app.wsgi_app = app.extensions["fair_share"] = FairShare(app.wsgi_app, headers, pages, join_host=join_host)
    # What is known without Flask: "unchanged" (204), and a partial already rendered for the table.
    app.wsgi_app = app.extensions["live_answers"] = LiveAnswers(app.wsgi_app, watch, partials, headers, pages,
                                                                limits=device_limits(app),
                                                                join_host=join_host)
    # Every live page's event stream (push): a table's, the night's pages', the season's;
    # held open outside Flask and the turns.
    # STREAM_HEARTBEAT_S: the tests' servers say it four times a second, so a stream whose page has gone is
    # noticed at once (waitress, unlike `companion serve`, can't be asked whether a phone went away).
    app.wsgi_app = app.extensions["event_streams"] = EventStreams(
        app.wsgi_app, watch, headers, pages, join_host=join_host,
        heartbeat=app.config.get("STREAM_HEARTBEAT_S", HEARTBEAT_S))
    app.wsgi_app = app.extensions["link_guard"] = LinkGuessGuard(app.wsgi_app, headers, pages,
                                                                 join_host=join_host, limits=device_limits(app))
    # Every answer above counted by route and status (/metrics: companion/metrics.py).
    routes = app.extensions["metric_routes"] = Routes(app.url_map)
    app.wsgi_app = CountedRequests(app.wsgi_app, routes)
