"""The meetup night's cores (seating, place points, season statistics) are pure: they import
neither storage (sqlite3, companion.store) nor the web stack, so storage and pages can be
rebuilt around them freely."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHECK = """
import sys
import companion.meetup.seating, companion.meetup.points, companion.meetup.season
loaded = sorted(m for m in sys.modules
                if m.partition('.')[0] in {'sqlite3', 'flask', 'jinja2', 'werkzeug', 'gevent'}
                or m.startswith('companion.store') or m in {'companion.tables', 'companion.night'})
print(loaded)
"""


@pytest.mark.slow
def test_the_meetup_modules_import_no_storage_and_no_web_stack():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
