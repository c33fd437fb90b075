"""The hall's draw form: *balanced*, *every game in turn*, *newcomers looked after* and *never
together* (issue 36), plain form fields in both languages; the hall draws with the season's
ratings and games played; the next round's form starts with the same choices."""

from __future__ import annotations

import re

from companion.meetup import seating
from companion.night import service as night
from companion.tables import service as store
from helpers import join_night as join_all
from helpers import text_of, visible_page

EIGHT = "Ann Bob Cy Di Eve Fay Gus Hal".split()


def rwd_deal(winner: int) -> dict:
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return {"chips": [3, 3, 3, 4], "tricks": tricks}


def play_until_over(conn, token: str, winner: int) -> None:
    table = store.load(conn, token)
    while not table.match().over:
        table = store.add_deal(conn, token, len(table.deals) + 1, rwd_deal(winner))


def draw_form(client, lang="en", path="/hall") -> str:
    page = client.get(path, headers={"Accept-Language": lang}).get_data(as_text=True)
    return re.search(r'<form[^>]*id="draw".*?</form>', page, re.S).group(0)


def ids(conn) -> dict[str, int]:
    return {p.name: p.id for p in night.roster(conn)}


def test_the_form_says_what_each_option_does_in_both_languages(client):
    form = draw_form(client)
    assert '<input type="radio" name="by" value="balanced" >' in form
    assert '<input type="checkbox" name="every_game" value="1" >' in form
    assert '<input type="checkbox" name="newcomers" value="1" >' in form
    assert '<textarea id="f-never" name="never"' in form
    text = text_of(form)
    for sentence in ("Tables of even strength", "a game they haven't played tonight",
                     "sits with at least one who has", "they never share a table"):
        assert sentence in text
    ja = text_of(draw_form(client, "ja"))
    for sentence in ("実力を均等に", "どのゲームも順番に", "初プレイの人をフォロー", "同じテーブルにしない組"):
        assert sentence in ja


def test_never_together_over_three_rounds_and_the_choices_kept_for_the_next_draw(app, client, conn):
    join_all(app, EIGHT)
    who = ids(conn)
    for number in range(3):
        answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "mix",
                                                   "every_game": "1", "never": "Ann + Bob\nCy + di"})
        assert answer.status_code == 303
        assert "every_game=1" in answer.headers["Location"] and "never=" in answer.headers["Location"]
        latest = night.night_rounds(conn)[-1]
        for rt in latest.tables:
            assert not {who["Ann"], who["Bob"]} <= set(rt.player_ids)
            assert not {who["Cy"], who["Di"]} <= set(rt.player_ids)
    # The next form starts with the same wishes (a plain link: nothing stored).
    form = draw_form(client, path=answer.headers["Location"])
    assert '<input type="checkbox" name="every_game" value="1" checked>' in form
    assert "Ann + Bob\nCy + di</textarea>" in form
    assert '<input type="radio" name="by" value="mix" checked>' in form


def test_a_pair_that_cannot_be_read_is_refused_next_to_the_field_and_kept(app, client, conn):
    join_all(app, EIGHT)
    answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "newcomers": "1",
                                               "never": "Ann + Zed\nBob Cy"})
    assert answer.status_code == 422
    page = answer.get_data(as_text=True)
    field = re.search(r'<div class="field has-error">\s*<label for="f-never">.*?</div>', page, re.S).group(0)
    assert "Zed is not on tonight's list." in text_of(field)
    assert "Write each pair as two names joined by +, one pair per line: Bob Cy" in text_of(field)
    assert "Ann + Zed\nBob Cy</textarea>" in page
    assert '<input type="checkbox" name="newcomers" value="1" checked>' in page
    assert night.night_rounds(conn) == []


def test_balanced_and_newcomers_draw_with_the_seasons_ratings_and_games(app, client, conn):
    join_all(app, EIGHT)
    client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "2"})
    first = night.night_rounds(conn)[0]
    for rt in first.tables:
        play_until_over(conn, rt.table.token, winner=0)
    people = night.roster(conn)
    strengths = night.strengths(conn, people)
    winners = {rt.player_ids[0] for rt in first.tables}
    assert all(strengths[w]["rwd"] > 25 > min(s["rwd"] for s in strengths.values()) for w in winners)
    played = night.games_played(conn, people)
    assert all(played[p.id] == {"rwd"} for p in people)

    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "2", "by": "balanced",
                                             "newcomers": "1"}).status_code == 303
    second = night.night_rounds(conn)[-1]
    expected = seating.draw_round([p.id for p in people], [first.seating()], chosen=["rwd"] * 2, seed=second.seed,
                                  strength=strengths, experience=played)
    assert second.seating() == expected.tables
    # The two first-round winners sit at different tables: even strength.
    assert all(len(winners & set(rt.player_ids)) == 1 for rt in second.tables)
