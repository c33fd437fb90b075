"""The language switch on a page that answers a form post (a refusal shown in place) returns to
a page a GET opens, not to the post's own address (which answers 405)."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

from companion.night import service as night
from helpers import join_night as join_all
from table_writes import done


def switch_target(html: str) -> str:
    link = unescape(re.search(r'<a href="([^"]+)" lang="ja"', html).group(1))
    return parse_qs(urlsplit(link).query)["next"][0]


def test_a_hall_refusal_switches_language_back_to_the_hall(app, client, conn):
    join_all(app)
    client.post("/hall/rounds", data={"draw": "1", "tables-twin_shoot": "3"})
    late = done(night.join(conn, "Zed"))
    refused = client.post("/hall/join-table", data={"player": str(late.id), "table": "1"})
    assert refused.status_code == 422
    target = switch_target(refused.get_data(as_text=True))
    assert target == "/hall"
    assert client.get(target).status_code == 200


def test_a_refused_correction_switches_back_to_its_table(client):
    from helpers import create_table as create
    token = create(client, "rwd", ["Ann", "Bo", "Cy"])
    client.post(f"/t/{token}/deals", data={"number": "1", "chips-0": "2", "chips-1": "7", "tricks-0": "5",
                                             "tricks-1": "6"})
    refused = client.post(f"/t/{token}/deals/1", data={"chips-0": "99", "was": "x"})
    assert refused.status_code in (409, 422)
    assert switch_target(refused.get_data(as_text=True)) == f"/t/{token}"


def test_a_get_page_switches_back_to_itself_with_its_query(client):
    page = client.get("/games/rwd?players=4").get_data(as_text=True)
    assert switch_target(page) == "/games/rwd?players=4"
