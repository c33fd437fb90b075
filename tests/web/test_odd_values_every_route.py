"""Odd characters in every route of the URL map (issue 32 item 5): non-ASCII digits ("²", "٣",
"１２"), NUL bytes, overlong and empty values, in the path, the query string and the form fields,
GET and POST (with a valid CSRF token), never give a 5xx. Every number a view reads from a request
is ASCII digits only (companion/numbers.py). Against the real `companion serve`: a NUL byte in a
/static/ path is a 404, and a 500 that does happen is logged with its request line."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from companion.numbers import ascii_number, number_or_error
from helpers import csrf_of, rwd_rotating_deal_form

ODD = ["²", "٣", "１２", "\x00", "1\x00", "9" * 5000, "", "-1", " 7 ", "1e3", "é" * 300]
ODD_IN_PATH = ["²", "٣", "１２", "\x00", "1\x00", "9" * 5000, "-1"]
WEB = Path(__file__).resolve().parent.parent / "companion" / "web"
# A name read from a request in the views' source: request.args.get("min"), values.get("a")…
READ_NAME = re.compile(r"""\b(?:args|form|values)\.get(?:list)?\(\s*["']([^"']+)["']""")


def test_ascii_number():
    assert ascii_number("12") == 12 and ascii_number(" 7 ") == 7 and ascii_number("0") == 0
    for raw in ("²", "٣", "１２", "1\x00", "-1", "1e3", "", "1_000", "+1", None):
        assert ascii_number(raw) is None, raw
    assert ascii_number("9" * 9) == 999_999_999 and ascii_number("9" * 10) is None
    assert ascii_number("9" * 12, digits=12) == 999_999_999_999
    assert number_or_error("3") == 3
    with pytest.raises(ValueError):
        number_or_error("٣")


def field_names(client, pages: list[str]) -> set[str]:
    """Every name a view reads (from the source) and every field of the app's forms (from pages)."""
    names = {found for source in WEB.glob("*.py") for found in READ_NAME.findall(source.read_text("utf-8"))}
    for page in pages:
        names |= set(re.findall(r'name="([^"]+)"', client.get(page).get_data(as_text=True)))
    return names | {"later-²", "later-1", "mine-number", "rev", "form", "page", "min", "after", "cycle"}


@pytest.mark.slow  # every route × every odd value: 7 s, an eighth of the fast tier
def test_odd_values_in_every_route_never_give_a_server_error(csrf_app):
    csrf_app.config["TESTING"] = False  # as served: an exception becomes the 500 page, counted below
    client = csrf_app.test_client()
    html = client.get("/tables/new?game=rwd&players=4").get_data(as_text=True)
    response = client.post("/tables", data={"csrf_token": csrf_of(html), "game": "rwd", "players": "4",
                                            **{f"name-{i}": n for i, n in enumerate(["Ann", "Bob", "Cy", "Di"])}})
    assert response.status_code == 303
    token = response.headers["Location"].rsplit("/", 1)[-1]
    csrf = csrf_of(client.get(f"/t/{token}").get_data(as_text=True))
    assert client.post(f"/t/{token}/deals", data={"csrf_token": csrf, **rwd_rotating_deal_form(1)}).status_code == 303
    valid = {"token": token, "number": "1", "game_id": "rwd", "name": "score", "code": "ja",
             "filename": "app.js", "table_id": "1", "pid": "1", "player_id": "1", "seat": "0", "claim_id": "1", "room_id": "1"}
    names = field_names(client, [f"/t/{token}", f"/t/{token}/deals/1/edit", "/hall", "/players/1", "/season",
                                 "/tables/new?game=rwd&players=4", "/night"])
    server_errors: list[str] = []

    def send(method: str, url: str, form: dict[str, str] | None = None) -> None:
        try:
            response = client.open(url, method=method, data=form)
            status = response.status_code
        except Exception as exc:  # noqa: BLE001  (an exception escaping the app is a 500 too)
            status = f"raised {exc!r}"[:200]
        if not isinstance(status, int) or status >= 500:
            server_errors.append(f"{method} {url[:120]!r} {sorted(form or {})[:3]}…: {status}")

    rules = [rule for rule in csrf_app.url_map.iter_rules()]
    assert len(rules) > 50 and {"players.season_csv", "static", "tables.update"} <= {r.endpoint for r in rules}
    for rule in rules:
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            def path(**odd: str) -> str:
                return re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: quote(odd.get(m.group(1), valid[m.group(1)]), safe=""),
                              rule.rule)

            form = (lambda odd: {"csrf_token": csrf, **{name: odd for name in names}}) if method == "POST" else \
                (lambda odd: None)
            for odd in ODD:
                # Every name in the query string (and in the form of a POST) at once.
                send(method, path() + "?" + urlencode({name: odd for name in names}), form(odd))
            for argument in sorted(rule.arguments - set(rule.defaults or {})):  # those in the path
                for odd in ODD_IN_PATH:  # alone, and before a valid value ("\x00app.js")
                    for value in (odd, odd + valid[argument]):
                        send(method, path(**{argument: value}), {"csrf_token": csrf} if method == "POST" else None)
    # A correction that asks again for a later deal's choice, its field named with a "²".
    edit = client.get(f"/t/{token}/deals/1/edit").get_data(as_text=True)
    was = re.search(r'name="was" value="([^"]+)"', edit).group(1)
    send("POST", f"/t/{token}/deals/1", {"csrf_token": csrf, "was": was, **rwd_rotating_deal_form(1), "later-²": "1"})
    assert not server_errors, "\n".join(server_errors[:40]) + f"\n({len(server_errors)} in all)"


@pytest.mark.slow
def test_nul_in_a_static_path_and_a_logged_server_error(server_process):
    from helpers import raw, status_of

    port = server_process.port
    for path in ("/static/app%00.js", "/static/%00", "/static/vendor/%00x", "/season?min=%C2%B2",
                 "/season.csv?min=%C2%B2", "/season.json?min=%C2%B2", "/players/1?min=%C2%B2"):
        answer = raw(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode(),
                     source="127.0.0.2")
        assert status_of(answer) < 500, (path, answer[:300])
    log = server_process.log.read_text(errors="replace")
    assert "Traceback" not in log and " 500" not in log, log[-3000:]


SERVE_WITH_A_BROKEN_ROUTE = """
import sys
from companion.serving.patch import patch_for_gevent
patch_for_gevent()
from companion import create_app
from companion.serving import server as http

app = create_app({"DATABASE": sys.argv[1], "SECRET_KEY": "t"})

@app.get("/broken")
def broken():
    raise RuntimeError("a bug of ours")

listener = http.make_listener("127.0.0.1", 0)
print(listener.getsockname()[1], flush=True)
http.run(http.build_server(app, listener))
"""


@pytest.mark.slow
def test_a_server_error_is_logged_with_its_request_line(tmp_path):
    """The app under companion's gevent server (as `companion serve` builds it) with one route
    that fails: the 500 is in the log with its request line and the traceback."""
    import os
    import signal
    import subprocess
    import sys

    from helpers import REPO_ROOT, raw, status_of

    log = tmp_path / "serve.log"
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), PYTHONUNBUFFERED="1")
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", SERVE_WITH_A_BROKEN_ROUTE, str(tmp_path / "db.sqlite")],
                                stdout=subprocess.PIPE, stderr=out, env=env, cwd=tmp_path)
    try:
        port = int(proc.stdout.readline())
        answer = raw(port, f"GET /broken?which=%C2%B2 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                           "Connection: close\r\n\r\n".encode(), source="127.0.0.8")
        assert status_of(answer) == 500
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        proc.stdout.close()
    written = log.read_text(errors="replace")
    assert "127.0.0.8: answered 500 INTERNAL SERVER ERROR to GET /broken?which=%C2%B2 HTTP/1.1" in written, written
    assert "RuntimeError: a bug of ours" in written, written
