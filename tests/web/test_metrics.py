"""/metrics (issue 46): Prometheus' text for the organiser or a monitor at a `--metrics-from`
address, 403 for a phone; each figure there moves when its thing happens: a request (by its
route, never its path), a deal's save (the latency histogram), a stream opened and closed, a
push delivered, a refusal (by reason). The counts are this process's (one scrape of several
workers: tests/serving/test_metrics_serve.py), so each test compares before and after."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from helpers import create_table, open_event_stream, rwd_deal_form, text_of

PHONE = {"REMOTE_ADDR": "192.168.1.23"}
FIGURES = ("companion_requests_total", "companion_deal_save_seconds_count", "companion_deliveries_total",
           "companion_open_streams", "companion_refusals_total")


def scrape(client) -> dict[tuple, float]:
    """Every sample of one scrape by the organiser: (name, sorted labels) -> value."""
    answer = client.get("/metrics")
    assert answer.status_code == 200, answer.status_code
    assert answer.headers["Content-Type"].startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.get_data(as_text=True))
            for sample in family.samples}


def value(samples: dict[tuple, float], name: str, **labels: str) -> float:
    """The sum of ``name``'s samples carrying ``labels`` (0 if none)."""
    wanted = set(labels.items())
    return sum(v for (n, found), v in samples.items() if n == name and wanted <= set(found))


@pytest.fixture
def streaming_app(app_of, tmp_path):
    """An app whose streams say "ping" every 50 ms: a stream's body is then asked for its next
    piece soon after a change was sent, as the server asks (a delivery is counted once sent)."""
    return app_of({"TESTING": True, "DATABASE": str(tmp_path / "s.sqlite"), "SECRET_KEY": "test",
                   "WTF_CSRF_ENABLED": False, "STREAM_HEARTBEAT_S": 0.05})


def test_the_organiser_reads_every_figure_and_a_phone_is_refused(app, client):
    assert client.get("/healthz").status_code == 200  # (a request is counted once answered)
    samples = scrape(client)
    for name in FIGURES:
        assert any(n == name for n, _labels in samples), name
    for reason in ("streams", "share", "links", "asks", "database_away", "not_saved"):
        assert ("companion_refusals_total", (("reason", reason),)) in samples  # at 0 before any
    refused = client.get("/metrics", environ_base=PHONE)
    assert refused.status_code == 403
    assert "companion_requests_total" not in refused.get_data(as_text=True)
    assert "for the organiser's laptop and the club's monitor only" in text_of(refused.get_data(as_text=True))
    # A loopback address that isn't the laptop's (a phone in the tests) is a phone too.
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.2"}).status_code == 403


def test_a_monitor_at_a_metrics_from_address_reads_them_and_its_neighbour_does_not(app, client):
    app.config["METRICS_FROM"] = ["127.0.0.5", "10.1.2.0/24"]
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.5"}).status_code == 200
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.2.77"}).status_code == 200
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.6"}).status_code == 403
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.3.1"}).status_code == 403


def test_requests_are_counted_by_route_and_status_not_by_path(app, client):
    token = create_table(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    other = create_table(client, "rwd", ["Ed", "Flo", "Gus", "Hal"])
    before = scrape(client)
    for each in (token, other):
        assert client.get(f"/t/{each}", environ_base=PHONE).status_code == 200
        # answered before Flask, by the serving layer (companion/serving/live.py): counted too
        assert client.get(f"/t/{each}/live?rev=0", environ_base=PHONE).status_code == 204
    assert client.get("/no/such/page").status_code == 404
    after = scrape(client)
    moved = {key: after[key] - before.get(key, 0) for key in after
             if key[0] == "companion_requests_total" and after[key] != before.get(key, 0)}
    table_page = ("companion_requests_total", (("method", "GET"), ("route", "/t/<token>"), ("status", "200")))
    live = ("companion_requests_total", (("method", "GET"), ("route", "/t/<token>/live"), ("status", "204")))
    unknown = ("companion_requests_total", (("method", "GET"), ("route", "unmatched"), ("status", "404")))
    assert moved[table_page] == 2 and moved[live] == 2 and moved[unknown] == 1, moved
    assert not any(token in str(labels) or other in str(labels) for _name, labels in after)


def test_a_saved_deal_moves_the_save_latency_histogram(app, client):
    token = create_table(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    before = scrape(client)
    assert client.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    after = scrape(client)
    assert value(after, "companion_deal_save_seconds_count") == value(before, "companion_deal_save_seconds_count") + 1
    assert value(after, "companion_deal_save_seconds_sum") > value(before, "companion_deal_save_seconds_sum")
    slowest = value(after, "companion_deal_save_seconds_bucket", le="+Inf")
    assert slowest == value(after, "companion_deal_save_seconds_count")


def test_refusals_are_counted_by_reason(app, client, monkeypatch):
    from companion.store import DatabaseAway
    from companion.tables import service

    token = create_table(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    before = scrape(client)
    # A phone holding its share of event streams (4) is refused a fifth: "streams".
    held = [open_event_stream(app, f"/t/{token}/events", "rev=0") for _ in range(5)]
    assert [answered["status"][:3] for answered, _body in held] == ["200"] * 4 + ["429"]
    for answered, body in held[:4]:
        body.close()

    def away(*_args, **_kwargs):
        raise DatabaseAway("server closed the connection unexpectedly")

    monkeypatch.setattr(service, "enter_deal", away)
    assert client.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 503
    after = scrape(client)
    for reason in ("streams", "database_away"):
        assert value(after, "companion_refusals_total", reason=reason) == \
            value(before, "companion_refusals_total", reason=reason) + 1, reason
    assert value(after, "companion_refusals_total", reason="share") == value(before, "companion_refusals_total",
                                                                              reason="share")


def test_an_open_stream_is_counted_while_open_and_a_push_once_sent(streaming_app):
    client = streaming_app.test_client()
    token = create_table(client, "rwd", ["Ann", "Bo", "Cy", "Di"])
    assert client.post(f"/t/{token}/deals", data=rwd_deal_form(1, 0)).status_code == 303
    before = scrape(client)
    answered, stream = open_event_stream(streaming_app, f"/t/{token}/events", "rev=0")
    assert answered["status"].startswith("200")
    body = iter(stream)
    opened = scrape(client)
    assert value(opened, "companion_open_streams", page="table") == value(before, "companion_open_streams",
                                                                           page="table") + 1
    assert next(body).startswith(b"retry:")  # hello
    assert next(body).startswith(b"event: changed")  # the page shows 0, the table is at 1
    sent = value(before, "companion_deliveries_total", page="table", event="changed")
    assert value(scrape(client), "companion_deliveries_total", page="table", event="changed") == sent
    next(body)  # the server asks for more once the push is written: it was delivered
    assert value(scrape(client), "companion_deliveries_total", page="table", event="changed") == sent + 1
    stream.close()
    closed = scrape(client)
    assert value(closed, "companion_open_streams", page="table") == value(before, "companion_open_streams",
                                                                           page="table")
