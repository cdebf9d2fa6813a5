"""Forked calls: the early tail look and the tail segment run in a child and never leave one behind."""

from __future__ import annotations

import os
import time

import pytest

from dsh_tui.demo import write_demo
from dsh_tui.model.reading import forked
from dsh_tui.model.reading.forked import ForkedCall
from dsh_tui.model.reading.tail import start_tail_probe, tail_verdict

from ..support.logs import no_children

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _boom() -> None:
    raise RuntimeError("child failed")


def _in_child() -> bool:
    return forked._in_child


def test_only_a_forked_child_knows_it_is_one():
    assert ForkedCall(_in_child).collect() is True
    assert _in_child() is False


def test_result_comes_back_and_the_child_is_reaped(tmp_path):
    log = write_demo(tmp_path / "demo.jsonl.zstd")
    call = ForkedCall(tail_verdict, log)
    assert call.collect() == tail_verdict(log)
    assert call.status == 0 and no_children()


def test_a_failing_or_stuck_child_gives_none():
    assert ForkedCall(_boom).collect() is None and no_children()
    stuck = ForkedCall(time.sleep, 3600)
    assert not stuck.ready()
    assert stuck.collect(patience=0.2) is None and no_children()


def test_probe_only_for_regular_files(tmp_path):
    assert start_tail_probe(tmp_path) is None  # a directory
    probe = start_tail_probe(write_demo(tmp_path / "demo.jsonl.zstd"))
    assert probe is not None or len(os.sched_getaffinity(0)) < 2
    if probe is not None:
        probe.close()
        assert no_children()


@pytest.fixture
def provisional(tmp_path, isolated_xdg, monkeypatch):
    """A demo log in a private XDG home, and the verdicts the header shows as provisional."""
    from dsh_tui.ui.widgets.header import HeaderPanel
    shown = []
    real = HeaderPanel.show_provisional
    monkeypatch.setattr(HeaderPanel, "show_provisional", lambda self, path, tv: (shown.append(tv), real(self, path, tv)))
    return write_demo(tmp_path / "demo.jsonl.zstd"), shown


async def test_explorer_paints_the_probes_verdict_without_computing_it_again(provisional, monkeypatch):
    import dsh_tui.ui.app as app_module
    import dsh_tui.ui.controllers.loader as loader_module
    log, shown = provisional
    probe = ForkedCall(tail_verdict, log)
    expected = tail_verdict(log)
    assert expected is not None

    def not_here(_path):
        raise AssertionError("the explorer recomputed the tail verdict in a thread")
    monkeypatch.setattr(loader_module, "tail_verdict", not_here)
    app = app_module.ExplorerApp(log, native_clipboard=False, tail_probe=probe)
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.load_finished:
            await pilot.pause(0.02)
        assert app.explorer.loader.tail_probe is None and shown == [expected]
    assert no_children()


async def test_a_probe_done_by_mount_is_in_the_first_paint(provisional):
    import dsh_tui.ui.app as app_module
    log, shown = provisional
    probe = ForkedCall(tail_verdict, log)
    deadline = time.monotonic() + 10
    while not probe.ready() and time.monotonic() < deadline:
        time.sleep(0.01)
    app = app_module.ExplorerApp(log, native_clipboard=False, tail_probe=probe)
    async with app.run_test(size=(80, 24)) as pilot:
        assert shown == [tail_verdict(log)] and app.explorer.loader.tail_probe is None  # shown in on_mount
        while not app.load_finished:
            await pilot.pause(0.02)
        assert app.explorer.loader._shown_early is None and len(shown) == 1  # the decode consumed it: no second paint
    assert no_children()
