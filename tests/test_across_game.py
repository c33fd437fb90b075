"""A seventh game whose partners sit ACROSS the table is one module, its templates and its
tests (issue 21): tests/toy_across/ declares seats 1 & 3 against 2 & 4 (Game.seating), its
tricks column (Game.columns) and its facts' labels, and the site's new-table form, deal form,
checks, standings, log and exports follow, with nothing in companion/ or templates/ written
for it. (Before the game contract, shared code made every team two neighbouring seats.)
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from companion.games import GAMES, MatchSetup, register, unregister
from companion.games import FieldError
from companion.tables.service import check_names
from helpers import csrf_of, text_of
from tests import toy_across

PLAYERS = ("Ann", "Bo", "Cy", "Di")
SETUP = MatchSetup("toy_across", PLAYERS)


@pytest.fixture
def across():
    register(toy_across.GAME, templates=toy_across.TEMPLATES)
    yield toy_across.GAME
    unregister(toy_across.GAME.id)
    assert toy_across.GAME.id not in GAMES


def get(client, url: str, **kwargs) -> str:
    response = client.get(url, **kwargs)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def messages(errors: list[FieldError]) -> str:
    return " | ".join(str(e.message) for e in errors)


# ---- the rules, as a library


def test_partners_sit_across_and_teams_are_named_from_the_seating():
    game = toy_across.GAME
    assert [team.seats for team in game.seating(4)] == [(0, 2), (1, 3)]
    assert game.teams and game.entrants(PLAYERS) == ("Ann & Cy", "Bo & Di")
    assert [game.team_of(4, seat) for seat in range(4)] == [0, 1, 0, 1]
    assert str(game.team_label(4, 0)) == "Team 1 (seats 1, 3)"
    assert str(game.seat_note(4, 2)) == "Team 1" and str(game.seat_note(4, 3)) == "Team 2"


def test_a_deal_scores_each_team_its_partners_tricks():
    match = toy_across.GAME.replay(SETUP, [{"tricks": [3, 1, 2, 2], "last_trick": 1},
                                           {"tricks": [4, 0, 4, 0], "last_trick": 0}])
    assert match.totals == (5 + 10, 5 + 0)  # Ann & Cy: 3 + 2, then 4 + 4 + 2; Bo & Di: 1 + 2 + 2
    assert [str(line.label) for line in match.deals[0].score.breakdown[1]] == \
        ["Bo: 1 tricks", "Di: 2 tricks", "Last trick"]
    assert match.next.detail.team == 0 and match.next.leader == 2  # third deal: team 1's second player


def test_the_shared_column_check_and_reader_serve_it_too():
    game, progress = toy_across.GAME, toy_across.GAME.start(SETUP)
    errors = game.check_deal(progress, {"tricks": [3, 3, 3, 3], "last_trick": 0})
    assert [e.field for e in errors] == ["tricks"]
    assert messages(errors) == "Tricks must add up to 8 with 4 players (one per trick); they add up to 12."
    facts, errors = game.parse_deal({"tricks-0": "3", "tricks-1": "1", "tricks-2": "2", "last_trick": "1"},
                                    progress)
    assert errors == [] and facts == {"tricks": [3, 1, 2, 2], "last_trick": 1}  # Di's 2 worked out
    errors = game.check_deal(progress, {"tricks": [9, 0, 0, "x"], "last_trick": 0})
    assert messages(errors) == ("Tricks of Ann must be from 0 to 8; it is 9. | "
                                "Tricks of Di: “x” is not a whole number.")


def test_equal_team_names_are_refused_at_the_teams_first_seat():
    """Teams "A & B" + "C" and "A" + "B & C" read the same: the message goes next to the
    second team's first seat, which is seat 2 here (seats 2 and 4), not seat 3."""
    names, errors = check_names(["A & B", "A", "C", "B & C"], toy_across.GAME)
    assert toy_across.GAME.entrants(names) == ("A & B & C", "A & B & C")
    assert [e.field for e in errors] == ["name-1"]


def test_facts_read_with_the_games_labels_and_team_names():
    items = toy_across.GAME.describe_facts({"tricks": [3, 1, 2, 2], "last_trick": 1}, PLAYERS,
                                           toy_across.GAME.entrants(PLAYERS))
    assert [(str(i.label), i.owner, str(i.value)) for i in items] == [
        ("Tricks", "Ann", "3"), ("Tricks", "Bo", "1"), ("Tricks", "Cy", "2"), ("Tricks", "Di", "2"),
        ("Last trick", "", "Bo & Di")]


# ---- through the site


def test_an_across_game_plays_through_the_site(across, csrf_app):
    laptop, phone1, phone2 = (csrf_app.test_client() for _ in range(3))

    # The new-table form: the game's own seating help, each seat's team, the teams by their seats.
    new = get(laptop, "/tables/new", query_string={"game": "toy_across"})
    text = text_of(new)
    assert "Partners sit across the table: seats 1 and 3 are one team" in text
    assert "right side" not in text and "left side" not in text
    labels = re.findall(r'<label for="f-name-\d">(.*?)</label>', new, re.S)
    assert [text_of(label).split(" ", 2)[2].strip() for label in labels] == \
        ["Team 1", "Team 2", "Team 1", "Team 2"]
    options = re.findall(r'<option value="(\d)"[^>]*>([^<]*)</option>', new.split('name="first_team"')[1])
    assert options == [("0", "Team 1 (seats 1, 3)"), ("1", "Team 2 (seats 2, 4)")]

    response = laptop.post("/tables", data={"csrf_token": csrf_of(new), "game": "toy_across", "players": "4",
                                            "first_team": "1", **{f"name-{s}": p for s, p in enumerate(PLAYERS)}})
    assert response.status_code == 303, response.get_data(as_text=True)
    token = response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]

    # The deal form is the game's, its numbers from the declaration: 0..8 taps, Di's worked out.
    page = get(phone2, f"/t/{token}")
    assert 'data-derive="8"' in page and page.count('name="tricks-3"') == 10  # auto + 0..8
    assert "Bo leads the first trick." in text_of(page)  # team 2 leads first (option)

    def save(phone, number: int, tricks: list[str], last: int):
        page = get(phone, f"/t/{token}")
        data = {"csrf_token": csrf_of(page), "number": str(number), "last_trick": str(last)}
        data.update({f"tricks-{seat}": value for seat, value in enumerate(tricks)})
        return phone.post(f"/t/{token}/deals", data=data)

    assert save(phone1, 1, ["3", "1", "2", ""], 1).status_code == 303  # Di's 2 left on auto
    bad = save(phone2, 2, ["4", "4", "4", "4"], 0)
    assert bad.status_code == 422
    assert "Tricks must add up to 8 with 4 players (one per trick); they add up to 16." in \
        text_of(bad.get_data(as_text=True))
    assert save(phone2, 2, ["4", "0", "4", "0"], 0).status_code == 303

    # Team standings on both phones; the log and both exports name teams as the seating says.
    doc = json.loads(get(laptop, f"/t/{token}/export.json"))
    assert doc["entrants"] == ["Ann & Cy", "Bo & Di"]
    assert doc["totals"] == [{"name": "Ann & Cy", "total": 15}, {"name": "Bo & Di", "total": 5}]
    for phone in (phone1, phone2):
        standings = text_of(get(phone, f"/t/{token}"))
        assert "Ann & Cy" in standings and "Bo & Di" in standings
    rows = list(csv.DictReader(io.StringIO(get(laptop, f"/t/{token}/export.csv")[1:])))
    assert rows[0]["Tricks: Di"] == "2" and rows[0]["Last trick"] == "Bo & Di"
    assert [row["Total: Ann & Cy"] for row in rows] == ["5", "15"]
    log = text_of(get(phone1, f"/t/{token}/log"))
    assert "Last trick" in log and "Bo & Di" in log

    # A correction shows the same form (columns in its context too), filled in from the facts.
    edit = get(phone2, f"/t/{token}/deals/1/edit")
    assert 'data-derive="8"' in edit
    assert re.search(r'name="tricks-3" value="2"\s+checked', edit), "Di's worked-out 2 is shown as entered"
