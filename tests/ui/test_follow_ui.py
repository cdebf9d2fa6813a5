"""Live follow in the explorer: a growing file shows new events within the follow interval; pause stops it."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest

from dsh_tui.demo import demo_batches, write_log
from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.sessions.follow import follow_step
from dsh_tui.model.opening.target import open_target
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.frames import walk_frames
from dsh_tui.ui.app import ExplorerApp

from ..support.logs import until
from ..support.rotated_follow import OTHER_SESSION_ID, rotations
from ..support.session_roots import TREE_KID_A, build_tree_family

INTERVAL = 0.2


@pytest.fixture(autouse=True)
def _isolated(isolated_xdg, monkeypatch):
    monkeypatch.setenv("HOME", str(isolated_xdg))


def demo_bytes(tmp_path: Path, encoding: str = "zstd") -> bytes:
    header, batches = demo_batches()
    path = tmp_path / f"full.{encoding}"
    write_log(path, header, batches, encoding=encoding)
    return path.read_bytes()


def append(path: Path, data: bytes) -> None:
    """What dsh does: O_APPEND writes of whole frames (or lines)."""
    with open(path, "ab") as fh:
        fh.write(data)


until = partial(until, timeout=20)  # a live log shows up within seconds


def make_app(path: Path) -> ExplorerApp:
    app = ExplorerApp(path, native_clipboard=False, detail_delay=0.01)
    app.explorer.follow.interval = INTERVAL
    return app



async def loaded(app, pilot) -> None:
    await until(app, pilot, lambda: app.load_finished and app.log_ is not None, "the log")
    await pilot.pause()


def header(app) -> str:
    return app.query_one("#header").plain()


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def rows(app) -> list[str]:
    return [app.events.row_plain(r) for r in range(app.events.row_count())]


async def test_growing_file_shows_new_events_and_the_verdict_and_pause_stops_it(tmp_path):
    data = demo_bytes(tmp_path)
    spans = list(walk_frames(data))
    path = tmp_path / "live.jsonl.zstd"
    path.write_bytes(data[:spans[12].start])
    app = make_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(app, pilot)
        first = len(app.log_)
        assert header(app).startswith("following")
        assert "TOOL_OUTCOME_UNKNOWN" not in header(app)
        await pilot.press("end")
        # the middle: the user's place (not at the end) is kept
        append(path, data[spans[12].start:spans[40].start])
        await until(app, pilot, lambda: app.events.row_count() > first, "the first growth", timeout=5)
        await pilot.pause()
        mid = len(app.log_)
        assert app.events.row_count() == mid and app.current_index == mid - 1  # was at the end: stays there
        await pilot.press("home")
        # pause: nothing is read while paused
        await pilot.press("w")
        assert header(app).startswith("paused")
        append(path, data[spans[40].start:])
        await pilot.pause(INTERVAL * 4)
        assert len(app.log_) == mid and app.events.row_count() == mid
        await pilot.press("w")  # resume: reads at once
        await until(app, pilot, lambda: app.events.row_count() > mid, "growth after resume", timeout=5)
        await pilot.pause()
        assert app.current_index == 0  # the user's place, not the end
        fresh = load_session(path)
        assert len(app.log_) == len(fresh) == 320
        assert "VERDICT TOOL_OUTCOME_UNKNOWN" in header(app) and app.diag.verdict.kind == "TOOL_OUTCOME_UNKNOWN"
        assert "320 events" in header(app)
        await pilot.press("v")
        assert app.current_index == app.diag.verdict.index


async def test_torn_frame_badge_disappears_when_the_frame_completes(tmp_path):
    data = demo_bytes(tmp_path)
    spans = list(walk_frames(data))
    path = tmp_path / "torn.jsonl.zstd"
    cut = spans[20].start + 6  # inside frame 20: nothing of it readable yet
    path.write_bytes(data[:cut])
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await loaded(app, pilot)
        assert "TORN TAIL" in header(app)
        n = len(app.log_)
        append(path, data[cut:spans[30].start])
        await until(app, pilot, lambda: "TORN TAIL" not in header(app), "the torn badge to go", timeout=5)
        await pilot.pause()
        fresh = load_session(path)
        assert len(app.log_) == len(fresh) > n and app.log_.raw.torn is None
        assert app.events.row_count() == len(fresh)


async def test_partial_jsonl_line_then_truncation_reopens(tmp_path):
    data = demo_bytes(tmp_path, "jsonl")
    path = tmp_path / "live.jsonl"
    mid = data.index(b"\n", len(data) // 2) - 10
    path.write_bytes(data[:mid])
    app = make_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(app, pilot)
        assert "TORN TAIL" in header(app)
        await pilot.press("home", "j", "j", "j")
        # (the cursor moves as the keys are handled: on a loaded machine that came after the press)
        await until(app, pilot, lambda: app.current_index == 3, "the cursor on the fourth row", timeout=5)
        seq = app.log_.seq_of(app.current_index)
        append(path, data[mid:])
        await until(app, pilot, lambda: app.events.row_count() == 320, "the rest of the file", timeout=5)
        assert "TORN TAIL" not in header(app)
        # replaced by a shorter file: re-opened, the cursor keeps its seq
        shorter = tmp_path / "shorter.jsonl"
        shorter.write_bytes(data[: data.index(b"\n", len(data) // 3) + 1])
        os.replace(shorter, path)
        await until(app, pilot, lambda: app.events.row_count() < 320, "the re-open", timeout=5)
        assert app.log_.seq_of(app.current_index) == seq


@pytest.mark.parametrize("where", ["middle", "end"])
async def test_a_replaced_file_is_reopened_with_one_notice_and_none_of_the_old_rows(tmp_path, where):
    rotation = rotations("jsonl")["larger"]  # another, larger session written over it
    path = tmp_path / "live.jsonl"
    path.write_bytes(rotation.old)
    app = make_app(path)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(app, pilot)
        old_log, old_rows = app.log_, rows(app)
        await pilot.press(*(("home", "j", "j", "j") if where == "middle" else ("end",)))
        want = 3 if where == "middle" else len(old_log) - 1  # (handled after the press on a loaded machine)
        await until(app, pilot, lambda: app.current_index == want, "the cursor where the keys put it", timeout=5)
        seq = old_log.seq_of(app.current_index)
        rotation.rotate(path)
        await until(app, pilot, lambda: app.log_ is not old_log, "the re-open", timeout=5)
        await pilot.pause(INTERVAL * 4)  # later polls find the new file unchanged: no second notice
        # (by the notice's own words: another notice names the file, whose tmp path holds "replaced")
        said = [n for n in notices(app) if n.startswith("the file was replaced")]
        assert len(said) == 1 and said[0].startswith("the file was replaced: reopened (it grew from")
        assert "bytes before the old end changed" in said[0] and OTHER_SESSION_ID in said[0]
        fresh = load_session(path)
        assert app.log_.session_id == OTHER_SESSION_ID and len(app.log_) == len(fresh)
        new_rows = rows(app)
        assert len(new_rows) == len(fresh) and not set(new_rows) & set(old_rows)
        # the cursor: the same seq when the new session has it, the end when it was there
        expected = fresh.index_of_seq(seq) if where == "middle" else len(fresh) - 1
        assert app.current_index == expected
        assert OTHER_SESSION_ID[:8] in header(app)


async def test_a_replaced_file_shows_its_own_family_not_the_old_ones(tmp_path, monkeypatch):
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "dsh"))
    paths = build_tree_family(tmp_path / "dsh" / "sessions")
    path = paths["parent"]
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await until(app, pilot, lambda: app.log_ is not None and "family 2 children" in header(app), "the family")
        old_log = app.log_
        path.write_bytes(paths["kid_a"].read_bytes())  # now the first child's session, which has one child
        await until(app, pilot, lambda: app.log_ is not old_log, "the re-open", timeout=5)
        assert app.log_.session_id == TREE_KID_A
        await until(app, pilot, lambda: "family 1 child " in header(app), "the new session's family")
        assert "2 children" not in header(app)


async def test_zip_and_paused_logs_are_not_polled(tmp_path, monkeypatch):
    data = demo_bytes(tmp_path)
    path = tmp_path / "s.jsonl.zstd"
    path.write_bytes(data)
    calls = []
    from dsh_tui.ui.controllers import follow as follow_module
    monkeypatch.setattr(follow_module, "follow_step", lambda log, **kw: calls.append(log))
    app = make_app(path)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(app, pilot)
        await until(app, pilot, lambda: calls, "a poll", timeout=5)
        await pilot.press("w")
        await app.workers.wait_for_complete()
        n = len(calls)
        await pilot.pause(INTERVAL * 4)
        assert len(calls) == n


def test_follow_step_reopens_a_log_read_from_the_cache(tmp_path):
    path = tmp_path / "big.jsonl.zstd"
    write_synthetic(path, 20000)
    data = path.read_bytes()
    spans = list(walk_frames(data))
    path.write_bytes(data[:spans[len(spans) // 2].start])
    open_target(path)  # writes the index cache (large enough to be cached)
    log, _diag = open_target(path)
    assert log.from_cache
    assert follow_step(log) is None  # unchanged
    with open(path, "ab") as fh:
        fh.write(data[spans[len(spans) // 2].start:])
    step = follow_step(log)
    assert step.reopened and not step.log.from_cache and len(step.log) == 20000
    assert step.diag is not None and step.added == 20000 - len(log)
    with open(path, "ab") as fh:  # now incremental: the re-opened log has a scanner
        fh.write(b"")
    assert follow_step(step.log) is None


async def test_the_bundled_demo_is_not_said_to_be_followed_nor_polled(monkeypatch):
    # The demo is a static file written once: its header said "following".
    from dsh_tui.demo import default_demo_path
    from dsh_tui.ui.controllers import follow as follow_module
    calls = []
    monkeypatch.setattr(follow_module, "follow_step", lambda log, **kw: calls.append(log))
    app = make_app(default_demo_path())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await loaded(app, pilot)
        await until(app, pilot, lambda: app.explorer.follow._timer is not None, "the follow timer")
        assert header(app).startswith("demo (static)") and "following" not in header(app)
        await pilot.press("w")
        await pilot.pause(INTERVAL * 3)
        assert "nothing to follow" in notices(app)[-1] and not calls
        assert not header(app).startswith(("following", "paused"))
