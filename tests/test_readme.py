"""The README's and docs/'s promises: their Python examples run and print what they claim,
every relative link leads to a file and heading that exist, the README stays short, and CI
runs the Quick start's test command."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from companion.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_MAX_LINES = 250


def documents() -> list[Path]:
    """README.md, then every docs/*.md, in name order."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def run_examples(paths: list[Path]) -> list[str]:
    """Every ```python block, file by file and in order; the blocks of one file share one
    namespace (a later block may use an earlier one's names), each file a fresh one. Returns
    the lines they printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for path in paths:
            namespace: dict = {"__name__": "__docs__"}
            for block in python_blocks(path.read_text(encoding="utf-8")):
                exec(compile(block, path.name, "exec"), namespace)
    return out.getvalue().splitlines()


# The results the documents' comments promise, line by line.
CLAIMS = ["(2, -1, -1, 0)", "(6, -3, -3, 0) True (0,)", "other 1 2", "(20, 10, 15) 2",
          "2 3 0", "20 -15", "6 6", "rank (True, False, True, True) 0",
          "(0, 1, 'left', 'counter-clockwise')",
                  str(list(GAMES))]  # the docs print the registry: five games, or more where one is added


def test_python_examples_run_and_print_what_they_claim():
    blocks = [block for path in documents() for block in python_blocks(path.read_text(encoding="utf-8"))]
    assert len(blocks) >= 2
    assert len(python_blocks((ROOT / "docs" / "rules-library.md").read_text(encoding="utf-8"))) >= 2
    printed = run_examples(documents())
    for claim in CLAIMS:
        assert claim in printed, claim
    assert any(line.startswith("8 ['7 ×2 → 0 (pair)'") for line in printed)


def test_an_example_that_fails_fails_the_check(tmp_path):
    broken = tmp_path / "broken.md"
    broken.write_text("# Broken\n\n```python\nraise ValueError('an example that no longer runs')\n```\n",
                      encoding="utf-8")
    with pytest.raises(ValueError, match="no longer runs"):
        run_examples([broken])
    second = tmp_path / "second.md"
    second.write_text("```python\nprint(defined_in_another_file)\n```\n", encoding="utf-8")
    first = tmp_path / "first.md"
    first.write_text("```python\ndefined_in_another_file = 1\n```\n", encoding="utf-8")
    with pytest.raises(NameError, match="defined_in_another_file"):  # each file: a namespace of its own
        run_examples([first, second])


# --- links ---------------------------------------------------------------------------------------

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, inline code blanked out."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "``", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text (links and code marks dropped) in lower case,
    punctuation other than hyphens and spaces dropped, spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")  # a repeated heading: -1, -2…
    return found


def broken_links(path: Path) -> list[str]:
    """Each relative link of ``path`` that leads nowhere: a missing file, or a #anchor that is
    no heading of the file it names (the same file for a bare #anchor)."""
    broken = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, flags=re.I) or target.startswith("//"):
                continue  # http:, https:, mailto:: not ours to check
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(f"{target}: no file {linked}")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    return broken


@pytest.mark.parametrize("path", documents(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_a_heading(path):
    assert broken_links(path) == []


def test_the_documents_link_to_one_another():
    assert (ROOT / "docs").is_dir()
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert {"organiser.md", "club-server.md", "trust.md", "rules-library.md", "developing.md"} <= pages
    linked = {Path(target.partition("#")[0]).name for line in prose_lines(README) for target in LINK.findall(line)}
    assert pages <= linked, f"docs pages the README does not link to: {sorted(pages - linked)}"


def test_the_link_checker_finds_what_is_broken(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## Who can change what, and when\n\n"
                                       "```python\n# not a heading\n```\n## Repeated\n## Repeated\n",
                                       encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n## A first night, step by step\n\n"
                    "[ok](other.md) [ok](other.md#who-can-change-what-and-when) [ok](#a-first-night-step-by-step)\n"
                    "[ok](other.md#repeated-1) [ok](https://example.org/missing) ![ok](other.md)\n"
                    "`[in code](nowhere.md)`\n```\n[in a fence](nowhere.md)\n```\n"
                    "[bad](missing.md) [bad](other.md#not-a-heading) [bad](#nothing-here)\n",
                    encoding="utf-8")
    assert broken_links(page) == [f"missing.md: no file {tmp_path / 'missing.md'}",
                                  "other.md#not-a-heading: no heading #not-a-heading in other.md",
                                  "#nothing-here: no heading #nothing-here in page.md"]
    assert slug("Trust: what the laptop promises, and how it is checked") == \
        "trust-what-the-laptop-promises-and-how-it-is-checked"
    assert slug("The rules library: `companion.games`") == "the-rules-library-companiongames"
    assert slug("Seating draws: the costs") == "seating-draws-the-costs"


# --- the README itself ---------------------------------------------------------------------------

def test_readme_stays_short():
    lines = len(README.splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; the rest belongs in docs/"


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one():
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in quick.splitlines() if line.startswith("    ")]
    assert len(commands) == 2
    assert commands[0].split()[-1] == "serve"  # install+serve; tests/test_quickstart.py runs it
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = re.search(r"TEST_CMD='([^']*)'", ci).group(1)
    assert test_cmd == commands[1]
