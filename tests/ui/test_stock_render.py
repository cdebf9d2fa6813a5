"""The UI suite passes with the stock render too: Textual's own Screen, ScrollBar and Footer (ui/compat).

It runs ``pytest tests/ui tests/snapshots -m "not stock"`` in a child with DSH_TUI_STOCK_RENDER=1,
so it adds the UI suite's time again (~5.5 min in one process, ~half of it waiting on the app);
the child runs two xdist workers of its own, so that wait overlaps. ``-m "not stock"`` leaves it out.
The tests that measure the fast render's own internals skip there, each with its reason
(tests/ui/conftest.py, tests/snapshots/conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsh_tui.ui import compat
from dsh_tui.ui.compat.mode import ENV

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.stock
@pytest.mark.skipif(not compat.FAST, reason=f"this run is the stock render already ({compat.mode_note})")
def test_the_ui_suite_passes_with_the_stock_render():
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-m", "not stock",
                          "-n", "2", "--dist", "worksteal", "tests/ui", "tests/snapshots"],
                         cwd=ROOT, env={**os.environ, ENV: "1"}, capture_output=True, text=True, timeout=1800)
    tail = "\n".join((run.stdout + run.stderr).splitlines()[-60:])
    assert run.returncode == 0, tail
    assert "the fast render only" in run.stdout, "the child did not run in the stock render:\n" + tail
