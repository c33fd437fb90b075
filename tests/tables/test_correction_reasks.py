"""A correction that makes a later deal's recorded decision illegal asks for it again, with its
ruling, instead of refusing "Correct or undo the later deals first" (issue 24): Twin Shoot's open
bid, RWD's chosen start player, Pair & Quad's chosen dealer. Store level, then the page."""

from __future__ import annotations

import re

import pytest

from companion.tables import service as store
from companion.games import GAMES, MatchSetup
from helpers import fingerprint_of as was, migrated_connection, text_of
from helpers import stored_table as table_with
import table_writes

TWIN = ("Ann", "Bob", "Cy", "Dee")  # teams Ann & Bob (0), Cy & Dee (1)
BID = {0: ["D", "D"], 2: ["H", "D"], 3: ["C", "D"]}


def twin(bids, tricks, open_bid=None):
    return {"bids": [BID[b] for b in bids], "tricks": list(tricks), "open_bid": open_bid}


TEAM0_AHEAD = twin([3, 2, 0, 0], [3, 2, 3, 2])  # Ann & Bob 35, Cy & Dee 5
TEAM1_AHEAD = twin([0, 0, 3, 2], [3, 2, 3, 2])  # Ann & Bob 5, Cy & Dee 35
EVEN = twin([3, 2, 3, 2], [3, 2, 3, 2])         # 35 each
# Deal 2: Cy & Dee, alone in last place after TEAM0_AHEAD, open-bid and make it.
OPEN_BY_1 = twin([0, 0, 3, 2], [3, 2, 3, 2], open_bid=1)


@pytest.fixture
def conn(tmp_path):
    yield from migrated_connection(tmp_path)



def test_open_bid_made_illegal_is_asked_again_with_the_team_now_last_or_nobody(conn):
    token = table_with(conn, "twin_shoot", TWIN, {"first_team": 0}, [TEAM0_AHEAD, OPEN_BY_1])
    before = store.load(conn, token)
    # Deal 1 corrected: now Ann & Bob are alone in last place, so Cy & Dee could not open-bid.
    with pytest.raises(store.NeedsChoices) as asked:
        table_writes.edit_deal(conn, token, 1, TEAM1_AHEAD, was(conn, token, 1))
    [(number, choice)] = asked.value.choices
    # Who may open-bid is the designer's rule, which the question states: no ruling beside it.
    assert number == 2 and choice.key == "open_bid" and choice.ruling is None
    assert "alone in last place" in str(choice.question)
    assert choice.options == (0, 2)  # Ann & Bob, or nobody
    assert [str(label) for label in choice.labels] == ["Ann & Bob", "Cy & Dee", "Nobody"]
    assert "Cy & Dee may no longer open-bid" in str(choice.question)
    assert "Ann & Bob is now alone in last place" in str(choice.question)
    assert asked.value.unanswered == [2]
    assert store.load(conn, token).deals == before.deals  # nothing written yet

    # Answered "nobody" (as the page sends it): both deals written in one step.
    table = table_writes.edit_deal(conn, token, 1, TEAM1_AHEAD, was(conn, token, 1), choices={2: "2"})
    assert table.deals[0] == TEAM1_AHEAD
    assert table.deals[1] == {**OPEN_BY_1, "open_bid": None}
    assert table.match().totals == (10, 70)


def test_open_bid_answer_can_be_the_team_now_last(conn):
    token = table_with(conn, "twin_shoot", TWIN, {"first_team": 0}, [TEAM0_AHEAD, OPEN_BY_1])
    table = table_writes.edit_deal(conn, token, 1, TEAM1_AHEAD, was(conn, token, 1), choices={2: 0})
    assert table.deals[1]["open_bid"] == 0
    # Ann & Bob's open bid failed (no bid hit): Cy & Dee score 30 more.
    assert table.match().deals[1].score.points == (5, 35 + 30)


def test_open_bid_when_nobody_is_alone_last_any_more_asks_to_confirm_nobody(conn):
    token = table_with(conn, "twin_shoot", TWIN, {"first_team": 0}, [TEAM0_AHEAD, OPEN_BY_1])
    with pytest.raises(store.NeedsChoices) as asked:
        table_writes.edit_deal(conn, token, 1, EVEN, was(conn, token, 1))
    [(number, choice)] = asked.value.choices
    assert number == 2 and choice.options == (2,)  # only "nobody" is possible now
    assert "no team is alone in last place" in str(choice.question)
    table = table_writes.edit_deal(conn, token, 1, EVEN, was(conn, token, 1), choices={2: 2})
    assert table.deals[1]["open_bid"] is None


def test_open_bid_still_legal_after_the_correction_is_kept_without_asking(conn):
    token = table_with(conn, "twin_shoot", TWIN, {"first_team": 0}, [TEAM0_AHEAD, OPEN_BY_1])
    bigger_lead = twin([3, 3, 0, 0], [3, 3, 2, 2])  # Ann & Bob 36, Cy & Dee 4: still ahead
    table = table_writes.edit_deal(conn, token, 1, bigger_lead, was(conn, token, 1))
    assert table.deals[1] == OPEN_BY_1


# RWD, 3 players (17 tricks): points = tricks − chips.
ANN = {"chips": [4, 5, 8], "tricks": [7, 7, 3]}          # Ann alone
SHARED_AB = {"chips": [5, 5, 7], "tricks": [7, 7, 3]}    # Ann and Bo share
SHARED_BC = {"chips": [7, 5, 5], "tricks": [3, 7, 7]}    # Bo and Cy share


def test_rwd_chosen_start_player_no_longer_among_the_sharers_is_asked_again(conn):
    token = table_with(conn, "rwd", ("Ann", "Bo", "Cy"), {"first_start_player": 0},
                       [SHARED_AB, {**ANN, "start_player": 0}])
    with pytest.raises(store.NeedsChoices) as asked:
        table_writes.edit_deal(conn, token, 1, SHARED_BC, was(conn, token, 1))
    [(number, choice)] = asked.value.choices
    assert (number, choice.key, choice.options, choice.ruling) == (2, "start_player", (1, 2),
                                                                    "start_after_tie")
    table = table_writes.edit_deal(conn, token, 1, SHARED_BC, was(conn, token, 1), choices={2: 2})
    assert table.deals[1]["start_player"] == 2


def pq_row(seven=0, ace=0, king=0, queen=0, jack=0, other=0):
    return {"7": seven, "A": ace, "K": king, "Q": queen, "J": jack, "other": other}


# Pair & Quad, 4 players: two players tie for the top score.
TIE_AB = {"captured": [pq_row(other=12), pq_row(other=12), pq_row(2, 2, 2, 2, 2, 2),
                       pq_row(2, 2, 2, 2, 2, 6)]}  # Ann and Bob +12, Cat +2, Dan +6
TIE_CD = {"captured": [pq_row(2, 2, 2, 2, 2, 2), pq_row(2, 2, 2, 2, 2, 6), pq_row(other=12),
                       pq_row(other=12)]}  # Cat and Dan +12


def test_pair_quad_chosen_dealer_no_longer_tied_is_asked_again(conn):
    game = GAMES["pair_quad"]
    setup_names = ("Ann", "Bob", "Cat", "Dan")
    assert game.score_deal(game.start(MatchSetup("pair_quad", setup_names)), TIE_AB).winners == (0, 1)
    token = table_with(conn, "pair_quad", setup_names, {"first_dealer": 0},
                       [TIE_AB, {**TIE_AB, "dealer": 1}])
    with pytest.raises(store.NeedsChoices) as asked:
        table_writes.edit_deal(conn, token, 1, TIE_CD, was(conn, token, 1))
    [(number, choice)] = asked.value.choices
    assert (number, choice.key, choice.options, choice.ruling) == (2, "dealer", (2, 3), "tied_top")
    table = table_writes.edit_deal(conn, token, 1, TIE_CD, was(conn, token, 1), choices={2: 3})
    assert table.deals[1]["dealer"] == 3


# --------------------------------------------------------------------------- the page


def create(client, game, names, **options):
    data = {"game": game, "players": str(len(names)),
            **{f"name-{i}": name for i, name in enumerate(names)},
            **{k: str(v) for k, v in options.items()}}
    response = client.post("/tables", data=data)
    assert response.status_code == 303
    return response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]


def form_of(facts):
    return GAMES["twin_shoot"].form_values(facts)


def test_the_correction_page_asks_the_open_bid_again_with_team_names_and_the_rule(client):
    token = create(client, "twin_shoot", TWIN, first_team=0)
    for number, facts in enumerate([TEAM0_AHEAD, OPEN_BY_1], start=1):
        response = client.post(f"/t/{token}/deals", data={"number": str(number), **form_of(facts)})
        assert response.status_code in (200, 303)
    html = client.get(f"/t/{token}/deals/1/edit").get_data(as_text=True)
    was = re.search(r'name="was" value="([^"]+)"', html).group(1)
    response = client.post(f"/t/{token}/deals/1", data={**form_of(TEAM1_AHEAD), "was": was})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    text = text_of(html)
    assert "Correct or undo the later deals first" not in text
    assert 'name="later-2" value="0"' in html and 'name="later-2" value="2"' in html
    asked = html[html.index('class="later-choices"'):]
    assert "<bdi>Ann &amp; Bob</bdi>" in asked and "<bdi>Nobody</bdi>" in asked
    assert "alone in last place" in text_of(asked)  # the designer's rule on who may open-bid
    assert 'data-ruling="open_bid"' not in asked  # …which is no table ruling
    response = client.post(f"/t/{token}/deals/1", data={**form_of(TEAM1_AHEAD), "was": was,
                                                        "later-2": "2"})
    assert response.status_code == 303
    exported = client.get(f"/t/{token}/export.json").get_json()
    assert exported["deals"][1]["facts"]["open_bid"] is None if "facts" in exported["deals"][1] \
        else exported["deals"][1]["open_bid"] is None


def test_the_correction_page_in_japanese_asks_in_japanese(client):
    token = create(client, "twin_shoot", TWIN, first_team=0)
    for number, facts in enumerate([TEAM0_AHEAD, OPEN_BY_1], start=1):
        client.post(f"/t/{token}/deals", data={"number": str(number), **form_of(facts)})
    client.set_cookie("lang", "ja")
    html = client.get(f"/t/{token}/deals/1/edit").get_data(as_text=True)
    was = re.search(r'name="was" value="([^"]+)"', html).group(1)
    html = client.post(f"/t/{token}/deals/1", data={**form_of(TEAM1_AHEAD), "was": was}).get_data(as_text=True)
    asked = text_of(html[html.index('class="later-choices"'):])
    assert "オープンビッド" in asked and "may no longer" not in asked and "Nobody" not in asked


def test_the_correction_preview_says_the_open_bid_will_be_asked_again(client):
    """Issue 24's leftover: the preview said "This changes who is chosen in deal 2" for an open
    bid nobody chose; it now says what Save will ask."""
    token = create(client, "twin_shoot", TWIN, first_team=0)
    for number, facts in enumerate([TEAM0_AHEAD, OPEN_BY_1], start=1):
        client.post(f"/t/{token}/deals", data={"number": str(number), **form_of(facts)})
    text = text_of(client.post(f"/t/{token}/deals/1/preview", data=form_of(TEAM1_AHEAD),
                               headers={"HX-Request": "true"}).get_data(as_text=True))
    assert "who is chosen" not in text
    assert "This changes a later deal. Save will ask you: Deal 2: Cy & Dee may no longer open-bid" in text
