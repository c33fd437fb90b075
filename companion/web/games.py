"""Per-game pages: /games/<id> (reference card, checklist, calculators, helpers)."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from ..games import GAMES

bp = Blueprint("games", __name__, url_prefix="/games")


@bp.get("/<game_id>")
def show(game_id: str):
    game = GAMES.get(game_id)
    if game is None:
        abort(404)
    return render_template("game.html", game=game)
