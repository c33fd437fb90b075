"""Grep-clean (issue 16): outside companion/games/, templates/games/ and the tests, no code,
template, script or style sheet names one of the games, so a sixth game needs no edit there.

Game ids and names come from the registry, so a new built-in game is covered too.
"""

from __future__ import annotations

import re
from pathlib import Path

from companion.games import GAMES

ROOT = Path(__file__).resolve().parent.parent

SHARED = [*(ROOT / "companion").rglob("*.py"), *(ROOT / "templates").rglob("*.html"),
          *(ROOT / "static").glob("*.js"), *(ROOT / "static").glob("*.css")]
GAME_OWN = (ROOT / "companion" / "games", ROOT / "templates" / "games")


def name_pattern(name: str) -> str:
    """ "Pair & Quad" also as pair_quad, pair-quad, PairQuad, "Pair &amp; Quad", "Pair and Quad"."""
    words = [re.escape(w) for w in re.split(r"[\s_-]+", name) if w]
    return r"[\s_-]*".join("(?:&|&amp;|＆|and)" if w == "\\&" else w for w in words)


def game_names() -> re.Pattern:
    names = set()
    for game in GAMES.values():
        names.update({game.id, game.name_en, game.name_ja})
        names.update(re.split(r"[()（）]", game.name_en + "(" + game.name_ja + ")"))
    alternatives = sorted((name_pattern(n) for n in names if len(n.strip()) > 2), key=len, reverse=True)
    # Not inside a longer word ("forward" is no RWD), but "rwd_deal" and "twin_shoot/" are.
    return re.compile(r"(?<![A-Za-z])(?:" + "|".join(alternatives) + r")(?![a-z])", re.IGNORECASE)


def test_shared_code_names_no_game():
    pattern = game_names()
    assert pattern.search("from ..games import pair_quad") and pattern.search("Pair &amp; Quad")
    assert pattern.search("<!-- ツインシュート -->") and not pattern.search("rewinding forward")
    found = []
    for path in SHARED:
        if any(folder in path.parents for folder in GAME_OWN) or "translations" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r} in {line.strip()[:90]}")
    assert not found, "game named outside its own module and templates:\n" + "\n".join(found)
