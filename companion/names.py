"""Players' names: how a name is stored and when two names are one player (pure, no storage).

A table refuses the same name twice by :func:`name_key`; the meetup night's roster and the
season's player statistics match names across tables and nights by the very same rule.
"""

from __future__ import annotations

import unicodedata

# Characters that must never reach a stored name: controls (NUL, BEL…), format characters
# (zero-width spaces and joiners, the bidi overrides and isolates that reorder a page) and
# lone surrogates. Whitespace is collapsed to one space before this.
_INVISIBLE = ("Cc", "Cf", "Cs")


def clean_name(raw: str | None) -> str:
    """The name as stored: NFC, invisible characters removed, spaces collapsed."""
    text = " ".join(unicodedata.normalize("NFC", raw or "").split())
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE)
    return " ".join(text.split())  # removing a character may have left two spaces side by side


def name_key(name: str) -> str:
    """What makes two names the same to the people at the table: NFKC, case-folded, cleaned
    ("Ann" and "ＡＮＮ", NFC and NFD "René" are one name)."""
    return " ".join(clean_name(unicodedata.normalize("NFKC", name)).casefold().split())
