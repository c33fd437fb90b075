"""Helpers shared by the tests (imported by conftest.py; ``from helpers import text_of``).

tests/ is on sys.path (pytest puts the rootdir conftest's folder there), so any test file,
tests/browser/ and tests/games/ included, can import this module by name.
"""

from __future__ import annotations

import html as _html
import re

_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_BDI = re.compile(r"</?bdi\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]+>")


def text_of(markup: str) -> str:
    """The text a reader sees in an HTML page or fragment: script and style bodies dropped,
    tags read as word breaks (except <bdi>, which isolates a name inline without a break),
    character references decoded, runs of whitespace (non-breaking spaces too) as one space."""
    markup = _SCRIPT_OR_STYLE.sub(" ", markup)
    markup = _BDI.sub("", markup)
    return " ".join(_html.unescape(_TAG.sub(" ", markup)).split())


def csrf_of(markup: str) -> str:
    """The CSRF token of the (first) form on a page; fails the test if there is none."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', markup)
    assert found, "the page has no CSRF token field"
    return found.group(1)


# --- the rules engine's facts and databases ---------------------------------------------------

def rwd_facts(progress, chips=(4, 3, 3, 3), tricks=(4, 3, 3, 3), choice: int = 0) -> dict:
    """One valid 4-player RWD deal (by default a draw, so the match never ends: a table of any
    length); an open choice (who starts after a draw) gets its ``choice``-th option."""
    from companion.games import GAMES

    game = GAMES["rwd"]
    form = {f"chips-{i}": str(c) for i, c in enumerate(chips)}
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    upcoming = game.next_deal(progress)
    if upcoming.choice:
        form[upcoming.choice.key] = str(upcoming.choice.options[choice])
    facts, errors = game.parse_deal(form, progress)
    assert not errors, errors
    return facts


def fresh_db(tmp_path) -> str:
    """A migrated empty database file under ``tmp_path``; its path."""
    from companion import store as storage

    path = str(tmp_path / "h.sqlite")
    storage.migrate(path)
    return path


# --- tables through the forms, as a phone makes them -------------------------------------------

def rwd_deal_form(number: int, winner: int) -> dict[str, str]:
    """The deal form of a four-player RWD table: chips 3 3 3 4, ``winner`` takes 7 tricks."""
    tricks = [2, 2, 2, 2]
    tricks[winner] += 5
    return {"number": str(number), **{f"chips-{i}": c for i, c in enumerate(["3", "3", "3", "4"])},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}}


def rwd_rotating_deal_form(number: int) -> dict:
    """A valid 4-player RWD deal as a form sends it; the winner rotates with ``number``, so the
    match doesn't end (3 wins) soon."""
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    winner = number % 4
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return {"number": str(number), **{f"chips-{i}": str(c) for i, c in enumerate(chips)},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}}


def create_rwd_table(phone, names) -> str:
    """``phone`` creates an RWD table for ``names`` through the new-table form (CSRF on); its token."""
    page = phone.get(f"/tables/new?game=rwd&players={len(names)}").get_data(as_text=True)
    made = phone.post("/tables", data={"csrf_token": csrf_of(page), "game": "rwd",
                                       "players": str(len(names)), **{f"name-{i}": n for i, n in enumerate(names)}})
    return made.headers["Location"].rsplit("/", 1)[-1]


# --- the night (issue 25) -------------------------------------------------------------------------

NIGHT_NAMES = "Ann Bob Cy Di Eve Fay Gus Hal Ivy Jo Kim Lu".split()


def join_night(app, names=NIGHT_NAMES) -> dict:
    """Each name joins the night from its own phone (192.168.1.10, .11, …); name → test client."""
    phones = {}
    for n, name in enumerate(names):
        phone = app.test_client()
        phone.environ_base.update({"REMOTE_ADDR": f"192.168.1.{10 + n}"})
        assert phone.post("/night/join", data={"name": name}).status_code == 303
        phones[name] = phone
    return phones


# --- tables at the store level (companion.tables, no Flask) ------------------------------------

def migrated_connection(tmp_path):
    """For a ``conn`` fixture: ``yield from migrated_connection(tmp_path)`` gives a connection to
    a new migrated database under ``tmp_path``, closed after the test."""
    from companion import store as storage

    path = str(tmp_path / "t.sqlite")
    storage.migrate(path)
    connection = storage.connect(path)
    yield connection
    connection.close()


def stored_table(conn, game_id, names, options, deals) -> str:
    """A new table of ``game_id`` with ``deals`` (facts, in order) added; its token."""
    from companion.tables import service as store

    token = store.create(conn, game_id, list(names), options)
    for number, facts in enumerate(deals, start=1):
        store.add_deal(conn, token, number, facts)
    return token


def fingerprint_of(conn, token, number):
    """The stored fingerprint of deal ``number`` (what an edit must say it replaces)."""
    from companion.tables import service as store

    return store.fingerprint(store.load(conn, token).deals[number - 1])


# --- pages as a reader sees them ------------------------------------------------------------------

def visible_page(client, path: str, lang: str = "en", **params) -> str:
    """The visible text of a page (``text_of``) a phone reading ``lang`` gets; fails unless 200."""
    response = client.get(path, query_string=params, headers={"Accept-Language": lang})
    assert response.status_code == 200, (path, response.status_code)
    return text_of(response.get_data(as_text=True))


def game_card(client, game: str, lang: str = "en") -> str:
    """The visible text of a game's reference card."""
    return visible_page(client, f"/games/{game}", lang)


def rendered(app, text, lang: str) -> str:
    """A rules-engine Text as a phone reading ``lang`` sees it."""
    from flask_babel import force_locale, get_translations, gettext

    with app.test_request_context("/"), force_locale(lang):
        return text.render(gettext, lambda one, many, n: get_translations().ungettext(one, many, n))


def star_points(path: str) -> int:
    """Points of a star-like SVG outline (absolute coordinates): vertices farther from the
    centre than both neighbours."""
    import math

    points = [tuple(map(float, pair)) for pair in re.findall(r"(-?[\d.]+)[ ,](-?[\d.]+)", path)]
    cx = sum(x for x, _ in points) / len(points)
    cy = sum(y for _, y in points) / len(points)
    radius = [math.hypot(x - cx, y - cy) for x, y in points]
    return sum(1 for i, r in enumerate(radius) if r > radius[i - 1] and r > radius[(i + 1) % len(radius)])
