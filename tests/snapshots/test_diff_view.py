"""SVG snapshots of the diff view (`dsh-tui diff A B`) on a run and its re-run dsh's writer wrote
(tests/parity/diff-cases): side by side at 160x45, stacked at 80x24, the cursor on the first divergence
(the planted arguments) and the detail showing the two arguments as a diff."""

from __future__ import annotations

import pytest

from ..support.diffs import diff_app
from .test_snapshots import SIZES

pytestmark = pytest.mark.usefixtures("isolated_xdg")


@pytest.mark.parametrize("size", SIZES)
def test_diff_side_by_side(snap_compare, size):
    async def run_before(pilot) -> None:
        await pilot.pause()

    assert snap_compare(diff_app("args"), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_diff_next_difference_in_a_fork(snap_compare, size):
    """A fork against its source: the inherited turn shown once (=), then n to the next difference."""
    from dsh_tui.ui.diffapp import DiffApp

    from ..support.diffs import DIFF_CASES, built
    result, left, right = built(DIFF_CASES / "fork-src" / "session.jsonl.zstd",
                                DIFF_CASES / "fork-child" / "session.jsonl.zstd")
    app = DiffApp(result, left[0], right[0], native_clipboard=False)
    app.theme = "textual-dark"

    async def run_before(pilot) -> None:
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before, press=["g", "n"])
