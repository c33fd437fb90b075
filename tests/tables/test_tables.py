"""Tables through the Flask test client: create, play every game to its end through the
forms, refuse bad entries keeping what was typed, correct, undo, log, export, live poll,
home page privacy, CSRF and the no-JavaScript path."""

from __future__ import annotations

import csv
import io
import json
import re
from html import unescape

import pytest
from helpers import create_table as create
from helpers import csrf_of
from helpers import rwd_fields as rwd
from helpers import table_state as state
from helpers import text_of

XSS = "<img src=x onerror=alert(1)>"
XSS_ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"
LONG = "Bartholomew Maximilian Featherstonehaugh"  # exactly 40 characters, the maximum
POOL = ["山田", XSS, "🎲 Dice", LONG, "Ann", "Bo"]
assert len(LONG) == 40


# --- helpers ---------------------------------------------------------------------------------

def names_for(n: int) -> list[str]:
    """Every table gets 山田 and the script-looking name; bigger tables the rest too."""
    return POOL[:n]


def post_deal(client, token: str, number: int | None = None, **fields):
    if number is None:
        number = len(state(client, token)["deals"]) + 1
    data = {"number": str(number)}
    data.update({k.replace("_dash_", "-"): str(v) for k, v in fields.items()})
    return client.post(f"/t/{token}/deals", data=data)


def enter(client, token: str, fields: dict, number: int | None = None) -> dict:
    """Enter a deal that must be accepted; returns the table state after it."""
    if number is None:
        number = len(state(client, token)["deals"]) + 1
    data = {"number": str(number), **{k: str(v) for k, v in fields.items()}}
    response = client.post(f"/t/{token}/deals", data=data)
    assert response.status_code == 303, _errors(response)
    assert response.headers["Location"] == f"/t/{token}#entry-wrap"  # the banner travels in the session, not the URL
    after = state(client, token)
    assert len(after["deals"]) == number
    return after


def refused(client, token: str, fields: dict, status: int = 422) -> str:
    number = len(state(client, token)["deals"]) + 1
    response = client.post(f"/t/{token}/deals", data={"number": str(number),
                                                       **{k: str(v) for k, v in fields.items()}})
    assert response.status_code == status, response.status_code
    return response.get_data(as_text=True)


def _errors(response) -> str:
    html = response.get_data(as_text=True)
    found = re.findall(r'class="field-error"[^>]*>(.*?)</p>', html)
    return f"{response.status_code}: " + " | ".join(unescape(m) for m in found) or html[:2000]


def field_errors(html: str) -> dict[str, str]:
    """{field name: message} for every field-error paragraph."""
    return {m.group(1): unescape(m.group(2)) for m in
            re.finditer(r'<p class="field-error" id="err-([^"]+)" role="alert">(.*?)</p>', html)}


def input_value(html: str, name: str) -> str | None:
    """A box's value, or the checked value of a tap row (radio inputs; "" when none is)."""
    match = re.search(r'<input[^>]*\bname="%s"[^>]*>' % re.escape(name), html)
    if not match:
        return None
    if 'type="radio"' in match.group(0):
        return checked(html, name) or ""
    value = re.search(r'\bvalue="([^"]*)"', match.group(0))
    return unescape(value.group(1)) if value else None


def checked(html: str, name: str) -> str | None:
    for tag in re.findall(r'<input[^>]*\bname="%s"[^>]*>' % re.escape(name), html):
        if re.search(r"\bchecked\b", tag):
            return unescape(re.search(r'\bvalue="([^"]*)"', tag).group(1))
    return None


def page(client, token: str) -> str:
    response = client.get(f"/t/{token}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def mirai(q0, p0, last, q1=None, p1=None) -> dict:
    fields = {"queens-0": q0, "points-0": p0, "last_trick": last}
    if q1 is not None:
        fields.update({"queens-1": q1, "points-1": p1})
    return fields


def cube(holder, number, last) -> dict:
    return {"die_holder": holder, "die_number": "" if number is None else number, "last_trick": last}


def pq(rows: list[dict], **extra) -> dict:
    fields = {}
    for seat, row in enumerate(rows):
        for key in ("7", "A", "K", "Q", "J", "other"):
            fields[f"{key}-{seat}"] = row.get(key, 0)
    fields.update(extra)
    return fields


def ts(bids: list[str], tricks: list[int], open_bid="none") -> dict:
    fields = {"open_bid": open_bid}
    for seat, (pair, count) in enumerate(zip(bids, tricks)):
        fields[f"bid1-{seat}"], fields[f"bid2-{seat}"] = pair[0], pair[1]
        fields[f"tricks-{seat}"] = count
    return fields


# --- creating tables -------------------------------------------------------------------------

GAME_COUNTS = [("rwd", 3), ("rwd", 5), ("miraiscope", 2), ("lucky_cube", 4), ("pair_quad", 4),
               ("pair_quad", 6), ("twin_shoot", 4), ("twin_shoot", 6)]


@pytest.mark.parametrize("game,n", GAME_COUNTS)
def test_create_with_unusual_names_escapes_them(client, game, n):
    names = names_for(n)
    token = create(client, game, names)
    html = page(client, token)
    assert XSS not in html and XSS_ESCAPED in html
    assert "山田" in html
    for name in names:
        assert str(__import__("markupsafe").escape(name)) in html
    assert state(client, token)["players"] == names
    host = client.get(f"/t/{token}/host").get_data(as_text=True)
    assert XSS not in host and "山田" in host
    assert XSS not in client.get(f"/t/{token}/log").get_data(as_text=True)


@pytest.mark.parametrize("game", ["rwd", "miraiscope", "lucky_cube", "pair_quad", "twin_shoot"])
def test_duplicate_names_refused_case_insensitively(client, game):
    n = {"miraiscope": 2, "pair_quad": 4, "twin_shoot": 4}.get(game, 3)
    names = ["Anna"] + ["ANNA "] + [f"P{i}" for i in range(n - 2)]
    data = {"game": game, "players": str(n), **{f"name-{i}": v for i, v in enumerate(names)}}
    response = client.post("/tables", data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    errors = field_errors(html)
    assert "already at seat 1" in errors["name-1"]
    # Everything typed comes back.
    assert input_value(html, "name-0") == "Anna"
    assert input_value(html, "name-1").strip() == "ANNA"


def test_names_refused_when_empty_or_too_long(client):
    response = client.post("/tables", data={"game": "rwd", "players": "3", "name-0": "",
                                            "name-1": LONG + "x", "name-2": "Ok"})
    assert response.status_code == 422
    errors = field_errors(response.get_data(as_text=True))
    assert "enter a name" in errors["name-0"]
    assert "at most 40" in errors["name-1"]


@pytest.mark.parametrize("game,bad", [("rwd", 2), ("rwd", 6), ("miraiscope", 3), ("lucky_cube", 6),
                                      ("pair_quad", 7), ("twin_shoot", 5)])
def test_wrong_player_count_refused(client, game, bad):
    response = client.get(f"/tables/new?game={game}&players={bad}")
    assert re.search(r"players(?: as a variant\))?, not %d\." % bad, text_of(response.get_data(as_text=True)))
    data = {"game": game, "players": str(bad), **{f"name-{i}": f"P{i}" for i in range(bad)}}
    response = client.post("/tables", data=data)
    assert response.status_code == 422
    assert re.search(r"players(?: as a variant\))?, not %d\." % bad, text_of(response.get_data(as_text=True)))
    assert client.get("/").get_data(as_text=True).count("/t/") == 0  # nothing was created


# --- RWD: first to 3 deal wins ----------------------------------------------------------------

def test_rwd_match_to_three_wins_with_shared_win_and_draw(client):
    names = names_for(3)  # 山田, <img>, 🎲
    token = create(client, "rwd", names, first_start_player=0)
    # Deal 1: 山田 and <img> tie on score 2 and on chips 5: a shared deal win.
    after = enter(client, token, rwd([5, 5, 7], [7, 7, 3]))
    assert after["deals"][0]["winners"] == names[:2]
    assert "shared_win" in after["deals"][0]["rulings"]
    # The next form asks who starts, among those two only.
    html = page(client, token)
    assert 'name="start_player"' in html
    assert re.findall(r'name="start_player" value="(\d)"', html) == ["0", "1"]
    assert 'data-ruling="start_after_tie"' in html
    # Not answering is refused, keeping the numbers typed.
    html = refused(client, token, rwd([5, 6, 6], [5, 6, 6]))
    assert "start_player" in field_errors(html)
    assert input_value(html, "chips-1") == "6" and input_value(html, "tricks-2") == "6"
    # A seat outside the choice is refused too.
    html = refused(client, token, rwd([5, 6, 6], [5, 6, 6], start_player=2))
    assert "start_player" in field_errors(html)
    # Deal 2: everyone scores 0 although chips differ: a draw.
    after = enter(client, token, rwd([5, 6, 6], [5, 6, 6], start_player=1))
    assert after["deals"][1]["points"] == [0, 0, 0]
    assert after["deals"][1]["winners"] == []
    assert "all_zero_draw" in after["deals"][1]["rulings"]
    html = page(client, token)
    assert re.findall(r'name="start_player" value="(\d)"', html) == ["0", "1", "2"]
    assert "the last deal was a draw" in text_of(html)
    # Deals 3 and 4: 山田 wins both and reaches 3 deal wins.
    enter(client, token, rwd([0, 8, 9], [5, 6, 6], start_player=2))
    html = page(client, token)
    assert 'name="start_player"' not in html
    after = enter(client, token, rwd([0, 8, 9], [5, 6, 6]))
    assert after["over"] is True and after["winners"] == ["山田"]
    html = page(client, token)
    assert "山田 wins the match!" in text_of(html)
    assert 'id="entry"' not in html
    assert "Rematch with the same seats" in html
    # No fifth deal.
    html = refused(client, token, rwd([0, 8, 9], [5, 6, 6]), status=422)
    assert "山田 wins the match with 3 deal wins." in text_of(html)
    # The final deal sent again as it was recorded (a double tap): saved once, said so.
    response = client.post(f"/t/{token}/deals", data={"number": "4", **{k: str(v) for k, v in
                                                       rwd([0, 8, 9], [5, 6, 6]).items()}})
    assert response.status_code == 303 and len(state(client, token)["deals"]) == 4
    # Two phones entering the final deal at once, with other numbers: the loser is told,
    # though no form remains.
    response = client.post(f"/t/{token}/deals", data={"number": "4", **{k: str(v) for k, v in
                                                       rwd([1, 8, 8], [5, 6, 6]).items()}})
    assert response.status_code == 409
    assert "already entered from another phone" in text_of(response.get_data(as_text=True))
    assert len(state(client, token)["deals"]) == 4


def test_rwd_refused_entry_keeps_everything_and_marks_the_field(client):
    token = create(client, "rwd", names_for(3))
    html = refused(client, token, rwd([5, 5, 99], [7, 7, 4]))
    errors = field_errors(html)
    assert "chips-2" in errors and "0 to 17" in errors["chips-2"]
    assert 'aria-invalid="true" aria-describedby="err-chips-2"' in html
    assert input_value(html, "chips-2") == "99"
    assert [input_value(html, f"tricks-{i}") for i in range(3)] == ["7", "7", "4"]
    # A column that doesn't add up: the message sits under the column.
    html = refused(client, token, rwd([5, 5, 5], [7, 7, 3]))
    assert "add up to 17" in field_errors(html)["chips"]
    assert [input_value(html, f"chips-{i}") for i in range(3)] == ["5", "5", "5"]
    # Not a number at all.
    html = refused(client, token, rwd(["five", 5, 7], [7, 7, 3]))
    assert "not a whole number" in field_errors(html)["chips-0"]
    assert input_value(html, "chips-0") == "five"
    assert state(client, token)["deals"] == []


# --- Miraiscope: to 60, a tie, one more deal or accept it -------------------------------------

def test_miraiscope_tie_then_one_more_deal_or_accept(client):
    names = ["山田", XSS]
    token = create(client, "miraiscope", names, first_dealer=0)
    # The second player left blank: worked out from the first.
    after = enter(client, token, mirai(2, 10, 0))
    assert after["deals"][0]["facts"] == {"queens": [2, 2], "points": [10, 10], "last_trick": 0}
    assert after["deals"][0]["points"] == [19, 16]
    enter(client, token, mirai(2, 10, 1, 2, 10))
    enter(client, token, mirai(2, 10, 0))
    after = enter(client, token, mirai(2, 10, 1))
    assert [t["total"] for t in after["totals"]] == [70, 70]
    assert after["over"] is True and "tie_at_end" in after["rulings"]
    html = page(client, token)
    assert "Accept the tie" in html
    assert "Play one more deal" in text_of(html)
    assert 'id="entry"' in html and "Enter deal 5" in html  # one more deal may be entered
    # One more deal breaks the tie.
    after = enter(client, token, mirai(3, 10, 0))
    assert after["winners"] == ["山田"] and after["totals"][0] == {"name": "山田", "total": 70 + 22}
    assert "山田 wins the match!" in text_of(page(client, token))
    assert 'id="entry"' not in page(client, token)
    # Undo it, and accept the tie instead.
    assert client.post(f"/t/{token}/undo", data={"number": "5"}).status_code == 303
    assert client.post(f"/t/{token}/finish", data={"finished": "1"}).status_code == 303
    after = state(client, token)
    assert after["finished"] is True and after["over"] is True
    assert after["winners"] == names
    html = page(client, token)
    assert "Shared win" in text_of(html) and 'id="entry"' not in html


def test_miraiscope_refusals_name_the_field(client):
    token = create(client, "miraiscope", names_for(2))
    html = refused(client, token, mirai(2, 10, 0, 1, 10))
    assert "add up to 4" in field_errors(html)["queens"]
    assert input_value(html, "queens-1") == "1"
    html = refused(client, token, {"queens-0": 2, "points-0": 10})
    assert "last_trick" in field_errors(html)


# --- Lucky Cube: chips move; ends at 30, at 0 (payment cap) or after N x 3 deals -------------

def test_lucky_cube_payment_cap_ends_the_match(client):
    names = names_for(3)
    token = create(client, "lucky_cube", names, first_dealer=0)
    # Deal 1: 🎲 (seat 2) wins the last trick and pays 6 to 山田 who holds the die.
    after = enter(client, token, cube(0, 6, 2))
    assert [t["total"] for t in after["totals"]] == [21, 15, 9]
    after = enter(client, token, cube(0, 6, 2))
    assert [t["total"] for t in after["totals"]] == [27, 15, 3]
    # Deal 3: 🎲 owes 5 but has only 3: hands over 3 and is out of chips.
    after = enter(client, token, cube(1, 5, 2))
    assert [t["total"] for t in after["totals"]] == [27, 18, 0]
    assert "payment_cap" in after["deals"][2]["rulings"]
    assert after["over"] is True and after["winners"] == ["山田"]
    assert "payment_cap" in after["rulings"]
    html = page(client, token)
    assert 'data-ruling="payment_cap"' in html
    assert "lost all their chips" in text_of(html)
    assert 'id="entry"' not in html


def test_lucky_cube_thirty_and_tracker_and_refusals(client):
    names = names_for(4)
    token = create(client, "lucky_cube", names, first_dealer=0)
    # The die holder can't have won the last trick; typed values stay.
    html = refused(client, token, cube(2, 4, 2))
    assert "last_trick" in field_errors(html)
    assert checked(html, "die_holder") == "2" and checked(html, "die_number") == "4"
    # Tap-each-trick mode, deal 1: 🎲... seat 1 (opener) leads trick 1 and loses it to seat 0.
    tricks = {f"trick-{k}": w for k, w in enumerate([0, 0, 0, 0, 0, 3], start=1)}
    after = enter(client, token, tricks)
    # Seat 1 took the die at 1 on trick 1; seat 0 led trick 6 and lost it: holds 6, 3 pays.
    assert after["deals"][0]["points"] == [6, 0, 0, -6]
    enter(client, token, cube(0, 6, 1))
    after = enter(client, token, cube(0, 3, 3))
    assert [t["total"] for t in after["totals"]] == [30, 9, 15, 6]
    assert after["over"] and after["winners"] == ["山田"]
    assert "thirty_held" in after["rulings"]


def test_lucky_cube_ends_after_n_times_three_deals(client):
    token = create(client, "lucky_cube", names_for(3), first_dealer=0)
    for k in range(1, 10):  # nobody takes the die: the opening leader wins all six
        after = enter(client, token, cube("none", None, k % 3))
        assert after["over"] is (k == 9)
    assert after["winners"] == names_for(3)  # all on 15: a shared win
    assert "All 9 deals have been played" in text_of(page(client, token))


# --- Pair & Quad: fixed number of deals, or open-ended with "finish" --------------------------

TIED = [{"7": 4, "other": 4}, {"A": 4, "other": 4}, {"K": 4, "Q": 4, "J": 4}, {"other": 24}]
CLEAR = [{"7": 4}, {"A": 4}, {"K": 4, "Q": 4, "J": 4}, {"other": 32}]


def test_pair_quad_fixed_deals_with_tied_top(client):
    names = names_for(4)
    token = create(client, "pair_quad", names, first_dealer=0, deals=2)
    after = enter(client, token, pq(TIED))
    assert after["deals"][0]["points"] == [24, 20, 24, 24]
    html = page(client, token)
    assert re.findall(r'name="dealer" value="(\d)"', html) == ["0", "2", "3"]
    html = refused(client, token, pq(CLEAR))
    assert "dealer" in field_errors(html)
    assert input_value(html, "other-3") == "32"
    after = enter(client, token, pq(CLEAR, dealer=3))
    assert after["over"] is True
    assert [t["total"] for t in after["totals"]] == [44, 36, 48, 56]
    assert after["winners"] == [names[3]]
    assert 'id="entry"' not in page(client, token)


def test_pair_quad_open_ended_finish(client):
    names = names_for(4)
    token = create(client, "pair_quad", names, first_dealer=1, deals=0)
    # 24 counts, most of them 0: a fresh form starts empty (never "0"); a blank count is none
    # and the last player's are worked out ("auto").
    assert input_value(page(client, token), "J-0") == ""
    assert input_value(page(client, token), "J-3") == ""
    assert "Finish match" not in page(client, token)  # nothing to finish yet
    enter(client, token, pq(CLEAR))
    enter(client, token, pq(CLEAR))
    html = page(client, token)
    assert "Finish match" in html and 'id="entry"' in html
    assert client.post(f"/t/{token}/finish", data={"finished": "1"}).status_code == 303
    after = state(client, token)
    assert after["over"] and after["winners"] == [names[3]]
    html = page(client, token)
    assert 'id="entry"' not in html and "Reopen the match" in html
    # A card count that is not a multiple of 4 is refused next to that player's "other".
    token = create(client, "pair_quad", names, deals=0)
    rows = [{"7": 4, "other": 1}, {"A": 4, "other": 3}, {"K": 4, "Q": 4, "J": 4}, {"other": 28}]
    html = refused(client, token, pq(rows))
    assert "not a multiple of 4" in field_errors(html)["other-0"]


# --- Twin Shoot: to 100, open bids only for a team alone in last place ------------------------

def test_twin_shoot_match_with_open_bids(client):
    names = names_for(4)
    teams = [f"{names[0]} & {names[1]}", f"{names[2]} & {names[3]}"]
    token = create(client, "twin_shoot", names, first_team=0)
    html = page(client, token)
    assert 'name="open_bid" value="0"' not in html and 'name="open_bid" value="1"' not in html
    assert "nobody can this deal" in text_of(html)
    # No open bid on the first deal, whatever is posted.
    html = refused(client, token, ts(["CD", "CD", "DD", "DD"], [3, 3, 2, 2], open_bid=0))
    assert "first deal" in field_errors(html)["open_bid"]
    assert checked(html, "bid1-0") == "C" and input_value(html, "tricks-3") == "2"
    # Deal 1: team 1 both hit their bids of 3: 6 + 10 + 10 + Twin Shoot 10.
    after = enter(client, token, ts(["CD", "CD", "DD", "DD"], [3, 3, 2, 2]))
    assert after["deals"][0]["points"] == [36, 4]
    # Deal 2: only team 2 (alone in last place) is offered the open bid.
    html = page(client, token)
    assert 'name="open_bid" value="1"' in html and 'name="open_bid" value="0"' not in html
    html = refused(client, token, ts(["LD", "LD", "DD", "DD"], [5, 5, 0, 0], open_bid=0))
    assert "only a team alone in last place" in field_errors(html)["open_bid"]
    after = enter(client, token, ts(["DD", "DD", "LD", "LD"], [0, 0, 5, 5], open_bid=1))
    assert after["deals"][1]["points"] == [30, 70]  # Overhead Twin Shoot +30
    assert [t["total"] for t in after["totals"]] == [66, 74]
    # Deal 3: now team 1 is last; its open bid fails: team 2 scores 30 more and passes 100.
    html = page(client, token)
    assert 'name="open_bid" value="0"' in html and 'name="open_bid" value="1"' not in html
    after = enter(client, token, ts(["LD", "LD", "DD", "DD"], [3, 3, 2, 2], open_bid=0))
    assert after["deals"][2]["points"] == [6, 34]
    assert after["over"] and after["winners"] == [teams[1]]
    html = page(client, token)
    # A team is two people: "… win the match!", never "wins".
    assert " win the match!" in text_of(html) and "wins the match!" not in text_of(html)
    assert 'id="entry"' not in html
    assert XSS not in html


def test_twin_shoot_tricks_must_add_to_ten(client):
    token = create(client, "twin_shoot", names_for(6))
    fields = ts(["CD"] * 6, [2, 2, 2, 2, 2, 1])
    html = refused(client, token, fields)
    assert "add up to 10" in field_errors(html)["tricks"]
    assert input_value(html, "tricks-5") == "1"


# --- corrections, undo, log ------------------------------------------------------------------

def edit_form(client, token, number) -> tuple[str, str]:
    response = client.get(f"/t/{token}/deals/{number}/edit")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    return html, re.search(r'name="was" value="([0-9a-f]+)"', html).group(1)


def test_edit_recomputes_later_totals_and_log(client):
    token = create(client, "miraiscope", ["山田", "Bo"], first_dealer=0)
    enter(client, token, mirai(2, 10, 0))
    enter(client, token, mirai(1, 5, 0))
    assert [t["total"] for t in state(client, token)["totals"]] == [19 + 11, 16 + 24]
    html, was = edit_form(client, token, 1)
    assert input_value(html, "queens-0") == "2" and checked(html, "last_trick") == "0"
    response = client.post(f"/t/{token}/deals/1", data={**{k: str(v) for k, v in
                                                           mirai(4, 20, 0, 0, 0).items()}, "was": was})
    assert response.status_code == 303
    after = state(client, token)
    assert after["deals"][0]["points"] == [35, 0]
    assert after["deals"][1]["totals"] == [35 + 11, 24]
    assert [t["total"] for t in after["totals"]] == [46, 24]
    # A second edit from a stale form (the old fingerprint) is refused, not applied.
    response = client.post(f"/t/{token}/deals/1", data={**{k: str(v) for k, v in
                                                           mirai(0, 0, 1, 4, 20).items()}, "was": was})
    assert response.status_code == 409
    assert "changed from another phone" in text_of(response.get_data(as_text=True))
    # A refused correction keeps what was typed.
    html, was = edit_form(client, token, 2)
    response = client.post(f"/t/{token}/deals/2", data={"queens-0": "9", "points-0": "5",
                                                        "queens-1": "3", "points-1": "15",
                                                        "last_trick": "0", "was": was})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "queens-0" in field_errors(html) and input_value(html, "queens-0") == "9"
    # Undo, and a second undo of the same deal.
    assert client.post(f"/t/{token}/undo", data={"number": "2"}).status_code == 303
    response = client.post(f"/t/{token}/undo", data={"number": "2"})
    assert response.status_code == 409
    assert "Nothing was undone" in text_of(response.get_data(as_text=True))
    assert len(state(client, token)["deals"]) == 1
    log = text_of(client.get(f"/t/{token}/log").get_data(as_text=True))
    for entry in ("Deal 1 entered", "Deal 2 entered", "Deal 1 corrected", "Deal 2 undone", "Table opened"):
        assert entry in log
    assert log.index("Deal 2 undone") < log.index("Deal 1 corrected") < log.index("Deal 2 entered")


def test_edit_that_closes_a_later_choice_flows(client):
    # Issue 11: was refused "deal 2 would no longer be valid… undo the later deals first".
    token = create(client, "rwd", ["山田", "Bo", "Cy"], first_start_player=0)
    enter(client, token, rwd([5, 5, 7], [7, 7, 3]))  # shared: deal 2 records a chosen start player
    enter(client, token, rwd([0, 8, 9], [5, 6, 6], start_player=1))
    html, was = edit_form(client, token, 1)
    assert checked(html, "start_player") is None and input_value(html, "chips-0") == "5"
    # 山田 alone wins deal 1: deal 2's choice of start player no longer exists, so its answer goes.
    response = client.post(f"/t/{token}/deals/1", data={**{k: str(v) for k, v in
                                                           rwd([4, 5, 8], [7, 7, 3]).items()}, "was": was})
    assert response.status_code == 303
    after = state(client, token)
    assert "start_player" not in json.dumps(after["deals"][1])


def test_edit_that_opens_a_later_choice_asks_for_it_on_the_correction_page(client):
    token = create(client, "rwd", ["山田", "Bo", "Cy"], first_start_player=0)
    enter(client, token, rwd([4, 5, 8], [7, 7, 3]))  # 山田 alone
    enter(client, token, rwd([4, 5, 8], [7, 7, 3]))
    before = state(client, token)
    html, was = edit_form(client, token, 1)
    shared = {k: str(v) for k, v in rwd([5, 5, 7], [7, 7, 3]).items()}
    response = client.post(f"/t/{token}/deals/1", data={**shared, "was": was})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'name="later-2"' in html  # the page asks deal 2's start player again
    assert "later deal" in text_of(html)
    assert state(client, token) == before
    response = client.post(f"/t/{token}/deals/1", data={**shared, "was": was, "later-2": "1"})
    assert response.status_code == 303, text_of(response.get_data(as_text=True))
    assert '"start_player": 1' in json.dumps(state(client, token)["deals"][1])


def test_edit_and_undo_of_missing_deals(client):
    token = create(client, "rwd", names_for(3))
    assert client.get(f"/t/{token}/deals/1/edit").status_code == 404
    response = client.post(f"/t/{token}/undo", data={"number": "1"})
    assert response.status_code == 409


# --- export, host, live ----------------------------------------------------------------------

def test_exports(client):
    names = names_for(3)
    token = create(client, "rwd", names)
    enter(client, token, rwd([0, 8, 9], [5, 6, 6]))
    response = client.get(f"/t/{token}/export.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    raw = response.get_data()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert len(rows) == 1
    assert rows[0]["Deal"] == "1"
    assert rows[0]["Total: 山田"] == "5" and rows[0][f"Total: {XSS}"] == "-2"
    assert rows[0]["Chips: 🎲 Dice"] == "9"
    doc = json.loads(client.get(f"/t/{token}/export.json").get_data(as_text=True))
    assert doc["game"] == "rwd" and doc["players"] == names
    assert doc["deals"][0]["facts"] == {"chips": [0, 8, 9], "tricks": [5, 6, 6]}
    assert doc["deals"][0]["points"] == [5, -2, -3]
    assert doc["deals"][0]["winners"] == ["山田"]
    assert doc["totals"] == [{"name": "山田", "total": 5}, {"name": XSS, "total": -2}, {"name": "🎲 Dice", "total": -3}]


def test_host_page_and_live_poll(client):
    token = create(client, "twin_shoot", names_for(4))
    response = client.get(f"/t/{token}/host")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "host-board" in html and "view=host" in html and XSS not in html
    rev = int(re.search(r'data-rev="(\d+)"', page(client, token)).group(1))
    assert client.get(f"/t/{token}/live?rev={rev}").status_code == 204
    enter(client, token, ts(["CD", "CD", "DD", "DD"], [3, 3, 2, 2]))
    assert "after 1 deal<" in client.get(f"/t/{token}/host").get_data(as_text=True)
    response = client.get(f"/t/{token}/live?rev={rev}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="live"')
    assert f'data-rev="{rev + 1}"' in html and "<html" not in html
    assert response.headers["Cache-Control"] == "no-store"
    assert client.get(f"/t/{token}/live?rev={rev + 1}").status_code == 204
    # A phone whose form is for a deal that is now entered is told so.
    html = client.get(f"/t/{token}/live?rev={rev}&form=1").get_data(as_text=True)
    assert "Deal 1 was just entered from another phone" in text_of(html)
    host = client.get(f"/t/{token}/live?rev={rev}&view=host").get_data(as_text=True)
    assert "host-board" in host


def test_home_lists_tables_only_to_the_laptop_and_unknown_tokens_404(client):
    token = create(client, "rwd", names_for(3))
    assert token in client.get("/").get_data(as_text=True)
    phone = client.get("/", environ_base={"REMOTE_ADDR": "192.168.1.50"})
    assert phone.status_code == 200
    assert token not in phone.get_data(as_text=True) and "/t/" not in phone.get_data(as_text=True)
    wrong = token[:-1] + ("A" if token[-1] != "A" else "B")
    for path in (f"/t/{wrong}", f"/t/{wrong}/host", f"/t/{wrong}/live?rev=0", f"/t/{wrong}/log",
                 f"/t/{wrong}/export.csv", "/t/short", "/t/../etc", f"/t/{token}x!/live"):
        assert client.get(path).status_code == 404, path
    assert client.post(f"/t/{wrong}/deals", data={"number": "1"}).status_code == 404


# --- CSRF and the no-JavaScript path ---------------------------------------------------------

def test_csrf_refuses_a_post_without_token(csrf_client):
    response = csrf_client.post("/tables", data={"game": "rwd", "players": "3", "name-0": "A",
                                                 "name-1": "B", "name-2": "C"})
    assert response.status_code == 400
    assert "security check failed" in text_of(response.get_data(as_text=True))


def test_no_javascript_path_creates_a_table_and_enters_a_deal(csrf_client):
    html = csrf_client.get("/tables/new?game=rwd&players=3").get_data(as_text=True)
    data = {"csrf_token": csrf_of(html), "game": "rwd", "players": "3",
            "name-0": "山田", "name-1": XSS, "name-2": "🎲"}
    response = csrf_client.post("/tables", data=data, follow_redirects=False)
    assert response.status_code == 303
    table_path = response.headers["Location"]
    html = csrf_client.get(table_path).get_data(as_text=True)
    assert "Enter deal 1" in html and XSS_ESCAPED in html
    form = re.search(r'<form id="entry".*?</form>', html, re.S).group(0)
    action = re.search(r'action="([^"]+)"', form).group(1)
    data = {"csrf_token": csrf_of(form), "number": "1", **{k: str(v) for k, v in
                                                           rwd([0, 8, 9], [5, 6, 6]).items()}}
    response = csrf_client.post(action, data=data, follow_redirects=True)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Deal 1 saved." in html and "Enter deal 2" in html
    assert re.search(r'<td class="num total">5</td>', html)
    # A refused deal without JavaScript: the whole page comes back with the message.
    data = {"csrf_token": csrf_of(html), "number": "2", **{k: str(v) for k, v in
                                                           rwd([0, 8, 8], [5, 6, 6]).items()}}
    response = csrf_client.post(action, data=data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "add up to 17" in field_errors(html)["chips"] and input_value(html, "chips-2") == "8"


def test_htmx_entry_answers_with_form_and_sheet_and_conflicts(client):
    token = create(client, "rwd", names_for(3))
    hx = {"HX-Request": "true"}
    data = {"number": "1", **{k: str(v) for k, v in rwd([0, 8, 9], [5, 6, 6]).items()}}
    response = client.post(f"/t/{token}/deals", data=data, headers=hx)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<html" not in html and "Enter deal 2" in html
    assert '<hx-partial hx-target="#live"' in html and 'id="live"' in html
    # The same deal again (a double tap): answered as saved, not doubled.
    response = client.post(f"/t/{token}/deals", data=data, headers=hx)
    assert response.status_code == 200 and "Deal 1 saved." in text_of(response.get_data(as_text=True))
    assert len(state(client, token)["deals"]) == 1
    # Other numbers for the same deal (a second phone that had the same form): refused, not doubled;
    # the recorded deal is shown beside this phone's, and the next form starts empty.
    other = {"number": "1", **{k: str(v) for k, v in rwd([1, 8, 8], [5, 6, 6]).items()}}
    response = client.post(f"/t/{token}/deals", data=other, headers=hx)
    assert response.status_code == 409
    html = response.get_data(as_text=True)
    assert "already entered from another phone" in text_of(html)
    assert 'data-taken="1"' in html and "Enter deal 2" in html
    assert input_value(html, "chips-2") in (None, "")  # the rejected numbers are not offered again
    assert len(state(client, token)["deals"]) == 1
    # A refused entry over htmx: the form with the messages, values kept.
    data = {"number": "2", **{k: str(v) for k, v in rwd([0, 8, 8], [5, 6, 6]).items()}}
    response = client.post(f"/t/{token}/deals", data=data, headers=hx)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "add up to 17" in field_errors(html)["chips"] and input_value(html, "chips-2") == "8"
    # The as-you-type check.
    response = client.post(f"/t/{token}/preview", data=data, headers=hx)
    assert response.status_code == 200 and "add up to 17" in text_of(response.get_data(as_text=True))
    data["chips-2"] = "9"
    response = client.post(f"/t/{token}/preview", data=data, headers=hx)
    assert "Looks right" in response.get_data(as_text=True)
