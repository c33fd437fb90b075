"""Which modules of companion/ one deal passes through, and how often.

Posts one deal to a table through Flask's test client (no network) and counts, with
``sys.setprofile``, every entry into a Python function defined under companion/, per module.
Prints the modules in the order the deal first entered them, with the counts: how many
layers a deal crosses, and where its work is done.

A first deal is posted before counting, so templates, caches and lazy imports are warm and
the count is what every later deal costs. Runs against whichever ``companion`` is importable
(set PYTHONPATH to compare two checkouts):

    PYTHONPATH=$PWD python bench/deal_walk.py
    PYTHONPATH=/tmp/walk-before python bench/deal_walk.py   # an older checkout, same script
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

NAMES = ["Ann", "Bob", "Cy", "Di"]


def rwd_deal(number: int) -> dict[str, str]:
    """A valid 4-player RWD deal as the form sends it; the winner rotates, so the match goes on."""
    chips, tricks = [4, 3, 3, 3], [3, 3, 3, 4]
    winner = number % 4
    tricks[winner] += 2
    tricks[(winner + 1) % 4] -= 2
    return {"number": str(number), **{f"chips-{i}": str(c) for i, c in enumerate(chips)},
            **{f"tricks-{i}": str(t) for i, t in enumerate(tricks)}}


def module_of(filename: str, root: Path) -> str | None:
    """companion/tables/views.py -> companion.tables.views; None outside companion/."""
    try:
        relative = Path(filename).resolve().relative_to(root.parent)
    except ValueError:
        return None
    parts = list(relative.with_suffix("").parts)
    if parts[0] != root.name:  # templates/ beside companion/ (compiled templates): not ours to count
        return None
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def walk(htmx: bool, conflict: bool) -> tuple[int, dict[str, int]]:
    import companion
    from companion import create_app

    root = Path(companion.__file__).resolve().parent
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"TESTING": True, "DATABASE": str(Path(folder) / "walk.sqlite"),
                          "SECRET_KEY": "walk", "WTF_CSRF_ENABLED": False})
        client = app.test_client()
        made = client.post("/tables", data={"game": "rwd", "players": "4",
                                            **{f"name-{i}": n for i, n in enumerate(NAMES)}})
        token = made.headers["Location"].rsplit("/", 1)[-1]
        headers = {"HX-Request": "true"} if htmx else {}
        warm = client.post(f"/t/{token}/deals", data=rwd_deal(1), headers=headers)
        assert warm.status_code in (200, 303), warm.status_code
        mine = rwd_deal(2)
        if conflict:  # another phone enters deal 2 first; ours (another deal 2) then conflicts
            client.post(f"/t/{token}/deals", data=rwd_deal(2), headers=headers)
            mine = rwd_deal(3) | {"number": "2"}

        counts: dict[str, int] = {}  # insertion order: the order of first entry
        modules: dict[str, str | None] = {}  # filename -> module (or None), looked up once

        def profile(frame, event, _arg):
            if event != "call":
                return
            filename = frame.f_code.co_filename
            module = modules.get(filename, "")
            if module == "":
                module = modules[filename] = module_of(filename, root)
            if module is not None:
                counts[module] = counts.get(module, 0) + 1

        sys.setprofile(profile)
        try:
            answer = client.post(f"/t/{token}/deals", data=mine, headers=headers)
        finally:
            sys.setprofile(None)
        assert answer.status_code in ((409,) if conflict else (200, 303)), answer.status_code
    return answer.status_code, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--htmx", action="store_true", help="post as htmx does (answered with the page's parts)")
    parser.add_argument("--conflict", action="store_true",
                        help="post a deal another phone entered first (the conflict's answer)")
    args = parser.parse_args()
    import companion

    status, counts = walk(args.htmx, args.conflict)
    print(f"companion from {Path(companion.__file__).resolve().parent}; one deal posted "
          f"({'htmx' if args.htmx else 'plain form'}{', a conflict' if args.conflict else ''}), answered {status}")
    print(f"{'#':>3}  {'module':<36} {'entries':>8}")
    for order, (module, count) in enumerate(counts.items(), start=1):
        print(f"{order:>3}  {module:<36} {count:>8}")
    print(f"     {'total: ' + str(len(counts)) + ' modules':<36} {sum(counts.values()):>8}")


if __name__ == "__main__":
    main()
