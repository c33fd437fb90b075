"""Push, not poll: every page that follows stored state holds one Server-Sent Events stream, all
alike: a table's page GET /t/<token>/events, the night's pages (the screen for the room, the
hall's board, a phone's night page) GET /night/events, the season's (the players' table, a
player's page) GET /players/events. Each follows one *topic*: a table (its revision), the
night (its signature) or the season (its version); see :class:`Watch`.

The stream carries a signal, never the HTML: ``event: changed`` with the topic's version as
its id and data. The page opens it once, on an element that is never swapped
(templates/_live_stream.html), so it stays open across changes; static/live.js answers each
``changed`` whose version the page does not show yet by having the live region (``data-live``)
fetch its part with ``?rev=<the version it shows>``, which renders that phone's own partial
(its language, its form) in a normal Flask request, or says 204 when nothing it shows changed
(companion/topics.py ``is_current``, the one "unchanged" answer). So one change costs each watching phone
exactly one request, and nothing at all while nothing changes. A removed table is said once
(``event: gone``) and the stream ends; the page then fetches the notice and stops asking.

Catching up is by version, not by replaying events: a stream opened with ``?rev=V`` (the
version the page shows) or a ``Last-Event-ID: V`` header (the last one it saw, sent by
htmx's hx-sse on reconnect) gets ``changed`` at once if the topic has moved on since, however
many changes it missed (server restarted, Wi-Fi lost, phone asleep, tab in the background).
A fetch that failed (the table busy, Wi-Fi lost) is retried by the page, not re-announced here.

How changes are noticed: every write announces itself once committed (companion/changes.py,
``Change("table", token, revision)``, ``Change("players", "", version)``, ``Change("night")``),
and this layer subscribes: an announced version is kept in memory for every watched topic and
only that topic's streams are woken, with no query at all. A change announced without its
version (the night's, a rematch) costs one query, shared by every page watching. No URL is
guessed at and nothing is swept: what is not announced is not a change (a table removed
behind the app's back is noticed when a phone next connects). The same known versions
answer the "unchanged?" question (companion/serving/live.py).

A device (a source address) holds at most STREAMS_PER_DEVICE streams; past that those whose page
has gone are closed, or the new one is refused (see there). When the server's
connections near their cap, it closes the oldest streams of the devices holding the most
(:meth:`OpenStreams.evict`, companion/serving/server.py). Either way the page's hx-sse opens its
stream again by itself and catches up by version. The laptop's own streams are never counted.

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

from .. import changes, metrics
from ..devices import device_of, is_organiser
from ..store import StorageError
from ..store.revisions import Revisions
from ..topics import NIGHT, SEASON, TOPIC_PATHS, VERSION_SHAPE, Version, version_text
from . import SOCKET_KEY, client_trouble, query, table_route, table_token
from .limits import STREAMS
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
STREAMS_PER_DEVICE = STREAMS  # companion/serving/limits.py: how much each device may do
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


class Watch:
    """What the open pages show (tables, the night, the season: companion/topics.py), each
    topic's last known version, and the wakers of the streams waiting for it to move.
    Subscribed to the writes' changes (companion/changes.py) from construction until
    :meth:`close`: a change announced with its version (a table's revision, the season's) costs
    no query; one announced without (the night's, a rematch) is asked of the store once, by
    one thread, for every topic it may have moved, and shared by every page watching."""

    def __init__(self, revisions: Revisions):
        self.revisions = revisions
        self.lock = threading.Lock()
        self.watchers: dict[str, int] = {}
        self.known: dict[str, Version | None] = {}
        self.moved: dict[str, set[threading.Event]] = {}  # topic -> the wakers of its streams waiting
        self.asked: set[str] = set()  # announced without a version: the store is asked
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

    def watch(self, topic: str) -> Version | None:
        """Start watching ``topic``; returns its version now (None: no such table)."""
        with self.lock:  # watched first: a change announced while the store is read is kept
            self.watchers[topic] = self.watchers.get(topic, 0) + 1
        try:
            current = self.revisions.of(topic)
        except BaseException:
            self.unwatch(topic)
            raise
        moved = None
        with self.lock:
            known = self.known.get(topic)
            if newer(known, current):
                current = known  # announced meanwhile, newer than what the store said
            if known != current:
                # Read before the watcher's own check: the other streams must hear of it too.
                moved = self.moved.pop(topic, None)
            self.known[topic] = current
        wake(moved)
        return current

    def unwatch(self, topic: str) -> None:
        with self.lock:
            left = self.watchers.get(topic, 1) - 1
            if left > 0:
                self.watchers[topic] = left
                return
            self.watchers.pop(topic, None)
            self.known.pop(topic, None)
            self.moved.pop(topic, None)

    def wait(self, topic: str, shown: Version | None, timeout: float,
             handle: StreamHandle | None = None) -> Version | None:
        """The topic's version once it differs from ``shown``, or after ``timeout`` seconds, or
        once ``handle`` (the stream waiting) is told to end."""
        shown = version_text(shown)  # as the page carries it
        handle = handle or StreamHandle()
        waker = handle.waker
        with self.lock:
            current = self.known.get(topic)
            if version_text(current) != shown:
                return current
            waker.clear()
            if handle.kicked:
                return current
            self.moved.setdefault(topic, set()).add(waker)
        waker.wait(timeout)
        with self.lock:
            waiting = self.moved.get(topic)
            if waiting is not None:
                waiting.discard(waker)
                if not waiting:
                    del self.moved[topic]
            return self.known.get(topic)

    def revision(self, topic: str) -> Version | None:
        """The topic's version: from memory while watched, else from the store (always from
        the store when other processes write too: a phone told of a change by the worker
        holding its stream may ask another worker, which has not heard of it yet)."""
        if not changes.shared():
            with self.lock:
                if topic in self.known:
                    return self.known[topic]
        return self.revisions.of(topic)

    # --- noticing changes ------------------------------------------------------------------

    def changed(self, change: changes.Change) -> None:
        """A write was committed (companion/changes.py): wake the streams of what it moved."""
        if change.kind == changes.EVERYTHING:  # changes may have been missed: ask the store for all
            self._ask(None)
            return
        if change.kind == changes.TABLE:
            # Any table may be tonight's: the night's signature is asked (one query, shared).
            self._known(change.key, change.revision, also_ask=NIGHT)
        elif change.kind == changes.NIGHT:
            self._ask([NIGHT])
        elif change.kind == changes.PLAYERS:
            self._known(SEASON, change.revision)

    def _known(self, topic: str, version: Version | None, also_ask: str | None = None) -> None:
        """``topic`` is at ``version`` now (None: unknown, the store is asked)."""
        asking = [also_ask] if also_ask is not None else []
        moved = None
        with self.lock:
            if topic in self.watchers:
                if version is None:
                    asking.append(topic)
                elif not newer(self.known.get(topic), version, or_same=True):  # else overtaken (threads)
                    self.known[topic] = version
                    moved = self.moved.pop(topic, None)
        wake(moved)
        if asking:
            self._ask(asking)

    def _ask(self, topics: list[str] | None) -> None:
        """Have the store asked for the watched ones of ``topics`` (None: all), by the watch's thread."""
        with self.lock:
            watched = list(self.watchers) if topics is None else [topic for topic in topics if topic in self.watchers]
            if not watched:
                return
            self.asked.update(watched)
            if self.thread is None:
                self.thread = threading.Thread(target=self.run, name="watch", daemon=True)
                self.thread.start()
        self.wake.set()

    def run(self) -> None:
        """Asks the store for the topics announced without a version, a batch at a time."""
        while True:
            self.wake.wait()
            self.wake.clear()
            with self.lock:
                topics = list(self.asked)
                self.asked.clear()
            if topics:
                self.check(topics)

    def check(self, topics: list[str]) -> None:
        try:
            found = self.revisions.of_many(topics)
        except StorageError:
            return  # the database is busy or damaged: the phones' fallback check asks again
        self.checks += 1
        woken = []
        with self.lock:
            for topic in topics:
                if topic in self.watchers and self.known.get(topic) != found.get(topic):
                    self.known[topic] = found.get(topic)
                    woken.append(self.moved.pop(topic, None))
        for moved in woken:
            wake(moved)


def newer(known: Version | None, found: Version | None, or_same: bool = False) -> bool:
    """Is ``known`` (announced) newer than ``found`` (read or announced later)? Only numbers
    say so: a signature has no order."""
    if not isinstance(known, int) or not isinstance(found, int):
        return False
    return known >= found if or_same else known > found


def wake(wakers: set[threading.Event] | None) -> None:
    """Wake the streams that waited on a topic (its entry in ``Watch.moved``, taken out)."""
    for waker in wakers or ():
        waker.set()


# The least time between two "changed" of the night's and the season's streams: a busy room's
# saves reach such a page at most twice a second, each one request.
GAP_S = {NIGHT: 0.5, SEASON: 0.5}


def event(version: Version) -> bytes:
    return f"event: changed\nid: {version}\ndata: {version}\n\n".encode()


GONE_EVENT = b"event: gone\ndata:\n\n"


def shown_version(environ: dict) -> str | None:
    """What the page shows: the last event its stream saw (Last-Event-ID, sent by hx-sse on a
    reconnect), else the version it was drawn at (``?rev=``). Anything odd is treated as absent."""
    for value in (environ.get("HTTP_LAST_EVENT_ID", ""), query(environ).get("rev", "")):
        value = value.strip()
        if VERSION_SHAPE.fullmatch(value):
            return value
    return None


class EventStreams:
    """WSGI layer: every page's one event stream (a table's GET /t/<token>/events, the night's
    /night/events, the season's /players/events; :data:`TOPIC_PATHS`), all alike: a signal,
    never the HTML, with the topic's version as id and data; everything else passes through."""

    def __init__(self, app: Callable, watch: Watch, headers: list[tuple[str, str]],
                 pages: Pages, heartbeat: float = HEARTBEAT_S, join_host: Callable[[], str | None] | None = None,
                 streams: OpenStreams | None = None):
        self.app = app
        self.pages = pages
        self.heartbeat = heartbeat
        self.watch = watch
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
        self.open_by_topic: dict[str, int] = {}  # streams open now, for tests and benchmarks

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") == "GET":
            route = table_route(environ)
            if route == "events":
                return self.open(table_token(environ), environ, start_response)
            topic = TOPIC_PATHS.get(environ.get("PATH_INFO", "")) if route is None else None
            if topic is not None:
                return self.open(topic, environ, start_response)
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

    def open(self, topic: str, environ: dict, start_response: Callable) -> Iterable[bytes]:
        # A signal only (what changed is for the page's own request, which answers only the
        # devices allowed to see it), so any device may hold one, counted in its share.
        shown = shown_version(environ)
        # Counted before anything is read: a device past its share of streams loses its oldest.
        handle = self.device_stream(environ, start_response)
        if handle is None:
            return [b""]
        try:
            current = self.watch.watch(topic)
        except StorageError:
            self.streams.close(handle)
            start_response("503 Service Unavailable", [("Retry-After", "2"), ("Content-Length", "0"),
                                                       ("Cache-Control", "no-store")])
            return [b""]
        if current is None:
            self.watch.unwatch(topic)
            self.streams.close(handle)
            gone = self.pages.for_request("gone", environ)
            start_response("404 Not Found", self.gone_headers + [("Content-Length", str(len(gone)))])
            return [gone]
        self.opened += 1
        self.open_by_topic[topic] = self.open_by_topic.get(topic, 0) + 1
        metrics.stream_opened(topic)
        start_response("200 OK", self.stream_headers)
        return Stream(self.stream(topic, shown, current, handle), lambda: self.ended(topic, handle))

    def ended(self, topic: str, handle: StreamHandle) -> None:
        metrics.stream_closed(topic)
        self.watch.unwatch(topic)
        self.streams.close(handle)
        left = self.open_by_topic.get(topic, 1) - 1
        if left > 0:
            self.open_by_topic[topic] = left
        else:
            self.open_by_topic.pop(topic, None)

    def stream(self, topic: str, shown: str | None, current: Version | None,
               handle: StreamHandle) -> Iterator[bytes]:
        # The id says what this page shows, so a reconnect sends it back as Last-Event-ID.
        # "hello" and the "ping" heartbeat tell the page (static/live.js) its stream gets through.
        opening = f"retry: {RETRY_MS}\n" + (f"id: {shown}\n" if shown is not None else "") + "event: hello\ndata:\n\n"
        yield opening.encode()
        gap = GAP_S.get(topic, 0.0)
        while True:
            if handle.kicked:  # closed to make room: the page reconnects and catches up
                return
            if current is None:  # the table was removed: the page fetches the notice
                yield GONE_EVENT
                metrics.delivered(topic, "gone")  # the server asks for more once it has sent it
                return
            if version_text(current) != shown:
                yield event(current)
                metrics.delivered(topic, "changed")
                shown = version_text(current)
                if gap:
                    time.sleep(gap)  # the changes meanwhile are one more "changed", not one each
            current = self.watch.wait(topic, shown, self.heartbeat, handle)
            if handle.kicked:
                return
            if version_text(current) == shown:
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
