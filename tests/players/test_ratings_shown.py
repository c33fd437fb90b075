"""Who sees the ratings is the organiser's choice (issue 43): by default only the laptop; every
page and file a phone can open then shows no rating at all. Chosen "everyone" on /players, the
phones see them too. (Before: any phone saw its rating on its season page and could open
/season?ratings=1.)"""

from __future__ import annotations

import re

from companion.night import service as night
from companion.players import service as players
import table_writes
from table_writes import done

PHONE = {"REMOTE_ADDR": "192.168.1.23"}
RATING = re.compile(r"\brating|レーティング", re.I)


def a_finished_match(conn) -> str:
    token = table_writes.finished_match(conn, ["Ann", "Bo", "Cy", "Di"])
    players.refresh(conn)
    return token


def phone_pages(client, conn, token: str) -> dict[str, str]:
    """Every page and file about the season a phone can open, as that phone."""
    ann = players.player_of_name(conn, "Ann")
    paths = ["/season", "/season?ratings=1", "/season.json", "/season.json?ratings=1", "/season.csv?ratings=1",
             f"/players/{ann.id}", f"/players/{ann.id}?live=1&rev=0", f"/players/{ann.id}/history.json",
             f"/players/{ann.id}/history.csv", f"/t/{token}", "/night/me", "/players/me"]
    found = {}
    for path in paths:
        answer = client.get(path, environ_base=PHONE)
        while answer.status_code in (302, 303):  # followed as the phone (follow_redirects forgets its address)
            answer = client.get(answer.headers["Location"], environ_base=PHONE)
        assert answer.status_code == 200, (path, answer.status_code)
        found[path] = re.sub(r"ratings(=|%3D)1", "", answer.get_data(as_text=True))  # the choice kept in links
    return found


def test_by_default_no_page_or_file_a_phone_opens_shows_a_rating(app, client, conn):
    token = a_finished_match(conn)
    done(night.join(conn, "Ann"))
    client.post("/night/join", data={"name": "Ann"}, environ_base=PHONE)  # this phone is Ann tonight
    for path, body in phone_pages(client, conn, token).items():
        assert not RATING.search(body), (path, RATING.search(body).group(0))
    laptop = client.get(f"/players/{players.player_of_name(conn, 'Ann').id}").get_data(as_text=True)
    assert "Rating" in laptop  # the laptop sees them
    assert 'class="num rating"' in client.get("/season?ratings=1").get_data(as_text=True)


def test_chosen_everyone_the_phones_see_them_and_only_the_laptop_may_choose(app, client, conn):
    a_finished_match(conn)
    assert client.post("/players/ratings", data={"ratings": "everyone"}, environ_base=PHONE).status_code == 403
    assert not players.ratings_for_everyone(conn)
    answer = client.post("/players/ratings", data={"ratings": "everyone"})
    assert answer.status_code == 303 and players.ratings_for_everyone(conn)
    ann = players.player_of_name(conn, "Ann")
    assert "Rating" in client.get(f"/players/{ann.id}", environ_base=PHONE).get_data(as_text=True)
    assert '"rating"' in client.get("/season.json?ratings=1", environ_base=PHONE).get_data(as_text=True)
    assert "rating_now" in client.get(f"/players/{ann.id}/history.csv", environ_base=PHONE).get_data(as_text=True)
    client.post("/players/ratings", data={"ratings": "laptop"})
    assert not RATING.search(client.get(f"/players/{ann.id}", environ_base=PHONE).get_data(as_text=True))


def test_the_explanation_says_a_rating_can_go_below_zero(client, conn):
    a_finished_match(conn)
    page = client.get("/season?ratings=1").get_data(as_text=True)
    assert "it can go below 0" in page
    ja = client.get("/season?ratings=1", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "0 を下回ることもあります" in ja
