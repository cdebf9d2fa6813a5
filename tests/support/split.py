"""The split read (a forked helper reading the tail) checked against the linear read."""

from __future__ import annotations

import zstandard

from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.frames import walk_frames
from dsh_tui.model.reading.session import load_session

from .logs import frame


def assert_split_equals_linear(path, early=None, head_share=None):
    split = load_session(path, parallel=True, early=early, head_share=head_share)
    linear = load_session(path, parallel=False)
    assert split.res == linear.res
    assert list(split.res.usage_calls.items()) == list(linear.res.usage_calls.items())  # order too: turns' order
    for attr in ("frames", "frame_offsets", "frame_plain", "frames_end", "torn", "corruption", "unchecked_frames"):
        assert getattr(split.raw, attr) == getattr(linear.raw, attr), attr
    assert len(split.store) == len(linear.store)
    a, b = split._scanner, linear._scanner
    assert (a.expected, a.skipped, a.type_ids, a.projected) == (b.expected, b.skipped, b.type_ids, b.projected)
    assert check_json(split, diagnose(split), None) == check_json(linear, diagnose(linear), None)
    if len(split):
        last = len(split) - 1
        assert split.event(last).event == linear.event(last).event
    return split


def with_bad_record(path, tmp_path, at: float):
    """A copy of ``path`` whose frame at ``at`` (a share of the file) starts with a line that is not JSON."""
    data = path.read_bytes()
    spans = list(walk_frames(memoryview(data)))
    span = next(s for s in spans if s.start >= len(data) * at)
    plain = zstandard.ZstdDecompressor().decompressobj().decompress(data[span.start:span.end])
    out = tmp_path / f"bad-record-{at}.zst"
    out.write_bytes(data[:span.start] + frame(b"{not json\n" + plain) + data[span.end:])
    return out
