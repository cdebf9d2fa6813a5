"""One str object per distinct tool name (or turn-end reason).

A big log repeats a few tool names ~100k times, each parsed into a str of its own; the pairing's and
the timing's records keep one each. Interned, they share one: what is kept is a pointer.
"""

from __future__ import annotations

from sys import intern
from typing import Any


def shared_name(v: Any) -> Any:
    """``v`` interned if it is a str (equal, and the same object as every equal name), else as it is."""
    return intern(v) if type(v) is str else v
