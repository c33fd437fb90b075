"""Cheap asks are counted too (issue 42): "has my table changed?" (GET /t/<token>/live?rev=R) is
answered from memory before the fair share, so it cost no turn and was never refused: 100
addresses x 4 keep-alive connections asked it 3,500 times a second, another phone then waited
8 s for an answer, and the innocent phones (refused for waiting in line) were the ones "refused
lately". Now a device asking more than a phone ever does is answered 429 with its connection
closed and is the only one refused lately; a phone that waited in line never is. Against the
real `companion serve`, devices as 127.x.y.z source addresses; no timing beyond 5 s deadlines."""

from __future__ import annotations

import http.client
import re
import threading
import time

from companion.serving.fair import OVER, WAITED, Turns
from companion.serving.limits import DeviceLimits, Rate
from helpers import Phone, request_on_new_connection

FLOODER, INNOCENT = "127.0.0.30", "127.0.0.31"


def ask_within_5_s(port: int, source: str, path: str) -> int:
    """A request on a connection of its own, answered within 5 s (else it fails); 0 if closed."""
    return request_on_new_connection(port, source, path, timeout=5)


def ask_for_ever(port: int, path: str, stop: threading.Event, statuses: list) -> None:
    """One keep-alive connection from the flooder asking ``path`` as fast as it is answered."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(FLOODER, 0))
    while not stop.is_set():
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
            if response.will_close:
                conn.close()
        except (OSError, http.client.HTTPException):
            statuses.append(0)  # closed at accept (refused lately) or after its 429
            conn.close()
            time.sleep(0.01)
    conn.close()


def test_a_device_flooding_the_unchanged_answer_is_refused_and_alone_refused_lately(server_process):
    from companion.serving.limits import RATES
    CONNECT_BURST = int(RATES["connecting"].burst)

    port = server_process.port
    token = Phone(port).create_table("rwd", ["Ann", "Ben", "Cho", "Dai"])
    page = Phone(port, INNOCENT).request("GET", f"/t/{token}")[2]
    revision = re.search(r'data-rev="(\d+)"', page).group(1)
    live = f"/t/{token}/live?rev={revision}"
    stop, flood = threading.Event(), []
    askers = [threading.Thread(target=ask_for_ever, args=(port, live, stop, flood)) for _ in range(4)]
    for asker in askers:
        asker.start()
    try:
        deadline = time.monotonic() + 20
        while flood.count(429) < 20:
            assert time.monotonic() < deadline, f"no 429 for the flooder: {len(flood)} asks, {set(flood)}"
            time.sleep(0.01)
        # Meanwhile a phone at the same table asks as phones do, and opens its page: answered.
        innocent = [ask_within_5_s(port, INNOCENT, live) for _ in range(10)] + [ask_within_5_s(port, INNOCENT, f"/t/{token}")]
    finally:
        stop.set()
        for asker in askers:
            asker.join(15)
    assert innocent == [204] * 10 + [200], innocent
    burst = int(RATES["asks"].burst)
    assert flood.count(204) >= burst and flood.count(429) >= 20  # its burst answered, then refused
    # Refused lately: the flooder's new connections are closed at accept past a burst, the phone's never.
    flooder_again = [ask_within_5_s(port, FLOODER, f"/t/{token}") for _ in range(CONNECT_BURST + 14)]
    assert flooder_again.count(0) >= 10, flooder_again
    assert [ask_within_5_s(port, INNOCENT, f"/t/{token}") for _ in range(CONNECT_BURST + 14)] == [200] * (CONNECT_BURST + 14)
    log = server_process.log.read_text(errors="replace")
    assert f"{FLOODER}: more than {burst} live asks at once" in log
    assert INNOCENT not in log


def test_a_phones_asks_are_never_refused_and_a_bucket_refills():
    now = [0.0]
    limits = DeviceLimits({"asks": Rate(burst=30, per_s=5)}, clock=lambda: now[0])
    allow = lambda device: limits.take(device, "asks") == 0  # noqa: E731
    # A phone: one ask per change told (a busy table: one every second) and its 5 s fallback.
    for second in range(600):
        now[0] = float(second)
        assert allow("127.0.0.2")
    assert [allow("127.0.0.3") for _ in range(31)].count(False) == 1  # a burst past 30
    now[0] += 1.0
    assert [allow("127.0.0.3") for _ in range(6)] == [True] * 5 + [False]  # 5 a second again


def test_the_map_of_devices_is_bounded_and_one_for_every_rule():
    limits = DeviceLimits(devices=100)
    for device in range(1000):
        limits.take(f"10.0.{device // 250}.{device % 250}", "asks")
        limits.take(f"10.0.{device // 250}.{device % 250}", "tables")
        limits.refused(f"10.0.{device // 250}.{device % 250}")
    assert len(limits.seen) == 100  # one entry per device, whatever it was counted for


def test_a_turn_refused_says_whether_the_device_asked_too_much_or_waited():
    turns = Turns(running=1, per_device=1, max_waiting=1, wait=0.2)
    assert turns.wait_turn("busy") is None  # holds the one turn
    waiting = threading.Thread(target=lambda: turns.wait_turn("busy"))
    waiting.start()
    time.sleep(0.05)
    assert turns.wait_turn("busy") == OVER  # its line is full: it asked too much
    assert turns.wait_turn("quiet") == WAITED  # in line for its 0.2 s behind the held turn
    turns.leave("busy")
    waiting.join(5)
