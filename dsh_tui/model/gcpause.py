"""Pause the cyclic garbage collector while building big, acyclic structures.

Indexing a large log allocates millions of long-lived objects; each GC pass
re-scans all of them (measured: 36.7 s vs 23.2 s for `check` on 10M events).
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator


_lock = threading.Lock()
_depth = 0  # pauses in progress, in any thread
_restore = False  # whether the collector was on before the first pause


@contextmanager
def gc_paused() -> Iterator[None]:
    global _depth, _restore
    with _lock:
        if _depth == 0:
            _restore = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:  # nested or concurrent pauses: only the last one out re-enables
            _depth -= 1
            if _depth == 0 and _restore:
                gc.enable()
