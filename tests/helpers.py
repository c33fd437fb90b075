"""Helpers shared by the tests (imported by conftest.py; ``from helpers import text_of``).

tests/ is on sys.path (pytest puts the rootdir conftest's folder there), so any test file,
tests/browser/ and tests/games/ included, can import this module by name.
"""

from __future__ import annotations

import html as _html
import re

_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_BDI = re.compile(r"</?bdi\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]+>")


def text_of(markup: str) -> str:
    """The text a reader sees in an HTML page or fragment: script and style bodies dropped,
    tags read as word breaks (except <bdi>, which isolates a name inline without a break),
    character references decoded, runs of whitespace (non-breaking spaces too) as one space."""
    markup = _SCRIPT_OR_STYLE.sub(" ", markup)
    markup = _BDI.sub("", markup)
    return " ".join(_html.unescape(_TAG.sub(" ", markup)).split())


def csrf_of(markup: str) -> str:
    """The CSRF token of the (first) form on a page; fails the test if there is none."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', markup)
    assert found, "the page has no CSRF token field"
    return found.group(1)
