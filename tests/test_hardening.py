"""Issue 13: one device on a crowded or hostile Wi-Fi can't take the scoresheet away from
everyone. Bounded caches, rematch exactly once, loopback trust needs a loopback Host, names
that can't collide or reorder the page, our own database only, private pages not cached,
a damaged database answered with the app's message and what was typed kept."""

from __future__ import annotations

import ast
import json
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from companion import db, tables as store
from companion.games import GAMES, MatchSetup

from test_tables import create as create_via_form


def rwd_facts(progress, chips=(4, 3, 3, 3), tricks=(4, 3, 3, 3), choice: int = 0) -> dict:
    """One valid 4-player RWD deal (by default a draw, so the match never ends: a table of any
    length); an open choice (who starts after a draw) gets its ``choice``-th option."""
    game = GAMES["rwd"]
    form = {f"chips-{i}": str(c) for i, c in enumerate(chips)}
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    upcoming = game.next_deal(progress)
    if upcoming.choice:
        form[upcoming.choice.key] = str(upcoming.choice.options[choice])
    facts, errors = game.parse_deal(form, progress)
    assert not errors, errors
    return facts


def fresh_db(tmp_path: Path) -> str:
    path = str(tmp_path / "h.sqlite")
    db.migrate(path)
    return path


# --- 3. caches bounded in bytes, keyed by what they store ------------------------------------

def deep_size(obj, seen=None) -> int:
    """Bytes reachable from ``obj``, each object counted once (classes and functions skipped)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, type) or callable(obj):
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_size(x, seen) for x in obj)
    elif hasattr(obj, "__dict__"):
        size += deep_size(vars(obj), seen)
    return size


def test_replay_estimate_is_not_below_the_real_size():
    game = GAMES["rwd"]
    progress = game.start(MatchSetup("rwd", ("A", "B", "C", "D"), {}))
    for _ in range(60):
        progress = game.add_deal(progress, rwd_facts(progress))
    assert store.progress_bytes(progress) >= deep_size(progress) * 0.9


def test_replay_cache_is_bounded_by_bytes_not_entries():
    game = GAMES["rwd"]
    progress = game.start(MatchSetup("rwd", ("A", "B", "C", "D"), {}))
    for _ in range(100):
        progress = game.add_deal(progress, rwd_facts(progress))
    one = store.progress_bytes(progress)
    cache = store.ReplayCache(max_bytes=10 * one)
    for i in range(50):
        cache.put(("table", i, 100), progress)
    assert cache.bytes <= 10 * one
    assert len(cache.entries) == 10
    assert cache.get(("table", 49, 100)) is progress and cache.get(("table", 0, 100)) is None
    small = game.start(MatchSetup("rwd", ("A", "B", "C", "D"), {}))
    for i in range(200):  # small entries: many more of them fit
        cache.put(("small", i, 0), small)
    assert len(cache.entries) > 100 and cache.bytes <= 10 * one


def test_static_gzip_cache_keyed_by_the_file_not_the_url(client):
    from companion.web import _STATIC_GZ
    _STATIC_GZ.entries.clear()
    _STATIC_GZ.bytes = 0
    vendor = next(p.name for p in (Path(client.application.static_folder) / "vendor").glob("htmx-*.min.js"))
    plain = client.get(f"/static/vendor/{vendor}", headers={"Accept-Encoding": "gzip"})
    assert plain.status_code == 200 and plain.headers["Content-Encoding"] == "gzip"
    for i in range(40):
        odd = client.get(f"/static/x{i}/../vendor/{vendor}", headers={"Accept-Encoding": "gzip"})
        assert odd.status_code == 200 and odd.get_data() == plain.get_data()
    assert len(_STATIC_GZ.entries) == 1
    assert _STATIC_GZ.bytes == len(plain.get_data())


def test_bytes_lru_evicts_the_least_recently_used():
    from companion.web import BytesLRU
    cache = BytesLRU(100)
    cache.put(("a",), b"x" * 40)
    cache.put(("b",), b"x" * 40)
    cache.get(("a",))
    cache.put(("c",), b"x" * 40)
    assert cache.get(("b",)) is None and cache.get(("a",)) and cache.get(("c",))
    cache.put(("huge",), b"x" * 101)  # larger than the whole budget: not kept, nothing evicted
    assert cache.get(("huge",)) is None and cache.bytes == 80


# --- 5. rematch exactly once ------------------------------------------------------------------

def test_sixteen_simultaneous_rematches_make_one_table(tmp_path):
    path = fresh_db(tmp_path)
    conn = db.connect(path)
    token = store.create(conn, "rwd", ["Ann", "Bo", "Cy", "Di"], {})
    before = store.revision(conn, token)
    for _round in range(3):
        barrier = threading.Barrier(16)
        results: list[str] = []
        errors: list[BaseException] = []

        def press():
            own = db.connect(path)
            try:
                barrier.wait()
                results.append(store.rematch(own, token))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
            finally:
                own.close()

        threads = [threading.Thread(target=press) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert len(set(results)) == 1
    table = store.load(conn, token)
    assert conn.execute("SELECT COUNT(*) FROM tables WHERE rematch_of = ?", (table.id,)).fetchone()[0] == 1
    assert table.rematch_token == results[0]
    assert store.revision(conn, token) == before + 1  # phones on the old table learn of it once
    new = store.load(conn, results[0])
    assert new.setup.players == table.setup.players and new.rematch_token is None


def test_rematch_uses_the_games_rematch_options(tmp_path, monkeypatch):
    conn = db.connect(fresh_db(tmp_path))
    token = store.create(conn, "miraiscope", ["Ann", "Bo"], {})
    game = store.load(conn, token).game
    option = game.options[0]
    monkeypatch.setattr(type(game), "rematch_options", lambda self, match: {option.key: 1}, raising=False)
    new = store.load(conn, store.rematch(conn, token))
    assert new.setup.options[option.key] == 1


def test_rematch_route_leads_every_phone_to_the_same_table(client):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    first = client.post(f"/t/{token}/rematch")
    second = client.post(f"/t/{token}/rematch")
    assert first.status_code == second.status_code == 303
    assert first.headers["Location"] == second.headers["Location"]


# --- 7/8. names --------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, stored", [
    ("Ann\x00", "Ann"), ("\x07Bo", "Bo"), ("Ann\u200b", "Ann"), ("Rene\u0301", "René"),
    ("  Ann   Bo ", "Ann Bo"), ("\u202eevil", "evil"), ("a\u2066b\u2069", "ab"), ("山田\u3000花子", "山田 花子"),
])
def test_names_are_stored_clean(raw, stored):
    names, errors = store.check_names([raw, "Zed"])
    assert not errors and names[0] == stored


@pytest.mark.parametrize("first, second", [
    ("Ann", "Ann\u200b"), ("René", "Rene\u0301"), ("Ann", "ＡＮＮ"), ("ann", "ANN"), ("Ann", "An\u00adn"),
])
def test_names_that_look_the_same_are_refused(first, second):
    _names, errors = store.check_names([first, second])
    assert [e.field for e in errors] == ["name-1"]


@pytest.mark.parametrize("raw", ["\u200b", "\x00\x07", "\u202e", "\u200d\u200c"])
def test_a_name_of_only_invisible_characters_is_refused_with_its_own_message(client, raw):
    response = client.post("/tables", data={"game": "rwd", "players": "4", "name-0": raw, "name-1": "Bo",
                                            "name-2": "Cy", "name-3": "Di"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "only invisible characters" in html
    assert 'value="Bo"' in html  # what was typed is kept


def test_twin_shoot_teams_with_the_same_name_are_refused(client):
    data = {"game": "twin_shoot", "players": "4", "name-0": "A & B", "name-1": "C", "name-2": "A",
            "name-3": "B & C"}
    response = client.post("/tables", data=data)
    assert response.status_code == 422
    assert "same name as team 1" in response.get_data(as_text=True)
    _names, errors = store.check_names(["A & B", "C", "A", "B & C"], GAMES["twin_shoot"])
    assert [e.field for e in errors] == ["name-2"]
    assert not store.check_names(["A & B", "C", "A", "D"], GAMES["twin_shoot"])[1]


def test_exports_keep_every_entrant_even_with_equal_names(client, app):
    """A table stored before names were checked may hold two teams of one name: none drops out."""
    token = create_via_form(client, "twin_shoot", ["A & B", "C", "A", "D"])
    with app.app_context():
        conn = db.connect(app.config["DATABASE"])
        conn.execute("UPDATE tables SET players = ? WHERE token = ?",
                     (json.dumps(["A & B", "C", "A", "B & C"]), token))
        conn.close()
    doc = json.loads(client.get(f"/t/{token}/export.json").get_data(as_text=True))
    assert [t["name"] for t in doc["totals"]] == ["A & B & C", "A & B & C"]
    csv_text = client.get(f"/t/{token}/export.csv").get_data(as_text=True)
    header = csv_text.lstrip("\ufeff").splitlines()[0].split(",")
    assert len(header) == len(set(header))


# --- 9. our own database only ------------------------------------------------------------------

def test_a_new_database_is_stamped(tmp_path):
    path = fresh_db(tmp_path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == db.APPLICATION_ID


def test_another_programs_database_is_refused_and_left_byte_identical(tmp_path):
    path = tmp_path / "other.sqlite"
    other = sqlite3.connect(path)
    other.executescript("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
                        "INSERT INTO notes (body) VALUES ('keep me');")
    other.close()
    before = path.read_bytes()
    with pytest.raises(db.DatabaseError, match="another program"):
        db.migrate(str(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]  # no -wal / -shm left


def test_a_stamped_foreign_database_is_refused_even_with_our_table_names(tmp_path):
    path = tmp_path / "x.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 12345")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(db.DatabaseError):
        db.migrate(str(path))
    assert path.read_bytes() == before


def test_an_earlier_versions_database_is_recognised_stamped_and_kept(tmp_path):
    path = str(tmp_path / "old.sqlite")
    conn = sqlite3.connect(path)
    for statement in db._statements(db.MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO tables (token, game, players, options, created_at, updated_at)"
                 " VALUES ('tok_tok_tok_tok_tok', 'rwd', '[\"A\",\"B\",\"C\",\"D\"]', '{}', 'x', 'x')")
    conn.commit()
    conn.close()
    assert db.migrate(path) == db.SCHEMA_VERSION
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == db.APPLICATION_ID
    assert conn.execute("SELECT token FROM tables").fetchall() == [("tok_tok_tok_tok_tok",)]


@pytest.mark.slow
def test_serve_refuses_another_programs_database(tmp_path):
    import subprocess
    path = tmp_path / "other.sqlite"
    sqlite3.connect(path).executescript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    before = path.read_bytes()
    result = subprocess.run([sys.executable, "-m", "companion.cli", "serve", "--db", str(path), "--host", "127.0.0.1",
                             "--port", "1"], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "another program" in result.stderr
    assert path.read_bytes() == before


# --- 10. cookies, caching, a damaged database ------------------------------------------------------

def test_session_cookie_is_samesite_lax(csrf_client):
    response = csrf_client.get("/tables/new?game=rwd")
    cookies = [v for k, v in response.headers.items() if k == "Set-Cookie" and v.startswith("session=")]
    assert cookies and "SameSite=Lax" in cookies[0] and "HttpOnly" in cookies[0]


def test_table_pages_log_edit_and_exports_are_not_stored(client):

    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    saved = client.post(f"/t/{token}/deals", data={"number": "1", "chips-0": "1", "chips-1": "4", "chips-2": "4",
                                                    "chips-3": "4", "tricks-0": "7", "tricks-1": "2",
                                                    "tricks-2": "2", "tricks-3": "2"})
    assert saved.status_code == 303
    for path in ("", "/host", "/log", "/deals/1/edit", "/export.csv", "/export.json", "/live"):
        response = client.get(f"/t/{token}{path}")
        assert response.status_code == 200, path
        assert response.headers.get("Cache-Control") == "no-store", path
    assert client.get("/").headers.get("Cache-Control") == "no-store"  # lists tables on the laptop
    assert "no-store" not in client.get("/static/app.css").headers.get("Cache-Control", "")


def test_a_database_damaged_while_running_keeps_what_was_typed(client, monkeypatch):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])

    def damaged(*_args, **_kw):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(store, "add_deal", damaged)
    typed = {"number": "1", "chips-0": "1", "chips-1": "4", "chips-2": "4", "chips-3": "4",
             "tricks-0": "7", "tricks-1": "2", "tricks-2": "2", "tricks-3": "2"}
    response = client.post(f"/t/{token}/deals", data=typed)
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    assert "damaged" in html and 'value="7"' in html


def test_a_database_error_outside_a_form_route_gives_the_form_back(client, monkeypatch):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])

    def damaged(*_args, **_kw):
        raise sqlite3.DatabaseError("file is not a database")

    monkeypatch.setattr(store, "set_finished", damaged)
    response = client.post(f"/t/{token}/finish", data={"finished": "1"})
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    assert "damaged" in html and 'name="finished" value="1"' in html and f"/t/{token}/finish" in html


# --- 6. loopback trust needs a loopback Host (DNS rebinding) ------------------------------------

@pytest.mark.parametrize("host, trusted", [
    ("localhost", True), ("localhost:8000", True), ("127.0.0.1:8000", True), ("[::1]:8000", True),
    ("127.0.0.1", True), ("LOCALHOST.:8000", True), ("192.168.1.5:8000", True),  # the join address
    ("rebind.attacker.example", False), ("rebind.attacker.example:8000", False), ("localhost.attacker.example", False),
    ("192.168.1.6:8000", False), ("", False), ("[::1", False),
])
def test_only_a_host_naming_the_laptop_is_trusted(host, trusted):
    from companion import lan
    assert lan.is_own_request("127.0.0.1", host, lambda: "192.168.1.5") is trusted
    assert lan.is_own_request("192.168.1.23", host, lambda: "192.168.1.5") is False  # never from the LAN


def test_dns_rebinding_gets_no_table_list(client):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    assert token in client.get("/", headers={"Host": "127.0.0.1:8000"}).get_data(as_text=True)
    assert token in client.get("/", headers={"Host": "[::1]:8000"}).get_data(as_text=True)
    rebound = client.get("/", headers={"Host": "rebind.attacker.example:8000"})
    assert rebound.status_code == 200 and token not in rebound.get_data(as_text=True)


def test_dns_rebinding_is_not_trusted_by_the_link_guard(app, client):
    import secrets
    guard = app.extensions["link_guard"]
    for _ in range(guard.limit):
        client.get(f"/t/{secrets.token_urlsafe(16)}", headers={"Host": "rebind.attacker.example"})
    assert client.get(f"/t/{secrets.token_urlsafe(16)}",
                      headers={"Host": "rebind.attacker.example"}).status_code == 429
    assert client.get(f"/t/{secrets.token_urlsafe(16)}").status_code == 404  # the laptop itself: trusted


# --- the link guard counts distinct links, not requests (issue 11 item 14) ---------------------------

def test_a_phone_polling_its_removed_table_is_never_locked_out(app, client):
    import secrets
    guard = app.extensions["link_guard"]
    phone = {"REMOTE_ADDR": "192.168.1.23"}
    gone = secrets.token_urlsafe(16)
    for _ in range(guard.limit * 5):  # its live poll, every 0.7 s for a minute and more
        assert client.get(f"/t/{gone}/live?rev=3", environ_base=phone).status_code == 404
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    assert client.get(f"/t/{token}", environ_base=phone).status_code == 200  # a freshly scanned table
    for _ in range(guard.limit):
        client.get(f"/t/{secrets.token_urlsafe(16)}", environ_base=phone)
    assert client.get(f"/t/{token}", environ_base=phone).status_code == 429  # guessing still is cut off
    assert len(guard.misses["192.168.1.23"]) <= guard.limit  # memory per device stays bounded


# --- 4. one heavy table can't starve the others ----------------------------------------------

@pytest.mark.slow
def test_table_slots_bound_each_table_alone():
    from companion.web.load import TableSlots
    slots = TableSlots(per_table=2, max_waiting=1, wait=0.2)
    assert slots.acquire("heavy") and slots.acquire("heavy")
    assert slots.acquire("other")  # another table is never held up by the heavy one
    results = []
    waiter = threading.Thread(target=lambda: results.append(slots.acquire("heavy")))
    waiter.start()
    threading.Event().wait(0.05)
    assert slots.acquire("heavy") is False  # the one waiting place is taken: refused at once
    slots.release("heavy")  # a turn frees up: the waiter gets it
    waiter.join()
    assert results == [True]
    assert slots.acquire("heavy") is False  # 2 running again; waits 0.2 s, then refused
    for key in ("heavy", "heavy", "other"):
        slots.release(key)
    assert slots.running == {} and slots.waiting == {}


def test_a_busy_table_answers_503_keeping_what_was_typed(app, client):
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    other = create_via_form(client, "rwd", ["Ed", "Flo", "Gus", "Hal"])
    slots = app.extensions["table_turns"].slots
    slots.max_waiting, slots.wait = 0, 0
    slots.acquire(token), slots.acquire(token)  # two requests of this table are running
    try:
        page = client.get(f"/t/{token}")
        assert page.status_code == 503 and page.headers["Retry-After"] == "2"
        assert "very busy" in page.get_data(as_text=True)
        typed = client.post(f"/t/{token}/deals", data={"number": "1", "chips-0": "7"})
        assert typed.status_code == 503 and 'name="chips-0" value="7"' in typed.get_data(as_text=True)
        htmx = client.post(f"/t/{token}/deals", data={"number": "1"}, headers={"HX-Request": "true"})
        assert htmx.status_code == 503 and htmx.headers["HX-Reswap"] == "beforeend"
        assert "<html" not in htmx.get_data(as_text=True)
        assert client.get(f"/t/{token}/live?rev=999").status_code == 204  # the poll: ask again later
        with client.get(f"/t/{other}") as served:  # every other table is served
            assert served.status_code == 200
    finally:
        slots.release(token), slots.release(token)
    with client.get(f"/t/{token}") as served:
        assert served.status_code == 200
    assert slots.running == {}  # the turn is given back once the answer was sent


def test_a_file_damaged_on_disk_while_running_gives_the_deal_back(app, client):
    """Not a simulation: the database's pages are overwritten under the running app."""
    token = create_via_form(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    path = Path(app.config["DATABASE"])
    checkpoint = sqlite3.connect(path)
    checkpoint.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the main file
    checkpoint.close()
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.seek(4096)  # keep the header page: SQLite opens the file, then finds it malformed
        fh.write(b"\xff" * (size - 4096))
    typed = {"number": "1", "chips-0": "1", "chips-1": "4", "chips-2": "4", "chips-3": "4",
             "tricks-0": "7", "tricks-1": "2", "tricks-2": "2", "tricks-3": "2"}
    response = client.post(f"/t/{token}/deals", data=typed)
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    assert "database file is damaged" in html
    assert all(f'name="{k}" value="{v}"' in html for k, v in typed.items())  # ready to send again


GEVENT_TURNS = """
from gevent import monkey; monkey.patch_all()
import gevent
from companion.web.load import TableSlots
slots = TableSlots(per_table=2, max_waiting=1, wait=2.0)
order = []
def hold(name):
    assert slots.acquire("heavy"); order.append("got " + name); gevent.sleep(0.2); slots.release("heavy")
def wait_turn():
    order.append("waiter " + str(slots.acquire("heavy"))); slots.release("heavy")
def other():
    order.append("other " + str(slots.acquire("other"))); slots.release("other")
def refused():
    gevent.sleep(0.05); order.append("refused " + str(slots.acquire("heavy")))
gevent.joinall([gevent.spawn(hold, "a"), gevent.spawn(hold, "b"), gevent.spawn(wait_turn),
                gevent.spawn(other), gevent.spawn(refused)])
print(order)
"""


@pytest.mark.slow
def test_table_turns_work_under_gevent():
    """push may serve with gevent: a waiting greenlet must yield, not block the hub."""
    import subprocess
    pytest.importorskip("gevent")
    result = subprocess.run([sys.executable, "-c", GEVENT_TURNS], capture_output=True, text=True, timeout=60,
                            cwd=Path(__file__).resolve().parent.parent)
    assert result.returncode == 0, result.stderr
    order = ast.literal_eval(result.stdout.strip())
    assert order[:2] == ["got a", "got b"]
    assert "other True" in order and "refused False" in order
    assert order.index("other True") < order.index("waiter True")  # the other table never waited
    assert order[-1] == "waiter True"
