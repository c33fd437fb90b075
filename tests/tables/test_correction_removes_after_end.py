"""Issue 24's last step: a correction that ends the match earlier can be saved with the deals
after its new end removed, in one step, instead of undoing them one by one first. The removal
is explicit (the player taps "Save and remove deal N"), names exactly the deals shown, and is
logged deal by deal like an undo."""

from __future__ import annotations

import re

import pytest

from companion.tables import service as store
from helpers import fingerprint_of as was, migrated_connection, stored_table
from helpers import create_table as create
from helpers import table_state as state
from helpers import text_of
import table_writes

# 3 players, 17 tricks: points = tricks - chips.
ANN_ALONE = {"chips": [4, 5, 8], "tricks": [7, 7, 3]}   # Ann +3 alone
BO_ALONE = {"chips": [5, 4, 8], "tricks": [5, 10, 2]}   # Bo +6 alone


@pytest.fixture
def conn(tmp_path):
    yield from migrated_connection(tmp_path)


def rwd_table(conn, deals) -> str:
    return stored_table(conn, "rwd", ["Ann", "Bo", "Cy"], {"first_start_player": 0}, deals)


def test_the_refusal_says_which_deals_and_offers_their_removal(conn):
    token = rwd_table(conn, [ANN_ALONE, ANN_ALONE, BO_ALONE, BO_ALONE, ANN_ALONE])
    with pytest.raises(store.EndsEarlier) as refused:
        table_writes.edit_deal(conn, token, 3, ANN_ALONE, was(conn, token, 3))
    assert (refused.value.end, refused.value.last) == (3, 5)
    assert "so deals 4 to 5 would come after its end" in str(refused.value)
    assert "Save the correction with them removed" in str(refused.value)
    assert len(store.load(conn, token).deals) == 5


def test_saved_with_removal_the_match_ends_at_the_corrected_deal(conn):
    token = rwd_table(conn, [ANN_ALONE, ANN_ALONE, BO_ALONE, BO_ALONE, ANN_ALONE])
    table = table_writes.edit_deal(conn, token, 3, ANN_ALONE, was(conn, token, 3), remove_after_end=5)
    assert list(table.deals) == [ANN_ALONE, ANN_ALONE, ANN_ALONE]
    match = table.match()
    assert match.outcome.over and match.totals[0] == 9
    # Logged as the correction of deal 3 and the undo of deals 5 and 4 (the last first).
    changes = conn.execute("SELECT action, number FROM changes WHERE table_id = "
                           "(SELECT id FROM tables WHERE token = ?) ORDER BY id", (token,)).fetchall()
    assert [tuple(c) for c in changes][-3:] == [("undo", 5), ("undo", 4), ("edit", 3)]


def test_removal_is_only_of_the_deals_the_player_was_shown(conn):
    """A deal added from another phone after the page offered "remove deals 4 to 5" is not
    removed unseen: the offer no longer matches, so the correction is refused again."""
    token = rwd_table(conn, [ANN_ALONE, ANN_ALONE, BO_ALONE, BO_ALONE])
    with pytest.raises(store.EndsEarlier) as refused:
        table_writes.edit_deal(conn, token, 3, ANN_ALONE, was(conn, token, 3), remove_after_end=3)
    assert refused.value.last == 4
    assert len(store.load(conn, token).deals) == 4


def test_removal_does_not_hide_a_correction_that_is_wrong_in_itself(conn):
    token = rwd_table(conn, [ANN_ALONE, BO_ALONE])
    with pytest.raises(store.Refused) as refused:
        table_writes.edit_deal(conn, token, 1, {"chips": [9, 9, 9], "tricks": [7, 7, 3]}, was(conn, token, 1),
                        remove_after_end=2)
    assert not isinstance(refused.value, store.EndsEarlier)
    assert len(store.load(conn, token).deals) == 2


# --------------------------------------------------------------------------- the page


def form_of(deal: dict) -> dict:
    return {**{f"chips-{i}": str(c) for i, c in enumerate(deal["chips"])},
            **{f"tricks-{i}": str(t) for i, t in enumerate(deal["tricks"])}}


def test_the_correction_page_offers_save_and_remove_and_does_it(client):
    token = create(client, "rwd", ["Ann", "Bo", "Cy"])
    for number, deal in enumerate([ANN_ALONE, ANN_ALONE, BO_ALONE, BO_ALONE], start=1):
        client.post(f"/t/{token}/deals", data={"number": str(number), **form_of(deal)})
    page = client.get(f"/t/{token}/deals/3/edit").get_data(as_text=True)
    fingerprint = re.search(r'name="was" value="([^"]*)"', page).group(1)
    fields = {**form_of(ANN_ALONE), "was": fingerprint}
    refused = client.post(f"/t/{token}/deals/3", data=fields)
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert "so deal 4 would come after its end" in text_of(html)
    button = re.search(r'<button[^>]*name="remove_after_end"[^>]*>(.*?)</button>', html, re.S)
    assert button and 'value="4"' in button.group(0) and "Save and remove deal 4" in button.group(1)
    # Save stays the form's first button: the Enter key never removes a deal.
    assert html.index("Save the correction") < button.start()
    saved = client.post(f"/t/{token}/deals/3", data={**fields, "remove_after_end": "4"})
    assert saved.status_code == 303
    assert len(state(client, token)["deals"]) == 3


def test_the_japanese_page_names_the_removal(client):
    token = create(client, "rwd", ["Ann", "Bo", "Cy"])
    for number, deal in enumerate([ANN_ALONE, ANN_ALONE, BO_ALONE, BO_ALONE, BO_ALONE], start=1):
        client.post(f"/t/{token}/deals", data={"number": str(number), **form_of(deal)})
    page = client.get(f"/t/{token}/deals/3/edit").get_data(as_text=True)
    fingerprint = re.search(r'name="was" value="([^"]*)"', page).group(1)
    html = client.post(f"/t/{token}/deals/3", data={**form_of(ANN_ALONE), "was": fingerprint},
                       headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "保存して第4〜第5ディールを削除" in text_of(html)
    assert "第4〜第5ディールは終了後のディールになります" in text_of(html)
