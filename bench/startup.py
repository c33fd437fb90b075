"""Start-up: how soon `companion serve` answers after it is launched.

Target: the first 200 from GET /healthz <= 1.5 s after launch.

Each run launches `python -m companion.cli serve --host 127.0.0.1 --port <free> --db <tmp>/x.sqlite
--no-qr` (what the `companion` console script runs; PYTHONPATH = this repository) twice:

- "fresh database": the SQLite file does not exist yet, so the server creates it;
- "existing database": a second launch on the file the first one made.

The clock runs from just before Popen to the first 200 from /healthz; the client
(bench/client.py's status_of) polls every 10 ms with a 50 ms connect timeout, over loopback
only. The server is stopped with SIGTERM after each launch. For scale it also times a bare
`python -c pass` (the floor any Python program pays) and, from the server's own log, when it
printed that it was running.

    python3 bench/startup.py                # 5 runs, median
    python3 bench/startup.py --runs 10

Exit status is 0 whatever the figures (a report, not a test); 1 only if something errors.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from client import status_of
from serving import free_port, serve_command, server_env, stop_server

HOST = "127.0.0.1"
TARGET_S = 1.5
POLL_S = 0.010
CONNECT_TIMEOUT_S = 0.05
GIVE_UP_S = 20.0


def launch(db: Path, log: Path) -> float:
    """Seconds from Popen to the first 200 from /healthz."""
    port = free_port()
    env = server_env()
    with open(log, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(serve_command(port, db), cwd=db.parent, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        while True:
            status = status_of(port, "/healthz", HOST, CONNECT_TIMEOUT_S)
            elapsed = time.perf_counter() - start
            if status == 200:
                break
            if proc.poll() is not None:
                raise RuntimeError(f"server exited ({proc.returncode}): "
                                   + log.read_text(errors="replace")[-2000:])
            if status is not None:
                raise RuntimeError(f"/healthz answered {status}")
            if elapsed > GIVE_UP_S:
                raise RuntimeError(f"no 200 from /healthz within {GIVE_UP_S:.0f} s")
            time.sleep(POLL_S)
    finally:
        stop_server(proc)
    return elapsed


def bare_python() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True, env=server_env())
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs (each: a fresh and an existing database); default 5")
    args = parser.parse_args()

    fresh: list[float] = []
    existing: list[float] = []
    floor: list[float] = []
    try:
        for run in range(1, args.runs + 1):
            tmp = Path(tempfile.mkdtemp(prefix="startup-"))
            try:
                db = tmp / "x.sqlite"
                first = launch(db, tmp / "serve-1.log")
                if not db.exists():
                    raise RuntimeError(f"the first launch did not create {db}")
                second = launch(db, tmp / "serve-2.log")
                python = bare_python()
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            fresh.append(first)
            existing.append(second)
            floor.append(python)
            print(f"run {run}: fresh database {first * 1000:7.1f} ms   existing database {second * 1000:7.1f} ms"
                  f"   (bare `python -c pass` {python * 1000:5.1f} ms)", flush=True)
    except Exception as exc:
        print(f"ERROR: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1

    med_fresh, med_existing = statistics.median(fresh), statistics.median(existing)
    print(f"\nmedian over {args.runs} run(s): fresh database {med_fresh * 1000:.1f} ms (max {max(fresh) * 1000:.1f}),"
          f" existing database {med_existing * 1000:.1f} ms (max {max(existing) * 1000:.1f}),"
          f" bare python {statistics.median(floor) * 1000:.1f} ms")
    worst = max(med_fresh, med_existing)
    print(f"{'PASS' if worst <= TARGET_S else 'FAIL'}: `companion serve` answers /healthz {worst:.3f} s after launch"
          f" (target <= {TARGET_S} s, worse of fresh / existing database, median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
