"""The hall board's table tiles (issue 24): the leader is named by what decides the match (RWD's
deal wins), not by points. Moved from test_issue24_pages.py."""

from __future__ import annotations

from helpers import create_table as create
from helpers import enter_facts as enter
from helpers import text_of

AMY_SMALL = {"chips": [5, 5, 7], "tricks": [6, 5, 6]}   # Amy +1 alone (Bo 0, Cy -1)
BO_BIG = {"chips": [5, 4, 8], "tricks": [2, 10, 5]}     # Bo +6 alone


def test_hall_tile_leader_is_by_deal_wins_where_they_decide(client):
    token = create(client, "rwd", ["Amy", "Bo", "Cy"], first_start_player=0)
    for number, facts in enumerate([AMY_SMALL, AMY_SMALL, BO_BIG], start=1):
        enter(client, token, number, facts, "rwd")
    board = text_of(client.get("/hall").get_data(as_text=True))
    leading = board[board.index("Leading:"):][:60]
    assert "Amy Deal wins 2" in leading and "Bo" not in leading.split("Last change")[0]

