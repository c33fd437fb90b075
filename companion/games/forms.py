"""Reading a deal's form: form fields are strings, the rules want integers.

The helpers a game's :meth:`~companion.games.contract.Game.parse_deal` reads its fields
with (a number in range, a tapped seat, the answer to an open choice), the reading and
checking of the number columns a game declares (:func:`read_columns`,
:func:`check_columns` over :class:`Column`), and what the
calculators read their fields with. Every refusal is a :class:`FieldError` naming the field
it belongs next to, in words a player understands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .model import Choice, FieldError
from .text import T, Text


Form = Mapping[str, Any]


WHOLE_NUMBER = re.compile(r"-?[0-9]+")


def read_int(form: Form, name: str, lo: int, hi: int, label: Text, errors: list[FieldError],
             required: bool = True) -> int | None:
    """Read an integer field, appending a clear message to ``errors`` if it is not one in range."""
    raw = form.get(name)
    if raw is None or (isinstance(raw, str) and raw.strip() == ""):
        if required:
            errors.append(FieldError(name, T("{field}: enter a number.", field=label)))
        return None
    if isinstance(raw, bool):
        raw = str(raw)
    if isinstance(raw, int):
        value = raw
    else:
        text = str(raw).strip()
        # ASCII digits only: str.isdigit() accepts "²", which int() then refuses.
        if len(text) > 6 or not WHOLE_NUMBER.fullmatch(text):
            errors.append(FieldError(name, T("{field}: “{value}” is not a whole number.",
                                             field=label, value=text[:12])))
            return None
        value = int(text)
    if not lo <= value <= hi:
        errors.append(FieldError(name, T("{field} must be from {lo} to {hi}; it is {value}.",
                                         field=label, lo=lo, hi=hi, value=value)))
        return None
    return value


def is_blank(form: Form, name: str) -> bool:
    """True when a field was left empty or not sent at all."""
    raw = form.get(name)
    return raw is None or (isinstance(raw, str) and raw.strip() == "")


def work_out_last(known: Sequence[int | None], total: int, hi: int, name: str, label: Text,
                  errors: list[FieldError]) -> int | None:
    """The last value of a column the rules fix (it adds up to ``total``), from the others.

    None while one of the others is missing (its own message says so); a clear message when the
    others leave no possible value (they add up to more than ``total``, or too little)."""
    if any(value is None for value in known):
        return None
    value = total - sum(known)  # type: ignore[arg-type]
    if not 0 <= value <= hi:
        errors.append(FieldError(name, T(
            "{field} can't be worked out: the others add up to {sum} of {total}. Check their "
            "numbers or enter this one.", field=label, sum=sum(known), total=total)))  # type: ignore[arg-type]
        return None
    return value


@dataclass(frozen=True)
class Column:
    """One number per player that a deal records (RWD's chips, Miraiscope's Queens).

    The form's fields are ``<key>-<seat>``; a message about the whole column names the field
    ``<key>``. :func:`read_columns` reads them, :func:`check_columns` checks them, and the deal
    form gets them from :meth:`Game.columns` (range, total, which value is worked out) instead
    of recomputing the rules.
    """

    key: str  # facts key and field prefix: "chips" -> chips-0, chips-1, …
    label: Text  # the whole column, in its messages: "Chips"
    players: tuple[Text, ...]  # one label per seat, in that value's messages: "Chips of Ann"
    hi: int  # largest value one player can have
    lo: int = 0
    total: int | None = None  # the column adds up to exactly this (None: no fixed sum)
    at_most: int | None = None  # else the column adds up to at most this (None: no bound)
    why: Text | None = None  # why it adds up so, said with the sum: "one per trick"
    derive_last: bool = False  # a blank last value is worked out from the others
    # What the worked-out last value completes, when that is not ``total``: a sum over this
    # column and the columns ``worked_over`` (Pair & Quad: every card dealt is captured).
    worked_out: int | None = None
    worked_over: tuple[str, ...] = ()
    blank: int | None = None  # what a blank value means when it is not worked out (None: required)

    @property
    def n(self) -> int:
        return len(self.players)

    def field(self, seat: int) -> str:
        return f"{self.key}-{seat}"

    @property
    def values(self) -> range:
        """The values one player can have, for a row of taps."""
        return range(self.lo, self.hi + 1)

    @property
    def worked_to(self) -> int | None:
        """The sum the worked-out last value completes (None when nothing is worked out)."""
        if not self.derive_last:
            return None
        return self.worked_out if self.worked_out is not None else self.total

    def derive(self, seat: int) -> int | None:
        """For the form: the sum the value at ``seat`` is worked out to (its "auto" choice), or None."""
        return self.worked_to if seat == self.n - 1 else None


def read_columns(form: Form, columns: Sequence[Column], errors: list[FieldError]
                 ) -> dict[str, list[int | None]]:
    """Read the declared columns, in order: each value as typed; a blank one is worked out
    (the last of a ``derive_last`` column, from the others and the columns it is worked out
    over, which must come earlier), means ``blank`` if the column says so, else is refused."""
    read: dict[str, list[int | None]] = {}
    for column in columns:
        values: list[int | None] = []
        for seat, label in enumerate(column.players):
            name = column.field(seat)
            if is_blank(form, name):
                if column.derive_last and seat == column.n - 1:
                    known = values + [v for key in column.worked_over for v in read[key]]
                    values.append(work_out_last(known, column.worked_to, column.hi,  # type: ignore[arg-type]
                                                name, label, errors))
                    continue
                if column.blank is not None:
                    values.append(column.blank)
                    continue
            values.append(read_int(form, name, column.lo, column.hi, label, errors))
        read[column.key] = values
    return read


def check_columns(columns: Sequence[Column], facts: Mapping[str, Any]) -> list[FieldError]:
    """The checks of declared columns on recorded facts (``facts[key]``: one value per player):
    each value a whole number in range (named like the form's own messages), and the column
    adding up to its ``total`` (or at most ``at_most``), said with the rule's reason."""
    errors: list[FieldError] = []
    for column in columns:
        values = facts.get(column.key)
        n = column.n
        if not isinstance(values, list) or len(values) != n:
            errors.append(FieldError(column.key, T("{field}: enter one number for each of the {n} "
                                                    "players.", field=column.label, n=n)))
            continue
        bad = False
        for seat, value in enumerate(values):
            label = column.players[seat]
            if isinstance(value, bool) or not isinstance(value, int):
                errors.append(FieldError(column.field(seat), T(
                    "{field}: “{value}” is not a whole number.", field=label, value=str(value)[:12])))
                bad = True
            elif not column.lo <= value <= column.hi:
                errors.append(FieldError(column.field(seat), T(
                    "{field} must be from {lo} to {hi}; it is {value}.", field=label, lo=column.lo,
                    hi=column.hi, value=value)))
                bad = True
        if bad:
            continue
        added = sum(values)
        if column.total is not None and added != column.total:
            if column.why is not None:
                message = T("{field} must add up to {total} with {n} players ({why}); they add up "
                            "to {sum}.", field=column.label, total=column.total, n=n, why=column.why,
                            sum=added)
            else:
                message = T("{field} must add up to {total} with {n} players; they add up to {sum}.",
                            field=column.label, total=column.total, n=n, sum=added)
            errors.append(FieldError(column.key, message))
        elif column.at_most is not None and added > column.at_most:
            errors.append(FieldError(column.key, T(
                "{field} can add up to at most {most}; they add up to {sum}.", field=column.label,
                most=column.at_most, sum=added)))
    return errors


def read_seat(form: Form, name: str, n: int, label: Text, errors: list[FieldError],
              required: bool = True, allow_none: bool = False) -> int | None:
    """Read a seat index 0..n-1 (``"none"`` allowed when ``allow_none``).

    A seat is tapped, never typed: anything but a seat (blank, unreadable, out of range)
    says "choose", never "enter a number" or a 0-based range."""
    raw = form.get(name)
    if allow_none and isinstance(raw, str) and raw.strip().lower() == "none":
        return None
    if not required and is_blank(form, name):
        return None
    quiet: list[FieldError] = []
    seat = read_int(form, name, 0, n - 1, label, quiet)
    if quiet:
        errors.append(FieldError(name, T("{field}: choose one of the players, or nobody.", field=label)
                                 if allow_none else
                                 T("{field}: choose one of the players.", field=label)))
    return seat


def choice_answer(raw: Any, choice: Choice) -> int | None:
    """An answer to ``choice`` as given (an int, a form string, or a mapping holding it under
    ``choice.key``), if it is one of its options; else None."""
    if isinstance(raw, Mapping):
        raw = raw.get(choice.key)
    if isinstance(raw, str) and raw.strip().isascii() and raw.strip().isdigit() and len(raw.strip()) < 4:
        raw = int(raw.strip())
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw in choice.options else None


def entered(form: Mapping[str, Any], *ignored: str) -> bool:
    """True once something was typed or tapped (fields in ``ignored`` have defaults)."""
    return any(str(value).strip() for key, value in form.items() if key not in ignored)


def card_codes(raw: str) -> list[str]:
    """Card codes typed in one field: "QS 10H, 3D" → ["QS", "10H", "3D"]."""
    return raw.replace(",", " ").split()
