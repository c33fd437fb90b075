"""Architecture: companion/store/ owns every SQL statement and the only sqlite3 import
(issue 21). Nothing else in companion/ names sqlite3 or runs SQL."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
import pytest

# Static reads of the whole source tree (seconds each): the slow tier, which CI runs; the fast
# tier stays under a minute on one core (issue 41).
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "companion"
STORE = PACKAGE / "store"


def outside_store() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if STORE not in p.parents)


def test_the_grep_finds_no_sqlite3_or_execute_outside_the_store():
    # The issue's own check: grep -rn "sqlite3\|execute(" companion --include=*.py | grep -v companion/store/
    result = subprocess.run(["grep", "-rn", r"sqlite3\|execute(", "companion", "--include=*.py"],
                            cwd=REPO, capture_output=True, text=True)
    found = [line for line in result.stdout.splitlines() if not line.startswith("companion/store/")]
    assert found == []


def test_nothing_outside_the_store_imports_sqlite3():
    offenders = []
    for path in outside_store():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name == "sqlite3" or name.startswith("sqlite3.") for name in names):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


SQL = re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX)|PRAGMA)\b")


def test_no_sql_text_outside_the_store():
    offenders = []
    for path in outside_store():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value[:60]!r}")
    assert offenders == []


def test_the_store_is_where_the_sql_is():
    # The check above must be able to fail: the store itself is full of it.
    hits = [p for p in STORE.rglob("*.py") if SQL.search(p.read_text(encoding="utf-8"))]
    assert {p.name for p in hits} >= {"tables.py", "nights.py", "schema.py"}
