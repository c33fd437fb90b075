"""The phone the browser benchmarks drive: Debian's Chromium through Playwright, headless, at a
390 px phone's viewport (the same settings as tests/browser/conftest.py)."""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PHONE = dict(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
             has_touch=True, locale="en-US")
