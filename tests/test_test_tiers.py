"""The test tiers and hypothesis profiles (tests/conftest.py, pyproject.toml, README Development)."""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

import pytest
from hypothesis import settings

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def test_both_markers_are_registered_and_unknown_ones_refused():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    names = {marker.split(":")[0] for marker in options["markers"]}
    assert {"slow", "browser"} <= names
    assert "--strict-markers" in options["addopts"]


def test_the_profile_decides_the_example_count():
    ci, dev = settings.get_profile("ci"), settings.get_profile("dev")
    assert ci.max_examples == 200 and dev.max_examples < ci.max_examples
    expected = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev")
    assert settings.default.max_examples == settings.get_profile(expected).max_examples


@pytest.fixture
def suite(pytester):
    """A tiny suite run with this project's conftest and helpers."""
    for name in ("conftest.py", "helpers.py"):
        shutil.copy(HERE / name, pytester.path / name)
    pytester.makefile(".toml", pyproject='[tool.pytest.ini_options]\nmarkers = ["slow: x", "browser: x"]\n')
    pytester.makepyfile(test_spawns='''
        import subprocess, sys
        import pytest

        def test_starts_python():
            subprocess.run([sys.executable, "-c", "pass"], check=True)

        @pytest.mark.slow
        def test_marked_slow_starts_python():
            subprocess.run([sys.executable, "-c", "pass"], check=True)

        def test_starts_git():
            subprocess.run(["git", "--version"], check=True, capture_output=True)

        def test_uses_the_server_process(server_process):
            pass
    ''')
    return pytester


def test_the_fast_tier_refuses_an_unmarked_test_that_starts_python(suite):
    result = suite.runpytest_inprocess("-m", "not slow and not browser", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1, deselected=2)  # server_process: marked slow by conftest
    result.stdout.fnmatch_lines(["*test_starts_python starts 'python*': mark it @pytest.mark.slow*"])


def test_slow_selects_the_marked_ones(suite):
    result = suite.runpytest_inprocess("-m", "slow", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*test_marked_slow_starts_python", "*test_uses_the_server_process",
                                 "2/4 tests collected (2 deselected)*"])
