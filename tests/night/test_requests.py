"""Game requests (issue 47): a player's phone asks "I'd like to play …" or "I'd like to learn …"
(My night), one request at a time, changeable; the next draw meets it as it can and closes it;
the hall says "n of m requests met", and when meeting one seats a pair together again."""

from __future__ import annotations

import re

from companion.night import game_requests
from companion.night import service as night
from helpers import join_night, text_of

EIGHT = ["Ann", "Bo", "Cy", "Di", "Eve", "Fay", "Gus", "Hal"]


def ids(conn) -> dict[str, int]:
    return {p.name: p.id for p in night.roster(conn)}


def table_of(conn, name: str):
    who = ids(conn)[name]
    return next(rt for rt in night.night_rounds(conn)[-1].tables if who in rt.player_ids)


def draw(client, **tables: int) -> None:
    data = {"draw": "1", **{f"tables-{game}": str(n) for game, n in tables.items()}}
    answer = client.post("/hall/rounds", data=data)
    assert answer.status_code == 303, answer.get_data(as_text=True)[:400]


def my_night(phone, lang: str = "en") -> str:
    return phone.get("/night/me", headers={"Accept-Language": lang}).get_data(as_text=True)


def request_card(page: str) -> str:
    return re.search(r'<div class="card me-request" id="me-request">.*?</form>\s*</div>', page, re.S).group(0)


def test_a_phone_sets_and_changes_its_request(app, client, conn):
    phones = join_night(app, EIGHT)
    card = request_card(my_night(phones["Cy"]))
    # Big buttons, one per game, to play and to learn, in one plain form.
    assert card.count('class="button big request-choice') == 2 * len(game_requests.tonight_games())
    assert 'name="want" value="play:rwd"' in card and 'name="want" value="learn:twin_shoot"' in card
    answer = phones["Cy"].post("/night/me/request", data={"want": "play:rwd"})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/night/me#me-request")
    assert game_requests.request_of(conn, ids(conn)["Cy"]) == game_requests.GameRequest(ids(conn)["Cy"], "rwd", False)
    assert "Your request: play RWD (Rewind)." in text_of(request_card(my_night(phones["Cy"])))
    # Changed: one request at a time.
    assert phones["Cy"].post("/night/me/request", data={"want": "learn:lucky_cube"}).status_code == 303
    assert game_requests.open_requests(conn) == {ids(conn)["Cy"]: game_requests.GameRequest(ids(conn)["Cy"],
                                                                                           "lucky_cube", True)}
    card = request_card(my_night(phones["Cy"]))
    assert 'value="learn:lucky_cube" aria-pressed="true"' in card and card.count('aria-pressed="true"') == 1
    # The hall lists it for the next draw.
    assert "Requests for the next draw: Cy: learn Lucky Cube" in text_of(client.get("/hall").get_data(as_text=True))
    # Withdrawn.
    assert phones["Cy"].post("/night/me/request", data={"want": ""}).status_code == 303
    assert game_requests.open_requests(conn) == {}
    # Not a game: refused beside the buttons, in both languages; a made-up kind: 400.
    answer = phones["Cy"].post("/night/me/request", data={"want": "play:chess"})
    assert answer.status_code == 422 and "Choose one of tonight's games." in text_of(answer.get_data(as_text=True))
    assert phones["Cy"].post("/night/me/request", data={"want": "win:rwd"}).status_code == 400
    assert "Choose one of tonight's games." not in text_of(my_night(phones["Cy"]))


def test_htmx_gets_the_request_card_alone(app, client, conn):
    phones = join_night(app, EIGHT)
    answer = phones["Di"].post("/night/me/request", data={"want": "play:lucky_cube"}, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    body = answer.get_data(as_text=True)
    assert body.lstrip().startswith('<div class="card me-request" id="me-request">') and "<html" not in body
    assert "Your request: play Lucky Cube." in text_of(body)


def test_the_draw_meets_a_request_and_closes_it(app, client, conn):
    phones = join_night(app, EIGHT)
    for seed_try in range(3):  # whichever seat the draw gives, the request is met
        assert phones["Hal"].post("/night/me/request", data={"want": "play:lucky_cube"}).status_code == 303
        draw(client, rwd=1, lucky_cube=1)
        assert table_of(conn, "Hal").table.game.id == "lucky_cube"
        assert game_requests.open_requests(conn) == {}  # met: closed
        hall = text_of(client.get("/hall").get_data(as_text=True))
        assert "1 of 1 request met." in hall
    # The phone no longer shows it as asked.
    assert "Your request" not in text_of(request_card(my_night(phones["Hal"])))


def test_the_hall_counts_requests_met_and_says_when_one_seated_a_pair_again(app, client, conn):
    phones = join_night(app, EIGHT)
    draw(client, rwd=1, lucky_cube=1)
    first = night.night_rounds(conn)[-1]
    at_rwd = [p.name for p in night.roster(conn) if p.id in first.tables[0].player_ids]
    at_lucky = [p.name for p in night.roster(conn) if p.id in first.tables[1].player_ids]
    # Two who played RWD together ask for it again; one from Lucky Cube asks for Lucky Cube,
    # and a fourth asks for a game no table of this round plays (Twin Shoot): 3 of 4.
    a, b = at_rwd[:2]
    for name, want in ((a, "play:rwd"), (b, "play:rwd"), (at_lucky[0], "play:lucky_cube"),
                       (at_lucky[1], "play:twin_shoot")):
        assert phones[name].post("/night/me/request", data={"want": want}).status_code == 303
    draw(client, rwd=1, lucky_cube=1)
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "3 of 4 requests met." in hall
    assert table_of(conn, a).table.id == table_of(conn, b).table.id
    said = re.search(r"Meeting them seats (.*?) with someone they have played with tonight\.", hall)
    assert said and {a, b} <= set(said.group(1).split(", ")), hall
    # The unmet request stays for the next draw; the met ones are closed.
    assert [r.game for r in game_requests.open_requests(conn).values()] == ["twin_shoot"]
    ja = text_of(client.get("/hall", headers={"Accept-Language": "ja"}).get_data(as_text=True))
    assert "4件中3件のリクエストに応えました" in ja


def test_a_learn_request_is_met_beside_someone_who_played_the_game(app, client, conn):
    phones = join_night(app, EIGHT)
    draw(client, rwd=2)  # round 1: everyone plays RWD, so nobody knows Lucky Cube yet
    draw(client, rwd=1, lucky_cube=1)  # round 2: four play Lucky Cube, and know it from then on
    lucky = next(rt for rt in night.night_rounds(conn)[-1].tables if rt.table.game.id == "lucky_cube")
    teachers = {p.name for p in night.roster(conn) if p.id in lucky.player_ids}
    learner = next(name for name in EIGHT if name not in teachers)
    assert phones[learner].post("/night/me/request", data={"want": "learn:lucky_cube"}).status_code == 303
    draw(client, rwd=1, lucky_cube=1)
    here = table_of(conn, learner)
    assert here.table.game.id == "lucky_cube"
    assert teachers & {p.name for p in night.roster(conn) if p.id in here.player_ids}
    assert "1 of 1 request met." in text_of(client.get("/hall").get_data(as_text=True))


def test_draw_again_gives_the_first_draws_met_requests_back(app, client, conn):
    phones = join_night(app, EIGHT)
    assert phones["Eve"].post("/night/me/request", data={"want": "play:lucky_cube"}).status_code == 303
    draw(client, rwd=1, lucky_cube=1)
    assert game_requests.open_requests(conn) == {}
    assert client.post("/hall/redraw", data={}).status_code == 303
    assert table_of(conn, "Eve").table.game.id == "lucky_cube"
    assert "1 of 1 request met." in text_of(client.get("/hall").get_data(as_text=True))
    assert game_requests.open_requests(conn) == {}


def test_a_table_seated_outside_a_round_closes_the_requests_it_meets(app, client, conn):
    # Rolling tables (another way of running the night) seat one table at a time: settle with
    # no round closes what the table meets and leaves the others open.
    from companion.meetup import seating
    from companion.store import write

    join_night(app, EIGHT)
    who = ids(conn)
    assert game_requests.ask(conn, who["Ann"], "rwd").saved and game_requests.ask(conn, who["Bo"], "twin_shoot").saved
    options = game_requests.draw_options(conn, list(who.values()), lambda: {})
    drawn = seating.draw_round([who[n] for n in ("Ann", "Cy", "Di", "Eve")], chosen=["rwd"], **options)
    with write(conn):
        game_requests.settle(conn, None, [(t.game, t.players) for t in drawn.tables], [], options)
    assert list(game_requests.open_requests(conn)) == [who["Bo"]]


def test_the_hall_lists_only_the_requests_of_players_on_tonights_list(app, client, conn):
    phones = join_night(app, EIGHT)
    for name in ("Ann", "Bo"):
        assert phones[name].post("/night/me/request", data={"want": "play:rwd"}).status_code == 303
    assert client.post(f"/hall/players/{ids(conn)['Bo']}", data={"action": "remove"}).status_code == 303
    hall = text_of(client.get("/hall").get_data(as_text=True))
    assert "Requests for the next draw: Ann: play RWD" in hall and "Bo: play" not in hall
