"""CSRF on every state-changing route, found by walking the URL map (so a new POST route
can't be skipped silently), GET routes that never change state, and the security headers
(the live fast path's 204 included).

Each state-changing route is first refused without a token, with forged tokens and with
another phone's token — nothing in the database may change — and then sent again with the
right token, where it must succeed: that last step proves the refusals were about the token.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from typing import Callable

import pytest

from flask import Flask, request_started
from itsdangerous import URLSafeTimedSerializer
from helpers import csrf_of, text_of
import table_writes
from table_writes import done

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
# Every state-changing endpoint this test knows; the URL map must hold at least these.
KNOWN_UNSAFE = {"tables.create", "tables.add_deal", "tables.preview", "tables.preview_edit", "tables.update",
                "tables.undo", "tables.finish", "tables.rematch"}
REFUSED = "security check failed"
FRESH = itertools.count(1)
NAMES = ["Ann", "Bob", "Cy", "Di"]
# Open-ended Pair & Quad: the one game where every route, "Finish match" included, has a meaning
# after a single deal.
GAME = "pair_quad"


# --- helpers -----------------------------------------------------------------------------------

def pair_quad(**captured: int) -> dict[str, str]:
    """A Pair & Quad deal form: every count 0 except those given (``seven_0=4`` is field 7-0)."""
    fields = {f"{rank}-{seat}": "0" for rank in ("7", "A", "K", "Q", "J", "other") for seat in range(4)}
    fields.update({key.replace("seven", "7").replace("_", "-"): str(value) for key, value in captured.items()})
    return fields


DEAL_1 = pair_quad(seven_0=4, A_1=4, K_2=4, Q_2=4, J_2=4, other_3=32)
DEAL_1_CORRECTED = pair_quad(seven_1=4, A_0=4, K_2=4, Q_2=4, J_2=4, other_3=32)


def snapshot(db: str) -> dict[str, list[tuple]]:
    """Every row of every table: equal snapshots mean nothing at all changed."""
    conn = sqlite3.connect(db)
    try:
        return {name: conn.execute(f"SELECT * FROM {name} ORDER BY rowid").fetchall()
                for name in ("tables", "deals", "changes", "nights", "player_changes",
                             "night_players", "night_rounds", "round_tables", "round_seats", "season", "room_tables", "hall_settings")}
    finally:
        conn.close()


def change_count(db: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*) FROM changes").fetchone()[0]
    finally:
        conn.close()


def check_headers(response, where: str) -> list[str]:
    """Problems with the security headers of one Flask response (empty when all is well)."""
    problems = []
    headers = response.headers
    if headers.get("X-Content-Type-Options") != "nosniff":
        problems.append(f"{where}: X-Content-Type-Options is {headers.get('X-Content-Type-Options')!r}")
    if headers.get("Referrer-Policy") != "no-referrer":
        problems.append(f"{where}: Referrer-Policy is {headers.get('Referrer-Policy')!r}")
    csp = headers.get("Content-Security-Policy")
    if not csp:
        problems.append(f"{where}: no Content-Security-Policy")
        return problems
    directives = {part.split()[0]: part.split()[1:] for part in csp.split(";") if part.strip()}
    script_src = directives.get("script-src", directives.get("default-src"))
    if script_src is None:
        problems.append(f"{where}: CSP has neither script-src nor default-src: {csp}")
    else:
        for bad in ("'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:"):
            if bad in script_src:
                problems.append(f"{where}: CSP script-src allows {bad}: {csp}")
    if "'unsafe-inline'" in directives.get("default-src", []):
        problems.append(f"{where}: CSP default-src allows 'unsafe-inline': {csp}")
    return problems


class World:
    """One phone (a test client with its own session) and a real table with deal 1 entered,
    both made through the forms with real CSRF tokens."""

    def __init__(self, app: Flask):
        self.app = app
        self.db = app.config["DATABASE"]
        self.client = app.test_client()
        html = self.client.get(f"/tables/new?game={GAME}&players=4").get_data(as_text=True)
        response = self.client.post("/tables", data={
            "csrf_token": csrf_of(html), "game": GAME, "players": "4",
            **{f"name-{i}": name for i, name in enumerate(NAMES)}})
        assert response.status_code == 303, response.get_data(as_text=True)[:2000]
        self.token = response.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
        assert re.fullmatch(r"[A-Za-z0-9_-]{16,64}", self.token)
        html = self.client.get(f"/t/{self.token}").get_data(as_text=True)
        response = self.client.post(f"/t/{self.token}/deals", data={
            "csrf_token": csrf_of(html), "number": "1", **DEAL_1})
        assert response.status_code == 303, response.get_data(as_text=True)[:2000]
        assert self.deal_count() == 1

    def deal_count(self) -> int:
        conn = sqlite3.connect(self.db)
        try:
            return conn.execute("SELECT COUNT(*) FROM deals JOIN tables ON tables.id = deals.table_id"
                                " WHERE tables.token = ?", (self.token,)).fetchone()[0]
        finally:
            conn.close()

    def good_token(self) -> str:
        return csrf_of(self.client.get(f"/t/{self.token}").get_data(as_text=True))

    def session_raw_token(self) -> str:
        """The unsigned token Flask-WTF keeps in this phone's session."""
        with self.client.session_transaction() as session:
            raw = session.get("csrf_token")
        assert raw, "the session holds no CSRF token after a page with a form"
        return raw

    def prepared_token(self) -> str:
        """A table prepared on the laptop for a meetup night, waiting for its players."""
        if not hasattr(self, "_prepared"):
            from companion.night import service as night
            conn = sqlite3.connect(self.db)
            conn.row_factory = sqlite3.Row
            conn.isolation_level = None
            try:
                self._prepared = done(night.prepare(conn, GAME, 4, 1))[0]
            finally:
                conn.close()
        return self._prepared

    def url_params(self) -> dict[str, object]:
        return {"token": self.token, "number": 1, "game_id": GAME, "name": "pq", "code": "ja",
                "filename": "app.js"}


# What a request to each state-changing endpoint sends, so that with a valid token it would
# succeed; and whether success changes the database (the preview only answers).
Recipe = Callable[[World], dict[str, str]]


def _edit_fields(world: World) -> dict[str, str]:
    html = world.client.get(f"/t/{world.token}/deals/1/edit").get_data(as_text=True)
    was = re.search(r'name="was" value="([^"]+)"', html)
    assert was, "the edit form carries no fingerprint"
    return {"was": was.group(1), **DEAL_1_CORRECTED}


RECIPES: dict[str, tuple[Recipe, bool]] = {
    "tables.create": (lambda w: {"game": GAME, "players": "4",
                                 **{f"name-{i}": f"{name}2" for i, name in enumerate(NAMES)}}, True),
    "tables.add_deal": (lambda w: {"number": "2", **DEAL_1}, True),
    "tables.preview": (lambda w: {"number": "2", **DEAL_1}, False),
    "tables.preview_edit": (lambda w: dict(DEAL_1_CORRECTED), False),
    # "Use mine" after a conflict fills a form and saves nothing.
    "tables.use_mine": (lambda w: {"number": "1", "use": "correct",
                                   **{f"mine-{k}": v for k, v in DEAL_1_CORRECTED.items()}}, False),
    "tables.update": (_edit_fields, True),
    "tables.undo": (lambda w: {"number": "1"}, True),
    "tables.finish": (lambda w: {"finished": "1"}, True),
    # Issue 45: the laptop confirms a phone's deal; a side table's seat asks for confirmation.
    "tables.confirm": (lambda w: {"item": "all"}, True),
    "tables.confirming": (lambda w: {"on": "1"}, True),
    # Another seat's version of the waiting deal 1 (the same, "tap Confirm instead", is refused).
    "tables.dispute": (lambda w: dict(DEAL_1_CORRECTED), True),
    "hall.settle": (lambda w: {"number": "1", "keep": "saved"}, True),
    "tables.rematch": (lambda w: {}, True),
    "hall.set_confirm": (lambda w: {"on": "1"}, True),
    "hall.prepare": (lambda w: {"game": GAME, "players": "4", "count": "2", "label": ""}, True),
    "hall.new_night": (lambda w: {"unfinished": "leave"}, True),  # the world's match is still in play (issue 25)
    "tables.seat_players": (lambda w: {"players": "4", **{f"name-{i}": f"{name}3" for i, name in enumerate(NAMES)}}, True),
    "hall.add_player": (lambda w: {"name": "Zoe"}, True),
    "hall.edit_player": (lambda w: {"name": f"Zoe {w.token[:6]}"}, True),
    "hall.draw": (lambda w: _night_roster(w) and {"draw": "1", f"tables-{GAME}": "1"}, True),
    "hall.swap": (lambda w: {"a": str(_night_round(w)[0]), "b": str(_night_round(w)[1])}, True),
    "hall.clock": (lambda w: _night_round(w) and {"minutes": "10"}, True),
    # Issue 44: the round's clock controls (pause answers a clock that runs, or is refused).
    "hall.start_round": (lambda w: _round_with_minutes(w) and {}, True),
    "hall.redraw": (lambda w: _night_round(w) and {}, True),
    # The late arrival takes seat 1 (sent again, the seat is theirs already: answered as saved).
    "hall.seat_change": (lambda w: {"seat": f"{_round_table_id(w)}:0", "player": str(_substitute(w))}, True),
    "hall.set_room": (lambda w: {"room": f"1-40, Side {next(FRESH)}"}, True),
    "hall.keep_table": (lambda w: {"player": str(_night_roster(w)[0]), "room_table": str(_room_table(w))}, True),
    "hall.pause_clock": (lambda w: _night_round(w) and {"action": "pause"}, True),
    "hall.more_time_for_all": (lambda w: _night_round(w) and {}, True),
    "hall.join_table": (lambda w: {"player": str(_late_arrival(w)), "table": "1"}, True),
    "hall.leave_table": (lambda w: {"player": str(_night_round(w)[0])}, True),
    "hall.extend": (lambda w: {}, True),
    # Rolling tables (issue 47): the settings, back to rounds, seat now (nothing to seat), one table's
    # players let go, one table's clock paused.
    "hall.set_rolling": (lambda w: {"copies-rwd": "1"}, True),
    "hall.set_rounds_mode": (lambda w: {}, True),
    "hall.seat_now": (lambda w: {}, False),
    "hall.release_table": (lambda w: {}, True),
    "hall.pause_table": (lambda w: {}, True),
    "hall.unseat": (lambda w: {}, True),
    # Calling time (issue 33): for one table, for the round, ending at time, a side table added.
    "hall.call_time": (lambda w: {}, True),
    "hall.call_time_for_round": (lambda w: _night_round(w) and {}, True),
    "tables.addition_act": (lambda w: {}, True),  # the round clock's end at time
    "hall.end_table_at_time": (lambda w: {}, True),
    "hall.add_side_table": (lambda w: {}, True),
    "hall.join_post": (lambda w: {"name": f"Yan {next(FRESH)}"}, True),  # a new name each time: never one removed
    "hall.me_forget": (lambda w: {}, False),
    "hall.me_away": (lambda w: {"away": "sit_out"}, False),  # the test client has joined no night: to the join page
    "hall.me_request": (lambda w: {"want": "play:rwd"}, False),  # issue 47: as me_away, to the join page
    "players.rename": (lambda w: {"name": "Zed"}, True),
    "players.merge": (lambda w: {"gone": str(_player_elsewhere(w))}, True),
    "players.forget": (lambda w: {"confirm": "1"}, True),
    "players.ratings_for": (lambda w: {"ratings": "everyone"}, True),
    "players.keep_apart": (lambda w: {"token": w.token, "seat": "0", "name": "Ann B."}, True),
    # Issue 32: the organiser answers a phone's request for a name, removes ticked names; a phone
    # stops waiting (nothing stored).
    "claims.answer": (lambda w: {"action": "allow"}, True),
    "claims.refuse_all": (lambda w: {}, True),
    "claims.remove_many": (lambda w: {"player": str(_spare_player(w))}, True),
    "claims.cancel": (lambda w: {}, False),
    # Issue 46: the organiser's passcode behind a proxy (nothing stored: a cookie; here, no proxy).
    "organiser.sign_in": (lambda w: {"passcode": "not it", "next": "/hall"}, False),
}


def _spare_player(world: World) -> int:
    """A player on tonight's list no other recipe needs (the organiser may remove them)."""
    from companion import store
    from companion.night import service as night
    _night_round(world)  # drawn first: Quinn is no one's seat
    conn = store.connect(world.db)
    try:
        return done(night.join(conn, "Quinn")).id
    finally:
        conn.close()


def _waiting_claim(world: World) -> int:
    """A phone asking for a name another phone joined as (issue 32): the request's id."""
    from companion import store
    from companion.night import claims
    if not hasattr(world, "_claim"):
        _night_round(world)  # drawn first: Rex is no one's seat
        conn = store.connect(world.db)
        try:
            done(claims.join_as(conn, "phone-a", "127.0.9.1", name="Rex"))
            world._claim = done(claims.join_as(conn, "phone-b", "127.0.9.2", name="Rex")).claim_id
        finally:
            conn.close()
    return world._claim


def _room_table(world: World) -> int:
    """A room table (issue 44), made once."""
    from companion import store
    from companion.night import service as night
    if not hasattr(world, "_room"):
        conn = store.connect(world.db)
        try:
            world._room = done(night.set_room(conn, "1-40"))[0].id  # room for every table the sweep opens
        finally:
            conn.close()
    return world._room


def _asked_for_name(world: World) -> int:
    """A name another phone asks for (made once, when the URL is first built)."""
    from companion import store
    from companion.night import claims
    if not hasattr(world, "_rae"):
        conn = store.connect(world.db)
        try:
            world._rae = done(claims.join_as(conn, "phone-r1", "127.0.9.11", name="Rae")).id
            done(claims.join_as(conn, "phone-r2", "127.0.9.12", name="Rae"))
        finally:
            conn.close()
    return world._rae


def _ended_table_id(world: World) -> int:
    """A one-deal match, played: its read-only record (issue 32)."""
    from companion import store
    from companion.tables import service as tables
    if not hasattr(world, "_ended"):
        conn = store.connect(world.db)
        try:
            token = table_writes.create(conn, GAME, ["Sal", "Tim", "Uma", "Val"], {"first_dealer": 0, "deals": 1})
            table_writes.add_deal(conn, token, 1, form=DEAL_1)
            world._ended = tables.load(conn, token).id
        finally:
            conn.close()
    return world._ended


def _player_id(world: World, name: str) -> int:
    """The id of the player ``name`` on the laptop's players list (issue 26)."""
    from companion import store
    from companion.players import service as players
    conn = store.connect(world.db)
    try:
        return players.player_of_name(conn, name).id
    finally:
        conn.close()


def _player_elsewhere(world: World) -> int:
    """A player who never shared a table with Ann (a merge of those two is allowed)."""
    from companion import store
    if not hasattr(world, "_elsewhere"):  # made once, when the URL is built (before any figures are taken)
        conn = store.connect(world.db)
        try:
            table_writes.create(conn, GAME, ["Eve", "Fay", "Gus", "Hal"], {"first_dealer": 0, "deals": 1}, numbered=True)  # counted: its names are players
        finally:
            conn.close()
        world._elsewhere = _player_id(world, "Eve")
    return world._elsewhere

def _night_roster(world: World) -> list[int]:
    """Tonight's players (issue 25): these four on the list (others may be too); their ids."""
    from companion import store
    from companion.night import service as night
    conn = store.connect(world.db)
    try:
        return [done(night.join(conn, name)).id for name in ("Ivy", "Jo", "Kim", "Lu")]  # the same name: one player
    finally:
        conn.close()


def _night_round(world: World) -> list[int]:
    """A drawn round of one table (issue 25); its players' ids in seat order."""
    from companion import store
    from companion.night import service as night
    _night_roster(world)
    conn = store.connect(world.db)
    try:
        # Max is the late arrival of _late_arrival: on the list without a seat, by design.
        # Quinn, Rex and Rae (issue 32's and 44's recipes) join after the draw, as Max does.
        if not night.night_rounds(conn) or len([p for p in night.roster(conn)
                                                if p.name not in ("Max", "Quinn", "Rex", "Rae")
                                                and not p.name.startswith("Sub ")]) != 4:
            for player in night.roster(conn):  # exactly one table's worth on tonight's list
                if player.name not in ("Ivy", "Jo", "Kim", "Lu"):
                    done(night.set_left(conn, player.id))
            done(night.draw_round(conn, chosen=[GAME], seed="csrf"))
        return list(night.night_rounds(conn)[-1].tables[0].player_ids)
    finally:
        conn.close()


def _round_with_minutes(world: World) -> list[int]:
    """The drawn round, its clock given minutes but not started (what "Start round N" starts)."""
    from companion import store
    from companion.store import nights as night_rows
    seats = _night_round(world)
    conn = store.connect(world.db)
    try:
        with store.write(conn):
            latest = night_rows.rounds(conn, night_rows.current_night(conn))[-1]
            night_rows.set_clock(conn, latest["id"], 30, None)
    finally:
        conn.close()
    return seats


def _late_arrival(world: World) -> int:
    """A player on tonight's list with no seat in the drawn round."""
    from companion import store
    from companion.night import service as night
    _night_round(world)
    conn = store.connect(world.db)
    try:
        return done(night.join(conn, "Max")).id
    finally:
        conn.close()


def _substitute(world: World) -> int:
    """A player who just arrived, free to take a seat mid-match (a new name each world)."""
    from companion import store
    from companion.night import service as night
    _night_round(world)
    conn = store.connect(world.db)
    try:
        return done(night.join(conn, f"Sub {next(FRESH)}")).id
    finally:
        conn.close()


def _round_table_id(world: World) -> int:
    from companion import store
    from companion.night import service as night
    _night_round(world)
    conn = store.connect(world.db)
    try:
        if not night.night_rounds(conn)[-1].clock_from:
            done(night.start_clock(conn, 20))
        return night.night_rounds(conn)[-1].tables[0].table.id
    finally:
        conn.close()


def _night_without_rounds(world: World) -> bool:
    """Tonight with no round drawn (a new night where another recipe drew one): rolling tables
    are chosen before the first draw."""
    from companion import store
    from companion.night import rolling
    from companion.night import service as night
    conn = store.connect(world.db)
    try:
        if night.night_rounds(conn) and rolling.settings(conn) is None:
            done(night.start_night(conn))
        return True
    finally:
        conn.close()


def _rolling_table_id(world: World) -> int:
    """A table of a night of rolling tables (issue 47), seated and its clock running."""
    from companion import store
    from companion.night import rolling
    from companion.night import service as night
    conn = store.connect(world.db)
    try:
        if rolling.settings(conn) is None:
            if night.night_rounds(conn):  # tonight runs in rounds (another recipe's): a night of its own
                done(night.start_night(conn))
            for name in ("Ivy", "Jo", "Kim", "Lu"):
                done(night.join(conn, name))
            done(rolling.set_rolling(conn, {"rwd": 1}, {"rwd": 20}))
        return night.night_rounds(conn)[-1].tables[0].table.id
    finally:
        conn.close()


def _unseatable_table_id(world: World) -> int:
    """A table of tonight with its players but no deal yet (the organiser may re-open its seating):
    prepared by the organiser, then seated (a table a phone opened and never played is not the
    night's, issue 23)."""
    from companion import store
    from companion.night import service as night
    from companion.tables import service as tables
    if not hasattr(world, "_unseatable"):
        conn = store.connect(world.db)
        try:
            (token,) = done(night.prepare(conn, GAME, 4, 1))
            table_writes.seat(conn, token, ["Mo", "Ned", "Oz", "Pia"], {"first_dealer": 0, "deals": 1})
            world._unseatable = tables.load(conn, token).id
        finally:
            conn.close()
    return world._unseatable


def _timed_out_table(world: World) -> tuple[int, str]:
    """(id, token) of a round table with deal 1 entered whose time the organiser called: it may
    end at time (issue 33). Drawn in a round of its own, after which another round is drawn, so
    the latest round's table is still fresh for the routes that change its seating."""
    from companion import store
    from companion.night import service as night
    from companion.tables import service as tables
    from companion.store import nights as nights_store
    if not hasattr(world, "_timed_out"):
        _night_round(world)
        conn = store.connect(world.db)
        try:
            done(night.draw_round(conn, chosen=[GAME], seed="csrf-time"))
            rt = night.night_rounds(conn)[-1].tables[0]
            table_writes.add_deal(conn, rt.table.token, 1, form=DEAL_1)
            with store.write(conn):
                nights_store.call_time(conn, [rt.table.id], tables.now())
            done(night.draw_round(conn, chosen=[GAME], seed="csrf"))
            world._timed_out = (rt.table.id, rt.table.token)
        finally:
            conn.close()
    return world._timed_out


def _fresh_side_table(world: World) -> str:
    """A side table without a deal: its seat may ask another to confirm each deal (issue 45)."""
    from companion import store
    if not hasattr(world, "_fresh_side"):
        conn = store.connect(world.db)
        try:
            world._fresh_side = table_writes.create(conn, GAME, ["Sam", "Tom", "Uma", "Vic"],
                                                    {"first_dealer": 0, "deals": 0})
        finally:
            conn.close()
    return world._fresh_side


def _pending_table(world: World) -> str:
    """A table whose deal 1 a phone saved and waits for another seat's confirmation (issue 45):
    the laptop may confirm it."""
    from companion import store
    from companion.tables import service as tables
    from companion.tables.confirming import Who
    if hasattr(world, "_pending"):
        return world._pending
    conn = store.connect(world.db)
    try:
        token = table_writes.create(conn, GAME, ["Sam", "Tom", "Uma", "Vic"], {"first_dealer": 0, "deals": 0})
        done(tables.set_confirming(conn, token, True))
        assert tables.enter_deal(conn, token, 1, form=DEAL_1, who=Who("phone-a")).saved
        world._pending = token
        return token
    finally:
        conn.close()


def _disputed_table_id(world: World) -> int:
    """A night's table (laptop-opened, so the hall settles it) with deal 1 saved by phone A and
    disputed by phone B (issue 45)."""
    from companion import store
    from companion.tables import service as tables
    from companion.tables.confirming import Who
    if hasattr(world, "_disputed"):
        return world._disputed
    conn = store.connect(world.db)
    try:
        token = table_writes.create(conn, GAME, ["Sam", "Tom", "Uma", "Vic"], {"first_dealer": 0, "deals": 0},
                                    numbered=True)
        from companion.store import tables as table_rows, write
        with write(conn):  # a night's table asking for confirmation, as the hall's setting would
            table_rows.set_confirm(conn, tables.load(conn, token).id, True)
        assert tables.enter_deal(conn, token, 1, form=DEAL_1, who=Who("phone-a")).saved
        done(tables.dispute(conn, token, 1, DEAL_1_CORRECTED, who=Who("phone-b", opened_at="2000-01-01T00:00:00+00:00")))
        world._disputed = tables.load(conn, token).id
        return world._disputed
    finally:
        conn.close()


def _side_table_id(world: World) -> int:
    """A table a phone opened and played outside the draws: a side table of the night (issue 33)."""
    from companion import store
    from companion.tables import service as tables
    if not hasattr(world, "_side"):
        conn = store.connect(world.db)
        try:
            token = table_writes.create(conn, GAME, ["Sam", "Tom", "Uma", "Vic"], {"first_dealer": 0, "deals": 0})
            table_writes.add_deal(conn, token, 1, form=DEAL_1)
            world._side = tables.load(conn, token).id
        finally:
            conn.close()
    return world._side


# Routes whose URL needs another table than the world's own.
URL_PARAMS: dict[str, Callable[[World], dict[str, object]]] = {
    "tables.seat_players": lambda w: {"token": w.prepared_token()},
    "tables.seat": lambda w: {"token": w.prepared_token()},
    "hall.edit_player": lambda w: {"player_id": _night_roster(w)[0]},
    # No URL parameter: the night these need is set up here, before any figures are taken.
    "hall.draw": lambda w: _night_roster(w) and {},
    "hall.swap": lambda w: _night_round(w) and {},
    "hall.join_table": lambda w: _night_round(w) and {},
    "hall.leave_table": lambda w: _night_round(w) and {},
    "hall.clock": lambda w: _night_round(w) and {},
    "hall.start_round": lambda w: _night_round(w) and {},
    "hall.redraw": lambda w: _night_round(w) and {},
    "hall.pause_clock": lambda w: _night_round(w) and {},
    "hall.more_time_for_all": lambda w: _night_round(w) and {},
    "hall.extend": lambda w: {"table_id": _round_table_id(w)},
    "hall.set_rolling": lambda w: _night_without_rounds(w) and {},  # set up before the figures are taken
    "hall.release_table": lambda w: {"table_id": _rolling_table_id(w)},
    "hall.pause_table": lambda w: {"table_id": _rolling_table_id(w)},
    "hall.unseat": lambda w: {"table_id": _unseatable_table_id(w)},
    "hall.call_time": lambda w: {"table_id": _round_table_id(w)},
    "hall.call_time_for_round": lambda w: _night_round(w) and {},
    "tables.addition_act": lambda w: {"token": _timed_out_table(w)[1], "action": "end-at-time"},
    "tables.addition_part": lambda w: {"token": w.token, "name": "clock"},
    "tables.confirm": lambda w: {"token": _pending_table(w)},
    "tables.dispute": lambda w: {"token": _pending_table(w), "number": 1},
    "hall.settle": lambda w: {"table_id": _disputed_table_id(w)},
    "tables.confirming": lambda w: {"token": _fresh_side_table(w)},
    "hall.end_table_at_time": lambda w: {"table_id": _timed_out_table(w)[0]},
    "hall.add_side_table": lambda w: {"table_id": _side_table_id(w)},
    "players.rename": lambda w: {"pid": _player_id(w, "Ann")},
    "players.merge": lambda w: {"pid": _player_id(w, "Ann"), "_": _player_elsewhere(w)},
    "players.keep_apart": lambda w: {"pid": _player_id(w, "Ann")},
    "players.forget": lambda w: {"pid": _player_id(w, "Ann")},
    "players.show": lambda w: {"pid": _player_id(w, "Ann")},
    "players.player_csv": lambda w: {"pid": _player_id(w, "Ann")},
    "players.player_json": lambda w: {"pid": _player_id(w, "Ann")},
    "players.at_table": lambda w: {"seat": 0},
    "claims.answer": lambda w: {"claim_id": _waiting_claim(w)},
    "claims.refuse_all": lambda w: {"player_id": _asked_for_name(w)},
    "hall.room_table": lambda w: {"room_id": _room_table(w)},
    "trust.record": lambda w: {"table_id": _ended_table_id(w)},
}


def unsafe_rules(app: Flask):
    return [rule for rule in app.url_map.iter_rules() if rule.methods & UNSAFE_METHODS]


def build(rule, world: World) -> str:
    params = {**world.url_params(), **URL_PARAMS.get(rule.endpoint, lambda w: {})(world)}
    unknown = set(rule.arguments) - set(params)
    assert not unknown, f"{rule.rule}: no real value for URL parameter(s) {sorted(unknown)}; add one"
    built = rule.build({name: params[name] for name in rule.arguments}, append_unknown=False)
    assert built is not None, f"{rule.rule}: could not build a URL"
    return built[1]


def refused(response, what: str) -> list[str]:
    problems = []
    if response.status_code != 400:
        problems.append(f"{what}: status {response.status_code}, expected 400")
    elif REFUSED not in text_of(response.get_data(as_text=True)):
        problems.append(f"{what}: 400 without the “{REFUSED}” message")
    problems.extend(check_headers(response, what))
    return problems


# --- the URL map --------------------------------------------------------------------------------

def test_the_url_map_lists_every_state_changing_route(csrf_app):
    rules = unsafe_rules(csrf_app)
    assert rules, "no state-changing route found in the URL map"
    endpoints = {rule.endpoint for rule in rules}
    missing = KNOWN_UNSAFE - endpoints
    assert not missing, f"known state-changing routes missing from the URL map: {sorted(missing)}"
    no_recipe = endpoints - set(RECIPES)
    assert not no_recipe, (f"new state-changing route(s) {sorted(no_recipe)}: add a request recipe "
                           "to RECIPES so their CSRF protection is tested")


# --- CSRF on every state-changing route -----------------------------------------------------------

@pytest.mark.slow  # every route, three ways each: 3 s (the fast tier's minute, issue 41); CI runs it
def test_every_state_changing_route_refuses_a_missing_forged_or_foreign_token(csrf_app):
    rules = unsafe_rules(csrf_app)
    assert {rule.endpoint for rule in rules} >= KNOWN_UNSAFE
    # Another phone with its own session, and a phone with no session at all.
    stranger = csrf_app.test_client()
    foreign = csrf_of(stranger.get(f"/tables/new?game={GAME}&players=4").get_data(as_text=True))
    wrong_key = URLSafeTimedSerializer("not-the-secret-key", salt="wtf-csrf-token")
    problems: list[str] = []
    tried = []

    for rule in rules:
        assert rule.endpoint in RECIPES, f"{rule.rule} ({rule.endpoint}) has no request recipe"
        recipe, changes_state = RECIPES[rule.endpoint]
        for method in sorted(rule.methods & UNSAFE_METHODS):
            world = World(csrf_app)  # fresh table, deal 1 entered, for each route
            url = build(rule, world)
            fields = recipe(world)
            good = world.good_token()
            raw = world.session_raw_token()
            assert foreign != good
            before = snapshot(world.db)
            send = world.client.open

            attempts = [
                ("no token", send(url, method=method, data=fields)),
                ("no token, htmx", send(url, method=method, data=fields, headers={"HX-Request": "true"})),
                ("empty token", send(url, method=method, data={**fields, "csrf_token": ""})),
                ("made-up token", send(url, method=method, data={**fields, "csrf_token": "forged"})),
                ("tampered token", send(url, method=method, data={
                    **fields, "csrf_token": good[:-2] + ("AA" if not good.endswith("AA") else "BB")})),
                ("unsigned session token", send(url, method=method, data={**fields, "csrf_token": raw})),
                ("token signed with another key", send(url, method=method, data={
                    **fields, "csrf_token": wrong_key.dumps(raw)})),
                ("forged token in the X-CSRFToken header", send(url, method=method, data=fields,
                                                              headers={"X-CSRFToken": "forged"})),
                ("another phone's token", send(url, method=method, data={**fields, "csrf_token": foreign})),
                ("another phone's token in the header", send(url, method=method, data=fields,
                                                            headers={"X-CSRFToken": foreign})),
                # A valid token but no session cookie: what a cross-site page could at best replay.
                ("valid token, no session", csrf_app.test_client().open(
                    url, method=method, data={**fields, "csrf_token": good})),
                # This phone's valid token sent with the other phone's cookie.
                ("this phone's token, other phone's cookie", stranger.open(
                    url, method=method, data={**fields, "csrf_token": good})),
            ]
            for what, response in attempts:
                problems.extend(refused(response, f"{method} {rule.rule} [{what}]"))
            if snapshot(world.db) != before:
                problems.append(f"{method} {rule.rule}: a refused request changed the database")

            # The same request with the right token succeeds: the refusals were about the token.
            response = send(url, method=method, data={**fields, "csrf_token": good})
            if not 200 <= response.status_code < 400:
                problems.append(f"{method} {rule.rule} with the right token: status {response.status_code}: "
                                + text_of(response.get_data(as_text=True))[:300])
            changed = snapshot(world.db) != before
            if changed != changes_state:
                problems.append(f"{method} {rule.rule} with the right token: database "
                                f"{'changed' if changed else 'unchanged'}, expected the opposite")
            # The header, as htmx or a script would send it, is accepted too.
            if not changes_state:
                response = send(url, method=method, data=fields, headers={"X-CSRFToken": good})
                if not 200 <= response.status_code < 400:
                    problems.append(f"{method} {rule.rule} with the right token in the header: "
                                    f"status {response.status_code}")
            tried.append(rule.endpoint)

    assert set(tried) >= KNOWN_UNSAFE
    assert not problems, "\n".join(problems)


def test_a_refused_post_leaves_revision_deals_and_tables_as_they_were(csrf_app):
    """The plain statement of (a), on the figures phones see: revision, deal count, tables."""
    world = World(csrf_app)
    conn = sqlite3.connect(world.db)
    try:
        def figures():
            return (conn.execute("SELECT revision FROM tables WHERE token = ?", (world.token,)).fetchone()[0],
                    conn.execute("SELECT COUNT(*) FROM deals").fetchone()[0],
                    conn.execute("SELECT COUNT(*) FROM tables").fetchone()[0])

        urls = [(rule, build(rule, world)) for rule in unsafe_rules(csrf_app)]  # may prepare a table
        before = figures()
        assert world.deal_count() == 1  # (the tables ending at time, issue 33, hold a deal of their own)
        for rule, url in urls:
            recipe, _ = RECIPES[rule.endpoint]
            response = world.client.post(url, data=recipe(world))
            assert response.status_code == 400, rule.rule
            assert REFUSED in text_of(response.get_data(as_text=True)), rule.rule
            assert figures() == before, f"{rule.rule} changed the table without a token"
    finally:
        conn.close()


# --- GET never changes state ------------------------------------------------------------------------

@pytest.mark.slow  # every GET route with three queries: 1.5 s
def test_no_get_route_changes_state(csrf_app):
    world = World(csrf_app)
    good = world.good_token()
    db = world.db
    rev = sqlite3.connect(db).execute("SELECT revision FROM tables").fetchone()[0]
    # Query strings that look like a deal, an undo, a finish: a GET must ignore them.
    lookalike = {"csrf_token": good, "number": "2", "finished": "1", "was": "x",
                 "game": GAME, "players": "4", "name-0": "A", "name-1": "B", "name-2": "C",
                 "name-3": "D", **DEAL_1}
    world.prepared_token()  # made by the laptop before anyone asks for its seating page
    for rule in csrf_app.url_map.iter_rules():  # what the URLs need (a night's round, a player) made first
        build(rule, world)
    before_rows = snapshot(db)
    before = original = change_count(db)
    problems: list[str] = []
    seen = set()
    for rule in csrf_app.url_map.iter_rules():
        url = build(rule, world)
        if "GET" not in rule.methods:
            # A state-changing route asked with GET: refused, nothing done.
            response = world.client.get(url, query_string=lookalike)
            if response.status_code != 405:
                problems.append(f"GET {rule.rule} (a {sorted(rule.methods)} route): status {response.status_code}")
            continue
        seen.add(rule.endpoint)
        for query in ({}, {"rev": str(rev)} if rule.endpoint == "tables.live" else {"next": "/"}, lookalike):
            for method in ("GET", "HEAD"):
                response = world.client.open(url, method=method, query_string=query)
                if not 200 <= response.status_code < 400:
                    problems.append(f"{method} {url}?{query}: status {response.status_code}")
                if response.status_code != 204:
                    problems.extend(check_headers(response, f"{method} {url}"))
        if change_count(db) != before:
            problems.append(f"GET {rule.rule} added to the change log")
            before = change_count(db)
    assert not problems, "\n".join(problems)
    assert {"tables.show", "tables.live", "tables.host", "tables.log", "tables.edit",
            "tables.export_json", "home.index"} <= seen
    assert change_count(db) == original, "GET requests added to the change log"
    assert snapshot(db) == before_rows, "GET requests changed the database"


# --- security headers ------------------------------------------------------------------------------

def test_security_headers_on_pages_errors_and_the_live_fast_path(csrf_app):
    world = World(csrf_app)
    client = world.client
    problems: list[str] = []
    for what, response in [
        ("home", client.get("/")),
        ("table page", client.get(f"/t/{world.token}")),
        ("host view", client.get(f"/t/{world.token}/host")),
        ("live, changed", client.get(f"/t/{world.token}/live?rev=0")),
        ("export.json", client.get(f"/t/{world.token}/export.json")),
        ("static js", client.get("/static/app.js")),
        ("404", client.get("/t/" + "A" * 22)),
        ("CSRF refusal", client.post(f"/t/{world.token}/undo", data={"number": "1"})),
        ("gzip page", client.get(f"/t/{world.token}", headers={"Accept-Encoding": "gzip"})),
    ]:
        problems.extend(check_headers(response, what))
    assert not problems, "\n".join(problems)

    # The fast path: the 204 comes from companion/web/live.py, without Flask at all.
    flask_requests = []

    def count(sender, **_extra):
        flask_requests.append(sender)

    rev = sqlite3.connect(world.db).execute(
        "SELECT revision FROM tables WHERE token = ?", (world.token,)).fetchone()[0]
    with request_started.connected_to(count, csrf_app):
        fast = client.get(f"/t/{world.token}/live?rev={rev}&form=2")
        assert flask_requests == [], "the unchanged poll went through Flask, not the fast path"
        assert fast.status_code == 204 and fast.get_data() == b""
        assert fast.headers["X-Content-Type-Options"] == "nosniff"
        assert fast.headers["Referrer-Policy"] == "no-referrer"
        assert fast.headers["X-Frame-Options"] == "DENY"
        assert fast.headers["Cache-Control"] == "no-store"
        # A 204 has no document for a CSP to govern; if one is sent it must still be strict.
        if "Content-Security-Policy" in fast.headers:
            assert not check_headers(fast, "204 fast path")
        # The same route when the table did change: the partial Flask rendered above ("live,
        # changed"), sent from memory (companion/serving/live.py) with the same headers.
        changed = client.get(f"/t/{world.token}/live?rev={rev - 1}")
        assert changed.status_code == 200 and flask_requests == []
        assert not check_headers(changed, "live, changed, from memory")
        gzipped = client.get(f"/t/{world.token}/live?rev={rev - 1}", headers={"Accept-Encoding": "gzip"})
        assert gzipped.headers["Content-Encoding"] == "gzip" and flask_requests == []
        assert not check_headers(gzipped, "live, changed, from memory, gzip")
        # A partial not rendered yet (another form number) goes through Flask.
        assert client.get(f"/t/{world.token}/live?rev={rev - 1}&form=7").status_code == 200 and flask_requests
