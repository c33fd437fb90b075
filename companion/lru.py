"""A byte-bounded least-recently-used cache, shared by the pages (cached live partials, the
compressed static files) and the serving layer. Neutral: no Flask, no storage."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable


class BytesLRU:
    """Least-recently-used values, bounded by their total size in bytes (not their number).

    ``size(value)`` is a value's weight in bytes: ``len`` for bytes (rendered pages, compressed
    files), an estimate for other immutable values (a replayed match: tables.ReplayCache). It
    must give the same answer for the same value each time (it is asked again on eviction)."""

    def __init__(self, max_bytes: int, size: Callable[[Any], int] = len):
        self.max_bytes = max_bytes
        self.size = size
        self.bytes = 0
        self.entries: OrderedDict[tuple, Any] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple) -> Any | None:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key: tuple, value: Any) -> None:
        weight = self.size(value)
        if weight > self.max_bytes:
            return  # would evict everything else and still not fit
        with self.lock:
            old = self.entries.pop(key, None)
            self.bytes += weight - (self.size(old) if old is not None else 0)
            self.entries[key] = value
            while self.bytes > self.max_bytes:
                _key, dropped = self.entries.popitem(last=False)
                self.bytes -= self.size(dropped)
