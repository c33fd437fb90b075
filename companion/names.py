"""Players' names: how a name is stored and when two names are one player (pure, no storage).

A table refuses the same name twice by :func:`name_key`; the meetup night's roster and the
season's player statistics match names across tables and nights by the very same rule.

A name must show something: one visible letter or digit at least (or a pictograph such as 🎲).
Names made only of combining marks, of fillers that are "letters" to Unicode but draw nothing
(U+3164 HANGUL FILLER, U+FFA0, U+115F, U+1160), of U+2800 BRAILLE PATTERN BLANK, or of wide
ligature symbols such as U+FDFD are cleaned to "" and so refused as having "only invisible
characters" (issue 23).

Two different names that look alike across alphabets (Cyrillic "Аnn" beside Latin "Ann") are
allowed, but :func:`look_alike` finds them so the table page can warn: their UTS #39 skeletons
are equal. The skeleton here is computed from a compact table of the Latin, Cyrillic and Greek
letters that Unicode's confusables.txt maps to Latin ones (the letters players could type from
a phone's keyboards): no library on PyPI gave the skeleton itself at a size that fits here.
"""

from __future__ import annotations

import unicodedata
from itertools import combinations

# Characters that must never reach a stored name: controls (NUL, BEL…), format characters
# (zero-width spaces and joiners, the bidi overrides and isolates that reorder a page) and
# lone surrogates. Whitespace is collapsed to one space before this.
_INVISIBLE = ("Cc", "Cf", "Cs")

# Letters to Unicode that draw nothing (Hangul fillers; Khmer inherent vowels are marks already).
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _visible(ch: str) -> bool:
    """A character that shows a reader something: a letter or digit (not a filler), or a
    pictograph (arrows, dingbats, emoji). Marks, spaces, punctuation alone and other symbols
    (U+FDFD, a line of them) don't make a name."""
    if ch in _BLANK:
        return False
    category = unicodedata.category(ch)
    if category[0] in "LN":
        return True
    code = ord(ch)
    return category == "So" and (0x2190 <= code <= 0x2BFF or 0x1F000 <= code <= 0x1FAFF)


def clean_name(raw: str | None) -> str:
    """The name as stored: NFC, invisible characters removed, spaces collapsed; "" for a name
    with no visible letter, digit or pictograph (nothing a player could read)."""
    text = " ".join(unicodedata.normalize("NFC", raw or "").split())
    text = "".join(ch for ch in text if unicodedata.category(ch) not in _INVISIBLE)
    text = " ".join(text.split())  # removing a character may have left two spaces side by side
    return text if any(_visible(ch) for ch in text) else ""


def name_key(name: str) -> str:
    """What makes two names the same to the people at the table: NFKC, case-folded, cleaned
    ("Ann" and "ＡＮＮ", NFC and NFD "René" are one name)."""
    return " ".join(clean_name(unicodedata.normalize("NFKC", name)).casefold().split())


# Cyrillic and Greek letters (and a few Latin look-alikes) that confusables.txt (UTS #39) maps to
# a Latin letter: each character of the first string shows as the same character of the second.
_CONFUSABLE = str.maketrans(
    # Cyrillic capitals, small letters
    "АВЕКМНОРСТХУЅІЈҮӀԚԜ" "аеорсухѕіјһԁԛԝӏү"
    # Greek capitals, small letters
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ" "οναιρυγ"
    # Latin letters that look like other Latin letters
    "ıɑɡℓ",
    "ABEKMHOPCTXYSIJYlQW" "aeopcyxsijhdqwly"
    "ABEZHIKMNOPTYX" "ovaipuy"
    "iagl")


def skeleton(name: str) -> str:
    """How a name looks, letter for letter (UTS #39's skeleton over the table above, then case
    folded as :func:`name_key` is): Cyrillic "Аnn" and Latin "Ann" have one skeleton."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", clean_name(name)))
    return " ".join(unicodedata.normalize("NFD", text.translate(_CONFUSABLE)).casefold().split())


def look_alike(names) -> list[tuple[int, int]]:
    """Pairs of seats (0-based, in order) whose names differ (by :func:`name_key`) yet look alike
    (the same :func:`skeleton`): worth a warning, never a refusal (two players may really be
    called so)."""
    # Each name's key and skeleton once, then only names sharing a skeleton are compared: a
    # night of 200 names asked them 99,500 times (a 200 ms hall), now 200.
    by_skeleton: dict[str, list[tuple[int, str]]] = {}
    for seat, name in enumerate(names):
        shape = skeleton(name)
        if shape:
            by_skeleton.setdefault(shape, []).append((seat, name_key(name)))
    found = [(a, b) for alike in by_skeleton.values() for (a, key_a), (b, key_b) in combinations(alike, 2)
             if key_a != key_b]
    return sorted(found)
