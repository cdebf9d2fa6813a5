"""Fast render or stock render: decided once, from the installed Textual's version and the environment.

The fast render overrides Textual internals that may change in any release; it was written and
tested for the versions in TESTED (tests/ui/test_stock_render.py runs the UI suite in both modes).
Outside them, or with DSH_TUI_STOCK_RENDER=1, Textual's stock classes are used: the same screens,
slower. DSH_TUI_STOCK_RENDER=0 uses the overrides whatever the version: to try them on a newer
Textual before widening TESTED. Nothing is printed: the alternate screen would wipe a line written
at start-up, and a slower key is the cost of not risking wrong pixels; the README says how to
see the mode (``mode_note``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ENV = "DSH_TUI_STOCK_RENDER"
TESTED = ((8, 2), (8, 3))  # 8.2.x: the release the suite runs on (pyproject pins >=8.2,<9)


def textual_version() -> str:
    """The installed Textual's version, read from its dist-info's name: importlib.metadata costs
    ~35 ms of start-up to import, so it is asked only when that folder is not found (a source tree)."""
    import textual

    site = Path(textual.__file__).resolve().parent.parent
    found = [p.name for p in site.glob("textual-*.dist-info")]
    if len(found) == 1:
        return found[0][len("textual-"):-len(".dist-info")]
    from importlib.metadata import version

    return version("textual")


def release(version: str) -> tuple[int, int] | None:
    """(major, minor) of a version string, None when it does not start with them."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


def tested_range() -> str:
    (a, b), (c, d) = TESTED
    return f"{a}.{b}.x" if (a, b) == (c, d - 1) else f"{a}.{b} to {c}.{d - 1}.x"


def decide(version: str, environ) -> tuple[bool, str]:
    """(fast, why) for a Textual ``version`` and an environment."""
    asked = environ.get(ENV, "")
    if asked not in ("", "0"):
        return False, f"stock render: {ENV} is set"
    low, high = TESTED
    at = release(version)
    if at is None or not low <= at < high:
        if asked == "0":
            return True, f"fast render on an untested Textual {version}: {ENV}=0"
        return False, f"stock render: Textual {version} is not {tested_range()}, which the fast render was tested on"
    return True, f"fast render (Textual {version})"


FAST, mode_note = decide(textual_version(), os.environ)
