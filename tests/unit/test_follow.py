"""Live follow at the model level: appended frames/lines are indexed, torn tails re-read once,
and a file replaced under the follower is re-opened, never spliced onto the old session."""

from __future__ import annotations

import os
import threading

import pytest

from dsh_tui.demo import demo_batches, write_log
from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.sessions.follow import follow_step
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.opening.target import open_target
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import BOUNDARY_BYTES, LogUnreadable
from dsh_tui.model.reading.frames import walk_frames

from ..support.rotated_follow import OTHER_SESSION_ID, record_ends, rotations, sessions


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


# -- a file replaced under the follower (tests/rotated_follow.py) --------------------------------

ENCODINGS = ("jsonl", "zstd")


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("name", ["same-size", "larger", "renamed-over", "rewritten-in-place", "truncated"])
def test_a_replaced_file_is_reopened_and_said_so(tmp_path, name, encoding):
    rotation = rotations(encoding)[name]
    path = tmp_path / f"live.{encoding}"
    path.write_bytes(rotation.old)
    log = load_session(path)
    assert follow_step(log) is None
    rotation.rotate(path)
    assert path.read_bytes() == rotation.new
    step = follow_step(log)
    assert step is not None and step.reopened and step.log is not log
    assert step.replaced is not None and rotation.words in step.replaced
    _same_as_fresh(step.log, path)  # the new file alone: nothing of the old session is kept
    assert step.added == len(step.log) - len(log)
    assert follow_step(step.log) is None  # the re-opened log is the file now: quiet again


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_larger_other_session_is_not_spliced_onto_the_old_one(tmp_path, encoding):
    """The review's case: another session's tail read as this one's."""
    rotation = rotations(encoding)["larger"]
    path = tmp_path / f"live.{encoding}"
    path.write_bytes(rotation.old)
    log = load_session(path)
    old_events = [log.event(i).event for i in range(len(log))]
    rotation.rotate(path)
    step = follow_step(log)
    new = step.log
    assert new.session_id == OTHER_SESSION_ID != log.session_id
    assert [log.event(i).event for i in range(len(log))] == old_events  # the polled log is left as it was
    assert not any(new.event(i).event in old_events for i in range(len(new)))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_appends_are_indexed_in_place_and_the_boundary_follows_the_end(tmp_path, encoding):
    ours, _theirs = sessions(encoding)
    ends = record_ends(ours, encoding)
    path = tmp_path / f"live.{encoding}"
    path.write_bytes(ours[:ends[5]])
    log = load_session(path)
    for end in (ends[len(ends) // 3], ends[len(ends) // 2] + 7, len(ours)):  # + 7: a torn tail in between
        with open(path, "ab") as fh:
            fh.write(ours[os.path.getsize(path):end])
        step = follow_step(log)
        assert step is not None and not step.reopened and step.replaced is None and step.log is log
        assert log.raw.boundary == ours[:end][-BOUNDARY_BYTES:]
    _same_as_fresh(log, path)
    assert follow_step(log) is None


def test_an_unchanged_file_costs_one_stat(tmp_path, monkeypatch):
    ours, _theirs = sessions("zstd")
    path = tmp_path / "live.zst"
    path.write_bytes(ours)
    log = load_session(path)
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *a, **kw: opened.append(a[0]) or real_open(*a, **kw))
    assert follow_step(log) is None and follow_step(log) is None
    assert opened == []


def test_a_log_without_a_recorded_identity_is_reopened_once(tmp_path):
    """An index-cache entry written before RawLog kept the file's identity: not trusted."""
    ours, _theirs = sessions("zstd")
    path = tmp_path / "live.zst"
    path.write_bytes(ours)
    log = load_session(path)
    log.raw.boundary = b""
    step = follow_step(log)
    assert step is not None and step.reopened and step.replaced is None and step.added == 0
    assert step.log.raw.boundary == ours[-BOUNDARY_BYTES:]
    assert follow_step(step.log) is None


def test_a_cached_log_notices_a_same_size_file_renamed_over_it(tmp_path, isolated_xdg):
    path = tmp_path / "big.jsonl.zstd"
    write_synthetic(path, 6000, seed=1)
    data = path.read_bytes()
    other = tmp_path / "other.jsonl.zstd"
    write_synthetic(other, 7000, seed=2)
    open_target(path)  # writes the index cache
    log, _diag = open_target(path)
    assert log.from_cache and log.raw.boundary == data[-BOUNDARY_BYTES:]
    assert follow_step(log) is None
    before = os.stat(path)
    os.truncate(other, len(data))  # another session, as long as this one, with its mtime
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)
    step = follow_step(log)
    assert step is not None and "new inode" in step.replaced and not step.log.from_cache
    _same_as_fresh(step.log, path)


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_log_replaced_by_a_fifo_or_a_directory_is_refused_without_hanging(tmp_path, kind):
    ours, _theirs = sessions("zstd")
    path = tmp_path / "live.zst"
    path.write_bytes(ours)
    log = load_session(path)
    path.unlink()
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    outcome: list = []

    def poll():
        try:
            outcome.append(follow_step(log))
        except LogUnreadable as exc:
            outcome.append(exc)
    worker = threading.Thread(target=poll, daemon=True)  # a blocking open of the FIFO would hang here
    worker.start()
    worker.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], LogUnreadable)
    assert ("not a regular file" if kind == "fifo" else "is a directory") in outcome[0].message


def test_a_grown_file_whose_header_changed_is_reopened(tmp_path, write_jsonl):
    """Rewritten in place with another session's header (same length) and the same records plus more:
    the bytes before the old end match, the first bytes do not. An append never changes the header."""
    from ..support.logs import HEADER, crash_records, lines_of
    path = write_jsonl(crash_records()[:3])
    log = load_session(path)
    other = {**HEADER, "id": HEADER["id"][:-1] + "X"}
    body = b"\n".join(lines_of([other, *crash_records()])) + b"\n"
    with open(path, "r+b") as fh:  # same inode
        fh.write(body)
    step = follow_step(log)
    assert step.reopened and step.replaced and "header" in step.replaced
    assert step.log.session_id == other["id"]


def test_a_log_kept_for_exploring_follows_searches_and_caches_as_a_fresh_read(tmp_path):
    """The explorer keeps the record starts ~2 bytes each (`keep_for_exploring`: an `Offsets`); appended
    frames go on there, and the records, searches, offsets and the cache's copy are a fresh read's."""
    from dsh_tui.model.columns.offsets import Offsets
    from dsh_tui.model.opening.open import cache_payload
    from dsh_tui.model.opening.target import OpenOptions, keep_for_exploring
    from dsh_tui.model.reading.search import find_all
    data = _full(tmp_path, "zstd")
    spans = list(walk_frames(data))
    path = tmp_path / "live.zst"
    path.write_bytes(data[:spans[10].start])
    log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    keep_for_exploring(log, diag)
    assert type(log.res.rec_start) is Offsets
    path.write_bytes(data)
    assert log.refresh() > 0 and type(log.res.rec_start) is Offsets
    _same_as_fresh(log, path)
    fresh = load_session(path)
    assert list(log.res.rec_start) == list(fresh.res.rec_start) and log.records > 64
    assert [log.record_bytes(r) for r in range(log.records)] == [fresh.record_bytes(r) for r in range(fresh.records)]
    offsets = range(0, fresh.res.text_end + 2, 37)
    assert [log.record_index_at(o) for o in offsets] == [fresh.record_index_at(o) for o in offsets]
    for needle in ("deploy", "call_0", "turn/start", "zz-nowhere"):
        assert list(find_all(log, needle).indices) == list(find_all(fresh, needle).indices)
    kept = cache_payload(log, diag)["res"].rec_start
    assert type(kept) is type(fresh.res.rec_start) and kept == fresh.res.rec_start
