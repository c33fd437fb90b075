"""Late, leaving, back (issue 44): a player says from their phone "Sit out round N" or "I'm
leaving after this match" (the organiser can from the hall too); the next draw follows it, a
player sitting out is drawn again the round after, a leaver leaves tonight's list at the next
draw with their results kept, and "I'm playing on" takes it back."""

from __future__ import annotations

from companion.night import service as night
from helpers import join_night, text_of

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]


def seated(conn) -> set[str]:
    names = {p.id: p.name for p in night.roster(conn, with_left=True)}
    return {names[pid] for rt in night.night_rounds(conn)[-1].tables for pid in rt.player_ids}


def draw(client, tables: int = 2) -> None:
    assert client.post("/hall/rounds", data={"tables-rwd": str(tables)}).status_code == 303


def test_a_player_sits_out_one_round_from_their_phone(app, client, conn):
    phones = join_night(app, EIGHT + ["Ivy"])
    draw(client)
    page = text_of(phones["Ivy"].get("/night/me").get_data(as_text=True))
    assert "Sit out round 2" in page and "I'm leaving after this match" in page
    assert phones["Ivy"].post("/night/me/away", data={"away": "sit_out"}).status_code == 303
    assert "You sit out round 2." in text_of(phones["Ivy"].get("/night/me").get_data(as_text=True))
    assert "sits out round 2" in text_of(client.get("/hall").get_data(as_text=True))
    draw(client)
    assert "Ivy" not in seated(conn) and len(seated(conn)) == 8
    draw(client)  # round 3: drawn again
    assert "Ivy" in seated(conn)


def test_a_leaver_leaves_at_the_next_draw_and_keeps_their_results(app, client, conn):
    phones = join_night(app, EIGHT)
    draw(client)
    assert phones["Hal"].post("/night/me/away", data={"away": "leaving"}).status_code == 303
    assert "You are leaving after this match." in text_of(phones["Hal"].get("/night/me").get_data(as_text=True))
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "leaving after this match" in hall
    draw(client, tables=2)  # the seven others: 4 + 3
    assert "Hal" not in seated(conn)
    assert [p.name for p in night.roster(conn, with_left=True) if p.left] == ["Hal"]
    # Changed their mind: put back on the list by the organiser, they play again.
    hal = next(p for p in night.roster(conn, with_left=True) if p.name == "Hal")
    assert client.post(f"/hall/players/{hal.id}", data={"action": "back"}).status_code == 303
    assert not night.player(conn, hal.id).leaving


def test_a_leavers_phone_keeps_their_night_and_can_come_back(app, client, conn):
    """Found by the 16-player night: once the draw took a leaver off tonight's list, their phone
    lost My night (/night/me/summary answered 303 to /night) while the leaderboard kept their
    line. A name the organiser removed is still no longer the phone's."""
    phones = join_night(app, EIGHT)
    draw(client)
    assert phones["Hal"].post("/night/me/away", data={"away": "leaving"}).status_code == 303
    draw(client, tables=2)
    assert "Hal" not in seated(conn)
    summary = phones["Hal"].get("/night/me/summary")
    assert summary.status_code == 200 and "Hal" in text_of(summary.get_data(as_text=True))
    page = text_of(phones["Hal"].get("/night/me").get_data(as_text=True))
    assert "You left tonight's list after your match." in page
    assert phones["Hal"].post("/night/me/away", data={"away": ""}).status_code == 303  # "I'm back"
    assert not night.player(conn, next(p.id for p in night.roster(conn, with_left=True) if p.name == "Hal")).left
    draw(client, tables=2)
    assert "Hal" in seated(conn)
    # The organiser removes Gus: his phone is no longer Gus's.
    gus = next(p for p in night.roster(conn) if p.name == "Gus")
    assert client.post(f"/hall/players/{gus.id}", data={"action": "remove"}).status_code == 303
    assert phones["Gus"].get("/night/me/summary").status_code == 303


def test_the_organiser_says_it_from_the_hall_and_takes_it_back(app, client, conn):
    join_night(app, EIGHT)
    bo = next(p for p in night.roster(conn) if p.name == "Bo")
    assert client.post(f"/hall/players/{bo.id}", data={"action": "sit_out"}).status_code == 303
    assert night.player(conn, bo.id).sit_out_round == 1
    assert client.post(f"/hall/players/{bo.id}", data={"action": "stay"}).status_code == 303
    assert night.player(conn, bo.id).sit_out_round is None
    assert client.post(f"/hall/players/{bo.id}", data={"action": "sit_out"}).status_code == 303
    draw(client, tables=2)  # seven: 4 + 3
    assert "Bo" not in seated(conn)
