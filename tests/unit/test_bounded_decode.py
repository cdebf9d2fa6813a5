"""Every zstd decode is bounded: a frame is measured before it is held when it could pass the
frame bound (MAX_FRAME_PLAIN) or the plaintext limit, and refused past them with the numbers; the
limit (4 GiB or a quarter of memory) holds in the reader, the tail probe and the views' frame
store; a file is held once; frames without a checksum are counted as unverified."""

from __future__ import annotations

import os
import tracemalloc

import orjson
import pytest
import zstandard

from dsh_tui.model.reading import filewindow
from dsh_tui.model.reading.plainstore import FrameStore, LogChanged
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import MAX_PLAIN_ENV, LogUnreadable, max_plain_bytes
from dsh_tui.model.reading.tail import start_tail_probe, tail_verdict
from dsh_tui.model.reading.frames import CHECK_ABOVE, MAX_FRAME_PLAIN

from ..support.logs import HEADER, crash_records, ev, frame, lines_of
from ..support.hostile_corpus import rle_frame

HEADER_FRAME = frame(orjson.dumps(HEADER) + b"\n")
TEXT_PREFIX = b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"'


def _peak(fn, *args, **kw):
    """(fn's result or the exception it raised, the most Python allocated meanwhile, in bytes)."""
    tracemalloc.start()
    try:
        try:
            out = fn(*args, **kw)
        except Exception as exc:  # noqa: BLE001 - returned for the caller to assert on
            out = exc
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_frame_past_the_frame_bound_is_refused_before_it_is_held(tmp_path):
    path = tmp_path / "bomb.zst"
    path.write_bytes(HEADER_FRAME + rle_frame(MAX_FRAME_PLAIN + (1 << 20), b"x", TEXT_PREFIX))
    err, peak = _peak(load_session, path)
    assert isinstance(err, LogUnreadable) and err.code == "frame-too-large", err
    assert f"frame at byte {len(HEADER_FRAME):,}" in err.message and "more than 256 MiB" in err.message
    assert "dsh writes frames of a few KB" in err.message
    assert peak < 16 << 20  # measured in a reused buffer: none of it is held


def test_a_big_frame_within_the_bounds_is_read_and_shown(tmp_path):
    """A frame whose blocks could pass CHECK_ABOVE is measured, then read; the view decodes it again."""
    size = CHECK_ABOVE + (8 << 20)
    path = tmp_path / "big.zst"
    path.write_bytes(HEADER_FRAME + rle_frame(size, b"y", TEXT_PREFIX, b'"}}\n'))
    log = load_session(path)
    assert len(log) == 1 and not log.res.corruption and isinstance(log.store, FrameStore)
    assert log.event(0).event["data"]["text"] == "y" * (size - len(TEXT_PREFIX) - 4)
    with pytest.raises(LogUnreadable) as info:
        load_session(path, max_plain=size // 2)
    assert info.value.code == "too-large" and f"more than {size // 2:,} bytes" in info.value.message


def test_frames_without_a_checksum_are_counted_and_the_decode_not_whole(tmp_path):
    unchecked = zstandard.ZstdCompressor(write_checksum=False, write_content_size=False)
    first, second = (orjson.dumps(ev("turn/start", k, {"turn": k})) + b"\n" for k in (0, 1))
    path = tmp_path / "s.zst"
    path.write_bytes(HEADER_FRAME + unchecked.compress(first) + frame(second))
    log = load_session(path)
    assert len(log) == 2 and log.raw.unchecked_frames == 1 and log.corruption_count == 0 and not log.whole
    path.write_bytes(HEADER_FRAME + frame(first) + frame(second))
    log = load_session(path)
    assert log.raw.unchecked_frames == 0 and log.whole


def test_the_default_limit_is_4GiB_or_a_quarter_of_memory(monkeypatch):
    monkeypatch.delenv(MAX_PLAIN_ENV, raising=False)
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert max_plain_bytes() == min(4 << 30, ram // 4)
    small_vm = {"SC_PHYS_PAGES": (2 << 30) // 4096, "SC_PAGE_SIZE": 4096}  # this machine, were it a 2 GiB VM
    monkeypatch.setattr(os, "sysconf", small_vm.__getitem__)
    assert max_plain_bytes() == 512 << 20
    monkeypatch.setenv(MAX_PLAIN_ENV, "12345")
    assert max_plain_bytes() == 12345 and max_plain_bytes(99) == 99


@pytest.mark.parametrize("encoding", ["jsonl", "zstd"])
def test_a_file_is_read_a_window_at_a_time_and_never_held(write_jsonl, write_zstd, monkeypatch, encoding):
    """The reader holds a window of the file, not the file: with a window of 4 KiB the index is the
    one a single read makes (a partial last line cut off as before), the text is not kept, and the
    peak of a read is a small part of the file."""
    records = [ev("assistant/chunk", k, {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "text": f"{k}" + "p" * 200}})
               for k in range(60_000)]
    if encoding == "jsonl":
        path = write_jsonl(records, tail=b'\n{"type":"turn/st')
    else:
        path = write_zstd([lines_of(records[k:k + 50]) for k in range(0, len(records), 50)])
    whole = load_session(path)
    monkeypatch.setattr(filewindow, "WINDOW", 4096)
    log, peak = _peak(load_session, path)
    assert log.res == whole.res and log.raw.torn == whole.raw.torn and log.raw.plain == b""
    assert log.event(59_999).event["data"]["chunk"]["text"].startswith("59999p")
    # A few decoded chunks (1 MiB each) and their lines, and the index: not the ~15 MB of text.
    assert len(log.store) > 14 << 20 and peak < 7 << 20, peak


def test_the_tail_probe_holds_to_the_plaintext_limit(write_zstd, monkeypatch):
    path = write_zstd([crash_records()])
    size = path.stat().st_size
    verdict = tail_verdict(path)
    assert verdict is not None and verdict.call_id == "call_a"
    assert tail_verdict(path, limit=size - 1) is None
    monkeypatch.setenv(MAX_PLAIN_ENV, str(size - 1))  # as --max-plain-size is passed on: the env
    assert tail_verdict(path) is None
    monkeypatch.delenv(MAX_PLAIN_ENV)
    probe = start_tail_probe(path, size - 1)
    if probe is not None:  # where fork is available
        assert probe.collect() is None
        assert start_tail_probe(path).collect() == verdict


def test_the_tail_probe_measures_a_bomb_frame_before_decoding_it(write_zstd):
    path = write_zstd([crash_records()])
    path.write_bytes(path.read_bytes() + rle_frame(MAX_FRAME_PLAIN + 1))
    verdict, peak = _peak(tail_verdict, path)
    assert verdict is None and peak < 16 << 20


def test_a_view_decodes_no_more_than_the_index_says(write_zstd):
    """The frame store decodes a frame to at most the plaintext indexed for it: a file changed under
    the view is an error, not whatever its frames now claim."""
    path = write_zstd([lines_of(crash_records()[:2]), lines_of(crash_records()[2:])])
    log = load_session(path)
    assert isinstance(log.store, FrameStore) and log.event(3).event["type"] == "assistant/message"
    data = path.read_bytes()
    start, end = log.raw.frame_offsets[1], log.raw.frame_offsets[2]
    path.write_bytes(data[:start] + rle_frame(1 << 30)[:end - start] + data[end:])  # decodes to ~MBs
    log.store._cache.clear()
    log.parse_record.cache_clear()
    for read in (lambda: log.record_bytes(0), lambda: log.store.slice(0, len(log.store))):
        err, peak = _peak(read)
        assert isinstance(err, LogChanged) and "changed since it was read" in str(err), err
        assert peak < 4 << 20


def test_a_big_frame_of_many_records_is_indexed_a_piece_at_a_time(tmp_path):
    """A frame that must be measured (past CHECK_ABOVE) and holds many records is decoded a piece
    at a time, cut at newlines: the same index as small frames give, and never its whole text held."""
    body = [orjson.dumps(ev("assistant/chunk", k, {"turn": 1, "step": 1, "chunk": {"type": "text-delta",
                                                                                     "text": f"{k:08d}" + "q" * 160}}))
            for k in range(200_000)]
    text = b"".join(line + b"\n" for line in body)
    assert len(text) > CHECK_ABOVE
    one, many = tmp_path / "one.zst", tmp_path / "many.zst"
    one.write_bytes(HEADER_FRAME + frame(text))
    many.write_bytes(HEADER_FRAME + b"".join(frame(b"".join(line + b"\n" for line in body[k:k + 1000]))
                                             for k in range(0, len(body), 1000)))
    log, peak = _peak(load_session, one, parallel=False)
    assert log.res == load_session(many, parallel=False).res and log.raw.frames == 2
    # ~0.4x here (the decoder's pieces and the scan's lines); decoded whole, it was ~1.1x
    assert peak < len(text) / 2, f"{peak / len(text):.2f}x the frame's text"
    assert log.event(199_999).event["data"]["chunk"]["text"].startswith("00199999")
