"""With the stock render (DSH_TUI_STOCK_RENDER=1: ui/compat), the tests of the fast render's own internals skip.

Such a test is marked ``fast_render(why)``; those in modules owned elsewhere are named in FAST_ONLY.
tests/ui/test_stock_render.py runs this suite in that mode.
"""

from __future__ import annotations

import pytest

from dsh_tui.ui import compat

REPAINTS = "it counts the regions each frame repaints; the stock Screen repaints the whole screen on a focus change"
FAST_ONLY = {
    "test_cmdline.py::test_goto_prompt_is_docked_not_modal_and_escape_cancels":
        "'nothing moves' is read off the widgets' identities, and the stock Footer rebuilds its keys (the same, "
        "in the same place) on each focus change",
    "test_cmdline.py::test_opening_typing_and_cancelling_the_prompt_repaint_only_the_bottom_line": REPAINTS,
    "test_count.py::test_typing_a_count_repaints_only_the_bottom_line": REPAINTS,
}


def pytest_collection_modifyitems(config, items):
    if compat.FAST:
        return
    for item in items:
        marker = item.get_closest_marker("fast_render")
        why = marker.args[0] if marker else FAST_ONLY.get(f"{item.path.name}::{getattr(item, 'originalname', '')}")
        if why:
            item.add_marker(pytest.mark.skip(reason=f"the fast render only: {why}"))


@pytest.fixture(autouse=True)
def _own_xdg_dirs(isolated_xdg):
    """Every UI test under its own XDG dirs: the explorer saves views, reports and its index cache there."""
    return isolated_xdg
