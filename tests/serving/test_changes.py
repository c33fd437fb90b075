"""Writes announce themselves once committed (companion/changes.py, issue 30): the event
streams are woken by the write itself, with its revision, never by guessing from a URL or by
sweeping every table; a listener that fails never breaks a write."""

from __future__ import annotations

import threading

import pytest

from companion import changes
from companion.night import service as night
from companion.tables import service as store
from companion.changes import Change
from companion.store import get_db
from helpers import rwd_rotating_deal_form
import table_writes
from table_writes import done

NAMES = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture
def heard():
    """Every change published while the test runs."""
    found: list[Change] = []
    stop = changes.subscribe(found.append)
    yield found
    stop()


def deal(number: int) -> dict:
    return {k: v for k, v in rwd_rotating_deal_form(number).items() if k != "number"}


def test_each_table_write_announces_its_new_revision(app, heard):
    with app.app_context():
        db = get_db()
        token = table_writes.create(db, "rwd", NAMES, {})
        assert heard[-1] == Change("table", token, 0)
        added = table_writes.add_deal(db, token, 1, form=deal(1))
        assert heard[-1] == Change("table", token, added.revision) and added.revision == store.revision(db, token)
        table_writes.add_deal(db, token, 2, form=deal(2))
        undone = table_writes.undo_last(db, token, 2)
        assert heard[-1] == Change("table", token, undone.revision) == Change("table", token, store.revision(db, token))
        facts = dict(undone.deals[0])
        edited = table_writes.edit_deal(db, token, 1, {**facts, "chips": [3, 4, 3, 3]}, store.fingerprint(facts))
        assert heard[-1] == Change("table", token, store.revision(db, token)) and edited.revision == heard[-1].revision
        before = len(heard)
        with pytest.raises(store.Conflict):  # refused: nothing changed, nothing said
            table_writes.undo_last(db, token, 5)
        assert len(heard) == before
        table_writes.rematch(db, token)  # the old table moves on (its phones learn of the rematch)
        assert heard[-1].kind == "table" and heard[-1].key == token


def test_night_writes_announce_the_night_and_the_tables_they_seat(app, heard):
    with app.app_context():
        db = get_db()
        done(night.start_night(db))
        assert heard[-1] == Change("night")
        [token] = done(night.prepare(db, "rwd", 4, 1))
        assert heard[-2:] == [Change("night"), Change("table", token, 0)]  # the night's new table, as made
        seated = table_writes.seat(db, token, NAMES, {})
        assert heard[-1] == Change("table", token, seated.revision)
        done(night.join(db, "Eve"))
        done(night.join(db, "Eve"))  # found again: still said once committed
        assert heard[-2:] == [Change("night"), Change("night")]


def test_a_failing_listener_never_breaks_a_write(app, heard):
    def broken(_change):
        raise RuntimeError("listener bug")

    stop = changes.subscribe(broken)
    try:
        with app.app_context():
            token = table_writes.create(get_db(), "rwd", NAMES, {})
            assert table_writes.add_deal(get_db(), token, 1, form=deal(1)).revision == 1
    finally:
        stop()
    assert [c.revision for c in heard] == [0, 1]  # the listener after the broken one still heard


def test_unsubscribed_listeners_hear_nothing_more():
    found: list[Change] = []
    stop = changes.subscribe(found.append)
    changes.publish(Change("players"))
    stop()
    changes.publish(Change("players"))
    assert found == [Change("players")]


def test_a_watched_table_is_woken_by_the_write_without_a_query(app):
    """The revision comes with the announcement: the streams learn it with no query at all."""
    watch = app.extensions["watch"]
    with app.app_context():
        token = table_writes.create(get_db(), "rwd", NAMES, {})
    assert watch.watch(token) == 0
    queries = []
    original = watch.revisions.of
    watch.revisions.of = lambda t: queries.append(t) or original(t)  # noqa: E731
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(watch.wait(token, 0, 10)))
    waiter.start()
    with app.app_context():
        table_writes.add_deal(get_db(), token, 1, form=deal(1))
    waiter.join(5)
    assert woke == [1]
    assert watch.revision(token) == 1 and queries == []  # known in memory, from the announcement
    watch.unwatch(token)
    assert watch.revision(token) == 1 and queries == [token]  # unwatched: asked of the store


def test_a_change_announced_without_its_revision_is_asked_once(app, monkeypatch):
    # A writer that doesn't know the new revision (the night's swap announces the tables it
    # reseats so) publishes the token alone: here every table write does, for this test.
    monkeypatch.setattr(store, "publish", lambda change: changes.publish(Change(change.kind, change.key)))
    watch = app.extensions["watch"]
    with app.app_context():
        token = table_writes.create(get_db(), "rwd", NAMES, {})
        table_writes.add_deal(get_db(), token, 1, form=deal(1))
    assert watch.watch(token) == 1
    woke = []
    waiter = threading.Thread(target=lambda: woke.append(watch.wait(token, 1, 10)))
    waiter.start()
    with app.app_context():
        table_writes.add_deal(get_db(), token, 2, form=deal(2))  # announced without its revision
    waiter.join(5)
    assert woke == [2] and watch.checks == 1


def test_changes_missed_while_the_relay_was_away_reach_the_waiting_streams():
    """``Change(EVERYTHING)`` (the relay back after a lost connection, companion/store/postgres.py):
    the watch asks the store for every watched table and wakes the streams of those that moved,
    though no change of theirs was ever announced here."""
    import threading

    from companion import changes
    from companion.serving.events import Watch

    class Store:
        revisions = {"moved": 3, "still": 8}

        def of(self, token):
            return self.revisions.get(token)

        def of_many(self, tokens):
            return {t: self.revisions[t] for t in tokens if t in self.revisions}

    store = Store()
    watch = Watch(store)
    try:
        assert watch.watch("moved") == 3 and watch.watch("still") == 8
        store.revisions = {"moved": 5, "still": 8}  # written by another server, its notice lost
        seen = {}
        waiting = [threading.Thread(target=lambda t=t: seen.__setitem__(t, watch.wait(t, watch.known[t], 1.0)))
                   for t in ("moved", "still")]
        for thread in waiting:
            thread.start()
        changes.tell_here(changes.Change(changes.EVERYTHING))
        for thread in waiting:
            thread.join(5)
        assert seen == {"moved": 5, "still": 8}
        assert watch.checks == 1  # one question for all the watched tables
    finally:
        watch.close()
