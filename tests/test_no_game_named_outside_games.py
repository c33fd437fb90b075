"""Grep-clean (issue 16): outside companion/games/, templates/games/ and the tests, no code,
template, script or style sheet names one of the games, so a sixth game needs no edit there.
Nor does it use one game's concepts (issue 21): teams as neighbouring seats, sides, directions
of play, Pair & Quad's "other" key, deck sizes; the contract (companion/games/contract.py and its
shared modules) declares them generally.

Game ids and names come from the registry, so a new built-in game is covered too.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
from pathlib import Path

from companion.games import GAMES, NextDeal
import pytest

# Static reads of the whole source tree (seconds each): the slow tier, which CI runs; the fast
# tier stays under a minute on one core (issue 41).
pytestmark = pytest.mark.slow

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


# --------------------------------------------------------------------------
# Concepts, not only names (issue 21): what one game's rules say about seats, sides, keys and
# deck sizes stays in that game's module and templates. Each pattern below is a leak that was
# once in shared code (the comment says where); the game declares it instead (Game.seating,
# Game.columns, Game.describe_facts, NextDeal.detail).

CONCEPTS = {
    # tables.py "seat = 2 * team", new.html "2 * team + 1", "seat // 2 + 1", "seat % 2 == 0",
    # "range(n // 2)", web/games.py "team_names(n // 2)": teams as two neighbouring seats.
    "teams as neighbouring seats": r"\b2\s*\*\s*(?:team|t)\b|\bseat\s*(?://|%)\s*2\b|\bn\s*//\s*2\b",
    # new.html "right side" / "left side": Twin Shoot's right-side and left-side players.
    "a team's right and left side": r"(?:right|left)[- ]side",
    # NextDeal(side=..., direction=...), "upcoming.direction": one game's seat roles and play order.
    "a game's side or direction of play": r"(?<![-\w])(?:side|direction)\s*=|\.(?:side|direction)\b"
                                          r"|counter-clockwise",
    # templates "52 // n" (RWD's tricks, Pair & Quad's cards dealt): a deck's size and deal sizes.
    "a deck's size or a deal's arithmetic": r"\b52\b|//\s*n\b|%\s*n\b",
}
# web/tables.py "gettext('Other') if k == 'other'": Pair & Quad's key for its other cards
# (Python only: a template's banner kind "other" is a word of its own).
OTHER_KEY = r"""['"]other['"]"""

# The contract itself (companion/games/contract.py and the package's shared modules) is shared code
# too: no game's concept in its code (comments and docstrings may give a game as an example).
CONTRACT = [ROOT / "companion" / "games" / name
            for name in ("contract.py", "model.py", "forms.py", "calculators.py", "__init__.py", "text.py")]
CONTRACT_CONCEPTS = {
    **CONCEPTS,
    # calculators.team_names: "players {a} and {b}" computed as 2 * t + 1, 2 * t + 2.
    "a game's side or direction of play": r"\b(?:side|sides|direction|clockwise|right|left)\b",
    "Pair & Quad's other cards": OTHER_KEY,
}


def code_lines(path: Path) -> list[str]:
    """The file's lines as code: a Python file without its comments and docstrings, a template
    without its {# comments #}, a script or style sheet as it is (same line numbers)."""
    source = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return re.sub(r"\{#.*?#\}", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.S).splitlines()
    lines = source.splitlines()
    blank: list[tuple[int, int, int, int]] = []
    docstrings = {(node.body[0].value.lineno, node.body[0].value.col_offset)
                  for node in ast.walk(ast.parse(source))
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT or (token.type == tokenize.STRING and token.start in docstrings):
            blank.append((*token.start, *token.end))
    for (row, col, end_row, end_col) in reversed(blank):
        for r in range(row, end_row + 1):
            line = lines[r - 1]
            lo = col if r == row else 0
            hi = end_col if r == end_row else len(line)
            lines[r - 1] = line[:lo] + " " * (hi - lo) + line[hi:]
    return lines


def leaks(paths: list[Path], concepts: dict[str, str]) -> list[str]:
    found = []
    for path in paths:
        patterns = dict(concepts)
        if path.suffix == ".py":
            patterns.setdefault("Pair & Quad's other cards", OTHER_KEY)
        for number, line in enumerate(code_lines(path), 1):
            for concept, pattern in patterns.items():
                for match in re.finditer(pattern, line, re.IGNORECASE):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {concept}: {match.group(0)!r} "
                                 f"in {line.strip()[:90]}")
    return found


def shared_paths(suffixes: tuple[str, ...]) -> list[Path]:
    return [path for path in SHARED if path.suffix in suffixes
            and not any(folder in path.parents for folder in GAME_OWN) and "translations" not in path.parts]


def test_the_patterns_catch_the_leaks_they_were_written_for():
    lines = {"teams as neighbouring seats": ["seat = 2 * team", "{{ seat // 2 + 1 }}", "range(n // 2)",
                                             "if seat % 2 == 0", "team_names(n // 2)"],
             "a team's right and left side": ['_("right side")', "the left-side player"],
             "a game's side or direction of play": ['side="right"', "upcoming.direction", "counter-clockwise"],
             "a deck's size or a deal's arithmetic": ["{% set t = 52 // table.setup.n %}", "(x // n) * n"]}
    for concept, examples in lines.items():
        for example in examples:
            assert re.search(CONCEPTS[concept], example, re.IGNORECASE), (concept, example)
    assert re.search(OTHER_KEY, "gettext('Other') if k == 'other' else k")
    for fine in ["flex-direction: column", "Players in clockwise seat order", "sum(x) // 2", "n = len(names)",
                 "{{ 52 }}px".replace("52", "5")]:
        assert not any(re.search(p, fine, re.IGNORECASE) for p in CONCEPTS.values()), fine


def test_shared_code_has_no_game_concepts():
    """No game's concept (partners by seat arithmetic, sides, play direction, deck sizes,
    Pair & Quad's "other" key) in shared code, templates or scripts: the game declares them."""
    found = leaks(shared_paths((".py", ".html")), CONCEPTS)
    found += leaks(shared_paths((".js", ".css")), {k: v for k, v in CONCEPTS.items()
                                                    if k == "a team's right and left side"})
    assert not found, "a game's concept outside its module and templates:\n" + "\n".join(found)


def test_the_contract_names_no_game_concept():
    """The contract (contract.py, model.py, forms.py, calculators.py, the package's registry and
    text) declares teams, columns and facts in general terms: no sides, directions, "other" keys
    or seat arithmetic of one game."""
    found = leaks(CONTRACT, CONTRACT_CONCEPTS)
    assert not found, "a game's concept in the games' shared contract:\n" + "\n".join(found)


def test_next_deal_carries_no_game_field():
    """NextDeal is the same for every game: what only one game knows goes in ``detail``."""
    assert [f.name for f in dataclasses.fields(NextDeal)] == ["number", "dealer", "leader", "lines",
                                                             "choice", "detail"]
