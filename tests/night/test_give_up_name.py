"""A phone that changes its name gives up the old one (issue 44, item 2: a ghost player). "Not
Dea? Change the name on this phone" then joining as "Dee" left "Dea" on tonight's list, seated in
the next draw. Now a name the phone typed that never sat at a table leaves the list; one that sat,
or that the organiser added, stays, no phone's, and the first phone that asks for it gets it."""

from __future__ import annotations

from companion.night import service as night
from companion.store import connect


def phone(app, n: int):
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": f"192.168.1.{n}"})
    return client


def names(app) -> list[str]:
    conn = connect(app.config["DATABASE"])
    try:
        return [p.name for p in night.roster(conn, with_left=True)]
    finally:
        conn.close()


def test_a_typo_given_up_leaves_the_list_and_is_never_seated(app, client):
    dee = phone(app, 50)
    assert dee.post("/night/join", data={"name": "Dea"}).status_code == 303
    assert dee.post("/night/forget").status_code == 303  # "Not Dea? Change the name on this phone"
    assert dee.post("/night/join", data={"name": "Dee"}).headers["Location"].endswith("/night/me")
    assert names(app) == ["Dee"]
    for n, name in enumerate(["Ann", "Bob", "Cy"], start=51):
        phone(app, n).post("/night/join", data={"name": name})
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "1"}).status_code == 303
    conn = connect(app.config["DATABASE"])
    try:
        seated = {name for rt in night.night_rounds(conn)[-1].tables for name in rt.table.setup.players}
    finally:
        conn.close()
    assert seated == {"Ann", "Bob", "Cy", "Dee"}
    # The name can be typed again by anyone, as if it had never been.
    assert phone(app, 60).post("/night/join", data={"name": "Dea"}).headers["Location"].endswith("/night/me")


def test_a_name_that_sat_or_that_the_organiser_added_stays_for_its_player(app, client):
    client.post("/hall/players", data={"name": "Bob"})  # the organiser's
    ann, bob = phone(app, 70), phone(app, 71)
    ann.post("/night/join", data={"name": "Ann"})
    bob.get("/night")
    conn = connect(app.config["DATABASE"])
    try:
        bob_id = next(p.id for p in night.roster(conn) if p.name == "Bob")
    finally:
        conn.close()
    bob.post("/night/join", data={"player": str(bob_id)})
    for n, name in enumerate(["Cy", "Di"], start=72):
        phone(app, n).post("/night/join", data={"name": name})
    assert client.post("/hall/rounds", data={"draw": "1", "tables-rwd": "1"}).status_code == 303
    ann.post("/night/forget")  # Ann sat at a table: her name stays
    bob.post("/night/forget")  # the organiser added Bob: his name stays
    assert sorted(names(app)) == ["Ann", "Bob", "Cy", "Di"]
    # No phone's now: Ann's new phone gets her name at once, with no request for the organiser.
    again = phone(app, 80).post("/night/join", data={"name": "Ann"})
    assert again.headers["Location"].endswith("/night/me")
    assert "asks to be" not in client.get("/hall").get_data(as_text=True)
