"""The seating search in a Python process of its own, so a long draw never freezes the room
(issue 42: a draw of 200 players with one player kept apart from everyone searched for 1.9 s, and
one with 51 names kept apart from each other for 3.8 s, on the server's one loop, every phone's
page waiting behind it; a thread would not help: it holds the same interpreter's lock).

Under `companion serve` (:func:`run_elsewhere` is on: companion/cli.py), :func:`draw_round`
sends its inputs to ``python -m companion.meetup.draw_process`` and waits for the draw
(gevent's subprocess: the loop answers everyone else meanwhile); a search that takes more than
``DRAW_TIMEOUT_S`` is stopped and the organiser told. Elsewhere (tests, scripts) it is
:func:`companion.meetup.seating.draw_round` itself, in this process: the same draw either way.
The inputs and the answer travel pickled over the child's pipes (our own process, never a phone's).
"""

from __future__ import annotations

import pickle
import subprocess
import sys

from ..games.text import T
from . import seating

DRAW_TIMEOUT_S = 30.0
_elsewhere = False


def run_elsewhere(on: bool = True) -> None:
    """Search in a process of its own from now on (``companion serve`` turns it on)."""
    global _elsewhere
    _elsewhere = on


def draw_round(roster, history=(), **options) -> seating.Draw:
    """:func:`companion.meetup.seating.draw_round`, run in a process of its own when
    :func:`run_elsewhere` is on. Raises :class:`~companion.meetup.seating.SeatingError` as it
    does, and when the search takes more than ``DRAW_TIMEOUT_S``."""
    if not _elsewhere:
        return seating.draw_round(roster, history, **options)
    if "games" in options:
        raise ValueError("a draw elsewhere uses the registered games (GAMES), not a mapping given here")
    payload = pickle.dumps((list(roster), list(history), options))
    try:
        done = subprocess.run([sys.executable, "-m", __name__], input=payload, capture_output=True,
                              timeout=DRAW_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise seating.SeatingError(T(
            "The draw took longer than {seconds} seconds and was stopped: the wishes may not fit "
            "together (never-together pairs that leave no seating). Try with fewer wishes.",
            seconds=int(DRAW_TIMEOUT_S))) from None
    if done.returncode != 0 or not done.stdout:
        raise RuntimeError(f"the draw's process failed ({done.returncode}): "
                           f"{done.stderr.decode(errors='replace')[-2000:]}")
    kind, value = pickle.loads(done.stdout)
    if kind == "refused":
        raise seating.SeatingError(value)
    return value


def main() -> None:
    roster, history, options = pickle.loads(sys.stdin.buffer.read())
    try:
        answer = ("drawn", seating.draw_round(roster, history, **options))
    except seating.SeatingError as refused:
        answer = ("refused", refused.message)
    sys.stdout.buffer.write(pickle.dumps(answer))


if __name__ == "__main__":
    main()
