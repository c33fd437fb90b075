"""Shared fixtures: the app with a throw-away database, test clients, a real
waitress server on loopback, and a QR decoder; the test tiers (markers ``slow`` and
``browser``, docs/developing.md, "Test tiers") and the hypothesis profiles ("dev", "ci").

Helpers shared by test files (``text_of``, ``csrf_of``) live in tests/helpers.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import jinja2
import pytest
from flask import Flask
from hypothesis import settings

from companion import create_app
from helpers import ServerProcess, decode_qr
from helpers import REPO_ROOT, free_port  # noqa: F401  (for tests written before they moved to helpers)
from helpers import csrf_of, text_of  # noqa: F401  (shared helpers: tests import them from helpers)

# The test modules' rewritten asserts are cached (tests/**/__pycache__, ignored by git) even where
# PYTHONDONTWRITEBYTECODE is set, as in many Docker images and this project's CI machines:
# rewriting them all again took 7 of the fast tier's seconds on every run.
sys.dont_write_bytecode = False

pytest_plugins = ["pytester"]  # tests/test_test_tiers.py runs small suites with this conftest

# No test touches the real user's data folder (scores, secret key): platformdirs, in this
# process and in every server it starts, is given a throw-away one (Linux: XDG_DATA_HOME).
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="companion-test-data-")


# --- hypothesis: example counts come from the profile, not from the tests ------------------------
#
# "dev" (the default) keeps everyday runs quick; "ci" (selected when CI=true, as .ci/run sets)
# runs 200 examples per property, what every property test fixed for itself before the profiles.
# Tests that want more or fewer than others scale the profile's count (tests/web/test_fuzz.py) rather
# than fix one. Choose one by hand with HYPOTHESIS_PROFILE=ci or pytest --hypothesis-profile=ci.
CI_EXAMPLES = 200
settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=10, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") == "true" else "dev"))


# --- tiers -------------------------------------------------------------------------------------
#
#   python -m pytest -m "not slow and not browser"   the fast tier: rules, store and web (in-process)
#   python -m pytest                                 everything (python3 run.py test, CI)
#
# ``slow``: starts a server or another Python process, builds a wheel or a virtualenv, waits on
# real time, or fuzzes at length. A test using a fixture in SLOW_FIXTURES is marked slow here;
# the others carry @pytest.mark.slow. ``browser``: everything under tests/browser/ (its conftest).

# served: tests/serving/test_serve.py's `companion serve` process; postgres_server: a PostgreSQL
# server started for the session (every PostgreSQL run is in the whole suite, CI's, not the fast tier's)
SLOW_FIXTURES = {"server_process", "served", "postgres_server"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


class _LongestFirst:
    """With pytest-xdist (python3 run.py test runs on every core), the slow tier is handed out
    first, then the browser tier, the fast tier last (collection order within each): the longest
    tests start while there is plenty left for the other workers, and the run ends on short tests
    that keep every worker busy, not on one worker finishing a long test alone."""

    @pytest.hookimpl(trylast=True)  # after every conftest has marked its tests
    def pytest_collection_modifyitems(self, items):
        def tier(item) -> int:
            if item.get_closest_marker("browser"):
                return 1
            return 0 if item.get_closest_marker("slow") else 2

        items.sort(key=tier)


# COMPANION_SIXTH_GAME=1: the whole run with tests/toy_game/ registered as a sixth game, as a
# game someone adds would be. No shared test may count the games or name the five: they iterate
# GAMES (tests/test_sixth_game.py runs the fast tier so, and docs/developing.md says how).
SIXTH_GAME = os.environ.get("COMPANION_SIXTH_GAME") == "1"


def pytest_configure(config):
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike: xdist checks they agree
        config.pluginmanager.register(_LongestFirst(), "companion-longest-first")
    if SIXTH_GAME:
        from companion.games import register
        from tests import toy_game

        register(toy_game.GAME, templates=toy_game.TEMPLATES)


_SLOW_PROGRAMS = ("python", "pip", "bash", "sh", "companion")


@pytest.fixture(autouse=True)
def _fast_tier_starts_no_process(request, monkeypatch):
    """When the fast tier is asked for (-m "not slow ..."), a test not marked slow that starts a
    Python process (a server, pip, a build, a shell running one) fails and says so, so the tier
    stays fast as tests are added. Plain runs (python3 run.py test, CI) are not affected."""
    if "not slow" not in (request.config.getoption("markexpr") or "") or request.node.get_closest_marker("slow"):
        return
    original = subprocess.Popen.__init__

    def guarded(self, args, *rest, **kwargs):
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        program = os.path.basename(os.fsdecode(argv[0]).split()[0]) if argv else ""
        if os.fsdecode(argv[0]) == sys.executable or program.startswith(_SLOW_PROGRAMS):
            pytest.fail(f"{request.node.nodeid} starts {program!r}: mark it @pytest.mark.slow "
                        "(the fast tier runs no other Python process; docs/developing.md, Test tiers)", pytrace=False)
        original(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded)


# --- the app ------------------------------------------------------------------------------------

class _SharedTemplateCode(jinja2.BytecodeCache):
    """Compiled templates shared by every app the tests create in this process: each test's app
    has its own Jinja environment, which would otherwise compile every template it renders
    again (most of a page test's time). Keyed by the template's source checksum and the
    environment's compile-time settings, so an edited template or another setup compiles anew."""

    def __init__(self) -> None:
        self.code: dict[tuple, Any] = {}

    @staticmethod
    def _key(bucket: jinja2.bccache.Bucket) -> tuple:
        env = bucket.environment
        # Flask's autoescape is a method of its app: the same function for every app.
        autoescape = getattr(env.autoescape, "__func__", env.autoescape)
        return (bucket.key, bucket.checksum, autoescape, tuple(sorted(env.extensions)),
                env.block_start_string, env.variable_start_string, env.comment_start_string,
                env.line_statement_prefix, env.trim_blocks, env.lstrip_blocks, env.newline_sequence,
                env.keep_trailing_newline, env.optimized, env.is_async)

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        bucket.code = self.code.get(self._key(bucket))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.code[self._key(bucket)] = bucket.code


_TEMPLATE_CODE = _SharedTemplateCode()


def _share_url_builders() -> None:
    """Every app the tests create registers the same ~60 URL rules, and werkzeug generates and
    compiles two URL-building functions per rule (about half of create_app's time). The
    function depends only on the rule's text, parsed parts and defaults and takes the rule as
    its first argument, so one compiled for an equal rule serves every app in this process.
    (Tests only: the app itself builds its rules once. Left alone if werkzeug changes.)"""
    from werkzeug.routing.rules import Rule

    original = getattr(Rule, "_compile_builder", None)
    if original is None or getattr(original, "shared_by_tests", False):
        return
    built: dict[tuple, Any] = {}

    def shared(self, append_unknown: bool = True):
        defaults = self.defaults or {}
        try:
            key = (append_unknown, self.rule, tuple(self._trace),
                   tuple(sorted((str(k), repr(v), type(self._converters.get(k))) for k, v in defaults.items())))
            hash(key)
        except (AttributeError, TypeError):
            return original(self, append_unknown)
        if key not in built:
            built[key] = original(self, append_unknown)
        return built[key]

    shared.shared_by_tests = True
    Rule._compile_builder = shared


_share_url_builders()


@pytest.fixture(scope="session")
def _migrated_database(tmp_path_factory) -> Path:
    """An empty database as create_app leaves it (migrated, stamped), made once per session;
    each test's app starts from a copy, which is what a migration would have made anyway."""
    path = tmp_path_factory.mktemp("template-db") / "template.sqlite"
    create_app({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "test"})
    import sqlite3  # tests may use SQLite directly; companion/ keeps it inside its store

    conn = sqlite3.connect(path)
    # Confirming deals (issue 45) off, as the tests written before it assume; a test marked
    # ``confirming`` turns it on (confirming_as_marked): one write per marked test, not per test.
    conn.execute("INSERT INTO hall_settings (id, confirm_deals) VALUES (1, 0)")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file: copy that alone
    conn.close()
    return path


def make_app(config: Mapping[str, Any], template: Path | None = None) -> Flask:
    """create_app(config), starting from a copy of ``template`` (a migrated empty database) when
    config's DATABASE does not exist yet, and sharing compiled templates with the other apps."""
    database = Path(config["DATABASE"]) if config.get("DATABASE") else None
    if template is not None and database is not None and database.parent.is_dir() and not database.exists():
        shutil.copyfile(template, database)
    flask_app = create_app(dict(config))
    flask_app.jinja_env.bytecode_cache = _TEMPLATE_CODE
    return flask_app


def _config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    config = {"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"), "SECRET_KEY": "test",
              "WTF_CSRF_ENABLED": False}
    config.update(extra)
    return config


# --- both backends (issue 35) -----------------------------------------------------------------
#
# The tests in these folders that use the ``app`` fixture (or ``csrf_app``, ``client``, ``conn``)
# run twice: on SQLite and on a throw-away PostgreSQL server (tests/store/throwaway_postgres.py).
# Elsewhere ``app`` is SQLite's alone. Under CI=true a missing PostgreSQL fails, never skips.
BOTH_BACKENDS = {"tables", "night", "players"}  # tests/store/test_postgres.py: what only PostgreSQL has


def pytest_generate_tests(metafunc):
    path = Path(str(metafunc.definition.path))
    if ("backend" in metafunc.fixturenames and path.parent.name in BOTH_BACKENDS
            and path.parent.parent == Path(__file__).resolve().parent):
        # The PostgreSQL repeat is slow: 15% of the fast tier's tests took 41% of its time (issue 41).
        metafunc.parametrize("backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)],
                             indirect=True)


@pytest.fixture
def backend(request) -> str:
    """The store's backend for this test's app: "sqlite" (the default) or "postgresql"."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="session")
def postgres_server():
    """A throw-away PostgreSQL server for the session (a unix socket in a temporary folder)."""
    from store.throwaway_postgres import ThrowawayPostgres, missing_reason

    reason = missing_reason()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL tests can't run: {reason}; CI must install it (.ci/run)", pytrace=False)
        pytest.skip(f"no PostgreSQL here: {reason}")
    server = ThrowawayPostgres().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _migrated_postgres(postgres_server) -> str:
    """The session's migrated PostgreSQL database (each test empties it: ``postgres_database``)."""
    from companion.store import migrate

    url = postgres_server.new_database()
    migrate(url)
    return url


@pytest.fixture
def postgres_database(postgres_server, _migrated_postgres: str) -> str:
    """The URL of a migrated PostgreSQL database holding nothing (emptied for this test, its ids
    counted from 1 again, as in a new one: a copy per test takes a second)."""
    postgres_server.empty(_migrated_postgres)
    # Same address, new contents: the season kept in memory (by address) is another test's.
    from companion.players import service as players

    players.forget()
    return _migrated_postgres


def _database_for(backend: str, request, tmp_path: Path) -> str:
    if backend == "postgresql":
        return request.getfixturevalue("postgres_database")
    return str(tmp_path / "t.sqlite")


def confirming_as_marked(flask_app: Flask, request) -> Flask:
    """Confirming deals (issue 45) is on by default in the product; a test's app has it off unless
    the test is marked ``confirming``: the tests written before it enter deals from phones and
    count them at once, and the confirmation tests say so (tests/tables/test_confirming.py)."""
    from companion.store.postgres import is_postgres

    marked = request.node.get_closest_marker("confirming") is not None
    database = flask_app.config["DATABASE"]
    # The SQLite template has it off already (_migrated_database); an emptied PostgreSQL has the default.
    if marked or is_postgres(database):
        from companion.store import connect, nights as night_rows, write

        conn = connect(database)
        try:
            with write(conn):
                night_rows.set_confirm_deals(conn, marked)
        finally:
            conn.close()
    return flask_app


@pytest.fixture
def app(tmp_path: Path, _migrated_database: Path, backend: str, request) -> Flask:
    """The app with its own empty database and CSRF checks off (for plain form tests)."""
    return confirming_as_marked(
        make_app(_config(tmp_path, DATABASE=_database_for(backend, request, tmp_path)), _migrated_database), request)


@pytest.fixture
def client(app: Flask):
    return app.test_client()


@pytest.fixture
def conn(app: Flask):
    """A connection to ``app``'s database, closed after the test."""
    from companion.store import connect

    c = connect(app.config["DATABASE"])
    yield c
    c.close()


@pytest.fixture
def csrf_app(tmp_path: Path, _migrated_database: Path, backend: str, request) -> Flask:
    """Same as ``app`` but with CSRF protection on, as in production."""
    return confirming_as_marked(make_app(_config(tmp_path, WTF_CSRF_ENABLED=True,
                                                 DATABASE=_database_for(backend, request, tmp_path)),
                                         _migrated_database), request)


@pytest.fixture
def csrf_client(csrf_app: Flask):
    return csrf_app.test_client()


@pytest.fixture
def app_of() -> Callable[[Mapping[str, Any]], Flask]:
    """``app_of(config)``: the app on the database config names, opened as it is (an old
    release's copy, say), sharing compiled templates with the other apps."""
    return make_app


# --- a real server ---------------------------------------------------------------------------

@dataclass
class LiveServer:
    url: str  # "http://127.0.0.1:<port>/" (trailing slash)
    app: Flask
    port: int
    host: str = "127.0.0.1"

    def __call__(self, path: str = "/") -> str:
        """Absolute URL of ``path`` on this server."""
        return self.url.rstrip("/") + "/" + path.lstrip("/")


class _ServerThread:
    """waitress in a background thread, bound to loopback on an ephemeral port."""

    def __init__(self, app: Flask, threads: int = 8):
        from waitress import create_server

        # Loopback only: tests never open a port other machines could reach.
        self.server = create_server(app, host="127.0.0.1", port=0, threads=threads,
                                    channel_timeout=30, ident="companion-test",
                                    expose_tracebacks=False)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, name=f"live-server-{self.port}",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        from waitress import wasyncore

        server = self.server

        def close_everything() -> None:  # runs inside the server's own loop thread
            wasyncore.close_all(server._map)

        try:
            server.trigger.pull_trigger(close_everything)
        except OSError:
            pass  # trigger already closed: the loop has ended
        self.thread.join(10)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)
        if self.thread.is_alive():  # pragma: no cover - only on a hung request
            raise RuntimeError("live server did not stop within 10 s")


def _wait_until_up(url: str, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url + "healthz", timeout=2) as response:
                response.read()
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture
def live_server_factory(tmp_path: Path, _migrated_database: Path, request) -> Iterator[Callable[..., LiveServer]]:
    """Start a real server running ``create_app(config)``; call with extra config.

    The database is per test (under ``tmp_path``). CSRF is on and TESTING off, as in
    production. Every server started is stopped at the end of the test.
    """
    started: list[_ServerThread] = []

    # waitress holds a thread per open event stream (each table page holds one): room for
    # several phones and their reconnects (`companion serve` itself uses gevent, no threads).
    def start(config: Mapping[str, Any] | None = None, *, threads: int = 32) -> LiveServer:
        # A heartbeat four times a second: waitress notices a stream whose page has gone at its next write
        # (`companion serve` asks the socket), so a phone going from table to table keeps its share.
        settings = {"DATABASE": str(tmp_path / f"live{len(started)}.sqlite"), "SECRET_KEY": "test",
                    "STREAM_HEARTBEAT_S": 0.25}
        settings.update(config or {})
        flask_app = confirming_as_marked(make_app(settings, _migrated_database), request)
        runner = _ServerThread(flask_app, threads=threads)
        runner.start()
        started.append(runner)
        url = f"http://127.0.0.1:{runner.port}/"
        _wait_until_up(url)
        return LiveServer(url=url, app=flask_app, port=runner.port)

    yield start
    for runner in reversed(started):
        runner.stop()


@pytest.fixture
def live_server(live_server_factory) -> LiveServer:
    """The real app under waitress on 127.0.0.1:<ephemeral>, with its own database.

    ``live_server.url`` ends with "/", ``live_server("/games/rwd")`` builds a URL,
    ``live_server.app`` is the Flask app (for ``app_context()`` and DB checks).
    """
    return live_server_factory()


# --- QR decoding (decode_qr: tests/helpers.py) ------------------------------------------------

@pytest.fixture
def qr_decode() -> Callable[[Any], list[str]]:
    """``qr_decode(png_bytes_or_PIL_image)`` -> list of decoded QR texts.

    zxing-cpp and Pillow are test requirements: a missing one fails, never skips."""
    return decode_qr


# --- `companion serve` as a separate process, to kill -9 (ServerProcess: tests/helpers.py) -------

@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[ServerProcess]:
    """A started `companion serve` process (see ServerProcess); always stopped afterwards."""
    server = ServerProcess(tmp_path / "served.sqlite", tmp_path / "serve.log")
    server.start()
    yield server
    server.stop()
