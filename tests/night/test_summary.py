"""A player's night to keep (issue 33): "The summary to take home lists table, game, place and
place points, but no scores, partners or opponents, and its rows did not add up to its total."

Each match shows its game, the player's partners and opponents, every side's final score, the
place and how its place points came ("2nd of 3 teams: ½", 「3チーム中2位：½」), a match ended
at time marked so, side tables apart and not counted, and a total that is the exact sum of the
rows (thirds too: ⅓ + ⅓ + ⅓ is 1, never 0.99) and the player's leaderboard line.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from companion.night import service as night
from companion.night.summary import fraction_text, night_summary
from companion.tables import service as store
from helpers import join_night, text_of
import table_writes

TWIN_6 = {"bids": [["X", "D"], ["C", "D"], ["D", "D"], ["D", "D"], ["D", "D"], ["D", "D"]],
          "tricks": [4, 3, 2, 1, 0, 0], "open_bid": None}  # seats 1-2 make 37 a deal, seats 5-6 30
RWD_ONE_DEAL = {"length": 1, "first_start_player": 0}
RWD_THIRD_WINS = {"chips": [8, 5, 4], "tricks": [3, 7, 7]}  # at three: seat 3 wins, seat 2 second
# RWD at four, one deal: seat 1 wins, then seats 2, 3, 4 by points (⅔, ⅓, 0) ...
RWD_FOUR_IN_ORDER = {"chips": [1, 3, 4, 5], "tricks": [7, 3, 2, 1]}
# ... or seats 3 and 4 level in third place (⅙ each).
RWD_FOUR_SHARED_THIRD = {"chips": [2, 3, 4, 4], "tricks": [7, 2, 2, 2]}


def play(conn, game: str, names: list[str], options: dict, deals: list[dict], numbered: bool = True) -> str:
    """A table with ``deals`` played; ``numbered``: the laptop's (tonight's), else a phone's."""
    token = table_writes.create(conn, game, names, options, numbered=numbered)
    for number, facts in enumerate(deals, 1):
        table_writes.add_deal(conn, token, number, facts)
    return token


def summary_text(phone, lang: str = "en") -> str:
    return text_of(phone.get(f"/night/me/summary?lang={lang}").get_data(as_text=True).split('id="summary"')[1])


def test_each_match_shows_partners_opponents_scores_and_how_its_points_came(app, conn):
    phones = join_night(app, ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"])
    play(conn, "twin_shoot", ["Cy", "Di", "Ed", "Fay", "Ann", "Bo"], {}, [TWIN_6] * 3)
    at_time = play(conn, "rwd", ["Cy", "Bo", "Ann"], {"first_start_player": 0}, [RWD_THIRD_WINS])
    assert store.finish_match(conn, at_time, True, time_up=lambda table: True).table.ended_at_time
    play(conn, "rwd", ["Ann", "Cy", "Ed"], RWD_ONE_DEAL, [RWD_THIRD_WINS], numbered=False)  # a side table

    page = summary_text(phones["Ann"])
    twin, rwd = page.split("Table 1 ", 1)[1].split("Table 2 ")
    assert "Twin Shoot With: Bo · Team score: 90 Against: Cy & Di 111 · Ed & Fay 9" in twin  # every final score
    assert "2nd of 3 teams: ½" in twin  # a team counts once: ½, not the 0.5-of-five-others of seats
    assert "RWD (Rewind) ended at time" in rwd and "With:" not in rwd.split("Total")[0]
    assert "Score: 3 Against: Bo 2 · Cy -5" in rwd and "1st of 3 players: 1" in rwd
    assert "Total of 2 finished matches 1½ (1.5)" in page
    # The side table: apart, with its place, and no points.
    side = page.split("Side tables (not counted tonight)")[1]
    assert "Side table 1 RWD (Rewind) Score: -5 Against: Ed 3 · Cy 2 3rd of 3 players" in side
    assert "Place points" not in side.split("Place points compare")[0]

    ja = summary_text(phones["Ann"], "ja").replace(" ", "")  # Japanese has no spaces (text_of reads tags as one)
    assert "ツインシュートパートナー：Bo·チームの得点：90対戦相手：Cy&Di111、Ed&Fay9" in ja
    assert "3チーム中2位：½" in ja and "3人中1位：1" in ja and "時間打ち切り" in ja
    assert "番外テーブル（今夜の成績には数えません）" in ja and "3人中3位" in ja
    # Bo's partner is Ann: the same match from the other seat of the team.
    assert "With: Ann · Team score: 90 Against: Cy & Di 111 · Ed & Fay 9" in summary_text(phones["Bo"])


def test_the_total_is_the_exact_sum_of_the_rows_and_the_leaderboards_line(app, client, conn):
    """⅓ three times is 1 (rows rounded to 0.33 would add up to 0.99), and a shared third of four
    is ⅙: the total 1⅙ is what the leaderboard prints, 1.17."""
    phones = join_night(app, ["Ann", "Bo", "Cy", "Di"])
    for seats in (["Bo", "Cy", "Ann", "Di"], ["Cy", "Di", "Ann", "Bo"], ["Di", "Bo", "Ann", "Cy"]):
        play(conn, "rwd", seats, RWD_ONE_DEAL, [RWD_FOUR_IN_ORDER])  # Ann third of four: ⅓
    play(conn, "rwd", ["Bo", "Cy", "Ann", "Di"], RWD_ONE_DEAL, [RWD_FOUR_SHARED_THIRD])  # Ann and Di level: ⅙
    play(conn, "rwd", ["Ann", "Bo", "Cy", "Di"], {"first_start_player": 0}, [RWD_FOUR_IN_ORDER])  # still playing

    ann = next(p for p in night.roster(conn) if p.name == "Ann")
    mine = night_summary(conn, ann)
    assert [row.exact for row in mine.counted] == [Fraction(1, 3)] * 3 + [Fraction(1, 6)]
    assert mine.total == Fraction(7, 6) and len(mine.rows) == 5

    page = summary_text(phones["Ann"])
    assert page.count("3rd of 4 players: ⅓") == 3 and "shared 3rd of 4 players: ⅙" in page
    assert "1st of 4 players (playing)" in page and "A match still being played counts once it ends." in page
    assert "Total of 4 finished matches 1⅙ (1.17)" in page
    board = text_of(client.get("/hall").get_data(as_text=True)).split("Tonight's leaderboard")[1]
    assert re.search(r"\bAnn 4 .*? 1\.17\b", board)
    assert "Place 4 of 4 · 1.17 place points" in page


def test_a_room_table_is_named_as_the_hall_names_it(app, client, conn):
    """Issue 44: at the room's tables a match's table is "Table 3" on My night, as on the hall and
    in the night's files, never the room's bare label ("Round 1 · 3")."""
    phones = join_night(app, ["Ann", "Bo", "Cy", "Di"])
    assert client.post("/hall/room", data={"room": "3-4"}).status_code == 303
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    (rt,) = night.night_rounds(conn)[-1].tables
    assert rt.table.label == "3"
    table_writes.play_until_over(conn, rt.table.token, 0)
    assert "Round 1 · Table 3 RWD (Rewind)" in summary_text(phones["Ann"])
    assert "第1ラウンド · テーブル3 RWD(リワインド)" in summary_text(phones["Ann"], "ja")


@pytest.mark.parametrize("value, text", [
    (Fraction(0), "0"), (Fraction(1), "1"), (Fraction(1, 2), "½"), (Fraction(17, 6), "2⅚"),
    (Fraction(3, 10), "³⁄₁₀"), (Fraction(13, 10), "1³⁄₁₀"), (Fraction(49, 12), "4¹⁄₁₂"), (Fraction(1, 10), "⅒"), (Fraction(9, 4), "2¼")])
def test_place_points_print_as_exact_fractions(value, text):
    assert fraction_text(value) == text
