"""Issue 26 leftover: after an upgrade, `companion serve` replays the tables' player results
before it answers the first phone (was: on the first page someone opened, ~3 s for 4,000 tables)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from companion import create_app
from companion.players import service as players
from companion.cli import bring_results_up_to_date
from companion.store import connect

FIXTURE = Path(__file__).parent.parent / "fixtures" / "release-aaf9a5c.sqlite"


def stored_results(path: Path) -> int:
    raw = sqlite3.connect(path)
    try:
        return raw.execute("SELECT count(*) FROM results").fetchone()[0]
    finally:
        raw.close()


def test_the_replay_runs_once_before_serving(tmp_path, capsys):
    path = tmp_path / "laptop.sqlite"
    shutil.copyfile(FIXTURE, path)
    create_app({"DATABASE": str(path), "SECRET_KEY": "test"})  # the upgrade (migration) itself
    conn = connect(str(path))
    try:
        assert players.results_stale(conn)  # the migration leaves the replay to the first caller
    finally:
        conn.close()
    replayed = bring_results_up_to_date(str(path))
    assert replayed > 0 and stored_results(path) == replayed
    assert "Bringing the players' results up to date" in capsys.readouterr().out
    # An unchanged laptop: nothing to replay, nothing said.
    assert bring_results_up_to_date(str(path)) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.slow
def test_serve_has_replayed_before_its_first_request(tmp_path):
    from helpers import ServerProcess
    path = tmp_path / "served.sqlite"
    shutil.copyfile(FIXTURE, path)
    server = ServerProcess(path, tmp_path / "serve.log")
    server.start()  # returns once the port accepts connections; no request sent
    try:
        conn = connect(str(path))
        try:
            assert not players.results_stale(conn)
        finally:
            conn.close()
        assert "Bringing the players' results up to date" in (tmp_path / "serve.log").read_text()
    finally:
        server.stop()
