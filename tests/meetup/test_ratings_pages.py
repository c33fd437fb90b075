"""Ratings on the pages (issue 36): a player's page shows μ − 3σ overall and per game with the
matches it rests on; the season table shows a rating column only when asked; the ratings are
worked out again from the stored results after a merge or a correction; the night's screens
don't show them."""

from __future__ import annotations

import re

import pytest

from companion import store
from companion.games import GAMES
from companion.meetup.ratings import rate
from companion.night import service as night
from companion.players import service as players
from companion.tables import service as tables

from helpers import MIRAI_SEAT0, N4, RWD_SEAT1, three_nights
from helpers import NightClock as Clock
from helpers import play_table as play
from helpers import text_of, visible_page
import table_writes
from table_writes import done


@pytest.fixture
def season(app, monkeypatch):
    clock = Clock(monkeypatch)
    conn = store.connect(app.config["DATABASE"])
    tokens = three_nights(conn, clock)
    players.RECORDS.clear()
    yield app.test_client(), conn, tokens, clock
    conn.close()


def pid(conn, name) -> int:
    return players.player_of_name(conn, name).id


def shown(value: float) -> str:
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def test_a_rating_just_below_zero_shows_as_zero():
    from companion.meetup.ratings import Rating
    from companion.players.views import rating_text
    assert rating_text(Rating(25.0, 8.34, 1)) == "0.0"  # μ − 3σ = −0.02
    assert rating_text(Rating(20.0, 8.0, 2)) == "-4.0" and rating_text(Rating(30.0, 5.0, 9)) == "15.0"


def test_the_ratings_are_the_stored_results_replayed(season):
    _client, conn, _tokens, _clock = season
    rated = players.ratings(conn)
    assert rated == rate(players.records(conn))
    ann = str(pid(conn, "Ann"))
    assert rated.of(ann).matches == 6  # every match of hers, whatever the spelling ("ann")
    assert {game: table[ann].matches for game, table in rated.by_game.items() if ann in table} == \
           {"rwd": 3, "lucky_cube": 1, "miraiscope": 1, "twin_shoot": 1}
    # Twin Shoot partners (Ann and Cy against Bo and Di) moved together: one team of the model.
    cy, bo = str(pid(conn, "Cy")), str(pid(conn, "Bo"))
    twin = rated.by_game["twin_shoot"]
    assert twin[ann] == twin[cy] and twin[ann].mu < twin[bo].mu


def test_a_players_page_shows_the_rating_and_the_matches_it_rests_on(season):
    client, conn, _tokens, _clock = season
    ann = pid(conn, "Ann")
    rated = players.ratings(conn)
    text = visible_page(client, f"/players/{ann}")
    overall = rated.of(str(ann))
    assert f"Rating {shown(overall.shown)} from 6 matches, all nights and games" in text
    rwd = rated.by_game["rwd"][str(ann)]
    assert f"RWD (Rewind): {shown(rwd.shown)} from 3 matches" in text
    assert "Shown as μ − 3σ" in text
    ja = visible_page(client, f"/players/{ann}", "ja")
    assert "レーティング" in ja and "全期間・全ゲームの6対戦から" in ja


def test_the_season_table_shows_ratings_only_when_asked(season):
    client, conn, _tokens, _clock = season
    plain = client.get("/season?min=1").get_data(as_text=True)
    assert "<th scope=\"col\" class=\"num\">Rating</th>" not in plain
    link = re.search(r'<a href="([^"]+)">Show ratings</a>', plain).group(1)
    assert "ratings=1" in link and "min=1" in link
    page = client.get(link.replace("&amp;", "&")).get_data(as_text=True)
    assert "<th scope=\"col\" class=\"num\">Rating</th>" in page and "Hide ratings" in page
    rated = players.ratings(conn)
    cells = dict(re.findall(r'<bdi>([^<]+)</bdi></a></th>.*?<td class="num rating"[^>]*>([^<]+)</td>', page, re.S))
    assert cells["Ann"] == shown(rated.of(str(pid(conn, "Ann"))).shown)
    assert cells["Cy"] == shown(rated.of(str(pid(conn, "Cy"))).shown)
    # One game chosen: that game's rating.
    rwd = client.get("/season?min=1&game=rwd&ratings=1").get_data(as_text=True)
    cells = dict(re.findall(r'<bdi>([^<]+)</bdi></a></th>.*?<td class="num rating"[^>]*>([^<]+)</td>', rwd, re.S))
    assert cells["Cy"] == shown(rated.of(str(pid(conn, "Cy")), "rwd").shown)
    # The span links keep the column.
    assert re.search(r'href="[^"]*span=month[^"]*ratings=1', page)
    assert "レーティングを隠す" in visible_page(client, "/season", "ja", min=1, ratings=1)


def test_a_merge_and_a_correction_rerate_everyone_they_touch(season):
    client, conn, tokens, clock = season
    clock.at(N4, "09:00")
    done(night.start_night(conn))
    clock.at(N4, "19:00")
    play(conn, "miraiscope", ["Annie", "Bo"], {"first_dealer": 0}, MIRAI_SEAT0)
    play(conn, "rwd", ["Annie", "Cy", "Di"], {"first_start_player": 0}, [RWD_SEAT1] * 3)
    ann, annie = str(pid(conn, "Ann")), str(pid(conn, "Annie"))
    before = players.ratings(conn)
    assert before.of(annie).matches == 2 and before.of(ann).matches == 6
    assert client.post(f"/players/{ann}/merge", data={"gone": annie}).status_code == 302
    after = players.ratings(conn)
    assert after.of(ann).matches == 8 and after.of(annie).matches == 0
    assert after == rate(players.records(conn))
    # Ann carries her rating into the fourth night: Bo, Cy and Di, who met "Annie" there, move.
    for name in ("Bo", "Cy", "Di"):
        key = str(pid(conn, name))
        assert after.of(key) != before.of(key), name
    assert f"from 8 matches" in visible_page(client, f"/players/{ann}")
    # A correction to a finished table: replayed, and everyone after it re-rated.
    table_writes.undo_last(conn, tokens["n3-mirai"], 5)
    corrected = players.ratings(conn)
    assert corrected != after and corrected == rate(players.records(conn))


def rating_cells(markup: str) -> dict[str, str]:
    return dict(re.findall(r'<th scope="row"><bdi>([^<]+)</bdi></th>.*?<td class="num rating">([^<]+)</td>', markup,
                           re.S))


def test_the_nights_screens_show_ratings_only_when_the_organiser_turns_them_on(app, client, conn):
    from helpers import join_night
    phones = join_night(app, ["Ann", "Bo", "Cy", "Di"])
    client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "1"})
    (round_,) = night.night_rounds(conn)
    table = tables.load(conn, round_.tables[0].table.token)
    while not table.match().over:
        table = table_writes.add_deal(conn, table.token, len(table.deals) + 1,
                                {"chips": [3, 3, 3, 4], "tricks": [7, 2, 2, 2]})
    hall = client.get("/hall").get_data(as_text=True)
    assert rating_cells(hall) == {} and '<th scope="col" class="num">Rating</th>' not in hall
    board = client.get("/hall/board").get_data(as_text=True)
    assert rating_cells(board) == {}
    for phone in phones.values():  # a phone's night pages never show it
        assert "rating" not in visible_page(phone, "/night/me").lower()
    # The organiser turns it on: the leaderboard gets the column, and the live board keeps it.
    link = re.search(r'<a href="([^"]+)">Show ratings</a>', hall).group(1)
    on = client.get(link.split("#")[0]).get_data(as_text=True)
    rated = players.ratings(conn)
    cells = rating_cells(on)
    assert set(cells) == {"Ann", "Bo", "Cy", "Di"}
    for name, cell in cells.items():
        assert cell == shown(rated.of(str(pid(conn, name))).shown)
    assert re.search(r'hx-get="/hall/board\?[^"]*ratings=1', on)
    assert rating_cells(client.get("/hall/board?ratings=1").get_data(as_text=True)) == cells
    assert "Hide ratings" in on


def csv_rows(response) -> list[dict[str, str]]:
    import csv
    import io
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))


def entry(rating) -> dict:
    return {"shown": float(shown(rating.shown)), "mu": round(rating.mu, 6), "sigma": round(rating.sigma, 6),
            "matches": rating.matches}


def test_a_players_exports_carry_the_rating_overall_and_per_game(season):
    import json
    client, conn, _tokens, _clock = season
    ann = pid(conn, "Ann")
    rated = players.ratings(conn)
    key = str(ann)
    games = [g for g in GAMES if g in {"rwd", "lucky_cube", "miraiscope", "twin_shoot"}]  # as the page lists them
    doc = json.loads(client.get(f"/players/{ann}/history.json").get_data(as_text=True))
    assert doc["rating"] == entry(rated.of(key)) and doc["rating"]["matches"] == 6
    assert doc["game_ratings"] == [{"game": game, **entry(rated.by_game[game][key])} for game in games]
    assert "μ − 3σ" in doc["rating_rule"]
    # The value as the page shows it.
    text = visible_page(client, f"/players/{ann}")
    assert f"Rating {doc['rating']['shown']:.1f} from 6 matches" in text
    # The ratings are over every night and game, whatever the span or game the file is asked for.
    narrowed = json.loads(client.get(f"/players/{ann}/history.json?game=rwd").get_data(as_text=True))
    assert narrowed["rating"] == doc["rating"] and narrowed["game_ratings"] == doc["game_ratings"]
    rows = csv_rows(client.get(f"/players/{ann}/history.csv"))
    assert {r["rating_now"] for r in rows} == {shown(rated.of(key).shown)}
    by_name = {GAMES[game].name_en: game for game in games}
    for row in rows:
        assert row["game_rating_now"] == shown(rated.of(key, by_name[row["game"]]).shown)


def test_the_season_exports_carry_ratings_only_when_the_table_shows_them(season):
    import json
    client, conn, _tokens, _clock = season
    rated = players.ratings(conn)
    plain = json.loads(client.get("/season.json?min=1").get_data(as_text=True))
    assert all("rating" not in r for r in plain["ranked"]) and "rating_rule" not in plain
    assert all("rating" not in r for r in csv_rows(client.get("/season.csv?min=1")))
    # The page's own export links keep its choice.
    page = client.get("/season?min=1&ratings=1").get_data(as_text=True)
    assert re.search(r'href="/season\.json\?[^"]*ratings=1', page) and re.search(r'href="/season\.csv\?[^"]*ratings=1',
                                                                                 page)
    assert not re.search(r'href="/season\.json\?[^"]*ratings=1', client.get("/season?min=1").get_data(as_text=True))
    cells = dict(re.findall(r'<bdi>([^<]+)</bdi></a></th>.*?<td class="num rating"[^>]*>([^<]+)</td>', page, re.S))
    doc = json.loads(client.get("/season.json?min=1&ratings=1").get_data(as_text=True))
    assert "μ − 3σ" in doc["rating_rule"]
    assert {r["name"]: f"{r['rating']['shown']:.1f}" for r in doc["ranked"]} == cells  # what the table shows
    for r in doc["ranked"]:
        assert r["rating"] == entry(rated.of(r["player_id"]))
    rows = csv_rows(client.get("/season.csv?min=1&ratings=1"))
    assert list(rows[0])[-4:] == ["rating", "rating_mu", "rating_sigma", "rating_matches"]
    for row, r in zip(rows, doc["ranked"]):
        assert (row["player"], row["rating"], row["rating_mu"], row["rating_sigma"], row["rating_matches"]) == (
            r["name"], shown(rated.of(r["player_id"]).shown), str(r["rating"]["mu"]), str(r["rating"]["sigma"]),
            str(r["rating"]["matches"]))
    # One game chosen: that game's rating, as the table's column.
    rwd = json.loads(client.get("/season.json?min=1&game=rwd&ratings=1").get_data(as_text=True))
    for r in rwd["ranked"]:
        assert r["rating"] == entry(rated.of(r["player_id"], "rwd"))
