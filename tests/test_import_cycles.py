"""No import cycle inside companion/ (issue 30): each module's imports, read with ``ast``,
form a graph that has no cycle. Relative imports are resolved, imports inside functions
count too (a lazy import hides a cycle, it doesn't remove it), and importing ``a.b.c``
runs ``a/__init__.py`` and ``a/b/__init__.py`` first, so those count as imported as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

# Static reads of the whole source tree (seconds each): the slow tier, which CI runs; the fast
# tier stays under a minute on one core (issue 41).
pytestmark = pytest.mark.slow

PACKAGE = Path(__file__).resolve().parent.parent / "companion"


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, anywhere in its body."""
    here = name if is_package else name.rpartition(".")[0]  # what "." means in this module
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                assert node.level <= len(base), f"{name}: a relative import goes above companion/"
                anchor = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else []))
            else:
                anchor = node.module or ""
            # "from . import x" imports the module x if there is one, else a name of the package.
            targets = [anchor] + [f"{anchor}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            for end in range(1, len(parts) + 1):  # a.b.c runs a and a.b first
                prefix = ".".join(parts[:end])
                # A module's own packages run before it anyway: that is an order, not an import
                # it makes (a package importing its own submodule is no cycle by itself).
                if prefix in known and prefix != name and not name.startswith(prefix + "."):
                    found.add(prefix)
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    paths = sorted(root.rglob("*.py"))
    names = {module_name(p, root): p for p in paths}
    known = set(names)
    graph = {}
    for name, path in names.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[name] = imported(tree, name, path.name == "__init__.py", known)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), as a cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [cycle_through(graph, group) for group in groups]


def cycle_through(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """One cycle inside a strongly connected group: start → … → start, by breadth-first search."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & members):
                if nxt == start:
                    path = [node]  # back from the last step to the start
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return path[::-1] + [start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    return group


def test_companion_has_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "import cycles in companion/:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_check_finds_a_cycle_and_names_it(tmp_path):
    """The check itself can fail: a package whose two modules import each other, one of them
    only inside a function and relatively, is reported with both names."""
    package = tmp_path / "companion"
    (package / "web").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "web" / "__init__.py").write_text("from . import pages\n")
    (package / "web" / "pages.py").write_text("def later():\n    from ..serving import answer\n")
    (package / "serving.py").write_text("from .web.pages import later\n")
    (package / "alone.py").write_text("import companion.serving\n")
    assert cycles(import_graph(package)) == [["companion.serving", "companion.web.pages", "companion.serving"]]


@pytest.mark.parametrize("source, expected", [
    ("from . import service", {"companion.tables.service"}),
    ("from .. import lru", {"companion.lru"}),
    ("from ..store import tables as table_rows", {"companion.store", "companion.store.tables"}),
    ("import companion.games.text", {"companion.games", "companion.games.text"}),
    ("def f():\n    from ..web.language import pick", {"companion.web", "companion.web.language"}),
])
def test_relative_and_nested_imports_are_resolved(source, expected):
    known = {"companion", "companion.tables", "companion.tables.service", "companion.lru", "companion.store",
             "companion.store.tables", "companion.games", "companion.games.text", "companion.web",
             "companion.web.language"}
    assert imported(ast.parse(source), "companion.tables.views", False, known) == expected
