"""The phone the browser benchmarks and tests drive: Debian's Chromium through Playwright,
headless, at a 390 px phone's viewport (the same settings as tests/browser/pages.py), reaching
the server from its own loopback address as a phone on the Wi-Fi would from its own.

A phone is never the laptop: the server treats 127.0.0.1 and ::1 as the organiser's laptop (its
pages, its reserve, its turns first), so a Chromium page opened on this machine would be the
laptop. :class:`LoopbackPhone` is a SOCKS5 proxy for one browser context whose connections
leave from another loopback address (127.0.0.2, 127.0.0.3 …): the page still asks for
http://127.0.0.1:PORT/…, and the server sees the phone's own address. Loopback only.
"""

from __future__ import annotations

import itertools
import select
import socket
import struct
import threading

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
             has_touch=True, locale="en-US")

# 127.0.0.2 … 127.0.255.254: one each for the phones of a process, in turn.
_ADDRESSES = (f"127.0.{high}.{low}" for high in itertools.cycle(range(256)) for low in range(2, 255))
_ADDRESSES_LOCK = threading.Lock()


def next_phone_address() -> str:
    with _ADDRESSES_LOCK:
        return next(_ADDRESSES)


def phone_context(browser, **options):
    """``browser.new_context(**options)`` as a phone: through a :class:`LoopbackPhone` of its own
    (``context.loopback``), closed with the context."""
    loopback = LoopbackPhone()
    context = browser.new_context(**options, **loopback.context_options)
    context.loopback = loopback
    context.on("close", lambda *_: loopback.close())
    return context


class LoopbackPhone:
    """A SOCKS5 proxy on 127.0.0.1 for one phone's browser context: every connection it makes
    leaves from ``address`` (the next phone address when none is given). ``context_options``
    is what ``browser.new_context`` needs to go through it; :meth:`close` when done."""

    def __init__(self, address: str | None = None):
        self.address = address or next_phone_address()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.connections: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, name=f"phone-{self.address}", daemon=True).start()

    @property
    def context_options(self) -> dict:
        # "<-loopback>": Chromium sends even 127.0.0.1 through the proxy (it bypasses loopback by default).
        return {"proxy": {"server": f"socks5://127.0.0.1:{self.port}", "bypass": "<-loopback>"}}

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        with self.lock:
            for connection in list(self.connections):
                connection.close()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        upstream = socket.socket()
        with self.lock:
            self.connections.update((client, upstream))
        try:
            self._handshake(client, upstream)
            pair = (client, upstream)
            while True:
                ready, _, _ = select.select(pair, [], [])
                for source in ready:
                    data = source.recv(65536)
                    if not data:
                        return
                    (upstream if source is client else client).sendall(data)
        except (OSError, ConnectionError, ValueError):
            pass
        finally:
            with self.lock:
                self.connections.difference_update((client, upstream))
            client.close()
            upstream.close()

    def _handshake(self, client: socket.socket, upstream: socket.socket) -> None:
        """SOCKS5 without authentication, CONNECT only (RFC 1928)."""
        def read(count: int) -> bytes:
            data = b""
            while len(data) < count:
                chunk = client.recv(count - len(data))
                if not chunk:
                    raise ConnectionError("the browser closed the connection")
                data += chunk
            return data

        _version, methods = read(2)
        read(methods)
        client.sendall(b"\x05\x00")
        _version, _command, _reserved, kind = read(4)
        if kind == 1:
            host = socket.inet_ntoa(read(4))
        elif kind == 3:
            host = read(read(1)[0]).decode("ascii")
        else:
            raise ValueError("IPv6 targets are not used here")
        (port,) = struct.unpack(">H", read(2))
        if not host.startswith("127.") and host != "localhost":
            raise ValueError(f"{host}: loopback only")
        upstream.bind((self.address, 0))
        upstream.connect((host, port))
        client.sendall(b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00")
