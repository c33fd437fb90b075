"""A club's server behind a reverse proxy (issue 46), in-process: which device a proxied request
is (companion/devices.py), that a trusted proxy's request is never the organiser's by address or
Host, the organiser's passcode sign-in (companion/web/organiser_signin.py) and its 12 hours, and
`serve`'s flags. The same through a real nginx: tests/serving/test_proxy_nginx.py."""

from __future__ import annotations

import argparse

import pytest

from companion import cli
from companion.devices import Devices, device_of, is_organiser, trusted_addresses
from companion.web import organiser_signin

PROXY = "127.0.0.9"
PASSCODE = "k7m2-x9qp-4hrt"


def environ(peer: str, trusted=(PROXY,), **headers) -> dict:
    found = {"REMOTE_ADDR": peer, "HTTP_HOST": "127.0.0.1:8000"}
    found.update({f"HTTP_{name.upper()}": value for name, value in headers.items()})
    Devices(lambda e, s: None, trusted_addresses(trusted), lambda e: False)(found, None)
    return found


@pytest.mark.parametrize("headers, device", [
    ({"x_forwarded_for": "192.168.1.20"}, "192.168.1.20"),
    # what the phone sent first is its own claim; the proxy's entry is the last
    ({"x_forwarded_for": "127.0.0.1, 192.168.1.20"}, "192.168.1.20"),
    ({"x_forwarded_for": " 10.0.0.1 ,192.168.1.21 "}, "192.168.1.21"),
    # a trusted proxy in front of this one: the client is the entry it was given
    ({"x_forwarded_for": "192.168.1.22, 127.0.0.9"}, "192.168.1.22"),
    ({"forwarded": 'for=192.0.2.60;proto=http;by=203.0.113.43'}, "192.0.2.60"),
    ({"forwarded": 'for=127.0.0.1, for="[2001:db8:cafe::17]:4711"'}, "2001:db8:cafe::17"),
    ({"forwarded": "for=192.0.2.61:8080"}, "192.0.2.61"),
    # X-Forwarded-For wins: the documented config sets it; a phone's Forwarded passes through nginx
    ({"x_forwarded_for": "192.168.1.23", "forwarded": "for=192.168.1.99"}, "192.168.1.23"),
    ({}, PROXY),  # a proxy that names no client: one device, itself
])
def test_a_trusted_proxy_names_the_device(headers, device):
    assert device_of(environ(PROXY, **headers)) == device


def test_anyone_else_is_their_own_address_whatever_they_claim():
    claims = {"x_forwarded_for": "192.168.1.20", "forwarded": "for=192.168.1.21"}
    assert device_of(environ("127.0.0.5", **claims)) == "127.0.0.5"
    assert device_of(environ("::ffff:127.0.0.9", trusted=(), **claims)) == "127.0.0.9"
    assert device_of(environ("::ffff:127.0.0.9", **claims)) == "192.168.1.20"  # a dual-stack listener's view


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "[::1]:8000", "", "club.example"])
def test_a_trusted_proxy_is_never_the_organiser_by_address_or_host(host):
    # A proxy on the same machine connects from 127.0.0.1, naming any Host the phone chose.
    for peer, forwarded in (("127.0.0.1", "127.0.0.1"), ("::1", "::1"), (PROXY, "127.0.0.1")):
        request = environ(peer, trusted=(peer,), x_forwarded_for=forwarded, host=host)
        assert is_organiser(request, lambda: "192.168.1.5") is False
    assert is_organiser(environ("127.0.0.1", host=host), lambda: "192.168.1.5") is (host not in ("", "club.example"))


def test_trusted_addresses_are_addresses():
    assert trusted_addresses(["127.0.0.9", "[::1]", "::ffff:10.0.0.2", " "]) == {"127.0.0.9", "::1", "10.0.0.2"}
    with pytest.raises(ValueError):
        trusted_addresses(["proxy.example"])


# --- the organiser's sign-in, in the app -----------------------------------------------------

class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def proxied(app_of, tmp_path, _migrated_database):
    clock = Clock()
    app = app_of({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"), "SECRET_KEY": "test",
                  "WTF_CSRF_ENABLED": False, "TRUSTED_PROXIES": (PROXY,), "ORGANISER_PASSCODE": PASSCODE,
                  "ORGANISER_CLOCK": clock}, _migrated_database)
    app.clock = clock
    return app


def through_proxy(client, method: str, path: str, phone: str = "192.168.1.20", **kwargs):
    headers = {"X-Forwarded-For": phone, "Host": kwargs.pop("host", "127.0.0.1:8000")}
    return client.open(path, method=method, headers=headers, environ_base={"REMOTE_ADDR": PROXY}, **kwargs)


def sign_in(client, passcode: str, phone: str = "192.168.1.20", next_path: str = "/hall"):
    return through_proxy(client, "POST", "/organiser/sign-in", phone, data={"passcode": passcode, "next": next_path})


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost", "192.168.1.5:8000", "club.example"])
def test_no_host_gets_a_phone_the_hall_only_the_sign_in(proxied, host):
    client = proxied.test_client()
    for path in ("/hall", "/players", "/hall/screen"):
        page = through_proxy(client, "GET", path, host=host)
        text = page.get_data(as_text=True)
        assert page.status_code == 403 and 'name="passcode"' in text, (path, host)
        assert f'name="next" value="{path}"' in text


def test_the_organiser_signs_in_with_the_passcode_until_12_hours(proxied):
    client = proxied.test_client()
    wrong = sign_in(client, "k7m2-x9qp-4hrx")
    text = wrong.get_data(as_text=True)
    assert wrong.status_code == 403 and 'id="err-passcode"' in text and "That is not the passcode" in text
    assert 'value="k7m2-x9qp-4hrx"' in text  # what was typed stays, to correct
    assert through_proxy(client, "GET", "/hall").status_code == 403
    done = sign_in(client, " K7M2 X9QP-4HRT ", next_path="/players")  # as typed on a phone
    assert done.status_code == 303 and done.headers["Location"] == "/players"
    assert "HttpOnly" in done.headers["Set-Cookie"] and "SameSite=Lax" in done.headers["Set-Cookie"]
    assert through_proxy(client, "GET", "/hall").status_code == 200
    proxied.clock.now += 12 * 3600 - 1
    assert through_proxy(client, "GET", "/hall").status_code == 200
    proxied.clock.now += 1
    assert through_proxy(client, "GET", "/hall").status_code == 403  # the sign-in again


def test_a_new_night_ends_every_sign_in(proxied):
    organiser, other_browser = proxied.test_client(), proxied.test_client()
    assert sign_in(organiser, PASSCODE).status_code == 303
    assert sign_in(other_browser, PASSCODE, phone="192.168.1.30").status_code == 303
    assert through_proxy(other_browser, "POST", "/hall/nights", data={"unfinished": "keep"}).status_code == 303
    assert through_proxy(organiser, "GET", "/hall").status_code == 403
    assert through_proxy(other_browser, "GET", "/hall").status_code == 403


def test_a_cookie_signed_with_another_key_or_night_holds_nothing(proxied):
    client = proxied.test_client()
    forged = organiser_signin.URLSafeSerializer("another key", salt=organiser_signin._SALT).dumps(
        {"night": 0, "at": int(proxied.clock.now)})
    client.set_cookie(organiser_signin.COOKIE, forged)
    assert through_proxy(client, "GET", "/hall").status_code == 403
    client.set_cookie(organiser_signin.COOKIE, organiser_signin.sign_in_cookie(proxied, 7, proxied.clock.now))
    assert through_proxy(client, "GET", "/hall").status_code == 403  # not tonight's night


def test_wrong_passcodes_are_limited_per_device(proxied):
    client = proxied.test_client()
    for _ in range(5):
        assert sign_in(client, "wrong-wrong", phone="192.168.1.40").status_code == 403
    refused = sign_in(client, PASSCODE, phone="192.168.1.40")
    assert refused.status_code == 429 and "Too many tries" in refused.get_data(as_text=True)
    assert 'id="err-passcode"' in refused.get_data(as_text=True) and int(refused.headers["Retry-After"]) > 0
    assert sign_in(client, PASSCODE, phone="192.168.1.41").status_code == 303  # another device tries on its own


def test_without_a_proxy_there_is_no_sign_in(proxied):
    client = proxied.test_client()
    # The laptop itself needs no sign-in: straight on to the page asked for.
    assert client.get("/organiser/sign-in?next=/players").headers["Location"] == "/players"
    for elsewhere in ("//elsewhere.example/", "/\t/elsewhere.example/", "https://elsewhere.example/", "hall"):
        assert client.post("/organiser/sign-in", data={"passcode": "", "next": elsewhere}
                           ).headers["Location"] == "/hall", elsewhere
    assert client.get("/hall").status_code == 200  # the laptop itself, as always
    page = client.get("/hall", environ_base={"REMOTE_ADDR": "127.0.0.5"})
    assert page.status_code == 403 and 'name="passcode"' not in page.get_data(as_text=True)


# --- serve's flags ---------------------------------------------------------------------------------

def parsed(argv, monkeypatch, env=None) -> argparse.Namespace:
    for name in (cli.TRUSTED_PROXY_ENV, cli.PASSCODE_ENV, cli.PUBLIC_URL_ENV):
        monkeypatch.delenv(name, raising=False)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    seen = {}
    monkeypatch.setattr(cli, "serve", lambda args: seen.setdefault("args", args) and 0)
    cli.main(["serve", *argv])
    return seen["args"]


def test_serve_takes_trusted_proxies_a_passcode_and_the_public_url(monkeypatch, tmp_path):
    args = parsed(["--trusted-proxy", "127.0.0.9", "--trusted-proxy", "::1", "--public-url", "https://club.example"],
                  monkeypatch)
    assert args.trusted_proxy == ("127.0.0.9", "::1") and args.public_url == "https://club.example/"
    assert len(organiser_signin._plain(args.organiser_passcode)) == 12
    assert cli.proxy_environment(args)[cli.PASSCODE_ENV] == args.organiser_passcode  # the workers agree
    line = cli.sign_in_line(args)
    assert "https://club.example/organiser/sign-in" in line and args.organiser_passcode in line
    passcode = tmp_path / "passcode"
    passcode.write_text("a long organiser passcode\n")
    args = parsed(["--organiser-passcode-file", str(passcode)], monkeypatch,
                  {cli.TRUSTED_PROXY_ENV: "127.0.0.9, 127.0.0.10"})
    assert args.trusted_proxy == ("127.0.0.10", "127.0.0.9") and args.organiser_passcode == "a long organiser passcode"
    assert args.organiser_passcode not in cli.sign_in_line(args)  # the file is named, its secret not printed
    worker = parsed([], monkeypatch, cli.proxy_environment(args))  # a worker started by `--workers`
    assert (worker.trusted_proxy, worker.organiser_passcode) == (args.trusted_proxy, args.organiser_passcode)
    assert parsed([], monkeypatch).trusted_proxy == () and cli.sign_in_line(parsed([], monkeypatch)) is None


@pytest.mark.parametrize("argv, said", [
    (["--trusted-proxy", "proxy.example"], "--trusted-proxy"),
    (["--public-url", "club.example"], "--public-url"),
    (["--public-url", "https://club.example/companion/"], "not under a path"),
])
def test_serve_refuses_what_it_cannot_use(argv, said, monkeypatch, capsys):
    with pytest.raises(SystemExit):
        parsed(argv, monkeypatch)
    assert said in capsys.readouterr().err


def test_the_start_message_says_where_the_organiser_signs_in():
    out = cli.start_message(url="https://club.example/", warning=None, laptop="http://127.0.0.1:8000/",
                            database="x", moved_from=None, draw_qr=False,
                            sign_in="Behind the proxy at 127.0.0.9: the organiser signs in at "
                                    "https://club.example/organiser/sign-in with this passcode: abcd")
    assert "open https://club.example/" in out and "organiser/sign-in with this passcode: abcd" in out


def test_a_trusted_proxys_connections_get_no_laptop_rights():
    from companion.serving.server import Server

    server = Server.__new__(Server)  # only its rule about the laptop, without a socket
    server.trusted = trusted_addresses(["127.0.0.1"])
    assert server.is_laptop("127.0.0.1") is False and server.is_laptop("::1") is True
    server.trusted = trusted_addresses([PROXY])
    assert server.is_laptop("127.0.0.1") is True and server.is_laptop(PROXY) is False


def test_the_public_url_is_given_to_phones_but_trusted_for_nothing(app_of, tmp_path, _migrated_database, qr_decode):
    """A proxy nobody said to trust (no --trusted-proxy) connects from 127.0.0.1 naming the
    public host: its phones are not the organiser, and the QR still carries the public URL."""
    import re

    from web.test_app import svg_to_image

    app = app_of({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"), "SECRET_KEY": "test",
                  "JOIN_URL": "http://192.168.1.5:8000/", "PUBLIC_URL": "https://club.example/"}, _migrated_database)
    client = app.test_client()
    assert client.get("/hall", headers={"Host": "club.example"}).status_code == 403
    assert client.get("/hall", headers={"Host": "192.168.1.5:8000"}).status_code == 200  # the laptop, as always
    home = client.get("/", headers={"Host": "club.example"}).get_data(as_text=True)
    svg = re.search(r'<svg\b[^>]*class="qr"[^>]*>.*?</svg>', home, re.S).group(0)
    assert qr_decode(svg_to_image(svg)) == ["https://club.example/"]
