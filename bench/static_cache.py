"""Memory after many odd static paths (issue 13, item 3).

Asks for the vendored htmx file under ``--paths`` different spellings of its path
(/static/x1/../vendor/htmx…, /static/x2/../vendor/htmx…), gzip accepted, through the app
in this process (no network at all), and reports the process's resident memory before and
after, and what the static gzip cache holds. Earlier versions kept one compressed copy per
spelling (about 13.7 KB each, for ever).

    python bench/static_cache.py                  # this checkout
    python bench/static_cache.py --checkout DIR   # another checkout, for a before/after figure
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    import os
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", type=int, default=50_000)
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout.resolve()))
    from companion import create_app
    import companion.web as web

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": str(Path(tmp) / "x.sqlite"), "SECRET_KEY": "bench"})
        client = app.test_client()
        vendor = next((Path(app.static_folder) / "vendor").glob("htmx-*.min.js")).name
        headers = {"Accept-Encoding": "gzip"}
        assert client.get(f"/static/vendor/{vendor}", headers=headers).status_code == 200
        gc.collect()
        before = rss_mb()
        start = time.perf_counter()
        for i in range(args.paths):
            response = client.get(f"/static/x{i}/../vendor/{vendor}", headers=headers)
            assert response.status_code == 200, response.status_code
            response.close()
        seconds = time.perf_counter() - start
        gc.collect()
        after = rss_mb()
    cache = web._STATIC_GZ
    held = getattr(cache, "bytes", None)
    if held is None:  # earlier versions: a plain dict of compressed bodies
        held = sum(len(v) for v in cache.values())
    entries = len(getattr(cache, "entries", cache))
    print(f"checkout: {args.checkout}")
    print(f"{args.paths} odd static paths in {seconds:.1f} s: resident memory {before:.0f} MB -> {after:.0f} MB "
          f"(+{after - before:.0f} MB); gzip cache {entries} entries, {held / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
