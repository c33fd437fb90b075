"""Telling a service manager that `companion serve` is ready (issue 46: ``Type=notify`` units,
docs/club-server.md "Running as a service"): systemd's notify protocol, a datagram such as
``READY=1`` sent to the unix socket named in ``$NOTIFY_SOCKET`` (``@name``: an abstract one).
No dependency: a few lines of socket. Without the variable (a laptop's terminal, Windows)
nothing is sent.

``serve --workers N``: the parent is the service; each worker tells the parent, through a
socket the parent made and named in the workers' own ``NOTIFY_SOCKET``, and the parent tells
the service manager once all N are ready (so the unit needs only ``NotifyAccess=main``).
"""

from __future__ import annotations

import os
import socket
import struct

NOTIFY_ENV = "NOTIFY_SOCKET"


def address(name: str) -> str:
    """A socket's name as ``$NOTIFY_SOCKET`` gives it, as connect() takes it."""
    return "\0" + name[1:] if name.startswith("@") else name


def notify(message: str, environ=None) -> bool:
    """Send ``message`` ("READY=1", "STOPPING=1"…) to ``$NOTIFY_SOCKET``; False if there is none
    or it can't be reached (the server serves all the same)."""
    name = (environ if environ is not None else os.environ).get(NOTIFY_ENV)
    if not name or not hasattr(socket, "AF_UNIX"):
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address(name))
            sock.sendall(message.encode())
    except OSError:
        return False
    return True


class WorkersReady:
    """The parent's own notify socket (a file in ``folder``), for its workers: which of them said
    READY=1, known by the sender's process id as the kernel gives it (SO_PASSCRED, Linux; where
    there is none, by count), read without waiting."""

    def __init__(self, folder: str):
        self.path = os.path.join(folder, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.by_pid = hasattr(socket, "SO_PASSCRED")
        if self.by_pid:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(self.path)
        self.sock.setblocking(False)
        self.ready: set[int] = set()  # pids (or, without SO_PASSCRED, 1, 2, 3… one per READY)

    def all_ready(self, pids) -> bool:
        """Have the workers ``pids`` all said READY=1 (those waiting read now)?"""
        while True:
            try:
                message, extra, _flags, _address = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
            except (BlockingIOError, InterruptedError):
                break
            if b"READY=1" not in message.split(b"\n"):
                continue
            sender = next((struct.unpack("i", data[:4])[0] for level, kind, data in extra
                           if self.by_pid and level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS), None)
            self.ready.add(sender if sender is not None else len(self.ready) + 1)
        pids = list(pids)
        return set(pids) <= self.ready if self.by_pid else len(self.ready) >= len(pids)

    def close(self) -> None:
        self.sock.close()
