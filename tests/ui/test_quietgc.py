"""The explorer's GC policy: full passes wait for a pause in input (ui/quietgc.py)."""

from __future__ import annotations

import gc
import time

import pytest

from dsh_tui.ui.quietgc import FULL_PASS_EVERY, IDLE_S, QuietGC


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


def _pending_full_pass() -> None:
    gc.collect()
    gc.collect(1)  # a generation-1 pass: garbage may now wait in generation 2
    assert gc.get_count()[2] > 0


def test_collects_only_after_input_pauses():
    q = QuietGC()
    _pending_full_pass()
    q.touch()
    q.tick()
    assert q.idle_passes == 0 and gc.get_count()[2] > 0  # a key was just pressed: no pass now
    q.last_input = time.monotonic() - IDLE_S - 0.01
    q.tick()
    assert q.idle_passes == 1 and gc.get_count()[2] == 0
    q.tick()
    assert q.idle_passes == 1  # nothing new since: idle costs nothing


def test_never_collects_while_the_gc_is_paused():
    q = QuietGC()
    _pending_full_pass()
    q.last_input = 0.0
    gc.disable()
    try:
        q.tick()
    finally:
        gc.enable()
    assert q.idle_passes == 0


async def test_loaded_app_defers_full_passes_and_counts_key_presses(tmp_path, isolated_xdg, thresholds):
    from dsh_tui.demo import write_demo
    from dsh_tui.ui.app import ExplorerApp
    app = ExplorerApp(write_demo(tmp_path / "demo.jsonl.zstd"), native_clipboard=False)
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.load_finished:
            await pilot.pause(0.02)
        assert app.quiet_gc.timer is not None and gc.get_threshold()[2] >= FULL_PASS_EVERY
        before = app.quiet_gc.last_input
        await pilot.press("down")
        assert app.quiet_gc.last_input > before


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()
    gc.enable()


def test_a_load_leaves_what_it_built_frozen_not_for_the_collector_to_walk(unfrozen):
    """The explorer's load: one pause around it (the model's own pauses nest inside), then a freeze,
    so the collector's first pass does not walk every object the decode made."""
    from dsh_tui.model.reading.gcpause import gc_paused
    gc.unfreeze()
    gc.enable()
    with gc_paused(freeze=True):
        with gc_paused():  # the model's pause inside: ending it neither freezes nor re-enables
            built = [{"i": i} for i in range(1000)]
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.isenabled() and gc.get_freeze_count() >= len(built)
    gc.unfreeze()
    with gc_paused():  # check and the tests: no freeze asked, none done
        built = [{"i": i} for i in range(1000)]
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    with gc_paused(freeze=True):  # the collector was off (check): it stays off, nothing frozen
        pass
    assert not gc.isenabled() and gc.get_freeze_count() == 0
