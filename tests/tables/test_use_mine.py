"""Issue 27: a conflict's "use mine" puts what this phone typed back into a form, saving
nothing: the next deal's form, or the correction of the deal another phone recorded first."""

from __future__ import annotations

import re

from helpers import create_table as create
from helpers import rwd_fields as rwd
from helpers import table_state as state
from helpers import text_of

HX = {"HX-Request": "true"}
RECORDED = rwd([2, 7, 8], [5, 6, 6])   # another phone was first with this one
MINE = rwd([0, 8, 9], [5, 6, 6])       # this phone's entry of the same deal


def post_deal(client, token: str, number: int, fields: dict):
    data = {"number": str(number), **{k: str(v) for k, v in fields.items()}}
    return client.post(f"/t/{token}/deals", data=data, headers=HX)


def checked(html: str, name: str) -> str | None:
    """The value of the checked radio ``name`` in ``html``'s deal form, if any."""
    form = html[html.index('<form id="entry"'):]
    for tag in re.findall(r"<input[^>]*>", form):
        if f'name="{name}"' in tag and re.search(r"\schecked\b", tag):
            return re.search(r'value="([^"]*)"', tag).group(1)
    return None


def mine_form(html: str) -> str:
    return re.search(r'<form class="use-mine".*?</form>', html, re.S).group(0)


def conflict_page(client, recorded=(RECORDED,), mine=MINE) -> tuple[str, str]:
    """Another phone records ``recorded`` (deals 1, 2, …); this phone then saves ``mine`` as the
    last of them: the 409 page with the conflict box."""
    token = create(client, "rwd", ["Ann", "Bo", "Cy"])
    for number, deal in enumerate(recorded, start=1):
        assert post_deal(client, token, number, deal).status_code == 200
    response = post_deal(client, token, len(recorded), mine)
    assert response.status_code == 409
    return token, response.get_data(as_text=True)


def test_the_conflict_box_offers_mine_for_the_next_deal_or_as_the_correction(client):
    _token, html = conflict_page(client)
    form = mine_form(html)
    assert "Edit mine as deal 2" in text_of(form)
    assert "Correct deal 1 with mine" in text_of(form)
    for name, value in MINE.items():
        assert f'name="mine-{name}" value="{value}"' in form
    # The next deal's form below still starts empty: nothing comes back without the tap.
    assert checked(html, "chips-1") is None


def test_mine_for_the_next_deal_fills_its_form_and_saves_nothing(client):
    token, html = conflict_page(client)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', mine_form(html)))
    response = client.post(f"/t/{token}/mine", data={**fields, "use": "next"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert 'name="number" value="2"' in page[page.index('<form id="entry"'):]
    for name, value in MINE.items():
        assert checked(page, name) == str(value), name
    assert "Your values are in the form for deal 2" in text_of(page)
    # Marked as a whole deal given back: the score check runs at once (static/app.js).
    assert re.search(r'<form id="entry"[^>]*data-given-back data-preview-now', page)
    assert len(state(client, token)["deals"]) == 1


def test_mine_as_the_correction_opens_the_correction_with_my_values(client):
    token, html = conflict_page(client)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', mine_form(html)))
    page = client.post(f"/t/{token}/mine", data={**fields, "use": "correct"}).get_data(as_text=True)
    assert "Correct deal 1" in text_of(page)
    for name, value in MINE.items():
        assert checked(page, name) == str(value), name
    assert len(state(client, token)["deals"]) == 1
    # Saved from there, mine replaces the recorded deal (the fingerprint is the recorded one's).
    was = re.search(r'name="was" value="([^"]*)"', page).group(1)
    saved = client.post(f"/t/{token}/deals/1", data={**{k: str(v) for k, v in MINE.items()}, "was": was})
    assert saved.status_code == 303
    deals = state(client, token)["deals"]
    assert len(deals) == 1 and deals[0]["facts"]["chips"][:2] == [0, 8]


def test_an_entry_that_is_no_valid_deal_comes_back_only_for_the_next_form(client):
    token = create(client, "rwd", ["Ann", "Bo", "Cy"])
    post_deal(client, token, 1, RECORDED)
    html = post_deal(client, token, 1, rwd([9, 9, 9], [5, 6, 6])).get_data(as_text=True)
    form = mine_form(html)
    assert "Edit mine as deal 2" in text_of(form)
    assert "Correct deal 1 with mine" not in text_of(form)


def test_a_correction_of_a_deal_undone_meanwhile_falls_back_to_the_next_form(client):
    token, html = conflict_page(client)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', mine_form(html)))
    client.post(f"/t/{token}/undo", data={"number": "1"})
    page = client.post(f"/t/{token}/mine", data={**fields, "use": "correct"}).get_data(as_text=True)
    assert 'name="number" value="1"' in page[page.index('<form id="entry"'):]
    assert checked(page, "chips-1") == "8"
    assert state(client, token)["deals"] == []


# Ann wins deals 1 and 2; another phone records her third win as deal 3 and the match is over.
ANN_WINS = rwd([4, 5, 8], [7, 7, 3])
BO_WINS = rwd([5, 4, 8], [5, 10, 2])


def ended_conflict_page(client) -> tuple[str, str]:
    return conflict_page(client, recorded=(ANN_WINS,) * 3, mine=BO_WINS)


def test_when_the_recorded_deal_ended_the_match_mine_can_still_correct_it(client):
    token, html = ended_conflict_page(client)
    form = mine_form(html)
    assert "Correct deal 3 with mine" in text_of(form)
    assert "Edit mine as deal" not in text_of(form)  # there is no deal 4
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    page = client.post(f"/t/{token}/mine", data={**fields, "use": "correct"}).get_data(as_text=True)
    assert "Correct deal 3" in text_of(page)
    for name, value in BO_WINS.items():
        assert checked(page, name) == str(value), name


def test_mine_for_a_next_deal_that_no_longer_exists_goes_to_the_correction(client):
    # The box was drawn while the match ran; the deal that ended it came before the tap.
    token, html = conflict_page(client)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', mine_form(html)))
    client.post(f"/t/{token}/undo", data={"number": "1"})
    for number in (1, 2, 3):
        post_deal(client, token, number, ANN_WINS)
    response = client.post(f"/t/{token}/mine", data={**fields, "use": "next"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "The match is over, so there is no next deal for your values" in text_of(page)
    assert "Correct deal 1" in text_of(page)
    assert checked(page, "chips-1") == "8"  # mine, not the recorded deal's 5
    assert len(state(client, token)["deals"]) == 3


def test_mine_with_no_deal_to_go_into_says_so_and_saves_nothing(client):
    token = create(client, "rwd", ["Ann", "Bo", "Cy"])
    for number in (1, 2, 3):
        post_deal(client, token, number, ANN_WINS)
    fields = {"number": "7", **{f"mine-{k}": str(v) for k, v in MINE.items()}}
    page = client.post(f"/t/{token}/mine", data={**fields, "use": "next"}).get_data(as_text=True)
    assert "The match is over, so there is no next deal for your values. Nothing was saved." in text_of(page)
    assert len(state(client, token)["deals"]) == 3


def test_a_conflict_on_the_match_ending_deal_says_its_notice_once_and_no_form_below(client):
    _token, html = ended_conflict_page(client)
    page = text_of(html)
    assert page.count("Deal 3 was already entered") == 1, page
    assert "form below" not in page  # the match is over: there is no next form


def test_with_a_correctable_entry_the_box_points_at_its_own_button_not_the_deal_list(client):
    _token, html = conflict_page(client)
    box = text_of(html[html.index('class="conflict-box'):html.index('<form id="entry"')])
    assert "deal list" not in box and "The form below is for the next deal." in box
    html = post_deal(client, _token, 1, rwd([9, 9, 9], [5, 6, 6])).get_data(as_text=True)  # no valid deal
    box = text_of(html[html.index('class="conflict-box'):html.index('<form id="entry"')])
    assert "correct it from the deal list" in box
