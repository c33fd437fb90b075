"""Starting on a full disk says the disk is full (issue 23 item 8), not that the database is
unusable and should be moved aside. The full disk is simulated as tests/store/test_storage_faults.py
does: ``PRAGMA max_page_count`` pinned to the file's current size, so the next page SQLite needs
fails with "database or disk is full" (here on the connection that upgrades the database)."""

from __future__ import annotations

import re

import pytest

from companion import cli, create_app, store
from companion.store import connection, schema


def full_disk(monkeypatch) -> None:
    real = connection.raw_connect

    def pinned(path, **kw):
        conn = real(path, **kw)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {max(pages, 1)}")
        return conn

    monkeypatch.setattr(connection, "raw_connect", pinned)


# How many migrations the database below has: up to the last one that creates a table or an
# index (those need new pages; a migration of ALTER TABLE ADD COLUMN alone, as 7, may fit in
# the pages the file has, which the simulated full disk would let through; nor one whose only
# CREATE is "IF NOT EXISTS", as 12, when an earlier one made that table already).
BEHIND = max(n for n, script in enumerate(schema.MIGRATIONS) if re.search(r"CREATE (?!TABLE IF NOT EXISTS)", script))


def last_release_database(path, monkeypatch) -> None:
    """A database as an earlier release left it (behind by a migration that creates tables), so
    starting this version has to write new pages (the upgrade)."""
    previous = schema.MIGRATIONS[:BEHIND]
    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", previous)
        m.setattr(schema, "SCHEMA_VERSION", len(previous))
        schema.migrate(str(path))


def test_starting_on_a_full_disk_says_the_disk_is_full(tmp_path, monkeypatch):
    db = tmp_path / "scores.sqlite"
    last_release_database(db, monkeypatch)
    full_disk(monkeypatch)
    with pytest.raises(store.DiskFull) as full:
        create_app({"TESTING": True, "DATABASE": str(db), "SECRET_KEY": "t"})
    message = str(full.value)
    assert "disk" in message and "is full" in message and str(db) in message
    assert "not a usable" not in message and "move it aside" not in message
    # Nothing half-done: the file is still the last release's, and starts once there is room.
    monkeypatch.undo()
    check = connection.raw_connect(str(db))
    assert check.execute("PRAGMA user_version").fetchone()[0] == BEHIND
    check.close()
    assert store.migrate(str(db)) == schema.SCHEMA_VERSION


def test_serve_on_a_full_disk_prints_that_the_disk_is_full(tmp_path, monkeypatch, capsys):
    db = tmp_path / "scores.sqlite"
    last_release_database(db, monkeypatch)
    full_disk(monkeypatch)
    from companion.serving import patch  # serve patches gevent first: not in this test process
    monkeypatch.setattr(patch, "patch_for_gevent", lambda: None)
    assert cli.main(["serve", "--host", "127.0.0.1", "--port", "1", "--db", str(db), "--no-qr"]) == 2
    err = capsys.readouterr().err
    assert "is full" in err and "move it aside" not in err


def test_a_damaged_file_is_still_called_unusable(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"definitely not sqlite " * 400)
    with pytest.raises(store.DatabaseError) as refused:
        store.migrate(str(bad))
    assert not isinstance(refused.value, store.DiskFull)
    assert "move it aside" in str(refused.value)
