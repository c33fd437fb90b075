"""Stored times (UTC) as the laptop's clock shows them."""

from __future__ import annotations

from datetime import datetime


def local_time(stamp: str | None, shown: str = "%Y-%m-%d %H:%M:%S") -> str:
    """A stored UTC time as the laptop's local time (the clock on the players' wall), written
    ``shown`` (the change log: to the second; the hall: "%H:%M"); unreadable stays as stored."""
    if not stamp:
        return ""
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime(shown)
    except ValueError:
        return stamp
