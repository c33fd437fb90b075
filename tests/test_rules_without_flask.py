"""The rules are a library with no web dependency (issue 16).

In a subprocess where Flask and the rest of the web stack can't be imported (a
``sys.meta_path`` finder refuses them, as if they were not installed), this imports
``companion.games``, registers the toy sixth and seventh games, works every game's calculators, and
runs the rules test suite (tests/games). ``companion.create_app`` is the only thing
that needs Flask, and only when called.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs the rules and their tests in another Python process

ROOT = Path(__file__).resolve().parent.parent

WITHOUT_WEB = textwrap.dedent('''
    import importlib.abc, sys

    WEB = {"flask", "flask_babel", "flask_wtf", "werkzeug", "jinja2", "markupsafe", "babel",
           "itsdangerous", "blinker", "click", "gevent", "qrcode", "ifaddr"}

    class NotInstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in WEB:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    for name in list(sys.modules):  # nothing of the web stack may be loaded already
        assert name.partition(".")[0] not in WEB, name
''')

CHECKS = textwrap.dedent('''
    try:
        import flask
    except ModuleNotFoundError:
        pass
    else:
        raise SystemExit("the web stack was not blocked")

    import companion
    from companion.games import GAMES, MatchSetup, register
    from tests import toy_across, toy_game

    register(toy_game.GAME, templates=toy_game.TEMPLATES)
    register(toy_across.GAME, templates=toy_across.TEMPLATES)
    assert len(GAMES) == 7, list(GAMES)
    for game in GAMES.values():
        n = game.players[0]
        players = tuple(f"P{i}" for i in range(n))
        game.replay(MatchSetup(game.id, players), [])  # a match starts without the web
        for calc in game.calculators:
            assert calc.run({}, n).empty, (game.id, calc.name)  # a calculator answers with data
    answer = GAMES["toy_tricks"].calculators[0].run({"tp-called": "1", "tp-taken": "1"}, 2)
    assert str(answer.headline) == "You score 11.", answer
    match = toy_game.GAME.replay(MatchSetup("toy_tricks", ("A", "B")),
                                 [{"called": [1, 4], "taken": [1, 4]}] * 3)
    assert match.totals == (33, 42) and match.over, match
    across = toy_across.GAME.replay(MatchSetup("toy_across", ("A", "B", "C", "D")),
                                    [{"tricks": [4, 0, 4, 0], "last_trick": 0}] * 2)
    assert across.entrants == ("A & C", "B & D") and across.totals == (20, 0) and across.over, across

    try:
        companion.create_app()
    except ModuleNotFoundError as error:
        assert error.name.partition(".")[0] == "flask", error
    else:
        raise SystemExit("create_app worked without Flask?")

    import pytest
    code = pytest.main(["-q", "--noconftest", "-p", "no:cacheprovider", "tests/games"])
    leaked = sorted(m for m in sys.modules if m.partition(".")[0] in WEB)
    assert not leaked, leaked
    raise SystemExit(code)
''')


def test_rules_and_their_tests_run_without_flask():
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # no plug-in may pull Flask in
    done = subprocess.run([sys.executable, "-c", WITHOUT_WEB + CHECKS], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout[-2000:]
