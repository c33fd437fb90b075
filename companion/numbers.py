"""Numbers read from a request: ASCII digits only.

``str.isdigit()`` accepts "²" and "٣", and ``int()`` accepts "١٢", "１２", " 7 ", "-1" and
"1_000": a hand-edited URL or form field must never turn into a 500 (int("²") raises) or into a
number nobody typed. Every view reads its numbers through these.
"""

from __future__ import annotations

DIGITS = 9  # up to 999,999,999: more than any count, deal or id here, and never a slow int()


def ascii_number(raw: object, digits: int = DIGITS) -> int | None:
    """``raw`` (surrounding spaces allowed) as a number if it is 1..``digits`` ASCII digits, else None."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if not text or len(text) > digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def number_or_error(raw: str) -> int:
    """:func:`ascii_number` for werkzeug's ``request.args.get(name, type=...)``, which turns a
    ValueError into the default."""
    number = ascii_number(raw)
    if number is None:
        raise ValueError(f"not a number: {raw[:20]!r}")
    return number
