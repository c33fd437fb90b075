"""Per-game pages: /games/<id> (setup checklist, reference card, calculators, helpers).

Each game declares its calculators and helpers beside its rules
(``Game.calculators``: pure functions over form fields, see
:class:`companion.games.Calculator`); this module only renders them and names
no game. Every calculator is a plain GET form whose result has a shareable URL and
works without JavaScript. With htmx the same view answers with only the result box
(``HX-Request``), as in Hypermedia Systems' Contact.app: the form's ``hx-get`` points
at ``/games/<id>/calc/<name>`` and the view renders either the whole page or just that
calculator's result.

Field names carry the calculator's name as a prefix (``pq-7``, ``rd-chips-0`` ...) so
the forms on one page stay independent. Nothing here is stored.

A game registered from outside the package keeps its templates in its own folder
(``companion.games.register(game, templates=...)``); :class:`GameTemplates` finds them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Callable, Iterator

from flask import Blueprint, abort, current_app, render_template, request
from flask_babel import gettext
from jinja2 import BaseLoader, Environment, TemplateNotFound
from werkzeug.security import safe_join

from ..games import GAMES, TEMPLATE_FOLDERS, Game
from ..games import CalcResult, Calculator
from ..games.calculators import seat_names, team_names
from ..numbers import ascii_number
from ..games.text import Text
from . import render_text

MAX_FIELD = 64  # longest value any field here needs ("10S 10H 10D 10C 10L" and so on)


class GameTemplates(BaseLoader):
    """``games/<id>/<name>.html`` from the folder a registered game brought along."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        parts = template.split("/", 2)
        folder = TEMPLATE_FOLDERS.get(parts[1]) if len(parts) == 3 and parts[0] == "games" else None
        path = safe_join(str(folder), parts[2]) if folder else None
        if path is None:
            raise TemplateNotFound(template)
        try:
            with open(path, encoding="utf-8") as fh:
                source = fh.read()
        except OSError:
            raise TemplateNotFound(template) from None
        mtime = _mtime(path)
        return source, path, lambda: _mtime(path) == mtime

    def list_templates(self) -> list[str]:
        return sorted(f"games/{gid}/{path.name}" for gid, folder in TEMPLATE_FOLDERS.items()
                      for path in folder.glob("*.html"))


def _mtime(path: str) -> float | None:
    try:
        return os.path.getmtime(path)
    except OSError:
        return None


class GamesBlueprint(Blueprint):
    """Flask asks every blueprint for a template loader after the app's own folder."""

    @property
    def jinja_loader(self) -> BaseLoader:  # type: ignore[override]
        return GameTemplates()


bp = GamesBlueprint("games", __name__, url_prefix="/games")


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def calculator_of(game: Game, name: str) -> Calculator | None:
    return next((calc for calc in game.calculators if calc.name == name), None)


class _AllCalculators(Mapping):
    """Every registered game's calculators, as name -> (game id, run(args, n) -> CalcResult);
    a live view, so a game registered later shows up too."""

    def _entries(self) -> Iterator[tuple[str, tuple[str, Callable[[Mapping[str, str], int], CalcResult]]]]:
        for game in GAMES.values():
            for calc in game.calculators:
                yield calc.name, (game.id, calc.run)

    def __getitem__(self, name: str):
        for key, value in self._entries():
            if key == name:
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._entries())

    def __len__(self) -> int:
        return sum(1 for _ in self._entries())


CALCULATORS: Mapping[str, tuple[str, Callable[[Mapping[str, str], int], CalcResult]]] = _AllCalculators()


# --------------------------------------------------------------------------
# Player count


def allowed_counts(game: Game) -> list[int]:
    return sorted(set(game.players) | set(game.variant_players))


def read_players(game: Game, raw: str | None) -> tuple[int, Any]:
    """(count to show, message or None) for ``?players=``; never raises."""
    default = game.players[0]
    if raw is None or not raw.strip():
        return default, None
    text = raw.strip()
    n = ascii_number(text, 3)
    if n is None:
        return default, gettext("“%(value)s” is not a number of players.", value=text[:12])
    reason = game.check_players(n)
    if reason is not None:
        return default, reason
    return n, None


def has_template(name: str) -> bool:
    try:
        current_app.jinja_env.get_template(name)
    except TemplateNotFound:
        return False
    return True


def rendered(texts: tuple[Text, ...]) -> tuple[str, ...]:
    return tuple(render_text(text) for text in texts)


# --------------------------------------------------------------------------
# Views


@bp.get("/<game_id>")
@bp.get("/<game_id>/calc/<name>")
def show(game_id: str, name: str | None = None):
    game = GAMES.get(game_id)
    if game is None:
        abort(404)
    calc = calculator_of(game, name) if name is not None else None
    if name is not None and calc is None:
        abort(404)
    n, players_message = read_players(game, request.args.get("players"))
    if calc is not None and is_htmx():
        # Always 200: a half-filled form is a normal state while tapping, not a failed
        # request (a 4xx would also log a console error on every tap).
        result = calc.run(request.args, n, MAX_FIELD)
        return render_template("games/_calc_result.html", game=game, r=result, calc=calc.name, n=n)
    results = {c.name: c.run(request.args, n, MAX_FIELD) for c in game.calculators}
    values = {k: v[:MAX_FIELD] for k, v in request.args.items()}
    return render_template("game.html", game=game, n=n, players_message=players_message,
                           counts=allowed_counts(game), results=results, values=values,
                           sections=[kind for kind in ("calculators", "helpers")
                                     if has_template(f"games/{game.id}/{kind}.html")],
                           seats=rendered(seat_names(n)), teams=rendered(team_names(game.seating(n))))
