"""The live answers every phone at a table asks for, given without Flask where they are known:

- "has my table changed?" (GET /t/<token>/live?rev=R, a phone's fallback check): 204 when it
  hasn't, the revision known in memory for a watched table (companion/serving/events.py);
- its changed partial (the same URL once its stream said "changed"): rendered once per table,
  revision, language and form by the Flask view (companion/tables/views.py, ``live``), which files
  it here as the bytes sent, gzipped once; the other phones of the table get those bytes. The
  partial carries no CSRF token (its forms use the page's, see templates/tables/show.html), so
  the bytes are the same for every phone.

Everything else, and a partial not rendered yet, goes to Flask as usual. This is the only
place that answers 204 for an unchanged table (the Flask view renders).
"""

from __future__ import annotations

import gzip
import random
import threading
import time
from typing import Callable, Iterable

from ..lru import BytesLRU
from ..store import StorageError
from ..devices import device_of, is_organiser
from . import CLOSE_KEY, SOCKET_KEY, client_trouble, number, query, query_revision, table_route, table_token
from ..topics import is_current
from .events import Watch
from .limits import DeviceLimits
from .pages import Pages, environ_language

MIN_GZIP = 600  # as companion.web.compress: smaller answers gain nothing from it
RENDER_WAIT_S = 5.0  # a phone waits this long for the partial another phone's request renders

ASKS_RETRY_S = 2  # Retry-After of a refused ask (its rate: companion/serving/limits.py, "asks")


class SharedPartials:
    """Rendered live partials by :func:`partial_key`: (plain bytes, gzipped bytes or None)."""

    def __init__(self, max_bytes: int = 16 * 1024 * 1024):
        self.cache = BytesLRU(max_bytes, size=lambda value: len(value[0]) + len(value[1] or b""))
        self.served = 0  # answered here without Flask, for tests and benchmarks
        self.lock = threading.Lock()
        self.rendering: dict[tuple, threading.Event] = {}  # key -> set once Flask has answered it

    def put(self, key: tuple, body: bytes) -> tuple[bytes, bytes | None]:
        """File ``body`` under ``key``, compressed once; returns what is kept."""
        value = (body, gzip.compress(body, compresslevel=6) if len(body) >= MIN_GZIP else None)
        self.cache.put(key, value)
        return value

    def get(self, key: tuple) -> tuple[bytes, bytes | None] | None:
        return self.cache.get(key)

    def first(self, key: tuple) -> threading.Event | None:
        """Is this the first ask for ``key``? Then the Event to set once Flask has answered it
        (:meth:`done`); None: another request is rendering it (wait on ``rendering[key]``)."""
        with self.lock:
            if key in self.rendering:
                return None
            rendered = self.rendering[key] = threading.Event()
            return rendered

    def done(self, key: tuple, rendered: threading.Event) -> None:
        with self.lock:
            self.rendering.pop(key, None)
        rendered.set()

    def wait(self, key: tuple, timeout: float) -> tuple[bytes, bytes | None] | None:
        """The partial another request is rendering for ``key``, once filed (None: not filed)."""
        rendering = self.rendering.get(key)
        if rendering is not None:
            rendering.wait(timeout)
        return self.cache.get(key)


def partial_key(token: str, revision: int, lang: str, view: str, form: int | None, show_all: bool) -> tuple:
    """What a live partial depends on (the Flask view and this layer build it alike)."""
    return (token, revision, lang, view, form, show_all)


def request_key(environ: dict, token: str, revision: int) -> tuple | None:
    """The partial this request asks for, or None where only Flask can tell for sure (a
    percent-escaped query, a ``?lang=`` that also sets the language cookie, an odd number)."""
    raw = environ.get("QUERY_STRING", "")
    if "%" in raw or "+" in raw:
        return None
    asked = query(environ)
    if "lang" in asked:
        return None
    form = asked.get("form")
    if form is not None and number(form) is None:
        return None
    return partial_key(token, revision, environ_language(environ), "host" if asked.get("view") == "host" else "sheet",
                       number(form), asked.get("all") == "1")


class LiveAnswers:
    def __init__(self, app: Callable, watch: Watch, partials: SharedPartials,
                 headers: list[tuple[str, str]], pages: Pages, limits: DeviceLimits | None = None,
                 join_host: Callable[[], str | None] | None = None):
        self.app = app
        self.pages = pages
        self.watch = watch
        self.partials = partials
        self.limits = limits or DeviceLimits()  # the app's one per-device map
        self.join_host = join_host  # the laptop's own address: its asks are never counted
        self.refused_headers = [("Retry-After", str(ASKS_RETRY_S)), ("Cache-Control", "no-store"),
                                ("Content-Length", "0")] + headers
        self.headers = [("Cache-Control", "no-store"), ("Content-Length", "0")] + headers
        self.gone_headers = [("Cache-Control", "no-store"), ("Content-Type", "text/html; charset=utf-8")] + headers
        # As Flask's answer (companion/web: secure_headers, compress), without a session cookie.
        self.partial_headers = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")] + headers

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if table_route(environ) != "live" or environ.get("REQUEST_METHOD") != "GET":
            return self.app(environ, start_response)
        device = device_of(environ)
        if not is_organiser(environ, self.join_host) and self.limits.take(device, "asks"):
            rate = self.limits.rates["asks"]
            client_trouble(environ, "asks", f"more than {rate.burst:g} live asks at once or {rate.per_s:g} a "
                                            f"second: answered 429 after {ASKS_RETRY_S} s")
            if environ.get(SOCKET_KEY) is not None:
                # Under `companion serve` (a greenlet: waiting costs a few KB): the 429 comes only
                # after its Retry-After, on the same connection, so a flooding connection asks
                # once every ASKS_RETRY_S. Closing it instead had the flooder connect again at
                # once: 100 addresses made 3,400 connections a second, and every accept and
                # close was the server's work, the phones' p99 209-300 ms (bench/fair_share.py).
                time.sleep(ASKS_RETRY_S * random.uniform(1.0, 1.5))  # spread: no wave of wake-ups
            else:
                environ[CLOSE_KEY] = True  # a thread's server (tests, `flask run`): never hold a thread
            start_response("429 Too Many Requests", self.refused_headers)
            return [b""]
        token = table_token(environ)
        try:
            current = self.watch.revision(token)
        except StorageError:
            return self.app(environ, start_response)  # Flask answers, with its error handling
        if current is None:
            if query_revision(environ) is not None and environ.get("HTTP_HX_REQUEST") == "true":
                # The table is gone: replaces the live region, which has no trigger left.
                gone = self.pages.for_request("gone", environ)
                start_response("404 Not Found", self.gone_headers + [("Content-Length", str(len(gone)))])
                return [gone]
            return self.app(environ, start_response)
        if is_current(query(environ).get("rev"), current):
            start_response("204 No Content", self.headers)
            return [b""]
        key = request_key(environ, token, current)
        if key is None:
            return self.app(environ, start_response)
        found = self.partials.get(key)
        if found is None:
            # A table's phones ask at once, when its stream says "changed": the first goes to
            # Flask, which renders and files it; the others wait for those bytes (not for a
            # turn in Flask each, only to find them filed meanwhile).
            rendered = self.partials.first(key)
            if rendered is not None:
                try:
                    return self.app(environ, start_response)
                finally:
                    self.partials.done(key, rendered)
            found = self.partials.wait(key, RENDER_WAIT_S)
            if found is None:
                return self.app(environ, start_response)
        self.partials.served += 1
        plain, packed = found
        if packed is not None and "gzip" in environ.get("HTTP_ACCEPT_ENCODING", ""):
            start_response("200 OK", self.partial_headers + [
                ("Vary", "Accept-Language, Cookie, Accept-Encoding"), ("Content-Encoding", "gzip"),
                ("Content-Length", str(len(packed)))])
            return [packed]
        start_response("200 OK", self.partial_headers + [
            ("Vary", "Accept-Language, Cookie"), ("Content-Length", str(len(plain)))])
        return [plain]
