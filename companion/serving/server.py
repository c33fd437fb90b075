"""The production server behind `companion serve`: gevent's WSGI server, hardened for a venue.

Why gevent: every table page holds a Server-Sent Events stream open for as long as it is on
screen. waitress answers each request on one of a fixed pool of threads, so 1,536 phones
holding streams would need 1,536 threads (about 8 MB of stack address space and a GIL
hand-off each), and its loop watches sockets with select(), which stops at 1,024 files. A
gevent greenlet per connection costs a few kilobytes and its loop uses epoll/kqueue (libev)
or IOCP (libuv on Windows), so thousands of idle streams cost memory only. gevent ships wheels
for Linux, macOS and Windows, so `companion serve` stays one command everywhere. Measured with
`python3 bench/serving.py --compare --streams 300`: under gevent all 300 held streams heard a deal
within 39 ms (56 MB); under waitress with 16 threads none did, and the save itself got no answer.

What no single device may do here (all configurable, see :class:`Limits`):

- hold more than ``per_device`` connections (a phone's browser opens at most 6 per host);
  the rest are closed at accept, before a greenlet is spawned;
- push the server past ``max_connections`` (always below the open-file limit, which is raised
  to its hard maximum at start where the OS allows): the phones together hold at most that many,
  further ones are closed at accept; the laptop itself has ``LAPTOP_RESERVE`` more of its own,
  and past those its connections wait in the kernel's backlog instead of failing with "too many
  open files". When the phones' connections near the cap (within ``ROOM_MARGIN``), each new one
  closes two idle ones of the device holding the most connections: its keep-alive connections
  waiting for a request first, then its oldest event streams (its pages reconnect by themselves,
  companion/serving/events.py). So many addresses holding what they may can't shut a new phone
  out for long: they lose their own idle connections first;
- take longer than ``header_timeout`` seconds to send a request's line and headers (slowloris),
  or stall a send for ``io_timeout`` seconds (a reader that stopped reading);
- send a body larger than ``max_body`` bytes: refused from its Content-Length header, before a
  byte of it is read (never spooled), and the connection closed instead of drained;
- send a body slower than ``min_body_rate`` after ``body_grace`` seconds: the body is read whole
  before the app sees the request, so a slow body holds a connection, never a table's turn
  (companion/serving/turns.py), and a drip is answered 408 and closed;
- fill the log: client-caused trouble (refusals, timeouts, resets) is logged once per kind and
  device per minute, with a count of what was left out.

SQLite calls are C calls that never yield to other greenlets, so a write transaction runs to
its end before any other request continues; nothing inside one may do network I/O (today they
hold only SQL, pure Python and locks that are never held across a yield). The app keeps one
SQLite connection per running request (companion/store/connection.py), not per greenlet.
"""

from __future__ import annotations

import errno
import io
import socket
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable

from .. import metrics
from ..numbers import ascii_number
from ..devices import LAPTOP_ADDRESSES, is_laptop_address, is_trusted_proxy, trusted_addresses
from . import CLOSE_KEY, FLOOD_KEY, SOCKET_KEY, table_route
from .limits import CONNECTIONS, DeviceLimits, device_limits

MAX_BODY = 64 * 1024  # as Flask's MAX_CONTENT_LENGTH: a deal form is a few hundred bytes


@dataclass
class Limits:
    max_connections: int = 0  # 0: from the open-file limit (see connection_cap)
    per_device: int = CONNECTIONS  # companion/serving/limits.py
    header_timeout: float = 15.0  # request line + headers, idle keep-alive included
    io_timeout: float = 30.0  # any single read or send
    max_body: int = MAX_BODY
    # A request's body is read whole before the app sees the request (so a table's turn is
    # never held by a body still on its way), and must keep up this rate after a grace period.
    body_grace: float = 5.0
    min_body_rate: float = 2048.0  # bytes per second; a deal form (a few hundred bytes) needs none


def raise_open_file_limit(wanted: int = 65536) -> int:
    """Raise the soft open-file limit towards the hard one; returns the soft limit in force.
    Windows has no such limit (the C runtime's doesn't apply to sockets): a large number."""
    try:
        import resource
    except ImportError:
        return 1 << 16
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if sys.platform == "darwin":
        target = min(target, 10240)  # OPEN_MAX: macOS refuses more for setrlimit
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft if soft != resource.RLIM_INFINITY else wanted


def connection_cap(open_files: int) -> int:
    """Connections we accept at once: leave room for the database, logs and the listener."""
    return max(16, min(20000, open_files - max(64, open_files // 10)))


class FloodLog:
    """Log client-caused trouble once per (kind, device) per ``every`` seconds; the next
    line says how many were left out. One hostile device can't grow the log."""

    def __init__(self, stream=None, every: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self.stream = stream or sys.stderr
        self.every = every
        self.clock = clock
        self.last: dict[tuple[str, str], tuple[float, int]] = {}
        self.lock = threading.Lock()

    def __call__(self, kind: str, device: str, message: str) -> bool:
        now = self.clock()
        key = (kind, device)
        with self.lock:
            when, skipped = self.last.get(key, (None, 0))
            if when is not None and now - when < self.every:
                self.last[key] = (when, skipped + 1)
                return False
            if len(self.last) > 4096:  # a flood of addresses: forget the old entries
                self.last = {k: v for k, v in self.last.items() if now - v[0] < self.every}
            self.last[key] = (now, 0)
        more = f" ({skipped} more like it since the last report)" if skipped else ""
        try:
            self.stream.write(f"companion: {device}: {message}{more}; logged once a minute\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass
        return True


def make_listener(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening socket. ``::`` (or ``[::]``) listens on IPv6 *and* IPv4, so the IPv4
    address printed and drawn as the QR code works for phones either way."""
    host = host.strip("[]")
    infos = socket.getaddrinfo(host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    family, kind, proto, _name, address = infos[0]
    if host == "::" or (host == "" and socket.has_ipv6):
        family, address = socket.AF_INET6, ("::", port, 0, 0)
    sock = socket.socket(family, kind, proto)
    try:
        if sys.platform != "win32":  # on Windows SO_REUSEADDR would let another process share the port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and host in ("::", ""):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # dual stack
        sock.bind(address)
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def address_in_use(exc: OSError) -> bool:
    return exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1))


# --- gevent's server, with the limits above ----------------------------------------------------
#
# gevent is imported here at module level: `companion serve` runs
# companion.serving.patch.patch_for_gevent() before it imports this module and the app. Each place
# where gevent's own behaviour is replaced is one small, named override below, with why; the
# gevent versions they were written against are pinned in pyproject.toml, and
# tests/serving/test_gevent_patches.py fails if a name they override disappears from gevent.

import gevent  # noqa: E402
from gevent.pool import Pool  # noqa: E402
from gevent.pywsgi import Input, WSGIHandler, WSGIServer  # noqa: E402
from gevent.pywsgi import _BAD_REQUEST_RESPONSE as BAD_REQUEST  # noqa: E402  (gevent's own 400 answer)


def plain_address(address: str) -> str:
    """An IPv4 address as itself: a dual-stack listener (``--host ::``) sees IPv4 clients as
    ``::ffff:a.b.c.d``, and the laptop reaching itself as 127.0.0.1 must still be loopback
    (trusted on /hall) and one device with its IPv4 self."""
    if address[:7].lower() == "::ffff:" and "." in address:
        return address[7:]
    return address


def device_of(address) -> str:
    """A connection's device: its source address (a phone, or a test's 127.0.0.x)."""
    return plain_address(address[0] if isinstance(address, tuple) else str(address))


class KeptBody(Input):
    """Patch 1 of 5 (``Input._discard``): gevent reads and throws away whatever body the app
    left unread, so the connection can carry the next request. A refused or half-read body
    could be up to ``max_body`` bytes a slow phone is still sending: never read it, close the
    connection instead (Handler.handle_one_response sets close_connection)."""

    __slots__ = ()

    def _discard(self):
        pass


class HeadTimeout(Exception):
    """The request line and headers took longer than ``Limits.header_timeout``."""


class BodyTooSlow(Exception):
    """The body fell behind ``Limits.min_body_rate``."""


BODY_STEP = 1024  # the body is read in pieces of this size, each with its own deadline


class Handler(WSGIHandler):
    """One connection. Its server (:class:`Server`) carries the limits and the flood log."""

    def __init__(self, sock, address, server):
        # A 1 KB read buffer, not 8 KB: thousands of connections are held open (streams)
        # and requests here are a few hundred bytes; longer lines are read in pieces.
        super().__init__(sock, address, server, rfile=sock.makefile("rb", 1024))
        self.head_deadline = None

    @property
    def limits(self) -> Limits:
        return self.server.limits

    def flood(self, kind: str, message: str) -> None:
        metrics.refused(kind)  # this connection's own refusals (the layers' count in client_trouble)
        self.server.trouble(kind, self.device(), message)

    def counted(self, status: str) -> None:
        """An answer of the server's own, before the app (408, 413, 400), counted as the app's are."""
        method, path = self.command or "", (self.path or "").split("?", 1)[0]
        routes = getattr(self.server.application, "extensions", {}).get("metric_routes")
        metrics.answered(routes.of(method, path) if routes is not None and path else metrics.UNMATCHED,
                         method, status)

    def device(self) -> str:
        return device_of(self.client_address)

    def get_environ(self):
        environ = super().get_environ()
        environ["REMOTE_ADDR"] = plain_address(environ.get("REMOTE_ADDR", ""))
        environ[FLOOD_KEY] = self.server.trouble  # the layers in front of the app log through it
        environ[SOCKET_KEY] = self.socket.fileno()  # a held stream's page may have gone: companion/serving/events.py
        # gevent's error log is off (error_log=None), and Flask writes an exception's traceback to
        # wsgi.errors: an error of ours must reach the terminal.
        environ["wsgi.errors"] = sys.stderr
        return environ

    def handle(self):
        self.socket.settimeout(self.limits.io_timeout)
        try:  # an event is a few bytes: send it now, not after the last packet's ACK (Nagle)
            self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass
        super().handle()

    def read_requestline(self):
        # One deadline for the request line and the headers after it (cancelled in
        # read_request); an idle keep-alive connection also ends here.
        self.head_deadline = gevent.Timeout.start_new(self.limits.header_timeout, HeadTimeout)
        self.server.idle_now(self, True)  # waiting for a request: the first to go near the cap
        try:
            return super().read_requestline()
        except HeadTimeout:
            self.head_deadline.cancel()
            return ""  # nothing (or not a whole line) in time: close quietly
        except BaseException:
            self.head_deadline.cancel()
            raise
        finally:
            self.server.idle_now(self, False)

    def close_idle(self) -> None:
        """End this connection while it waits for a request (the server needs the room): its
        read sees the end at once."""
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def read_request(self, raw_requestline):
        try:
            return super().read_request(raw_requestline)
        except HeadTimeout:
            self.flood("slow", f"request headers not sent within {self.limits.header_timeout:g} s: "
                               "connection closed")
            raise ValueError("headers too slow") from None
        finally:
            self.head_deadline.cancel()

    def handle_one_response(self):
        length = ascii_number(self.headers.get("Content-Length", ""), 18)
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        if length is not None and length > self.limits.max_body:
            self.refuse_too_large(length)
            return
        if chunked or (length is not None and length > 0):
            # Patch 2 of 5 (``wsgi_input.__class__``): gevent builds the body's Input itself,
            # with no hook for its class; KeptBody only drops the draining (see there).
            self.wsgi_input.__class__ = KeptBody
            body = self.read_body(None if chunked else length)
            if body is None:
                return  # refused (too slow, too large) or the phone went away: closed
            self.environ["wsgi.input"] = io.BytesIO(body)
            self.environ["CONTENT_LENGTH"] = str(len(body))
        super().handle_one_response()
        if self.environ.get(CLOSE_KEY):
            self.close_connection = True  # a layer refused this device: its next ask needs a new connection
        if table_route(self.environ) == "events":
            # A stream ended (or was refused): its page opens a new one when it wants one, so
            # the connection goes at once, not after an idle keep-alive (near the cap, closing
            # a stream must free a connection: companion/serving/events.py).
            self.close_connection = True
        body = self.wsgi_input
        if body is not None and (body.chunked_input or body.position < (body.content_length or 0)):
            self.close_connection = True  # what the app didn't read is never read (or spooled)

    def read_body(self, length: int | None) -> bytes | None:
        """The whole body (``length`` bytes, or chunked up to ``max_body``), read before the app
        runs. Each piece must arrive by ``body_grace + received / min_body_rate`` seconds from
        the start: a drip is answered 408 and closed. None: refused or the phone went away."""
        limits = self.limits
        want = length if length is not None else limits.max_body + 1
        start = time.monotonic()
        pieces, got = [], 0
        try:
            while got < want:
                step = min(want - got, BODY_STEP)
                deadline = start + limits.body_grace + (got + step) / limits.min_body_rate
                with gevent.Timeout(max(0.001, deadline - time.monotonic()), BodyTooSlow):
                    piece = self.wsgi_input.read(step)
                if not piece:
                    break
                pieces.append(piece)
                got += len(piece)
        except BodyTooSlow:
            self.flood("slow", f"request body slower than {limits.min_body_rate:g} bytes/s: answered 408, "
                               "connection closed")
            self.refuse("408 Request Timeout", "too_slow")
            return None
        except (OSError, ValueError):  # the phone went away, or a malformed chunk
            self.close_connection = True
            return None
        if length is None and got > limits.max_body:
            self.refuse_too_large(got)
            return None
        if length is not None and got < length:  # closed before the whole body came
            self.close_connection = True
            return None
        return b"".join(pieces)

    def refuse(self, status: str, page_name: str) -> None:
        """Answer ``status`` with one of the serving pages, and close the connection."""
        self.close_connection = True
        self.counted(status)
        page = self.server.page(page_name, self.headers.get("Cookie", ""), self.headers.get("Accept-Language", ""))
        self.start_response(status, [
            ("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(page))),
            ("Connection", "close"), ("Cache-Control", "no-store")])
        self.write(page)
        self.time_finish = time.time()

    def refuse_too_large(self, length: int) -> None:
        """413 from the Content-Length header, before a byte of the body is read; closed after."""
        self.flood("large", f"refused a {length:,}-byte body (limit {self.limits.max_body:,})")
        self.refuse("413 Content Too Large", "too_large")

    def log_request(self):
        # No access log (a busy night would write thousands of lines a minute), except for an
        # error of ours: every 5xx but the deliberate 503 (busy, or not saved: said where it is
        # decided), with its request line, so it can be found and fixed.
        code = getattr(self, "code", None)
        if isinstance(code, int) and 500 <= code < 600 and code != 503:
            status = self.status.decode("latin-1") if isinstance(self.status, bytes) else str(self.status)
            line = (self.requestline or "")[:400].encode("unicode_escape").decode("ascii")
            try:
                sys.stderr.write(f"companion: {self.device()}: answered {status} to {line}\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

    def log_error(self, msg, *args):
        self.flood("client", (msg % args) if args else msg)

    def _log_error(self, t, v, tb):
        # Patch 3 of 5 (``WSGIHandler._log_error``): gevent prints a traceback for any error
        # while handling a connection. A phone that went away or stopped reading (OSError) is
        # client trouble, said once a minute per device; anything else is ours and is printed.
        if isinstance(v, OSError):
            self.flood("socket", f"connection dropped: {v}")
            return
        super()._log_error(t, v, tb)

    def _handle_client_error(self, ex):
        # Patch 5 of 5 (``WSGIHandler._handle_client_error``): a request gevent can't parse (101
        # headers, a bad request line) is the client's mistake, answered 400. gevent prints a
        # traceback for some of them (``traceback.print_exc()``, 1.5 KB each: one device wrote
        # 10 MB of log in 10 s); say it once a minute per device instead, as our own refusals.
        self.flood("invalid", f"invalid request ({type(ex).__name__}: {str(ex)[:200]}): answered 400")
        self.close_connection = True
        metrics.answered(metrics.UNMATCHED, "", 400)
        return ("400", BAD_REQUEST)


# The laptop itself (its browser on loopback: the hall board, the host's pages). Phones all
# together may hold ``cap`` connections; these few more are the laptop's alone, so a room (or an
# attacker with many addresses) holding every connection never locks the laptop out.
LAPTOP = LAPTOP_ADDRESSES
LAPTOP_RESERVE = 32
ROOM_MARGIN = 0.05  # of the cap: past cap * (1 - this), new connections make room (see the module's docstring)
ROOM_PER_CONNECTION = 2  # idle connections closed per new one: the count goes down, not only stays
# A device refused lately for asking too much (more event streams than its share, more
# requests waiting than its fair share, more cheap asks than a phone makes, too many connections, guessed table links, a slow or malformed
# request) may then open new connections only at a bounded rate (companion/serving/limits.py,
# "connecting": a burst, then so many a second); past it they are closed at accept. Why: a refused request still costs the server
# about a millisecond (read, parse, answer), and 300 addresses each retrying dozens of refused
# event streams kept its one core busy, so the laptop's own hall waited seconds in gevent's run
# queue; a close at accept costs microseconds. A phone that was never refused is never counted
# (a table's turns being busy, or a connection dropped, is not the phone's doing).
THROTTLE_AFTER = frozenset({"streams", "share", "asks", "connections", "connecting", "links", "slow", "large",
                            "invalid"})


class Server(WSGIServer):
    """gevent's WSGIServer, counting each device's connections (``Limits.per_device``) and all
    the phones' together (``cap``; the laptop has :data:`LAPTOP_RESERVE` more of its own)."""

    handler_class = Handler

    def __init__(self, listener, application, limits: Limits, flood: FloodLog, cap: int):
        super().__init__(listener, application, spawn=Pool(cap + LAPTOP_RESERVE), log=None, error_log=None)
        self.limits = limits
        self.flood = flood
        self.connection_cap = cap
        self.per_device: dict[str, int] = {}
        self.phones = 0  # connections held by devices other than the laptop
        self.idle: dict[str, dict[Handler, None]] = {}  # device -> its connections waiting for a request
        self.room_from = cap - max(8, int(cap * ROOM_MARGIN))
        self.made_room = 0  # idle connections closed to make room, for tests and benchmarks
        # Each device's rates and whether it was refused lately: the app's one per-device map.
        self.device_limits = device_limits(application) if hasattr(application, "extensions") else DeviceLimits()
        # A trusted reverse proxy (issue 46) carries many devices on its connections: never the
        # laptop's (its reserve, its place last in line to make room), never one device's share
        # of connections, never throttled as one; each request's device is the client it names.
        self.trusted = trusted_addresses(getattr(application, "config", {}).get("TRUSTED_PROXIES") or ())

    def is_laptop(self, device: str) -> bool:
        """A connection of the laptop's own browser: from its address, and not a trusted proxy's
        (a proxy on the same machine connects from 127.0.0.1 for every phone)."""
        return is_laptop_address(device) and not is_trusted_proxy(device, self.trusted)

    def trouble(self, kind: str, device: str, message: str) -> None:
        """A device did something refused: log it (once a minute per kind), and count its new
        connections for a while if it asked too much (companion/serving/limits.py)."""
        if kind in THROTTLE_AFTER and not self.is_laptop(device) and not is_trusted_proxy(device, self.trusted):
            self.device_limits.refused(device)
        self.flood(kind, device, message)

    def idle_now(self, handler: Handler, idle: bool) -> None:
        device = handler.device()
        if idle:
            self.idle.setdefault(device, {})[handler] = None
            return
        waiting = self.idle.get(device)
        if waiting is not None:
            waiting.pop(handler, None)
            if not waiting:
                del self.idle[device]

    def make_room(self, count: int) -> int:
        """Close ``count`` idle connections of the phones holding the most: keep-alives waiting
        for a request first, then event streams, the device with the most connections first."""
        streams = getattr(getattr(self.application, "extensions", {}).get("event_streams"), "streams", None)
        made = 0
        for _ in range(count):
            heaviest = max(self.per_device, key=lambda d: (not self.is_laptop(d), self.per_device[d]),
                           default=None)
            if heaviest is None or self.is_laptop(heaviest):
                break
            waiting = self.idle.get(heaviest)
            if waiting:
                handler = next(iter(waiting))
                self.idle_now(handler, False)
                handler.close_idle()
            elif streams is None or not (streams.evict_from(heaviest) or streams.evict(1)):
                break
            made += 1
        self.made_room += made
        return made

    def page(self, name: str, cookie: str, accept_language: str) -> bytes:
        """A page of companion/serving/pages.py in the phone's language (the app's, if it has them)."""
        from .pages import language

        pages = getattr(self.application, "extensions", {}).get("serving_pages")
        if pages is None:
            return b"Refused."
        return pages.page(name, language(cookie, accept_language))

    def do_handle(self, sock, address):
        device = device_of(address)
        count = self.per_device.get(device, 0)
        proxy = is_trusted_proxy(device, self.trusted)
        if count >= self.limits.per_device and not proxy:
            metrics.refused("connections")
            self.trouble("connections", device, f"more than {self.limits.per_device} connections at once: "
                                                "further ones closed at once")
            sock.close()
            return
        laptop = self.is_laptop(device)
        if not laptop and not proxy and not self.device_limits.may_connect(device):
            rate = self.device_limits.rates["connecting"]
            metrics.refused("connecting")
            self.trouble("connecting", device, f"refused lately, then more than {rate.burst:g} new connections at "
                                               f"once or {rate.per_s:g} a second: further ones closed at once")
            sock.close()
            return
        # Near the cap, a new phone's connection closes idle ones of the devices holding the
        # most; it is let in while those close (the cap is kept well below the open-file limit).
        # (never more than the margin past it: the closing ones may take a while to go).
        made_room = not laptop and self.phones >= self.room_from and self.make_room(ROOM_PER_CONNECTION)
        if not laptop and self.phones >= self.connection_cap \
                and (not made_room or self.phones >= 2 * self.connection_cap - self.room_from):
            metrics.refused("full")
            self.flood("full", device, f"the server holds {self.connection_cap} connections from phones: "
                                       "further ones closed at once (the laptop's own still get in)")
            sock.close()
            return
        if not laptop:
            self.phones += 1
        self.per_device[device] = count + 1
        try:
            super().do_handle(sock, address)
        except BaseException:
            self.release(device)
            raise

    def handle(self, sock, address):
        try:
            super().handle(sock, address)
        finally:
            self.release(device_of(address))

    def release(self, device: str) -> None:
        if not self.is_laptop(device):
            self.phones -= 1
        left = self.per_device.get(device, 1) - 1
        if left > 0:
            self.per_device[device] = left
        else:
            self.per_device.pop(device, None)


def quiet_accept_errors(flood: FloodLog) -> None:
    """Patch 4 of 5 (``hub.print_exception``): accept() failing (EMFILE and the like) is retried
    by gevent with a back-off, and printed by the hub with a traceback each time: say it once
    a minute instead. Any other error is printed as gevent would."""
    hub = gevent.get_hub()
    original = getattr(hub.print_exception, "companion_original", hub.print_exception)

    def quiet_print(context, t, v, tb):
        if isinstance(v, OSError):
            flood("server", "server", f"{v}")
            return
        original(context, t, v, tb)

    quiet_print.companion_original = original
    hub.print_exception = quiet_print


def build_server(app: Callable, listener: socket.socket, limits: Limits | None = None,
                 log: FloodLog | None = None) -> Server:
    """gevent's WSGIServer on ``listener`` with the limits above. ``patch_for_gevent()``
    must have run first."""
    limits = limits or Limits()
    flood = log or FloodLog()
    quiet_accept_errors(flood)
    return Server(listener, app, limits, flood, limits.max_connections or connection_cap(raise_open_file_limit()))


def run(server) -> None:
    """Serve until Ctrl+C or SIGTERM (both end the loop quietly)."""
    import gc
    import signal

    # Everything loaded so far (Flask, templates, the games) lives as long as the server: keep
    # it out of the cyclic collector, and collect less often. With thousands of connections a
    # full collection walks every object and stalls every phone for hundreds of milliseconds.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)

    def stop(*_args):
        server.close()

    if sys.platform != "win32":  # gevent has no signal handlers on Windows, where Ctrl+C is the way
        gevent.signal_handler(signal.SIGTERM, stop)
        # Ctrl+C the same way: as a KeyboardInterrupt in the hub, gevent prints
        # "KeyboardInterrupt" and a timestamp to the terminal on every stop.
        gevent.signal_handler(signal.SIGINT, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
