"""The five games' rules as plain Python (no web framework).

``GAMES`` maps a game id to its :class:`~companion.games.base.Game`. Every module
in this package that defines ``GAME`` is registered, so adding a game means
adding one module and touching nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import (Choice, DealRecord, DealScore, FieldError, Figure, Game, InvalidDeal,
                   InvalidOptions, Line, Match, MatchSetup, NextDeal, Option, Outcome,
                   Progress, Ruling, Stakes, Tally)
from .text import T, Text


def _discover() -> dict[str, Game]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found.append(game)
    found.sort(key=lambda g: (g.order, g.id))
    return {g.id: g for g in found}


GAMES: dict[str, Game] = _discover()

__all__ = ["GAMES", "Game", "MatchSetup", "Match", "Progress", "DealRecord", "DealScore",
           "Line", "NextDeal", "Choice", "Outcome", "Ruling", "Option", "Figure", "FieldError",
           "InvalidDeal", "InvalidOptions", "Stakes", "Tally", "T", "Text"]
