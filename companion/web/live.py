"""What every live page shares (companion/serving/events.py explains the push): where a page
opens its stream, and the one "unchanged" answer of a live part rendered by Flask (a table's
is given before Flask, companion/serving/live.py, by the same rule: companion/topics.py)."""

from __future__ import annotations

from flask import Response, request, url_for

from ..topics import Version, is_current, stream_path


def live_stream_url(topic: str, version: Version | None) -> str:
    """Template global: the event stream of a page showing ``topic`` at ``version``
    (templates/_live_stream.html)."""
    return request.script_root + stream_path(topic, version)


def unchanged(current: Version | None) -> Response | None:
    """204 when the page asking (its ``?rev=``) shows ``current`` already, else None: render."""
    if is_current(request.args.get("rev"), current):
        return Response(status=204, headers={"Cache-Control": "no-store"})
    return None


def live_part_url(version: Version) -> str:
    """Template global: this page itself as its live region asks for it (``live=1``: the view
    answers :func:`unchanged` first), with the version it shows; the other arguments kept."""
    args = {k: v for k, v in request.args.items() if k not in ("live", "rev")}
    return url_for(request.endpoint, **(request.view_args or {}), **args, live=1, rev=version)


def asked_unchanged(current: Version | None) -> Response | None:
    """For a page that is its own live part (:func:`live_part_url`): 204 when its live region
    asks and shows ``current`` already, else None (the page is rendered, its region taken)."""
    return unchanged(current) if request.args.get("live") == "1" else None
