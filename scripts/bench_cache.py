"""Cold open vs warm open from the index cache, in process, best of N (the cache's speed target:
warm <= 25% of cold on the 936k-event log).

    .venv/bin/python scripts/bench_cache.py [LOG] [--runs N]

Cold is `open_target` with `OpenOptions(use_cache=False)`; warm is `open_target` served from an entry written
once before, in a fresh temporary XDG_CACHE_HOME. Also prints the time to write the entry, to
hash the file (part of every warm open) and the entry's size.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

BIG = Path(__file__).resolve().parents[2] / "shared" / "dsh-logs" / "large" / "big-936k-events__session.jsonl.zstd"


def _best(fn, runs: int):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", nargs="?", default=str(BIG))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dsh-tui-bench-cache") as home:
        os.environ["XDG_CACHE_HOME"] = home
        os.environ.pop("DSH_TUI_NO_CACHE", None)
        from dsh_tui.model.opening import cache
        from dsh_tui.model.opening.open import save_to_cache
        from dsh_tui.model.opening.target import OpenOptions, open_target
        cold, _ = _best(lambda: open_target(args.log, OpenOptions(use_cache=False, write_cache=False)), args.runs)
        log, diag = open_target(args.log, OpenOptions(use_cache=False, write_cache=False))
        start = time.perf_counter()
        save_to_cache(log, diag)
        save = time.perf_counter() - start
        warm, (cached, _diag) = _best(lambda: open_target(args.log), args.runs)
        if not cached.from_cache:
            raise SystemExit(f"not served from the cache: {cache.notice() or 'no entry written'}")
        hashed, _ = _best(lambda: cache.file_key(Path(args.log)), args.runs)
        size = cache.entry_path(Path(args.log)).stat().st_size
    print(f"cold {cold * 1000:.1f} ms, warm {warm * 1000:.1f} ms ({warm / cold:.1%} of cold); "
          f"writing the entry {save * 1000:.1f} ms, hashing the file {hashed * 1000:.1f} ms; entry {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
