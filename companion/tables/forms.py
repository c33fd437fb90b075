"""Reading a table's forms: the game's options and the phone's write id. (A deal's own fields,
and a correction's answers to later deals' choices, are read in the service: service.read_deal.)"""

from __future__ import annotations

from flask import request

from ..games import Game
from ..numbers import ascii_number
from . import service


def write_id() -> str | None:
    """The phone's name for this change (hidden field ``write_id``, at most 64 characters):
    the store makes the change at most once, and a resend is answered as the first time was.
    Absent or unusable: the change is made as it always was."""
    return service.clean_write_id(request.form.get("write_id"))


def option_values(game: Game, source) -> dict[str, int]:
    values = {}
    for opt in game.options:
        raw = str(source.get(opt.key, "")).strip()
        if raw == "":
            values[opt.key] = opt.default
        else:  # anything unreadable becomes -1, which the game's option check refuses with a message
            values[opt.key] = number if (number := ascii_number(raw, 3)) is not None else -1
    return values
