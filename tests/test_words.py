"""Every word right (issue 15): the reference cards say what the five posts say, English
agrees in number, and the Japanese reads as a Japanese player would write it.

One test per point the reviewer found (a message, a card sentence, a drawing's point count),
then checks over the whole Japanese catalog that keep it that way.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

import pytest
from flask_babel import force_locale, get_translations, gettext

from companion import catalog
from companion.games import GAMES, lucky_cube, miraiscope, pair_quad, rwd, twin_shoot
from companion.games.base import MatchSetup, names, read_seat
from companion.games.text import T, Tn, join_names

ROOT = Path(__file__).resolve().parent.parent


def text_of(body: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def page(client, path: str, lang: str = "en", **params) -> str:
    response = client.get(path, query_string=params, headers={"Accept-Language": lang})
    assert response.status_code == 200, (path, response.status_code)
    return text_of(response.get_data(as_text=True))


def card(client, game: str, lang: str = "en") -> str:
    return page(client, f"/games/{game}", lang)


def render(app, text, lang: str) -> str:
    """A rules-engine Text as a phone reading ``lang`` sees it."""
    with app.test_request_context("/"), force_locale(lang):
        return text.render(gettext, lambda one, many, n: get_translations().ungettext(one, many, n))


@pytest.fixture(scope="module")
def po():
    return catalog.load_po("ja")


# --- RWD ---------------------------------------------------------------------------------------

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


# --- Miraiscope --------------------------------------------------------------------------------

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


# --- Lucky Cube --------------------------------------------------------------------------------

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


# --- Pair & Quad -------------------------------------------------------------------------------

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


# --- Twin Shoot --------------------------------------------------------------------------------

def _tips(path: str) -> int:
    """Points of a star-like outline: vertices farther from the centre than both neighbours."""
    points = [tuple(map(float, pair)) for pair in re.findall(r"(-?[\d.]+)[ ,](-?[\d.]+)", path)]
    cx = sum(x for x, _ in points) / len(points)
    cy = sum(y for _, y in points) / len(points)
    radius = [math.hypot(x - cx, y - cy) for x, y in points]
    return sum(1 for i, r in enumerate(radius) if r > radius[i - 1] and r > radius[(i + 1) % len(radius)])


def test_leaf_drawing_has_as_many_points_as_its_bid_value():
    svg = (ROOT / "static" / "suits.svg").read_text(encoding="utf-8")
    leaf = re.search(r'<symbol id="suit-L"[^>]*><path d="([^"]+)"', svg).group(1)
    assert not re.search(r"[a-z]", leaf.replace("z", "")), "absolute coordinates only, so points can be counted"
    assert _tips(leaf) == twin_shoot.BID_VALUES["L"] == 5


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


# --- Japanese: names, doubled words, natural phrasing --------------------------------------------

def test_names_are_joined_the_readers_way(app):
    setup = MatchSetup("lucky_cube", ("たろう", "はなこ", "じろう"))
    message = T("{names} lost all their chips.", names=names(setup, (0, 1)))
    assert render(app, message, "ja") == "たろう、はなこがチップをすべて失いました。"
    assert render(app, message, "en") == "たろう, はなこ lost all their chips."
    with app.test_request_context("/"), force_locale("ja"):
        joined = str(app.jinja_env.filters["names_of"]([0, 2], ["A", "B", "C"]))
        assert re.sub(r"<[^>]+>", "", joined) == "A、C"


def test_rwd_tie_note_reads_naturally_in_japanese(app):
    _winners, notes, _rulings = rwd.deal_winners([2, 2, -4], [3, 4, 6], ["プレイヤー1", "プレイヤー2", "C"])
    shown = render(app, notes[0], "ja")
    assert shown == "プレイヤー1、プレイヤー2が2点で並びましたが、チップの多いプレイヤー2がこのディールの勝者です。"


def test_no_doubled_words_in_twin_shoot_lead_lines(app):
    setup = MatchSetup("twin_shoot", ("プレイヤー1", "プレイヤー2", "プレイヤー3", "プレイヤー4"),
                       {"first_team": 0})
    progress = twin_shoot.GAME.start(setup)
    for record in range(3):
        upcoming = twin_shoot.GAME.next_deal(progress)
        for line in upcoming.lines:
            shown = render(app, line, "ja")
            assert "プレイヤープレイヤー" not in shown and "のプレイヤーたろう" not in shown
        facts = {"bids": [["D", "D"]] * 4, "tricks": [10, 0, 0, 0], "open_bid": None}
        progress = twin_shoot.GAME.add_deal(progress, facts)


def test_shared_wins_read_as_douten_yuusho(app):
    setup = MatchSetup("pair_quad", ("たろう", "はなこ", "じろう", "さぶろう"))
    message = Tn("{names} share the win with {n} point each.", "{names} share the win with {n} points each.",
                 12, names=join_names(["たろう", "はなこ"]))
    assert render(app, message, "ja") == "たろう、はなこが12点で並び、同点優勝です。"
    assert str(Tn("{name} wins with {n} point.", "{name} wins with {n} points.", 1, name="A")) == "A wins with 1 point."
    assert setup.n == 4


def test_tap_choices_say_choose_in_japanese(app):
    errors: list = []
    read_seat({"dealer": ""}, "dealer", 4, T("Dealer of this deal"), errors)
    assert render(app, errors[0].message, "ja") == "このディールの親：プレイヤーを1人選んでください。"


def test_change_log_speaks_the_players_language(client):
    seats = {f"name-{seat}": name for seat, name in enumerate(("A", "B", "C"))}
    response = client.post("/tables", data={"game": "rwd", "players": "3", "first_start_player": "0", **seats})
    assert response.status_code == 303
    token = response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    response = client.post(f"/t/{token}/deals", data={"number": "1", "chips-0": "10", "chips-1": "4",
                                                      "chips-2": "3", "tricks-0": "3", "tricks-1": "7",
                                                      "tricks-2": "7"})
    assert response.status_code == 303
    ja = page(client, f"/t/{token}/log", "ja")
    assert "UTC" not in ja
    assert '"chips"' not in ja and '"tricks"' not in ja


# --- the whole Japanese catalog ----------------------------------------------------------------

ENGLISH_GAME_NAMES = re.compile(r"Rewind|Miraiscope|Lucky ?Cube|Pair ?& ?Quad|Twin ?Shoot", re.I)
# A count placeholder followed by a plural noun needs ngettext/Tn, unless the placeholder only
# ever holds a rules constant of 2 or more (deck sizes, player counts, tricks per deal...) or
# ends a sum or range ("{first} + {second} tricks", "{lo}–{hi} players").
PERSON = {"name", "names", "winner", "dealer", "leader", "player", "team", "teams_names", "who",
          "payer", "payee", "holder", "partner", "game", "field", "reason", "result"}
CONSTANT = {"deck", "n", "counts", "limit", "dealt", "hand", "stand", "rows", "open", "target",
            "max", "expected", "total", "teams", "tricks", "start", "bid_cards"}
PLURAL_NOUN = re.compile(r"(?<!\+ )(?<!or )(?<!–)(\{(\w+)\}|%\((\w+)\)[sd])\s+(?:more\s+|stock\s+|face-up\s+|deal\s+|other\s+)?"
                         r"(chips|cards|tricks|points|deals|players|teams|wins|hands|tables|characters)\b")


def _strings(message) -> list[str]:
    return list(message.string) if isinstance(message.string, (tuple, list)) else [message.string]


def test_no_english_game_name_in_japanese(po):
    bad = [(m.id, s) for m in po if m.id for s in _strings(m) if ENGLISH_GAME_NAMES.search(s or "")]
    assert not bad, bad


def test_no_comma_joined_names_in_japanese(po):
    bad = [(m.id, s) for m in po if m.id for s in _strings(m) if s and ", " in s]
    assert not bad, bad


def test_japanese_punctuation(po):
    """Full-width parentheses and 〜 for ranges beside Japanese text; placeholders aside."""
    bad = []
    for message in po:
        for s in _strings(message) if message.id else []:
            if not s or not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", s):
                continue
            bare = re.sub(r"%\(\w+\)[sd]|\{\w*\}", "", s)
            if "(" in bare or ")" in bare or re.search(r"\d–|–\d", bare):
                bad.append((message.id, s))
    assert not bad, bad


def test_stiff_or_literal_phrases_are_gone(po):
    stiff = ("勝利を分かち合", "真の勝者の座", "テーブル裁定", "数値を入力してください", "時刻はUTC",
             "プレイヤープレイヤー")
    bad = [(m.id, s) for m in po if m.id for s in _strings(m) for word in stiff if s and word in s]
    assert not bad, bad


def test_sentences_to_players_are_desu_masu(po):
    """A Japanese sentence ending in a plain verb (…する。…置く。…だ。) mixes registers."""
    plain = re.compile(r"(?:[るくすつぬむうぐぶ]|った|んだ|だ|である|ない)。$")
    polite = re.compile(r"(?:ます|です|ません|ました|でした|ください|ましょう)。$")
    bad = []
    for message in po:
        for s in _strings(message) if message.id else []:
            for sentence in re.findall(r"[^。！？]*。", s or ""):
                if plain.search(sentence) and not polite.search(sentence):
                    bad.append((message.id, sentence))
    assert not bad, bad


def test_counted_nouns_have_plural_forms(po):
    bad = []
    for message in po:
        if not message.id or isinstance(message.id, (tuple, list)):
            continue  # ngettext / Tn: has its plural
        for match in PLURAL_NOUN.finditer(message.id):
            name = match.group(2) or match.group(3)
            if name not in PERSON and name not in CONSTANT:
                bad.append((message.id, match.group(0)))
    assert not bad, "use ngettext (templates, web code) or Tn (rules engine):\n" + "\n".join(map(str, bad))


def test_the_checks_can_fail():
    """The catalog checks above really catch what they are for."""
    assert ENGLISH_GAME_NAMES.search("Twin Shootのプレイ人数は4/6人です")
    assert PLURAL_NOUN.search("%(payer)s pays %(amount)s chips").group(3) == "amount"
    assert PLURAL_NOUN.search("{aside} stock cards will be left over") is not None
    assert _tips("M12 2L14 8L22 8L16 12L19 20L12 16L5 20L8 12L2 8L10 8z") == 5
