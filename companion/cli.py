"""`companion serve`: run the app for the table's phones on a production WSGI server."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys

from . import lan
from .qr import qr_terminal


def join_url(host: str, port: int) -> tuple[str, str | None]:
    """The address to print and draw, and a warning when phones can't use it."""
    if lan.is_wildcard(host):
        address = lan.lan_address()
        if address is None:
            return (f"http://127.0.0.1:{port}/",
                    "No network connection found: only this laptop can open the companion. "
                    "Join the table's Wi-Fi and restart.")
        return f"http://{address}:{port}/", None
    shown = f"[{host}]" if ":" in host else host
    if lan.is_loopback(host):
        return (f"http://{shown}:{port}/",
                f"Bound to {host}: phones cannot reach this address, only this laptop can. "
                "Use --host 0.0.0.0 to let phones on the same Wi-Fi join.")
    return f"http://{shown}:{port}/", None


def serve(args: argparse.Namespace) -> int:
    from waitress import create_server

    from . import create_app
    from .db import DatabaseError

    url, warning = join_url(args.host, args.port)
    config = {"JOIN_URL": url}
    if args.db:
        config["DATABASE"] = os.path.abspath(args.db)
    try:
        app = create_app(config)
    except DatabaseError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    try:
        # Enough threads that phones polling every second never queue behind a slow client.
        server = create_server(app, host=args.host, port=args.port, threads=args.threads,
                               connection_limit=2000, channel_timeout=30, ident="companion")
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1)):
            print(f"companion: port {args.port} is already in use (is another companion running?). "
                  f"Try --port {args.port + 1}.", file=sys.stderr)
        elif exc.errno in (errno.EACCES, errno.EPERM):
            print(f"companion: not allowed to use port {args.port}; pick one above 1024.", file=sys.stderr)
        else:
            print(f"companion: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1

    print("Table Companion is running.")
    print(f"Phones on the same Wi-Fi: open {url}  (or scan the code below)")
    if not args.no_qr:
        print(qr_terminal(url))
    if warning:
        print(f"Note: {warning}")
    print(f"Scores are saved in {app.config['DATABASE']}")
    print("Press Ctrl+C to stop.", flush=True)

    def stop(_signum, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    print("Stopped.", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="companion", description="Table Companion for five trick-taking games.")
    sub = parser.add_subparsers(dest="command")
    s = sub.add_parser("serve", help="serve the companion to phones on this network")
    s.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, so phones can join)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--db", help="SQLite file (default: the instance folder); created on first run")
    s.add_argument("--threads", type=int, default=16, help=argparse.SUPPRESS)
    s.add_argument("--no-qr", action="store_true", help="don't draw the QR code in the terminal")
    args = parser.parse_args(argv)
    if args.command == "serve":
        if not 0 < args.port < 65536:
            parser.error("--port must be from 1 to 65535")
        return serve(args)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
