"""The test tiers and hypothesis profiles (tests/conftest.py, pyproject.toml, docs/developing.md, "Test tiers")."""

from __future__ import annotations

import importlib.util
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
    for name in ("conftest.py", "helpers.py", "table_writes.py"):  # helpers imports table_writes
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


# --- on every core (pytest-xdist: python3 run.py test adds -n) ------------------------------------

@pytest.mark.slow  # starts the workers, two Python processes
def test_the_fast_tier_refuses_it_on_every_core_too(suite):
    result = suite.runpytest_subprocess("-n", "2", "-m", "not slow and not browser", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_starts_python starts 'python*': mark it @pytest.mark.slow*"])


@pytest.mark.slow  # starts the workers
def test_no_test_collected_is_still_exit_code_5_on_every_core(suite):
    """.ci/run fails a run in which no test ran by pytest's exit code 5: xdist must keep it."""
    assert suite.runpytest_subprocess("-n", "2", "-k", "no_such_test").ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_each_worker_takes_the_slow_tier_first_then_the_browser_tier_then_the_fast(suite, monkeypatch):
    suite.makepyfile(test_mixed='''
        import pytest

        def test_fast_one():
            pass

        @pytest.mark.browser
        def test_in_a_browser():
            pass

        @pytest.mark.slow
        def test_slow_one():
            pass

        def test_fast_two():
            pass
    ''')
    in_order = ["*test_mixed.py::test_fast_one", "*test_mixed.py::test_in_a_browser",
                "*test_mixed.py::test_slow_one", "*test_mixed.py::test_fast_two"]
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may run in a worker itself
    suite.runpytest_inprocess("--collect-only", "-q", "test_mixed.py").stdout.fnmatch_lines(in_order)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")  # what a worker sees
    worker = suite.runpytest_inprocess("--collect-only", "-q", "test_mixed.py")
    worker.stdout.fnmatch_lines([in_order[2], in_order[1], in_order[0], in_order[3]])


def run_py():
    spec = importlib.util.spec_from_file_location("run_py", ROOT / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_run_py_test_spreads_the_tests_over_the_cores_unless_told_otherwise(monkeypatch):
    run = run_py()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert run.parallel([]) == ["-n", "2", "--dist", "loadgroup"]
    assert run.parallel(["-m", "not slow", "tests/games"]) == ["-n", "2", "--dist", "loadgroup"]
    for own in (["-n", "0"], ["-n4"], ["--numprocesses=3"], ["-p", "no:xdist"], ["--dist", "load"]):
        assert run.parallel(own) == [], own
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert run.parallel([])[:2] == ["-n", "4"]  # every worker's Chromium: four at most
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert run.parallel([]) == []


def test_every_postgresql_run_is_in_the_slow_tier(request):
    """The fast tier is SQLite's (issue 41: the PostgreSQL repeats were 41% of its time); the
    whole suite, CI's, runs them. Checked on the items of this very run."""
    fast_on_postgres = [item.nodeid for item in request.session.items
                        if ("[postgresql" in item.nodeid or "postgres_server" in getattr(item, "fixturenames", ()))
                        and not item.get_closest_marker("slow")]
    assert not fast_on_postgres, fast_on_postgres[:5]
