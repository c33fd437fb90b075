"""The database the app creates and opens (the foundation issue): migrated to the current schema
with WAL and foreign keys, idempotently; a newer, garbage or damaged file refused and left
untouched. Moved from test_foundation.py."""

from __future__ import annotations

import sqlite3

import pytest

from companion import create_app, store as storage
from helpers import check_the_old_round_reads_as_mixed, insert_a_round_drawn_before_draws_were_kept


def test_migration_creates_current_schema_with_wal_and_foreign_keys(app):
    path = app.config["DATABASE"]
    conn = storage.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == storage.SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"tables", "deals", "changes"} <= tables
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at) "
                         "VALUES (999, 1, '{}', 'x', 'x')")
    finally:
        conn.close()


def test_request_connections_enforce_foreign_keys(app):
    with app.app_context():
        assert storage.get_db().execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_migrate_is_idempotent(tmp_path):
    path = str(tmp_path / "again.sqlite")
    assert storage.migrate(path) == storage.SCHEMA_VERSION
    assert storage.migrate(path) == storage.SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.sqlite"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {storage.SCHEMA_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(storage.DatabaseError, match="newer"):
        storage.migrate(str(path))
    with pytest.raises(storage.DatabaseError):
        create_app({"DATABASE": str(path), "SECRET_KEY": "x"})
    assert path.read_bytes() == before


def test_garbage_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "garbage.sqlite"
    garbage = bytes((i * 37 + 11) % 256 for i in range(8192))
    path.write_bytes(garbage)
    with pytest.raises(storage.DatabaseError, match="untouched"):
        storage.migrate(str(path))
    with pytest.raises(storage.DatabaseError):
        create_app({"DATABASE": str(path), "SECRET_KEY": "x"})
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["garbage.sqlite"]


def test_damaged_database_is_refused_and_left_untouched(tmp_path):
    """A real SQLite file whose pages were overwritten: refused before anything is written."""
    path = tmp_path / "damaged.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size = 1024")
    conn.execute("CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)")
    conn.executemany("INSERT INTO filler (body) VALUES (?)", [("x" * 200,) for _ in range(200)])
    conn.execute("CREATE INDEX filler_body ON filler(body)")
    conn.commit()
    conn.close()
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 1024
    data[3 * 1024:6 * 1024] = b"\xa5" * 3 * 1024  # smash pages 4-6, keep the header
    path.write_bytes(bytes(data))
    with pytest.raises(storage.DatabaseError):
        storage.migrate(str(path))
    assert path.read_bytes() == bytes(data)


def test_rounds_drawn_before_rounds_kept_their_draw_read_as_mixed(tmp_path, monkeypatch, app_of):
    """A database at schema 8 (before night_rounds.draw) with a round upgrades in place; the
    round reads as drawn by mixing, with no wishes."""
    from companion.store import schema

    path = str(tmp_path / "before-draws.sqlite")
    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:8])
        m.setattr(schema, "SCHEMA_VERSION", 8)
        assert schema.migrate(path) == 8
    conn = storage.connect(path)
    try:
        assert "draw" not in {row[1] for row in conn.execute("PRAGMA table_info(night_rounds)")}
        insert_a_round_drawn_before_draws_were_kept(conn)
    finally:
        conn.close()
    app = app_of({"TESTING": True, "DATABASE": path, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})
    check_the_old_round_reads_as_mixed(app)
