"""The screen for the room (companion/night/projector.py): what it shows follows the night
(join code, seating, play, leaderboard), only the latest round's tables, the night service's
own figures, no organiser control, the laptop only, and 204 while nothing changed."""

from __future__ import annotations

import re

from companion.night import projector, service as night

from .screen_night import NAMES, draw, join_everyone, play, played_round
import table_writes
from table_writes import done

PHONE_ON_WIFI = {"REMOTE_ADDR": "192.168.1.23"}


def state_of(conn) -> str:
    return projector.screen_context(conn)["state"]


def test_the_screen_follows_the_night(conn):
    assert state_of(conn) == projector.WELCOME  # nobody drawn, nothing finished: how to join
    join_everyone(conn)
    assert state_of(conn) == projector.WELCOME
    drawn = draw(conn)
    assert state_of(conn) == projector.SEATING  # drawn, no deal yet: who sits where
    play(conn, drawn.tables[0])
    assert state_of(conn) == projector.PLAYING  # one table has a result, the others play
    for rt in drawn.tables[1:]:
        play(conn, rt)
    assert state_of(conn) == projector.LEADERBOARD  # the round is over
    draw(conn)
    assert state_of(conn) == projector.SEATING


def test_a_night_without_rounds_shows_its_leaderboard_once_a_table_finishes(conn):
    token = table_writes.create(conn, "rwd", ["Ann", "Bo", "Cy", "Di"], {"length": 1}, numbered=True)
    for name in ("Ann", "Bo", "Cy", "Di"):
        done(night.join(conn, name))
    assert state_of(conn) == projector.WELCOME
    table_writes.add_deal(conn, token, 1, {"chips": [4, 3, 3, 3], "tricks": [2, 3, 3, 5]})
    assert state_of(conn) == projector.LEADERBOARD


def test_seating_is_the_latest_rounds_by_name_in_seat_order(conn):
    join_everyone(conn)
    played_round(conn)
    second = draw(conn)
    context = projector.screen_context(conn)
    names = {p.id: p.name for p in night.roster(conn)}
    assert [t["label"] for t in context["seating"]] == [f"Table {n}" for n in range(7, 13)]
    assert [t["players"] for t in context["seating"]] == [[names[p] for p in rt.player_ids] for rt in second.tables]
    assert sorted(name for t in context["seating"] for name in t["players"]) == sorted(NAMES)


def test_play_shows_only_the_latest_rounds_tables_with_their_deal_and_leaders(conn):
    join_everyone(conn)
    first = played_round(conn)
    second = draw(conn, minutes=30)
    done(night.start_clock(conn, 30))
    play(conn, second.tables[2], winner=1)
    context = projector.screen_context(conn)
    rows = context["rows"]
    assert [row["table"].id for row in rows] == [rt.table.id for rt in second.tables]
    assert not {row["table"].id for row in rows} & {rt.table.id for rt in first.tables}
    finished = rows[2]
    assert finished["match"].over and finished["deal"] is None
    assert [finished["match"].entrants[e] for e in finished["leaders"]] == [second.tables[2].table.setup.players[1]]
    assert all(row["deal"] == 1 and not row["leaders"] for i, row in enumerate(rows) if i != 2)
    assert 0 < context["clock"]["seconds"] <= 30 * 60


def test_the_leaderboard_is_the_night_services_own(conn):
    join_everyone(conn)
    played_round(conn)
    played_round(conn)
    standings = projector.screen_context(conn)["standings"]
    assert standings == night.leaderboard(night.night_results(conn))
    assert len(standings) == 24 and all(s.tables == 2 for s in standings)


def test_the_page_has_no_organiser_control_and_links_nothing_away(client, conn):
    join_everyone(conn)
    for setup in (lambda: None, lambda: draw(conn), lambda: play(conn, night.night_rounds(conn)[-1].tables[0]),
                  lambda: [play(conn, rt) for rt in night.night_rounds(conn)[-1].tables[1:]]):
        setup()
        page = client.get("/hall/screen").get_data(as_text=True)
        assert not re.search(r"<(form|button|input|select|textarea)\b", page)
        assert "/t/" not in page  # no table's link on a screen the whole room reads
        assert 'href="' not in page.split("<body", 1)[1]


def test_the_hall_links_the_screen(client):
    assert 'href="/hall/screen"' in client.get("/hall").get_data(as_text=True)


def test_only_the_laptop_opens_the_screen(client):
    assert client.get("/hall/screen", environ_base=PHONE_ON_WIFI).status_code == 403
    assert client.get("/hall/screen/live", environ_base=PHONE_ON_WIFI).status_code == 403


def test_the_live_part_is_204_until_the_night_changes(client, conn):
    join_everyone(conn)
    drawn = draw(conn)
    page = client.get("/hall/screen").get_data(as_text=True)
    live = re.search(r'hx-get="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert client.get(live).status_code == 204
    play(conn, drawn.tables[0])
    changed = client.get(live)
    assert changed.status_code == 200 and "Deal 1" in changed.get_data(as_text=True)


def test_a_leader_follows_the_colon_as_each_language_writes_it(client, conn):
    """The room's screen and the hall read "首位： Gus" in Japanese (a space after the full-width
    colon, which carries its own; a new organiser's night, issue 33): none there, one in English."""
    join_everyone(conn)
    drawn = draw(conn)
    play(conn, drawn.tables[0])
    for path in ("/hall/screen", "/hall"):
        ja = client.get(path, headers={"Accept-Language": "ja"}).get_data(as_text=True)
        en = client.get(path, headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert re.search(r"勝者：<bdi>", ja), path
        assert re.search(r"Winner: <bdi>", en), path
