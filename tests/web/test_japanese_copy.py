"""The Japanese reads as a Japanese player would write it (issue 15): names joined the reader's
way, no doubled words, 同点優勝, 選んでください, a change log in the player's language. Moved
from test_words.py."""

from __future__ import annotations

import re

from flask_babel import force_locale

from companion.games import rwd, twin_shoot
from companion.games import MatchSetup
from companion.games.contract import names
from companion.games.forms import read_seat
from companion.games.text import T, Tn, join_names
from helpers import rendered as render, visible_page as page


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
