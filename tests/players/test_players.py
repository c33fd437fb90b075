"""Players across nights (issue 26) through the real store and pages.

The three nights of tests/players/test_season_stats.py, played as real tables (real deals, replayed by
the rules) on three dated nights: every place and place point is the hand-worked one there;
the final scores are the real games' own, worked out by hand beside each table. Then: merging
two spellings moves every match; two people sharing a name kept apart; renaming; a stale
result replayed after a correction; the upgrade of a database made by the release before
players (tests/fixtures/release-aaf9a5c.sqlite, made by tests/fixtures/make_release_db.py).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest

from companion import store
from companion.night import service as night
from companion.players import service as players
from companion.tables import service as tables
from companion.meetup.season import HeadToHead

from helpers import MIRAI_SEAT0, N1, N2, N3, N4, RWD_SEAT1, mirai, three_nights
from helpers import NightClock as Clock
from helpers import play_table as play
from helpers import text_of
import table_writes
from table_writes import done

FIXTURE = Path(__file__).parent.parent / "fixtures" / "release-aaf9a5c.sqlite"
PHONE_ON_WIFI = {"REMOTE_ADDR": "192.168.1.23"}


def approx(x):
    return pytest.approx(float(x))


@pytest.fixture
def season(app, monkeypatch):
    """The app (a laptop client) with the three nights stored; yields (client, conn, tokens, clock)."""
    clock = Clock(monkeypatch)
    conn = store.connect(app.config["DATABASE"])
    tokens = three_nights(conn, clock)
    players.RECORDS.clear()
    yield app.test_client(), conn, tokens, clock
    conn.close()


def pid(conn, name) -> int:
    return players.player_of_name(conn, name).id


# ------------------------------------------------------------------------------ the three nights


def test_a_players_statistics_from_the_stored_tables(season):
    _client, conn, _tokens, _clock = season
    ann = players.player_of_name(conn, "ann")
    s = players.stats(conn, ann)
    assert (s.nights, s.matches, s.wins, s.places) == (3, 6, 3, (3, 2, 0, 1))
    assert s.points == approx(Fraction(37, 12)) and s.average == approx(Fraction(37, 72))
    games = {g.game: (g.matches, g.wins, g.places, g.points, g.best_score, g.worst_score) for g in s.games}
    assert games == {"rwd": (3, 1, (1, 1, 0, 1), approx(Fraction(5, 4)), 9, -18),
                     "lucky_cube": (1, 1, (1,), approx(Fraction(5, 6)), 17, 17),
                     "miraiscope": (1, 1, (1,), 1.0, 94, 94),
                     "twin_shoot": (1, 0, (0, 1), 0.0, 9, 9)}
    assert (s.best.night, s.best.game, s.best.of) == (N1, "rwd", 3)
    assert (s.worst.night, s.worst.game, s.worst.place, s.worst.score) == (N3, "rwd", 4, -18)
    assert [(m.night, m.game, m.place) for m in s.form] == [
        (N3, "miraiscope", 1), (N3, "rwd", 4), (N2, "rwd", 2), (N2, "twin_shoot", 2), (N1, "lucky_cube", 1)]
    ids = {name: str(pid(conn, name)) for name in ("Bo", "Cy", "Di", "Ed")}
    assert s.head_to_head == (HeadToHead(ids["Bo"], "Bo", 5, 3, 2, 0, 0), HeadToHead(ids["Cy"], "Cy", 3, 1, 1, 0, 1),
                              HeadToHead(ids["Di"], "Di", 3, 0, 2, 1, 0), HeadToHead(ids["Ed"], "Ed", 3, 1, 1, 1, 0))
    assert [(n.night, n.matches, n.average) for n in s.timeline] == [
        (N1, 2, approx(Fraction(11, 12))), (N2, 2, 0.125), (N3, 2, 0.5)]
    # "Ｂｏ" (full-width) on night 2 is Bo: one player with 5 matches.
    assert [p.name for p in players.everyone(conn)] == ["Ann", "Bo", "Cy", "Di", "Ed"]
    assert players.stats(conn, players.player_of_name(conn, "ＢＯ")).matches == 5


def test_the_players_page_shows_them(season):
    client, conn, tokens, _clock = season
    ann = pid(conn, "Ann")
    page = client.get(f"/players/{ann}")
    assert page.status_code == 200
    text = text_of(page.get_data(as_text=True))
    assert "Nights 3" in text and "Matches 6" in text and "Wins 3" in text
    assert "Place points per match 0.514" in text  # 37/72
    assert "Places: 1st × 3 , 2nd × 2 , 3rd × 0 , 4th × 1" in text
    assert "Best result: 1st of 3 · RWD (Rewind) · 2026-10-06 · 1 place point" in text
    assert "Worst result: 4th of 4 · RWD (Rewind) · 2026-11-03 · 0 place points" in text
    assert "RWD (Rewind) 3 1 0.417 9 -18" in text  # per game: matches, wins, per match 5/12, best, worst score
    assert "Bo 5 3 2 0 0" in text and "Cy 3 1 1 0 1" in text  # head to head
    html = page.get_data(as_text=True)
    assert html.count('class="dot"') == 3  # the chart: one dot a night
    # A match links to its read-only record (issue 32), never to its table's link.
    mirai = tables.load(conn, tokens["n3-mirai"])
    assert f'href="/matches/{mirai.id}"' in html
    assert f'href="/t/{tokens["n3-mirai"]}' not in html
    assert "written ann" in text  # night 3's rwd had her in lower case
    # The span and game narrow it: RWD alone.
    only = text_of(client.get(f"/players/{ann}?game=rwd").get_data(as_text=True))
    assert "Matches 3" in only and "Wins 1" in only
    # Japanese
    ja = text_of(client.get(f"/players/{ann}?lang=ja", headers={"Accept-Language": "ja"}).get_data(as_text=True))
    assert "1位" in ja


def test_the_season_table_over_the_three_nights(season):
    client, conn, _tokens, _clock = season
    page = client.get("/season?min=4")
    text = text_of(page.get_data(as_text=True))
    # Di 5/8, Bo 17/30, Ann 37/72, Ed 19/48; Cy (3 matches) after them, marked (issue 34)
    assert "1 Di 0.625 4 2" in text and "2 Bo 0.567 5 2" in text and "3 Ann 0.514 6 3" in text
    assert "4 Ed 0.396 4 1" in text and "5 * Cy 0.333 3" in text
    assert "* Fewer than 4 matches played: ranked after the players who have played 4 or more." in text
    doc = json.loads(client.get("/season.json?min=4").get_data(as_text=True))
    assert [(r["rank"], r["name"], r["matches"], r["per_match"]) for r in doc["ranked"]][:4] == [
        (1, "Di", 4, 0.625), (2, "Bo", 5, round(17 / 30, 6)), (3, "Ann", 6, round(37 / 72, 6)),
        (4, "Ed", 4, round(19 / 48, 6))]
    assert [(r["name"], r["rank"], r["below_minimum"]) for r in doc["ranked"]][-1] == ("Cy", 5, True)
    assert "unranked" not in doc
    games = {g["game"]: g for g in doc["games"]}
    assert [w["name"] for w in games["rwd"]["most_won"]] == ["Ann", "Bo", "Cy"]
    assert [w["name"] for w in games["twin_shoot"]["most_won"]] == ["Bo", "Di"]
    # One game; one span (night 3 only is not a span the page offers: month/year/all)
    rwd = json.loads(client.get("/season.json?min=2&game=rwd").get_data(as_text=True))
    assert [(r["name"], r["per_match"]) for r in rwd["ranked"]] == [("Bo", 0.75), ("Cy", 0.5),
                                                                    ("Ann", round(5 / 12, 6)), ("Ed", round(7 / 24, 6)),
                                                                    ("Di", round(2 / 3, 6))]  # below 2: last
    rows = list(csv.DictReader(io.StringIO(client.get("/season.csv?min=4").get_data(as_text=True).lstrip("\ufeff"))))
    assert [(r["rank"], r["player"], r["place_1"], r["below_minimum"]) for r in rows] == [
        ("1", "Di", "2", ""), ("2", "Bo", "2", ""), ("3", "Ann", "3", ""), ("4", "Ed", "1", ""), ("5", "Cy", "1", "1")]
    # A phone may read the season and a player's page, not the players list or the organiser's changes.
    assert client.get("/season", environ_base=PHONE_ON_WIFI).status_code == 200
    assert client.get(f"/players/{pid(conn, 'Ann')}", environ_base=PHONE_ON_WIFI).status_code == 200
    assert client.get("/players", environ_base=PHONE_ON_WIFI).status_code == 403
    assert client.post(f"/players/{pid(conn, 'Ann')}/rename", data={"name": "X"},
                       environ_base=PHONE_ON_WIFI).status_code == 403
    assert "Keep apart" not in client.get(f"/players/{pid(conn, 'Ann')}",
                                          environ_base=PHONE_ON_WIFI).get_data(as_text=True)


def test_a_players_history_exports(season):
    client, conn, _tokens, _clock = season
    ann = pid(conn, "Ann")
    doc = json.loads(client.get(f"/players/{ann}/history.json").get_data(as_text=True))
    assert doc["summary"]["matches"] == 6 and doc["summary"]["place_points"] == round(37 / 12, 6)
    assert [(m["night"], m["game"], m["place"], m["score"]) for m in doc["matches"]] == [
        (N1, "rwd", 1, 9), (N1, "lucky_cube", 1, 17), (N2, "twin_shoot", 2, 9), (N2, "rwd", 2, 6),
        (N3, "rwd", 4, -18), (N3, "miraiscope", 1, 94)]
    response = client.get(f"/players/{ann}/history.csv")
    assert response.headers["Content-Disposition"].endswith(f"player-{ann}-all.csv")
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))
    assert [(r["night"], r["place"], r["of"], r["with"]) for r in rows][:2] == [
        (N1, "1", "3", "Bo / Cy"), (N1, "1", "4", "Di / Bo / Ed")]


# ------------------------------------------------------------------------------ who is who


def test_merging_two_spellings_moves_every_match(season):
    client, conn, _tokens, clock = season
    clock.at(N4, "09:00")
    done(night.start_night(conn))
    clock.at(N4, "19:00")
    play(conn, "miraiscope", ["Annie", "Bo"], {"first_dealer": 0}, MIRAI_SEAT0)  # "Annie" beats Bo
    play(conn, "rwd", ["Annie", "Cy", "Di"], {"first_start_player": 0}, [RWD_SEAT1] * 3)  # Cy wins, Annie 2nd of 3
    ann, annie, bo = pid(conn, "Ann"), pid(conn, "Annie"), pid(conn, "Bo")
    assert ann != annie
    before = players.stats(conn, players.get(conn, annie))
    assert (before.matches, before.wins, before.points) == (2, 1, 1.25)  # 1 + ¼ (level second of 3)
    response = client.post(f"/players/{ann}/merge", data={"gone": str(annie)})
    assert response.status_code == 302
    assert client.get(f"/players/{annie}").status_code == 404
    s = players.stats(conn, players.get(conn, ann))
    # 37/12 + 1 (miraiscope) + 0 (rwd: Cy 3 wins, Annie and Di none: level second, ¼ each)
    assert (s.nights, s.matches, s.wins, s.places) == (4, 8, 4, (4, 3, 0, 1))
    assert s.points == approx(Fraction(37, 12) + 1 + Fraction(1, 4))
    head = {h.key: h for h in s.head_to_head}
    assert (head[str(bo)].matches, head[str(bo)].above) == (6, 4)
    season_doc = json.loads(client.get("/season.json?min=1").get_data(as_text=True))
    row = next(r for r in season_doc["ranked"] if r["player_id"] == str(ann))
    assert (row["name"], row["matches"], row["nights"]) == ("Ann", 8, 4)
    assert all(r["name"] != "Annie" for r in season_doc["ranked"])
    # "Annie" at a later table is Ann now.
    assert players.player_of_name(conn, "annie").id == ann
    history = client.get(f"/players/{ann}/history.csv").get_data(as_text=True)
    assert ",Annie," in history  # the name as written at the table is kept
    # Two who sat at the same table are two people: refused, next to the field.
    refused = client.post(f"/players/{ann}/merge", data={"gone": str(bo)})
    assert refused.status_code == 422
    assert "played at the same table on 2026-10-06: they are two people" in text_of(refused.get_data(as_text=True))
    assert players.stats(conn, players.get(conn, bo)).matches == 6


def test_two_people_who_share_a_name_kept_apart(season):
    client, conn, tokens, clock = season
    ann = pid(conn, "Ann")
    table = store.tables.load_table(conn, tokens["n3-mirai"])
    # Night 3's miraiscope "Ann" was another Ann: the organiser gives that seat to "Ann B.".
    response = client.post(f"/players/{ann}/apart", data={"token": tokens["n3-mirai"], "seat": "0",
                                                           "name": "Ann B."})
    assert response.status_code == 302
    other = players.player_of_name(conn, "Ann B.")
    assert response.location.endswith(f"/players/{other.id}")
    first = players.stats(conn, players.get(conn, ann))
    assert (first.matches, first.wins, first.nights) == (5, 2, 3)
    assert first.points == approx(Fraction(37, 12) - 1)
    second = players.stats(conn, other)
    assert (second.matches, second.wins, second.name) == (1, 1, "Ann")  # written "Ann" at that table
    assert players.seat_players(conn, table["id"], table["players"]) == [other.id, pid(conn, "Bo")]
    # Both in the season, apart; the name "Ann" at a new table is still the first Ann.
    clock.at(N4, "19:00")
    play(conn, "miraiscope", ["Ann", "Cy"], {"first_dealer": 0}, MIRAI_SEAT0)
    assert players.stats(conn, players.get(conn, ann)).matches == 6
    assert players.stats(conn, other).matches == 1
    text = text_of(client.get("/season?min=1").get_data(as_text=True))
    assert "Ann B." in text and " Ann " in text
    # A bad seat or an empty name: said next to the field, nothing stored.
    bad = client.post(f"/players/{ann}/apart", data={"token": tokens["n1-rwd"], "seat": "0", "name": "  "})
    assert bad.status_code == 422
    html = bad.get_data(as_text=True)
    assert html.count("Type a name.") == 2  # at the top and next to that match's field, kept open
    assert "<details class=\"apart no-print\" open>" in html
    gone = client.post(f"/players/{ann}/apart", data={"token": tokens["n3-mirai"], "seat": "0", "name": "Ann C."})
    assert gone.status_code == 422
    assert "That seat is not this player's any more" in text_of(gone.get_data(as_text=True))
    assert client.post(f"/players/{ann}/apart", data={"token": tokens["n3-mirai"], "seat": "7",
                                                      "name": "X"}).status_code == 422
    assert len(players.everyone(conn)) == 6


def test_renaming_a_player(season):
    client, conn, _tokens, clock = season
    bo = pid(conn, "Bo")
    assert client.post(f"/players/{bo}/rename", data={"name": "Bob"}).status_code == 302
    assert players.get(conn, bo).name == "Bob"
    assert "Bob" in text_of(client.get("/season?min=1").get_data(as_text=True))
    clock.at(N4, "19:00")
    play(conn, "miraiscope", ["Bob", "Cy"], {"first_dealer": 0}, MIRAI_SEAT0)
    play(conn, "miraiscope", ["bo", "Di"], {"first_dealer": 0}, MIRAI_SEAT0)
    assert players.stats(conn, players.get(conn, bo)).matches == 7
    # Another player's name is refused, next to the field, with what was typed kept.
    refused = client.post(f"/players/{bo}/rename", data={"name": "ANN"})
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert "Ann is already another player: merge the two instead." in text_of(html)
    assert 'value="ANN"' in html and 'aria-invalid="true"' in html


def test_a_change_to_a_finished_table_replays_its_result(season):
    _client, conn, tokens, _clock = season
    ann = players.player_of_name(conn, "Ann")
    assert players.stats(conn, ann).matches == 6
    table_writes.undo_last(conn, tokens["n3-mirai"], 5)  # 70 to 70: over, level first (a tie-break deal may follow)
    assert players.refresh(conn) == 1
    s = players.stats(conn, ann)
    assert (s.matches, s.wins, s.points) == (6, 3, approx(Fraction(37, 12) - Fraction(1, 2)))
    table_writes.undo_last(conn, tokens["n3-mirai"], 4)  # the match is no longer over: it doesn't count
    assert players.stats(conn, ann).matches == 5
    table_writes.add_deal(conn, tokens["n3-mirai"], 4, mirai(2, 10, 1))
    table_writes.add_deal(conn, tokens["n3-mirai"], 5, mirai(1, 9, 1))  # now Bo wins it
    s = players.stats(conn, ann)
    assert (s.matches, s.wins) == (6, 2)
    assert players.refresh(conn) == 0  # nothing changed since: no replay


# ------------------------------------------------------------------------------ the upgrade


def counts(path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("tables", "deals", "changes", "nights")}
    finally:
        conn.close()


def test_a_database_from_the_release_before_players_upgrades(tmp_path, app_of):
    path = tmp_path / "laptop.sqlite"
    shutil.copyfile(FIXTURE, path)
    was = counts(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()
    app = app_of({"TESTING": True, "DATABASE": str(path), "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})
    assert counts(path) == was  # nothing lost
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == store.SCHEMA_VERSION
    # The players already at tables, each name once (ann / ＢＯ are Ann / Bo), with their latest spelling.
    assert sorted(r[0] for r in raw.execute("SELECT name FROM players")) == ["=Eve", "Ann", "Bo", "Cy", "Di", "Ed",
                                                                          "Sam"]
    raw.close()
    client = app.test_client()
    doc = json.loads(client.get("/season.json?min=1").get_data(as_text=True))
    lines = {r["name"]: (r["matches"], r["wins"], r["place_points"]) for r in doc["ranked"]}
    # Ann: rwd 1st of 3 (1), lucky cube level with all four (½), the team game won (1), pair & quad 3rd
    # of 4 (⅓), rwd 1st of 3 (1), pair & quad 2nd of 4 (⅔). The unfinished tables, the rematch never
    # played and the prepared table count for nobody; the tie finished by hand is ½ each.
    assert lines["Ann"] == (6, 4, 4.5)
    assert lines["Bo"] == (6, 2, 1.5) and lines["Ed"] == (5, 4, 3.5) and lines["Sam"] == (2, 2, 2.0)
    assert sum(r["matches"] for r in doc["ranked"]) == 28  # 3+2+4+4+4+2+3+4+2 seats in the 9 ended matches
    eve = json.loads(client.get("/season.json?min=1").get_data(as_text=True))
    eve_id = next(r["player_id"] for r in eve["ranked"] if r["name"] == "=Eve")
    exported = client.get(f"/players/{eve_id}/history.csv").get_data(as_text=True)
    assert ",'=Eve," in exported  # a formula-looking name is made text, as every CSV export does
    assert client.get("/season").status_code == 200 and client.get(f"/players/{eve_id}").status_code == 200
    assert counts(path) == was


def test_a_table_pages_names_lead_to_the_players_pages(season):
    client, conn, tokens, _clock = season
    page = client.get(f"/t/{tokens['n2-rwd']}", environ_base=PHONE_ON_WIFI).get_data(as_text=True)
    links = [f"/players/at/{tokens['n2-rwd']}/{seat}" for seat in range(3)]
    assert all(link in page for link in links)
    bo = client.get(links[0], environ_base=PHONE_ON_WIFI)  # "Ｂｏ" at this table is Bo
    assert bo.status_code == 302 and bo.location.endswith(f"/players/{pid(conn, 'Bo')}")
    # A seat given to a namesake leads to them.
    client.post(f"/players/{pid(conn, 'Ann')}/apart", data={"token": tokens["n2-rwd"], "seat": "1", "name": "Ann B."})
    assert client.get(links[1]).location.endswith(f"/players/{players.player_of_name(conn, 'Ann B.').id}")
    assert client.get(f"/players/at/{tokens['n2-rwd']}/9").status_code == 404
    assert client.get("/players/at/nosuchtable/0").status_code == 404


def test_a_phone_on_tonights_roster_opens_its_own_season_page(season):
    client, conn, _tokens, _clock = season
    phone = client.application.test_client()
    ann = {"REMOTE_ADDR": "192.168.1.31"}
    assert phone.get("/players/me", environ_base=ann).headers["Location"].endswith("/night")  # not joined yet
    assert phone.post("/night/join", data={"name": "ANN"}, environ_base=ann).status_code == 303
    assert "/players/me" in phone.get("/night/me", environ_base=ann).get_data(as_text=True)
    mine = phone.get("/players/me", environ_base=ann)
    assert mine.status_code == 303 and mine.headers["Location"].endswith(f"/players/{pid(conn, 'Ann')}")
    # Someone on the roster who never sat at a table yet gets an empty page of their own.
    new = {"REMOTE_ADDR": "192.168.1.32"}
    phone2 = client.application.test_client()
    phone2.post("/night/join", data={"name": "Zoe"}, environ_base=new)
    page = phone2.get("/players/me", environ_base=new, follow_redirects=True)
    assert page.status_code == 200 and "No finished match in these nights and games." in page.get_data(as_text=True)


def test_an_upgrade_reads_in_the_names_on_night_rosters_too(tmp_path):
    """A database at the schema before players (5: night rosters) keeps its roster names as players."""
    path = tmp_path / "roster.sqlite"
    conn = sqlite3.connect(path)
    for number, script in enumerate(store.MIGRATIONS[:5], start=1):
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 5")
    conn.execute("INSERT INTO tables (token, game, players, options, created_at, updated_at)"
                 " VALUES ('t1', 'miraiscope', '[\"Ann\", \"ＺＯＥ\"]', '{}', '2026-11-03T10:00:00+00:00',"
                 " '2026-11-03T10:00:00+00:00')")
    conn.execute("INSERT INTO night_players (night, name, key, added_at) VALUES"
                 " (1, 'Zoe', 'zoe', '2026-11-03T09:00:00+00:00'), (1, 'Yann', 'yann', '2026-11-03T09:05:00+00:00')")
    conn.commit()
    conn.close()
    assert store.migrate(str(path)) == store.SCHEMA_VERSION
    conn = store.connect(str(path))
    try:
        # Zoe sat at a table as "ＺＯＥ" (her latest spelling at a table is kept); Yann only arrived.
        assert sorted((p.name, p.keys) for p in players.everyone(conn)) == [
            ("Ann", ("ann",)), ("Yann", ("yann",)), ("ＺＯＥ", ("zoe",))]
    finally:
        conn.close()


def test_the_players_list_on_the_laptop(season):
    client, conn, _tokens, _clock = season
    text = text_of(client.get("/players").get_data(as_text=True))
    # name, #id, matches, nights, the names at tables that mean them, as typed there (issue 34)
    assert f"Bo #{pid(conn, 'Bo')} 5 3 Bo, Ｂｏ" in text and f"Cy #{pid(conn, 'Cy')} 3 3 Cy" in text
    client.post(f"/players/{pid(conn, 'Bo')}/rename", data={"name": "Bob"})
    assert f"Bob #{pid(conn, 'Bo')} 5 3 Bo, Ｂｏ" in text_of(client.get("/players").get_data(as_text=True))


def test_the_season_tables_place_column_is_juni_not_the_cards_rank(season):
    """The Japanese reviewer's point: "Rank" the place in a standings table (順位) and "Rank"
    the card's rank (ランク) are two messages, told apart by a context."""
    client, _conn, _tokens, _clock = season
    head = client.get("/season?min=4", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    head = head[head.index("<thead>"):head.index("</thead>")]
    assert ">順位<" in head and "ランク" not in head
    assert ">Rank<" in client.get("/season?min=4").get_data(as_text=True)
    assert "ランク" in client.get("/games/pair_quad", headers={"Accept-Language": "ja"}).get_data(as_text=True)
