"""The shape of a table's link token: the one definition the web layer (routes, the rules
page's way back) and the serving layer (which table a request is about) share. Neutral: no
Flask, no storage. static/outbox.js keeps a copy in its regular expressions (JavaScript
can't import this); change both together."""

from __future__ import annotations

import re

# secrets.token_urlsafe(16) is 22 characters; older or longer links stay readable up to 64.
TOKEN_PATTERN = r"[A-Za-z0-9_-]{16,64}"
TOKEN_SHAPE = re.compile(rf"^{TOKEN_PATTERN}$")
# /t/<token> and /t/<token>/<anything>: a table's link
TABLE_PATH = re.compile(rf"/t/({TOKEN_PATTERN})(?:/|$)")


def is_token(value: str | None) -> bool:
    """Is ``value`` shaped like a table's token?"""
    return bool(TOKEN_SHAPE.match(value or ""))
