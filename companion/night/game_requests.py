"""Game requests (issue 47): before a draw, a player taps "I'd like to play …" or "I'd like to
learn …" on their phone (My night), among tonight's games; the next draw honours it as a cost
(seating.draw_round's ``requests``), and the hall says how many requests the draw met.

The rules, in one place:

- one request per player at a time: a new one replaces it, "No request" withdraws it;
- it waits for a draw that meets it, then it is closed (the draw met it: the player plays, or
  learns, the game that round); a draw that can't meet it leaves it open for the next one;
- a draw fixed with "Draw again" is given the requests its first draw met, once more;
- requests belong to tonight's list: a new night starts with none;
- tonight's games are the games the companion has (the draw form offers every one of them).

Each drawn round keeps the requests it was given and which it met (``again``: the requester
sits beside someone they already shared a table with tonight: the hall says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Iterable, Mapping, Sequence

from ..changes import Change, publish
from ..games import GAMES, FieldError
from ..games.text import T
from ..meetup import seating
from ..outcomes import Done, done, not_found, refused
from ..store import Connection, write
from ..store import nights as night_rows
from ..tables import service as table_service


@dataclass(frozen=True)
class GameRequest:
    player_id: int
    game: str
    learn: bool  # "I'd like to learn …" (else "I'd like to play …")


@dataclass(frozen=True)
class RequestsMet:
    """What a drawn round did with the requests it was given: ``asked``, ``met``, and the
    player ids whose met request seats them beside someone they had played with tonight."""
    asked: int
    met: int
    again: tuple[int, ...] = ()


def tonight_games() -> list[str]:
    """The games a request may name: every game the companion has (the draw form offers them all)."""
    return list(GAMES)


def open_requests(conn: Connection) -> dict[int, GameRequest]:
    """Tonight's open requests, by player id."""
    return {pid: GameRequest(pid, row["game"], row["learn"])
            for pid, row in night_rows.game_requests(conn, night_rows.current_night(conn)).items()}


def request_of(conn: Connection, player_id: int) -> GameRequest | None:
    return open_requests(conn).get(player_id)


def ask(conn: Connection, player_id: int, game: str | None, learn: bool = False) -> Done:
    """The player's request from their phone: ``game`` to play (or, ``learn``, to learn), or
    None: no request. Replaces any earlier one. Its value: the request now (None: none)."""
    if game is not None and game not in tonight_games():
        return refused([FieldError("request", T("Choose one of tonight's games."))])
    with write(conn):
        row = night_rows.player(conn, player_id)
        if row is None or row["night"] != night_rows.current_night(conn) or row["left"]:
            return not_found()
        night_rows.set_game_request(conn, player_id, game, learn, table_service.now())
    publish(Change("night"))
    return done(None if game is None else GameRequest(player_id, game, learn))


def draw_options(conn: Connection, player_ids: Sequence[int], known: Callable[[], Mapping[int, Iterable[str]]],
                 redrawn_round: int | None = None) -> dict:
    """What a draw of ``player_ids`` is given for the requests (seating.draw_round's keywords:
    ``requests``, and ``known``, called only when someone asks to learn: who played which
    game before tonight). ``redrawn_round``: a round drawn again gets its first draw's met
    requests back."""
    wanted = {pid: (r.game, r.learn) for pid, r in open_requests(conn).items() if pid in player_ids}
    if redrawn_round is not None:
        for r in night_rows.round_requests(conn, redrawn_round):
            if r["met"] and r["player_id"] in player_ids:
                wanted.setdefault(r["player_id"], (r["game"], r["learn"]))
    if not wanted:
        return {}
    options: dict = {"requests": wanted}
    if any(learn for _game, learn in wanted.values()):
        options["known"] = known()
    return options


def settle(conn: Connection, round_id: int | None, tables: Iterable[tuple[str, Sequence[int]]],
           earlier: Iterable[Sequence[seating.Seating]], options: Mapping, redrawn: bool = False) -> None:
    """Inside the draw's write: keep which of the draw's requests (``options``, from
    :func:`draw_options`) round ``round_id``'s ``tables`` (game id, player ids) met, and close
    the met ones. ``redrawn``: the round was drawn again: its earlier record goes, and a request
    its first draw met that this one doesn't is open again. ``round_id`` None (a table seated
    on its own, as rolling tables seat them): the met requests are closed, nothing recorded."""
    wanted: Mapping[int, tuple[str, bool]] = options.get("requests") or {}
    drawn = [seating.Seating(game, tuple(players)) for game, players in tables]
    earlier = list(earlier)
    if redrawn and round_id is not None:
        before = night_rows.round_requests(conn, round_id)
        night_rows.clear_round_requests(conn, round_id)
        still_open = set(night_rows.game_requests(conn, night_rows.current_night(conn)))
        for r in before:
            if r["met"] and r["player_id"] not in still_open:
                night_rows.set_game_request(conn, r["player_id"], r["game"], r["learn"], table_service.now())
    if not wanted:
        return
    met, _missed = seating.requests_met(drawn, wanted, experience=options.get("known"), history=earlier)
    shared = {frozenset(pair) for round_ in earlier for t in round_ for pair in combinations(t.players, 2)}
    outcomes = []
    for table in drawn:
        for pid in table.players:
            if pid not in wanted:
                continue
            game, learn = wanted[pid]
            again = pid in met and any(frozenset((pid, q)) in shared for q in table.players if q != pid)
            outcomes.append(dict(player_id=pid, game=game, learn=learn, met=pid in met, again=again))
    if round_id is None:
        night_rows.close_game_requests(conn, [o["player_id"] for o in outcomes if o["met"]])
        return
    night_rows.record_round_requests(conn, round_id, outcomes)


def round_outcome(conn: Connection, round_id: int) -> RequestsMet | None:
    """What round ``round_id``'s draw did with its requests (None: it was given none)."""
    found = night_rows.round_requests(conn, round_id)
    if not found:
        return None
    return RequestsMet(len(found), sum(r["met"] for r in found), tuple(r["player_id"] for r in found if r["again"]))
