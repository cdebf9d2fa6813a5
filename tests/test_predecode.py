"""The explorer's early decode: both halves forked at start-up, merged into exactly the linear index."""

from __future__ import annotations

import os
import threading

import orjson
import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model import cache, predecode, segments
from dsh_tui.model.diagnosis import diagnose
from dsh_tui.model.forked import ForkedCall
from dsh_tui.model.opener import open_session
from dsh_tui.model.report import check_json
from dsh_tui.model.session import load_session
from dsh_tui.model.source import Cancelled
from dsh_tui.model.zstdframes import walk_frames

from .conftest import HEADER, frame

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                                reason="the early decode needs os.fork and two cores")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    path = tmp_path_factory.mktemp("pre") / "big.jsonl.zstd"
    write_synthetic(path, 20_000, seed=4)
    return path


@pytest.fixture(autouse=True)
def small_files_too(monkeypatch, isolated_xdg):
    monkeypatch.setattr(segments, "MIN_FILE_BYTES", 0)  # the test logs are smaller than a real big one
    monkeypatch.delenv(segments.ENV, raising=False)


def _no_children() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _merged_like_linear(path, **load):
    pre = predecode.start(path)
    assert pre is not None
    got = pre.load(**load)
    linear = load_session(path, parallel=False)
    assert got.res == linear.res
    for attr in ("frames", "frame_offsets", "frame_plain", "frames_end", "torn", "corruption", "header_frame_ok"):
        assert getattr(got.raw, attr) == getattr(linear.raw, attr), attr
    assert got.header.raw == linear.header.raw and len(got.store) == len(linear.store)
    assert check_json(got, diagnose(got), None) == check_json(linear, diagnose(linear), None)
    assert got.event(len(got) - 1).event == linear.event(len(linear) - 1).event
    assert _no_children()
    return pre, got


def test_both_halves_merge_into_the_linear_index(synthetic, monkeypatch):
    calls = []
    for owner, name in ((predecode.PreDecode, "_merge"), (segments, "merge_tail")):
        real = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    seen = []
    _merged_like_linear(synthetic, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert calls == ["_merge", "merge_tail"]  # both children's work was used, not a fallback read
    assert seen and {(stage, total) for stage, _, total in seen} == {("decode", synthetic.stat().st_size)}


async def test_the_explorer_shows_the_merged_log(synthetic, monkeypatch):
    import dsh_tui.ui.app as app_module
    from .conftest import until
    expected = diagnose(load_session(synthetic, parallel=False)).verdict
    used = []
    real = predecode.PreDecode.load
    monkeypatch.setattr(predecode.PreDecode, "load", lambda self, **k: used.append(1) or real(self, **k))
    app = app_module.ExplorerApp(synthetic, native_clipboard=False, predecode=predecode.start(synthetic))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(app, pilot, lambda: app.load_finished, "the load")
        assert used == [1] and app.predecode is None
        assert (app.diag.verdict.kind, app.diag.verdict.index) == (expected.kind, expected.index)
    assert _no_children()


def test_progress_comes_from_the_head_child():
    def counts(report):
        for k in (1, 2, 3):
            report(k, 3)
        return "done"
    seen = []
    call = ForkedCall(counts, progress=True)
    assert call.collect(on_progress=lambda done, total: seen.append((done, total))) == "done"
    assert seen and seen[-1] == (3, 3) and _no_children()


def _frames(path):
    data = path.read_bytes()
    return [bytes(data[s.start:s.end]) for s in walk_frames(memoryview(data))]


def test_a_torn_tail_and_a_corrupt_head_frame_read_the_same(synthetic, tmp_path):
    torn = tmp_path / "torn.zst"
    torn.write_bytes(synthetic.read_bytes()[:-9])
    _, log = _merged_like_linear(torn)
    assert log.raw.torn is not None
    frames = _frames(synthetic)
    frames[5] = frames[5][:-1] + bytes([frames[5][-1] ^ 0xFF])  # checksum mismatch in the head
    bad = tmp_path / "bad.zst"
    bad.write_bytes(b"".join(frames))
    _, log = _merged_like_linear(bad)
    assert log.raw.corruption


def test_a_failing_head_child_falls_back_to_the_linear_read(synthetic, monkeypatch):
    def boom(*_a, **_k):
        raise RuntimeError("head child failed")
    monkeypatch.setattr(predecode, "_index_head", boom)
    _merged_like_linear(synthetic)


def test_a_projected_log_is_read_whole_by_the_fallback(tmp_path):
    lines = [orjson.dumps({"type": "turn/start", "data": {"turn": 1}})] * 3000
    path = tmp_path / "projected.zst"
    path.write_bytes(frame(orjson.dumps(HEADER) + b"\n")
                     + b"".join(frame(b"\n".join(lines[k:k + 100]) + b"\n") for k in range(0, 3000, 100)))
    _, log = _merged_like_linear(path)
    assert log.res.projected and len(log) == 3000


def test_not_started_for_a_cached_small_or_plain_log(synthetic, tmp_path, monkeypatch):
    open_session(synthetic)  # writes the index cache
    assert cache.entry_path(synthetic).exists() and predecode.start(synthetic) is None
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(orjson.dumps(HEADER) + b"\n")
    assert predecode.start(plain) is None
    monkeypatch.setattr(segments, "MIN_FILE_BYTES", 1 << 40)
    assert predecode.start(tmp_path / "missing.zst") is None
    assert _no_children()


def test_a_fresh_cache_closes_the_children(synthetic):
    pre = predecode.start(synthetic)
    open_session(synthetic)  # writes the index cache
    cached, _ = open_session(synthetic, predecoded=pre)
    assert cached.from_cache and pre.head.pid == 0 and pre.tail.pid == 0 and _no_children()


def test_cancel_reaps_both_children(synthetic):
    pre = predecode.start(synthetic)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        pre.load(cancel=cancel)
    assert _no_children()


def test_the_diagnosis_begins_on_the_head_child_s_facts(synthetic, monkeypatch):
    from dsh_tui.model import opener
    begun = []
    real = opener.begin_diagnosis
    monkeypatch.setattr(opener, "begin_diagnosis", lambda facts: begun.append(len(facts)) or real(facts))
    log, diag = opener.open_session(synthetic, use_cache=False, predecoded=predecode.start(synthetic))
    assert len(begun) == 1 and 0 < begun[0] < len(log.res.facts)
    linear = load_session(synthetic, parallel=False)
    assert check_json(log, diag, None) == check_json(linear, diagnose(linear), None)
    assert _no_children()
