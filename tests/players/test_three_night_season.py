"""A season of three nights, played as a club plays it (issue 43, "Must show"): drawn rounds, a
name corrected on the hall that is already a season player's (the same person: merged), a
Rematch press, a correction of an old match by the laptop, side tables (one added, one not) and
a player forgotten on request. Every season figure the app gives (the season table's JSON and
CSV, each player's history and page, the ratings) must then agree with a recomputation from
scratch: the stored deals replayed through the rules, the counted matches picked by their
number in the night, place points summed as fractions, and openskill fed in finishing order."""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction

import pytest
from openskill.models import PlackettLuce

from companion.meetup import points
from companion.night import service as night
from companion.players import service as players
from companion.tables import service as tables
from helpers import N1, N2, N3, NightClock, text_of
import table_writes
from table_writes import done

pytestmark = pytest.mark.slow

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]
PHONE = "192.168.1.50"


def phone_of(app, address: str = PHONE):
    phone = app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": address})
    return phone


def one_deal_side_table(app, names: list[str], winner: int) -> str:
    """A phone opens a one-deal RWD table of three outside the draws; ``winner`` wins it (the
    deal of tests/night/test_one_truth.py: 4 chips and 7 tricks win, beside 5 and 7, 8 and 3)."""
    chips, tricks = [0, 0, 0], [0, 0, 0]
    second, last = [seat for seat in range(3) if seat != winner]
    chips[winner], tricks[winner] = 4, 7
    chips[second], tricks[second] = 5, 7
    chips[last], tricks[last] = 8, 3
    made = phone_of(app).post("/tables", data={"game": "rwd", "players": "3", "length": "1", "first_start_player": "0",
                                               **{f"name-{i}": n for i, n in enumerate(names)}})
    assert made.status_code == 303, text_of(made.get_data(as_text=True))[:300]
    token = made.headers["Location"].rsplit("/", 1)[-1]
    form = {f"chips-{i}": str(c) for i, c in enumerate(chips)} | {f"tricks-{i}": str(t) for i, t in enumerate(tricks)}
    assert phone_of(app).post(f"/t/{token}/deals", data={"number": "1", **form}).status_code == 303
    assert tables.load(conn_of(app), token).match().over
    return token


def conn_of(app):
    from companion.store import get_db
    with app.app_context():
        return get_db()


def a_drawn_round(client, conn, clock, day: str, hour: int) -> list[str]:
    """Two RWD tables of four drawn and played to their end, each won by its first seat's player."""
    assert client.post("/hall/rounds", data={"tables-rwd": "2"}).status_code == 303
    tokens = []
    for n, rt in enumerate(night.night_rounds(conn)[-1].tables):
        clock.at(day, f"{hour + n:02d}:00")
        table_writes.play_until_over(conn, rt.table.token, n % 4)
        tokens.append(rt.table.token)
    return tokens


def from_scratch(conn) -> dict[str, dict]:
    """Each person's counted matches, exact place points and openskill rating, worked out from
    the stored tables alone: counted = a number in its night; the person behind a seat name is
    its name key, with Fey the same person as Fay (merged) and forgotten names as stored."""
    person = {"fey": "fay"}
    rows = conn.execute("SELECT t.token, t.seq, t.ended_at, t.id,"
                        " (SELECT n.started_at FROM nights AS n WHERE n.after_table < t.id ORDER BY n.id DESC LIMIT 1)"
                        " FROM tables AS t ORDER BY t.id").fetchall()
    matches = []
    for token, seq, ended_at, table_id, night_started in rows:
        table = tables.load(conn, token)
        if seq is None or not table.match().over:
            continue
        result = points.match_result(table.game.id, table.setup.players, table.deals, table.setup.options,
                                     table.finished, at_time=table.ended_at_time)
        matches.append(((night_started[:10], ended_at, table_id), result))
    figures: dict[str, dict] = {}
    model = PlackettLuce()
    rated: dict[str, object] = {}
    for _when, result in sorted(matches, key=lambda pair: pair[0]):
        who = [person.get(p.player.casefold(), p.player.casefold()) for p in result.placings]
        for key, placing in zip(who, result.placings):
            line = figures.setdefault(key, {"matches": 0, "exact": Fraction(0)})
            line["matches"] += 1
            line["exact"] += placing.exact
        teams = [[rated.get(key) or model.rating()] for key in who]
        for key, (after,) in zip(who, model.rate(teams, ranks=[float(p.place) for p in result.placings])):
            rated[key] = after
    for key, line in figures.items():
        line["mu"], line["sigma"] = rated[key].mu, rated[key].sigma
    return figures


def test_a_three_night_season_agrees_with_a_recomputation_from_scratch(app, client, conn, monkeypatch):
    clock = NightClock(monkeypatch)
    # Night 1: two drawn tables; a side table added by the organiser, another never added.
    clock.at(N1, "18:00")
    done(night.start_night(conn))
    people = {name: done(night.join(conn, name)) for name in EIGHT}
    first_night = a_drawn_round(client, conn, clock, N1, 19)
    clock.at(N1, "21:00")
    added = one_deal_side_table(app, ["Cy", "Di", "Eve"], winner=2)
    clock.at(N1, "21:10")
    never = one_deal_side_table(app, ["Ann", "Bo", "Zed"], winner=2)
    assert client.post(f"/hall/tables/{tables.load(conn, added).id}/add").status_code == 303

    # Night 2: Fay typed "Fey"; corrected on the hall, the same person as the season's Fay.
    clock.at(N2, "18:00")
    done(night.start_night(conn))
    people = {name: done(night.join(conn, "Fey" if name == "Fay" else name)) for name in EIGHT}
    second_night = a_drawn_round(client, conn, clock, N2, 19)
    asked = client.post(f"/hall/players/{people['Fay'].id}", data={"name": "Fay"})
    assert asked.status_code == 422 and "Same person" in asked.get_data(as_text=True)
    assert client.post(f"/hall/players/{people['Fay'].id}", data={"name": "Fay", "same_person": "1"}).status_code == 303
    # A Rematch press at a finished table (its new table never played), then the laptop corrects
    # night 1's first match: two losers' chips swapped in its first deal.
    rematch = client.post(f"/t/{second_night[0]}/rematch")
    assert rematch.status_code == 303
    clock.at(N2, "23:00")
    old = tables.load(conn, first_night[0])
    deal = old.deals[0]
    chips = list(deal["chips"])
    chips[1], chips[3] = chips[3], chips[1]
    before = points.result_of(old.match())
    table_writes.edit_deal(conn, first_night[0], 1, dict(deal, chips=chips), was=tables.fingerprint(deal))
    after = points.result_of(tables.load(conn, first_night[0]).match())
    assert after.over and [p.score for p in after.placings] != [p.score for p in before.placings]

    # Night 3: another round; then Gus asks to be forgotten.
    clock.at(N3, "18:00")
    done(night.start_night(conn))
    for name in EIGHT:
        done(night.join(conn, name))
    a_drawn_round(client, conn, clock, N3, 19)
    players.refresh(conn)
    gus = players.player_of_name(conn, "Gus")
    assert client.post(f"/players/{gus.id}/forget", data={"confirm": "1"}).status_code == 303

    expected = from_scratch(conn)
    assert "zed" not in expected and f"#{gus.id}" in expected and "gus" not in expected
    assert sum(line["matches"] for line in expected.values()) == 4 * 6 + 3  # six drawn tables, one added

    def key_of(name: str) -> str:
        return name.casefold()

    doc = json.loads(client.get("/season.json?min=1&ratings=1").get_data(as_text=True))
    got = {key_of(line["name"]): line for line in doc["ranked"]}
    assert set(got) == set(expected)
    for key, line in expected.items():
        assert got[key]["matches"] == line["matches"], key
        assert Fraction(got[key]["place_points_exact"]) == line["exact"], key
        assert got[key]["rating"]["mu"] == pytest.approx(line["mu"], abs=1e-6), key
        assert got[key]["rating"]["sigma"] == pytest.approx(line["sigma"], abs=1e-6), key
    season_csv = list(csv.DictReader(io.StringIO(client.get("/season.csv?min=1").get_data().decode("utf-8-sig"))))
    assert {key_of(r["player"]): (int(r["matches"]), Fraction(r["place_points_exact"])) for r in season_csv} == {
        key: (line["matches"], line["exact"]) for key, line in expected.items()}
    for key, line in got.items():
        history = json.loads(client.get(f"/players/{line['player_id']}/history.json").get_data(as_text=True))
        assert len(history["matches"]) == expected[key]["matches"], key
        assert sum((Fraction(m["place_points_exact"]) for m in history["matches"]), Fraction(0)) == expected[key]["exact"]
        page = client.get(f"/players/{line['player_id']}").get_data(as_text=True)
        shown = re.search(r"<dt>Place points</dt><dd>([^<]+)</dd>", page).group(1)
        assert Fraction(shown) == Fraction(round(float(expected[key]["exact"]), 2)).limit_denominator(100), key
        assert "Zed" not in page and "Gus" not in page
    # The match never added is listed for the organiser, by the names typed, and nowhere else.
    listed = text_of(client.get("/players").get_data(as_text=True))
    assert "Ann, Bo, Zed" in listed and tables.load(conn, never).seq is None
