"""One player, one identity (issue 43): a name the organiser corrects on tonight's list is the
same season player before and after ("Fay" scored in round 1, was corrected to "Faye", scored in
round 2: the season showed two players until someone merged them on /players). A corrected name
that is already another season player's asks: the same person (merged) or two (give tonight's
name something to tell them apart)."""

from __future__ import annotations

import json

from companion.night import service as night
from companion.players import service as players
from companion.tables import service as tables
from helpers import text_of
from table_writes import done, finished_match, play_until_over


def season_lines(client) -> dict[str, int]:
    ranked = json.loads(client.get("/season.json?min=1").get_data(as_text=True))["ranked"]
    return {line["name"]: line["matches"] for line in ranked}


def drawn_and_played(client, conn, winner: str) -> str:
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    table = night.night_rounds(conn)[-1].tables[0].table
    play_until_over(conn, table.token, tables.load(conn, table.token).setup.players.index(winner))
    return table.token


def test_a_name_corrected_on_the_hall_stays_one_season_player(client, conn):
    fay = done(night.join(conn, "Fay"))
    for name in ["Gus", "Hal", "Ivy"]:
        done(night.join(conn, name))
    first = drawn_and_played(client, conn, "Fay")
    assert client.post(f"/hall/players/{fay.id}", data={"name": "Faye"}).status_code == 303
    drawn_and_played(client, conn, "Faye")
    lines = season_lines(client)
    assert lines.get("Faye") == 2 and "Fay" not in lines
    # The first table keeps the name as typed; its player is Faye.
    assert "Fay" in tables.load(conn, first).setup.players
    player = players.player_of_name(conn, "Faye")
    assert player is not None and players.player_of_name(conn, "Fay").id == player.id
    page = text_of(client.get(f"/players/{player.id}").get_data(as_text=True))
    assert "written Fay" in page


def test_a_corrected_name_that_is_another_season_player_asks_same_person_or_two(client, conn):
    finished_match(conn, ["Faye", "Jo", "Kim", "Lu"])  # an earlier night's Faye
    done(night.start_night(conn))
    fay = done(night.join(conn, "Fay"))
    for name in ["Gus", "Hal", "Ivy"]:
        done(night.join(conn, name))
    drawn_and_played(client, conn, "Fay")
    asked = client.post(f"/hall/players/{fay.id}", data={"name": "Faye"})
    assert asked.status_code == 422
    page = text_of(asked.get_data(as_text=True))
    assert "“Faye” is already a player in the season" in page and "Same person: merge them in the season" in page
    assert night.player(conn, fay.id).name == "Fay" and season_lines(client)["Faye"] == 1  # nothing changed
    # Two people: tonight's name gets something to tell them apart, and the season keeps them two.
    assert client.post(f"/hall/players/{fay.id}", data={"name": "Faye K."}).status_code == 303
    assert season_lines(client)["Faye"] == 1 and season_lines(client)["Faye K."] == 1
    # The same person: merged, one player with both matches.
    assert client.post(f"/hall/players/{fay.id}", data={"name": "Faye", "same_person": "1"}).status_code == 303
    lines = season_lines(client)
    assert lines["Faye"] == 2 and "Faye K." not in lines and "Fay" not in lines


def test_two_who_played_together_are_never_merged_by_a_rename(client, conn):
    finished_match(conn, ["Fay", "Faye", "Hal", "Ivy"])  # an earlier night: Fay and Faye at one table
    done(night.start_night(conn))
    fay = done(night.join(conn, "Fay"))
    refused = client.post(f"/hall/players/{fay.id}", data={"name": "Faye", "same_person": "1"})
    assert refused.status_code == 422
    assert "they are two people" in text_of(refused.get_data(as_text=True))
    assert season_lines(client)["Fay"] == 1 and season_lines(client)["Faye"] == 1
    assert night.player(conn, fay.id).name == "Fay"
