"""The forked tail helper: a split read yields exactly the linear read's index, whatever the input."""

from __future__ import annotations

import os
import threading
import time

import orjson
import pytest

from dsh_tui.model.reading import scanchecks, split as split_read
from dsh_tui.model.reading.forked import ForkedCall
from dsh_tui.model.reading.split import helper as segments
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import Cancelled
from dsh_tui.model.reading.frames import walk_frames
from dsh_tui.model.opening.target import OpenOptions, open_target

from ..support.logs import ev, frame, no_children
from ..support.split import assert_split_equals_linear, with_bad_record

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the tail helper needs os.fork")


def _boundary(data: bytes) -> tuple[int, int]:
    """The split the reader will choose, and the end of the frame that starts there."""
    split = segments.choose_split(data)
    assert split is not None
    span = next(walk_frames(memoryview(data)[split:]))
    return split, split + span.end


def test_clean_log_is_merged_and_identical(synthetic, merges):
    log = assert_split_equals_linear(synthetic)
    assert len(merges) == 1 and log.whole


@pytest.fixture(params=[(1, 1 << 14), (200_000, 1 << 14), (1, 1 << 20)], ids=["every-chunk", "some-chunks", "big-chunks"])
def slices(request, monkeypatch):
    """The child slices its tail small (the forked child inherits the patch)."""
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", request.param[0])
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", request.param[1])
    return request.param


def test_slices_merge_into_the_linear_index(synthetic, slices, merges):
    log = assert_split_equals_linear(synthetic)
    assert log.whole and len(merges) >= (2 if slices == (1, 1 << 14) else 1)


def test_the_last_slice_is_short(synthetic, monkeypatch, merges):
    """The parent merges and pairs the last slice only once the child has finished: however big the
    slices, the last one holds just the file's last ~2% (LAST_SLICE_SHARE) and a chunk."""
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", 1 << 40)
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1 << 14)
    assert_split_equals_linear(synthetic)
    assert len(merges) == 2
    bulk, last = merges
    assert last.final and not bulk.final and 0 < last.produced < bulk.produced / 8


def test_torn_tail_in_the_last_slice(synthetic, tmp_path, slices, merges):
    path = tmp_path / "torn.zst"
    path.write_bytes(synthetic.read_bytes()[:-7])
    assert assert_split_equals_linear(path).raw.torn is not None and merges


def test_a_bad_record_in_a_late_slice_is_read_by_the_parent_from_there(synthetic, tmp_path, monkeypatch, merges):
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", 1)
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1 << 14)
    log = assert_split_equals_linear(with_bad_record(synthetic, tmp_path, 0.9))
    assert log.res.corruption and len(merges) >= 2  # the slices before it were merged


def test_the_diagnosis_advances_between_slices(synthetic, monkeypatch, isolated_xdg, merges, helper_for_small_logs):
    from dsh_tui.model.opening import open as opener
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", 1)
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1 << 14)
    fed = []
    real = opener.advance_diagnosis
    monkeypatch.setattr(opener, "advance_diagnosis", lambda head, facts, calls, **kw: fed.append(len(facts)) or real(head, facts, calls, **kw))
    log, diag = open_target(synthetic, OpenOptions(use_cache=False))
    assert len(fed) == len(merges) - 1 and fed == sorted(fed) and fed[-1] < len(log.res.facts)
    linear = load_session(synthetic, parallel=False)
    assert check_json(log, diag, None) == check_json(linear, diagnose(linear), None)


def test_torn_tail_in_the_helpers_segment(synthetic, tmp_path, merges):
    data = synthetic.read_bytes()
    path = tmp_path / "torn.zst"
    path.write_bytes(data[:-7])
    log = assert_split_equals_linear(path)
    assert merges and log.raw.torn is not None


def test_dropped_frame_at_the_split_is_a_gap_at_the_boundary(synthetic, tmp_path, merges, monkeypatch):
    data = synthetic.read_bytes()
    split, end = _boundary(data)
    path = tmp_path / "gap.zst"
    path.write_bytes(data[:split] + data[end:])
    monkeypatch.setattr(split_read, "choose_split", lambda _data, _share=None: split)  # the frame after the hole
    log = assert_split_equals_linear(path)
    assert merges and len(log.res.gaps) == 1
    assert log.res.gaps[0].index == log.res.first_event(log.record_index_at(log.raw.frame_plain[
        list(log.raw.frame_offsets).index(split)]))


def test_gaps_past_the_cap_are_counted_alike_through_the_merge(synthetic, tmp_path, merges, monkeypatch):
    """A frame dropped in each quarter of the file (four seq gaps, two in each segment) with MAX_GAPS at
    2: the merge keeps the head's two and counts the tail's, as a linear read does."""
    monkeypatch.setattr(scanchecks, "MAX_GAPS", 2)  # (the forked helper inherits it)
    data = synthetic.read_bytes()
    spans = list(walk_frames(memoryview(data)))
    gone = {next(k for k, s in enumerate(spans) if k and s.start >= len(data) * at) for at in (0.15, 0.3, 0.7, 0.85)}
    path = tmp_path / "gaps.zst"
    path.write_bytes(b"".join(data[s.start:s.end] for k, s in enumerate(spans) if k not in gone))
    log = assert_split_equals_linear(path)
    assert merges and len(log.res.gaps) == 2 and log.res.gaps_dropped == 2


def test_corrupt_frame_in_either_segment(synthetic, tmp_path):
    data = bytearray(synthetic.read_bytes())
    split, end = _boundary(bytes(data))
    for where in (split // 2, (split + len(data)) // 2):
        bad = bytearray(data)
        bad[where] ^= 0xFF
        path = tmp_path / f"bad{where}.zst"
        path.write_bytes(bytes(bad))
        assert assert_split_equals_linear(path).raw.corruption


def test_a_bad_frame_in_the_helpers_segment_is_reported_at_its_file_offset(synthetic, tmp_path):
    data = synthetic.read_bytes()
    split, end = _boundary(data)
    at = next(s.start for s in walk_frames(memoryview(data)) if s.start > (split + len(data)) // 2)
    path = tmp_path / "skippable.zst"
    path.write_bytes(data[:at] + b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"abcd" + data[at:])
    log = assert_split_equals_linear(path)  # the same report as a linear read, message included
    (c,) = log.raw.corruption
    assert c.kind == "skippable-frame" and c.offset == at and f"at byte {at} " in c.message


def test_split_inside_a_frame_falls_back_to_a_linear_read(synthetic, monkeypatch):
    data = synthetic.read_bytes()
    split, end = _boundary(data)
    monkeypatch.setattr(split_read, "choose_split", lambda _data, _share=None: split + 3)
    assert assert_split_equals_linear(synthetic).whole


def test_helper_failure_falls_back(synthetic, monkeypatch, merges):
    def boom(*_args):
        raise RuntimeError("helper died")
    monkeypatch.setattr(segments, "_index_tail", boom)  # the forked child inherits the patch
    assert_split_equals_linear(synthetic)
    assert not merges


def test_a_stuck_helper_is_killed_and_the_tail_read_here(synthetic, monkeypatch, merges):
    monkeypatch.setattr(segments, "_index_tail", lambda *_args: time.sleep(3600))
    monkeypatch.setattr(segments, "MIN_PATIENCE_S", 0.3)  # merge.py reads it from helper.py
    assert_split_equals_linear(synthetic)
    assert not merges
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_records_the_merge_cannot_shift_are_read_by_the_parent(tmp_path, merges, monkeypatch):
    """A bad record, an unknown plugin type and a legacy shape in the tail: same report as linear.
    A blank line in the tail ends what the child's slices can give: whether lines that are not
    records make the log "mostly garbage" depends on the head's counts (the parent reads on)."""
    batches, seq = [], 0
    for b in range(40):
        batch = []
        for k in range(5):
            if b == 36 and k == 2:
                seq += 1  # a gap in the tail, after a blank line in the head: its line number needs both
            kind = {(35, 0): "plugin/thing"}.get((b, k), "turn/start")
            data = {"turn": seq, "trigger": "user"} if (b, k) == (35, 1) else {"turn": seq}  # legacy shape
            batch.append(ev(kind, seq, data))
            seq += 1
        batches.append(batch)
    data = frame(orjson.dumps({"type": "session", "version": 0, "id": "s", "createdAt": 1, "cwd": "/",
                               "delegationDepth": 0}) + b"\n")
    frames = [frame(b"".join(orjson.dumps(r) + b"\n" for r in batch)) for batch in batches]
    for k in (3, 37):  # blank lines in both segments shift the physical line numbers
        frames[k] = frame(b"\n" + b"".join(orjson.dumps(r) + b"\n" for r in batches[k]))
    path = tmp_path / "mixed.zst"
    path.write_bytes(data + b"".join(frames))
    usual = segments.SLICE_PLAIN_BYTES, segments.TAIL_CHUNK_BYTES
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", 1)  # a slice per frame
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1)
    log = assert_split_equals_linear(path)
    assert "plugin/thing" in log.res.unknown and log.res.legacy and len(log.res.gaps) == 1 and merges
    assert log.line_of_record(log.record_of(log.res.gaps[0].index)) == log.res.gaps[0].line
    blank_at = log.raw.frame_plain[38]  # frame 38 (after the header) holds the tail's blank line
    assert merges[-1].produced and all(m.frame_offsets[-1] < log.raw.frame_offsets[38] for m in merges)
    assert log.res.skip_at[-1] == blank_at and log.res.end_of(log.record_index_at(blank_at - 1)) == blank_at - 1
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", usual[0])  # one slice: the bad record spoils it
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", usual[1])
    frames[30] = frame(b"{not json\n" + orjson.dumps(ev("turn/start", 150, {"turn": 1})) + b"\n")
    path.write_bytes(data + b"".join(frames))
    merges.clear()
    log = assert_split_equals_linear(path)
    assert log.res.corruption and not merges


def test_frames_without_a_checksum_are_counted_through_the_merge(synthetic, tmp_path, slices, merges):
    import zstandard
    data = synthetic.read_bytes()
    unchecked = zstandard.ZstdCompressor(write_checksum=False, write_content_size=False)
    out, plain = bytearray(), zstandard.ZstdDecompressor()
    spans = list(walk_frames(memoryview(data)))
    redone = {1, len(spans) // 2, len(spans) * 3 // 4, len(spans) - 1}  # in the head and the child's tail
    for k, span in enumerate(spans):
        body = data[span.start:span.end]
        out += unchecked.compress(plain.decompressobj().decompress(body)) if k in redone else body
    path = tmp_path / "unchecked.zst"
    path.write_bytes(bytes(out))
    log = assert_split_equals_linear(path)
    assert log.raw.unchecked_frames == len(redone) and not log.whole and merges


def test_a_tail_mostly_of_bad_lines_is_refused_as_the_linear_read_refuses_it(synthetic, tmp_path, merges):
    """Whether the lines that are not records make the log "mostly garbage" depends on the counts
    before them: the child's slices stop at the first such line and the parent reads on."""
    from dsh_tui.model.reading.source import LogUnreadable
    data = synthetic.read_bytes()
    at = next(s.start for s in walk_frames(memoryview(data)) if s.start > len(data) * 0.8)
    from dsh_tui.model.reading.scanchecks import MAX_SKIPPED_LINES
    lines = max(load_session(synthetic, parallel=False).records, MAX_SKIPPED_LINES)  # more than before them
    path = tmp_path / "garbage.zst"
    path.write_bytes(data[:at] + frame(b"\n" * (lines + 1)) + data[at:])  # blank: the slice is no corrupt one
    errors = []
    for parallel in (True, False):
        with pytest.raises(LogUnreadable) as info:
            load_session(path, parallel=parallel)
        errors.append((info.value.code, info.value.message))
    assert errors[0] == errors[1] and errors[0][0] == "mostly-not-records" and no_children()
    path.write_bytes(data[:at] + frame(b"\n" * 21) + data[at:])  # a few: read, line numbers exact
    assert assert_split_equals_linear(path).res.skip_lines[-1] == 21


def test_cancel_reaps_the_helper(synthetic):
    cancel = threading.Event()
    seen = []

    def progress(_stage, done, total):
        seen.append(done)
        if done:
            cancel.set()
    with pytest.raises(Cancelled):
        load_session(synthetic, parallel=True, cancel=cancel, progress=progress)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left behind, not even a zombie


def test_when_the_helper_is_used(monkeypatch):
    monkeypatch.delenv(segments.ENV, raising=False)
    assert not segments.wanted(segments.MIN_FILE_BYTES - 1)
    assert segments.wanted(segments.MIN_FILE_BYTES) == (len(os.sched_getaffinity(0)) > 1)
    monkeypatch.setenv(segments.ENV, "0")
    assert not segments.wanted(1 << 30)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs a process that may run on two cores")
def test_no_helper_when_pinned_to_one_core():
    # The machine's core count is not the process's: pinned to one (taskset, a cpuset), a helper
    # would only add its fork and merge to that core. Asked in a fork, so this process stays unpinned.
    def pinned_wants() -> bool:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        return segments.wanted(segments.MIN_FILE_BYTES)
    assert ForkedCall(pinned_wants).collect() is False
    assert no_children()


def test_real_large_log_reads_the_same_split(merges):
    from ..support.logs import shared_log
    log = assert_split_equals_linear(shared_log("large/big-936k-events__session.jsonl.zstd"))
    assert len(merges) > 1 and len(log) == 936_202  # the tail came in slices


def test_the_diagnosis_begins_on_the_head_while_the_helper_reads_the_tail(synthetic, monkeypatch, isolated_xdg,
                                                                         merges, helper_for_small_logs):
    from dsh_tui.model.opening import open as opener
    begun = []
    real = opener.begin_diagnosis
    monkeypatch.setattr(opener, "begin_diagnosis", lambda facts, calls: begun.append(len(facts)) or real(facts, calls))
    log, diag = open_target(synthetic, OpenOptions(use_cache=False))
    assert merges and len(begun) == 1 and 0 < begun[0] < len(log.res.facts)
    linear = load_session(synthetic, parallel=False)
    assert check_json(log, diag, None) == check_json(linear, diagnose(linear), None)


def test_an_early_helper_is_used_when_the_file_is_unchanged(synthetic, monkeypatch, merges,
                                                            helper_for_small_logs):
    early = segments.TailHelper.early(synthetic, share=0.3)

    def no_second_fork(*_args, **_kw):
        raise AssertionError("forked a second helper")
    monkeypatch.setattr(segments.TailHelper, "__init__", no_second_fork)
    log = load_session(synthetic, early=early)
    linear = load_session(synthetic, parallel=False)
    assert merges and log.res == linear.res and no_children()
    assert check_json(log, diagnose(log), None) == check_json(linear, diagnose(linear), None)


def test_an_early_helper_on_a_file_that_changed_since_is_dropped(synthetic, tmp_path, merges, helper_for_small_logs):
    path = tmp_path / "live.zst"
    data = synthetic.read_bytes()
    path.write_bytes(data[:len(data) * 3 // 4])
    early = segments.TailHelper.early(path, share=0.3)
    deadline = time.monotonic() + 10
    while not early.ready() and time.monotonic() < deadline:  # it has read the file as it was
        time.sleep(0.01)
    path.write_bytes(data)  # the log grew (and its mtime moved) before the decode began
    log = load_session(path, early=early)
    assert log.res == load_session(path, parallel=False).res and len(log) == 20_000 and no_children()


def test_an_early_helper_is_closed_whatever_the_open_does(synthetic, tmp_path, isolated_xdg, helper_for_small_logs):
    from dsh_tui.model.opening import open as opener
    log, diag = open_target(synthetic)  # decoded, then cached
    opener.save_to_cache(log, diag)
    assert open_target(synthetic, OpenOptions(early_tail=segments.TailHelper.early(synthetic)))[0].from_cache
    assert no_children()
    jsonl = tmp_path / "plain.jsonl"
    jsonl.write_bytes(b"not a log\n")
    with pytest.raises(Exception):
        open_target(jsonl, OpenOptions(early_tail=segments.TailHelper.early(jsonl), use_cache=False))
    assert no_children()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        load_session(synthetic, early=segments.TailHelper.early(synthetic), cancel=cancel)
    assert no_children()


def test_check_forks_its_helper_early_unless_the_cache_will_answer(synthetic, monkeypatch, isolated_xdg, merges,
                                                                 capsys, helper_for_small_logs):
    """`check` starts the tail helper before it reads the file (TailHelper.early, not niced, its far
    part free to be taken over) when it will decode; with a cached index on disk it forks nothing.
    The report is the same."""
    from dsh_tui.cli import main
    started = []
    real = segments.TailHelper.early.__func__

    def spy(cls, *args, **kw):
        helper = real(cls, *args, **kw)
        started.append((helper is not None, kw.get("nice"), kw.get("steal")))
        return helper
    monkeypatch.setattr(segments.TailHelper, "early", classmethod(spy))

    def check_out(*extra: str) -> dict:
        assert main(["check", str(synthetic), "--format", "json", *extra]) in (0, 1)
        out = orjson.loads(capsys.readouterr().out)
        out.pop("cache", None)
        return out
    split = check_out("--no-cache")
    assert started == [(True, 0, True)] and merges and no_children()
    monkeypatch.setenv(segments.ENV, "0")
    assert check_out("--no-cache") == split  # no helper at all: the same report
    monkeypatch.delenv(segments.ENV)
    from dsh_tui.model.opening import open as opener
    opener.save_to_cache(*open_target(synthetic, OpenOptions(use_cache=False)))
    started.clear()
    check_out()
    assert started == [] and no_children()


def test_facts_of_a_type_share_one_string_through_the_merge(synthetic, merges):
    """One string object per fact type (marshal then sends a back-reference, not a copy per fact)."""
    for log in (load_session(synthetic, parallel=True), load_session(synthetic, parallel=False)):
        kinds: dict[str, set[int]] = {}
        for f in log.res.facts:
            kinds.setdefault(f[0], set()).add(id(f[0]))
        assert len(kinds) > 3 and all(len(ids) == 1 for ids in kinds.values())
    assert merges


def test_no_fork_from_a_thread(synthetic, monkeypatch):
    """A thread other than the main one never forks (the child would inherit locks the main one holds):
    the split read is skipped and the linear read gives the same log."""
    def no_fork():
        raise AssertionError("forked from a threaded process")
    linear = load_session(synthetic, parallel=False)
    monkeypatch.setattr(os, "fork", no_fork)
    out = []
    worker = threading.Thread(target=lambda: out.append(load_session(synthetic, parallel=True)))
    worker.start()
    worker.join()
    assert out and out[0].res == linear.res
