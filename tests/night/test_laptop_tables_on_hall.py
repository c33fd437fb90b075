"""Issue 23 leftover: a table the organiser opens on the laptop through the ordinary new-table
form is the night's from the start (numbered, on the hall board before a deal), as a prepared
one is; a table a phone opens still joins the board only once it is played."""

from __future__ import annotations

import re

from companion.tables import service as store
from helpers import create_table as create


def board_tables(client) -> list[str]:
    return re.findall(r'id="hall-table-(\d+)"', client.get("/hall/board").get_data(as_text=True))


def phone(app, n: int):
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": f"192.168.1.{n}"})
    return client


def test_a_table_opened_on_the_laptop_is_on_the_hall_before_a_deal(client, conn):
    token = create(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    table = store.load(conn, token)
    assert table.seq == 1 and not table.deals
    assert board_tables(client) == [str(table.id)]
    assert "Table 1" in client.get("/hall/board").get_data(as_text=True)


def test_a_table_a_phone_opens_is_not_numbered_nor_on_the_hall_until_played(app, client, conn):
    token = create(phone(app, 40), "rwd", ["Ann", "Bo", "Cy", "Di"])
    assert store.load(conn, token).seq is None
    assert board_tables(client) == []


def test_laptop_tables_continue_the_nights_numbering(client, conn):
    assert client.post("/hall/prepare", data={"game": "rwd", "players": "4", "count": "2"}).status_code == 303
    token = create(client, "lucky_cube", ["Ann", "Bo", "Cy"])
    assert store.load(conn, token).seq == 3  # after the two prepared
