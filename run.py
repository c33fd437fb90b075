#!/usr/bin/env python3
"""From a fresh clone to a running companion in one command, on any Python 3.11+:

    python3 run.py serve          (Windows: py run.py serve)
    python3 run.py test           (Windows: py run.py test)

The first time (and whenever pyproject.toml changes) it makes a virtualenv in .venv beside
this file and installs Table Companion into it; then it runs `companion ARGS...` from there
(`test` runs pytest, with the test extra installed). The Python you start it with is never
installed into, so Debian's, Ubuntu's and Homebrew's "externally-managed-environment"
refusal (PEP 668) never comes up. Scores live in your data folder, not in .venv: deleting
.venv loses nothing.

Standard library only, and nothing Python 2.7 or 3.5 can't parse, so an old Python still
gets a clear message instead of a SyntaxError.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
STAMP = os.path.join(VENV, "table-companion-install.json")  # what was installed, from which pyproject
USAGE = """usage: python3 run.py COMMAND [ARGS...]   (Windows: py run.py COMMAND [ARGS...])

  serve [--open] [--port N] ...   run the companion for the table's phones
  test [PYTEST ARGS...]           install the test extra and run the test suite
  backup PATH                     copy the scores to PATH, safely while serving
  --version                       the version (any other `companion` command works too)

The first run makes .venv here and installs everything into it (needs the internet)."""


def say(message):
    sys.stdout.write("run.py: %s\n" % message)
    sys.stdout.flush()


def fail(message):
    sys.stderr.write("run.py: %s\n" % message)  # no print(): Python 2 must get this far too
    sys.exit(1)


def venv_python():
    if os.name == "nt":
        return os.path.join(VENV, "Scripts", "python.exe")
    return os.path.join(VENV, "bin", "python")


def check_this_python():
    if sys.version_info < (3, 11):
        fail("Table Companion needs Python 3.11 or newer; this is %s (%s).\n"
             "Install a newer one (python.org on Windows and macOS, `brew install python` with Homebrew, "
             "your package manager on Linux) and run this command with it."
             % (sys.version.split()[0], sys.executable))
    try:
        import sqlite3  # noqa: F401
    except ImportError:
        fail("this Python (%s) was built without sqlite3, which stores the scores. With pyenv: install "
             "the SQLite headers (Debian/Ubuntu: libsqlite3-dev, Fedora: sqlite-devel) and "
             "`pyenv install` that version again." % sys.executable)


def venv_works():
    if not os.path.isfile(venv_python()):
        return False
    try:  # a Python upgrade (Homebrew, pyenv) can leave a virtualenv pointing at nothing
        return subprocess.run([venv_python(), "-c", "import sys"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def make_venv():
    say("making a virtualenv in %s (first run only)" % VENV)
    made = subprocess.run([sys.executable, "-m", "venv", "--clear", VENV],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if made.returncode != 0 or not venv_works():
        shutil.rmtree(VENV, ignore_errors=True)  # never leave a half-made one for the next run
        hint = ""
        if "ensurepip" in made.stdout:
            hint = ("\nOn Debian and Ubuntu the venv module comes separately: "
                    "sudo apt install python3-venv\nthen run this command again.")
        fail("could not make a virtualenv with %s:\n%s%s" % (sys.executable, made.stdout.strip(), hint))


def wanted_install(extras):
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return {"pyproject": hashlib.sha256(fh.read()).hexdigest(), "extras": extras}


def installed():
    try:
        with open(STAMP, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def install(extras):
    """Install (editable, so a `git pull` takes effect at once) unless .venv already has
    this pyproject.toml's dependencies; the test extra covers plain serving too."""
    want, have = wanted_install(extras), installed()
    if have and have.get("pyproject") == want["pyproject"] and extras in ("", have.get("extras")):
        return
    what = "Table Companion and its test tools" if extras else "Table Companion"
    say("installing %s into .venv (a minute or two the first time; needs the internet)" % what)
    target = ROOT + ("[%s]" % extras if extras else "")
    done = subprocess.run([venv_python(), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "--editable", target])
    if done.returncode != 0:
        fail("installing failed (pip's message is above). Check the internet connection and run this again.")
    with open(STAMP, "w", encoding="utf-8") as fh:
        json.dump(want, fh)


def run(command):
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "nt":
        os.execv(command[0], command)  # the server gets Ctrl+C and SIGTERM directly
    child = subprocess.Popen(command)
    while True:
        try:
            sys.exit(child.wait())
        except KeyboardInterrupt:  # Ctrl+C reached the child too: let it stop cleanly
            continue


def parallel(pytest_args):
    """pytest-xdist options for `test`: one worker per CPU this process may use, at most four
    (each browser-test worker drives a Chromium of its own), none on a single CPU; nothing when
    the arguments choose for themselves (-n, --numprocesses, --dist, -p no:xdist)."""
    for arg in pytest_args:
        if arg.startswith(("-n", "--numprocesses", "--dist")) or arg in ("no:xdist", "-pno:xdist"):
            return []
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # Windows, macOS
        cpus = os.cpu_count() or 1
    if cpus < 2:
        return []
    # loadgroup: tests go to whichever worker is free, except those marked
    # @pytest.mark.xdist_group(name), which share one worker.
    return ["-n", str(min(cpus, 4)), "--dist", "loadgroup"]


def main(args):
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else 2
    check_this_python()
    if not venv_works():
        make_venv()
    if args[0] == "test":
        install("test")
        os.chdir(ROOT)  # pytest finds its settings and tests/ from here
        run([venv_python(), "-m", "pytest"] + parallel(args[1:]) + args[1:])
    install("")
    # The commands companion suggests (e.g. "backup FILE") are then ones that work here.
    os.environ["COMPANION_COMMAND"] = ("py" if os.name == "nt" else "python3") + " run.py"
    run([venv_python(), "-m", "companion.cli"] + args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
