"""A database with one heavy table, for bench/fair_share.py (issue 13 item 4, issue 23).

``build_database(path)`` makes a database holding one heavy table (an RWD match of 100 drawn
deals, the deal cap, written straight in) and one ordinary table; it returns both tokens and
the ordinary table's revision.

The benchmark that stood here (another table's phone while 16 loops hammer the heavy one) is
bench/fair_share.py now, with 64 loops from one device and a target; that the heavy table's
turns leave other tables served is tested in tests/serving/test_table_turns.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion import store as storage  # noqa: E402
from companion.tables import service as store  # noqa: E402
from companion.games import GAMES  # noqa: E402

HEAVY_DEALS = 100


def draw_facts(game, progress) -> dict:
    form = {f"chips-{i}": c for i, c in enumerate(["4", "3", "3", "3"])}
    form.update({f"tricks-{i}": c for i, c in enumerate(["4", "3", "3", "3"])})
    upcoming = game.next_deal(progress)
    if upcoming.choice:
        form[upcoming.choice.key] = str(upcoming.choice.options[0])
    facts, errors = game.parse_deal(form, progress)
    assert not errors, errors
    return facts


def build_database(path: Path) -> tuple[str, str, int]:
    """(heavy token, light token, light revision)."""
    storage.migrate(str(path))
    conn = storage.connect(str(path))
    game = GAMES["rwd"]
    heavy = store.create(conn, "rwd", ["Aiko", "Ben", "Chiyo", "Daisuke"], {}).table.token
    progress = store.load(conn, heavy).progress()
    stamp = store.now()
    with store.write(conn):  # straight in: the cap may refuse entries through the store
        table_id = conn.execute("SELECT id FROM tables WHERE token = ?", (heavy,)).fetchone()[0]
        for number in range(1, HEAVY_DEALS + 1):
            facts = draw_facts(game, progress)
            progress = game.add_deal(progress, facts)
            conn.execute("INSERT INTO deals (table_id, number, facts, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                         (table_id, number, store.facts_json(facts), stamp, stamp))
        conn.execute("UPDATE tables SET revision = ? WHERE id = ?", (HEAVY_DEALS, table_id))
    light = store.create(conn, "rwd", ["Emi", "Fumio", "Goro", "Hana"], {}).table.token
    revision = store.revision(conn, light)
    conn.close()
    return heavy, light, revision
