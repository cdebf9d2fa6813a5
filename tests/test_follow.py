"""Live follow at the model level: appended frames/lines are indexed, torn tails re-read once."""

from __future__ import annotations

from dsh_tui.demo import demo_batches, write_log
from dsh_tui.model.diagnosis import diagnose
from dsh_tui.model.session import load_session
from dsh_tui.model.zstdframes import walk_frames


def _full(tmp_path, encoding):
    header, batches = demo_batches()
    path = tmp_path / f"full.{encoding}"
    write_log(path, header, batches, encoding=encoding)
    return path.read_bytes()


def _same_as_fresh(log, path):
    fresh = load_session(path)
    assert len(log) == len(fresh) and log.records == fresh.records
    assert [log.event(i).event for i in range(len(log))] == [fresh.event(i).event for i in range(len(fresh))]
    d1, d2 = diagnose(log), diagnose(fresh)
    assert [f.as_dict() for f in d1.findings] == [f.as_dict() for f in d2.findings]
    assert log.raw.frames == fresh.raw.frames and log.raw.torn == fresh.raw.torn


def test_appended_frames_are_indexed(tmp_path):
    data = _full(tmp_path, "zstd")
    spans = list(walk_frames(data))
    path = tmp_path / "live.zst"
    path.write_bytes(data[:spans[10].start])
    log = load_session(path)
    first = len(log)
    assert log.refresh() == 0
    path.write_bytes(data[:spans[40].start])
    added = log.refresh()
    assert added > 0 and len(log) == first + added
    path.write_bytes(data)
    assert log.refresh() > 0
    _same_as_fresh(log, path)
    assert not log.res.gaps


def test_torn_frame_that_completes_is_read_again_not_twice(tmp_path):
    data = _full(tmp_path, "zstd")
    spans = list(walk_frames(data))
    path = tmp_path / "live.zst"
    cut = spans[20].start + 6  # inside frame 20: nothing of it is readable yet
    path.write_bytes(data[:cut])
    log = load_session(path)
    assert log.raw.torn is not None and log.raw.torn.offset == spans[20].start
    path.write_bytes(data[:spans[30].start])
    assert log.refresh() > 0
    assert log.raw.torn is None
    _same_as_fresh(log, path)


def test_partial_line_that_completes(tmp_path):
    data = _full(tmp_path, "jsonl")
    path = tmp_path / "live.jsonl"
    mid = data.index(b"\n", len(data) // 2) - 10
    path.write_bytes(data[:mid])
    log = load_session(path)
    assert log.raw.torn.kind == "partial-line"
    path.write_bytes(data)
    assert log.refresh() > 0 and log.raw.torn is None
    _same_as_fresh(log, path)


def test_truncated_file_asks_for_a_reopen(tmp_path):
    data = _full(tmp_path, "zstd")
    path = tmp_path / "live.zst"
    path.write_bytes(data)
    log = load_session(path)
    path.write_bytes(data[: len(data) // 2])
    assert log.refresh() == -1
