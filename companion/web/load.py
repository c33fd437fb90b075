"""Moved to companion/serving/turns.py; kept for the tests that import TableSlots from here."""

from ..serving.turns import TableSlots, TableTurns  # noqa: F401
