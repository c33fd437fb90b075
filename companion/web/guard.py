"""Slow down anyone on the Wi-Fi who tries table links at random.

A table's link carries 128 random bits, so guessing one is already hopeless; this makes
trying pointless as well. A device that asks for more than ``limit`` unknown table links
within ``window`` seconds gets "429 Too Many Requests" for every table link, valid or not,
until its misses age out, so it can't learn which links exist. A phone with a real link
never misses that often. The laptop itself (loopback) is trusted, as on the home page.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable, Iterable

from ..lan import is_loopback

TABLE_PATH_PREFIX = "/t/"

# Outside Flask (no locale yet), so both languages; the page keeps the app's look-free minimum.
TOO_MANY = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>Too many wrong links</title></head><body>"
            "<p role=\"alert\">Too many wrong table links from this device. Wait a minute, then scan "
            "the table's QR code again.</p>"
            "<p lang=\"ja\">このデバイスから無効なテーブルのリンクが多すぎます。1分待ってから、"
            "テーブルのQRコードをもう一度読み取ってください。</p></body></html>").encode()


class LinkGuessGuard:
    def __init__(self, app: Callable, headers: list[tuple[str, str]], limit: int = 30,
                 window: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.app = app
        self.limit = limit
        self.window = window
        self.clock = clock
        self.misses: dict[str, deque[float]] = {}
        self.lock = threading.Lock()
        self.headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(TOO_MANY))),
                        ("Retry-After", str(int(window))), ("Cache-Control", "no-store")] + headers

    def blocked(self, address: str) -> bool:
        with self.lock:
            recent = self.misses.get(address)
            if recent is None:
                return False
            cutoff = self.clock() - self.window
            while recent and recent[0] < cutoff:
                recent.popleft()
            if not recent:
                del self.misses[address]
                return False
            return len(recent) >= self.limit

    def missed(self, address: str) -> None:
        with self.lock:
            if len(self.misses) > 10_000:  # a flood of addresses: forget the oldest-seen half
                for key in list(self.misses)[:5_000]:
                    del self.misses[key]
            self.misses.setdefault(address, deque()).append(self.clock())

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        address = environ.get("REMOTE_ADDR", "")
        if not environ.get("PATH_INFO", "").startswith(TABLE_PATH_PREFIX) or is_loopback(address):
            return self.app(environ, start_response)
        if self.blocked(address):
            start_response("429 Too Many Requests", self.headers)
            return [TOO_MANY]

        def watch(status: str, headers, exc_info=None):
            if status.startswith("404"):
                self.missed(address)
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        return self.app(environ, watch)
