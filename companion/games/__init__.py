"""The five games' rules as plain Python (no web framework).

``GAMES`` maps a game id to its :class:`~companion.games.contract.Game`. Every module
in this package that defines ``GAME`` is registered, so adding a game means
adding one module and touching nothing else. A game that lives elsewhere joins with
:func:`register` (or a ``companion.games`` entry point, found at import); its templates
(deal_form.html, reference.html, calculators.html, helpers.html) may sit in its own folder.

The public API is re-exported here from its modules: ``contract`` (:class:`Game` and what a
game declares), ``model`` (a match's data: :class:`MatchSetup`, :class:`Match`, …), ``forms``
(reading a deal's form fields) and ``calculators`` (the game page's quick answers).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from importlib.metadata import entry_points
from pathlib import Path

from .calculators import CalcResult, Calculator
from .contract import AT_TIME, FactItem, Figure, Game, Option, Ruling, Team
from .forms import Column, check_columns, read_columns
from .model import (Choice, DealRecord, DealScore, FieldError, InvalidDeal, InvalidOptions, Line, Match,
                    MatchSetup, NextDeal, Outcome, Progress, Stakes, Tally)
from .text import T, Text


def check(game: Game) -> Game:
    """What every game must declare beyond its rules, checked when it joins (built in or
    registered): an id, unique calculator names, and its :data:`AT_TIME` ruling (how a match
    ended when a meetup's time is up ranks the deals played: the hall's "End at time" and every
    table's "End the match at time" show it to the players). Raises ``ValueError`` saying what
    is missing."""
    if not isinstance(game, Game) or not game.id.isidentifier():
        raise ValueError(f"not a game with an id made of letters, digits and _: {game!r}")
    names = [calc.name for calc in game.calculators]
    if len(set(names)) != len(names) or not all(name.isalnum() for name in names):
        raise ValueError(f"{game.id}: calculator names must be unique letters and digits: {names}")
    if AT_TIME not in {ruling.id for ruling in game.rulings}:
        raise ValueError(f"{game.id}: no {AT_TIME!r} ruling: declare Ruling({AT_TIME!r}, ...) saying how a match "
                         "ended at time is ranked (the players are shown it when time is called)")
    return game


def _discover() -> dict[str, Game]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found.append(check(game))
    found.sort(key=lambda g: (g.order, g.id))
    return {g.id: g for g in found}


GAMES: dict[str, Game] = _discover()

# Game id -> the folder holding that game's templates as <folder>/<name>.html, for games
# registered from outside this package; the five built-in games keep theirs in
# templates/games/<id>/.
TEMPLATE_FOLDERS: dict[str, Path] = {}

ENTRY_POINT_GROUP = "companion.games"


def register(game: Game, templates: str | Path | None = None) -> Game:
    """Add a game from outside this package: it appears on the home page, gets its
    game page and tables like the built-in games.

    ``templates`` is the folder of its templates (deal_form.html, reference.html and,
    if it declares calculators, calculators.html / helpers.html); the web app finds them
    there as ``games/<id>/<name>.html``. Registering the same id again replaces the game.
    """
    GAMES[check(game).id] = game
    ordered = sorted(GAMES.values(), key=lambda g: (g.order, g.id))
    GAMES.clear()  # in place: the web app and templates hold this very dict
    GAMES.update((g.id, g) for g in ordered)
    if templates is not None:
        TEMPLATE_FOLDERS[game.id] = Path(templates).resolve()
    else:
        TEMPLATE_FOLDERS.pop(game.id, None)
    return game


def unregister(game_id: str) -> None:
    """Remove a game added with :func:`register` (tests use it to clean up)."""
    GAMES.pop(game_id, None)
    TEMPLATE_FOLDERS.pop(game_id, None)


def _load_entry_points() -> None:
    """Games installed as packages: an entry point in the group ``companion.games`` names a
    module (or object) with ``GAME`` and optionally ``TEMPLATES``, the folder of its templates."""
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = point.load()
        except Exception as error:  # one broken plug-in must not take the other games down
            print(f"companion: game {point.name!r} ({point.value}) not loaded: {error}",
                  file=sys.stderr)
            continue
        game = target if isinstance(target, Game) else getattr(target, "GAME", None)
        if isinstance(game, Game):
            register(game, getattr(target, "TEMPLATES", None))


_load_entry_points()

__all__ = ["GAMES", "register", "unregister", "check", "TEMPLATE_FOLDERS", "Calculator", "CalcResult", "Game", "MatchSetup", "Match", "Progress", "DealRecord", "DealScore",
           "Line", "NextDeal", "Choice", "Outcome", "Ruling", "Option", "Figure", "FieldError",
           "InvalidDeal", "InvalidOptions", "Stakes", "Tally", "T", "Text",
           # A game's declarations: its teams, its per-player number columns, its facts for reading.
           "Team", "Column", "FactItem", "read_columns", "check_columns"]
