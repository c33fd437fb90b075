"""How fast one device may open new tables (issue 23, item 4).

One device made 15,946 tables in 20 s; the hall board then took 2.6 s to render. A table is
opened a few times an evening per phone, so each device (its source address) gets a token
bucket: ``burst`` tables at once (a group trying games, a laptop opening a few), then one every
``every`` seconds. Past that the new-table form answers 429 with Retry-After and says so next
to the button, with everything typed kept. Counted on the monotonic clock (a jump of the
laptop's wall clock neither blocks nor frees anyone); bounded in memory (the devices seen
longest ago are forgotten first, and a forgotten device starts with a full bucket, which is
what a full bucket would be by then anyway for all but a flood of addresses).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict

BURST = 10  # tables a device may open at once
EVERY_S = 3.0  # then one every this many seconds
MAX_DEVICES = 4096


class CreationLimit:
    def __init__(self, burst: int = BURST, every: float = EVERY_S, max_devices: int = MAX_DEVICES,
                 clock=time.monotonic):
        self.burst, self.every, self.max_devices, self.clock = burst, every, max_devices, clock
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # device -> (tokens, as of)
        self.lock = threading.Lock()
        self.refused = 0

    def take(self, device: str) -> int:
        """One table for ``device``: 0 if it may open it now (and it is counted), else the
        whole seconds to wait before it may (nothing counted)."""
        now = self.clock()
        with self.lock:
            tokens, since = self.buckets.pop(device, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + max(0.0, now - since) / self.every)
            if tokens >= 1.0:
                self.buckets[device] = (tokens - 1.0, now)
                wait = 0
            else:
                self.buckets[device] = (tokens, now)
                wait = max(1, math.ceil((1.0 - tokens) * self.every))
                self.refused += 1
            while len(self.buckets) > self.max_devices:
                self.buckets.popitem(last=False)
        return wait


    def give_back(self, device: str) -> None:
        """The table taken for was not opened (the form was refused): it doesn't count."""
        with self.lock:
            found = self.buckets.get(device)
            if found is not None:
                self.buckets[device] = (min(float(self.burst), found[0] + 1.0), found[1])


def creation_limit(app) -> CreationLimit:
    """The app's limiter (made on first use, from CREATION_BURST and CREATION_EVERY_S if set)."""
    found = app.extensions.get("creation_limit")
    if found is None:
        found = app.extensions["creation_limit"] = CreationLimit(app.config.get("CREATION_BURST", BURST),
                                                                 app.config.get("CREATION_EVERY_S", EVERY_S))
    return found
