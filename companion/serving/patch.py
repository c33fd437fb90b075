"""Make threading, sockets and sleeps cooperative for `companion serve` (gevent).

Kept apart from companion/serving/server.py, which imports gevent's server modules: this must
run before they, and the app, are imported."""

from __future__ import annotations


def patch_for_gevent() -> None:
    """Must run before the app is imported, so its locks and conditions (link guard, table
    turns, live updates) are gevent's."""
    from gevent import monkey

    if not monkey.is_module_patched("socket"):
        monkey.patch_all()
