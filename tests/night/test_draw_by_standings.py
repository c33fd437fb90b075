"""The hall's draw form offers *by standings* beside *mix* (issue 33): a plain form field (no
script needed), said in both languages; a round drawn so seats the leaders of tonight's
leaderboard (read from the night's results) at table 1."""

from __future__ import annotations

import re

from companion.meetup import seating
from companion.night import service as night
from companion.tables import service as store
from helpers import join_night as join_all
from helpers import text_of, visible_page
import table_writes


def rwd_deal(winner: int, second: int) -> dict:
    tricks = [2, 2, 2, 2]
    tricks[winner] += 3
    tricks[second] += 2
    return {"chips": [3, 3, 3, 4], "tricks": tricks}


def play_until_over(conn, token: str, winner: int, second: int) -> None:
    table = store.load(conn, token)
    while not table.match().over:
        table = table_writes.add_deal(conn, token, len(table.deals) + 1, rwd_deal(winner, second))


def draw_form(client, lang: str = "en") -> str:
    page = client.get("/hall", headers={"Accept-Language": lang}).get_data(as_text=True)
    return re.search(r'<form[^>]*id="draw".*?</form>', page, re.S).group(0)


def test_the_form_offers_mix_and_by_standings_as_plain_radio_buttons_in_both_languages(client):
    form = draw_form(client)
    assert re.search(r'<input type="radio" name="by" value="mix" checked>', form)
    assert re.search(r'<input type="radio" name="by" value="standings" >', form)
    text = text_of(form)
    assert "By standings" in text and "the leaders at the round's first table" in text
    ja = text_of(draw_form(client, "ja"))
    assert "成績順" in ja and "By standings" not in ja and "Mix" not in ja


def test_a_round_by_standings_seats_the_leaders_together_at_table_1(app, client, conn):
    join_all(app)  # twelve players
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "3"}).status_code == 303
    (first,) = night.night_rounds(conn)
    for rt in first.tables:
        play_until_over(conn, rt.table.token, winner=0, second=1)
    standings = night.leaderboard(night.night_results(conn))
    assert len(standings) == 12
    points = {p.id: next(s.points for s in standings if s.key == p.key) for p in night.roster(conn)}

    answer = client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "3", "by": "standings"})
    assert answer.status_code == 303
    second = night.night_rounds(conn)[-1]
    leaders = set(second.tables[0].player_ids)
    # The three winners and the three runners-up are the top six: table 1 holds the winners and
    # one runner-up, table 2 the others; every table 1 player is ahead of everyone elsewhere.
    assert {pid for pid, p in points.items() if p == 1} <= leaders
    assert min(points[pid] for pid in leaders) >= max(points[pid] for pid in points if pid not in leaders)
    table_2 = second.tables[1].player_ids
    assert min(points[pid] for pid in table_2) >= max(points[pid] for pid in second.tables[2].player_ids)


def drawn_again(conn, round_, standings=None) -> tuple:
    """The pure draw of ``round_``'s roster, history and seed: what the hall must have seated."""
    earlier = [r.seating() for r in night.night_rounds(conn) if r.number < round_.number]
    return seating.draw_round([p.id for p in night.roster(conn)], earlier, chosen=["rwd"] * 3, seed=round_.seed,
                              standings=standings).tables


def test_mix_stays_the_default_and_by_standings_reads_the_leaderboard(app, client, conn):
    join_all(app)
    client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "3"})
    for rt in night.night_rounds(conn)[0].tables:
        play_until_over(conn, rt.table.token, winner=0, second=1)
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "3"}).status_code == 303
    mixed = night.night_rounds(conn)[-1]
    assert mixed.seating() == drawn_again(conn, mixed)
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "3", "by": "standings"}).status_code == 303
    by = night.night_rounds(conn)[-1]
    points = night.points_so_far(conn, night.roster(conn))
    assert sorted(points.values()) != [0] * 12
    assert by.seating() == drawn_again(conn, by, points)
    assert by.seating() != drawn_again(conn, by)  # the same seed mixing would seat them otherwise


def test_an_unknown_way_is_refused_next_to_the_field_and_the_form_kept(app, client, conn):
    join_all(app)
    answer = client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "3", "minutes": "25", "by": "strongest"})
    assert answer.status_code == 422
    page = answer.get_data(as_text=True)
    field = re.search(r'<fieldset class="field draw-ways has-error" id="f-by">.*?</fieldset>', page, re.S).group(0)
    assert "Choose how to seat the round." in text_of(field)
    assert 'name="minutes"' in page and 'value="25"' in page
    assert night.night_rounds(conn) == []


def test_a_refused_draw_keeps_by_standings_ticked(app, client):
    join_all(app, ["Ann"])  # one player: no draw
    page = client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "1", "by": "standings"}).get_data(as_text=True)
    assert re.search(r'<input type="radio" name="by" value="standings" checked>', page)
