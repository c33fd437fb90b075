"""The README's promises: its Python examples run, and CI runs its test command."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_python_examples_run_and_print_what_they_claim():
    blocks = python_blocks()
    assert len(blocks) >= 2
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "README.md", "exec"), {})
    printed = out.getvalue().splitlines()
    # The results the README's comments promise, line by line.
    for claim in ["(2, -1, -1, 0)", "(6, -3, -3, 0) True (0,)", "other 1 2", "(20, 10, 15) 2",
                  "2 3 0", "20 -15", "6 6", "rank (True, False, True, True) 0",
                  "(0, 1, 'left', 'counter-clockwise')", "['rwd', 'miraiscope', 'lucky_cube', 'pair_quad', 'twin_shoot']"]:
        assert claim in printed, claim
    assert any(line.startswith("8 ['7 ×2 → 0 (pair)'") for line in printed)


def test_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one():
    quick = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in quick.splitlines() if line.startswith("    ")]
    assert len(commands) == 2
    assert commands[0].split()[-1] == "serve"  # install+serve; tests/test_quickstart.py runs it
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = re.search(r"TEST_CMD='([^']*)'", ci).group(1)
    assert test_cmd == commands[1]
