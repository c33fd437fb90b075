"""The per-game pages /games/<id>: setup checklist, calculators and helpers.

Each calculator is checked through its plain GET form (the full page, shareable URL)
and through the htmx partial that answers as you tap; garbage must never cause a 500.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import GAMES
from companion.web.games import CALCULATORS
from helpers import text_of

HX = {"HX-Request": "true"}


def page(client, path: str, **params) -> str:
    response = client.get(path, query_string=params)
    assert response.status_code == 200, response.status_code
    return response.get_data(as_text=True)


def result_box(body: str, name: str) -> str:
    """Text of one calculator's result box on a full page (the box ends its form)."""
    start = body.index(f'id="{name}-result"')
    return text_of(body[start:body.index("</form>", start)].split(">", 1)[1])


def partial(client, game: str, name: str, expect: tuple[int, ...] = (200,), **params) -> str:
    response = client.get(f"/games/{game}/calc/{name}", query_string=params, headers=HX)
    assert response.status_code in expect, (response.status_code, response.get_data(as_text=True))
    body = response.get_data(as_text=True)
    assert "<html" not in body and "<main" not in body  # only the result box
    return text_of(body)


def both(client, game: str, name: str, **params) -> tuple[str, str]:
    """The result through the plain GET form and through the htmx partial."""
    full = result_box(page(client, f"/games/{game}", **params), name)
    return full, partial(client, game, name, **params)


def figures(body: str) -> dict[str, str]:
    return {key: text_of(value) for key, value in
            re.findall(r'class="figure figure-([a-z_]+)"><dt>.*?</dt><dd>(.*?)</dd>', body, flags=re.S)}


# ------------------------------------------------------------------ pages and player counts

ALL_COUNTS = [(gid, n) for gid, game in GAMES.items()
              for n in sorted(set(game.players) | set(game.variant_players))]


@pytest.mark.parametrize("game_id,n", ALL_COUNTS)
def test_every_allowed_count_renders(client, game_id, n):
    body = page(client, f"/games/{game_id}", players=n)
    game = GAMES[game_id]
    text = text_of(body)
    assert game.name_en in text
    # Sections in order: checklist, reference card, calculators, helpers (each of the last two
    # where the game declares one: the five declare both).
    kinds = {calc.kind for calc in game.calculators}
    sections = [("setup", "Setup checklist"), ("reference", None), ("calculators", "Calculators" if "calculator" in kinds else ""),
                ("helpers", "Helpers" if "helper" in kinds else "")]
    shown = [(name, title) for name, title in sections if title != ""]
    assert all(title in text for _name, title in shown if title)
    positions = [body.index(f'id="{name}"') for name, _title in shown]
    assert positions == sorted(positions)
    assert f'data-tick="tick:{game_id}:{n}:0"' in body
    assert "data-reset-ticks" in body
    assert f'href="/tables/new?game={game_id}"' in body
    assert 'aria-current="true"' in body and "players-message" not in body
    assert str(game.credit) in text


def test_default_count_is_first_allowed(client):
    for game_id, game in GAMES.items():
        body = page(client, f"/games/{game_id}")
        assert f'data-tick="tick:{game_id}:{game.players[0]}:0"' in body


@pytest.mark.parametrize("raw", ["9", "abc", "0", "-1", "999999999999", "3.5", "", " ", "<b>x</b>"])
@pytest.mark.parametrize("game_id", list(GAMES))
def test_unallowed_counts_show_a_message(client, game_id, raw):
    game = GAMES[game_id]
    body = page(client, f"/games/{game_id}", players=raw)
    assert f'data-tick="tick:{game_id}:{game.players[0]}:0"' in body  # the default is shown
    if raw.strip():
        text = text_of(body)
        assert "players-message" in body
        if raw.strip().isdigit() and len(raw.strip()) <= 3:
            assert str(game.check_players(int(raw))) in text
        else:
            assert f"“{raw.strip()[:12]}” is not a number of players" in text
    assert "<b>x</b>" not in body


def test_variant_counts_are_marked_with_the_ruling(client):
    body = page(client, "/games/pair_quad")
    text = text_of(body)
    for n in (3, 5, 6):
        assert f"{n} (variant)" in text
    assert 'data-ruling="variant_counts"' in body


def test_unknown_game_and_calculator_are_404(client):
    assert client.get("/games/chess").status_code == 404
    assert client.get("/games/rwd/calc/pq", headers=HX).status_code == 404
    assert client.get("/games/rwd/calc/nope").status_code == 404


# ------------------------------------------------------------------ checklist figures

CHECKLIST = [
    ("lucky_cube", 3, {"deck": "24", "dealt": "6", "aside": "6", "tricks": "6", "chips": "15"}),
    ("lucky_cube", 4, {"deck": "28", "aside": "4"}),
    ("lucky_cube", 5, {"deck": "32", "aside": "2"}),
    ("twin_shoot", 4, {"deck": "48", "teams": "2", "dealt": "12", "tricks": "10", "ranks": "A–7"}),
    ("twin_shoot", 6, {"deck": "72", "teams": "3", "dealt": "12", "ranks": "A–3"}),
    ("miraiscope", 2, {"deck": "40", "hand": "10", "stand": "10", "tricks": "10"}),
    ("rwd", 3, {"tricks": "17", "rows": "3", "aside": "1"}),
    ("rwd", 4, {"tricks": "13", "rows": "4", "aside": "0"}),
    ("rwd", 5, {"tricks": "10", "rows": "5", "aside": "2"}),
    ("pair_quad", 4, {"deck": "52", "dealt": "13", "aside": "0", "tricks": "13"}),
    ("pair_quad", 3, {"dealt": "17", "aside": "1"}),
    ("pair_quad", 5, {"dealt": "10", "aside": "2"}),
    ("pair_quad", 6, {"dealt": "8", "aside": "4"}),
]


@pytest.mark.parametrize("game_id,n,expected", CHECKLIST)
def test_checklist_numbers(client, game_id, n, expected):
    shown = figures(page(client, f"/games/{game_id}", players=n))
    for key, value in expected.items():
        assert shown[key] == value, (key, shown)


@pytest.mark.parametrize("game_id,n", ALL_COUNTS)
def test_checklist_matches_the_rules_engine(client, game_id, n):
    game = GAMES[game_id]
    body = page(client, f"/games/{game_id}", players=n)
    shown = figures(body)
    for figure in game.setup_figures(n):
        assert shown[figure.key] == str(figure.value)
    text = text_of(body)
    for step in game.setup_steps(n):
        assert str(step) in text
    assert body.count("data-tick=") == len(game.setup_steps(n))


# ------------------------------------------------------------------ calculators: worked examples


def test_calculators_start_with_a_prompt(client):
    for game_id in GAMES:
        body = page(client, f"/games/{game_id}")
        for name, (gid, _fn) in CALCULATORS.items():
            if gid == game_id:
                assert f'id="calc-{name}"' in body
                assert 'class="hint calc-prompt"' in body[body.index(f'id="{name}-result"'):]
                # A plain GET form to this page, answered live by the htmx partial.
                form = body[body.index(f'id="calc-{name}"') - 200:body.index(f'id="calc-{name}"') + 700]
                assert 'method="get"' in form
                assert f'action="/games/{game_id}#calc-{name}"' in form
                assert f'hx-get="/games/{game_id}/calc/{name}"' in form
                assert f'hx-target="#{name}-result"' in form


@pytest.mark.parametrize("params,expected", [
    ({"pq-7": 2, "pq-A": 2, "pq-K": 2, "pq-J": 1, "pq-other": 9}, "Score: +8"),
    ({"pq-7": 4}, "Score: +20"),
    ({"pq-7": 3}, "Score: −15"),
    ({"pq-Q": 1, "pq-other": ""}, "Score: −2"),
])
def test_pair_quad_score(client, params, expected):
    for text in both(client, "pair_quad", "pq", **params):
        assert expected in text
    full, _ = both(client, "pair_quad", "pq", **{"pq-7": 2, "pq-A": 2, "pq-K": 2, "pq-J": 1,
                                                 "pq-other": 9})
    assert "7 ×2 → 0 (pair)" in full and "J ×1 → −1" in full and "Other ×9 → +9" in full


@pytest.mark.parametrize("params,message", [
    ({"pq-7": 5}, "must be from 0 to 4; it is 5"),
    ({"pq-7": "zzz"}, "“zzz” is not a whole number"),
    ({"pq-other": 33}, "must be from 0 to 32"),
])
def test_pair_quad_refuses(client, params, message):
    assert message in result_box(page(client, "/games/pair_quad", **params), "pq")
    assert message in partial(client, "pair_quad", "pq", **params)


def test_pair_quad_values_stay_in_the_form(client):
    body = page(client, "/games/pair_quad", **{"pq-7": 3})
    assert 'name="pq-7" type="number"' in body
    assert re.search(r'name="pq-7"[^>]*value="3"', body)


@pytest.mark.parametrize("first,second,bid", [("X", "H", 6), ("L", "L", 10), ("D", "S", 1)])
def test_twin_shoot_bid(client, first, second, bid):
    for text in both(client, "twin_shoot", "tb", **{"tb-1": first, "tb-2": second}):
        expected = "Bid: 1 trick" if bid == 1 else f"Bid: {bid} tricks"  # number agreement
        assert expected in text and "Bid: 1 tricks" not in text


def test_twin_shoot_bid_needs_two_suits(client):
    assert "other bid card" in partial(client, "twin_shoot", "tb", **{"tb-1": "X"})
    assert "is not a suit" in partial(client, "twin_shoot", "tb", 
                                      **{"tb-1": "X", "tb-2": "Q"})


def test_twin_shoot_team_score(client):
    base = {"ts-bid1": 4, "ts-bid2": 3, "ts-tricks1": 4, "ts-tricks2": 3}
    for text in both(client, "twin_shoot", "ts", **base):
        assert "The team scores 37." in text
        assert "Twin Shoot bonus: both partners hit their bids" in text
    for text in both(client, "twin_shoot", "ts", **base, **{"ts-open": "1"}):
        assert "The team scores 67." in text
        assert "Overhead Twin Shoot" in text
    failed = dict(base, **{"ts-tricks2": 2, "ts-open": "1"})
    for text in both(client, "twin_shoot", "ts", **failed):
        assert "The team scores 16; every other team scores +30." in text  # in the answer itself
        assert "every other team scores +30" in text
    one_hit = dict(base, **{"ts-tricks2": 2})
    assert "The team scores 16." in partial(client, "twin_shoot", "ts", **one_hit)


def test_twin_shoot_team_score_refuses(client):
    too_many = {"ts-bid1": 4, "ts-bid2": 3, "ts-tricks1": 8, "ts-tricks2": 3}
    assert "a deal has only 10" in partial(client, "twin_shoot", "ts", **too_many)
    assert "a deal has only 10" in result_box(page(client, "/games/twin_shoot", **too_many), "ts")
    missing = {"ts-bid1": 4}
    assert "enter a number" in partial(client, "twin_shoot", "ts", **missing)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_lucky_cube_payment(client, n):
    params = {"players": n, "lp-holder": 1, "lp-number": 4, "lp-last": 0}
    for text in both(client, "lucky_cube", "lp", **params):
        assert "Player 1 pays 4 chips to Player 2." in text
    capped = dict(params, **{"lp-chips": 3})
    assert "pays 3 chips" in partial(client, "lucky_cube", "lp", **capped)
    assert "Nobody took the die" in partial(client, "lucky_cube", "lp", players=n,
                                            **{"lp-holder": "none", "lp-last": 0})


def test_lucky_cube_payment_refuses(client):
    same = {"lp-holder": 1, "lp-number": 4, "lp-last": 1}
    assert "can never have won the last trick" in partial(client, "lucky_cube", "lp", **same)
    seat = {"players": 3, "lp-holder": 4, "lp-number": 4, "lp-last": 1}
    # A seat past the table is refused as a choice (never a 0-based range).
    assert "Die holder: choose one of the players, or nobody." in partial(client, "lucky_cube", "lp", **seat)


def test_lucky_cube_tracker(client):
    # Player 1 leads and loses trick 1 (die 1 to Player 1), Player 2 leads trick 2 and loses it
    # to Player 3 (die 2 to Player 2), Player 3 wins the rest.
    params = {"players": 3, "lt-lead": 0, "lt-1": 1, "lt-2": 2, "lt-3": 2}
    for text in both(client, "lucky_cube", "lt", **params):
        assert "Player 2 has the die, showing 2." in text
        assert "Player 3 leads trick 4." in text
    done = dict(params, **{"lt-4": 2, "lt-5": 2, "lt-6": 2})
    for text in both(client, "lucky_cube", "lt", **done):
        assert "Player 3 won the last trick and pays 2 chips to Player 2." in text
    draw = {"players": 4, "lt-lead": 3, **{f"lt-{k}": 3 for k in range(1, 7)}}
    assert "Nobody took the die" in partial(client, "lucky_cube", "lt", **draw)
    gap = {"players": 3, "lt-1": 1, "lt-3": 2}
    assert "Tap the winner of trick 2 first." in partial(client, "lucky_cube", "lt", **gap)


def test_rwd_scores(client):
    params = {"players": 3, "rd-chips-0": 4, "rd-tricks-0": 6, "rd-chips-1": 4, "rd-tricks-1": 3,
              "rd-chips-2": 9, "rd-tricks-2": 8}
    for text in both(client, "rwd", "rd", **params):
        assert "Player 1: +2" in text
        assert "Player 2: −1" in text
        assert "Player 3: −1" in text
        assert "Deal winner: Player 1" in text


def test_rwd_chip_tie_break(client):
    # 4 players, 13 tricks: players 1 and 2 both score +1; player 2 took more chips and wins.
    params = {"players": 4, "rd-chips-0": 2, "rd-tricks-0": 3, "rd-chips-1": 4, "rd-tricks-1": 5,
              "rd-chips-2": 4, "rd-tricks-2": 3, "rd-chips-3": 3, "rd-tricks-3": 2}
    text = partial(client, "rwd", "rd", **params)
    assert "Deal winner: Player 2" in text
    assert "took more chips" in text


def test_rwd_refuses_wrong_sums(client):
    params = {"players": 3, "rd-chips-0": 4, "rd-tricks-0": 6, "rd-chips-1": 4, "rd-tricks-1": 3,
              "rd-chips-2": 8, "rd-tricks-2": 8}
    assert "must add up to 17" in partial(client, "rwd", "rd", **params)


def test_miraiscope_points(client):
    params = {"mi-queens-0": 3, "mi-points-0": 12, "mi-last_trick": 0}
    for text in both(client, "miraiscope", "mi", **params):
        assert "Player 1 24, Player 2 11" in text  # 9 + 12 + 3; the rest: 3 + 8
        assert "Together 35 points" in text
    bad = dict(params, **{"mi-queens-1": 2, "mi-points-1": 8})
    assert "must add up to 4" in partial(client, "miraiscope", "mi", **bad)


def test_rwd_first_half_helper(client):
    params = {"players": 3, "rf-cards": "QH 10H 3D", "rf-last": 1}
    for text in both(client, "rwd", "rf", **params):
        assert "Card 1, QH, wins the trick." in text
    trump = {"players": 3, "rf-cards": "QH 2S AH", "rf-last": 3}
    assert "Card 2, 2S, wins" in partial(client, "rwd", "rf", **trump)
    body = page(client, "/games/rwd")
    assert "nothing is sent to other phones or stored" in text_of(body)
    assert "Enter 3 cards" in partial(client, "rwd", "rf", players=3, **{"rf-cards": "QH"})
    assert "twice" in partial(client, "rwd", "rf", players=3,
                              **{"rf-cards": "QH QH 2C", "rf-last": 1})


def test_miraiscope_trick_helper(client):
    params = {"mt-cards": "QS 10S AS 5H"}
    for text in both(client, "miraiscope", "mt", **params):
        assert "The leader wins with AS and captures 5 points." in text
    assert "is not in this game's deck" in partial(client, "miraiscope", "mt", **{"mt-cards": "2S 10S 5H AS"})


def test_twin_shoot_trick_helper(client):
    params = {"players": 4, "tt-leader": 0, "tt-cards": "QL 9L QC 8X"}
    for text in both(client, "twin_shoot", "tt", **params):
        assert "Player 1 wins the trick with QL." in text
        assert "follows by suit" in text
        assert "clockwise" in text
    by_rank = {"players": 4, "tt-leader": 1, "tt-cards": "QC QL 9X 8X"}
    text = partial(client, "twin_shoot", "tt", **by_rank)
    assert "counter-clockwise" in text and "follows by rank" in text
    assert "Player 1 wins the trick with QL." in text  # leader seat 1 → partner seat 0 second
    assert "4 players" in partial(client, "twin_shoot", "tt", players=4,
                                  **{"tt-cards": "QL 9L"})


def test_twin_shoot_leader_helper(client):
    for text in both(client, "twin_shoot", "tl", players=4, **{"tl-deal": 1, "tl-first": 0}):
        assert "Deal 1: Player 1, the right-side player of Team 1" in text
        assert "clockwise" in text
    text = partial(client, "twin_shoot", "tl", players=4, **{"tl-deal": 3, "tl-first": 0})
    assert "Deal 3: Player 2, the left-side player of Team 1" in text
    assert "counter-clockwise" in text
    text = partial(client, "twin_shoot", "tl", players=6, **{"tl-deal": 2, "tl-first": 2})
    assert "Deal 2: Player 1, the right-side player of Team 1" in text


# ------------------------------------------------------------------ garbage never 500

GAME_OF = {name: gid for name, (gid, _fn) in CALCULATORS.items()}
FIELDS = {
    "pq": ["pq-7", "pq-A", "pq-K", "pq-Q", "pq-J", "pq-other"],
    "tb": ["tb-1", "tb-2"],
    "ts": ["ts-bid1", "ts-bid2", "ts-tricks1", "ts-tricks2", "ts-open"],
    "tt": ["tt-leader", "tt-cards"],
    "tl": ["tl-deal", "tl-first"],
    "lp": ["lp-holder", "lp-number", "lp-last", "lp-chips"],
    "lt": ["lt-lead", *(f"lt-{k}" for k in range(1, 8))],
    "rd": [f"rd-{kind}-{seat}" for kind in ("chips", "tricks") for seat in range(6)],
    "rf": ["rf-cards", "rf-last"],
    "mi": ["mi-queens-0", "mi-points-0", "mi-queens-1", "mi-points-1", "mi-last_trick"],
    "mt": ["mt-cards"],
}
assert set(FIELDS) <= set(CALCULATORS)  # hand-listed for the five games (more seats than a page shows)


def fields_of(client, name: str) -> list[str]:
    """A calculator's fields: those its game page's form has, and the hand-listed ones (so a
    game added later is fuzzed too, with no line here)."""
    page = client.get(f"/games/{GAME_OF[name]}").get_data(as_text=True)
    shown = set(re.findall(rf'name="({re.escape(name)}-[^"]+)"', page))
    assert shown, f"no field of calculator {name} on its game page"
    return sorted(shown | set(FIELDS.get(name, ())))

values = st.one_of(
    st.integers(-3, 40).map(str),
    st.sampled_from(["", " ", "none", "zzz", "999999999999", "-0", "1e3", "QS 10H 3D", "QL 9L QC 8X",
                     "X", "L", "2S 2S 2S", "10", "on", "１", "٣", "\u00a0", "<script>"]),
    st.text(max_size=30),
)


@pytest.mark.parametrize("name", sorted(CALCULATORS))
def test_garbage_never_500(app, name):
    client = app.test_client()
    game = GAME_OF[name]

    @settings(deadline=None, suppress_health_check=list(HealthCheck))
    @given(params=st.dictionaries(st.sampled_from(fields_of(client, name) + ["players"]), values, max_size=8),
           htmx=st.booleans())
    def check(params, htmx):
        query = urlencode(params)
        if htmx:
            response = client.get(f"/games/{game}/calc/{name}?{query}", headers=HX)
            assert response.status_code == 200, response.status_code
        else:
            response = client.get(f"/games/{game}?{query}")
            assert response.status_code == 200, response.status_code
            assert "<script>" not in response.get_data(as_text=True).split("</head>", 1)[1]

    check()
