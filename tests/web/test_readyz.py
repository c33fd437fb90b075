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
