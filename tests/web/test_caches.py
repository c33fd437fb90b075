"""Caches bounded in bytes and keyed by what they store (issue 13 item 3): the replay cache's
size estimate and budget, the static gzip cache, the bytes LRU. Moved from test_hardening.py."""

from __future__ import annotations

import sys
from pathlib import Path

from companion.tables import service as store
from companion.games import GAMES, MatchSetup
from helpers import rwd_facts


def deep_size(obj, seen=None) -> int:
    """Bytes reachable from ``obj``, each object counted once (classes and functions skipped)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, type) or callable(obj):
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_size(x, seen) for x in obj)
    elif hasattr(obj, "__dict__"):
        size += deep_size(vars(obj), seen)
    return size


def test_replay_estimate_is_not_below_the_real_size():
    game = GAMES["rwd"]
    progress = game.start(MatchSetup("rwd", ("A", "B", "C", "D"), {}))
    for _ in range(60):
        progress = game.add_deal(progress, rwd_facts(progress))
    assert store.progress_bytes(progress) >= deep_size(progress) * 0.9


def test_replay_cache_is_bounded_by_bytes_not_entries():
    game = GAMES["rwd"]
    progress = game.start(MatchSetup("rwd", ("A", "B", "C", "D"), {}))
    for _ in range(100):
        progress = game.add_deal(progress, rwd_facts(progress))
    one = store.progress_bytes(progress)
    cache = store.ReplayCache(max_bytes=10 * one)
    for i in range(50):
        cache.put(("table", i, 100), progress)
    assert cache.bytes <= 10 * one
    assert len(cache.entries) == 10
    assert cache.get(("table", 49, 100)) is progress and cache.get(("table", 0, 100)) is None
    small = game.start(MatchSetup("rwd", ("A", "B", "C", "D"), {}))
    for i in range(200):  # small entries: many more of them fit
        cache.put(("small", i, 0), small)
    assert len(cache.entries) > 100 and cache.bytes <= 10 * one


def test_static_gzip_cache_keyed_by_the_file_not_the_url(client):
    from companion.web import _STATIC_GZ
    _STATIC_GZ.entries.clear()
    _STATIC_GZ.bytes = 0
    vendor = next(p.name for p in (Path(client.application.static_folder) / "vendor").glob("htmx-*.min.js"))
    plain = client.get(f"/static/vendor/{vendor}", headers={"Accept-Encoding": "gzip"})
    assert plain.status_code == 200 and plain.headers["Content-Encoding"] == "gzip"
    for i in range(40):
        odd = client.get(f"/static/x{i}/../vendor/{vendor}", headers={"Accept-Encoding": "gzip"})
        assert odd.status_code == 200 and odd.get_data() == plain.get_data()
    assert len(_STATIC_GZ.entries) == 1
    assert _STATIC_GZ.bytes == len(plain.get_data())


def test_bytes_lru_evicts_the_least_recently_used():
    from companion.web import BytesLRU
    cache = BytesLRU(100)
    cache.put(("a",), b"x" * 40)
    cache.put(("b",), b"x" * 40)
    cache.get(("a",))
    cache.put(("c",), b"x" * 40)
    assert cache.get(("b",)) is None and cache.get(("a",)) and cache.get(("c",))
    cache.put(("huge",), b"x" * 101)  # larger than the whole budget: not kept, nothing evicted
    assert cache.get(("huge",)) is None and cache.bytes == 80
