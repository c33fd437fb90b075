"""/readyz (issue 46): whether the server can do its work, for a proxy or a club's monitor: the
database answers, and where other servers share it, the change relay listens. /healthz says
only that the process lives."""

from __future__ import annotations

from companion.store import StorageError


def test_ready_when_the_database_answers(client):
    answer = client.get("/readyz")
    assert answer.status_code == 200 and answer.get_data(as_text=True) == "ready"


def test_not_ready_while_the_database_does_not_answer_or_the_relay_is_not_listening(app, client, monkeypatch):
    import companion.web.home as home

    def gone(_conn):
        raise StorageError("the database went away")

    monkeypatch.setattr(home, "ping", gone)
    answer = client.get("/readyz")
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert "the database does not answer" in answer.get_data(as_text=True)
    assert client.get("/healthz").status_code == 200  # alive all the same
    monkeypatch.undo()

    class Relay:
        listening = False

    app.extensions["change_relay"] = Relay()
    answer = client.get("/readyz")
    assert answer.status_code == 503 and "change relay is not listening" in answer.get_data(as_text=True)
    Relay.listening = True
    assert client.get("/readyz").status_code == 200


def test_a_save_while_the_database_is_away_is_refused_in_the_pages_own_frame(app, client, monkeypatch):
    """Issue 46: with PostgreSQL stopped, saving a deal swapped a whole "Not saved" page (its own
    header, a second <main>) into the table page and blamed a full disk. Now a table page's
    htmx request gets the sentence alone, swapped nowhere (the outbox keeps the deal and sends it
    again by itself), and every 503 says when to ask again."""
    from companion.store import DatabaseAway
    from companion.tables import service
    from helpers import create_table, rwd_deal_form, text_of

    token = create_table(client, "rwd", ["Ann", "Bo", "Cy", "Di"])

    def away(*_args, **_kwargs):
        raise DatabaseAway("server closed the connection unexpectedly")

    monkeypatch.setattr(service, "enter_deal", away)
    answer = client.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0), headers={"HX-Request": "true"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert answer.headers["HX-Reswap"] == "none" and "<main" not in answer.get_data(as_text=True)
    assert "The club's database isn't answering" in answer.get_data(as_text=True)
    assert "disk may be full" not in answer.get_data(as_text=True)
    plain = client.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0))  # without JavaScript: the page
    assert plain.status_code == 503 and plain.headers["Retry-After"] == "5"
    assert "The club's database isn't answering" in text_of(plain.get_data(as_text=True))
