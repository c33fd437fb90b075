"""Page weight: bytes on the wire for a phone opening a table and entering deals.

Targets (KB = 1000 bytes, as browser dev tools count):

- first load of a table page (the HTML plus every subresource it references, fetched once
  as by a browser with an empty cache) <= 50 KB, with compression on;
- each deal-entry round trip (the htmx POST the entry form sends, and its answer) <= 8 KB.

Starts `companion serve` on 127.0.0.1 (loopback only) with a throwaway database, creates
an RWD table for 4 players through the real forms (CSRF token, cookies kept), and talks
to it with bench/client.py (a raw-socket HTTP/1.1 client) that counts exactly what crosses the
socket: request line + headers + body sent, status line + headers + body received
(still compressed). Requests carry the headers a phone's Chrome sends to a plain-http
LAN address (User-Agent, Accept, Accept-Encoding: gzip, deflate, Accept-Language,
Cookie; no Sec-Fetch-*/client hints, which Chrome only sends to secure origins); htmx
requests add the headers htmx 4 sends (HX-Request, HX-Source, HX-Target, HX-Current-URL,
HX-Request-Type, Accept: text/html) and Origin, as fetch() does for a POST.

Measured, per run:

- first load of the empty table by a phone that has never visited (no cookies yet);
- deal 1 entered the htmx way (POST /t/<token>/deals with HX-Request) and its answer;
- one as-you-type preview round trip (POST /t/<token>/preview), for information;
- the live poll another phone then makes (GET /t/<token>/live?rev=N&form=M, the URL in
  its page's hx-get) that returns the changed sheet, and the next, unchanged poll (204);
- the same after 8 deals are on the sheet: first load, deal 9, the live 200 poll.

    python3 bench/weight.py                 # 5 runs, median
    python3 bench/weight.py --runs 1 -v     # one run, every resource listed for each load

Exit status is 0 whatever the figures (a report, not a test); 1 only if something errors.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

from client import Client, Exchange
from serving import start_server, stop_server

KB = 1000
PAGE_BUDGET = 50 * KB
ENTRY_BUDGET = 8 * KB

USER_AGENT = ("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/131.0.0.0 Mobile Safari/537.36")
ACCEPT = {
    "document": "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
                "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
    "style": "text/css,*/*;q=0.1",
    "script": "*/*",
    "image": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
    "htmx": "text/html",
}


# --------------------------------------------------------------------------------------------
# A phone's Chrome on bench/client.py's byte-counting connection


class Phone(Client):
    """One phone's browser: the headers Chrome sends (see the module's doc) on one keep-alive
    connection with a cookie jar; ``request`` gives an Exchange that counts every byte."""

    def browse(self, method: str, path: str, kind: str = "document", body: bytes = b"",
               extra: dict[str, str] | None = None) -> Exchange:
        headers = []
        if kind == "document":
            headers.append(("Upgrade-Insecure-Requests", "1"))
        headers += [("User-Agent", USER_AGENT), ("Accept", ACCEPT[kind])]
        headers += list((extra or {}).items())
        headers += [("Accept-Encoding", "gzip, deflate"), ("Accept-Language", "en-US,en;q=0.9")]
        return self.request(method, path, body, headers)

    def htmx(self, method: str, path: str, current_url: str, source: str, target: str,
             form: dict | None = None) -> Exchange:
        extra = {"HX-Request": "true", "HX-Source": source, "HX-Current-URL": current_url,
                 "HX-Target": target, "HX-Request-Type": "partial"}
        body = b""
        if method == "POST":
            body = urllib.parse.urlencode(form or {}).encode()
            extra = {"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
                     "Origin": self.origin, **extra}
        return self.browse(method, path, "htmx", body, extra)

    def submit(self, path: str, form: dict) -> Exchange:
        """A plain (non-htmx) form POST, as the page's <form> sends it."""
        body = urllib.parse.urlencode(form).encode()
        return self.browse("POST", path, "document", body, {
            "Content-Type": "application/x-www-form-urlencoded", "Origin": self.origin})


# --------------------------------------------------------------------------------------------
# What a page references


class Subresources(HTMLParser):
    """Stylesheets, icons, preloads, scripts and images a browser would fetch for a page."""

    FETCHED_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "preload",
                    "modulepreload", "manifest", "mask-icon"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []  # (kind, url)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and a.get("href"):
            rels = set((a.get("rel") or "").lower().split())
            if rels & self.FETCHED_RELS:
                kind = "style" if "stylesheet" in rels else "image"
                if "preload" in rels or "modulepreload" in rels:
                    kind = {"style": "style", "script": "script"}.get(a.get("as", ""), "image")
                self.found.append((kind, a["href"]))
        elif tag == "script" and a.get("src"):
            self.found.append(("script", a["src"]))
        elif tag in ("img", "source") and (a.get("src") or a.get("srcset")):
            if a.get("src"):
                self.found.append(("image", a["src"]))
            for candidate in (a.get("srcset") or "").split(","):
                if candidate.strip():
                    self.found.append(("image", candidate.split()[0]))
        elif tag in ("image", "use") and (a.get("href") or a.get("xlink:href")):  # inline SVG
            ref = a.get("href") or a.get("xlink:href")
            if not ref.startswith("#"):
                self.found.append(("image", ref.split("#", 1)[0]))


CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)""")
CSS_IMPORT = re.compile(r"""@import\s+(['"])([^'"]+)\1""")


def local_path(base: str, ref: str, origin: str) -> str | None:
    """The path on our server a reference resolves to (None for data:, fragments, elsewhere)."""
    ref = ref.strip()
    if not ref or ref.startswith(("data:", "#", "about:", "javascript:")):
        return None
    absolute = urllib.parse.urljoin(origin + base, ref)
    parts = urllib.parse.urlsplit(absolute)
    if f"{parts.scheme}://{parts.netloc}" != origin:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


@dataclass
class Load:
    rows: list[tuple[str, str, Exchange]] = field(default_factory=list)  # (kind, path, exchange)

    @property
    def total(self) -> int:
        return sum(e.total for _k, _p, e in self.rows)


def first_load(phone: Phone, path: str) -> tuple[Load, bytes]:
    """GET the page, then each subresource once (an empty cache), CSS url()s included."""
    load = Load()
    page = phone.browse("GET", path, "document")
    if page.status != 200:
        raise RuntimeError(f"GET {path} -> {page.status}")
    load.rows.append(("document", path, page))
    parser = Subresources()
    parser.feed(page.body.decode("utf-8"))
    queue = [(kind, local_path(path, ref, phone.origin), path) for kind, ref in parser.found]
    seen = {path}
    while queue:
        kind, sub, _referrer = queue.pop(0)
        if sub is None or sub in seen:
            continue
        seen.add(sub)
        ex = phone.browse("GET", sub, kind)
        if ex.status != 200:
            raise RuntimeError(f"GET {sub} (referenced by {_referrer}) -> {ex.status}")
        load.rows.append((kind, sub, ex))
        if kind == "style" or ex.headers.get("content-type", "").startswith("text/css"):
            css = ex.body.decode("utf-8", "replace")
            refs = [("style", m.group(2)) for m in CSS_IMPORT.finditer(css)]
            refs += [("image", m.group(2)) for m in CSS_URL.finditer(css)]
            queue += [(k, local_path(sub, r, phone.origin), sub) for k, r in refs]
    return load, page.body


# --------------------------------------------------------------------------------------------
# The app's forms


def csrf_of(html: bytes) -> str:
    match = re.search(rb'name="csrf_token" value="([^"]+)"', html)
    if not match:
        raise RuntimeError("no csrf_token input on the page")
    return match.group(1).decode()


def live_url(html: bytes) -> str:
    """The URL in #live's hx-get: what this phone will poll."""
    match = re.search(rb'<section id="live"[^>]*?hx-get="([^"]+)"', html, re.S)
    if not match:
        raise RuntimeError("no #live hx-get on the page")
    return unescape(match.group(1).decode())


def entry_action(html: bytes) -> tuple[str, str, str]:
    """(hx-post path, HX-Source, HX-Target) of the deal form, read from the page."""
    form = re.search(rb'<form id="entry"[^>]*>', html, re.S)
    if not form:
        raise RuntimeError("no deal form (#entry) on the page")
    tag = form.group(0).decode()
    post = unescape(re.search(r'hx-post="([^"]+)"', tag).group(1))
    target = unescape(re.search(r'hx-target="([^"]+)"', tag).group(1))
    # htmx names an element tag#id; "closest .entry-wrap" is the <section class="entry-wrap">.
    target_name = "section" if "entry-wrap" in target else target.split()[-1].lstrip("#.")
    return post, "form#entry", target_name


def preview_action(html: bytes) -> str:
    match = re.search(rb'class="preview"[^>]*hx-post="([^"]+)"', html, re.S)
    return unescape(match.group(1).decode()) if match else ""


PLAYERS = ["Aiko", "Ben", "Chiyo", "Daisuke"]
T4 = 52 // 4  # tricks per half with 4 players


def rwd_deal(winner: int | None) -> tuple[list[int], list[int]]:
    """Chips and tricks of one plausible 4-player deal; None is a draw (everyone 0)."""
    if winner is None:
        chips = [4, 3, 3, 3]
        return chips, list(chips)
    chips = [4] * 4
    chips[winner] = 1
    tricks = [2] * 4
    tricks[winner] = 7
    return chips, tricks


# Deals 1-8: six won (two each for seats 0 and 1, one each for 2 and 3) and two draws, so
# the match (first to 3 deal wins) is not over and deal 9 (won by seat 2) has a form.
HISTORY = [0, 1, 2, None, 3, 0, None, 1]
DEAL_9 = 2


def deal_form(csrf: str, number: int, winner: int | None, page: bytes) -> dict:
    chips, tricks = rwd_deal(winner)
    form = {"csrf_token": csrf, "number": str(number)}
    form.update({f"chips-{i}": str(c) for i, c in enumerate(chips)})
    form.update({f"tricks-{i}": str(t) for i, t in enumerate(tricks)})
    choice = re.search(rb'name="start_player" value="(\d+)"', page)
    if choice:  # after a draw the table decides who starts: pick the first offered seat
        form["start_player"] = choice.group(1).decode()
    return form


# --------------------------------------------------------------------------------------------
# One run


def enter_htmx(phone: Phone, page_path: str, page: bytes, number: int, winner: int | None
               ) -> Exchange:
    post, source, target = entry_action(page)
    form = deal_form(csrf_of(page), number, winner, page)
    ex = phone.htmx("POST", post, phone.origin + page_path, source, target, form)
    if ex.status != 200:
        raise RuntimeError(f"deal {number}: htmx POST {post} -> {ex.status}: {ex.body[:300]!r}")
    return ex


def poll(phone: Phone, page_path: str, url: str) -> Exchange:
    ex = phone.htmx("GET", url, phone.origin + page_path, "section#live", "section#live")
    if ex.status not in (200, 204):
        raise RuntimeError(f"GET {url} -> {ex.status}")
    return ex


def one_run() -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="weight-"))
    proc, port = start_server(tmp)
    phones: list[Phone] = []

    def phone() -> Phone:
        p = Phone(port)
        phones.append(p)
        return p

    try:
        host = phone()
        new = host.browse("GET", f"/tables/new?game=rwd&players={len(PLAYERS)}")
        created = host.submit("/tables", {"csrf_token": csrf_of(new.body), "game": "rwd",
                                             "players": str(len(PLAYERS)), "first_start_player": "0",
                                             **{f"name-{i}": n for i, n in enumerate(PLAYERS)}})
        if created.status != 303:
            raise RuntimeError(f"creating the table -> {created.status}")
        page_path = urllib.parse.urlsplit(created.headers["location"]).path
        result: dict = {}

        # -- the empty table: a newly joined phone loads it; a second phone watches.
        joiner, watcher = phone(), phone()
        load_empty, page = first_load(joiner, page_path)
        watched = watcher.browse("GET", page_path).body
        preview = preview_action(page)
        if preview:
            form = deal_form(csrf_of(page), 1, 0, page)
            ex = joiner.htmx("POST", preview, joiner.origin + page_path, "div#preview-add",
                             "div#preview-add", form)
            result["preview"] = ex
        entry_1 = enter_htmx(joiner, page_path, page, 1, HISTORY[0])
        live_1 = poll(watcher, page_path, live_url(watched))
        if live_1.status != 200:
            raise RuntimeError("the watcher's poll did not see deal 1")
        unchanged = poll(watcher, page_path, live_url(live_1.body))
        if unchanged.status != 204:
            raise RuntimeError(f"an unchanged poll answered {unchanged.status}, not 204")
        result.update(load_empty=load_empty, entry_1=entry_1, live_1=live_1, live_204=unchanged)

        # -- deals 2..8 from the host phone (not measured)
        for number, winner in enumerate(HISTORY[1:], start=2):
            current = host.browse("GET", page_path).body
            enter_htmx(host, page_path, current, number, winner)

        # -- after 8 deals: another new phone loads it; deal 9; the watcher's poll.
        joiner8, watcher8 = phone(), phone()
        load_8, page8 = first_load(joiner8, page_path)
        if b'id="deal-8"' not in page8 or b'id="entry"' not in page8:
            raise RuntimeError("the table should show 8 deals and the form for deal 9")
        watched8 = watcher8.browse("GET", page_path).body
        entry_9 = enter_htmx(joiner8, page_path, page8, 9, DEAL_9)
        live_9 = poll(watcher8, page_path, live_url(watched8))
        if live_9.status != 200:
            raise RuntimeError("the watcher's poll did not see deal 9")
        result.update(load_8=load_8, entry_9=entry_9, live_9=live_9)
        return result
    finally:
        for p in phones:
            p.close()
        stop_server(proc)


# --------------------------------------------------------------------------------------------
# Report


def fmt(n: float) -> str:
    return f"{n / KB:7.2f} KB"


def print_load(title: str, load: Load) -> None:
    print(f"  {title}")
    print(f"    {'resource':<44} {'status':>6} {'sent':>8} {'received':>10} {'body':>9} {'enc':>5} {'total':>11}")
    for kind, path, ex in load.rows:
        shown = path if len(path) <= 44 else path[:20] + "…" + path[-23:]
        print(f"    {shown:<44} {ex.status:>6} {ex.sent:>8} {ex.received:>10} {ex.wire_body:>9} "
              f"{ex.headers.get('content-encoding', '-'):>5} {fmt(ex.total):>11}")
    print(f"    {'total':<44} {'':>6} {sum(e.sent for *_, e in load.rows):>8} "
          f"{sum(e.received for *_, e in load.rows):>10} {'':>9} {'':>5} {fmt(load.total):>11}")


def print_exchange(title: str, ex: Exchange) -> None:
    print(f"  {title:<52} {ex.method} {ex.status}  sent {ex.sent:>5} B  received {ex.received:>6} B"
          f"  ({ex.headers.get('content-encoding', 'identity')}, body {ex.wire_body} B on the wire,"
          f" {len(ex.body)} B decoded)  = {fmt(ex.total)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs (each on a fresh server); default 5")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every resource on every run")
    args = parser.parse_args()

    figures: dict[str, list[int]] = {k: [] for k in (
        "load_empty", "load_8", "entry_1", "entry_9", "live_1", "live_9", "live_204", "preview")}
    try:
        for run in range(1, args.runs + 1):
            r = one_run()
            print(f"run {run}:")
            if run == 1 or args.verbose:
                print_load("first load, empty table (a phone that never visited: no cookies, empty cache)",
                           r["load_empty"])
                print_load("first load, table with 8 deals", r["load_8"])
            else:
                print(f"  first load, empty table           {fmt(r['load_empty'].total)}")
                print(f"  first load, table with 8 deals    {fmt(r['load_8'].total)}")
            if "preview" in r:
                print_exchange("as-you-type preview (htmx POST, info)", r["preview"])
            print_exchange("deal 1 entry round trip (htmx POST)", r["entry_1"])
            print_exchange("other phone's live poll after deal 1 (200)", r["live_1"])
            print_exchange("other phone's next poll, unchanged (204)", r["live_204"])
            print_exchange("deal 9 entry round trip, 8 deals on sheet", r["entry_9"])
            print_exchange("other phone's live poll after deal 9 (200)", r["live_9"])
            for key in figures:
                if key in r:
                    value = r[key]
                    figures[key].append(value.total)
            sys.stdout.flush()
    except Exception as exc:  # a report, not a test: but an error is an error
        print(f"ERROR: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1

    med = {k: statistics.median(v) for k, v in figures.items() if v}
    print(f"\nmedian over {args.runs} run(s):")
    labels = {"load_empty": "first load, empty table", "load_8": "first load, 8 deals",
              "entry_1": "deal entry round trip, deal 1", "entry_9": "deal entry round trip, deal 9",
              "live_1": "live poll with changes (after deal 1)", "live_9": "live poll with changes (after deal 9)",
              "live_204": "live poll, unchanged (204)", "preview": "as-you-type preview round trip"}
    for key, label in labels.items():
        if key in med:
            print(f"  {label:<40} {fmt(med[key])}")
    page = max(med["load_empty"], med["load_8"])
    entry = max(med["entry_1"], med["entry_9"])
    live = max(med["live_1"], med["live_9"])
    print(f"{'PASS' if page <= PAGE_BUDGET else 'FAIL'}: first load of a table page "
          f"{page / KB:.2f} KB (target <= {PAGE_BUDGET / KB:.0f} KB, worse of empty / 8 deals, median)")
    print(f"{'PASS' if entry <= ENTRY_BUDGET else 'FAIL'}: deal-entry round trip "
          f"{entry / KB:.2f} KB (target <= {ENTRY_BUDGET / KB:.0f} KB, worse of deal 1 / deal 9, median)")
    print(f"info: another phone's live poll that brings the change costs {live / KB:.2f} KB "
          f"({'within' if live <= ENTRY_BUDGET else 'over'} the same 8 KB); an unchanged poll "
          f"{med['live_204']:.0f} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
