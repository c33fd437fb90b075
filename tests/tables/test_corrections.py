"""Corrections that flow (issue 11): editing an earlier deal that changes a later deal's open
choice asks for it again instead of refusing, the answers are written in the same transaction
and logged; and a rematch continues the rotation. Store level (companion.tables), no Flask."""

from __future__ import annotations

import re

import pytest

from companion.tables import service as store
from companion.games import GAMES, MatchSetup
from helpers import fingerprint_of as was, migrated_connection, stored_table
import table_writes


@pytest.fixture
def conn(tmp_path):
    yield from migrated_connection(tmp_path)


def rwd(chips, tricks, **extra):
    return {"chips": list(chips), "tricks": list(tricks), **extra}


# 3 players, 17 tricks: points = tricks - chips.
ANN_ALONE = rwd([4, 5, 8], [7, 7, 3])   # Ann +3, Bo +2, Cy -5
SHARED_AB = rwd([5, 5, 7], [7, 7, 3])   # Ann and Bo +2 with 5 chips each: shared
BO_ALONE = rwd([5, 4, 8], [5, 10, 2])   # Bo +6 alone


def fresh(conn, deals, **options) -> str:
    return stored_table(conn, "rwd", ["Ann", "Bo", "Cy"], {"first_start_player": 0, **options}, deals)


def test_a_correction_that_opens_a_later_choice_asks_for_it(conn):
    token = fresh(conn, [ANN_ALONE, BO_ALONE, ANN_ALONE])
    before = store.load(conn, token)
    # Deal 2 becomes a shared win: deal 3 now needs its start player chosen among Ann and Bo.
    with pytest.raises(store.NeedsChoices) as asked:
        table_writes.edit_deal(conn, token, 2, SHARED_AB, was(conn, token, 2))
    [(number, choice)] = asked.value.choices
    assert number == 3 and choice.key == "start_player" and choice.options == (0, 1)
    assert asked.value.unanswered == [3]
    assert choice.ruling == "start_after_tie"
    assert [e.field for e in asked.value.errors] == ["later"]  # nothing answered yet: no red field
    assert "later deal" in str(asked.value.errors[0].message)
    assert store.load(conn, token).deals == before.deals  # nothing written

    # An answer that is not one of the options is asked again, next to its field.
    with pytest.raises(store.NeedsChoices) as again:
        table_writes.edit_deal(conn, token, 2, SHARED_AB, was(conn, token, 2), choices={3: 2})
    assert "later-3" in [e.field for e in again.value.errors]
    assert again.value.unanswered == [3]  # a wrong answer is no answer

    # Answered (as the correction page's form sends it): both deals written in one go, both logged.
    table = table_writes.edit_deal(conn, token, 2, SHARED_AB, was(conn, token, 2),
                            choices={3: "1"})  # as the correction page sends it
    assert table.deals[1] == SHARED_AB
    assert table.deals[2] == {**ANN_ALONE, "start_player": 1}
    assert table.match().deals[2].facts["start_player"] == 1
    assert table.revision == before.revision + 2
    edits = [(c["action"], c["number"]) for c in store.changes(conn, table.id)[:2]]
    assert sorted(edits) == [("edit", 2), ("edit", 3)]
    logged = {c["number"]: c for c in store.changes(conn, table.id)[:2]}
    assert logged[3]["before"] == ANN_ALONE and logged[3]["after"]["start_player"] == 1


def test_a_correction_that_closes_a_later_choice_drops_its_answer(conn):
    # Was refused before issue 11 ("undo the later deals first").
    token = fresh(conn, [SHARED_AB, {**BO_ALONE, "start_player": 1}])
    table = table_writes.edit_deal(conn, token, 1, ANN_ALONE, was(conn, token, 1))
    assert table.deals == (ANN_ALONE, BO_ALONE)
    assert table.match().deals[1].before.leader == 0  # Ann won deal 1 alone, so she started deal 2
    logged = [c for c in store.changes(conn, table.id) if c["action"] == "edit"]
    assert {c["number"] for c in logged} == {1, 2}


def test_a_recorded_answer_that_still_fits_is_kept(conn):
    token = fresh(conn, [SHARED_AB, {**BO_ALONE, "start_player": 1}])
    still_shared = rwd([6, 6, 5], [8, 8, 1])  # Ann and Bo still share (+2, 6 chips each)
    table = table_writes.edit_deal(conn, token, 1, still_shared, was(conn, token, 1))
    assert table.deals[1] == {**BO_ALONE, "start_player": 1}
    assert [c["number"] for c in store.changes(conn, table.id) if c["action"] == "edit"] == [1]


def test_pair_and_quad_correction_asks_who_deals_next(conn):
    def captured(*rows):
        return {"captured": [dict(zip(("7", "A", "K", "Q", "J", "other"), row)) for row in rows]}
    # Deal 1: Ann tops alone (+16); corrected, Ann and Bo tie on +12.
    alone = captured((0, 0, 0, 0, 0, 16), (0, 0, 0, 0, 0, 8), (2, 2, 2, 2, 2, 2), (2, 2, 2, 2, 2, 6))
    tied = captured((0, 0, 0, 0, 0, 12), (0, 0, 0, 0, 0, 12), (2, 2, 2, 2, 2, 2), (2, 2, 2, 2, 2, 6))
    token = table_writes.create(conn, "pair_quad", ["Ann", "Bo", "Cy", "Di"], {"first_dealer": 0, "deals": 0})
    table_writes.add_deal(conn, token, 1, alone)
    table_writes.add_deal(conn, token, 2, alone)
    game = GAMES["pair_quad"]
    assert len(game.replay(MatchSetup("pair_quad", ("Ann", "Bo", "Cy", "Di")), [tied]).deals[0].score.winners) > 1
    with pytest.raises(store.NeedsChoices) as asked:
        table_writes.edit_deal(conn, token, 1, tied, was(conn, token, 1))
    [(number, choice)] = asked.value.choices
    assert number == 2 and choice.key == "dealer"
    seat = choice.options[-1]
    table = table_writes.edit_deal(conn, token, 1, tied, was(conn, token, 1), choices={2: seat})
    assert table.deals[1]["dealer"] == seat
    assert table.match().deals[1].facts["dealer"] == seat


def test_a_correction_that_breaks_a_later_deal_otherwise_is_still_refused(conn):
    token = fresh(conn, [ANN_ALONE, ANN_ALONE, BO_ALONE, ANN_ALONE])  # Ann's 3rd win is deal 4
    before = store.load(conn, token)
    # Ann alone in deal 3 too: she has 3 wins after it, so deal 4 can't be a deal of this match.
    with pytest.raises(store.Refused) as refused:
        table_writes.edit_deal(conn, token, 3, ANN_ALONE, was(conn, token, 3))
    assert not isinstance(refused.value, store.NeedsChoices)
    # Issue 24: the refusal says which deals come after the new end (not "no longer valid").
    assert "ends after deal 3, so deal 4 would come after its end" in str(refused.value)
    assert store.load(conn, token).deals == before.deals


# --------------------------------------------------------------------------- rematch rotation


def test_rematch_continues_the_rotation(conn):
    token = table_writes.create(conn, "lucky_cube", ["Ann", "Bo", "Cy"], {"first_dealer": 1})
    table_writes.add_deal(conn, token, 1, {"die_holder": None, "die_number": None, "last_trick": 2})  # Bo dealt
    table_writes.add_deal(conn, token, 2, {"die_holder": None, "die_number": None, "last_trick": 0})  # Cy dealt
    new = store.load(conn, table_writes.rematch(conn, token))
    assert new.setup.options["first_dealer"] == 0  # Ann deals next, not Bo again
    assert new.match().next.dealer == 0


def test_rwd_rematch_after_a_shared_last_deal_asks_among_the_sharers(conn):
    token = fresh(conn, [SHARED_AB, {**SHARED_AB, "start_player": 0}, {**SHARED_AB, "start_player": 1}])
    assert store.load(conn, token).match().over  # Ann and Bo reach 3 together
    new = store.load(conn, table_writes.rematch(conn, token))
    upcoming = new.match().next
    assert upcoming.number == 1 and upcoming.choice is not None and upcoming.choice.options == (0, 1)
    table = table_writes.add_deal(conn, new.token, 1, {**ANN_ALONE, "start_player": 1})
    assert table.match().deals[0].facts["start_player"] == 1


# --------------------------------------------------------------------------- RWD length at creation


def test_new_table_offers_rwd_length_as_two_taps_and_plays_one_deal(client):
    html = client.get("/tables/new?game=rwd&players=3").get_data(as_text=True)
    assert 'name="length" value="3" checked' in html and 'name="length" value="1"' in html
    assert "One deal" in html and "First to 3 deal wins" in html
    data = {"game": "rwd", "players": "3", "name-0": "Ann", "name-1": "Bo", "name-2": "Cy",
            "first_start_player": "0", "length": "1"}
    response = client.post("/tables", data=data)
    assert response.status_code == 303
    token = response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    deal = {"number": "1", "chips-0": "4", "chips-1": "5", "tricks-0": "7", "tricks-1": "7"}
    assert client.post(f"/t/{token}/deals", data=deal).status_code == 303
    page = re.sub(r"</?bdi>", "", client.get(f"/t/{token}").get_data(as_text=True))
    assert "Ann wins the game." in page
    assert "One deal is the whole game" in page
    # No second deal: the page says the match is over, a forced post is refused.
    response = client.post(f"/t/{token}/deals", data={**deal, "number": "2"})
    assert response.status_code in (409, 422)
    # An unknown length is refused next to its field, nothing created.
    response = client.post("/tables", data={**data, "length": "2"})
    assert response.status_code == 422 and "choose one of the options" in response.get_data(as_text=True)
