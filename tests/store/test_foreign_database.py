"""Our own database only (issue 13 item 9): a new database is stamped; another program's file is
refused and left byte-identical, by migrate and by `companion serve`; an earlier version's is
recognised and kept. Moved from test_hardening.py."""

from __future__ import annotations

import sqlite3
import sys

import pytest

from companion import store as storage
from companion.store import schema
from helpers import fresh_db


def test_a_new_database_is_stamped(tmp_path):
    path = fresh_db(tmp_path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == storage.APPLICATION_ID


def test_another_programs_database_is_refused_and_left_byte_identical(tmp_path):
    path = tmp_path / "other.sqlite"
    other = sqlite3.connect(path)
    other.executescript("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
                        "INSERT INTO notes (body) VALUES ('keep me');")
    other.close()
    before = path.read_bytes()
    with pytest.raises(storage.DatabaseError, match="another program"):
        storage.migrate(str(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]  # no -wal / -shm left


def test_a_stamped_foreign_database_is_refused_even_with_our_table_names(tmp_path):
    path = tmp_path / "x.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 12345")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(storage.DatabaseError):
        storage.migrate(str(path))
    assert path.read_bytes() == before


def test_an_earlier_versions_database_is_recognised_stamped_and_kept(tmp_path):
    path = str(tmp_path / "old.sqlite")
    conn = sqlite3.connect(path)
    for statement in schema._statements(storage.MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO tables (token, game, players, options, created_at, updated_at)"
                 " VALUES ('tok_tok_tok_tok_tok', 'rwd', '[\"A\",\"B\",\"C\",\"D\"]', '{}', 'x', 'x')")
    conn.commit()
    conn.close()
    assert storage.migrate(path) == storage.SCHEMA_VERSION
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == storage.APPLICATION_ID
    assert conn.execute("SELECT token FROM tables").fetchall() == [("tok_tok_tok_tok_tok",)]


@pytest.mark.slow
def test_serve_refuses_another_programs_database(tmp_path):
    import subprocess
    path = tmp_path / "other.sqlite"
    sqlite3.connect(path).executescript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    before = path.read_bytes()
    result = subprocess.run([sys.executable, "-m", "companion.cli", "serve", "--db", str(path), "--host", "127.0.0.1",
                             "--port", "1"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "another program" in result.stderr
    assert path.read_bytes() == before
