"""The phone's scripts' own tests (tests/js/, Node's built-in runner): the outbox's rules
(static/outbox_queue.js) and the phone's storage (static/drafts.js), without a browser.

Node missing skips this on a developer's machine, but fails it under CI (CI=true), where .ci/run
installs Debian's nodejs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_phone_scripts_pass_their_node_tests():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing under CI (.ci/run installs Debian's nodejs)", pytrace=False)
        pytest.skip("node is not installed (apt-get install nodejs): tests/js/ not run")
    result = subprocess.run([node, "--test", "tests/js/"], cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=120, env={**os.environ, "NODE_OPTIONS": ""})
    if result.returncode != 0:
        pytest.fail(f"node --test tests/js/ failed:\n{result.stdout}\n{result.stderr}", pytrace=False)
    assert "# pass " in result.stdout and "# fail 0" in result.stdout, result.stdout
