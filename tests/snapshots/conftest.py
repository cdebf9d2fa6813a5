"""The snapshot modules' shared fixture: the explorer on the demo log, deterministic for a screenshot
(a fixture here, not imported from a test module: an imported fixture reads as an unused name)."""

from __future__ import annotations

import pytest

from dsh_tui.demo import write_demo
from dsh_tui.ui.app import ExplorerApp


@pytest.fixture
def demo_app(tmp_path) -> ExplorerApp:
    path = write_demo(tmp_path / "demo-session.jsonl.zstd")
    app = ExplorerApp(path, native_clipboard=False, detail_delay=0.01)
    app.theme = "textual-dark"
    return app
