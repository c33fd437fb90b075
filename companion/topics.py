"""What a live page follows (a *topic*) and how a page says which version of it it shows: the
one vocabulary the serving layer's streams and "unchanged" answers (companion/serving/), the
store's versions (companion/store/revisions.py) and the pages (companion/web/live.py) share.
Neutral: no Flask, no storage.

A topic is a table (its token: its revision), the night (:data:`NIGHT`: its signature, which
moves with its roster, rounds, clock and every table of it) or the season (:data:`SEASON`: its
version, moved by the writes that change what the season's pages show). A token is 16
characters or more (companion/tokens.py), so neither name can be a table's.
"""

from __future__ import annotations

import re

NIGHT = "night"
SEASON = "season"
Version = int | str  # a table's revision or the season's version (numbers), the night's signature (text)

# Where a page opens its topic's event stream (a table's is /t/<token>/events).
TOPIC_PATHS = {"/night/events": NIGHT, "/players/events": SEASON}
_PATH_OF = {topic: path for path, topic in TOPIC_PATHS.items()}
VERSION_SHAPE = re.compile(r"[0-9A-Za-z-]{1,80}")


def version_text(version: Version | None) -> str | None:
    """A version as the pages carry it (``data-rev``, ``?rev=``, an event's id)."""
    return None if version is None else str(version)


def is_current(shown: str | None, current: Version | None) -> bool:
    """The one "unchanged?" of every live part: the page shows ``shown`` (its ``?rev=``) and
    ``current`` is the version now. Answered 204 where true (companion/serving/live.py for a
    table, before Flask; companion/web/live.py for the night's and the season's pages)."""
    return current is not None and shown is not None and shown == version_text(current)


def stream_path(topic: str, version: Version | None) -> str:
    """The event stream of a page showing ``topic`` at ``version`` (it catches up from there)."""
    path = _PATH_OF.get(topic) or f"/t/{topic}/events"
    shown = version_text(version)
    return path if shown is None else f"{path}?rev={shown}"
