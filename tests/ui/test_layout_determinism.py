"""Layout must not depend on how fast the log loads (the cause of flaky 80x24 snapshots).

The header's lines are cut to the panel width at render time. Its height used
to be measured by rendering it, so when the log was read before the panel's
first layout (the UI thread slowed by a busy machine, the loader not) the
width was still 0: nothing was cut, the long lines wrapped and the panel got 7
rows instead of 5, with 2 blank ones, until some later relayout. The height
must be the number of lines whatever width the panel has at that moment.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Size

from dsh_tui.demo import write_demo
from dsh_tui.model.opening.target import open_target
from dsh_tui.ui.widgets.header import HeaderPanel


class _One(App):
    def __init__(self, panel: HeaderPanel) -> None:
        super().__init__()
        self.panel = panel

    def compose(self) -> ComposeResult:
        yield self.panel


async def test_header_height_does_not_depend_on_whether_it_was_laid_out(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = write_demo(tmp_path / "demo-session.jsonl.zstd")
    log, diag = open_target(path)
    shown = HeaderPanel(id="header")
    shown.show_loading(path)
    async with _One(shown).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown.show_log(log, diag, path)  # the slow path: the log arrives after the first layout
        await pilot.pause()
        lines = shown.render().plain.split("\n")
        assert shown.size.height == len(lines) == 5 and all(len(x) <= 80 for x in lines)
        fresh = HeaderPanel()  # the fast path: the log arrived before the panel was ever laid out
        fresh.show_log(log, diag, path)
        assert fresh.size.width == 0
        screen = Size(80, 24)
        assert fresh.get_content_height(screen, screen, 78) == shown.size.height
