"""The PostgreSQL backend (issue 35) where it differs from SQLite: its migrations, its errors
(real SQLSTATEs raised by the server, mapped to the store's), a lost connection, exactly-once
writes from many connections at once, the server's lock, and backup / restore through
pg_dump / pg_restore. (The behaviour both backends share runs on both: tests/tables, night,
players; tests/conftest.py.)"""

from __future__ import annotations

import json
import re
import threading
from html import unescape

import pytest

from companion import cli, store as storage
from companion.store import DatabaseError, postgres
from companion.tables import service as tables
from helpers import rwd_rotating_deal_form as deal
import table_writes

NAMES = ["Ann", "Bob", "Cy", "Di"]
RWD = {"first_start_player": 0}


@pytest.fixture
def url(postgres_database) -> str:
    return postgres_database


@pytest.fixture
def pg_app(url, app_of):
    return app_of({"TESTING": True, "DATABASE": url, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})


def raw(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def create(client) -> str:
    data = {"game": "rwd", "players": "4", **{f"name-{i}": n for i, n in enumerate(NAMES)}}
    response = client.post("/tables", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    return response.headers["Location"].rsplit("/", 1)[-1]


def stored_deals(client, token: str) -> list:
    return json.loads(client.get(f"/t/{token}/export.json").get_data(as_text=True))["deals"]


# --- the dialect --------------------------------------------------------------------------------

def test_the_stores_statements_are_rewritten_for_postgresql():
    assert postgres.dialect("SELECT revision FROM tables WHERE token = ?") == \
        ("SELECT revision FROM tables WHERE token = %s", False)
    text, returning = postgres.dialect("INSERT INTO night_players (night, name) VALUES (?, ?)")
    assert text.endswith("RETURNING id") and returning
    assert postgres.dialect("INSERT INTO deals (table_id) VALUES (?)")[1] is False  # no id of its own
    text, _ = postgres.dialect("INSERT OR REPLACE INTO seat_assignments (table_id, seat, player_id) VALUES (?, ?, ?)")
    assert text.endswith("ON CONFLICT (table_id, seat) DO UPDATE SET player_id = EXCLUDED.player_id")
    assert postgres.dialect("SELECT left FROM t LEFT JOIN u WHERE p.left = 0")[0] == \
        'SELECT "left" FROM t LEFT JOIN u WHERE p."left" = 0'


def test_a_password_in_the_url_is_never_printed():
    assert postgres.shown("postgresql://club:s3cret@db.local/season") == "postgresql://club:***@db.local/season"
    assert postgres.shown("postgresql://club@db.local/season") == "postgresql://club@db.local/season"


# --- migrations ---------------------------------------------------------------------------------

def test_a_new_database_is_migrated_once_and_stamped(postgres_server):
    url = postgres_server.new_database()
    try:
        assert storage.migrate(url) == postgres.SCHEMA_VERSION
        assert storage.migrate(url) == postgres.SCHEMA_VERSION  # again: nothing to do
        with raw(url) as conn:
            assert conn.execute("SELECT version FROM companion_schema").fetchall() == [(postgres.SCHEMA_VERSION,)]
            names = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"tables", "deals", "changes", "writes", "night_players", "results", "name_claims"} <= names
    finally:
        postgres_server.drop_database(url)


def test_a_newer_schema_is_refused(postgres_server):
    url = postgres_server.new_database()
    try:
        storage.migrate(url)
        with raw(url) as conn:
            conn.execute("UPDATE companion_schema SET version = version + 1")
        with pytest.raises(DatabaseError, match="newer Table Companion"):
            storage.migrate(url)
    finally:
        postgres_server.drop_database(url)


def test_another_programs_database_is_left_alone(postgres_server):
    url = postgres_server.new_database()
    try:
        with raw(url) as conn:
            conn.execute("CREATE TABLE invoices (id integer)")
        with pytest.raises(DatabaseError, match="another program's tables"):
            storage.migrate(url)
        with raw(url) as conn:
            assert conn.execute("SELECT to_regclass('tables')").fetchone()[0] is None
    finally:
        postgres_server.drop_database(url)


def test_a_server_that_is_not_there_is_said_plainly(postgres_server, tmp_path):
    with pytest.raises(DatabaseError, match="could not connect to the PostgreSQL database"):
        storage.migrate(f"postgresql://postgres@/nowhere?host={tmp_path}")


# --- errors by SQLSTATE: real server errors, raised by a trigger where the disk can't be filled --

def refuse_deals_with(url: str, errcode: str) -> None:
    with raw(url) as conn:
        conn.execute(f"""CREATE OR REPLACE FUNCTION refuse() RETURNS trigger AS $$
                         BEGIN RAISE EXCEPTION 'refused' USING ERRCODE = '{errcode}'; END $$ LANGUAGE plpgsql""")
        conn.execute("DROP TRIGGER IF EXISTS refuse ON deals")
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON deals FOR EACH ROW EXECUTE FUNCTION refuse()")


def allow_deals(url: str) -> None:
    with raw(url) as conn:
        conn.execute("DROP TRIGGER refuse ON deals")


@pytest.mark.parametrize("errcode, error", [("53100", storage.StorageFull), ("25006", storage.NotSaved),
                                            ("40001", storage.NotSaved), ("40P01", storage.NotSaved),
                                            ("XX001", storage.StorageDamaged)])
def test_sqlstates_are_the_stores_errors_and_nothing_half_done_stays(url, errcode, error):
    conn = storage.connect(url)
    token = table_writes.create(conn, "rwd", NAMES, RWD)
    revision = tables.revision(conn, token)
    refuse_deals_with(url, errcode)
    with pytest.raises(error) as refused:
        table_writes.add_deal(conn, token, 1, form=deal(1), write_id="w1")
    assert type(refused.value) is error
    assert tables.load(conn, token).deals == () and tables.revision(conn, token) == revision  # rolled back
    assert tables.recorded_outcome(conn, token, "w1") is None
    allow_deals(url)
    table_writes.add_deal(conn, token, 1, form=deal(1), write_id="w1")  # the phone's resend: saved once
    assert len(tables.load(conn, token).deals) == 1
    conn.close()


def test_a_full_disk_refuses_the_deal_and_gives_every_value_back(pg_app):
    client = pg_app.test_client()
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=deal(1)).status_code == 303
    refuse_deals_with(pg_app.config["DATABASE"], "53100")
    form = deal(2)
    response = client.post(f"/t/{token}/deals", data=form)
    body = unescape(response.get_data(as_text=True))
    assert response.status_code == 503 and "could not save this" in body and "Traceback" not in body
    for field, value in form.items():
        if field != "number":
            assert re.search(rf'name="{field}"[^>]*value="{value}"', body), field
    allow_deals(pg_app.config["DATABASE"])
    assert client.post(f"/t/{token}/deals", data=form).status_code == 303
    assert len(stored_deals(client, token)) == 2


def end_the_apps_connections(url: str) -> None:
    """pg_terminate_backend of every connection to the database but this one's."""
    with raw(url) as admin:
        ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                              " WHERE datname = current_database() AND pid != pg_backend_pid()").fetchall()
    assert ended, "no connection of the app's to end"


def test_idle_connections_the_server_ended_are_replaced_before_the_next_save(pg_app):
    """Issue 46: a connection PostgreSQL ended while it was idle in the pool (a restart, or
    pg_terminate_backend, less than a second ago: not yet asked) was lent to the next save,
    which failed. The server's last word is on its socket: such a connection is asked first."""
    client = pg_app.test_client()
    token = create(client)  # the request's connection is back in the pool, idle
    url = pg_app.config["DATABASE"]
    with storage.pool.lend(url), storage.pool.lend(url):  # and another: two idle, as after a stream's check
        pass
    end_the_apps_connections(url)
    assert client.post(f"/t/{token}/deals", data=deal(1)).status_code == 303
    assert len(stored_deals(client, token)) == 1


def test_a_connection_lost_without_a_word_costs_a_get_or_a_write_with_its_id_nothing(pg_app, monkeypatch):
    """A connection ended without a word (a network's blip: nothing on its socket) is found lost
    by the request it is lent to. A GET, and a write carrying its write id, are asked again once on
    a new connection (issue 46: when the database is back no request fails); the write is stored
    once. A write without a write id is never made twice: refused, said as the database being away,
    what was typed given back, and the next try is stored."""
    client = pg_app.test_client()
    token = create(client)
    url = pg_app.config["DATABASE"]
    monkeypatch.setattr(postgres, "has_word", lambda conn: False)  # the socket says nothing

    end_the_apps_connections(url)
    assert client.get(f"/t/{token}").status_code == 200
    end_the_apps_connections(url)
    assert client.post(f"/t/{token}/deals", data=dict(deal(1), write_id="w-1")).status_code == 303
    assert len(stored_deals(client, token)) == 1

    end_the_apps_connections(url)
    form = deal(2)
    response = client.post(f"/t/{token}/deals", data=form)
    body = unescape(response.get_data(as_text=True))
    assert response.status_code == 503 and "database isn't answering, so this was not saved" in body
    assert 'value="{}"'.format(form["chips-0"]) in body
    assert client.post(f"/t/{token}/deals", data=form).status_code == 303  # a new connection
    assert len(stored_deals(client, token)) == 2
    # The first one sent again (its answer lost): answered as stored, never stored twice.
    assert client.post(f"/t/{token}/deals", data=dict(deal(1), write_id="w-1")).status_code == 303
    assert len(stored_deals(client, token)) == 2


# --- exactly once, and one writer at a time, across connections ---------------------------------

def test_sixteen_connections_sending_one_write_id_store_one_deal(url):
    conn = storage.connect(url)
    token = table_writes.create(conn, "rwd", NAMES, RWD)
    conn.close()
    barrier = threading.Barrier(16)
    answers: list = [None] * 16

    def phone(i: int) -> None:
        own = storage.connect(url)
        try:
            barrier.wait(20)
            try:
                table_writes.add_deal(own, token, 1, form=deal(1), write_id="same-id")
                answers[i] = "wrote"
            except tables.Repeated as repeated:
                answers[i] = repeated.outcome
        finally:
            own.close()

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert answers.count("wrote") == 1
    assert [a for a in answers if a != "wrote"] == [{"action": "add", "number": 1}] * 15
    with raw(url) as check:
        assert check.execute("SELECT count(*) FROM deals").fetchone()[0] == 1
        assert check.execute("SELECT count(*) FROM writes").fetchone()[0] == 1


def test_sixteen_connections_adding_deals_at_once_each_get_their_own_number(url):
    """The writer lock makes read-then-write one step, as BEGIN IMMEDIATE does in SQLite."""
    conn = storage.connect(url)
    token = table_writes.create(conn, "rwd", NAMES, RWD)
    conn.close()
    barrier = threading.Barrier(8)
    outcomes: list = []

    def phone(i: int) -> None:
        own = storage.connect(url)
        try:
            barrier.wait(20)
            number = len(tables.load(own, token).deals) + 1
            try:
                table_writes.add_deal(own, token, number, form=deal(number), write_id=f"w{i}")
                outcomes.append("saved")
            except (tables.Conflict, tables.Refused) as exc:
                outcomes.append(type(exc).__name__)
        finally:
            own.close()

    threads = [threading.Thread(target=phone, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    with raw(url) as check:
        numbers = [r[0] for r in check.execute("SELECT number FROM deals ORDER BY number")]
    assert numbers == list(range(1, len(numbers) + 1))  # never two deals with one number, never a gap
    assert len(outcomes) == 8


# --- the server's lock, backup and restore ------------------------------------------------------

def test_backup_and_restore_through_pg_dump_and_pg_restore(pg_app, tmp_path, capsys):
    url = pg_app.config["DATABASE"]
    client = pg_app.test_client()
    token = create(client)
    assert client.post(f"/t/{token}/deals", data=deal(1)).status_code == 303
    assert cli.main(["backup", str(tmp_path / "season.dump"), "--db", url]) == 0
    assert "Backed up 1 tables (1 deals)" in capsys.readouterr().out
    assert client.post(f"/t/{token}/deals", data=deal(2)).status_code == 303

    with postgres.ServerLock(url) as serving:  # what `companion serve` holds
        assert serving.acquire()
        assert cli.main(["restore", str(tmp_path / "season.dump"), "--db", url]) == 1
        assert "a Table Companion server is running" in capsys.readouterr().err
    assert len(stored_deals(client, token)) == 2  # nothing changed

    assert cli.main(["restore", str(tmp_path / "season.dump"), "--db", url]) == 0
    said = capsys.readouterr().out
    assert "Restored 1 tables (1 deals)" in said
    kept = re.search(r"kept in (\S+\.dump)", said).group(1)
    assert len(stored_deals(pg_app.test_client(), token)) == 1
    # What it replaced was dumped first: restoring that brings deal 2 back.
    assert cli.main(["restore", kept, "--db", url]) == 0
    assert len(stored_deals(pg_app.test_client(), token)) == 2


def test_restore_refuses_a_file_that_is_not_our_dump(url, tmp_path, capsys):
    other = tmp_path / "notes.dump"
    other.write_text("not a dump")
    assert cli.main(["restore", str(other), "--db", url]) == 1
    assert "is not a backup of a Table Companion PostgreSQL database" in capsys.readouterr().err


def test_servers_share_the_lock_and_a_restore_waits_for_all_of_them(url):
    first, second = postgres.ServerLock(url), postgres.ServerLock(url)
    assert first.acquire() and second.acquire()  # two laptops serving one night
    restoring = postgres.ServerLock(url, exclusive=True)
    assert not restoring.acquire()
    first.release()
    assert not restoring.acquire()
    second.release()
    assert restoring.acquire()
    assert not postgres.ServerLock(url).acquire()  # and no server starts during a restore
    restoring.release()


# --- changes between servers: LISTEN/NOTIFY behind companion/changes.py -------------------------

def test_a_change_published_by_one_server_reaches_the_others_listeners_once(url):
    from companion import changes

    here, there = postgres.ChangeRelay(url), postgres.ChangeRelay(url)
    heard_there, heard_here = [], []
    arrived = threading.Event()

    def on_there(change):
        heard_there.append(change)
        arrived.set()

    here.start(heard_here.append)
    there.start(on_there)
    try:
        assert here.ready.wait(20) and there.ready.wait(20)
        changes.relay_through(here.send)
        changes.publish(changes.Change("table", "tok123", 7))
        assert arrived.wait(20), "the other server never heard of the change"
        assert heard_there == [changes.Change("table", "tok123", 7)]
        here.send(changes.Change("night"))  # a sender never hears itself: a second change shows it
        there.send(changes.Change("players"))
        deadline = threading.Event()
        for _ in range(200):
            if heard_here:
                break
            deadline.wait(0.1)
        assert heard_here == [changes.Change("players")]
    finally:
        changes.relay_through(None)
        here.stop()
        there.stop()


def test_the_relay_back_after_a_lost_connection_says_changes_may_have_been_missed(url):
    """PostgreSQL drops the listening connection (a restart, a network blip): the relay listens
    again and tells its listeners to ask the store (Change(EVERYTHING)), since what was sent
    meanwhile was never heard."""
    from companion import changes

    relay = postgres.ChangeRelay(url)
    heard = []
    relay.start(heard.append)
    try:
        assert relay.ready.wait(20)
        with raw(url) as conn:
            ended = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                 " WHERE query LIKE 'LISTEN %%' AND pid <> pg_backend_pid()").fetchall()
        assert ended and all(row[0] for row in ended)
        for _ in range(100):
            if heard:
                break
            threading.Event().wait(0.1)
        assert heard == [changes.Change(changes.EVERYTHING)] and relay.reconnects == 1
    finally:
        relay.stop()


def test_a_change_sent_after_the_sending_connection_was_lost_still_reaches_the_other_laptop(url):
    """Issue 46: when the connection that sends NOTIFY was lost (pg_terminate_backend, or a quiet
    restart), the next change was stored but never reached the other laptop's phones (and a
    traceback on this one's terminal). It now goes again on a new connection."""
    from companion import changes

    here, there = postgres.ChangeRelay(url), postgres.ChangeRelay(url)
    heard = []
    arrived = threading.Event()

    def on_there(change):
        heard.append(change)
        arrived.set()

    there.start(on_there)
    try:
        assert there.ready.wait(20)
        here.send(changes.Change("table", "tok1", 1))
        assert arrived.wait(20)
        arrived.clear()
        sender = here.sender.info.backend_pid
        with raw(url) as conn:
            assert conn.execute("SELECT pg_terminate_backend(%s)", (sender,)).fetchone()[0]
        here.send(changes.Change("table", "tok1", 2))  # no error: sent again on a new connection
        assert arrived.wait(20), "the other laptop never heard of the change"
        assert heard == [changes.Change("table", "tok1", 1), changes.Change("table", "tok1", 2)]
        assert here.sender.info.backend_pid != sender
    finally:
        here.stop()
        there.stop()


# --- two laptops on one database ------------------------------------------------------------------

def test_the_apps_secret_lives_with_the_data(url, postgres_server):
    assert postgres.shared_secret(url) == postgres.shared_secret(url)
    other = postgres_server.new_database()
    try:
        storage.migrate(other)
        assert postgres.shared_secret(other) != postgres.shared_secret(url)
    finally:
        postgres_server.drop_database(other)


def test_a_phones_session_and_form_token_from_one_laptop_are_good_on_the_other(url, app_of):
    from helpers import csrf_of

    secret = postgres.shared_secret(url)
    laptops = [app_of({"DATABASE": url, "SECRET_KEY": secret}) for _ in range(2)]  # CSRF on
    first, second = (laptop.test_client() for laptop in laptops)
    page = first.get("/tables/new?game=rwd&players=4").get_data(as_text=True)
    data = {"csrf_token": csrf_of(page), "game": "rwd", "players": "4",
            **{f"name-{i}": n for i, n in enumerate(NAMES)}}
    created = first.post("/tables", data=data)
    assert created.status_code == 303, created.get_data(as_text=True)[:300]
    token = created.headers["Location"].rsplit("/", 1)[-1]
    table_page = first.get(f"/t/{token}").get_data(as_text=True)
    session = first.get_cookie("session")  # the phone's session, carried to the other laptop's address
    second.set_cookie(session.key, session.value)
    form = dict(deal(1), csrf_token=csrf_of(table_page))
    saved = second.post(f"/t/{token}/deals", data=form)
    assert saved.status_code == 303, saved.get_data(as_text=True)[:500]
    assert len(stored_deals(first, token)) == 1  # and the first laptop shows it


def test_workers_need_postgresql_and_say_so(capsys):
    with pytest.raises(SystemExit) as ended:
        cli.main(["serve", "--workers", "2", "--db", "scores.sqlite"])
    assert ended.value.code == 2
    assert "--workers above 1 needs a PostgreSQL database" in capsys.readouterr().err


def test_postgresqls_schema_has_every_table_and_column_sqlites_has(url, tmp_path):
    """A migration added to schema.MIGRATIONS needs its twin in postgres.MIGRATIONS: this fails
    until it has one (the tests of the feature would fail on PostgreSQL too, less plainly)."""
    import sqlite3

    path = tmp_path / "schema.sqlite"
    storage.migrate(str(path))
    lite = sqlite3.connect(path)
    sqlite_columns = {(table, column) for (table,) in lite.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for column in (r[1] for r in lite.execute(f"PRAGMA table_info({table})"))}
    lite.close()
    with raw(url) as conn:
        postgres_columns = set(conn.execute("SELECT table_name, column_name FROM information_schema.columns"
                                            " WHERE table_schema = 'public'").fetchall())
    assert sqlite_columns - postgres_columns == set()
    assert {t for t, _ in postgres_columns - sqlite_columns} <= {postgres.VERSION_TABLE, "companion_secret"}


def test_rounds_drawn_before_rounds_kept_their_draw_read_as_mixed(postgres_server, monkeypatch, app_of):
    """A PostgreSQL database at version 1 (before night_rounds.draw) with a round upgrades in
    place; the round reads as drawn by mixing, with no wishes (SQLite's: tests/store/test_migration.py)."""
    from companion.players import service as players
    from helpers import check_the_old_round_reads_as_mixed, insert_a_round_drawn_before_draws_were_kept

    url = postgres_server.new_database()
    try:
        with monkeypatch.context() as m:
            m.setattr(postgres, "MIGRATIONS", postgres.MIGRATIONS[:1])
            m.setattr(postgres, "SCHEMA_VERSION", 1)
            assert storage.migrate(url) == 1
        conn = storage.connect(url)
        try:
            insert_a_round_drawn_before_draws_were_kept(conn)
        finally:
            conn.close()
        players.forget()
        app = app_of({"TESTING": True, "DATABASE": url, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})
        with raw(url) as check:
            assert check.execute("SELECT version FROM companion_schema").fetchall() == [(postgres.SCHEMA_VERSION,)]
        check_the_old_round_reads_as_mixed(app)
    finally:
        postgres_server.drop_database(url)


# --- a database that goes away and comes back (issue 46) ------------------------------------------

def test_pages_answer_at_once_after_postgresql_restarted_in_a_quiet_moment(pg_app, postgres_server, monkeypatch):
    """After PostgreSQL restarted while nobody asked, the first request (per worker) answered 503
    ("NOT SAVED (NotSaved) on GET /hall"): the pool lent a connection the restart had ended. A
    connection idle a while is now asked first, and one found dead is replaced; while the server
    is away a page says so with Retry-After."""
    from companion.store import connection

    client = pg_app.test_client()
    token = create(client)
    assert client.get(f"/t/{token}").status_code == 200  # a connection now idle in the pool
    postgres_server.restart()
    monkeypatch.setattr(connection.ConnectionPool, "IDLE_CHECK_S", 0.0)  # rather than wait a second
    for path in (f"/t/{token}", "/hall", f"/t/{token}/export.json"):
        assert client.get(path).status_code == 200, path
    assert client.get("/readyz").get_data(as_text=True) == "ready"


def test_while_postgresql_is_away_a_page_says_so_with_retry_after(pg_app, postgres_server):
    client = pg_app.test_client()
    token = create(client)
    postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-m", "fast", "-w", "stop")
    try:
        answer = client.get(f"/t/{token}")
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
        assert "database isn" in answer.get_data(as_text=True)
        assert client.get("/readyz").status_code == 503
    finally:
        postgres_server._run("pg_ctl", "-D", str(postgres_server.data), "-o", postgres_server.options, "-l",
                             str(postgres_server.folder / "log"), "-w", "-t", "60", "start")
    assert client.get(f"/t/{token}").status_code == 200 and client.get("/readyz").status_code == 200


# --- a bounded pool: no flood takes the database from the others (issue 46) ---------------------

def test_a_process_holds_at_most_its_limit_of_connections_and_a_request_waits_for_one(url, postgres_server):
    from urllib.parse import urlsplit

    def backends() -> set[int]:
        with raw(url) as admin:
            return {row[0] for row in admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s"
                                                    " AND pid != pg_backend_pid()", (urlsplit(url).path.lstrip("/"),))}

    before = backends()
    pool = storage.ConnectionPool(limit=2)
    first, second = pool.borrow(url), pool.borrow(url)
    got: list = []
    waiting = threading.Thread(target=lambda: got.append(pool.borrow(url)))
    waiting.start()
    waiting.join(0.5)
    assert waiting.is_alive() and not got  # the third waits: no third connection is opened
    assert len(backends() - before) == 2
    pool.give_back(url, first)
    waiting.join(10)
    assert got == [first]  # given back, lent again
    pool.WAIT_S = 0.2
    with pytest.raises(storage.DatabaseBusy):
        pool.borrow(url)
    for conn in (second, first):
        pool.give_back(url, conn)
    with pool.lend(url) as again:  # every turn given back: lent at once
        assert again.execute("SELECT 1").fetchone()[0] == 1


def test_a_request_that_waited_too_long_for_a_connection_is_refused_as_busy(pg_app, monkeypatch):
    """Every connection the process may hold lent for the pool's whole wait: the table page's own
    refusal (the outbox keeps the deal and sends it again), Retry-After, never a traceback."""
    client = pg_app.test_client()
    token = create(client)
    url = pg_app.config["DATABASE"]
    monkeypatch.setattr(storage.pool, "limit", 1)
    monkeypatch.setattr(storage.pool, "WAIT_S", 0.2)
    with storage.pool.lend(url):  # the one connection, held elsewhere
        page = client.get(f"/t/{token}")
        saved = client.post(f"/t/{token}/deals", data=dict(deal(1), write_id="w-1"), headers={"HX-Request": "true"})
    assert page.status_code == 503 and page.headers["Retry-After"] == "5"
    assert "very busy" in page.get_data(as_text=True)
    assert saved.status_code == 503 and saved.headers["HX-Reswap"] == "none"
    assert "kept on this phone and sent by itself" in saved.get_data(as_text=True)
    assert client.post(f"/t/{token}/deals", data=dict(deal(1), write_id="w-1")).status_code == 303
    assert len(stored_deals(client, token)) == 1
