"""What a table's page says (issue 24): RWD's chart plots deal wins beside points, the history
names who was chosen, Twin Shoot's team wins agree in number and its open-bid line is printed
once, the catch-up notice names every deal entered elsewhere. Once test_issue24_pages.py (its
rules-engine tests are in tests/games/test_rule_wording.py, its game pages' in
tests/web/test_game_pages_in_japanese.py, its hall tile in tests/night/test_hall_tiles.py)."""

from __future__ import annotations

from companion.games import GAMES, MatchSetup
from companion.tables.chart import progression_chart
from helpers import create_table as create
from helpers import enter_facts as enter
from helpers import text_of


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


def test_catch_up_notice_names_every_deal_entered_elsewhere(client, app):
    with app.test_request_context():
        from flask import render_template_string
        html = render_template_string(
            "{% set banner = {'kind': 'other', 'number': 2, 'last': 3} %}"
            "{% include 'tables/_banner.html' %}", match=None, table=None)
    assert "Deals 2 and 3 were just entered from another phone." in text_of(html)


