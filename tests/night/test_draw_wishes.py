"""The hall's draw form: *balanced*, *every game in turn*, *newcomers looked after* and *never
together* (issue 36), plain form fields in both languages; the hall draws with the season's
ratings and games played; the next round's form starts with the same choices."""

from __future__ import annotations

import json
import re

from companion.meetup import seating
from companion.night import service as night
from helpers import join_night as join_all
from helpers import text_of, visible_page
import table_writes
from table_writes import done, play_until_over

EIGHT = "Ann Bob Cy Di Eve Fay Gus Hal".split()


def draw_form(client, lang="en", path="/hall") -> str:
    page = client.get(path, headers={"Accept-Language": lang}).get_data(as_text=True)
    return re.search(r'<form[^>]*id="draw".*?</form>', page, re.S).group(0)


def ids(conn) -> dict[str, int]:
    return {p.name: p.id for p in night.roster(conn)}


def pairs(conn, *named: tuple[str, str]) -> list[str]:
    """Never-together pairs as the draw form sends them: each ticked pair "<id>-<id>"."""
    who = {p.name.casefold(): p.id for p in night.roster(conn)}
    return [f"{who[a.casefold()]}-{who[b.casefold()]}" for a, b in named]


def kept(form: str) -> list[str]:
    """The pairs the draw form shows ticked, as it names them ("Ann + Bob")."""
    return [text_of(label) for label in re.findall(
        r'<label class="draw-way"><input type="checkbox" name="never" value="\d+-\d+" checked>(.*?)</label>', form, re.S)]


def test_the_form_says_what_each_option_does_in_both_languages(client):
    form = draw_form(client)
    assert '<input type="radio" name="by" value="balanced" >' in form
    assert '<input type="checkbox" name="every_game" value="1" >' in form
    assert '<input type="checkbox" name="newcomers" value="1" >' in form
    assert '<select id="f-never-a" name="never_a">' in form and '<select id="f-never-b" name="never_b">' in form
    text = text_of(form)
    for sentence in ("Tables of even strength", "a game they haven't played tonight",
                     "sits with at least one who has", "who never share a table"):
        assert sentence in text
    ja = text_of(draw_form(client, "ja"))
    for sentence in ("実力を均等に", "どのゲームも順番に", "初プレイの人をフォロー", "同じテーブルにしない組"):
        assert sentence in ja


def test_never_together_over_three_rounds_and_the_choices_kept_for_the_next_draw(app, client, conn):
    join_all(app, EIGHT)
    who = ids(conn)
    for number in range(3):
        answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "mix",
                                                   "every_game": "1", "never": pairs(conn, ("Ann", "Bob"), ("Cy", "di"))})
        assert answer.status_code == 303
        assert answer.headers["Location"] == "/hall#seating"  # the round keeps its wishes, not the link
        latest = night.night_rounds(conn)[-1]
        for rt in latest.tables:
            assert not {who["Ann"], who["Bob"]} <= set(rt.player_ids)
            assert not {who["Cy"], who["Di"]} <= set(rt.player_ids)
    # The next form starts with the same wishes, stored with the round (tonight's spelling of the names).
    form = draw_form(client)
    assert '<input type="checkbox" name="every_game" value="1" checked>' in form
    assert '<input type="checkbox" name="newcomers" value="1" >' in form
    assert kept(form) == ["Ann + Bob", "Cy + Di"]
    assert '<input type="radio" name="by" value="mix" checked>' in form


def test_a_pair_is_picked_from_tonights_players_and_kept_on_the_form(app, client, conn):
    """Issue 44: picked, never typed: a name holding ";" or "+" ("C+;x") is kept apart like any
    other, and "Keep these two apart" adds the pair to the form without drawing."""
    join_all(app, ["C+;x", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"])
    who = ids(conn)
    added = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "newcomers": "1",
                                              "never_a": str(who["C+;x"]), "never_b": str(who["Bob"]), "add_never": "1"})
    assert added.status_code == 200 and night.night_rounds(conn) == []
    form = re.search(r'<form[^>]*id="draw".*?</form>', added.get_data(as_text=True), re.S).group(0)
    assert kept(form) == ["C+;x + Bob"] and '<input type="checkbox" name="newcomers" value="1" checked>' in form
    drawn = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "never": f"{who['C+;x']}-{who['Bob']}",
                                              "never_a": str(who["Cy"]), "never_b": str(who["Di"])})
    assert drawn.status_code == 303
    assert night.night_rounds(conn)[-1].draw.never == ((who["C+;x"], who["Bob"]), (who["Cy"], who["Di"]))
    # The same player twice, or someone not on the list, is said next to the pair's choices.
    for a, b, why in ((who["Cy"], who["Cy"], "Choose two different players to keep apart."),
                      (who["Cy"], 999, "Choose two players from tonight's list to keep apart.")):
        answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "never_a": str(a),
                                                   "never_b": str(b)})
        assert answer.status_code == 422
        field = re.search(r'<fieldset class="field draw-ways draw-never has-error".*?</fieldset>',
                          answer.get_data(as_text=True), re.S).group(0)
        assert why in text_of(field)
    assert len(night.night_rounds(conn)) == 1


def test_more_pairs_than_a_room_can_have_are_refused_at_once(app, client, conn):
    """Issue 42's flood, now as pairs picked: more than MAX_NEVER_PAIRS is refused whole."""
    from companion.night import views as hall_views

    join_all(app, EIGHT)
    many = pairs(conn, ("Ann", "Bob")) * (hall_views.MAX_NEVER_PAIRS + 1)
    answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "never": many})
    assert answer.status_code == 422
    assert f"At most {hall_views.MAX_NEVER_PAIRS} pairs can be kept apart." in text_of(answer.get_data(as_text=True))
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


def test_a_round_keeps_how_it_was_drawn_in_the_store(app, conn):
    join_all(app, EIGHT)
    who = ids(conn)
    done(night.draw_round(conn, chosen=["lucky_cube"] * 2, seed="kept"))
    done(night.draw_round(conn, chosen=["lucky_cube"] * 2, seed="kept2", balanced=True, every_game=True, newcomers=True,
                     never=[(who["Eve"], who["Ann"]), (who["Cy"], who["Di"])]))
    first, second = night.night_rounds(conn)
    assert first.draw == night.HowDrawn("mix")
    assert second.draw == night.HowDrawn("balanced", every_game=True, newcomers=True,
                                         never=((who["Eve"], who["Ann"]), (who["Cy"], who["Di"])))
    # As the store writes JSON elsewhere: compact, keys sorted.
    stored = conn.execute("SELECT draw FROM night_rounds ORDER BY number").fetchall()
    assert stored[1][0] == ('{"every_game":true,"never":[[%d,%d],[%d,%d]],"newcomers":true,"way":"balanced"}'
                            % (who["Eve"], who["Ann"], who["Cy"], who["Di"]))
    done(night.draw_round(conn, chosen=["lucky_cube"] * 2, seed="kept3", by_standings=True))
    assert night.night_rounds(conn)[-1].draw == night.HowDrawn("standings")


def test_the_form_starts_from_the_latest_rounds_draw_after_a_plain_reload(app, client, conn):
    join_all(app, EIGHT)
    who = ids(conn)
    # No round yet: mix, no wishes.
    form = draw_form(client)
    assert '<input type="radio" name="by" value="mix" checked>' in form
    assert kept(form) == []
    assert client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "standings",
                                             "newcomers": "1", "never": pairs(conn, ("Ann", "Bob"), ("Cy", "Di"),
                                                                              ("Eve", "Fay"))}
                       ).status_code == 303
    # A player renamed since, one removed from tonight's list: the pairs by tonight's names, the
    # removed player's pair left out.
    done(night.rename(conn, who["Ann"], "Anna"))
    done(night.set_left(conn, who["Fay"]))
    form = draw_form(client)
    assert '<input type="radio" name="by" value="standings" checked>' in form
    assert '<input type="radio" name="by" value="mix" >' in form
    assert '<input type="checkbox" name="newcomers" value="1" checked>' in form
    assert '<input type="checkbox" name="every_game" value="1" >' in form
    assert kept(form) == ["Anna + Bob", "Cy + Di"]
    # The same form drawn again keeps it going: round 3 starts from round 2's draw.
    assert client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "balanced",
                                             "every_game": "1"}).status_code == 303
    form = draw_form(client)
    assert '<input type="radio" name="by" value="balanced" checked>' in form
    assert '<input type="checkbox" name="newcomers" value="1" >' in form
    assert '<input type="checkbox" name="every_game" value="1" checked>' in form
    assert kept(form) == []


def test_a_refused_draw_keeps_what_was_sent_over_the_stored_draw(app, client, conn):
    join_all(app, EIGHT)
    assert client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "balanced",
                                             "every_game": "1", "newcomers": "1", "never": pairs(conn, ("Ann", "Bob"))}
                       ).status_code == 303
    answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "mix",
                                               "never": pairs(conn, ("Cy", "Di")), "never_a": str(ids(conn)["Eve"])})
    assert answer.status_code == 422
    form = re.search(r'<form[^>]*id="draw".*?</form>', answer.get_data(as_text=True), re.S).group(0)
    assert '<input type="radio" name="by" value="mix" checked>' in form
    assert '<input type="checkbox" name="every_game" value="1" >' in form
    assert '<input type="checkbox" name="newcomers" value="1" >' in form
    assert kept(form) == ["Cy + Di"]
    assert len(night.night_rounds(conn)) == 1


def drawn_line(client, lang="en") -> str:
    page = client.get("/hall", headers={"Accept-Language": lang}).get_data(as_text=True)
    found = re.search(r'<p class="hint organiser hall-drawn">(.*?)</p>', page, re.S)
    return text_of(found.group(1)) if found else ""


def test_the_seating_says_how_the_round_was_drawn_on_the_laptop_only(app, client, conn):
    phones = join_all(app, EIGHT)
    assert drawn_line(client) == ""  # no round yet
    client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2"})
    assert drawn_line(client) == "Drawn: Mix"
    client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "balanced", "every_game": "1",
                                      "newcomers": "1", "never": pairs(conn, ("Ann", "Bob"))})
    assert drawn_line(client) == "Drawn: Balanced · Every game in turn · Newcomers looked after · 1 pair kept apart"
    assert drawn_line(client, "ja") == ("席の決め方：実力を均等に · どのゲームも順番に · 初プレイの人をフォロー"
                                        " · 同じテーブルにしない組 1組")
    client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "standings",
                                      "never": pairs(conn, ("Ann", "Bob"), ("Cy", "Di"))})
    assert drawn_line(client) == "Drawn: By standings · 2 pairs kept apart"
    # Neither the room's screen nor a phone says it.
    for page in (client.get("/hall/screen"), client.get("/hall/screen/live"), phones["Ann"].get("/night/me")):
        assert page.status_code == 200
        assert "hall-drawn" not in page.get_data(as_text=True) and "Drawn:" not in page.get_data(as_text=True)


def test_the_nights_json_gives_each_rounds_draw(app, client, conn):
    join_all(app, EIGHT)
    who = ids(conn)
    client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2"})
    client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "by": "balanced", "newcomers": "1",
                                      "never": pairs(conn, ("Ann", "Bob"))})
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    assert [r["draw"] for r in doc["rounds"]] == [
        {"way": "mix", "every_game": False, "newcomers": False, "never": []},
        {"way": "balanced", "every_game": False, "newcomers": True,
         "never": [[{"player_id": who["Ann"], "name": "Ann"}, {"player_id": who["Bob"], "name": "Bob"}]]}]


def test_games_played_counts_a_match_whose_result_was_not_stored_yet(app, conn):
    """A table finished a moment ago has no stored result (nor its players their ids) until the
    season is next read: *newcomers looked after* must read it first, not see a newcomer."""
    token = table_writes.create(conn, "rwd", ["Ann", "Bob", "Cy", "Di"], {"first_start_player": 0}, numbered=True)
    play_until_over(conn, token, winner=0)
    done(night.start_night(conn))
    for name in ("Ann", "Eve"):
        done(night.join(conn, name))
    people = night.roster(conn)
    assert {p.name: games for p in people for pid, games in night.games_played(conn, people).items()
            if pid == p.id} == {"Ann": {"rwd"}, "Eve": set()}


def test_pairs_no_seating_can_part_are_named_on_the_hall_with_their_table(app, client, conn):
    """Issue 42: a draw whose never-together pairs can't all be parted says which pairs it seated
    together after its bounded search, and where; a swap that parts them takes the line away."""
    join_all(app, EIGHT[:4])
    answer = client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "1", "by": "mix",
                                               "never": pairs(conn, ("Ann", "Bob"), ("Cy", "Di"))})
    assert answer.status_code == 303  # drawn all the same: one table of four seats everyone together
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert ("Not kept apart, as no seating of these tables parts every pair: Ann + Bob (Table 1), "
            "Cy + Di (Table 1). Swap a player to part them.") in hall
    ja = text_of(client.get("/hall", headers={"Accept-Language": "ja"}).get_data(as_text=True))
    assert "Ann + Bob（テーブル1）、Cy + Di（テーブル1）" in ja


def test_a_draw_that_parts_every_pair_names_none(app, client, conn):
    join_all(app, EIGHT)
    answer = client.post("/hall/rounds", data={"draw": "1", "tables-lucky_cube": "2", "never": pairs(conn, ("Ann", "Bob"))})
    assert answer.status_code == 303
    assert "Not kept apart" not in client.get("/hall").get_data(as_text=True)


def test_many_pairs_together_are_named_five_and_counted(app, client, conn):
    join_all(app, EIGHT[:4])
    every = pairs(conn, ("Ann", "Bob"), ("Ann", "Cy"), ("Ann", "Di"), ("Bob", "Cy"), ("Bob", "Di"), ("Cy", "Di"))
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "1", "never": every}).status_code == 303
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Cy + Di (Table 1)" not in hall and "and 1 more pair." in hall
