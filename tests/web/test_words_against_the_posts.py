"""Issue 34: the words of the cards, checklists and forms, read through the pages a phone gets in
English and in Japanese, against the original posts; and the rough edges found beside them."""

from __future__ import annotations

import re

import pytest

from companion import catalog
from companion.games import GAMES
from helpers import rendered, text_of, visible_page

# A half-width space before a full-width opening bracket (or after a closing one) in Japanese.
SPACED_BRACKET = re.compile(r" [（「『【〈《［]|[）」』】〉》］] (?=[\u3040-\u30ff\u4e00-\u9fff])")
# A checklist line that ends in a parenthesised count: 「…です（全10トリック）。」
PARENTHESISED_COUNT = re.compile(r"（[^（）]*\d[^（）]*）。?$")


def section(text: str, heading: str, next_heading: str) -> str:
    start = text.index(heading)
    return text[start:text.index(next_heading, start + len(heading))]


# --- the checks over every Japanese string --------------------------------------------------------

def _strings(message) -> list[str]:
    return list(message.string) if isinstance(message.string, (tuple, list)) else [message.string]


def test_no_half_width_space_beside_a_full_width_bracket_in_the_catalog():
    bad = [(m.id, s) for m in catalog.load_po("ja") if m.id for s in _strings(m)
           if s and SPACED_BRACKET.search(s)]
    assert not bad, bad


# On a page: a space typed inline between a word and a bracket (never a line break between blocks).
SPACED_ON_PAGE = re.compile(r"(?<=\S) [（「『【〈《［]|[）」』】〉》］] (?=[\u3040-\u30ff\u4e00-\u9fff])")


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_no_half_width_space_beside_a_full_width_bracket_on_a_japanese_card(client, game_id):
    html = client.get(f"/games/{game_id}", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    body = html[html.index("<main"):]
    text = re.sub(r"<[^>]+>", "", re.sub(r"<(script|style)\b.*?</\1>", "", body, flags=re.S))
    found = [text[max(0, m.start() - 30):m.end() + 10] for m in SPACED_ON_PAGE.finditer(text)]
    assert not found, found


def test_the_checks_can_fail():
    assert SPACED_BRACKET.search("0 （減点がなくなります）")
    assert SPACED_ON_PAGE.search("<strong>0</strong> （減点がなくなります）".replace("<strong>", "").replace("</strong>", ""))
    assert PARENTHESISED_COUNT.search("親が最初の台札を出します（全13トリック）。")
    assert not PARENTHESISED_COUNT.search("伏せ札として脇に置きます（使いません）。")


def test_no_checklist_line_ends_in_a_parenthesised_count(app):
    bad = []
    for game in GAMES.values():
        for n in sorted(set(game.players) | set(game.variant_players)):
            for step in game.setup_steps(n):
                line = rendered(app, step, "ja")
                if PARENTHESISED_COUNT.search(line):
                    bad.append((game.id, n, line))
    assert not bad, bad


def test_checklists_say_the_tricks_in_a_sentence_of_their_own(client):
    assert "オープニングリーダーを務めます。1ディールは10トリックです。" in visible_page(client, "/games/miraiscope", "ja")
    pair_quad = visible_page(client, "/games/pair_quad", "ja")
    assert "親が最初の台札を出します。1ディールは13トリックです。" in pair_quad


# --- Twin Shoot -------------------------------------------------------------------------------

def test_who_deals_is_open_only_as_to_which_player(client):
    en = visible_page(client, "/games/twin_shoot")
    ja = visible_page(client, "/games/twin_shoot", "ja")
    assert "only for the first deal" not in en
    assert "does not say which one" in en and "The app names no one" in en
    assert "最初のディールだけ" not in ja
    assert "そのうち誰が配るかは書かれていません" in ja


def test_who_may_open_bid_is_the_designers_rule_in_the_bidding_section(client):
    en = visible_page(client, "/games/twin_shoot")
    bidding = section(en, "Bidding", "A trick")
    assert "only a team alone in last place on the current scores may open-bid" in bidding
    assert "nobody may open-bid on the first deal, or when two or more teams share last place" in bidding
    rulings = en[en.index("Table rulings"):]
    assert "Who may open-bid" not in rulings
    ja = visible_page(client, "/games/twin_shoot", "ja")
    assert "現時点の得点比較で単独最下位のチームだけに許されます" in section(ja, "ビッド", "トリック（")
    html = client.get("/games/twin_shoot", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    rulings = html[html.index('class="ref-section ref-rulings"'):]
    assert "オープンビッド" not in text_of(rulings[:rulings.index("</section>")])


def test_the_deal_forms_open_bid_note_is_the_rule_not_a_ruling(client):
    token = _twin_table(client)
    html = client.get(f"/t/{token}").get_data(as_text=True)
    fold = html[html.index("Who may open-bid?"):]
    fold = fold[:fold.index("</details>")]
    assert 'data-ruling="open_bid"' not in fold and "Table ruling" not in fold
    assert "only a team alone in last place on the current scores may open-bid" in text_of(fold)


def test_follow_rule_in_japanese(client):
    ja = visible_page(client, "/games/twin_shoot", "ja")
    assert "リードと同じスートかランクの札を最初に出したプレイヤーが、そのトリックのフォローの種類を決めます。" in ja
    assert "最初にリードに合わせたプレイヤーで" not in ja


def test_lead_helper_asks_for_the_team_that_led(client):
    ja = visible_page(client, "/games/twin_shoot", "ja")
    assert "最初のディールでリードしたチーム" in ja
    assert "オープニングリーダーがいたチーム" not in ja


def test_four_player_form_names_only_two_teams(client):
    four = visible_page(client, "/tables/new", game="twin_shoot", players="4")
    assert "seats 1–2 and 3–4 are teams" in four and "5–6" not in four
    six = visible_page(client, "/tables/new", game="twin_shoot", players="6")
    assert "seats 1–2, 3–4 and 5–6 are teams" in six
    assert "1〜2、3〜4番席がそれぞれチーム" in visible_page(client, "/tables/new", "ja", game="twin_shoot",
                                                          players="4")


def test_team_calculator_says_a_failed_open_bid_gives_every_other_team_30(client):
    for lang, said in (("en", "The team scores 16; every other team scores +30."),
                       ("ja", "チームの得点は16点です。オープンビッドに失敗したので、他のチームがそれぞれ+30点のボーナス点を獲得します。")):
        html = client.get("/games/twin_shoot", headers={"Accept-Language": lang}, query_string={
            "players": "4", "ts-bid1": "4", "ts-bid2": "3", "ts-tricks1": "4", "ts-tricks2": "2", "ts-open": "1"})
        headline = re.search(r'<p class="calc-headline">([^<]*)</p>', html.get_data(as_text=True)).group(1)
        assert headline == said


def _twin_table(client) -> str:
    from companion.games import GAMES as games

    data = {"game": "twin_shoot", "players": "4", "first_team": "0",
            **{f"name-{i}": n for i, n in enumerate(("Ichiro", "Chiyo", "jun", "aiko"))}}
    token = client.post("/tables", data=data).headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    facts = {"bids": [["D", "D"], ["H", "D"], ["D", "D"], ["D", "D"]], "tricks": [3, 2, 3, 2], "open_bid": None}
    assert client.post(f"/t/{token}/deals", data={"number": "1", **games["twin_shoot"].form_values(facts)}
                       ).status_code == 303
    return token


def test_the_open_bid_chip_label_is_one_element(client):
    """A chip is a flex box: a space between the team's name and "open-bid" as two children
    vanishes on screen ("Chiyo & junopen-bid"); its label is one element, space inside."""
    token = _twin_table(client)
    html = client.get(f"/t/{token}").get_data(as_text=True)
    chip = re.search(r'<input type="radio" name="open_bid" value="1" ?>(<span>.*?</span>)</label>', html).group(1)
    inner = chip[len("<span>"):-len("</span>")]
    assert inner.startswith("<bdi>") and inner.endswith("</bdi>")
    assert "<bdi>jun &amp; aiko</bdi> open-bid" in inner


# --- Lucky Cube -----------------------------------------------------------------------------

def test_lucky_cube_keeps_the_posts_words(client):
    en = visible_page(client, "/games/lucky_cube")
    assert "gains 30 points or more" in en and "has 30 points or more" not in en
    assert "the deal is a draw" in en
    ja = visible_page(client, "/games/lucky_cube", "ja")
    assert "30点以上を獲得したディール" in ja and "30点以上になった" not in ja
    assert "（点分）" not in ja and "1人あたりの初期チップ（点数）" in ja
    assert "0点分を下回る" not in ja and "（持ちチップがマイナスになることはありません）" in ja


# --- Pair & Quad ----------------------------------------------------------------------------

def test_pair_quad_credit_is_dated_as_the_post_dates_itself(client):
    assert "（2012年10月19日のブログ記事）" in visible_page(client, "/games/pair_quad", "ja")
    assert "2012-10-19" not in visible_page(client, "/games/pair_quad")


def test_pair_quad_score_table_has_no_space_before_the_bracket(client):
    html = client.get("/games/pair_quad", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "<strong>0</strong>（減点がなくなります）" in html
    assert "<strong>0</strong> (the penalty cancels out)" in client.get("/games/pair_quad").get_data(as_text=True)


def test_three_player_checklist_sets_the_last_card_aside(client):
    three = visible_page(client, "/games/pair_quad", players="3")
    assert "puts the last card aside" in three and "the last 1 aside" not in three
    assert "puts the last 4 cards aside" in visible_page(client, "/games/pair_quad", players="6")


def test_clear_loads_the_page_again_each_time(client):
    """Clear was a link to the page itself: after one Clear it pointed at the page already open,
    so a second tap only scrolled. It submits an empty form of its own: always a fresh load."""
    html = client.get("/games/pair_quad", query_string={"players": "4", "pq-7": "4"}).get_data(as_text=True)
    actions = html[html.index('id="calc-pq"'):]
    actions = actions[actions.index('class="calc-actions"'):actions.index('class="calc-result"')]
    assert "<a " not in actions
    assert re.search(r'<button class="button" type="submit" form="clear-pq">Clear</button>', actions)
    clear_form = re.search(r'<form id="clear-pq" method="get" action="([^"]+)"[^>]*>(.*?)</form>', html, re.S)
    # No #anchor: the page already open plus an anchor would again only scroll.
    assert clear_form.group(1) == "/games/pair_quad"
    assert re.findall(r'name="([^"]+)" value="([^"]+)"', clear_form.group(2)) == [("players", "4"), ("clear", "pq")]


# --- The players list ----------------------------------------------------------------------

def test_names_at_tables_are_the_spellings_people_typed(client):
    data = {"game": "rwd", "players": "3", **{f"name-{i}": n for i, n in enumerate(("Jun", "Aiko", "Ken"))}}
    token = client.post("/tables", data=data).headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    deal = {"chips-0": "2", "chips-1": "7", "chips-2": "8", "tricks-0": "5", "tricks-1": "6", "tricks-2": "6"}
    for number in (1, 2, 3):
        assert client.post(f"/t/{token}/deals", data={"number": str(number), **deal}).status_code == 303
    html = client.get("/players").get_data(as_text=True)
    cells = re.findall(r'<td class="wide-only hint">(.*?)</td>', html)
    names = {text_of(cell) for cell in cells}
    assert {"Jun", "Aiko", "Ken"} <= names, cells
    assert "jun" not in names and "aiko" not in names


# --- The season table of a new club --------------------------------------------------------

def test_a_new_clubs_season_table_ranks_everyone_and_marks_who_is_below_the_minimum(client):
    """Nobody has 5 matches yet: everyone with a match is listed, ranked, each marked with the
    minimum's note, instead of an empty table. The minimum filter still decides who is marked."""
    data = {"game": "rwd", "players": "3", **{f"name-{i}": n for i, n in enumerate(("Jun", "Aiko", "Ken"))}}
    token = client.post("/tables", data=data).headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    deal = {"chips-0": "2", "chips-1": "7", "chips-2": "8", "tricks-0": "5", "tricks-1": "6", "tricks-2": "6"}
    for number in (1, 2, 3):
        assert client.post(f"/t/{token}/deals", data={"number": str(number), **deal}).status_code == 303
    html = client.get("/season").get_data(as_text=True)
    rows = re.findall(r"<tr( class=\"below-minimum\")?><td class=\"num rank\">(.*?)</td>\s*<th scope=\"row\">(.*?)</th>",
                      html, re.S)
    assert [(text_of(rank), text_of(name)) for _marked, rank, name in rows] == [
        ("1 *", "Jun"), ("2 *", "Aiko"), ("2 *", "Ken")]
    assert all(marked for marked, _rank, _name in rows)
    assert "Fewer than 5 matches played" in text_of(html)
    one = client.get("/season?min=1").get_data(as_text=True)
    assert "below-minimum" not in one and "Fewer than" not in text_of(one)
    ja = visible_page(client, "/season", "ja")
    assert "対戦数が5未満のプレイヤーです" in ja


def test_japanese_runs_on_after_a_full_width_colon_and_lists_with_the_ideographic_comma(client):
    """The table's actions and a player's page in Japanese: no space after 「：」, names listed
    with 「、」, 「1位／3」 without a space, a player's matches headed 「対戦履歴」."""
    data = {"game": "rwd", "players": "3", **{f"name-{i}": n for i, n in enumerate(("Jun", "Aiko", "Ken"))}}
    token = client.post("/tables", data=data).headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    deal = {"chips-0": "2", "chips-1": "7", "chips-2": "8", "tricks-0": "5", "tricks-1": "6", "tricks-2": "6"}
    for number in (1, 2, 3):
        assert client.post(f"/t/{token}/deals", data={"number": str(number), **deal}).status_code == 303
    table = client.get(f"/t/{token}", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "プレイヤーの記録：<a " in table
    page = client.get("/players/1", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    text = re.sub(r"<[^>]+>", "", page)
    assert "同卓：Jun、Ken" in text  # player 1 is Aiko (ids in name order)
    assert "最高の結果：2位／3" in text
    assert "対戦履歴" in text and ", " not in re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S)
