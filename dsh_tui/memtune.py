"""Keep glibc's malloc from holding freed memory while a big log is decoded (`before_big_decode`).

glibc serves a large block from its own mapping and returns it on free, but after the first such
free it raises that threshold (up to 32 MiB) and serves the next ones from the heap, where they
leave holes that stay resident: on a 10M-event log the holes held ~25-30 MiB of `check`'s peak RSS.
A fixed threshold (``M_MMAP_THRESHOLD``, which also turns the raising off) keeps every block past it
in its own mapping. It is 256 KiB, not glibc's initial 128: zstd's output buffer for each frame is
just over 128 KiB, and at 128 each of a big log's tens of thousands of frames cost an mmap, a munmap
and the page faults of a fresh mapping. The decode's chunks stay below it too (source.DECODE_CHUNK):
with both, a pinned `check` of the 936k log spends 0.05-0.07 s in the kernel, not 0.13-0.20 s (five
runs each of 76efcc3 and 7414e9b), at the same peak.

The explorer reads a log in a worker thread, which glibc gives an arena of its own: what the read
frees there is not reused by the main thread's allocations. One arena for all threads
(``M_ARENA_MAX``) kept its PSS after the load ~4 MiB lower on the 10M-event log (201 against 205
MiB, three runs each); `check` reads in one thread and is not moved by it. Anywhere but glibc this
does nothing.
"""

from __future__ import annotations

import os
import sys

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
M_ARENA_MAX = -8
MMAP_THRESHOLD = 256 * 1024  # above zstd's per-frame output buffer (128 KiB and a few bytes)
BIG_FILE = 4 << 20  # below this the decode frees too little for it to matter (and ctypes costs ~7 ms)
_done = False


def before_big_decode(path) -> None:
    """Fix the threshold once, if ``path`` is a file big enough to pay for it (before any helper forks,
    so it inherits the setting). Best effort: any failure leaves malloc as it was."""
    global _done
    if _done or not sys.platform.startswith("linux"):
        return
    try:
        if os.stat(path).st_size < BIG_FILE:
            return
        import ctypes
        libc = ctypes.CDLL(None)
        mallopt = getattr(libc, "mallopt", None)
        if mallopt is not None and getattr(libc, "gnu_get_libc_version", None) is not None:
            mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
            mallopt(M_ARENA_MAX, 1)  # (before any thread is started: the caller's first read)
        _done = True
    except (OSError, ValueError, TypeError, AttributeError, ImportError):
        pass
