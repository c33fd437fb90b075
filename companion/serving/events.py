"""Push, not poll: each table page holds one Server-Sent Events stream, GET /t/<token>/events.

The stream carries a signal, never the HTML: ``event: changed`` with the table's revision as
its id and data. The page opens it once, on an element that is never swapped
(templates/tables/_live_stream.html), so it stays open across changes; static/live.js answers
each ``changed`` whose revision the page does not show yet by having the live region fetch
/t/<token>/live?rev=R, which renders that phone's own partial (its language, its form) in a
normal Flask request. So one change costs each watching phone exactly one request (its
partial), and nothing at all while nothing changes. A removed table is said once
(``event: gone``) and the stream ends; the page then fetches the notice and stops asking.

Catching up is by revision, not by replaying events: a stream opened with ``?rev=R`` (the
revision the page shows) or a ``Last-Event-ID: R`` header (the last one it saw, sent by
htmx's hx-sse on reconnect) gets ``changed`` at once if the table has moved on since, however
many changes it missed (server restarted, Wi-Fi lost, phone asleep, tab in the background).
A fetch that failed (the table busy, Wi-Fi lost) is retried by the page, not re-announced here.

How changes are noticed: every write announces itself once committed (companion/changes.py,
``Change("table", token, revision)``), and this layer subscribes: the announced revision is
kept in memory for every watched table and only that table's streams are woken, with no query
at all. A change announced without its revision (a rematch) costs one query, shared by every
phone watching. No URL is guessed at and nothing is swept: what is not announced is not a
change (a table removed behind the app's back is noticed when a phone next connects).
The same known revisions answer the "unchanged?" question (companion/serving/live.py).

A device (a source address) holds at most STREAMS_PER_DEVICE streams; past that those whose page
has gone are closed, or the new one is refused (see there). When the server's
connections near their cap, it closes the oldest streams of the devices holding the most
(:meth:`OpenStreams.evict`, companion/serving/server.py). Either way the page's hx-sse opens its
stream again by itself and catches up by revision. The laptop's own streams are never counted.

This sits in front of Flask: a held stream costs a greenlet (under `companion serve`, see
companion/serving/server.py) or a thread (under `flask run`), a socket and a few hundred
bytes here, and no Flask request context or database connection.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from typing import Callable, Iterable, Iterator

from .. import changes
from ..devices import device_of, is_organiser
from ..store import StorageError
from ..store.revisions import Revisions
from . import SOCKET_KEY, client_trouble, query_revision, table_route, table_token
from .pages import Pages

HEARTBEAT_S = 20.0  # a comment line this often finds dead connections and keeps NATs open
RETRY_MS = 1000  # the browser's reconnect delay after the stream drops
# A phone shows one table page, two with a tab left open (a page in the background closes its
# stream: hx-sse's pauseOnBackground). Past this many, the device's streams whose page has gone
# are closed (the server would only hear of it at the stream's next write, up to HEARTBEAT_S
# later: a phone going from page to page leaves some behind); if none has, the new one is
# refused, and its page asks again (hx-sse backs off up to 5 s; it polls meanwhile). Never the
# oldest open one: a device asking again and again would have the server open and close
# streams as fast as it asks (issue 32).
STREAMS_PER_DEVICE = 4
STREAM_RETRY_S = 5  # Retry-After of a refused stream (hx-sse's own back-off tops out there)


class StreamHandle:
    """One open stream: its device, the Event its wait sleeps on, and whether it was told to end."""

    __slots__ = ("device", "waker", "kicked", "fileno")

    def __init__(self, device: str | None = None, fileno: int | None = None):
        self.device = device  # None: the laptop's own (never counted, never closed by us)
        self.waker = threading.Event()
        self.kicked = False
        self.fileno = fileno  # its connection's, where the server says (to see that its page has gone)

    def kick(self) -> None:
        self.kicked = True  # before the wake: a wait that cleared its waker sees it
        self.waker.set()


def pages_gone(handles: list[StreamHandle]) -> list[StreamHandle]:
    """The streams whose page has gone: their connection reads as ended (a page sends nothing
    after asking for its stream). Asked of the OS at once, never waiting (the unpatched poll,
    under gevent too); where there is no poll (Windows), none is known to have gone."""
    try:
        from gevent import monkey
        poll = monkey.get_original("select", "poll")
    except (ImportError, AttributeError):
        import select
        poll = getattr(select, "poll", None)
    known = {h.fileno: h for h in handles if h.fileno is not None}
    if poll is None or not known:
        return []
    import select

    poller = poll()
    for fileno in known:
        poller.register(fileno, select.POLLIN | getattr(select, "POLLRDHUP", 0))
    return [known[fileno] for fileno, _events in poller.poll(0) if fileno in known]


class OpenStreams:
    """Every phone's open stream, by device, oldest first. A device holds at most ``per_device``
    (past that, those whose page has gone are closed, else the new one is refused); :meth:`evict` closes
    the oldest streams of the devices holding the most, for the server when its connection cap
    nears (companion/serving/server.py). A closed stream's page reconnects by itself (hx-sse,
    after the ``retry`` it was sent) and catches up by revision; the laptop's are never closed."""

    def __init__(self, per_device: int = STREAMS_PER_DEVICE):
        self.per_device = per_device
        self.refused = 0  # streams refused (the device holds its share, all still shown), for tests and benchmarks
        self.lock = threading.Lock()
        self.devices: dict[str, OrderedDict[StreamHandle, None]] = {}
        self.count = 0  # phones' streams open and not told to end
        self.kicked = 0  # streams told to end (over a device's share, or evicted), for tests and benchmarks

    def open(self, device: str, fileno: int | None = None) -> StreamHandle | None:
        """A new stream of ``device``'s; None: refused (it holds its share, every page still there)."""
        handle = StreamHandle(device, fileno)
        over = []
        with self.lock:
            held = self.devices.get(device)
            if held is not None and len(held) >= self.per_device:
                for gone in pages_gone(list(held)):
                    over.append(gone)
                    del held[gone]
                    self.count -= 1
                    self.kicked += 1
            if held is not None and len(held) >= self.per_device:
                self.refused += 1
                return None
            self.devices.setdefault(device, OrderedDict())[handle] = None
            self.count += 1
        for old in over:
            old.kick()
        return handle

    def _take_oldest(self, device: str) -> StreamHandle:
        """The device's oldest stream, no longer counted (lock held)."""
        held = self.devices[device]
        oldest, _ = held.popitem(last=False)
        if not held:
            del self.devices[device]
        self.count -= 1
        self.kicked += 1
        return oldest

    def close(self, handle: StreamHandle) -> None:
        with self.lock:
            held = self.devices.get(handle.device)
            if held is not None and held.pop(handle, 0) is None:
                self.count -= 1
                if not held:
                    del self.devices[handle.device]

    def evict_from(self, device: str) -> bool:
        """Close ``device``'s oldest stream, if it has one."""
        with self.lock:
            handle = self._take_oldest(device) if device in self.devices else None
        if handle is None:
            return False
        handle.kick()
        return True

    def evict(self, count: int = 1) -> int:
        """Close up to ``count`` streams, each the oldest of the device holding the most."""
        chosen = []
        with self.lock:
            for _ in range(count):
                if not self.devices:
                    break
                heaviest = max(self.devices, key=lambda d: len(self.devices[d]))
                chosen.append(self._take_oldest(heaviest))
        for handle in chosen:
            handle.kick()
        return len(chosen)


class TableWatch:
    """Which tables have streams open, their last known revision, and one Event per table
    that is set (and replaced) when its revision moves. Subscribed to the writes' changes
    (companion/changes.py) from construction until :meth:`close`."""

    def __init__(self, revisions: Revisions):
        self.revisions = revisions
        self.lock = threading.Lock()
        self.watchers: dict[str, int] = {}
        self.known: dict[str, int | None] = {}
        self.moved: dict[str, set[threading.Event]] = {}  # table -> the wakers of its streams waiting
        self.asked: set[str] = set()  # announced without a revision: the store is asked
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None
        self.checks = 0  # queries made for announced changes, for tests and benchmarks
        # Held weakly: an app dropped (a test's) stops listening instead of living on in the list.
        method = weakref.WeakMethod(self.changed)

        def listener(change: changes.Change) -> None:
            found = method()
            if found is not None:
                found(change)

        self.close = changes.subscribe(listener)
        weakref.finalize(self, self.close)

    # --- streams ---------------------------------------------------------------------------

    def watch(self, token: str) -> int | None:
        """Start watching ``token``; returns its revision now (None: no such table)."""
        with self.lock:  # watched first: a change announced while the store is read is kept
            self.watchers[token] = self.watchers.get(token, 0) + 1
        try:
            current = self.revisions.of(token)
        except BaseException:
            self.unwatch(token)
            raise
        moved = None
        with self.lock:
            known = self.known.get(token)
            if current is not None and known is not None and known > current:
                current = known  # announced meanwhile, newer than what the store said
            if known != current:
                # Read before the watcher's own check: the other streams must hear of it too.
                moved = self.moved.pop(token, None)
            self.known[token] = current
        wake(moved)
        return current

    def unwatch(self, token: str) -> None:
        with self.lock:
            left = self.watchers.get(token, 1) - 1
            if left > 0:
                self.watchers[token] = left
                return
            self.watchers.pop(token, None)
            self.known.pop(token, None)
            self.moved.pop(token, None)

    def wait(self, token: str, shown: int | None, timeout: float, handle: StreamHandle | None = None) -> int | None:
        """The table's revision once it differs from ``shown``, or after ``timeout`` seconds, or
        once ``handle`` (the stream waiting) is told to end."""
        handle = handle or StreamHandle()
        waker = handle.waker
        with self.lock:
            current = self.known.get(token)
            if current != shown:
                return current
            waker.clear()
            if handle.kicked:
                return current
            self.moved.setdefault(token, set()).add(waker)
        waker.wait(timeout)
        with self.lock:
            waiting = self.moved.get(token)
            if waiting is not None:
                waiting.discard(waker)
                if not waiting:
                    del self.moved[token]
            return self.known.get(token)

    def revision(self, token: str) -> int | None:
        """The table's revision: from memory for a watched table, else from the store (always
        from the store when other processes write too: a phone told of a change by the worker
        holding its stream may ask another worker, which has not heard of it yet)."""
        if not changes.shared():
            with self.lock:
                if token in self.known:
                    return self.known[token]
        return self.revisions.of(token)

    # --- noticing changes ------------------------------------------------------------------

    def changed(self, change: changes.Change) -> None:
        """A write was committed (companion/changes.py): wake the table's streams, if watched."""
        if change.kind == changes.EVERYTHING:  # changes may have been missed: ask the store for all
            with self.lock:
                self.asked.update(self.watchers)
                self._start_asking()
            self.wake.set()
            return
        if change.kind != changes.TABLE:
            return
        token = change.key
        with self.lock:
            if token not in self.watchers:
                return
            if change.revision is None:
                self.asked.add(token)
                moved = None
            else:
                known = self.known.get(token)
                if known is not None and known >= change.revision:
                    return  # an older write's announcement, overtaken (threads)
                self.known[token] = change.revision
                moved = self.moved.pop(token, None)
            if change.revision is None:
                self._start_asking()
        if change.revision is None:
            self.wake.set()
        else:
            wake(moved)

    def _start_asking(self) -> None:
        """The thread that asks the store, once (lock held)."""
        if self.thread is None:
            self.thread = threading.Thread(target=self.run, name="table-watch", daemon=True)
            self.thread.start()

    def run(self) -> None:
        """Asks the store for the tables announced without a revision, a batch at a time."""
        while True:
            self.wake.wait()
            self.wake.clear()
            with self.lock:
                tokens = list(self.asked)
                self.asked.clear()
            if tokens:
                self.check(tokens)

    def check(self, tokens: list[str]) -> None:
        try:
            found = self.revisions.of_many(tokens)
        except StorageError:
            return  # the database is busy or damaged: the phones' fallback check asks again
        self.checks += 1
        woken = []
        with self.lock:
            for token in tokens:
                if token in self.watchers and self.known.get(token) != found.get(token):
                    self.known[token] = found.get(token)
                    woken.append(self.moved.pop(token, None))
        for moved in woken:
            wake(moved)


def wake(wakers: set[threading.Event] | None) -> None:
    """Wake the streams that waited on a table (its entry in ``TableWatch.moved``, taken out)."""
    for waker in wakers or ():
        waker.set()


class NightWatch:
    """The night's pages (the projector's screen, the hall's board, a phone's night page) show
    the night and every table of it: a count of the changes announced since start, kept in
    memory, and the wakers of the streams waiting for it to move. Any table's change counts
    (which tables are tonight's is the store's to say: the page's own check, by the night's
    signature, answers 204 when nothing it shows changed); the players' season does not.
    On a table's save this costs one lock and one increment."""

    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0
        self.waiting: set[threading.Event] = set()
        self.streams = 0  # open, for tests and benchmarks
        method = weakref.WeakMethod(self.changed)

        def listener(change: changes.Change) -> None:
            found = method()
            if found is not None:
                found(change)

        self.close = changes.subscribe(listener)
        weakref.finalize(self, self.close)

    def changed(self, change: changes.Change) -> None:
        if change.kind == changes.PLAYERS:
            return
        with self.lock:
            self.count += 1
            woken, self.waiting = self.waiting, set()
        for waker in woken:
            waker.set()

    def wait(self, shown: int, timeout: float, handle: StreamHandle | None = None) -> int:
        """The count once it differs from ``shown``, or after ``timeout`` seconds, or once
        ``handle`` (the stream waiting) is told to end."""
        handle = handle or StreamHandle()
        waker = handle.waker
        with self.lock:
            if self.count != shown:
                return self.count
            waker.clear()
            if handle.kicked:
                return self.count
            self.waiting.add(waker)
        waker.wait(timeout)
        with self.lock:
            self.waiting.discard(waker)
            return self.count


NIGHT_EVENTS_PATH = "/night/events"
NIGHT_GAP_S = 0.5  # a busy room's saves reach a night page at most twice a second, each a request


def event(revision: int) -> bytes:
    return f"event: changed\nid: {revision}\ndata: {revision}\n\n".encode()


GONE_EVENT = b"event: gone\ndata:\n\n"


def last_event_id(environ: dict) -> int | None:
    """The Last-Event-ID header as a revision; anything but a plain number is treated as absent."""
    value = environ.get("HTTP_LAST_EVENT_ID", "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 12 else None


class TableEvents:
    """WSGI layer: serves GET /t/<token>/events and the night's GET /night/events (with a
    :class:`NightWatch`); everything else passes through untouched."""

    def __init__(self, app: Callable, watch: TableWatch, headers: list[tuple[str, str]],
                 pages: Pages, heartbeat: float = HEARTBEAT_S, join_host: Callable[[], str | None] | None = None,
                 streams: OpenStreams | None = None, night: NightWatch | None = None):
        self.app = app
        self.pages = pages
        self.heartbeat = heartbeat
        self.watch = watch
        self.night = night
        self.join_host = join_host  # the laptop's own address, for its Host header
        self.streams = streams or OpenStreams()
        # No proxy may hold events back. (A stream that ends frees its connection at once:
        # companion/serving/server.py closes it; PEP 3333 leaves "Connection" to the server.)
        self.stream_headers = [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
                               ("X-Accel-Buffering", "no")] + headers
        self.gone_headers = [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")] + headers
        self.refused_headers = [("Retry-After", str(STREAM_RETRY_S)), ("Content-Length", "0"),
                                ("Cache-Control", "no-store")] + headers
        self.opened = 0  # streams opened, for tests and benchmarks

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        route = table_route(environ)
        if route == "events" and environ.get("REQUEST_METHOD") == "GET":
            return self.open(table_token(environ), environ, start_response)
        if (route is None and self.night is not None and environ.get("PATH_INFO") == NIGHT_EVENTS_PATH
                and environ.get("REQUEST_METHOD") == "GET"):
            return self.open_night(environ, start_response)
        return self.app(environ, start_response)

    def device_stream(self, environ: dict, start_response: Callable) -> StreamHandle | None:
        """A handle for a new stream, counted in its device's share (the laptop's never are);
        None once 429 is answered (the device holds its share, every page still there)."""
        if is_organiser(environ, self.join_host):
            return StreamHandle()
        handle = self.streams.open(device_of(environ), environ.get(SOCKET_KEY))
        if handle is None:
            client_trouble(environ, "streams", f"more than {self.streams.per_device} event streams at once: "
                                               "answered 429")
            start_response("429 Too Many Requests", self.refused_headers)
        return handle

    def open_night(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        """The night's stream: a signal only (what changed is for the page's own request, which
        answers only the devices allowed to see it), so any device may hold one, as a table's,
        counted in the same share of streams per device."""
        night = self.night
        assert night is not None
        handle = self.device_stream(environ, start_response)
        if handle is None:
            return [b""]
        with night.lock:
            night.streams += 1
        start_response("200 OK", self.stream_headers)

        def closed() -> None:
            self.streams.close(handle)
            with night.lock:
                night.streams -= 1

        return Stream(self.night_stream(night, handle), closed)

    def night_stream(self, night: NightWatch, handle: StreamHandle) -> Iterator[bytes]:
        # No catching up by id: the page asks once on every (re)opening ("hello"), by the
        # night's signature, so a restart or a lost connection misses nothing.
        shown = night.count
        yield f"retry: {RETRY_MS}\nevent: hello\ndata:\n\n".encode()
        while True:
            current = night.wait(shown, self.heartbeat, handle)
            if handle.kicked:  # closed to make room: the page reconnects and asks again
                return
            if current == shown:
                yield b"event: ping\ndata:\n\n"
                continue
            yield f"event: changed\ndata: {current}\n\n".encode()
            time.sleep(NIGHT_GAP_S)  # the saves meanwhile are one more "changed", not one each
            shown = current

    def open(self, token: str, environ: dict, start_response: Callable) -> Iterable[bytes]:
        # What the phone shows: the last event it saw, else the revision its page was drawn at.
        shown = last_event_id(environ)
        if shown is None:
            shown = query_revision(environ)
        # Counted before anything is read: a device past its share of streams loses its oldest.
        handle = self.device_stream(environ, start_response)
        if handle is None:
            return [b""]
        try:
            current = self.watch.watch(token)
        except StorageError:
            self.streams.close(handle)
            start_response("503 Service Unavailable", [("Retry-After", "2"), ("Content-Length", "0"),
                                                       ("Cache-Control", "no-store")])
            return [b""]
        if current is None:
            self.watch.unwatch(token)
            self.streams.close(handle)
            gone = self.pages.for_request("gone", environ)
            start_response("404 Not Found", self.gone_headers + [("Content-Length", str(len(gone)))])
            return [gone]
        self.opened += 1
        start_response("200 OK", self.stream_headers)
        return Stream(self.stream(token, shown, current, handle), lambda: self.ended(token, handle))

    def ended(self, token: str, handle: StreamHandle) -> None:
        self.watch.unwatch(token)
        self.streams.close(handle)

    def stream(self, token: str, shown: int | None, current: int | None, handle: StreamHandle) -> Iterator[bytes]:
        # The id says what this phone shows, so a reconnect sends it back as Last-Event-ID.
        # "hello" and the "ping" heartbeat tell the page (static/live.js) its stream gets through.
        opening = f"retry: {RETRY_MS}\n" + (f"id: {shown}\n" if shown is not None else "") + "event: hello\ndata:\n\n"
        yield opening.encode()
        while True:
            if handle.kicked:  # closed to make room: the page reconnects and catches up
                return
            if current is None:  # the table was removed: the page fetches the notice
                yield GONE_EVENT
                return
            if current != shown:
                yield event(current)
                shown = current
            current = self.watch.wait(token, shown, self.heartbeat, handle)
            if handle.kicked:
                return
            if current == shown:
                yield b"event: ping\ndata:\n\n"


class Stream:
    """The WSGI body of one stream: stops watching when the server closes it, even if it
    never started (a phone that left at once)."""

    def __init__(self, chunks: Iterator[bytes], done: Callable[[], None]):
        self.chunks = chunks
        self.done: Callable[[], None] | None = done

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks

    def close(self) -> None:
        self.chunks.close()
        if self.done is not None:
            self.done, done = None, self.done
            done()
