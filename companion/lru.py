"""A byte-bounded least-recently-used cache, shared by the pages (cached live partials, the
compressed static files) and the serving layer. Neutral: no Flask, no storage."""

from __future__ import annotations

import threading
from collections import OrderedDict


class BytesLRU:
    """Least-recently-used values, bounded by their total size in bytes (not their number)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.entries: OrderedDict[tuple, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple) -> bytes | None:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key: tuple, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return
        with self.lock:
            old = self.entries.pop(key, None)
            self.bytes += len(value) - (len(old) if old is not None else 0)
            self.entries[key] = value
            while self.bytes > self.max_bytes:
                _key, dropped = self.entries.popitem(last=False)
                self.bytes -= len(dropped)
