"""Every program the suite starts has its Debian package in .ci/run's install list (issue 40).

A test that starts `pdfinfo` passed for months on machines that had poppler-utils by hand, and
failed on the first fresh one. This reads the source (tests, run.py, the benchmarks, the
companion itself) for the programs it starts, and .ci/run for what it installs: a program
with no package there fails here, on any machine."""

from __future__ import annotations

import ast
import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CI_RUN = ROOT / ".ci" / "run"
SOURCES = [*ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/*.py"), *ROOT.glob("companion/**/*.py"), ROOT / "run.py"]

# What starts a program: subprocess.run(["pdfinfo", ...]), shutil.which("node"), self._run("initdb", ...),
# postgres.program("pg_dump"); the first argument (a string, or a list whose first item is one)
# names the program.
STARTERS = {"subprocess": {"run", "Popen", "check_output", "check_call", "call"}, "shutil": {"which"},
            "os": {"execv", "execvp"}, "self": {"_run"}, None: {"program"}}
# Programs no Debian package of .ci/run's brings, and why.
NOT_DEBIANS = {"python3": "the Python that runs the suite", "companion": "ours, in .venv",
               "py-spy": "bench/load.py --py-spy only, from PyPI"}


def installs() -> dict[str, str]:
    """.ci/run's PROGRAMS table: program -> Debian package."""
    table = re.search(r"^PROGRAMS='\n(.*?)^'", CI_RUN.read_text(encoding="utf-8"), flags=re.S | re.M)
    assert table, ".ci/run has no PROGRAMS='...' table"
    return dict(line.split() for line in table.group(1).splitlines() if line.strip())


def first_string(node: ast.AST) -> str | None:
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        node = node.elts[0]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def started_in(source: str) -> set[str]:
    """Programs a Python file starts: by name in a call that starts one, or by Debian path."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            if isinstance(node.func, ast.Attribute):
                owner, name = getattr(node.func.value, "id", ""), node.func.attr
            else:
                owner, name = None, getattr(node.func, "id", "")
            program = first_string(node.args[0]) if name in STARTERS.get(owner, ()) else None
            if program and re.fullmatch(r"[\w.+-]+", program):
                found.add(program)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(re.findall(r"(?<![\w/])/usr/bin/([\w.+-]+)\b", node.value))
    return found - set(NOT_DEBIANS)


def started_by_the_suite() -> dict[str, list[str]]:
    """program -> the files that start it."""
    where: dict[str, list[str]] = {}
    for path in SOURCES:
        for program in started_in(path.read_text(encoding="utf-8")):
            where.setdefault(program, []).append(str(path.relative_to(ROOT)))
    return where


@pytest.mark.slow  # reads the whole suite's source: 1.6 s (the fast tier's minute, issue 41)
def test_every_program_the_suite_starts_has_its_package_in_ci_run():
    started, table = started_by_the_suite(), installs()
    # The reader finds what it must (it would pass vacuously if it found nothing).
    assert {"pdfinfo", "chromium", "node", "initdb", "pg_ctl", "pg_dump", "git", "fc-list"} <= set(started), sorted(started)
    missing = {program: files for program, files in started.items() if program not in table}
    assert not missing, f"started by the suite, with no Debian package in .ci/run's PROGRAMS: {missing}"


def test_the_reader_finds_each_way_a_program_is_started():
    source = '''
import shutil, subprocess
subprocess.run(["pdfinfo", path], check=True)
subprocess.Popen(["nginx", "-c", conf])
shutil.which("pdftoppm")
self._run("initdb", "-D", data)
program("pg_restore")
launch(executable_path="/usr/bin/chromium")
subprocess.run([sys.executable, "-c", "pass"])
subprocess.run(["python3", "-V"])
'''
    assert started_in(source) == {"pdfinfo", "nginx", "pdftoppm", "initdb", "pg_restore", "chromium"}


def test_ci_run_installs_each_package_it_lists():
    """The table is what .ci/run installs from, not a comment beside another list."""
    script = CI_RUN.read_text(encoding="utf-8")
    assert re.search(r'for package in \$\(printf .*"\$PROGRAMS" \| awk', script)
    assert "apt-get install -y $missing" in script


def debian_path(program: str) -> str | None:
    """Where Debian's package puts `program` (never pyenv's or /usr/local's)."""
    candidates = [*sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{program}"), reverse=True),
                  *(f"{d}/{program}" for d in ("/usr/bin", "/bin", "/usr/sbin", "/sbin"))]
    return next((c for c in candidates if os.access(c, os.X_OK)), None)


def owning_package(path: str) -> str | None:
    # Debian 12 packages some programs under /bin and others under /usr/bin (merged /usr): try both.
    for candidate in (path, re.sub(r"^/usr(/s?bin/)", r"\1", path), re.sub(r"^(/s?bin/)", r"/usr\1", path)):
        found = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.split(":")[0].strip()
    return None


def depends(package: str, levels: int = 3) -> set[str]:
    """What `package` brings with it, a few levels down (postgresql -> postgresql-15 -> its client)."""
    shown = subprocess.run(["dpkg-query", "-W", "-f=${Depends}", package], capture_output=True, text=True)
    direct = {re.split(r"[\s(:]", alt.strip())[0] for dep in shown.stdout.split(",") for alt in dep.split("|")
              if alt.strip()}
    return direct.union(*(depends(d, levels - 1) for d in direct)) if levels > 1 else direct


@pytest.mark.slow  # asks dpkg of each program and package: 3 s
@pytest.mark.skipif(shutil.which("dpkg") is None, reason="not a Debian machine")
def test_each_listed_package_brings_its_program():
    """On a machine where .ci/run has run (CI: all of them), each program is where its package
    puts it, and that package (or the one it names, as postgresql names postgresql-15) owns it."""
    wrong = []
    for program, package in installs().items():
        path = debian_path(program)
        if path is None:
            if os.environ.get("CI") == "true":
                wrong.append(f"{program}: not installed, though .ci/run installs {package}")
            continue
        got = owning_package(path)
        if got != package and got not in depends(package):
            wrong.append(f"{program}: {path} belongs to {got}, not to {package} (nor to what it depends on)")
    assert not wrong, "\n".join(wrong)
