"""Two sides agree (issue 45): a deal a phone saves at one of the night's tables waits for a
phone of another seat (in a team game, of the other team); outside the table the match counts
once it is over and nothing waits. The laptop's own entries are confirmed. A correction of a
confirmed deal waits again; an undo of one waits as a deal does. One rule says who may confirm
and why not (companion/tables/confirming.py), shown on the page."""

from __future__ import annotations

import json
import re

import pytest

from companion.night import service as night
from companion.tables import service as tables
from companion.tables.confirming import LAPTOP, ToConfirm, Who, why_not
from helpers import REPO_ROOT, join_night, rwd_deal_form, text_of
import table_writes
from table_writes import done

FOUR = ["Ann", "Bob", "Cy", "Di"]
SAVED_AT = "2026-11-29T20:00:00+00:00"


def saved_by(device: str, seats=(), at: str = SAVED_AT) -> ToConfirm:
    return ToConfirm("deal", 4, {"by": device, "seats": list(seats), "at": at})


# --- the rule, case by case -------------------------------------------------------------------


def test_who_may_confirm_a_deal_each_case_with_its_reason():
    item = saved_by("phone-a", seats=[0])
    assert why_not(item, LAPTOP) is None  # the organiser
    assert "This phone saved deal 4" in str(why_not(item, Who("phone-a", seats=(0,))))  # the same phone
    assert why_not(item, Who("phone-b", seats=(1,))) is None  # another seat
    # A phone whose claim moved: the seat that saved it, from another phone.
    assert "Your seat saved deal 4" in str(why_not(item, Who("phone-c", seats=(0,))))
    # An onlooker or a phone of another table: no seat here, where the deal came from a named seat.
    assert "Only a player at this table" in str(why_not(item, Who("phone-d")))
    # Twin Shoot: seats 0 and 1 are partners; a teammate may not, the other team may.
    teams = (0, 0, 1, 1)
    assert "Your team saved deal 4" in str(why_not(item, Who("phone-e", seats=(1,)), teams))
    assert why_not(item, Who("phone-f", seats=(2,)), teams) is None


def test_at_a_side_table_a_phone_that_had_it_open_before_the_deal_stands_for_a_seat():
    item = saved_by("phone-a")  # nobody at a side table has a name on tonight's list
    assert why_not(item, Who("phone-b", opened_at="2026-11-29T19:59:00+00:00")) is None
    assert "had this table open before deal 4" in str(why_not(item, Who("phone-b", opened_at="2026-11-29T20:01:00+00:00")))
    assert "had this table open before deal 4" in str(why_not(item, Who("phone-b")))


# --- at a real night's table ---------------------------------------------------------------------


def drawn_table(client, conn, app) -> tuple[dict, str]:
    phones = join_night(app, FOUR)
    assert client.post("/hall/rounds", data={"tables-rwd": "1"}).status_code == 303
    (rt,) = night.night_rounds(conn)[-1].tables
    return phones, rt.table.token


def seat_phone(phones: dict, conn, token: str, seat: int):
    return phones[tables.load(conn, token).setup.players[seat]]


def board(client) -> dict[str, str]:
    doc = json.loads(client.get("/hall/export.json").get_data(as_text=True))
    return {line["name"]: line["place_points_exact"] for line in doc["leaderboard"]}


@pytest.mark.confirming
def test_a_match_counts_once_another_seat_confirms_its_deals(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a, b = seat_phone(phones, conn, token, 0), seat_phone(phones, conn, token, 1)
    for number in (1, 2, 3):  # seat 1 wins three deals: the match is over
        assert a.post(f"/t/{token}/deals", data=rwd_deal_form(number, 0)).status_code == 303
    table = tables.load(conn, token)
    assert table.match().over and [item.key for item in table.to_confirm()] == ["deal-1", "deal-2", "deal-3"]
    assert board(client) == {}  # not counted yet
    page = text_of(b.get(f"/t/{token}").get_data(as_text=True))
    assert "3 changes to confirm" in page and "Confirm all 3" in page
    # The phone that saved them may not: it is told why, and nothing changes.
    refused = a.post(f"/t/{token}/confirm", data={"item": "deal-1"})
    assert refused.status_code == 409
    assert "This phone saved deal 1: a phone of another seat confirms it." in text_of(refused.get_data(as_text=True))
    assert b.post(f"/t/{token}/confirm", data={"item": "deal-1"}).status_code == 303
    assert [item.key for item in tables.load(conn, token).to_confirm()] == ["deal-2", "deal-3"]
    assert b.post(f"/t/{token}/confirm", data={"item": "all"}).status_code == 303
    assert tables.load(conn, token).confirmed and len(board(client)) == 4
    assert "Confirmed." in text_of(b.get(f"/t/{token}").get_data(as_text=True))
    # A second tap (or another phone first): answered as confirmed, nothing else happens.
    assert b.post(f"/t/{token}/confirm", data={"item": "all"}).status_code == 303
    log = [c["action"] for c in tables.changes(conn, tables.load(conn, token).id)]
    assert log.count("confirm") == 2


@pytest.mark.confirming
def test_the_laptops_deals_are_confirmed_a_correction_or_undo_from_a_phone_waits_again(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a, b = seat_phone(phones, conn, token, 0), seat_phone(phones, conn, token, 1)
    assert client.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303  # the laptop
    assert tables.load(conn, token).confirmed
    # A phone corrects the confirmed deal 1: it waits again.
    table = tables.load(conn, token)
    form = dict(rwd_deal_form(1, 1), was=tables.fingerprint(table.deals[0]))
    form.pop("number")
    assert a.post(f"/t/{token}/deals/1", data=form).status_code == 303
    assert [item.key for item in tables.load(conn, token).to_confirm()] == ["deal-1"]
    assert b.post(f"/t/{token}/confirm", data={"item": "deal-1"}).status_code == 303
    # A phone undoes the confirmed deal 1: the undo waits.
    assert a.post(f"/t/{token}/undo", data={"number": "1"}).status_code == 303
    table = tables.load(conn, token)
    assert table.deals == () and [item.key for item in table.to_confirm()] == ["undo-1"]
    assert "Deal 1 undone" in text_of(b.get(f"/t/{token}").get_data(as_text=True))
    # A deal saved again in its place takes over the waiting undo, and waits itself.
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(1, 2)).status_code == 303
    assert [item.key for item in tables.load(conn, token).to_confirm()] == ["deal-1"]


@pytest.mark.confirming
def test_the_season_ignores_a_match_until_it_is_confirmed(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a, b = seat_phone(phones, conn, token, 0), seat_phone(phones, conn, token, 2)
    for number in (1, 2, 3):
        assert a.post(f"/t/{token}/deals", data=rwd_deal_form(number, 0)).status_code == 303
    season = json.loads(client.get("/season.json").get_data(as_text=True))
    assert season["ranked"] == []
    assert b.post(f"/t/{token}/confirm", data={"item": "all"}).status_code == 303
    season = json.loads(client.get("/season.json").get_data(as_text=True))
    assert len(season["ranked"]) == 4


@pytest.mark.confirming
def test_the_hall_turns_confirming_off_for_tables_from_then_on(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a = seat_phone(phones, conn, token, 0)
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    assert "Turn confirming off" in text_of(client.get("/hall").get_data(as_text=True))
    assert client.post("/hall/confirming", data={"on": "0"}).status_code == 303
    assert not night.confirm_deals(conn)
    # This table decided at its first deal: it still asks.
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(2, 0)).status_code == 303
    assert [item.key for item in tables.load(conn, token).to_confirm()] == ["deal-1", "deal-2"]


def test_a_side_table_asks_only_if_a_seat_turns_it_on_before_its_first_deal(app, client, conn):
    phone = app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": "192.168.1.50"})
    token = table_writes.create(conn, "rwd", FOUR, {})
    assert "Ask another seat to confirm each deal" in text_of(phone.get(f"/t/{token}").get_data(as_text=True))
    assert phone.post(f"/t/{token}/confirming", data={"on": "1"}).status_code == 303
    assert phone.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    assert [item.key for item in tables.load(conn, token).to_confirm()] == ["deal-1"]
    refused = phone.post(f"/t/{token}/confirming", data={"on": "0"})
    assert refused.status_code == 409 and "before the first deal" in text_of(refused.get_data(as_text=True))
    # Another phone that had the table open before the deal confirms it.
    other = app.test_client()
    other.environ_base.update({"REMOTE_ADDR": "192.168.1.51"})
    later = other.post(f"/t/{token}/confirm", data={"item": "all"})
    assert later.status_code == 409  # it opened the table only now
    second = table_writes.create(conn, "rwd", FOUR, {})
    done(tables.set_confirming(conn, second, True))
    other.get(f"/t/{second}")  # open before the deal
    assert phone.post(f"/t/{second}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    assert other.post(f"/t/{second}/confirm", data={"item": "all"}).status_code == 303
    assert tables.load(conn, second).confirmed


# --- disputes ---------------------------------------------------------------------------------------


@pytest.mark.confirming
def test_a_dispute_goes_to_the_hall_holds_the_round_and_the_organiser_settles_it(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a, c = seat_phone(phones, conn, token, 0), seat_phone(phones, conn, token, 2)
    for number in (1, 2, 3):  # seat 1 wins three: over, as saved
        assert a.post(f"/t/{token}/deals", data=rwd_deal_form(number, 0)).status_code == 303
    assert "That's not right" in text_of(c.get(f"/t/{token}").get_data(as_text=True))
    form = c.get(f"/t/{token}/deals/3/dispute").get_data(as_text=True)
    assert "Deal 3: what you saw" in text_of(form) and "Send both versions to the organiser" in text_of(form)
    # What was saved is not a dispute.
    same = c.post(f"/t/{token}/deals/3/dispute", data=rwd_deal_form(3, 0))
    assert same.status_code == 422 and "tap Confirm instead" in text_of(same.get_data(as_text=True))
    # Seat 3 says seat 3 won deal 3.
    assert c.post(f"/t/{token}/deals/3/dispute", data=rwd_deal_form(3, 2)).status_code == 303
    table = tables.load(conn, token)
    assert [d["number"] for d in table.disputes] == [3] and table.deals[2]["tricks"] == [7, 2, 2, 2]
    assert "The organiser will settle deal 3." in text_of(a.get(f"/t/{token}").get_data(as_text=True))
    # A phone may not confirm the disputed deal; the hall shows both versions; the round is not over.
    assert c.post(f"/t/{token}/confirm", data={"item": "deal-3"}).status_code == 303
    assert tables.load(conn, token).disputed(3) is not None
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "1 dispute to settle" in hall and "As another seat saw it" in hall
    assert "Round 1 is over" not in hall
    refused = client.post("/hall/rounds", data={"tables-rwd": "1"})
    assert refused.status_code == 422
    assert "Settle first (Disputes, on the hall): Table 1, deal 3." in text_of(refused.get_data(as_text=True))
    # The organiser takes the other seat's version: deal 3 replaced, confirmed; the match plays on.
    table_id = tables.load(conn, token).id
    assert client.post(f"/hall/tables/{table_id}/settle", data={"number": "3", "keep": "theirs"}).status_code == 303
    table = tables.load(conn, token)
    assert table.disputes == () and table.deals[2]["tricks"] == [2, 2, 7, 2] and not table.match().over
    assert [item.key for item in table.to_confirm()] == ["deal-1", "deal-2"]
    log = [c["action"] for c in tables.changes(conn, table.id)]
    assert "dispute" in log and "edit" in log


@pytest.mark.confirming
def test_the_organiser_keeps_the_saved_version(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a, c = seat_phone(phones, conn, token, 0), seat_phone(phones, conn, token, 2)
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    assert c.post(f"/t/{token}/deals/1/dispute", data=rwd_deal_form(1, 3)).status_code == 303
    table_id = tables.load(conn, token).id
    assert client.post(f"/hall/tables/{table_id}/settle", data={"number": "1", "keep": "saved"}).status_code == 303
    table = tables.load(conn, token)
    assert table.disputes == () and table.confirmed and table.deals[0]["tricks"] == [7, 2, 2, 2]


@pytest.mark.confirming
def test_my_night_says_a_match_waits_for_confirmation_not_that_it_plays(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a = seat_phone(phones, conn, token, 0)
    for number in (1, 2, 3):
        assert a.post(f"/t/{token}/deals", data=rwd_deal_form(number, 0)).status_code == 303
    summary = text_of(a.get("/night/me/summary").get_data(as_text=True))
    assert "(to confirm at the table)" in summary and "(playing)" not in summary


def test_a_twin_shoot_tables_teams_are_what_the_rule_reads():
    """The rule's ``teams`` come from the game's own seating (partners side by side in Twin
    Shoot): a teammate of the seat that saved may not confirm, the other team may."""
    from companion.games import GAMES, MatchSetup

    table = tables.Table(1, "t" * 22, GAMES["twin_shoot"], MatchSetup("twin_shoot", ("A", "B", "C", "D"), {}),
                         False, 0, "", "", ())
    assert table.teams() == (0, 0, 1, 1)
    item = saved_by("phone-a", seats=[0])
    keys = ["a", "b", "c", "d"]
    assert "Your team saved" in str(why_not(item, Who("phone-b", keys=frozenset({"b"})).seated(keys), table.teams()))
    assert why_not(item, Who("phone-c", keys=frozenset({"c"})).seated(keys), table.teams()) is None
    assert tables.Table(1, "t" * 22, GAMES["rwd"], MatchSetup("rwd", ("A", "B", "C", "D"), {}),
                        False, 0, "", "", ()).teams() is None


@pytest.mark.confirming
def test_the_tables_log_keeps_every_version_and_who_said_what(app, client, conn):
    phones, token = drawn_table(client, conn, app)
    a, b, c = (seat_phone(phones, conn, token, seat) for seat in (0, 1, 2))
    players = tables.load(conn, token).setup.players
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(2, 0)).status_code == 303
    assert b.post(f"/t/{token}/confirm", data={"item": "deal-1"}).status_code == 303
    assert c.post(f"/t/{token}/deals/2/dispute", data=rwd_deal_form(2, 2)).status_code == 303
    table_id = tables.load(conn, token).id
    assert client.post(f"/hall/tables/{table_id}/settle", data={"number": "2", "keep": "saved"}).status_code == 303
    log = text_of(client.get(f"/t/{token}/log").get_data(as_text=True))
    assert f"Confirmed by {players[1]}: deal 1" in log
    assert f"Deal 2: {players[2]} saw it otherwise, for the organiser to settle" in log and "as they saw it" in log
    assert "Deal 2 settled by the organiser: the saved one kept" in log


# --- each phone's own id on the table page ---------------------------------------------------------


def phone_id_of(page: str) -> str | None:
    found = re.search(r'<meta name="phone-id" content="([^"]*)">', page)
    return found.group(1) if found else None


@pytest.mark.confirming
def test_the_table_page_shared_by_its_phones_names_each_phone_its_own_id(app, client, conn):
    """The table page is rendered once per revision for every phone that asks (issue 23), but the
    id static/app.js reads to tell this phone's own saves from others' is each phone's own: the
    page rendered for the phone that asked first gave the others its id, so the phone that should
    confirm a deal was told it had saved it itself (and the laptop, that a phone's deals were its own)."""
    phones, token = drawn_table(client, conn, app)
    a, b = seat_phone(phones, conn, token, 0), seat_phone(phones, conn, token, 1)
    assert a.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    (item,) = tables.load(conn, token).to_confirm()
    saver = item.by["by"]
    seen = {name: phone_id_of(phone.get(f"/t/{token}").get_data(as_text=True)) for name, phone in (("a", a), ("b", b))}
    assert seen["a"] == saver  # the phone that saved it: its own item says so
    assert seen["b"] not in (None, saver)  # another seat's phone: it may confirm
    assert phone_id_of(client.get(f"/t/{token}").get_data(as_text=True)) is None  # the laptop has none
    # In the other order too, and each page still has its own CSRF token.
    assert b.post(f"/t/{token}/confirm", data={"item": "all"}).status_code == 303
    first = b.get(f"/t/{token}").get_data(as_text=True)
    assert phone_id_of(client.get(f"/t/{token}").get_data(as_text=True)) is None
    assert phone_id_of(a.get(f"/t/{token}").get_data(as_text=True)) == saver
    assert phone_id_of(first) == seen["b"]


def test_what_app_js_hides_in_the_confirm_box_stays_hidden_whatever_its_class_shows():
    """static/app.js hides Confirm on this phone's own saves (and the note on others') with the
    hidden attribute; the browser's own [hidden] rule loses to any display an author's rule gives,
    and form.inline gives one, so the phone that saved a deal was still offered Confirm
    (seen in Chromium: tests/browser/test_confirming_browser.py)."""
    css = re.sub(r"/\*.*?\*/", "", (REPO_ROOT / "static" / "app.css").read_text(encoding="utf-8"), flags=re.S)
    assert re.search(r"form\.inline\{[^}]*display:", css.replace(" ", ""))  # why the attribute alone is not enough
    rules = re.findall(r"([^{}]+)\{([^}]*)\}", css)
    hiding = [selector for selector, body in rules
              if re.search(r"display:\s*none\s*!important", body)
              and any(part.strip() in ("[hidden]", ".confirm-box [hidden]", "#confirm-box [hidden]")
                      for part in selector.split(","))]
    assert hiding, "nothing hides the confirm box's [hidden] items against their class's display"


def test_a_phone_that_never_joined_the_night_is_given_its_id_with_the_table_page(app, conn):
    """At a side table nobody joined tonight's list: a phone had no id until its first save made
    one, so the page it saved from had none, and its own deal offered it Confirm (refused when
    tapped). The table page gives the phone its id (the one its saves will carry)."""
    phone = app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": "192.168.1.50"})
    token = table_writes.create(conn, "rwd", FOUR, {})
    assert phone.post(f"/t/{token}/confirming", data={"on": "1"}).status_code == 303
    own = phone_id_of(phone.get(f"/t/{token}").get_data(as_text=True))
    assert own
    assert phone.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    (item,) = tables.load(conn, token).to_confirm()
    assert item.by["by"] == own
    assert phone_id_of(phone.get(f"/t/{token}").get_data(as_text=True)) == own
