"""Reading a posted form, and giving its refusals back next to their fields (every feature's forms)."""

from __future__ import annotations

from flask import request

from ..games import FieldError
from ..games.text import Text


def form_values() -> dict[str, str]:
    return {k: v for k, v in request.form.items() if k not in ("csrf_token", "write_id")}


def group_errors(errors: list[FieldError]) -> dict[str, list[Text]]:
    grouped: dict[str, list[Text]] = {}
    for error in errors:
        grouped.setdefault(error.field, []).append(error.message)
    return grouped
