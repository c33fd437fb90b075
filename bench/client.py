"""The benchmarks' HTTP/1.1 client: one module, so every figure is measured the same way.

Loopback only (127.0.0.1 by default). Standard library only. What it does:

- ``Client``: one phone's browser, as far as the server can tell: one keep-alive connection
  (opened again when the server closed it), a cookie jar, gzip/deflate bodies decoded,
  Content-Length, chunked and until-close bodies; every ``Exchange`` counts the bytes that
  crossed the socket (request line + headers + body sent; status line + headers + body
  received, still compressed).
- ``status_of(port, path)``: one quick request (short connect timeout, Connection: close) that
  gives the status, or None while nothing answers: for polling a server that is starting.
- ``request_bytes`` / ``parse_head`` / ``decode``: the same request building and response-head
  parsing without a socket, for an asyncio client (bench/load.py, bench/serving.py) to share.

    from client import Client
    phone = Client(port)
    page = phone.request("GET", "/tables/new?game=rwd")
    created = phone.post_form("/tables", {"csrf_token": ..., "game": "rwd", ...})
"""

from __future__ import annotations

import gzip
import socket
import urllib.parse
import zlib
from dataclasses import dataclass
from typing import Iterable, Mapping

HOST = "127.0.0.1"
TIMEOUT_S = 10.0

Headers = Mapping[str, str] | Iterable[tuple[str, str]]


@dataclass
class Exchange:
    method: str
    path: str
    status: int
    sent: int  # request line + headers + body
    received: int  # status line + headers + body, as transferred
    headers: dict[str, str]  # lower-case names; repeated headers joined with ", "
    body: bytes  # decoded (gunzipped) body
    wire_body: int  # body bytes as transferred

    @property
    def total(self) -> int:
        return self.sent + self.received

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def request_bytes(method: str, path: str, host: str, port: int, body: bytes = b"",
                  headers: Headers = (), cookies: Mapping[str, str] | None = None) -> bytes:
    """The request as sent: Host and ``Connection: keep-alive`` first (unless ``headers`` says
    otherwise), Content-Length for a POST or a body, then ``headers`` in order, then Cookie."""
    extra = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
    given = {name.lower() for name, _ in extra}
    lines = [("Host", f"{host}:{port}")]
    if "connection" not in given:
        lines.append(("Connection", "keep-alive"))
    if (method == "POST" or body) and "content-length" not in given:
        lines.append(("Content-Length", str(len(body))))
    lines += extra
    if cookies:
        lines.append(("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items())))
    return (f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in lines)
            + "\r\n").encode("latin-1") + body


def parse_head(head: bytes, cookies: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    """(status, headers) of a response head (status line to the blank line). Set-Cookie values
    go into ``cookies`` when given; header names are lower-cased."""
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, _, value = line.partition(":")
        name, value = name.strip().lower(), value.strip()
        if name == "set-cookie" and cookies is not None:
            key, _, rest = value.partition("=")
            cookies[key.strip()] = rest.split(";", 1)[0]
        headers[name] = headers[name] + ", " + value if name in headers else value
    return status, headers


def decode(payload: bytes, headers: Mapping[str, str]) -> bytes:
    encoding = headers.get("content-encoding", "").lower()
    if encoding == "gzip":
        return gzip.decompress(payload)
    if encoding == "deflate":
        return zlib.decompress(payload)
    return payload


class Client:
    """One keep-alive connection with a cookie jar, counting bytes (see the module's doc)."""

    def __init__(self, port: int, host: str = HOST, timeout: float = TIMEOUT_S,
                 connect_timeout: float | None = None):
        self.host, self.port = host, port
        self.origin = f"http://{host}:{port}"
        self.timeout = timeout
        self.connect_timeout = timeout if connect_timeout is None else connect_timeout
        self.cookies: dict[str, str] = {}
        self.sock: socket.socket | None = None
        self.buffer = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
            self.buffer = b""

    def _read_some(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("server closed the connection mid-response")
        return data

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self.buffer += self._read_some()
        head, _, self.buffer = self.buffer.partition(marker)
        return head + marker

    def _read_exact(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.buffer += self._read_some()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def request(self, method: str, path: str, body: bytes = b"", headers: Headers = ()) -> Exchange:
        if self.sock is None:
            self.sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
            self.sock.settimeout(self.timeout)
        raw = request_bytes(method, path, self.host, self.port, body, headers, self.cookies)
        self.sock.sendall(raw)

        head = self._read_until(b"\r\n\r\n")
        status, response_headers = parse_head(head, self.cookies)
        closing = response_headers.get("connection", "").lower() == "close"
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            wire = payload = b""
        elif "content-length" in response_headers:
            wire = payload = self._read_exact(int(response_headers["content-length"]))
        elif "chunked" in response_headers.get("transfer-encoding", "").lower():
            wire, payload = b"", b""
            while True:
                size_line = self._read_until(b"\r\n")
                size = int(size_line.split(b";")[0].strip(), 16)
                chunk = self._read_exact(size + 2)
                wire += size_line + chunk
                payload += chunk[:-2]
                if size == 0:  # (no trailers: the last chunk's CRLF ends the message)
                    break
        else:  # body until close
            wire, self.buffer = self.buffer, b""
            while True:
                data = self.sock.recv(65536)
                if not data:
                    break
                wire += data
            payload = wire
            closing = True
        if closing:
            self.close()
        return Exchange(method, path, status, len(raw), len(head) + len(wire), response_headers,
                        decode(payload, response_headers), len(wire))

    def get(self, path: str, headers: Headers = ()) -> Exchange:
        return self.request("GET", path, headers=headers)

    def post_form(self, path: str, form: Mapping[str, str], headers: Headers = ()) -> Exchange:
        """A urlencoded POST, as a browser's form submission sends it (with Origin)."""
        extra = list(headers.items()) if isinstance(headers, Mapping) else list(headers)
        extra += [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", self.origin)]
        return self.request("POST", path, urllib.parse.urlencode(form).encode(), extra)


def status_of(port: int, path: str = "/healthz", host: str = HOST, connect_timeout: float = 0.05,
              timeout: float = 2.0) -> int | None:
    """Status of one GET (Connection: close), or None if nothing accepts or answers yet."""
    client = Client(port, host, timeout=timeout, connect_timeout=connect_timeout)
    try:
        return client.request("GET", path, headers={"Connection": "close"}).status
    except (OSError, ValueError, IndexError):
        return None
    finally:
        client.close()
