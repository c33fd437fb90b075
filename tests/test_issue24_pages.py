"""Issue 24's table and page fixes, and the words checked against the posts."""

from __future__ import annotations

import re

from companion.games import GAMES, MatchSetup
from companion.tables.chart import progression_chart
from helpers import text_of


def create(client, game, names, **options):
    data = {"game": game, "players": str(len(names)),
            **{f"name-{i}": name for i, name in enumerate(names)},
            **{k: str(v) for k, v in options.items()}}
    response = client.post("/tables", data=data)
    assert response.status_code == 303
    return response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]


def enter(client, token, number, facts, game_id):
    fields = GAMES[game_id].form_values(facts)
    response = client.post(f"/t/{token}/deals", data={"number": str(number), **fields})
    assert response.status_code in (200, 303), text_of(response.get_data(as_text=True))


RWD3 = MatchSetup("rwd", ("Amy", "Bo", "Cy"), {"first_start_player": 0})
AMY_SMALL = {"chips": [5, 5, 7], "tricks": [6, 5, 6]}   # Amy +1 alone (Bo 0, Cy -1)
BO_BIG = {"chips": [5, 4, 8], "tricks": [2, 10, 5]}     # Bo +6 alone
DRAW = {"chips": [5, 6, 6], "tricks": [5, 6, 6]}        # everyone 0: a draw


def test_rwd_chart_plots_deal_wins_beside_points():
    match = GAMES["rwd"].replay(RWD3, [AMY_SMALL, AMY_SMALL, BO_BIG])
    chart = progression_chart(match)
    [(label, wins)] = chart.tallies
    assert str(label) == "Deal wins"
    assert [s.total for s in wins.series] == [2, 1, 0]
    assert [s.total for s in chart.series] == list(match.totals)


def test_hall_tile_leader_is_by_deal_wins_where_they_decide(client):
    token = create(client, "rwd", ["Amy", "Bo", "Cy"], first_start_player=0)
    for number, facts in enumerate([AMY_SMALL, AMY_SMALL, BO_BIG], start=1):
        enter(client, token, number, facts, "rwd")
    board = text_of(client.get("/hall").get_data(as_text=True))
    leading = board[board.index("Leading:"):][:60]
    assert "Amy Deal wins 2" in leading and "Bo" not in leading.split("Last change")[0]


def test_rwd_history_says_who_was_chosen_not_the_question(client):
    match = GAMES["rwd"].replay(RWD3, [DRAW, {**AMY_SMALL, "start_player": 2}])
    record = match.deals[1]
    said = " ".join(str(line) for line in record.before.lines)
    assert "Who starts?" not in said and "Cy was chosen as the start player" in said
    assert record.before.leader == 2
    token = create(client, "rwd", ["Amy", "Bo", "Cy"], first_start_player=0)
    enter(client, token, 1, DRAW, "rwd")
    enter(client, token, 2, {**AMY_SMALL, "start_player": 2}, "rwd")
    history = client.get(f"/t/{token}").get_data(as_text=True)
    history = text_of(history[history.index('id="deal-2"'):])
    assert "Cy was chosen as the start player" in history and "Who starts?" not in history


PQ_TIE = {"captured": [{"7": 0, "A": 0, "K": 0, "Q": 0, "J": 0, "other": 12},
                       {"7": 0, "A": 0, "K": 0, "Q": 0, "J": 0, "other": 12},
                       {"7": 2, "A": 2, "K": 2, "Q": 2, "J": 2, "other": 2},
                       {"7": 2, "A": 2, "K": 2, "Q": 2, "J": 2, "other": 6}]}


def test_pair_quad_last_deal_of_a_fixed_match_does_not_ask_who_deals_next():
    setup = MatchSetup("pair_quad", ("Eri", "Fay", "Gus", "Hal"), {"first_dealer": 0, "deals": 1})
    match = GAMES["pair_quad"].replay(setup, [PQ_TIE])
    assert match.over and match.next is None
    notes = " ".join(str(n) for n in match.deals[0].score.notes)
    assert "deals next" not in notes and "Eri and Fay tie for the top score." in notes.replace(", ", " and ")
    assert "tied_top" not in match.deals[0].score.rulings
    # Not the last deal: the table still chooses.
    longer = GAMES["pair_quad"].replay(setup.__class__("pair_quad", setup.players,
                                                        {"first_dealer": 0, "deals": 2}), [PQ_TIE])
    assert "deals next" in " ".join(str(n) for n in longer.deals[0].score.notes)


def test_pair_quad_history_says_who_was_chosen_to_deal():
    setup = MatchSetup("pair_quad", ("Eri", "Fay", "Gus", "Hal"), {"first_dealer": 0})
    match = GAMES["pair_quad"].replay(setup, [PQ_TIE, {**PQ_TIE, "dealer": 1}])
    said = " ".join(str(line) for line in match.deals[1].before.lines)
    assert "who deals next?" not in said and "Fay was chosen to deal" in said
    assert match.deals[1].before.dealer == 1


TWIN = ("Eri", "Fay", "Gus", "Hal")
EVEN = {"bids": [["C", "D"], ["H", "D"], ["C", "D"], ["H", "D"]], "tricks": [3, 2, 3, 2], "open_bid": None}
TEAM0 = {"bids": [["C", "D"], ["H", "D"], ["D", "D"], ["D", "D"]], "tricks": [3, 2, 3, 2], "open_bid": None}


def test_twin_shoot_team_wins_agree_in_the_plural(client):
    match = GAMES["twin_shoot"].replay(MatchSetup("twin_shoot", TWIN), [TEAM0] * 3)
    assert str(match.outcome.message) == "Eri & Fay win with 105 points."
    token = create(client, "twin_shoot", list(TWIN), first_team=0)
    for number in (1, 2, 3):
        enter(client, token, number, TEAM0, "twin_shoot")
    page = text_of(client.get(f"/t/{token}").get_data(as_text=True))
    assert "Eri & Fay win the match!" in page and "Eri & Fay wins" not in page
    # The refusal of a deal after the end says it the same way.
    fields = GAMES["twin_shoot"].form_values(TEAM0)
    refused = text_of(client.post(f"/t/{token}/deals", data={"number": "4", **fields}).get_data(as_text=True))
    assert "wins with" not in refused


def test_twin_shoot_open_bid_line_is_printed_once(client):
    token = create(client, "twin_shoot", list(TWIN), first_team=0)
    enter(client, token, 1, EVEN, "twin_shoot")
    sheet = client.get(f"/t/{token}").get_data(as_text=True)
    sheet = sheet[sheet.index('id="live"'):sheet.index("</section>", sheet.index('id="live"'))]
    assert text_of(sheet).count("No team is alone in last place") == 1


def test_card_taken_last_is_chosen_not_typed(client):
    calc = GAMES["rwd"].calculators[1]
    result = calc.run({"rf-cards": "QS 10H 3D", "rf-last": ""}, 3)
    said = " ".join(str(e) for e in result.errors)
    assert "enter a number" not in said and "choose" in said


def test_pair_quad_calculator_with_nothing_entered_scores_zero():
    result = GAMES["pair_quad"].calculators[0].run({}, 4)
    assert str(result.prompt).startswith("Score: 0")


def test_lang_query_opens_japanese_and_is_remembered(client):
    response = client.get("/games/miraiscope?lang=ja")
    html = response.get_data(as_text=True)
    assert 'lang="ja"' in html and "ミライスコープ" in html
    assert "lang=ja" in response.headers.get("Set-Cookie", "")  # remembered, as the switch does
    assert 'lang="ja"' in client.get("/games/rwd").get_data(as_text=True)


def test_catch_up_notice_names_every_deal_entered_elsewhere(client, app):
    with app.test_request_context():
        from flask import render_template_string
        html = render_template_string(
            "{% set banner = {'kind': 'other', 'number': 2, 'last': 3} %}"
            "{% include 'tables/_banner.html' %}", match=None, table=None)
    assert "Deals 2 and 3 were just entered from another phone." in text_of(html)


def test_the_words_in_japanese(client):
    client.set_cookie("lang", "ja")
    mirai = text_of(client.get("/games/miraiscope").get_data(as_text=True))
    assert "自分の札は見えません" not in mirai and "自分のオープンデッキ" in mirai
    assert "ラストトリック" in mirai and "9・10" in mirai
    twin = text_of(client.get("/games/twin_shoot").get_data(as_text=True))
    assert "勝利を分かち合います" in twin
    for game in ("rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot"):
        page = client.get(f"/games/{game}").get_data(as_text=True)
        assert "原典の読み方" not in page and "それも同じなら同点優勝" not in page
        assert "同点優勝で終える" not in page
        assert not re.search(r"。 <span class=\"see-ruling\">", page)
        assert "逆回りに" not in page and "点数の変動なし" not in page and "数ゲーム繰り返し" not in page
        assert "0点分より少なくはなりません" not in page


def test_twin_shoot_first_leader_ruling_keeps_only_what_the_app_adds():
    ruling = GAMES["twin_shoot"].ruling("first_team")
    assert "right-side players pick" not in str(ruling.text)
    assert "share the win" not in str(GAMES["twin_shoot"].ruling("match_end").text)
