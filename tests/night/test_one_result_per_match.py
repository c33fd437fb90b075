"""A match's result is computed in one place (issues 30 and 33): the night's leaderboard, each
player's night summary, the season table and the night's CSV and JSON exports all read the
place points of companion.meetup.points.match_place_points, which counts a team once and gives
both partners its points. A Twin Shoot win at four is 1 and its loss 0 (not 0.83 and 0.17);
at six, 1 / ½ / 0 (not 0.9 / 0.5 / 0.1); a shared win shares, as the README says."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

from companion.night import service as night
from companion.players import service as players
from companion.tables import service as store
import table_writes
from table_writes import done

HALF, QUARTER = Fraction(1, 2), Fraction(1, 4)

# Twin Shoot: each deal the first team makes 37 (the rules' worked example), so three deals
# end the match past 100. At six the third team scores 30 a deal: second place.
TWIN_4 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"]], "tricks": [4, 3, 2, 1], "open_bid": None}
TWIN_6 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"], ["D", "D"], ["D", "D"]],
          "tricks": [4, 3, 2, 1, 0, 0], "open_bid": None}
# RWD at three: Cy wins deal 1, then Ann and Bo share three deals and reach 3 deal wins together.
RWD_CY = {"chips": [8, 5, 4], "tricks": [3, 7, 7]}
RWD_SHARED = {"chips": [5, 5, 7], "tricks": [7, 7, 3]}
RWD_SHARED_WIN = [RWD_CY, RWD_SHARED, {**RWD_SHARED, "start_player": 0}, {**RWD_SHARED, "start_player": 1}]
# Lucky Cube at four: nobody takes the die in twelve deals, everyone ends on 15 chips.
LUCKY_LEVEL = [{"die_holder": None, "die_number": None, "last_trick": (number + 1) % 4} for number in range(12)]

# Each finished table's place points per player, by the README's rule over entrants.
EXPECTED = {
    "twin4": {"Ann": 1, "Bo": 1, "Cy": 0, "Di": 0},  # Ann & Bo beat Cy & Di
    "twin6": {"Cy": 1, "Di": 1, "Ed": 0, "Fay": 0, "Ann": HALF, "Bo": HALF},  # three teams
    "rwd": {"Ann": 3 * QUARTER, "Bo": 3 * QUARTER, "Cy": 0},  # a shared win: ¾ each
    "lucky": {"Di": HALF, "Ed": HALF, "Fay": HALF, "Ann": HALF},  # all level
}
TOTALS = {name: sum(table.get(name, 0) for table in EXPECTED.values()) for name in ("Ann", "Bo", "Cy", "Di", "Ed", "Fay")}
TABLES_PLAYED = {name: sum(name in table for table in EXPECTED.values()) for name in TOTALS}


def play(conn, game: str, names: list[str], options: dict, deals: list[dict]) -> str:
    token = table_writes.create(conn, game, names, options, numbered=True)  # the laptop's: tonight's tables
    for number, facts in enumerate(deals, 1):
        table_writes.add_deal(conn, token, number, facts)
    return token


def play_the_night(conn) -> dict[str, str]:
    for name in TOTALS:
        done(night.join(conn, name))
    tokens = {
        "twin4": play(conn, "twin_shoot", ["Ann", "Bo", "Cy", "Di"], {}, [TWIN_4] * 3),
        "twin6": play(conn, "twin_shoot", ["Cy", "Di", "Ed", "Fay", "Ann", "Bo"], {}, [TWIN_6] * 3),
        "rwd": play(conn, "rwd", ["Ann", "Bo", "Cy"], {"first_start_player": 0}, RWD_SHARED_WIN),
        "lucky": play(conn, "lucky_cube", ["Di", "Ed", "Fay", "Ann"], {"first_dealer": 0}, LUCKY_LEVEL),
        # Still being played: its places may change, so it counts nowhere.
        "playing": play(conn, "rwd", ["Bo", "Ed", "Fay"], {"first_start_player": 0}, [RWD_CY]),
    }
    for name, token in tokens.items():
        assert store.load(conn, token).match().over == (name != "playing"), name
    return tokens


def test_every_view_of_the_night_agrees_with_the_matches_own_result(client, conn):
    tokens = play_the_night(conn)
    table_of_id = {store.load(conn, token).id: name for name, token in tokens.items()}
    results = night.night_results(conn)

    # The leaderboard: exact totals, the tables each played.
    board = {s.name: s for s in night.leaderboard(results)}
    assert {name: (s.points, s.tables) for name, s in board.items()} == {
        name: (float(TOTALS[name]), TABLES_PLAYED[name]) for name in TOTALS}
    assert board["Ann"].rank == 1 and board["Ann"].points == 2.75 and board["Ann"].places == (3, 1, 0)

    # Each player's night summary: their place points at each finished table.
    for who in night.roster(conn):
        summary = night.player_summary(results, who)
        mine = {table_of_id[item["result"].table.id]: item["placing"].points
                for item in summary if item["result"].result.over}
        assert mine == {table: float(points[who.name]) for table, points in EXPECTED.items()
                        if who.name in points}, who.name
        assert sum(mine.values()) == board[who.name].points

    # The season table (stored results, the season's own code): the same totals.
    season = players.season(conn, min_matches=1)
    assert {row.name: (row.points, row.matches) for row in season.rows} == {
        name: (float(TOTALS[name]), TABLES_PLAYED[name]) for name in TOTALS}

    # The JSON export: each table's placings and the leaderboard.
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    label_of = {}
    for table in doc["tables"]:
        name = next(n for n, token in tokens.items() if token == table["token"])
        label_of[table["label"]] = name
        placings = {p["player"]: p["place_points"] for p in table["result"]["placings"]}
        if name in EXPECTED:
            assert placings == {player: float(points) for player, points in EXPECTED[name].items()}, name
        else:
            assert table["result"]["over"] is False
    assert {line["name"]: line["place_points"] for line in doc["leaderboard"]} == {
        name: float(points) for name, points in TOTALS.items()}

    # The CSV export: a finished table's last deal carries each player's place points.
    text = client.get("/hall/export.csv").get_data().decode("utf-8-sig")
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row["place_points"]]
    per_table: dict[str, dict[str, float]] = {}
    for row in rows:
        per_table.setdefault(label_of[row["table"]], {})[row["player"]] = float(row["place_points"])
    assert per_table == {table: {player: float(points) for player, points in placings.items()}
                         for table, placings in EXPECTED.items()}
    csv_totals: dict[str, float] = {}
    for row in rows:
        csv_totals[row["player"]] = csv_totals.get(row["player"], 0.0) + float(row["place_points"])
    assert csv_totals == {line["name"]: line["place_points"] for line in doc["leaderboard"]}
