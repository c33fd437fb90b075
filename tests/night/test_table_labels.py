"""Every table of a night has one unique label (issue 25 QA): a drawn round's tables continue the
night's numbering after tables prepared or opened before the draw, and the seating list names the
same label as the hall board."""

from __future__ import annotations

import re

from companion.night import service as night
from helpers import text_of
from helpers import join_night as join_all
from table_writes import done


def test_drawn_tables_continue_the_nights_numbering(app, client, conn):
    join_all(app)
    done(night.prepare(conn, "rwd", 4, 3))  # three prepared tables: Table 1-3
    assert client.post("/hall/rounds", data={"tables-rwd": "3"}).status_code == 303
    hall = text_of(client.get("/hall").get_data(as_text=True))
    (r,) = night.night_rounds(conn)
    seqs = [rt.table.seq for rt in r.tables]
    assert len(set(seqs)) == 3 and min(seqs) >= 2
    people = {p.id: p.name for p in night.roster(conn)}
    for rt in r.tables:
        for pid in rt.player_ids:
            assert f"{people[pid]} → Table {rt.table.seq} · " in hall
    export = client.get("/hall/export.json").get_data(as_text=True)
    labels = re.findall(r'"label": ?"(Table \d+)"', export)
    # Six tables, six labels (the old code called the drawn ones "Table 1-3" again).
    assert set(labels) == {f"Table {n}" for n in range(1, 7)}
