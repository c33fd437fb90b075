"""The reference cards and the rules engine's messages say what the five posts say, and English
agrees in number (issue 15): one test per point the reviewer found, per game. Moved from
test_words.py."""

from __future__ import annotations

import re

from companion.games import GAMES, lucky_cube, miraiscope, rwd, twin_shoot
from companion.games import MatchSetup
from helpers import game_card as card, rendered as render, visible_page as page


def test_rwd_first_half_picks_keep_their_side_up(client):
    en, ja = card(client, "rwd"), card(client, "rwd", "ja")
    assert "without turning it over" in en and "face-up cards stay face up" in en
    assert "leaves it unseen in front of them" not in en
    assert "裏表を変えずに自分の前に置きます" in ja


def test_rwd_won_cards_stay_unseen_and_the_winner_may_show_nobody(client):
    en, ja = card(client, "rwd"), card(client, "rwd", "ja")
    assert "Nobody may look at the faces of won cards during play." in en
    assert "獲得した札の表面は、プレイ中に確認してはいけません。" in ja
    assert "if that is themselves, they show it to nobody" in en
    assert "勝者が自分なら、誰にも見せなくて構いません" in ja


def test_rwd_winner_takes_a_chip_from_the_middle(client):
    assert "paying a chip" not in str(rwd.GAME.summary)
    assert "taking a chip from the middle" in str(rwd.GAME.summary)
    assert "takes one chip from the middle" in card(client, "rwd")
    assert "場の中央からチップを1枚取り" in card(client, "rwd", "ja")


def test_rwd_leftover_stock_agrees_in_number(app):
    three = [str(step) for step in rwd.GAME.setup_steps(3)]
    four = [str(step) for step in rwd.GAME.setup_steps(4)]
    assert any("1 stock card is left over" in s for s in three)
    assert not any("1 stock cards" in s for s in three)
    assert not any("0 stock cards" in s for s in four)
    assert any("uses up the whole stock" in s for s in four)
    assert not any("残り0枚" in render(app, s, "ja") for s in rwd.GAME.setup_steps(4))


def test_miraiscope_card_does_not_invent_an_order(client):
    assert "in the order they arrive" not in card(client, "miraiscope")
    assert "配られた順に" not in card(client, "miraiscope", "ja")


def test_miraiscope_led_suit_ruling_speaks_only_for_the_leader():
    text = str(miraiscope.GAME.ruling("one_led_suit").text)
    assert "since that is the card the leader played just before" not in text
    assert "For the leader that can only be their first card" in text


def test_miraiscope_blank_player_gets_the_remaining_cards_not_points(client):
    ja = card(client, "miraiscope", "ja")
    assert "残りのQと1点札を自動で割り当てます" in ja
    assert "残りの点数を自動で割り当てます" not in ja


def test_miraiscope_match_message_names_its_target(app):
    progress = miraiscope.GAME.start(MatchSetup("miraiscope", ("Ann", "Bob")))
    message = miraiscope.GAME.outcome(progress, False).message
    assert str(message) == "The match ends after a deal in which a player has 60 points or more."
    assert "60点以上" in render(app, message, "ja")


def test_lucky_cube_marker_follows_the_leader_and_every_deal_is_reshuffled(client):
    en, ja = card(client, "lucky_cube"), card(client, "lucky_cube", "ja")
    assert "always move it in front of the new leader" in en
    assert "常にリードプレイヤーの前に移動させます" in ja
    assert "Gather all the cards" in en and "札は毎回すべて集め" in ja
    steps = " ".join(str(s) for s in lucky_cube.GAME.setup_steps(4))
    assert "gathers all the cards" in steps and "move it in front of each new leader" in steps


def test_lucky_cube_pays_one_chip(app):
    result = lucky_cube.calc_payment({"holder": "0", "number": "1", "last": "1"}, 3)
    assert str(result.headline).endswith("pays 1 chip to Player 1.")
    assert "1 chips" not in str(result.headline)
    assert render(app, result.headline, "ja") == "プレイヤー2がプレイヤー1にチップ1点分を支払います。"


def test_pair_quad_new_table_preselects_the_posts_four_players(client):
    response = client.get("/tables/new", query_string={"game": "pair_quad"})
    body = response.get_data(as_text=True)
    assert re.search(r'name="players" value="4"', body)
    # The game's own counts, never a variant, decide the default for every game.
    for game in GAMES.values():
        body = client.get("/tables/new", query_string={"game": game.id}).get_data(as_text=True)
        assert f'name="players" value="{min(game.players)}"' in body


def test_home_marks_variant_player_counts(client):
    assert "Pair & Quad 4 players (also 3, 5, 6 players as a variant)" in page(client, "/")
    assert "3–6 players" not in page(client, "/")
    ja = page(client, "/", "ja")
    assert "4人（バリアントで3、5、6人も可）" in ja
    assert "3〜5人" in ja and "3–5" not in ja


def test_pair_quad_card_deals_the_variant_remainder_aside(client):
    en, ja = card(client, "pair_quad"), card(client, "pair_quad", "ja")
    assert "set the rest aside face down, unseen" in en
    assert "残りは見ずに裏向きのまま脇に置きます" in ja


def test_twin_shoot_partners_may_agree_whether_to_open_bid(client):
    en, ja = card(client, "twin_shoot"), card(client, "twin_shoot", "ja")
    assert "Partners must never discuss the play." not in en
    assert "except to agree whether to open-bid" in en
    assert "オープンビッドするかどうかの確認だけは許されます" in ja


def test_twin_shoot_card_names_all_four_bonuses(client):
    en, ja = card(client, "twin_shoot"), card(client, "twin_shoot", "ja")
    for name in ("Trick points", "Shoot bonus", "Twin Shoot bonus", "Overhead Twin Shoot bonus"):
        assert name in en
    for name in ("トリック点", "シュートボーナス", "ツインシュートボーナス", "オーバーヘッドツインシュートボーナス"):
        assert name in ja


def test_twin_shoot_right_side_player_does_not_depend_on_who_leads(client):
    en = card(client, "twin_shoot")
    assert "plays first in clockwise order" not in en
    assert "comes first in clockwise order" in en


def test_one_name_per_suit():
    """The bid decoder says "Cross (4) + Heart (2)", as the card's suit table does."""
    result = twin_shoot.calc_bid({"1": "X", "2": "H"}, 4)
    assert [str(item) for item in result.items] == ["Cross (4) + Heart (2) = 6"]
    assert str(result.headline) == "Bid: 6 tricks"
    assert str(twin_shoot.calc_bid({"1": "S", "2": "D"}, 4).headline) == "Bid: 1 trick"
