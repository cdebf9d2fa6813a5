"""Property: the split read (a forked helper indexes the tail, the parent merges it) equals the
linear read on mutated logs small enough to split. The logs are re-framed from a mutated
plaintext (lines dropped, duplicated, corrupted, moved), so the split lands among many frames,
and some are damaged as files (a torn tail, a flipped compressed byte)."""

from __future__ import annotations

import os

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_tui.model.reading.split import helper as segments
from dsh_tui.model.reading.source import LogUnreadable

from ..support.hostile_corpus import demo_file
from ..support.logs import frame
from ..support.split import assert_split_equals_linear

pytestmark = [pytest.mark.skipif(not hasattr(os, "fork"), reason="the tail helper needs os.fork"),
              pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")]  # the fixture's long repr

LINE_OPS = st.lists(st.tuples(st.sampled_from(["drop", "dup", "flip", "move", "blank"]),
                              st.integers(0, 2**31), st.integers(0, 2**31)), max_size=4)


@pytest.fixture(scope="module")
def demo_lines(tmp_path_factory):
    data = demo_file(tmp_path_factory.mktemp("demo"), "zstd").read_bytes()
    plain = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    out = b""
    dctx = zstandard.ZstdDecompressor()
    view, pos = memoryview(data), 0
    while pos < len(data):  # every frame (decompressobj stops at the first)
        reader = dctx.stream_reader(view[pos:], read_across_frames=False)
        out += reader.read()
        pos += reader.tell()
    assert out.startswith(plain)
    return out.split(b"\n")[:-1]


def _mutated(lines: list[bytes], ops) -> list[bytes]:
    header, body = lines[0], list(lines[1:])
    for op, a, b in ops:
        if not body:
            break
        k = a % len(body)
        if op == "drop":
            del body[k]
        elif op == "dup":
            body.insert(k, body[k])
        elif op == "flip":
            line = body[k]
            if line:
                i = b % len(line)
                body[k] = line[:i] + bytes([line[i] ^ (1 + b % 127)]) + line[i + 1:]
        elif op == "move":
            body.insert(b % len(body), body.pop(k))
        elif op == "blank":
            body.insert(k, b"")
    return [header] + body


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=LINE_OPS, per_frame=st.integers(1, 6), share=st.floats(0.05, 0.95),
       damage=st.sampled_from(["none", "torn", "flip"]), where=st.integers(0, 2**31))
def test_the_split_read_equals_the_linear_read_on_mutated_logs(demo_lines, tmp_path, ops, per_frame, share,
                                                                damage, where):
    __tracebackhide__ = True
    lines = _mutated(demo_lines, ops)
    frames = [frame(lines[0] + b"\n")] + [frame(b"".join(line + b"\n" for line in lines[k:k + per_frame]))
                                          for k in range(1, len(lines), per_frame)]
    data = b"".join(frames)
    if damage == "torn":
        data = data[:len(frames[0]) + where % max(1, len(data) - len(frames[0]))]
    elif damage == "flip":
        i = len(frames[0]) + where % max(1, len(data) - len(frames[0]))
        data = data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:] if i < len(data) else data
    path = tmp_path / f"mutated-{os.getpid()}-{abs(hash((tuple(ops), per_frame, damage, where)))}.zst"
    path.write_bytes(data)
    split = segments.choose_split(data, share)
    try:
        assert_split_equals_linear(path, head_share=share)
    except LogUnreadable as exc:  # then both refuse it, with the same words
        from dsh_tui.model.reading.session import load_session
        with pytest.raises(LogUnreadable) as linear:
            load_session(path, parallel=False)
        assert (linear.value.code, linear.value.message) == (exc.code, exc.message)
    assert split is None or 0 < split < len(data)


def test_the_property_reaches_the_split(demo_lines, tmp_path, monkeypatch):
    """The demo log re-framed a line a frame splits, and the helper's slices are merged."""
    merged = []
    real = segments.TailHelper.next_slice

    def spy(self, *a, **kw):
        piece = real(self, *a, **kw)
        merged.append(piece)
        return piece
    monkeypatch.setattr(segments.TailHelper, "next_slice", spy)
    path = tmp_path / "framed.zst"
    path.write_bytes(b"".join(frame(line + b"\n") for line in demo_lines))
    assert_split_equals_linear(path, head_share=0.5)
    assert merged and merged[-1] is not None and merged[-1].final
