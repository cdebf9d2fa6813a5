"""When the cyclic GC may run in the explorer: between key presses, not during them.

Textual's strips cache results that point back at themselves, so rendering leaves
~1,500 cyclic objects per key press; they outlive the young generations, and a full
pass over the ~100k containers Textual keeps alive costs 50-80 ms. With CPython's
default thresholds that pass landed on a key press every ~3 s (key p95 ~100 ms on
the 936k log). Textual itself pauses the GC while it scrolls (App.PAUSE_GC_ON_SCROLL);
we instead make automatic full passes 10x rarer and run one as soon as input pauses.
"""

from __future__ import annotations

import gc
import time

IDLE_S = 0.4  # no input for this long: a full pass will not delay a key
TICK_S = 0.25
FULL_PASS_EVERY = 100  # generation-1 passes between automatic full passes (CPython's default: 10)


class QuietGC:
    def __init__(self) -> None:
        self.last_input = time.monotonic()
        self.timer = None
        self.idle_passes = 0

    def start(self, app) -> None:
        """Once a log is loaded: freeze what the load built, then collect only when idle."""
        # The scan's facts are millions of long-lived objects: freezing keeps every pass
        # from re-walking them (never disables the GC: harmless if the model froze too).
        gc.freeze()
        t0, t1, t2 = gc.get_threshold()
        gc.set_threshold(t0, t1, max(t2, FULL_PASS_EVERY))
        if self.timer is None:
            self.timer = app.set_interval(TICK_S, self.tick, name="quiet-gc")

    def touch(self) -> None:
        self.last_input = time.monotonic()

    def tick(self) -> None:
        # get_count()[2]: generation-1 passes since the last full pass, i.e. garbage may wait there.
        if gc.isenabled() and gc.get_count()[2] and time.monotonic() - self.last_input >= IDLE_S:
            gc.collect()
            self.idle_passes += 1
