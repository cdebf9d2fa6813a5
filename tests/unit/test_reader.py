"""Decoding rules (DSH-FORMAT 2-5) on small logs the tests build."""

from __future__ import annotations

import orjson
import pytest

from dsh_tui.model.reading.facts import CHUNKS
from dsh_tui.model.reading.session import LogRejected, load_session
from dsh_tui.model.reading.source import LogUnreadable
from dsh_tui.model.reading.frames import walk_frames

from ..support.logs import HEADER, chunk, ev, frame, row


def test_many_frames_are_all_read_and_offsets_kept(write_zstd):
    batches = [[ev("turn/start", 0, {"turn": 1})], [ev("step/start", 1, {"turn": 1, "step": 1})],
               [ev("step/end", 2, {"turn": 1, "step": 1}), ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}})]]
    log = load_session(write_zstd(batches))
    assert log.raw.encoding == "zstd" and log.raw.frames == 4 and len(log) == 4 and log.whole
    data = log.path.read_bytes()
    assert list(log.raw.frame_offsets) == [s.start for s in walk_frames(data)]


def test_frame_offsets_are_uint32_until_one_is_not(write_zstd):
    """A frame's file and plaintext offsets take 4 bytes each until one is past 4 GiB, 8 from there on:
    decoded on from a plaintext offset just under it (as a followed log is), or appended by a merge."""
    from array import array

    import zstandard

    from dsh_tui.model.reading.source import RawLog, add_frames, iter_plain
    batches = [[ev("turn/start", 0, {"turn": 1})], [ev("step/start", 1, {"turn": 1, "step": 1})]]
    path = write_zstd(batches)
    data = path.read_bytes()
    starts = [s.start for s in walk_frames(data)]
    raw = RawLog(path, len(data), 0, "zstd", b"")
    assert raw.frame_offsets.typecode == raw.frame_plain.typecode == "I"
    near = 2**32 - 2  # the header line is longer: the frames after it start past uint32
    text = b"".join(iter_plain(raw, data, 2**40, produced=near))
    assert raw.frame_offsets.typecode == raw.frame_plain.typecode == "Q" and raw.frames == 3
    assert list(raw.frame_offsets) == starts
    sizes = [len(zstandard.ZstdDecompressor().decompressobj().decompress(bytes(data[s.start:s.end])))
             for s in walk_frames(data)]
    assert list(raw.frame_plain) == [near, near + sizes[0], near + sizes[0] + sizes[1]]
    assert sum(sizes) == len(text) and near + sizes[0] > 2**32
    raw.frame_offsets, raw.frame_plain = array("I", [0, 10]), array("I", [0, 20])
    add_frames(raw, [30], [40])
    assert raw.frame_offsets.typecode == "I" and list(raw.frame_plain) == [0, 20, 40]
    add_frames(raw, [50, 2**32 + 1], [60, 70])
    assert (raw.frame_offsets.typecode, raw.frame_plain.typecode) == ("Q", "I")
    assert list(raw.frame_offsets) == [0, 10, 30, 50, 2**32 + 1] and list(raw.frame_plain) == [0, 20, 40, 60, 70]


def test_encoding_detected_by_magic_not_name(write_zstd, write_jsonl, tmp_path):
    z = write_zstd([[ev("turn/start", 0, {"turn": 1})]], name="misnamed.jsonl")
    j = write_jsonl([ev("turn/start", 0, {"turn": 1})], name="misnamed.jsonl.zstd")
    assert load_session(z).raw.encoding == "zstd"
    assert load_session(j).raw.encoding == "jsonl"


def test_packed_rows_expand_with_seq_and_dt_times(write_zstd):
    records = [chunk(0, "a"), row(1, ["b", "c", "d"], [2, -1]), chunk(4, "e"),
               {"type": "tool-call-chunks", "seq0": 5, "time0": 50,
                "data": {"turn": 1, "step": 1, "index": 1, "dt": [1, 1], "id": "call_x", "args": ["{", "\"a\"", ":1}"]}}]
    log = load_session(write_zstd([records]))
    assert len(log) == 8 and log.records == 4 and not log.res.gaps
    member = log.event(2)
    assert member.packed == ("text-chunks", 1, 3)
    assert member.event["data"]["chunk"] == {"type": "text-delta", "index": 0, "text": "c"}
    assert member.seq == 2 and member.time == 1002
    assert log.event(3).time == 1001  # negative dt is legal
    tool = log.event(7)
    assert tool.event["data"]["chunk"] == {"type": "tool-call-delta", "index": 1, "id": "call_x", "argumentsDelta": ":1}"}
    assert log.type_of(6) == "assistant/chunk"


MAX_SAFE = 2**53 - 1


@pytest.mark.parametrize("texts, dt, extra, malformed", [
    (["a", "b", "c"], [0, 0], {}, False),
    (["a"], [], {}, False),  # one member, no dt
    (["a", "b", "c"], [-MAX_SAFE, MAX_SAFE], {}, False),  # the safe-integer bounds are legal
    (["a", "b", "c"], [0, MAX_SAFE + 1], {}, True),
    (["a", "b", "c"], [-MAX_SAFE - 1, 0], {}, True),
    (["a", "b", "c"], [0, 1.0], {}, True),  # a float, even a whole one
    (["a", "b", "c"], [True, 0], {}, True),  # a bool is not an integer
    (["a", "b", "c"], [0, None], {}, True),
    (["a", "b", "c"], [0], {}, True),  # dt too short
    (["a", "b", "c"], [0, 0, 0], {}, True),
    (["a", 1, "c"], [0, 0], {}, True),  # a member that is not a string
    (["a", ["b"], "c"], [0, 0], {}, True),
    ([], [], {}, True),  # no members
    ("abc", [0, 0], {}, True),
    (["a", "b"], [0], {"extra_envelope": True}, True),  # a key outside type/seq0/time0/data
])
def test_packed_row_checks_at_their_edges(write_jsonl, texts, dt, extra, malformed):
    r = row(0, texts, dt)
    if extra:
        r["ignorable"] = True
    log = load_session(write_jsonl([r]))
    assert log.res.malformed_rows == int(malformed)
    assert any(c.kind == "malformed-row" for c in log.res.corruption) == malformed


def test_seq_gap_reported_with_expected_found_line_and_cause(write_jsonl):
    path = write_jsonl([ev("turn/start", 0, {"turn": 1}), ev("step/start", 1, {"turn": 1, "step": 1}),
                        chunk(5, "x"), chunk(6, "y"), chunk(6, "dup")])
    log = load_session(path)
    g1, g2 = log.res.gaps
    assert (g1.expected, g1.found, g1.line) == (2, 5, 4)
    assert "dropped packed chunk row" in g1.cause
    assert (g2.expected, g2.found, g2.line) == (7, 6, 6) and "repeats" in g2.cause
    assert log.seq_of(2) == 5 and log.index_of_seq(5) == 2 and log.index_of_seq(3) is None
    assert not log.whole


@pytest.mark.parametrize("first", [True, False])  # the first record and the hot path read chunks apart
def test_a_chunk_whose_type_is_not_a_string_is_indexed_not_a_crash(write_jsonl, first):
    odd = ev("assistant/chunk", 0 if first else 1, {"turn": 1, "step": 1, "chunk": {"type": {"x": [1]}}})
    usage = ev("assistant/chunk", 1 if first else 0, {"turn": 1, "step": 1,
                                                     "chunk": {"type": "usage", "usage": {"inputTokens": 3}}})
    log = load_session(write_jsonl([odd, usage] if first else [usage, odd]))
    assert len(log) == 2 and log.whole
    assert not [f for f in log.res.facts if f[0] != CHUNKS]  # only the model stream's clock (facts.py)
    assert list(log.res.usage_calls.values()) == [(1 if first else 0, (3, 0, 0, 0, 0), True)]


def test_projected_fixture_gets_seq_by_position(write_jsonl):
    recs = [{"type": "turn/start", "data": {"turn": 1}}, {"type": "text-chunks", "data": {
        "turn": 1, "step": 1, "index": 0, "dt": [0, 0], "texts": ["a", "b", "c"]}}, {"type": "step/end", "data": {}}]
    log = load_session(write_jsonl(recs))
    assert log.res.projected and len(log) == 5 and not log.res.gaps
    assert log.event(4).seq == 4


def test_unknown_types_counted_required_vs_ignorable(write_jsonl):
    log = load_session(write_jsonl([ev("acme/x", 0), ev("acme/x", 1), ev("acme/y", 2, ignorable=True)]))
    u = log.res.unknown
    assert (u["acme/x"].count, u["acme/x"].ignorable) == (2, False)
    assert (u["acme/y"].count, u["acme/y"].ignorable) == (1, True)
    assert len(log) == 3 and log.type_of(0) == "acme/x"


@pytest.mark.parametrize("cut", ["checksum", "block", "header"])
def test_torn_final_frame_keeps_complete_frames(write_zstd, cut):
    path = write_zstd([[ev("turn/start", 0, {"turn": 1})], [ev("step/start", 1, {"turn": 1, "step": 1})]])
    data = path.read_bytes()
    last = list(walk_frames(data))[-1]
    keep = {"checksum": len(data) - 2, "block": last.start + 8, "header": last.start + 3}[cut]
    path.write_bytes(data[:keep])
    log = load_session(path)
    assert log.raw.torn.offset == last.start and log.raw.torn.kind == "truncated-frame"
    assert log.raw.torn.unreadable_bytes == keep - last.start
    assert log.raw.frames == 2
    # only a tear inside the checksum keeps the batch's data (as dsh's flush read does)
    assert len(log) == (2 if cut == "checksum" else 1)
    assert log.raw.torn.recovered_records == (1 if cut == "checksum" else 0)


def test_checksum_failure_is_corruption_and_earlier_frames_stay(write_zstd):
    path = write_zstd([[ev("turn/start", 0, {"turn": 1})], [ev("step/start", 1, {"turn": 1, "step": 1})]])
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    log = load_session(path)
    assert len(log) == 1 and log.raw.corruption and log.raw.corruption[0].kind == "bad-frame"
    assert "checksum" in log.raw.corruption[0].message


@pytest.mark.parametrize("tail,kind", [(b"\x50\x2a\x4d\x18\x00\x00\x00\x00", "skippable-frame"),
                                       (b"garbage!", "trailing-garbage")])
def test_bytes_after_last_frame_are_reported(write_zstd, tail, kind):
    path = write_zstd([[ev("turn/start", 0, {"turn": 1})]])
    size = path.stat().st_size
    path.write_bytes(path.read_bytes() + tail)
    log = load_session(path)
    assert len(log) == 1 and log.raw.corruption[0].kind == kind and log.raw.corruption[0].offset == size


def test_plain_torn_last_line_and_bad_middle_line(write_jsonl):
    path = write_jsonl([ev("turn/start", 0, {"turn": 1}), b"{not json", ev("step/start", 1, {"turn": 1, "step": 1}),
                        b'{"type":"step/end","seq":2,"ti'], tail=b"")
    log = load_session(path)
    assert log.raw.torn.kind == "partial-line" and log.raw.torn.unreadable_bytes == len(b'{"type":"step/end","seq":2,"ti')
    assert [c.line for c in log.res.corruption] == [3]
    assert len(log) == 2 and log.seq_of(1) == 1


def _odd_lines():
    return [ev("turn/start", 0, {"turn": 1}), b"", b" \r", b"{not json", b"   ", b"[1]",
            row(1, ["a", "b"], [True]), ev("step/start", 3, {"turn": 1, "step": 1}), b"", chunk(4, "x")]


def test_record_and_report_offsets_point_at_their_lines(write_jsonl):
    """Blank lines, bad lines and a malformed row: every record's span and every report's offset
    is where its line is in the file (the scan sums them from line lengths after reading)."""
    path = write_jsonl(_odd_lines())
    text = path.read_bytes()
    log = load_session(path)
    starts = [0] + [i + 1 for i, b in enumerate(text) if b == 10]
    lines = text.split(b"\n")
    records = [k for k, line in enumerate(lines) if k and line.strip() and line.startswith(b'{"type"')]
    assert [(log.res.rec_start[r], log.res.end_of(r)) for r in range(log.records)] == [
        (starts[k], starts[k] + len(lines[k])) for k in records]
    assert [(c.kind, c.offset, c.line) for c in log.res.corruption] == [
        ("bad-record", starts[4], 5), ("bad-record", starts[5], 6), ("bad-record", starts[6], 7),
        ("malformed-row", starts[7], 8)]
    assert "non-integer" in log.res.corruption[-1].message
    assert [log.line_of_record(r) for r in range(log.records)] == [k + 1 for k in records]
    assert len(log) == 5 and log.seq_of(4) == 4


def test_any_window_size_gives_the_same_index(write_jsonl, monkeypatch):
    """The scan splits its input into windows of lines; where they end changes nothing."""
    from dsh_tui.model.reading import scan
    path = write_jsonl(_odd_lines() * 3)
    whole = load_session(path).res
    for window in (1, 7, 40, 200):
        monkeypatch.setattr(scan, "WINDOW", window)
        assert load_session(path).res == whole, window


def test_an_unterminated_last_line_ends_with_the_text(monkeypatch):
    """Fed text that does not end with a newline: the last record ends where the text does (bytes,
    a bytearray or a view, in windows or as lines longer than a window)."""
    from dsh_tui.model.reading import scan
    first, last = b'{"type":"step/end","seq":0,"data":{}}', b'{"type":"step/end","seq":1,"data":{}}'
    text = first + b"\n\n" + last
    for window in (1, 10, 1 << 20):
        monkeypatch.setattr(scan, "WINDOW", window)
        for fed in (text, bytearray(text), memoryview(text)):
            scanner = scan.Scanner(0, None)
            scanner.feed(fed, 100)
            res = scanner.finish()
            spans = [(res.rec_start[r], res.end_of(r)) for r in range(len(res.rec_start))]
            assert spans == [(100, 100 + len(first)), (102 + len(first), 100 + len(text))], (window, type(fed))
            assert list(res.skip_rec) == [1] and res.lines_skipped_before(1) == 1


def test_lenient_json_fallback_for_lone_surrogates_and_big_ints(write_jsonl):
    path = write_jsonl([b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"\\ud83d x","n":123456789012345678901234}}'])
    log = load_session(path)
    assert len(log) == 1 and log.res.lenient_records == 1
    assert log.event(0).event["data"]["text"].startswith("\ud83d")


@pytest.mark.parametrize("change,code,words", [
    ({"version": 1}, "UNSUPPORTED_VERSION", "newer harness"),
    ({"version": -1}, "UNSUPPORTED_VERSION", "older harness"),
    ({"version": "0"}, "BAD_HEADER", "not a number"),
    ({"delegationDepth": None}, "MISSING_DELEGATION_DEPTH", "delegationDepth"),
    ({"delegationDepth": -1}, "BAD_DELEGATION_DEPTH", "delegationDepth"),
    ({"delegationDepth": -0.0}, "BAD_DELEGATION_DEPTH", "delegationDepth"),
    ({"sandboxMode": "x"}, "RETIRED_HEADER_FIELDS", "retired"),
    ({"cwd": "relative/dir"}, "BAD_HEADER", "absolute"),
    ({"origin": "other"}, "BAD_HEADER", "origin"),
])
def test_header_rejections(write_jsonl, change, code, words):
    header = {**HEADER, **change}
    if change.get("delegationDepth", 0) is None:
        del header["delegationDepth"]
    log = load_session(write_jsonl([], header=header))
    assert log.header.rejection.code == code and words in log.header.rejection.message
    assert not log.accepted


def test_header_integral_float_depth_is_accepted_and_unknown_keys_ignored(write_jsonl):
    log = load_session(write_jsonl([], header={**HEADER, "delegationDepth": 1.0, "parentSession": "p", "extra": 1}))
    assert log.accepted and log.header.delegated and log.header.delegation_depth == 1


def test_not_a_session_log(write_jsonl, tmp_path):
    with pytest.raises(LogRejected):
        load_session(write_jsonl([], header={"hello": "world"}))
    other = tmp_path / "x.bin"
    other.write_bytes(b"\x00\x01binary")
    with pytest.raises(LogUnreadable, match="neither zstd nor JSONL"):
        load_session(other)


def test_header_frame_must_be_exactly_the_header(tmp_path):
    path = tmp_path / "s.zst"
    path.write_bytes(frame(orjson.dumps(HEADER) + b"\n" + orjson.dumps(ev("turn/start", 0, {"turn": 1})) + b"\n"))
    log = load_session(path)
    assert log.header.rejection.code == "HEADER_FRAME" and len(log) == 1


def test_decompression_bomb_refused_with_numbers(tmp_path):
    path = tmp_path / "bomb.zst"
    body = b"\n".join([orjson.dumps(HEADER)] + [b'{"type":"x","seq":0,"time":0,"data":"' + b"A" * 4_000_000 + b'"}']) + b"\n"
    path.write_bytes(frame(orjson.dumps(HEADER) + b"\n") + frame(body))
    assert path.stat().st_size < 10_000
    with pytest.raises(LogUnreadable) as info:
        load_session(path, max_plain=1_000_000)
    assert info.value.code == "too-large" and "more than 1,000,000 bytes" in info.value.message and "ratio over" in info.value.message


def test_search_finds_text_inside_a_packed_member(write_jsonl):
    log = load_session(write_jsonl([chunk(0, "a"), row(1, ["b", "needle", "d"], [1, 1]), chunk(4, "Needle2")]))
    assert log.search("needle", 0) == 2
    assert log.search("NEEDLE2", 2) == 4
    assert log.search("needle", 4, backward=True) == 2
    assert log.search("absent", 0) is None


def test_record_offsets_are_uint32_until_one_does_not_fit():
    from array import array
    from dsh_tui.model.reading.scanresult import ScanResult, extend_offsets
    res = ScanResult(0)
    extend_offsets(res, [0, 10, 2**32 - 1])
    extend_offsets(res, array("Q", [2**32 - 1]))
    assert res.rec_start.typecode == "I" and list(res.rec_start) == [0, 10, 2**32 - 1, 2**32 - 1]
    extend_offsets(res, [2**32 - 1, 2**32, 2**40])  # past 4 GiB (a raised plaintext limit): all kept, exactly
    assert res.rec_start.typecode == "Q" and list(res.rec_start)[3:] == [2**32 - 1, 2**32 - 1, 2**32, 2**40]
    extend_offsets(res, array("Q", [2**41]))
    assert res.rec_start[-1] == 2**41 and len(res.rec_start) == 8


def test_surface_seqs_are_uint32_until_one_is_not():
    from dsh_tui.model.reading import scan
    from dsh_tui.model.reading.split.merge import append_segment
    """The surface events' seqs (what the fold reads) take 4 bytes each until a seq past uint32 (a
    crafted log's: dsh's seqs go to 2**53), from which they take 8, in a linear read and a merge."""
    def user(seq: int) -> bytes:
        return orjson.dumps({"type": "user/message", "seq": seq, "time": 1, "surfaceOp": "append", "data": {
            "id": f"u{seq}", "role": "user", "source": {"kind": "user"}, "content": []}}) + b"\n"
    big = 2**32 + 5
    scanner = scan.Scanner(0, None)
    scanner.feed(user(0) + user(1), 0)
    assert scanner.res.surface_seqs.typecode == "I"
    scanner.feed(user(big) + user(big + 1), 100)
    res = scanner.finish()
    assert res.surface_seqs.typecode == "Q" and list(res.surface_seqs) == [0, 1, big, big + 1]
    head, tail = scan.Scanner(0, None), scan.Scanner.segment(None, big, 2)
    head.feed(user(0) + user(1), 0)
    tail.feed(user(big) + user(big + 1), 0)
    append_segment(head, tail, 200, big, 2, *tail.take_facts())
    assert head.res.surface_seqs.typecode == "Q" and list(head.res.surface_seqs) == [0, 1, big, big + 1]
