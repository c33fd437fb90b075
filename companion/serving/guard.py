"""Slow down anyone on the Wi-Fi who tries table links at random.

A table's link carries 128 random bits, so guessing one is already hopeless; this makes
trying pointless as well. A device that asks for more than ``limit`` *different* unknown
table links within ``window`` seconds gets "429 Too Many Requests" for every table link,
valid or not, until its misses age out, so it can't learn which links exist. Distinct links
count, not requests: a phone whose table was removed keeps asking for that one link (its
live fetch) and must never lock itself out of the next table it scans. The laptop itself
(its own address, 127.0.0.1 or ::1, naming itself in the Host header) is trusted, as on the
home page; other loopback addresses are other devices.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable

from ..devices import device_of, is_organiser
from . import client_trouble, table_token
from .limits import DeviceLimits
from .pages import Pages

TABLE_PATH_PREFIX = "/t/"


def any_token(environ: dict) -> str:
    """The link token asked for, well-formed or not (a malformed one is a miss as well)."""
    return table_token(environ) or environ.get("PATH_INFO", "")[len(TABLE_PATH_PREFIX):].split("/", 1)[0]


class LinkGuessGuard:
    def __init__(self, app: Callable, headers: list[tuple[str, str]], pages: Pages, limit: int = 30,
                 window: float = 60.0, clock: Callable[[], float] = time.monotonic,
                 join_host: Callable[[], str | None] | None = None, limits: DeviceLimits | None = None):
        self.app = app
        self.pages = pages
        self.limit = limit
        self.window = window
        self.clock = clock
        self.join_host = join_host  # the laptop's own address, for its Host header
        self.limits = limits or DeviceLimits()  # the app's one per-device map: its "links"
        self.headers = [("Content-Type", "text/html; charset=utf-8"), ("Retry-After", str(int(window))),
                        ("Cache-Control", "no-store")] + headers

    def blocked(self, address: str) -> bool:
        return self.limits.distinct(address, "links", self.clock(), self.window) >= self.limit

    def missed(self, address: str, token: str = "") -> None:
        self.limits.note(address, "links", token, self.clock(), keep=self.limit)

    def trusted(self, environ: dict) -> bool:
        return is_organiser(environ, self.join_host)

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        address = device_of(environ)
        path = environ.get("PATH_INFO", "")
        if not path.startswith(TABLE_PATH_PREFIX) or self.trusted(environ):
            return self.app(environ, start_response)
        if self.blocked(address):
            client_trouble(environ, "links", f"more than {self.limit} wrong table links in "
                                              f"{self.window:g} s: answered 429")
            page = self.pages.for_request("too_many_links", environ)
            start_response("429 Too Many Requests", self.headers + [("Content-Length", str(len(page)))])
            return [page]

        def watch(status: str, headers, exc_info=None):
            if status.startswith("404"):
                self.missed(address, any_token(environ))
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        return self.app(environ, watch)
