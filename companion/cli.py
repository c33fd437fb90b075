"""`companion serve`: run the app for the table's phones on a production WSGI server;
`companion backup`: a consistent copy of the scores; `companion restore`: put a backup back
(refused while a server runs on the database); `companion --version`."""

from __future__ import annotations

import argparse
import errno
import os
import sys
import threading
import time
import webbrowser
from datetime import datetime
from pathlib import Path

from . import lan
from .qr import qr_terminal

TROUBLESHOOTING = ("Phones can't connect? They must be on the laptop's Wi-Fi (not mobile data); "
                   "allow Python through the laptop's firewall when asked (Windows and macOS ask once); "
                   "guest and hotel Wi-Fi often keep devices apart: then put the laptop and the phones "
                   "on a phone's hotspot.")


def command() -> str:
    """How the user runs us, for the commands we suggest: run.py says so (`python3 run.py`,
    `py run.py` on Windows); otherwise the console script."""
    return os.environ.get("COMPANION_COMMAND") or "companion"


def version() -> str:
    """The installed version; in a checkout that isn't installed, pyproject.toml's."""
    from importlib import metadata

    try:
        return metadata.version("table-companion")
    except metadata.PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
        except (OSError, KeyError, ValueError):
            return "unknown"


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


def laptop_url(host: str, port: int) -> str:
    """The address the laptop's own browser should use: loopback when the server listens
    there too (the laptop then sees its list of tables), else the address it is bound to."""
    if host in ("::", "[::]"):
        return f"http://[::1]:{port}/"
    if lan.is_wildcard(host):
        return f"http://127.0.0.1:{port}/"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def start_message(*, url: str, warning: str | None, laptop: str, database: str,
                  moved_from: str | None, draw_qr: bool, db_said: str | None = None,
                  sign_in: str | None = None) -> str:
    """What `serve` prints on start: true whether phones can join or not, the QR code
    only when it is drawn (and only when phones can use its address)."""
    lines = [f"Table Companion {version()} is running."]
    if warning is None:
        if draw_qr:
            lines += [f"Phones on the same Wi-Fi: scan this code or open {url}", qr_terminal(url)]
        else:
            lines.append(f"Phones on the same Wi-Fi: open {url}")
        lines.append(f"On this laptop: {laptop} (the home page shows the code large; "
                     f"{laptop}hall is the big-screen view for a meetup night)")
        lines.append(TROUBLESHOOTING)
        if sign_in:
            lines.append(sign_in)
    else:
        lines.append(f"Only this laptop can open it: {url}")
        lines.append(f"Note: {warning}")
    if moved_from:
        lines.append(f"Moved your scores from {moved_from} to the data folder ({old_file_kept(moved_from)}).")
    # The backup command as it pastes (issue 46): the same --db-file or COMPANION_DB, or the URL
    # without its password (libpq reads PGPASSWORD or ~/.pgpass); never "***".
    elsewhere = ((f" {db_said}" if db_said else "") if db_said is not None else
                 f" --db {database}" if database.startswith(("postgresql://", "postgres://")) else "")
    lines.append(f"Scores are saved in {database} (copy them any time: {command()} backup FILE{elsewhere})")
    lines.append("Press Ctrl+C to stop.")
    return "\n".join(lines)


def old_file_kept(moved_from: str) -> str:
    renamed = f"{moved_from}.moved"
    if os.path.exists(renamed):
        return f"the old file is kept as {renamed}"
    return "the old file was left where it was"


def terminal_can_draw_qr(stream=None) -> bool:
    """Whether the output can carry the QR's block characters (a Windows console piped to
    a cp1252 file can't): if not, the code isn't drawn and the message doesn't mention it."""
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        "█▀▄".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def can_open_browser() -> bool:
    """A graphical browser is plausible: always on Windows and macOS; on Linux only with a
    display or $BROWSER (a text browser would fight the server for the terminal)."""
    if sys.platform in ("win32", "darwin") or os.environ.get("BROWSER"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_in_browser(url: str) -> None:
    """Open ``url`` in the laptop's own browser, beside the running server (the socket is
    already listening, so the first request simply waits for the server to start)."""
    if not can_open_browser():
        print(f"No graphical browser found: open {url} yourself.", flush=True)
        return

    def launch() -> None:
        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:
            opened = False
        if not opened:
            print(f"Couldn't open a browser: open {url} yourself.", flush=True)

    print(f"Opening {url} in this laptop's browser.", flush=True)
    threading.Thread(target=launch, name="open-browser", daemon=True).start()


def serve(args: argparse.Namespace) -> int:
    from .serving.patch import patch_for_gevent

    patch_for_gevent()  # before the server and the app are imported: their locks must be gevent's
    from .meetup import draw_process
    from .serving import server as http
    from . import create_app
    from .store import DatabaseError, StoreError
    from .store.backup import ServerLock
    from .store.connection import replaced_at_stop
    from .store import postgres

    from .store.connection import pool

    pool.limit = args.db_connections  # issue 46: no flood takes the database from another laptop
    url, warning = join_url(args.host, args.port)
    config = {"JOIN_URL": url, "PUBLIC_URL": args.public_url, "METRICS_FROM": args.metrics_from,
              "TRUSTED_PROXIES": args.trusted_proxy, "ORGANISER_PASSCODE": args.organiser_passcode}
    if args.public_url:
        url, warning = args.public_url, None
    if args.db:
        config["DATABASE"] = args.db if postgres.is_postgres(args.db) else os.path.abspath(args.db)
    try:
        if postgres.is_postgres(args.db):  # every laptop on the database signs sessions alike
            postgres.migrate(args.db)
            config["SECRET_KEY"] = postgres.shared_secret(args.db)
        app = create_app(config)
    except (DatabaseError, StoreError) as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    # Held while serving (the OS releases it when the process ends, even on kill -9):
    # `companion restore` refuses to replace the file under a running server.
    database = app.config["DATABASE"]
    lock = postgres.ServerLock(database) if postgres.is_postgres(database) else ServerLock(database)
    try:
        locked = lock.acquire()
    except StoreError as exc:  # PostgreSQL gone or out of connections since it migrated: one line (issue 46)
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    if not locked:  # PostgreSQL's is shared by every server on the database: only a restore holds it
        print(f"companion: {postgres.shown(database)} is in use by another Table Companion (serving it, or "
              "restoring a backup into it). Stop that one first, or use another --db file.", file=sys.stderr)
        return 1
    if postgres.is_postgres(database):
        # Changes saved by another server on the database reach this one's phones, and ours theirs.
        from . import changes

        relay = postgres.ChangeRelay(database)
        changes.relay_through(relay.send)
        relay.start(changes.tell_here)
        app.extensions["change_relay"] = relay  # /readyz asks whether it listens
    try:
        bring_results_up_to_date(app.config["DATABASE"])  # before the port opens: no phone waits for it
    except StoreError as exc:
        print(f"companion: {unusable_at_start(postgres.shown(database), exc)}", file=sys.stderr)
        lock.release()
        return 2
    try:
        # gevent, for thousands of cheap held connections (companion/serving/server.py says why).
        # A worker (--workers) accepts on the socket its parent opened and handed down.
        listener = (inherited_listener(args.listen_fd) if args.listen_fd is not None
                    else http.make_listener(args.host, args.port))
    except OSError as exc:
        if http.address_in_use(exc):
            print(f"companion: port {args.port} is already in use (is another companion running?). "
                  f"Try --port {args.port + 1}.", file=sys.stderr)
        elif exc.errno in (errno.EACCES, errno.EPERM):
            print(f"companion: not allowed to use port {args.port}; pick one above 1024.", file=sys.stderr)
        else:
            print(f"companion: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    server = http.build_server(app, listener, http.Limits(max_connections=args.max_connections,
                                                          per_device=args.per_device,
                                                          header_timeout=args.header_timeout))
    draw_process.run_elsewhere()  # serving: a long seating search runs beside the loop, never on it (issue 42)

    laptop = laptop_url(args.host, args.port)
    if args.listen_fd is not None:  # a worker: its parent said all this once
        end_with_parent(args.worker_of)
        serving_now(server)
        http.run(server)
        return 0
    print(start_message(url=url, warning=warning, laptop=laptop, database=postgres.shown(database),
                        moved_from=app.config.get("DATABASE_MOVED_FROM"),
                        draw_qr=not args.no_qr and terminal_can_draw_qr(),
                        db_said=getattr(args, "db_said", None) if postgres.is_postgres(database) else None,
                        sign_in=sign_in_line(args)),
          flush=True)
    if args.open:
        open_in_browser(laptop + ("hall" if args.open == "hall" else ""))

    serving_now(server)
    http.run(server)  # until Ctrl+C or SIGTERM
    replaced = replaced_at_stop()
    if replaced:
        # Closing SQLite's connections would checkpoint into the file that took the database's
        # place: end without closing them (the OS releases them, and the lock, as on kill -9).
        print(f"Stopped. Nothing was written into the file now at {app.config['DATABASE']}: {replaced}.",
              flush=True)
        sys.stderr.flush()
        os._exit(0)
    print("Stopped.", flush=True)
    return 0


def serving_now(server) -> None:
    """Start accepting, then say READY=1 to a service manager (companion/systemd.py): the season
    is loaded and the port answers, so a unit that waits for it may send phones now. A worker
    says it to its parent, which says it once every worker has."""
    from . import systemd

    server.start()
    systemd.notify("READY=1")


def inherited_listener(fd: int):
    """The listening socket a worker's parent opened (gevent's socket: serve patched it)."""
    import socket

    listener = socket.socket(fileno=fd)
    listener.setblocking(False)
    return listener


def end_with_parent(parent: int) -> None:
    """A worker stops (as on SIGTERM) once the parent that started it is gone (even killed -9):
    no worker is left serving on its own."""
    import signal

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


# A worker that ends sooner than this after its start is started again only after a pause (a
# database that refuses every start must not turn the parent into a loop of starts).
QUICK_END = 5.0


def serve_workers(args: argparse.Namespace) -> int:
    """`serve --workers N` (N > 1, PostgreSQL only): this process opens the port and starts N
    `companion serve` processes that all accept on it (the kernel hands each new connection to
    one of them), starts again one that dies, and stops them all on Ctrl+C or SIGTERM. Changes
    reach every worker's phones through the database (ChangeRelay); each worker keeps its own
    per-device limit and fair share (docs/club-server.md, "Workers")."""
    import shutil
    import signal
    import subprocess
    import tempfile

    from . import metrics, systemd
    from .serving import server as http
    from .store import DatabaseError, StoreError, postgres

    try:
        postgres.migrate(args.db)  # once, before the workers start (each one checks it again)
        postgres.counts(args.db)
    except (DatabaseError, StoreError) as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    try:
        listener = http.make_listener(args.host, args.port)
    except OSError as exc:
        print(f"companion: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
              + (f" (is another companion running? Try --port {args.port + 1}.)" if http.address_in_use(exc) else ""),
              file=sys.stderr)
        return 1
    listener.set_inheritable(True)
    # The database URL reaches each worker through its environment, never its command line:
    # another user's `ps` shows argv (issue 46).
    command = [sys.executable, "-m", "companion.cli", "serve", "--host", args.host, "--port", str(args.port),
               "--max-connections", str(args.max_connections), "--per-device", str(args.per_device),
               "--header-timeout", str(args.header_timeout), "--db-connections", str(args.db_connections), "--no-qr",
               "--listen-fd", str(listener.fileno()), "--worker-of", str(os.getpid())]
    command += [option for address in args.metrics_from for option in ("--metrics-from", address)]
    environment = {**os.environ, DB_ENV: args.db, **proxy_environment(args)}
    # One /metrics for every worker (companion/metrics.py): each writes its counts in this folder,
    # the one asked sums them. Made empty for this run, removed at the end.
    folder = tempfile.mkdtemp(prefix="companion-serve-")
    environment[metrics.MULTIPROCESS_ENV] = os.path.join(folder, "metrics")
    os.mkdir(environment[metrics.MULTIPROCESS_ENV])
    # A service manager hears READY=1 from this process once every worker said it here (never
    # from a worker: a unit needs only NotifyAccess=main).
    readiness = systemd.WorkersReady(folder) if os.environ.get(systemd.NOTIFY_ENV) else None
    environment.pop(systemd.NOTIFY_ENV, None)
    if readiness is not None:
        environment[systemd.NOTIFY_ENV] = readiness.path

    def start() -> tuple[subprocess.Popen, float]:
        # Its own process group: Ctrl+C reaches the parent, which stops the workers itself.
        return (subprocess.Popen(command, pass_fds=(listener.fileno(),), stdin=subprocess.DEVNULL,
                                 start_new_session=True, env=environment), time.monotonic())

    stopping = threading.Event()

    def stop(*_args) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    workers = [start() for _ in range(args.workers)]
    url, warning = (args.public_url, None) if args.public_url else join_url(args.host, args.port)
    laptop = laptop_url(args.host, args.port)
    print(start_message(url=url, warning=warning, laptop=laptop, database=postgres.shown(args.db),
                        moved_from=None, draw_qr=not args.no_qr and terminal_can_draw_qr(),
                        db_said=getattr(args, "db_said", None), sign_in=sign_in_line(args)), flush=True)
    print(f"{args.workers} workers: {', '.join(str(w.pid) for w, _ in workers)}.", flush=True)
    if args.open:
        open_in_browser(laptop + ("hall" if args.open == "hall" else ""))
    while not stopping.wait(0.2):
        if readiness is not None and readiness.all_ready(w.pid for w, _ in workers):
            systemd.notify("READY=1")
            readiness.close()
            readiness = None
        for number, (worker, started) in enumerate(workers):
            code = worker.poll()
            if code is None or stopping.is_set():
                continue
            metrics.worker_gone(worker.pid, environment[metrics.MULTIPROCESS_ENV])  # its streams are closed
            if time.monotonic() - started < QUICK_END:
                stopping.wait(1)
            workers[number] = start()
            print(f"Worker {worker.pid} ended ({'signal ' + str(-code) if code < 0 else 'exit ' + str(code)}); "
                  f"started {workers[number][0].pid} in its place.", flush=True)
    for worker, _ in workers:
        if worker.poll() is None:
            worker.terminate()
    deadline = time.monotonic() + 10
    for worker, _ in workers:
        try:
            worker.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(5)
    listener.close()
    if readiness is not None:
        readiness.close()
    shutil.rmtree(folder, ignore_errors=True)
    print("Stopped.", flush=True)
    return 0


def bring_results_up_to_date(database: str) -> int:
    """Replay the tables whose stored player results are missing or stale (after an upgrade: every
    table once, seconds for thousands) before the first phone is answered, so no page waits for
    it, then read them into the season's records (the first season page after a start would pay
    for that otherwise: ~50 ms for 200 nights). Returns how many were replayed (0 on an unchanged
    laptop: one query)."""
    from .players import service
    from .store import connect

    conn = connect(database)
    try:
        if service.results_stale(conn):
            print("Bringing the players' results up to date…", flush=True)
        replayed = service.refresh(conn)
        service.warm(conn)
        return replayed
    finally:
        conn.close()


def unusable_at_start(database: str, error: Exception) -> str:
    """What the terminal says when the database fails after it was opened, before serving (the
    results brought up to date): the disk is full, or the file is damaged; never a traceback."""
    from .store import StorageFull

    if isinstance(error, StorageFull):
        return (f"The disk holding {database} is full: Table Companion could not start on its database. "
                "Free some space on it (or use --db on another disk) and start again.")
    return (f"{database} can't be used ({error}): it may be damaged, or another file was put in its place "
            f"while its old log was beside it. Move it aside or use another --db file; to put a backup "
            f"back, stop the server and run: {command()} restore BACKUP")


def _database(args: argparse.Namespace) -> Path:
    """The database a command works on: --db, else the one `serve` uses."""
    from .moving import default_database

    if args.db:
        return Path(args.db).resolve()
    found, moved_from = default_database()
    if moved_from:
        print(f"Moved your scores from {moved_from} to {found} ({old_file_kept(moved_from)}).")
    return Path(found)


def backup(args: argparse.Namespace) -> int:
    """Copy the scores to ``args.path`` (a file, or a folder to put a dated file in), safely
    while a server is running: SQLite's backup API copies one committed state."""
    from .store import StoreError
    from .store.backup import copy_database, counts, is_ours_file

    from .store import postgres

    if args.db and postgres.is_postgres(args.db):
        return backup_postgres(args.db, Path(args.path).expanduser(), getattr(args, "db_said", None))
    source = _database(args)
    if not source.is_file():
        print(f"companion: no scores yet at {source}: nothing to back up.", file=sys.stderr)
        return 1
    target = backup_target(Path(args.path).expanduser(), ".sqlite")
    if target is None:
        return 1
    try:
        if not is_ours_file(source):
            print(f"companion: {source} is not Table Companion's database.", file=sys.stderr)
            return 2
        copy_database(source, target)
        tables, deals = counts(target)
    except (StoreError, OSError) as exc:
        print(f"companion: could not back up {source} to {target}: {exc}", file=sys.stderr)
        return 1
    print(f"Backed up {tables} tables ({deals} deals) from {source} to {target}.")
    print(f"To use it: {command()} serve --db {target}")
    return 0


def backup_target(path: Path, suffix: str) -> Path | None:
    """Where a backup goes: ``path``, or a dated file in it when it is a folder; None (said
    why) when that file exists already: a backup never overwrites one."""
    target = path / f"companion-{datetime.now():%Y-%m-%d-%H%M%S}{suffix}" if path.is_dir() else path
    if target.exists():
        print(f"companion: {target} already exists; give a new file name, or a folder "
              "to make a dated copy in.", file=sys.stderr)
        return None
    return target


def backup_postgres(url: str, target: Path, said: str | None = None) -> int:
    """`companion backup` of a PostgreSQL database: pg_dump's custom format (one snapshot).
    ``said``: how its restore command names the database (:func:`database_from`)."""
    from .store import StoreError, postgres

    found = backup_target(target, ".dump")
    if found is None:
        return 1
    target = found
    try:
        if not postgres.is_ours(url):
            print(f"companion: {postgres.shown(url)} is not a Table Companion database.", file=sys.stderr)
            return 2
        postgres.dump(url, target)
        tables, deals = postgres.counts(url)
    except (StoreError, OSError) as exc:
        print(f"companion: could not back up {postgres.shown(url)} to {target}: {exc}", file=sys.stderr)
        return 1
    print(f"Backed up {tables} tables ({deals} deals) from {postgres.shown(url)} to {target}.")
    # A command that pastes and works, with no password in it: the same --db-file, the same
    # COMPANION_DB, or the URL without its password (libpq reads PGPASSWORD or ~/.pgpass).
    said = f"--db {postgres.without_password(url)}" if said is None else said
    print(f"To put it back: {command()} restore {target}" + (f" {said}" if said else "")
          + ("  (with PGPASSWORD set, or the password in ~/.pgpass)" if postgres.without_password(url) != url
             and said.startswith("--db ") else ""))
    return 0


def restore(args: argparse.Namespace) -> int:
    """Put the backup ``args.path`` in place of the database, safely: refused while a server
    runs on it; the database it replaces is kept beside it first."""
    from .store import StoreError, postgres
    from .store.backup import counts, restore as put_back

    if args.db and postgres.is_postgres(args.db):
        source = Path(args.path).expanduser()
        try:
            kept = postgres.restore(source, args.db)
            tables, deals = postgres.counts(args.db)
        except (StoreError, OSError) as exc:
            print(f"companion: could not restore {source}: {exc}", file=sys.stderr)
            return 1
        print(f"Restored {tables} tables ({deals} deals) from {source} into {postgres.shown(args.db)}.")
        if kept:
            print(f"The scores it replaced are kept in {kept}.")
        return 0

    target = _database(args)
    source = Path(args.path).expanduser()
    try:
        kept = put_back(source, target)
        tables, deals = counts(target)
    except (StoreError, OSError) as exc:
        print(f"companion: could not restore {source}: {exc}", file=sys.stderr)
        return 1
    print(f"Restored {tables} tables ({deals} deals) from {source} into {target}.")
    if kept:
        print(f"The scores it replaced are kept in {kept}.")
    print(f"Start serving again: {command()} serve" + (f" --db {target}" if args.db else ""))
    return 0


DB_ENV = "COMPANION_DB"  # a database URL given out of sight of `ps` (issue 46), as workers get it


def database_from(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Where this command's database comes from (issue 46: secrets out of sight): ``--db``,
    else ``--db-file`` (a file holding the URL), else the environment's COMPANION_DB, else the
    default SQLite file. ``args.db_said`` is how a printed command names it again without a
    password: ``--db-file F``, nothing (the same COMPANION_DB), or the URL with its password
    left out (libpq then reads PGPASSWORD or ~/.pgpass). A password typed in ``--db`` is
    visible to every user of the machine (ps): said once, and never passed on to a worker."""
    from .store.postgres import is_postgres, without_password

    args.db_said = None
    if getattr(args, "db_file", None):
        if args.db:
            parser.error("give --db or --db-file, not both")
        try:
            args.db = Path(args.db_file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            parser.error(f"--db-file {args.db_file}: {exc.strerror or exc}")
        args.db_said = f"--db-file {args.db_file}"
    elif args.db:
        if is_postgres(args.db) and without_password(args.db) != args.db:
            print(f"companion: the password in --db can be read by every user of this machine (ps). Put the URL "
                  f"in {DB_ENV} or in a file for --db-file, or the password in PGPASSWORD or ~/.pgpass.",
                  file=sys.stderr)
        args.db_said = f"--db {without_password(args.db)}" if is_postgres(args.db) else f"--db {args.db}"
    elif os.environ.get(DB_ENV):
        args.db = os.environ[DB_ENV]
        args.db_said = ""  # the same environment names it again


# Behind a reverse proxy (issue 46): these reach `--workers`' workers through their environment
# (as the database URL does), and may be set there by whoever starts `serve` (a systemd unit).
TRUSTED_PROXY_ENV = "COMPANION_TRUSTED_PROXY"  # addresses, separated by commas or spaces
PASSCODE_ENV = "COMPANION_ORGANISER_PASSCODE"
PUBLIC_URL_ENV = "COMPANION_PUBLIC_URL"


def proxy_settings(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``--trusted-proxy`` (else COMPANION_TRUSTED_PROXY) as a tuple of addresses; the organiser's
    passcode behind them (``--organiser-passcode-file``, else COMPANION_ORGANISER_PASSCODE, else
    a new one for this start); ``--public-url`` (else COMPANION_PUBLIC_URL), ending in "/"."""
    from urllib.parse import urlsplit

    from .devices import trusted_addresses
    from .web.organiser_signin import new_passcode

    given = args.trusted_proxy or os.environ.get(TRUSTED_PROXY_ENV, "").replace(",", " ").split()
    try:
        args.trusted_proxy = tuple(sorted(trusted_addresses(given)))
    except ValueError as exc:
        parser.error(f"--trusted-proxy: {exc} (give the proxy's IP address, as it connects to this server)")
    args.organiser_passcode = None
    if args.organiser_passcode_file:
        try:
            args.organiser_passcode = Path(args.organiser_passcode_file).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            parser.error(f"--organiser-passcode-file {args.organiser_passcode_file}: {exc.strerror or exc}")
        if len(args.organiser_passcode) < 8:
            parser.error(f"--organiser-passcode-file {args.organiser_passcode_file}: the passcode must have "
                         "at least 8 characters")
    elif os.environ.get(PASSCODE_ENV):
        args.organiser_passcode = os.environ[PASSCODE_ENV]
    elif args.trusted_proxy:
        args.organiser_passcode = new_passcode()
    public = args.public_url or os.environ.get(PUBLIC_URL_ENV, "")
    if public:
        parts = urlsplit(public)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
                or parts.query or parts.fragment:
            parser.error(f"--public-url {public}: give the address phones open, as http(s)://name[:port]/ "
                         "(the companion answers at the root of its address, not under a path)")
        public = f"{parts.scheme}://{parts.netloc}/"
    args.public_url = public or None


def proxy_environment(args: argparse.Namespace) -> dict[str, str]:
    """What a worker needs of :func:`proxy_settings`, in its environment (never its command line:
    the passcode is a secret)."""
    found = {TRUSTED_PROXY_ENV: " ".join(args.trusted_proxy)}
    if args.organiser_passcode:
        found[PASSCODE_ENV] = args.organiser_passcode
    if args.public_url:
        found[PUBLIC_URL_ENV] = args.public_url
    return found


def sign_in_line(args: argparse.Namespace) -> str | None:
    """The start message's line for the organiser behind a proxy: where to sign in, and with what."""
    if not args.trusted_proxy:
        return None
    where = f"{args.public_url}organiser/sign-in" if args.public_url else "/organiser/sign-in"
    passcode = ("the passcode in " + args.organiser_passcode_file if args.organiser_passcode_file
                else f"this passcode: {args.organiser_passcode}")
    return (f"Behind the proxy at {', '.join(args.trusted_proxy)}: the organiser signs in at {where} "
            f"with {passcode}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="companion", description="Table Companion for five trick-taking games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command")
    s = sub.add_parser("serve", help="serve the companion to phones on this network")
    s.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, so phones can join)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--db", help="SQLite file (default: companion.sqlite in your data folder; created on first run), "
                   "or a PostgreSQL database: postgresql://user@host/dbname (needs psycopg: docs/club-server.md)")
    s.add_argument("--db-file", metavar="FILE", help="a file holding the database URL (or set COMPANION_DB): "
                   "its password stays out of the process list")
    s.add_argument("--threads", type=int, default=16, help=argparse.SUPPRESS)  # waitress's; kept so old scripts run
    s.add_argument("--max-connections", type=int, default=0, metavar="N",
                   help="connections held at once (default: from the open-file limit)")
    s.add_argument("--per-device", type=int, default=64, metavar="N",
                   help="connections one device may hold at once (default 64; a phone uses up to 6)")
    s.add_argument("--header-timeout", type=float, default=15.0, help=argparse.SUPPRESS)  # seconds; tests use less
    s.add_argument("--db-connections", type=int, default=8, metavar="N",
                   help="connections each server process holds to a PostgreSQL database at most, lent to requests "
                        "in turn (default 8; docs/club-server.md, 'Connections')")
    s.add_argument("--workers", type=int, default=1, metavar="N",
                   help="server processes answering on the port (default 1; more need a postgresql:// --db)")
    s.add_argument("--listen-fd", type=int, help=argparse.SUPPRESS)  # a worker: the parent's listening socket
    s.add_argument("--worker-of", type=int, help=argparse.SUPPRESS)  # a worker: its parent's process id
    s.add_argument("--metrics-from", action="append", default=[], metavar="ADDR",
                   help="an address (or network) whose monitor may read /metrics, besides this laptop; repeatable")
    s.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDR",
                   help="a reverse proxy's address (repeatable; or COMPANION_TRUSTED_PROXY): its requests count as "
                   "the client it names in X-Forwarded-For, and the organiser signs in with a passcode "
                   "(docs/club-server.md)")
    s.add_argument("--organiser-passcode-file", metavar="FILE",
                   help="behind a proxy: the organiser's passcode, from this file (default: a new one, printed)")
    s.add_argument("--public-url", metavar="URL",
                   help="the address phones open (behind a proxy: https://club.example/): QR codes and links carry it")
    s.add_argument("--no-qr", action="store_true", help="don't draw the QR code in the terminal")
    s.add_argument("--open", nargs="?", const="home", choices=("home", "hall"),
                   help="open the home page (its big QR code), or the hall view, in this laptop's browser")
    b = sub.add_parser("backup", help="copy the scores to a file, safely while serving")
    b.add_argument("path", help="the copy's file name, or a folder to put a dated copy in")
    b.add_argument("--db", help="the database to copy (default: the one `serve` uses); a postgresql:// one "
                   "is copied with pg_dump")
    b.add_argument("--db-file", metavar="FILE", help="a file holding the database URL (or set COMPANION_DB)")
    r = sub.add_parser("restore", help="put a backup back in place of the scores (stop the server first)")
    r.add_argument("path", help="the backup file to restore")
    r.add_argument("--db", help="the database to replace (default: the one `serve` uses); a postgresql:// one "
                   "with pg_restore")
    r.add_argument("--db-file", metavar="FILE", help="a file holding the database URL (or set COMPANION_DB)")
    args = parser.parse_args(argv)
    if args.command in ("serve", "backup", "restore"):
        database_from(args, parser)
    if args.command == "serve":
        proxy_settings(args, parser)
        if not 0 < args.port < 65536:
            parser.error("--port must be from 1 to 65535")
        if not 1 <= args.workers <= 64:
            parser.error("--workers must be from 1 to 64")
        if not 1 <= args.db_connections <= 1000:
            parser.error("--db-connections must be from 1 to 1000")
        try:
            from .metrics import allowed_peers

            allowed_peers(args.metrics_from)
        except ValueError as exc:
            parser.error(f"--metrics-from: {exc}")
        if args.workers > 1:
            from .store.postgres import is_postgres

            if not is_postgres(args.db):
                # SQLite: one process, one writer: its file watch and write lock are per process.
                parser.error("--workers above 1 needs a PostgreSQL database (--db postgresql://…): "
                             "with SQLite one process serves (docs/club-server.md)")
            return serve_workers(args)
        return serve(args)
    if args.command == "backup":
        return backup(args)
    if args.command == "restore":
        return restore(args)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
