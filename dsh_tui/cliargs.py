"""Options shared by the commands (`check`, the explorer, `scan`, ...): one definition, so every
command reads a size and the cache switch the same way (and no command module imports another)."""

from __future__ import annotations

import argparse
import math

MAX_SIZE = 2**63 - 1  # a size must fit the 64-bit counts the readers compare it with


def size(text: str) -> int:
    """A finite, positive byte count (``512M``, ``4G``, ``1.5g``); anything else is a usage error."""
    units = {"k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
    t = text.strip().lower().rstrip("ib").rstrip("b")
    mult = units.get(t[-1:], 1)
    num = t[:-1] if t[-1:] in units else t
    try:
        number = float(num) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text[:40]!r} (e.g. 512M, 4G)") from None
    if not math.isfinite(number):  # inf, nan, 1e400 (a float's inf)
        raise argparse.ArgumentTypeError(f"not a finite size: {text[:40]!r} (e.g. 512M, 4G)")
    if number > MAX_SIZE:
        raise argparse.ArgumentTypeError(f"size too large: {text[:40]!r} (at most {MAX_SIZE:,} bytes)")
    value = int(number)
    if value <= 0:
        raise argparse.ArgumentTypeError("size must be positive")
    return value


def common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lenient", action="store_true",
                   help="read a log dsh would reject (e.g. no delegationDepth); every output is marked UNVERIFIED")
    p.add_argument("--max-plain-size", type=size, default=None, metavar="SIZE",
                   help="refuse logs that decompress past SIZE (default: 4G, or a quarter of the machine's memory if less; env DSH_TUI_MAX_PLAIN_BYTES)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the index cache ($XDG_CACHE_HOME/dsh-tui/index; env DSH_TUI_NO_CACHE)")
