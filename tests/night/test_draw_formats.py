"""Issue 25: a round's drawn tables play the match format the organiser set per game (RWD's
"one deal", Pair & Quad's number of deals), not always the game's default; who starts stays
with the drawn seat order."""

from __future__ import annotations

import re

import pytest

from companion.night import service as night
from companion.tables import service as store
from helpers import text_of
from helpers import join_night as join_all
from table_writes import done


def draw(client, **fields):
    return client.post("/hall/rounds", data={"draw": "1", **fields})


def round_tables(conn, number=-1):
    return night.night_rounds(conn)[number].tables


def test_the_draw_form_offers_each_games_match_format_and_nothing_about_who_starts(client):
    page = client.get("/hall").get_data(as_text=True)
    form = re.search(r'<form[^>]*id="draw".*?</form>', page, re.S).group(0)
    # RWD's length as one tap each, its default ticked; Pair & Quad's number of deals.
    assert re.search(r'name="format-rwd-length" value="3" checked', form)
    assert 'name="format-rwd-length" value="1"' in form
    assert re.search(r'name="format-pair_quad-deals"[^>]*value="0"', form)
    assert "How long you play" in text_of(form) and "Number of deals" in text_of(form)
    assert "first_start_player" not in form and "first_dealer" not in form and "first_team" not in form


def test_drawn_tables_play_the_format_set_for_their_game(app, client, conn):
    join_all(app)
    assert draw(client, **{"tables-rwd": "3", "format-rwd-length": "1"}).status_code == 303
    tables = round_tables(conn)
    assert len(tables) == 3
    for rt in tables:
        assert rt.table.setup.options["length"] == 1
        assert rt.table.setup.options["first_start_player"] == 0  # the drawn seat 1 starts


def test_without_a_format_the_games_default_is_played(app, client, conn):
    join_all(app)
    assert draw(client, **{"tables-rwd": "3"}).status_code == 303
    assert {rt.table.setup.options["length"] for rt in round_tables(conn)} == {3}


def test_a_number_of_deals_is_kept_for_pair_and_quad_tables(app, client, conn):
    join_all(app)  # 12 players: three tables of 4
    assert draw(client, **{"tables-pair_quad": "3", "format-pair_quad-deals": "8"}).status_code == 303
    assert {rt.table.setup.options["deals"] for rt in round_tables(conn)} == {8}


def test_an_impossible_format_is_refused_next_to_its_field_with_the_form_kept(app, client, conn):
    join_all(app)
    response = draw(client, **{"tables-pair_quad": "3", "format-pair_quad-deals": "150", "minutes": "25"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    error = re.search(r'id="err-format-pair_quad-deals"[^>]*>([^<]*)<', page)
    assert error and "from 0 to 99" in error.group(1)
    assert re.search(r'name="format-pair_quad-deals"[^>]*value="150"', page)  # what was typed stays
    assert 'name="tables-pair_quad"' in page and re.search(r'name="tables-pair_quad"[^>]*\n?[^>]*value="3"', page)
    assert re.search(r'id="f-minutes"[^>]*\n?[^>]*value="25"', page)
    assert night.night_rounds(conn) == []


def test_the_next_draw_starts_from_the_format_of_the_last_round(app, client, conn):
    join_all(app)
    draw(client, **{"tables-rwd": "3", "format-rwd-length": "1"})
    form = client.get("/hall").get_data(as_text=True)
    assert re.search(r'name="format-rwd-length" value="1" checked', form)
    assert not re.search(r'name="format-rwd-length" value="3" checked', form)


def test_the_store_checks_formats_itself(conn, app):
    join_all(app)
    with pytest.raises(store.Refused) as refused:
        done(night.draw_round(conn, chosen=["rwd"] * 3, formats={"rwd": {"length": 2}}))
    assert [e.field for e in refused.value.errors] == ["format-rwd-length"]
    done(night.draw_round(conn, chosen=["rwd"] * 3, formats={"rwd": {"length": 1}}))
    assert {rt.table.setup.options["length"] for rt in round_tables(conn)} == {1}


def test_a_games_format_comes_from_the_last_round_that_played_it(app, client, conn):
    join_all(app)
    draw(client, **{"tables-rwd": "3", "format-rwd-length": "1"})
    draw(client, **{"tables-pair_quad": "3", "format-pair_quad-deals": "1"})  # no RWD this round
    form = client.get("/hall").get_data(as_text=True)
    assert re.search(r'name="format-rwd-length" value="1" checked', form)
    assert re.search(r'name="format-pair_quad-deals"[^>]*value="1"', form)
