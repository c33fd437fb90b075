"""Rematch exactly once (issue 13 item 5): simultaneous presses make one table, with the game's
rematch options, and every phone is led to it. Moved from test_hardening.py."""

from __future__ import annotations

import threading

from companion import store as storage
from companion.tables import service as store
from helpers import fresh_db
from helpers import create_table as create_via_form
import table_writes


def test_sixteen_simultaneous_rematches_make_one_table(tmp_path):
    path = fresh_db(tmp_path)
    conn = storage.connect(path)
    token = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Di"], {})
    before = store.revision(conn, token)
    for _round in range(3):
        barrier = threading.Barrier(16)
        results: list[str] = []
        errors: list[BaseException] = []

        def press():
            own = storage.connect(path)
            try:
                barrier.wait()
                results.append(table_writes.rematch(own, token))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
            finally:
                own.close()

        threads = [threading.Thread(target=press) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert len(set(results)) == 1
    table = store.load(conn, token)
    assert conn.execute("SELECT COUNT(*) FROM tables WHERE rematch_of = ?", (table.id,)).fetchone()[0] == 1
    assert table.rematch_token == results[0]
    assert store.revision(conn, token) == before + 1  # phones on the old table learn of it once
    new = store.load(conn, results[0])
    assert new.setup.players == table.setup.players and new.rematch_token is None


def test_rematch_uses_the_games_rematch_options(tmp_path, monkeypatch):
    conn = storage.connect(fresh_db(tmp_path))
    token = table_writes.create(conn, "miraiscope", ["Ann", "Bo"], {})
    game = store.load(conn, token).game
    option = game.options[0]
    monkeypatch.setattr(type(game), "rematch_options", lambda self, match: {option.key: 1}, raising=False)
    new = store.load(conn, table_writes.rematch(conn, token))
    assert new.setup.options[option.key] == 1


def test_rematch_route_leads_every_phone_to_the_same_table(client):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    first = client.post(f"/t/{token}/rematch")
    second = client.post(f"/t/{token}/rematch")
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]
