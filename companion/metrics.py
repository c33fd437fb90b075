"""What a club's monitor reads at /metrics (issue 46), in Prometheus' text format: requests by
route and status, how long a deal's save takes, the pushes delivered to phones, the event
streams open, and what was refused and why. Neutral ground (no Flask, no gevent): the serving
layer, the pages and the tables' views each count here, and companion/web/home.py shows it.

One scrape covers every process of `companion serve --workers N`: the parent makes a folder for
prometheus_client's multiprocess mode and hands it to each worker in ``PROMETHEUS_MULTIPROC_DIR``
(companion/cli.py); each worker writes its counts there, and whichever worker answers the
scrape sums them all (streams open: the live workers' alone, ``livesum``). Without the
variable (one process, the tests) the counts live in this process.

Every label has a bounded set of values: a route is the URL rule (``/t/<token>/live``), never
the path; a reason is one of :data:`REFUSALS`; a page is a table, the night or the season.
"""

from __future__ import annotations

import ipaddress
import os
import threading
from typing import Callable, Iterable

from prometheus_client import Counter, Gauge, Histogram

from .devices import device_of, is_organiser
from .tokens import TABLE_PATH
from .topics import NIGHT, SEASON

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus_client's own name for the shared folder

# Why a request (or a connection) was refused, as the serving layer names it when it says so in
# the terminal (companion/serving: the flood log's kinds) and as the store's refusals are named.
REFUSALS = (
    "connections",  # more connections at once than a device may hold (closed at accept)
    "connecting",  # refused lately, then connecting too fast (closed at accept)
    "full",  # the phones together hold every connection the server takes (closed at accept)
    "streams",  # more event streams than a device's share (429)
    "share",  # over its fair share of the app's turns (503)
    "waited",  # waited its time in line while the room was busy (503)
    "table",  # a table's turns all taken (503)
    "asks",  # more live asks than a phone makes (429)
    "links",  # guessing table links (429)
    "tables",  # opening tables too fast (429)
    "slow",  # headers or body sent too slowly (closed, 408)
    "large",  # a body larger than any form sends (413)
    "invalid",  # a request that can't be parsed (400)
    # the store could not save (503): companion/store/errors.py's classes
    "not_saved", "storage_full", "storage_replaced", "database_away", "database_busy", "storage_damaged",
    "database_error",
    "disk_full", "storage_other",
)
PAGES = ("table", "night", "season")  # what an event stream follows
EVENTS = ("changed", "gone")  # what a stream tells its page
METHODS = frozenset({"GET", "HEAD", "POST"})
ANY_OTHER_METHOD = "unlisted"  # PUT, DELETE, a made-up verb: one label, so no one can grow the set
UNMATCHED = "unmatched"  # a path no route answers (404s, 405s, a request that couldn't be read)
# A deal's save: a few milliseconds on SQLite, more on a busy PostgreSQL; seconds are trouble.
SAVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter("companion_requests", "Requests answered, by route (the URL rule), method and status",
                   ("route", "method", "status"))
SAVES = Histogram("companion_deal_save_seconds", "Time to save a deal (the service's write, start to end)",
                  buckets=SAVE_BUCKETS)
DELIVERIES = Counter("companion_deliveries", "Pushes written to a phone's event stream, by page and event",
                     ("page", "event"))
STREAMS = Gauge("companion_open_streams", "Event streams open now, by page (all workers)", ("page",),
                multiprocess_mode="livesum")
REFUSED = Counter("companion_refusals", "Requests and connections refused, by reason", ("reason",))

# Shown from the first scrape, at 0 (a rate needs its start; the multiprocess files hold only what
# was touched).
for _reason in REFUSALS:
    REFUSED.labels(_reason)
for _page in PAGES:
    STREAMS.labels(_page)
    for _event in EVENTS:
        DELIVERIES.labels(_page, _event)


def page_of(topic: str) -> str:
    """What a stream's topic is, as a label: the night's, the season's, or a table's."""
    return "night" if topic == NIGHT else "season" if topic == SEASON else "table"


def refused(reason: str) -> None:
    """One refusal of ``reason`` (one of :data:`REFUSALS`; another kind is not a refusal)."""
    if reason in REFUSALS:
        REFUSED.labels(reason).inc()


def stored_refusal(error: BaseException) -> str:
    """The reason a store's refusal is counted under: its class's name, in snake case."""
    name = type(error).__name__
    reason = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    return reason if reason in REFUSALS else "storage_other"


def save_timer():
    """Around a deal's save: its time goes into the histogram (a refused or failed save too)."""
    return SAVES.time()


def delivered(topic: str, event: str) -> None:
    DELIVERIES.labels(page_of(topic), event).inc()


def stream_opened(topic: str) -> None:
    STREAMS.labels(page_of(topic)).inc()


def stream_closed(topic: str) -> None:
    STREAMS.labels(page_of(topic)).dec()


def answered(route: str, method: str, status: str | int) -> None:
    """One answer sent: ``status`` as "200 OK" or 200."""
    code = str(status)[:3]
    REQUESTS.labels(route, method if method in METHODS else ANY_OTHER_METHOD, code).inc()


class Routes:
    """The URL rule a request's path answers to (the label), or :data:`UNMATCHED`. Remembered by
    the path's shape (its table token taken out), at most ``size`` shapes (then forgotten, all
    at once): a live ask costs a dict lookup, not a match."""

    def __init__(self, url_map, size: int = 4096):
        self.url_map = url_map
        self.size = size
        self.known: dict[tuple[str, str], str] = {}
        self.lock = threading.Lock()

    def of(self, method: str, path: str) -> str:
        shape = TABLE_PATH.sub("/t/<token>/", path, count=1)
        key = (method, shape)
        found = self.known.get(key)
        if found is None:
            found = self.match(method, path)
            with self.lock:
                if len(self.known) >= self.size:
                    self.known.clear()
                self.known[key] = found
        return found

    def match(self, method: str, path: str) -> str:
        from werkzeug.exceptions import HTTPException
        from werkzeug.routing import RequestRedirect

        try:
            rule, _args = self.url_map.bind("localhost").match(path, method=method, return_rule=True)
        except RequestRedirect:  # a trailing slash added or taken off: not the route itself
            return UNMATCHED
        except (HTTPException, ValueError, UnicodeError):
            return UNMATCHED
        return rule.rule


class CountedRequests:
    """WSGI layer, outside every other (companion/serving/__init__.py, ``install``): each answer,
    Flask's or a serving layer's (a 204, a stream, a 429), counted by route, method and status
    once it starts. The server's own refusals before the app (408, 413, 400) are counted by the
    server (companion/serving/server.py)."""

    def __init__(self, app: Callable, routes: Routes):
        self.app = app
        self.routes = routes

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "")
        counted = False

        def counting(status: str, headers, exc_info=None):
            nonlocal counted
            if not counted:
                counted = True
                answered(self.routes.of(method, environ.get("PATH_INFO", "")), method, status)
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        try:
            return self.app(environ, counting)
        except Exception:
            if not counted:  # the server answers 500
                answered(self.routes.of(method, environ.get("PATH_INFO", "")), method, 500)
            raise


def allowed_peers(addresses: Iterable[str]) -> tuple:
    """``--metrics-from`` as networks (an address is a network of one); ValueError if one isn't."""
    return tuple(ipaddress.ip_network(address.strip("[]"), strict=False) for address in addresses)


def may_read(environ: dict, join_host: Callable[[], str | None] | None, peers: tuple) -> bool:
    """The organiser, or a device from an address ``--metrics-from`` names, may read /metrics."""
    if is_organiser(environ, join_host):
        return True
    try:
        address = ipaddress.ip_address(device_of(environ).split("%", 1)[0])
    except ValueError:
        return False
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in peers)


def exposition() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type: every worker's counts where there are several."""
    from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest

    folder = os.environ.get(MULTIPROCESS_ENV)
    if not folder:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=folder)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def worker_gone(pid: int, folder: str) -> None:
    """A worker ended (for the parent of ``--workers``, which holds the ``folder``): its open
    streams are no longer open; its counts stay in the totals."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid, folder)
