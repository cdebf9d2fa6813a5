"""The explorer says once why the index cache is off (a directory others may write)."""

from __future__ import annotations

from dsh_tui.model.opening import cache
from dsh_tui.ui.app import ExplorerApp

from ..support.logs import crash_records


async def test_the_explorer_says_the_cache_is_off(write_jsonl, tmp_path, monkeypatch):
    cache_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    path = write_jsonl(crash_records())
    cache.entry_path(path).parent.mkdir(parents=True)
    cache.entry_path(path).write_bytes(b"planted")  # an entry to look at, in a directory others may write
    (cache_home / "dsh-tui").chmod(0o777)
    cache._refused.clear()
    app = ExplorerApp(path, native_clipboard=False)
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if app.load_finished:
                break
        await pilot.pause(0.1)
        toasts = [str(w.render()) for w in app.screen.query("*") if type(w).__name__ == "Toast"]
        assert sum("index cache off" in t for t in toasts) == 1, toasts
        assert app.diag.verdict.call_id == "call_a"  # the fresh read's verdict
