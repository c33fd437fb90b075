"""The reference card on each game's page (issue "Each game's page").

Every card: headings, the source credit, the key numbers per player count, and every
table ruling of the game marked as a ruling (never as the designer's rule).
"""

from __future__ import annotations

import re

import pytest
from markupsafe import escape

from companion.games import GAMES

GAME_IDS = ("rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot")

# Key numbers that must appear, big, on each card (from the rules digests).
KEY_NUMBERS = {
    "rwd": ["17", "13", "10", "52"],  # tricks in each half for 3/4/5 players
    "miraiscope": ["40", "10"],
    "lucky_cube": ["24", "28", "32", "15", "6"],
    "pair_quad": ["52", "13", "17", "10", "8"],
    "twin_shoot": ["48", "72", "12", "10", "100"],
}


def reference_article(html: str) -> str:
    match = re.search(r'<article class="reference[^"]*" id="reference">(.*?)</article>', html, re.S)
    assert match, "the page has no reference article"
    return match.group(1)


def card(client, game_id: str, lang: str | None = None) -> str:
    if lang:
        client.set_cookie("lang", lang)
    response = client.get(f"/games/{game_id}")
    assert response.status_code == 200
    return reference_article(response.get_data(as_text=True))


def big_cells(article: str) -> list[str]:
    return re.findall(r'<td class="num big"[^>]*>([^<]+)</td>', article)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_card_has_headings_credit_and_key_numbers(client, game_id):
    game = GAMES[game_id]
    article = card(client, game_id)
    assert re.search(r"<h2[^>]*>[^<]*reference card</h2>", article)
    headings = re.findall(r"<h3>([^<]+)</h3>", article)
    for heading in ("Key numbers", "Setup", "Scoring", "Table rulings"):
        assert any(heading in h for h in headings), (heading, headings)
    assert any("End of the match" in h or "match" in h for h in headings)
    assert str(escape(str(game.credit))) in article
    assert "own words" in article
    cells = big_cells(article)
    for number in KEY_NUMBERS[game_id]:
        assert number in cells, (number, cells)
    # One column per allowed player count in the key-numbers table.
    counts = sorted(set(game.players) | set(game.variant_players))
    header = re.search(r'<table class="key-numbers">.*?<thead>(.*?)</thead>', article, re.S).group(1)
    assert [int(c) for c in re.findall(r'<th scope="col" class="num">(\d+)', header)] == counts


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_ruling_is_marked_as_a_table_ruling(client, game_id):
    game = GAMES[game_id]
    article = card(client, game_id)
    rulings = article[article.index("Table rulings"):]
    notes = re.findall(r'<aside class="ruling" data-ruling="([^"]+)">\s*<strong class="ruling-tag">'
                       r'Table ruling</strong>\s*<span class="ruling-title">([^<]*)</span>', rulings)
    assert [ruling_id for ruling_id, _ in notes] == [r.id for r in game.rulings]
    for (_, title), ruling in zip(notes, game.rulings):
        assert title == str(escape(str(ruling.title)))
    assert "not the designer's rules" in rulings.replace("&#39;", "'")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_card_obeys_the_csp(client, game_id):
    article = card(client, game_id)
    assert "<script" not in article
    assert "style=" not in article
    assert not re.search(r"\son\w+=", article)


def test_rwd_trumps_and_lucky_cube_suits_use_symbols(client):
    assert "♠" in card(client, "rwd")
    lucky = card(client, "lucky_cube")
    for symbol in "♠♥♦♣":
        assert symbol in lucky


def test_lucky_cube_deck_sizes_by_player_count(client):
    article = card(client, "lucky_cube")
    deck_row = re.search(r"<tr><th scope=\"row\">Cards in the deck</th>(.*?)</tr>", article).group(1)
    assert re.findall(r">(\d+)</td>", deck_row) == ["24", "28", "32"]


def test_rwd_tricks_by_player_count(client):
    article = card(client, "rwd")
    row = re.search(r"<tr><th scope=\"row\">Tricks in each half</th>(.*?)</tr>", article).group(1)
    assert re.findall(r">(\d+)</td>", row) == ["17", "13", "10"]


def test_pair_quad_names_the_game_as_the_apps_and_credits_the_post(client):
    article = card(client, "pair_quad")
    assert "this app&#39;s name" in article
    assert "no title" in article
    assert "ていこく" in article and "19 October 2012" in article
    # The variant player counts are marked, and their ruling is on the card.
    assert 'class="variant-mark"' in article
    assert 'data-ruling="variant_counts"' in article
    # The scoring table: base values and what a pair and a quad do.
    for value in ("−5", "−4", "−3", "−2", "−1", "+1"):
        assert value in big_cells(article)
    assert "+20" in article


def test_twin_shoot_suits_designer_and_bid_values(client):
    article = card(client, "twin_shoot")
    assert "安藤慎吾" in article and "Shingo Ando" in article
    suits = re.search(r'<table class="suit-table">(.*?)</table>', article, re.S).group(1)
    marks = re.findall(r'<use href="/static/suits.svg#suit-([LXCHSD])"/>', suits)
    assert marks == list("LXCHSD")  # strongest first
    names = re.findall(r'<span class="suit-name">([^<]+)</span>', suits)
    assert names == ["Leaf", "Cross", "Club", "Heart", "Spade", "Diamond"]
    bid_row = re.search(r'<tr class="bid-values">(.*?)</tr>', suits, re.S).group(1)
    assert re.findall(r">(\d+)</td>", bid_row) == ["5", "4", "3", "2", "1", "0"]
    strength_row = re.search(r'<tr class="strength">(.*?)</tr>', suits, re.S).group(1)
    assert re.findall(r">(\d+)</td>", strength_row) == ["1", "2", "3", "4", "5", "6"]
    assert "37" in article and "67" in article  # the worked example


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_card_renders_in_japanese(client, game_id):
    article = card(client, game_id, lang="ja")
    assert GAMES[game_id].name_ja in article
    assert article.count('class="ruling-tag"') == len(GAMES[game_id].rulings)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_card_renders_on_its_own_without_n(app, game_id):
    """The partial needs only ``game`` (``n`` may be missing from the including page).
    It holds the game's own sections; game.html adds the shared frame (key numbers, rulings)."""
    with app.test_request_context(f"/games/{game_id}"):
        html = app.jinja_env.get_template(f"games/{game_id}/reference.html").render(game=GAMES[game_id])
    assert html.count('class="ref-section') >= 3
    assert "Table rulings" not in html  # shown once, by the frame
