"""A night of three rounds with each of the room's wishes (issue 36), drawn on the laptop's hall
form in Chromium and followed on the screen for the room and on two phones, one in English and
one in Japanese: *balanced*, *every game in turn*, *newcomers looked after* and *never together*.

Twelve players; a past night gave some of them ratings and games played (Ann's four at RWD,
Eve's four at Lucky Cube; the last four never played). Each round is three tables of four
(RWD, Lucky Cube, Pair & Quad), every table plays one deal and is ended at time. Per round:
the draw is the pure search's for the round's stored seed and wishes (so what the page did is
what the option promises), the hall says how it was drawn, the screen shows everyone seated,
each phone shows its own table in its language; at the end, what the option promises holds
over the night. Screenshots: test-artifacts/draw-<option>-*.png."""

from __future__ import annotations

import re
import secrets

import pytest

from companion.games import GAMES
from companion.meetup import seating
from companion.night import service as night
from companion.store import connect
from companion.tables import service as store
from tests.browser.pages import PHONE, TIMEOUT_MS
from tests.night.test_calling_time import first_deal
import table_writes
from .conftest import new_phone_context
from table_writes import done

NAMES = ["Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "健太", "さくら"]
PHONES = {"Ann": "en-US", "さくら": "ja-JP"}  # the two players followed on their phones
GAMES_OF_A_ROUND = ["rwd", "lucky_cube", "pair_quad"]  # each seats four
NEVER = [("Ann", "Bob"), ("Cy", "Di")]
OPTIONS = {  # what the hall's draw form is given, and what its line then says
    "balanced": ({"by": "balanced"}, "Balanced"),
    "every_game": ({"every_game": True}, "Every game in turn"),
    "newcomers": ({"newcomers": True}, "Newcomers looked after"),
    "never": ({"never": NEVER}, "2 pairs kept apart"),
}


def rwd4(winner: int) -> dict:
    return {"chips": [1 if s == winner else 4 for s in range(4)], "tricks": [10 if s == winner else 1 for s in range(4)]}


def past_night(conn) -> None:
    """A night before tonight: Ann's four played RWD (Ann won every deal), Eve's four Lucky Cube."""
    done(night.start_night(conn))
    # Opened on the laptop: counted, so the season knows them (issue 43: side tables count for nobody).
    token = table_writes.create(conn, "rwd", ["Ann", "Bob", "Cy", "Di"], {"first_start_player": 0}, numbered=True)
    table = store.load(conn, token)
    while not table.match().over:
        table = table_writes.add_deal(conn, token, len(table.deals) + 1, rwd4(0))
    token = table_writes.create(conn, "lucky_cube", ["Eve", "Fay", "Gus", "Hal"], {"first_dealer": 0}, numbered=True)
    play_one_deal_and_end_at_time(conn, token)
    done(night.start_night(conn))


def play_one_deal_and_end_at_time(conn, token: str) -> None:
    table = store.load(conn, token)
    if table.game.id == "rwd":  # (first_deal's RWD is for three)
        facts, errors = rwd4(table.setup.n - 1), []
    else:
        facts, errors = table.game.parse_deal(first_deal(table.game.id, table.setup.n), table.progress())
    assert not errors, errors
    table_writes.add_deal(conn, token, 1, facts)
    table_writes.set_finished(conn, token, True, time_up=lambda _table: True)


def draw_on_the_hall(hall, live_server, number: int, option: str) -> None:
    hall.goto(live_server("/hall"))
    for game in GAMES_OF_A_ROUND:
        hall.fill(f"#f-tables-{game}", "1")
    wishes, _line = OPTIONS[option]
    form = hall.locator("form#draw")
    if number == 1:  # later rounds start from the stored draw: nothing to set again
        if "by" in wishes:
            form.locator(f"input[name=by][value={wishes['by']}]").check()
        for box in ("every_game", "newcomers"):
            if wishes.get(box):
                form.locator(f"input[name={box}]").check()
        for a, b in wishes.get("never", ()):  # picked from tonight's players, a pair at a time (issue 44)
            form = hall.locator("form#draw")
            form.locator("select[name=never_a]").select_option(label=a)
            form.locator("select[name=never_b]").select_option(label=b)
            form.get_by_role("button", name="Keep these two apart").click()
            hall.wait_for_load_state()
            form = hall.locator("form#draw")
            assert f"{a} + {b}" in form.locator("#f-never").inner_text()
    else:  # ...and the form shows it
        if "by" in wishes:
            assert form.locator(f"input[name=by][value={wishes['by']}]").is_checked()
        for box in ("every_game", "newcomers"):
            assert form.locator(f"input[name={box}]").is_checked() == bool(wishes.get(box))
        if "never" in wishes:
            ticked = form.locator("input[name=never]:checked")
            assert ticked.count() == len(wishes["never"])
            assert [" ".join(label.split()) for label in form.locator("#f-never label.draw-way").all_inner_texts()] == [
                f"{a} + {b}" for a, b in wishes["never"]]
    hall.get_by_role("button", name=f"Draw round {number}").last.click()
    hall.wait_for_url(re.compile(r"/hall#seating$"))


def pure_draw(conn, earlier: list[night.Round], drawn: night.Round, option: str) -> seating.Draw:
    """The seating search's own draw for the round's stored seed and the option's inputs, as
    the hall had them (read from the stored results up to this round)."""
    people = night.roster(conn)
    ids = {p.name: p.id for p in people}
    return seating.draw_round(
        [p.id for p in people], [r.seating() for r in earlier], chosen=GAMES_OF_A_ROUND, seed=drawn.seed,
        strength=night.strengths(conn, people) if option == "balanced" else None,
        every_game=option == "every_game",
        experience=night.games_played(conn, people) if option == "newcomers" else None,
        never=[(ids[a], ids[b]) for a, b in NEVER] if option == "never" else ())


def spread(conn, drawn_tables, people) -> float:
    """Strongest table's mean rating (for its game) less the weakest's."""
    strength = night.strengths(conn, people)
    means = [sum(strength[p].get(t.game, strength[p][""]) for p in t.players) / len(t.players) for t in drawn_tables]
    return max(means) - min(means)


# The seeds the hall draws its three rounds with. The server picks a random one per round; a
# test of what a wish gives must not depend on a throw of the dice: *balanced* minimises squared
# distances from the room's mean (after repeats), not the strongest-less-weakest gap checked
# below, and for some seeds its gap came out above mixing's (CI on 178d7a6: 2.05 against 2.00).
SEEDS = ["5eed0001", "5eed0002", "5eed0003"]


@pytest.mark.parametrize("option", OPTIONS)
def test_a_night_of_three_rounds_with_each_wish(browser, live_server, artifacts_dir, option, monkeypatch):
    seeds, random_hex = iter(SEEDS), secrets.token_hex
    monkeypatch.setattr(secrets, "token_hex", lambda n=None: next(seeds) if n == 4 else random_hex(n))
    conn = connect(live_server.app.config["DATABASE"])
    contexts = []
    try:
        past_night(conn)
        laptop = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
        contexts.append(laptop)
        hall = laptop.new_page()
        hall.set_default_timeout(TIMEOUT_MS)
        screens = {}
        for lang, locale in (("en", "en-US"), ("ja", "ja-JP")):
            context = browser.new_context(viewport={"width": 1280, "height": 720}, locale=locale)
            contexts.append(context)
            screens[lang] = context.new_page()
        phones = {}
        for name, locale in PHONES.items():
            context = new_phone_context(browser, **{**PHONE, "locale": locale})
            context.set_default_timeout(TIMEOUT_MS)
            contexts.append(context)
            page = context.new_page()
            page.errors = []
            page.on("pageerror", lambda e, page=page: page.errors.append(str(e)))
            page.goto(live_server("/night"))
            page.fill("#f-name", name)
            page.locator("form button[type=submit]").first.tap()
            page.wait_for_url(re.compile(r"/night/me$"))
            phones[name] = page
        for name in NAMES:
            if name not in PHONES:
                done(night.join(conn, name))

        rounds: list[night.Round] = []
        for number in (1, 2, 3):
            draw_on_the_hall(hall, live_server, number, option)
            drawn = night.night_rounds(conn)[-1]
            assert drawn.number == number and drawn.seed == SEEDS[number - 1]
            # What the hall drew is the search's draw for the option, its seed being stored.
            assert drawn.seating() == pure_draw(conn, rounds, drawn, option).tables
            assert OPTIONS[option][1] in hall.locator("#seating").inner_text()
            if option == "balanced":  # tables of more even strength than mixing gives for this seed
                people = night.roster(conn)
                mixed = seating.draw_round([p.id for p in people], [r.seating() for r in rounds],
                                           chosen=GAMES_OF_A_ROUND, seed=drawn.seed)
                assert spread(conn, drawn.seating(), people) <= spread(conn, mixed.tables, people) + 1e-9
            names = {p.id: p.name for p in night.roster(conn)}
            # The screen for the room: everyone seated, in both languages.
            for lang, screen in screens.items():
                screen.goto(live_server("/hall/screen"))
                screen.locator("#screen.state-seating").wait_for()
                shown = screen.locator(".screen-players li").all_inner_texts()
                assert sorted(shown) == sorted(NAMES), (lang, shown)
                screen.screenshot(path=str(artifacts_dir / f"draw-{option}-round{number}-screen-{lang}.png"))
            # Each phone: its own table, in its language.
            for name, page in phones.items():
                rt, seat = next((rt, rt.player_ids.index(pid)) for rt in drawn.tables for pid in rt.player_ids
                                if names[pid] == name)
                page.goto(live_server("/night/me"))
                where = " ".join(page.locator(".me-where").inner_text().split())
                if PHONES[name] == "ja-JP":
                    game = GAMES[rt.table.game.id].name_ja
                    assert f"テーブル{rt.table.seq}" in where and game in where and f"{seat + 1}番席" in where, where
                else:
                    assert f"Table {rt.table.seq} · {GAMES[rt.table.game.id].name_en} · seat {seat + 1}" in where, where
                assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["viewport"]["width"]
                page.screenshot(path=str(artifacts_dir / f"draw-{option}-round{number}-phone-{name}.png"),
                                full_page=True)
            for rt in drawn.tables:
                play_one_deal_and_end_at_time(conn, rt.table.token)
            rounds.append(night.night_rounds(conn)[-1])

        hall.goto(live_server("/hall"))
        hall.screenshot(path=str(artifacts_dir / f"draw-{option}-hall.png"), full_page=True)
        # The night over: what the option promises, over the three rounds.
        people = night.roster(conn)
        names = {p.id: p.name for p in people}
        tables = [(r.number, rt.table.game.id, [names[p] for p in rt.player_ids]) for r in rounds for rt in r.tables]
        if option == "never":
            for a, b in NEVER:
                assert not any(a in seated and b in seated for _n, _g, seated in tables), tables
        if option == "every_game":
            # Issue 47: a new game each round, but never a pair at one table a third time (which
            # comes first). With one table of each of three games a round, two players meeting all
            # three games in the same order share a table every round: at most 3! = 6 players can
            # meet all three, one per order. The draw reaches that bound; everyone meets two.
            met = {name: len({g for _n, g, seated in tables if name in seated}) for name in NAMES}
            assert min(met.values()) >= 2 and sum(n == 3 for n in met.values()) == 6, (met, tables)
        pairs = [frozenset((a, b)) for _n, _g, seated in tables for a in seated for b in seated if a < b]
        assert max(pairs.count(pair) for pair in set(pairs)) <= 2, tables  # no third meeting (issue 47)
        if option == "newcomers":  # every table had someone who had played its game before
            played = {name: set() for name in NAMES}
            played.update({n: {"rwd"} for n in ("Ann", "Bob", "Cy", "Di")})
            played.update({n: {"lucky_cube"} for n in ("Eve", "Fay", "Gus", "Hal")})
            for number in (1, 2, 3):
                this_round = [(g, seated) for n, g, seated in tables if n == number]
                for game, seated in this_round:
                    if any(game in games for games in played.values()):  # the room knows it
                        assert any(game in played[n] for n in seated), (number, game, seated)
                for game, seated in this_round:
                    for n in seated:
                        played[n].add(game)
        for screen in screens.values():
            screen.goto(live_server("/hall/screen"))
            screen.locator("#screen.state-leaderboard").wait_for()
        screens["ja"].screenshot(path=str(artifacts_dir / f"draw-{option}-leaderboard-screen-ja.png"))
        for page in phones.values():
            assert page.errors == []
    finally:
        for context in contexts:
            context.close()
        conn.close()
