"""The paper pads (issue 45, "Two sides agree"): per round, one printed page per table with the
room's label for it, its game, its players in seat order and its code, and a grid with a line per
deal whose cells are the deal form's own fields, seat by seat, then the whole deal's, then the
players' initials. When phones die the players write on it; the organiser types it in. Only the
laptop opens it; a night without that round says so, never a 500."""

from __future__ import annotations

import re

import pytest

from companion.games import GAMES
from companion.night import service as night
from companion.night.exports import round_label
from companion.tables import service as tables
from companion.web import render_text
from helpers import text_of
from table_writes import done

JOIN = "http://192.168.1.20:8000/"
PHONE_ON_WIFI = {"REMOTE_ADDR": "192.168.1.23"}
NAMES = ["Annabelle", "Bartholomew", "Chiyo", "Daisuke", "Emi", "Fumiko", "Goro", "Hana", "Ichiro", "Jun", "Kei"]
SEATED = re.compile(r'<li><span class="pad-seat-no">[^<]*</span> <strong>([^<]*)</strong>')


def pages_of(markup: str) -> list[str]:
    return re.findall(r'<article class="pad-page">(.*?)</article>', markup, re.S)


def drawn(conn, chosen, names=NAMES):
    for name in names:
        done(night.join(conn, name))
    return done(night.draw_round(conn, chosen=chosen, seed="pad"))


def test_one_page_per_table_with_its_label_game_seats_in_order_and_code(app, client, conn):
    app.config["JOIN_URL"] = JOIN
    assert "/hall/pad" not in client.get("/hall").get_data(as_text=True)  # no round: nothing to print
    round_ = drawn(conn, [("rwd", 5), ("twin_shoot", 6)])
    hall = client.get("/hall").get_data(as_text=True)
    assert re.search(r'href="/hall/pad">Print the paper pads</a>', hall)  # beside the table cards
    response = client.get("/hall/pad")
    assert response.status_code == 200
    markup = response.get_data(as_text=True)
    pages = pages_of(markup)
    assert len(pages) == len(round_.tables) == 2
    for page, rt in zip(pages, round_.tables):
        table = tables.load(conn, rt.table.token)
        assert SEATED.findall(page) == list(table.setup.players)  # seat order, as the table holds them
        assert f'<h2 class="pad-label">{round_label(rt)} ' in page
        assert f'<span class="pad-game">{table.game.name_en}</span>' in page.replace("&amp;", "&")
        assert "Round 1" in text_of(page)
        link = f"{JOIN}t/{table.token}"
        assert f'aria-label="QR: {link}"' in page and link in text_of(page)
        assert len(re.findall(r'<th scope="row" class="deal"', page)) >= 12  # a line per deal
        assert "Checked by (initials)" in text_of(page)
    # Twin Shoot's teams: each seat's team and side, and each team's players.
    shoot = text_of(pages[1])
    players = tables.load(conn, round_.tables[1].table.token).setup.players
    assert "Team 1 · right side" in shoot and f"Team 1 (seats 1–2): {players[0]} & {players[1]}" in shoot


def test_the_japanese_pad_says_it_in_japanese(app, client, conn):
    app.config["JOIN_URL"] = JOIN
    drawn(conn, [("rwd", 5), ("twin_shoot", 6)])
    page = text_of(client.get("/hall/pad?lang=ja").get_data(as_text=True))
    for said in ("第1ラウンド", "テーブル1", "ツインシュート", "1番席", "ディール", "チップ", "後半のトリック数", "ビッドカード"):
        assert said in page, said
    assert "Checked by" not in page and "Paper pads" not in page


def seat_fields(game, setup):
    """The deal form's field names for seat 0 and for the whole deal, as the game fills a form
    again from a blank one's facts (``form_values``, the inverse of ``parse_deal``)."""
    progress = game.start(setup)
    values = game.form_values(game.parse_deal({}, progress)[0])
    per_seat = [name for name in values if name.endswith("-0")]
    whole = [name for name in values if not re.search(r"-\d+$", name)]
    return per_seat, whole + [key for key in game.choice_keys if key not in whole]


COUNTS = [(game_id, n) for game_id, game in GAMES.items() for n in (*game.players, *game.variant_players)]


@pytest.mark.parametrize("game_id, n", COUNTS)
def test_the_grid_has_a_cell_for_every_field_of_the_deal_form(app, client, conn, game_id, n):
    """Generic over every game: a cell per seat per field of its deal form, a cell per whole-deal
    field, and the initials; each column headed as the form or the log names it."""
    app.config["JOIN_URL"] = JOIN
    game = GAMES[game_id]
    round_ = drawn(conn, [(game_id, n)], names=NAMES[:n])
    table = tables.load(conn, round_.tables[0].table.token)
    per_seat, whole = seat_fields(game, table.setup)
    form = client.get(f"/t/{table.token}").get_data(as_text=True)
    for name in per_seat:  # the pad's columns are the form's own fields
        assert f'name="{name}"' in form or f'name="{name[:-2]}-' in form, name
    (page,) = pages_of(client.get("/hall/pad").get_data(as_text=True))
    first_deal = page.split('<th scope="row" class="deal"')[1].split('<th scope="row" class="deal"')[0]
    written = re.findall(r'<td class="write[^"]*"', first_deal)
    assert len([c for c in written if "empty" not in c]) == n * len(per_seat) + len(whole) + 1
    assert len(re.findall(r'<td class="write checked"', first_deal)) == 1
    head = text_of(page.split("<thead>")[1].split("</thead>")[0])
    with app.test_request_context("/"):  # a column as the form heads it, or a kind in a count as the log names it
        labels = [(render_text(column.label), render_text(game.fact_labels.get(column.key, column.key)))
                  for column in game.columns(table.setup)]
        labels += [(render_text(game.fact_label(key)),) * 2 for key in whole]
    for label, short in labels:
        assert label in head or short in head, (label, head)
    for name in table.setup.players if per_seat else ():  # a seat's cells under its name
        assert name in head
    assert ("*" in head) == bool(set(whole) & set(game.choice_keys))  # a choice is filled in only when asked


def test_a_round_is_chosen_and_the_latest_is_the_default(app, client, conn):
    app.config["JOIN_URL"] = JOIN
    first = drawn(conn, [("rwd", 4), ("rwd", 4), ("miraiscope", 2)], names=NAMES[:10])
    second = done(night.draw_round(conn, chosen=[("lucky_cube", 5), ("lucky_cube", 5)], seed="two"))
    latest = client.get("/hall/pad").get_data(as_text=True)
    assert len(pages_of(latest)) == len(second.tables) and "Lucky Cube" in latest
    assert 'href="/hall/pad?round=1"' in latest  # the other rounds, a tap away
    assert pages_of(client.get("/hall/pad?round=").get_data(as_text=True)) == pages_of(latest)
    earlier = client.get("/hall/pad?round=1").get_data(as_text=True)
    assert len(pages_of(earlier)) == len(first.tables) == 3
    assert "Miraiscope" in earlier and "Round 1" in text_of(earlier)


@pytest.mark.parametrize("query", ["?round=9", "?round=0", "?round=abc", "?round=-1", "?round=99999999999"])
def test_no_such_round_is_a_clear_404(app, client, conn, query):
    drawn(conn, [("rwd", 5), ("twin_shoot", 6)])
    response = client.get(f"/hall/pad{query}")
    assert response.status_code == 404
    page = text_of(response.get_data(as_text=True))
    assert "has no tables tonight" in page and pages_of(response.get_data(as_text=True)) == []
    assert "The latest round's pads" in page


def test_before_any_round_the_pad_says_so(client):
    response = client.get("/hall/pad")
    assert response.status_code == 404
    assert "No round has been drawn tonight yet" in text_of(response.get_data(as_text=True))


def test_a_phone_is_refused(app, client, conn):
    drawn(conn, [("rwd", 5), ("twin_shoot", 6)])
    assert client.get("/hall/pad", environ_base=PHONE_ON_WIFI).status_code == 403
    assert client.get("/hall/pad?round=1", environ_base=PHONE_ON_WIFI).status_code == 403


def test_serving_to_the_laptop_alone_prints_no_code(app, client, conn):
    app.config["JOIN_URL"] = "http://127.0.0.1:8000/"
    drawn(conn, [("rwd", 5), ("twin_shoot", 6)])
    markup = client.get("/hall/pad").get_data(as_text=True)
    assert len(pages_of(markup)) == 2 and "<svg" not in markup
    assert "works only on the laptop itself" in markup
