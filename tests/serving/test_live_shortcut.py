"""The polling fast path answers "unchanged" itself and defers everything else to Flask."""

from __future__ import annotations


def make_table(client) -> str:
    r = client.post("/tables", data={"game": "rwd", "players": "3", "name-0": "A", "name-1": "B", "name-2": "C"})
    assert r.status_code == 303
    return r.headers["Location"].split("?")[0]


def test_unchanged_is_204_with_headers_and_no_body(client):
    url = make_table(client)
    r = client.get(url + "/live?rev=0")
    assert r.status_code == 204 and r.data == b""
    assert r.headers["Cache-Control"] == "no-store"
    assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_changed_table_gets_the_scoresheet(client):
    url = make_table(client)
    deal = {"number": "1", "chips-0": "9", "chips-1": "4", "chips-2": "4",
            "tricks-0": "9", "tricks-1": "4", "tricks-2": "4"}
    assert client.post(url + "/deals", data=deal).status_code == 303
    stale = client.get(url + "/live?rev=0")
    assert stale.status_code == 200 and b'data-rev="1"' in stale.data
    assert client.get(url + "/live?rev=1").status_code == 204


def test_unknown_token_and_odd_queries_go_to_flask(client):
    url = make_table(client)
    assert client.get("/t/" + "x" * 22 + "/live?rev=0").status_code == 404
    assert client.get(url + "/live?rev=zz").status_code == 200  # not a revision: send the sheet
    assert client.get(url + "/live").status_code == 200


def test_with_other_processes_writing_unchanged_is_asked_of_the_store(app, client):
    """--workers / two laptops (issue 35): a phone told of deal 1 by the worker holding its
    stream may ask another worker that has not heard of it yet (bench/load.py --workers 2 saw
    "fetch 204"). With a relay on, "unchanged" is the store's word, not memory's."""
    from companion import changes

    url = make_table(client)
    token = url.rsplit("/", 1)[-1]
    watch = app.extensions["watch"]
    watch.watch(token)
    deal = {"number": "1", "chips-0": "9", "chips-1": "4", "chips-2": "4",
            "tricks-0": "9", "tricks-1": "4", "tricks-2": "4"}
    assert client.post(url + "/deals", data=deal).status_code == 303
    with watch.lock:
        watch.known[token] = 0  # this process has not heard of deal 1 yet
    assert client.get(url + "/live?rev=0").status_code == 204  # one process: memory is the truth
    changes.relay_through(lambda change: None)
    try:
        behind = client.get(url + "/live?rev=0")
        assert behind.status_code == 200 and b'data-rev="1"' in behind.data
    finally:
        changes.relay_through(None)
        watch.unwatch(token)
