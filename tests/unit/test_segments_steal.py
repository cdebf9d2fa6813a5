"""The parent takes over the far part of a slow tail helper's work (split/merge.py's read_tail, _take_over):
the index is the linear read's whichever way the stop went."""

from __future__ import annotations

import os
import time

import pytest

from dsh_tui.model.reading import forked
from dsh_tui.model.reading.split import helper as segments, merge as tailmerge
from dsh_tui.model.reading.source import RawLog, iter_plain, open_log
from dsh_tui.model.reading.frames import walk_frames

from ..support.logs import no_children
from ..support.split import assert_split_equals_linear, with_bad_record

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the tail helper needs os.fork")


def _frame_starts(path) -> list[int]:
    return [s.start for s in walk_frames(memoryview(path.read_bytes()))]


@pytest.fixture
def slow_child(monkeypatch, helper_for_small_logs):
    """The forked child reads small chunks and sleeps after each (the parent reads at full speed)."""
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1 << 14)
    monkeypatch.setattr(tailmerge, "STEAL_MIN_BYTES", 0)
    real = segments.iter_plain

    def slow(*args, **kw):
        for chunk in real(*args, **kw):
            if forked._in_child:
                time.sleep(0.005)
            yield chunk
    monkeypatch.setattr(segments, "iter_plain", slow)


@pytest.fixture
def steals(monkeypatch):
    """What each try to take over the child's far part gave (a TakeOver, or None: not worth it)."""
    seen = []
    real = tailmerge._take_over

    def spy(*args):
        seen.append(real(*args))
        return seen[-1]
    monkeypatch.setattr(tailmerge, "_take_over", spy)
    return seen


def _early(path):
    return segments.TailHelper.early(path, share=0.3, steal=True)


@pytest.mark.parametrize("stop_at", ["frame", "inside-a-frame"])
def test_iter_plain_stops_before_the_frame_asked(synthetic, stop_at):
    raw, data, limit = open_log(synthetic)
    starts = _frame_starts(synthetic)
    half = len(starts) // 2
    ctl = segments.control()
    ctl[0] = starts[half] - (1 if stop_at == "inside-a-frame" else 0)  # frame half-1 starts before, and is read
    part = RawLog(raw.path, raw.size, raw.mtime_ns, "zstd", b"")
    chunks = list(iter_plain(part, data, limit, stop=ctl, chunk_bytes=1))
    assert len(chunks) == half  # one frame a chunk
    assert part.frame_offsets.tolist() == starts[:half] and part.frames_end == starts[half]
    assert part.torn is None and not part.corruption


def test_the_child_says_how_far_it_has_indexed(synthetic, monkeypatch):
    """ctl[1] is the end of the frames indexed so far (not decoded: decoding runs a chunk ahead)."""
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", 1)
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1 << 14)
    raw, data, limit = open_log(synthetic)
    split = segments.choose_split(data, 0.3)
    ctl = segments.control()
    seen = [(ctl[1], piece.frames_end) for piece in segments._index_tail(raw, data, split, limit, "s", ctl)]
    ends = set(_frame_starts(synthetic)) | {len(data)}
    assert len(seen) > 3 and all(at in ends for at, _end in seen)
    # A slice is sent as the next chunk is decoded, before it is indexed: at the slice's end.
    assert all(at == end for at, end in seen) and seen[-1] == (len(data), len(data))


def test_a_slow_helper_leaves_the_far_part_to_the_parent(synthetic, slow_child, steals, merges):
    log = assert_split_equals_linear(synthetic, _early(synthetic))
    (taken,) = steals
    parts = taken.slices
    assert taken.stop in _frame_starts(synthetic) and parts and parts[-1].final and not parts[-1].stopped
    assert all(a is b for a, b in zip(merges[-len(parts):], parts))  # the parent's slices merged last
    child_last = merges[-len(parts) - 1]
    assert child_last.final and child_last.stopped and child_last.frames_end == taken.stop
    # The child's facts come marshalled through the pipe; the parent's own are merged as they are.
    assert type(child_last.facts) is bytes and all(type(p.facts) is tuple for p in parts)
    assert log.whole and no_children(wait=5)


def test_the_childs_slices_are_merged_while_the_parent_reads_its_part(synthetic, slow_child, steals, monkeypatch):
    """Merging and diagnosing the child's slices is not left until the parent has read its part."""
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", 1)  # every chunk a slice, here and in the child
    when = []  # per merge: (slice, the parent's slices read by then, its part read to the end)
    real = tailmerge.merge_tail

    def spy(*args):
        taken = steals[0] if steals else None
        when.append((args[2], len(taken.slices) if taken else 0, taken is not None and taken._reading is None))
        return real(*args)
    monkeypatch.setattr(tailmerge, "merge_tail", spy)
    assert_split_equals_linear(synthetic, _early(synthetic))
    (taken,) = steals
    mine = [k for k, (piece, _n, _done) in enumerate(when) if any(piece is p for p in taken.slices)]
    assert mine and mine == list(range(mine[0], len(when)))  # the parent's slices come last
    assert any(n and not done for _piece, n, done in when[:mine[0]])  # a child's, between two of the parent's


def test_a_torn_tail_in_the_parents_part(synthetic, tmp_path, slow_child, steals, merges):
    path = tmp_path / "torn.zst"
    path.write_bytes(synthetic.read_bytes()[:-7])
    log = assert_split_equals_linear(path, _early(path))
    assert steals and steals[0].slices[-1].torn is not None and log.raw.torn is not None


def test_a_bad_record_in_the_parents_part_is_read_here_from_the_stop(synthetic, tmp_path, slow_child, steals,
                                                                     merges):
    path = with_bad_record(synthetic, tmp_path, 0.95)
    log = assert_split_equals_linear(path, _early(path))
    (taken,) = steals
    assert taken.slices[-1] is None and log.res.corruption  # unusable: read on linearly from the child's stop
    assert merges[-1].stopped and merges[-1].frames_end == taken.stop


def test_a_stop_the_helper_had_passed_drops_the_parents_part(synthetic, monkeypatch, slow_child, merges):
    """If the child is past the frame the parent chose before it sees the request, it stops where it
    is: the parent's slices do not follow on from there, so it drops them and reads on itself."""
    starts = _frame_starts(synthetic)
    taken = []

    def late(helper, raw, data, split, limit, session_id, _head_rate):
        target = next(s for s in starts if s > split)
        deadline = time.monotonic() + 10
        while helper.ctl[1] <= target and time.monotonic() < deadline:
            time.sleep(0.001)
        taken.append(tailmerge.TakeOver(helper, raw, data, target, limit, session_id))
        return taken[-1]
    monkeypatch.setattr(tailmerge, "_take_over", late)
    log = assert_split_equals_linear(synthetic, _early(synthetic))
    (over,) = taken
    parts = over.finish()
    assert parts[-1].final and not any(m is p for m in merges for p in parts)
    assert merges[-1].stopped and merges[-1].frames_end > over.stop  # then the parent read on from there
    assert log.whole and no_children(wait=5)


def test_a_helper_that_reads_fast_is_left_alone(synthetic, steals, merges, helper_for_small_logs):
    assert_split_equals_linear(synthetic, _early(synthetic))
    assert merges and merges[-1].final and not merges[-1].stopped
    assert all(s is None for s in steals)  # nothing big enough left to take (STEAL_MIN_BYTES)


def test_real_large_log_with_a_late_helper(monkeypatch, steals, merges):
    """The shared 936k-event log, its helper held back at first: the parent takes half its part."""
    from ..support.logs import shared_log
    path = shared_log("large/big-936k-events__session.jsonl.zstd")
    real = segments.iter_plain

    def late(*args, **kw):
        if forked._in_child:
            time.sleep(0.5)
        yield from real(*args, **kw)
    monkeypatch.setattr(segments, "iter_plain", late)
    log = assert_split_equals_linear(path, segments.TailHelper.early(path, share=segments.STEAL_HEAD_SHARE, steal=True))
    (taken,) = steals
    parts = taken.slices
    assert len(parts) > 1 and parts[-1].final and merges[-len(parts) - 1].frames_end == taken.stop
    assert len(log) == 936_202


@pytest.mark.parametrize("child_rate,leave", [(1.0, 0.5), (3.0, 0.75), (0.0, 0.1), (100.0, 0.9)])
def test_the_child_is_left_a_share_of_the_rest_by_the_speeds_so_far(synthetic, monkeypatch, child_rate, leave):
    """Read since the fork: the head here at 1 byte/s for each `child_rate` bytes/s of the child; the
    child keeps that share of what it has left (within STEAL_LEAVE), up to the next frame."""
    monkeypatch.setattr(tailmerge, "STEAL_MIN_BYTES", 1000)
    raw, data, limit = open_log(synthetic)
    split = segments.choose_split(data, 0.3)

    class Helper:
        ctl, started = segments.control(), time.monotonic() - 1000.0
    at = split + int(child_rate * 1000)
    Helper.ctl[1] = at
    taken = tailmerge._take_over(Helper, raw, data, split, limit, "s", 1.0)
    expected = segments.frame_start_after(data, at + int((len(data) - at) * leave))
    assert taken.stop == expected == Helper.ctl[0] and taken.stop in _frame_starts(synthetic)
    assert tailmerge._take_over(Helper, raw, data, len(data) - 100, limit, "s", 1.0) is None  # too little left
