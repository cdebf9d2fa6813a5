"""fastscan (msgspec, a chunk at a time) and the line-by-line path index every log identically.

The fast path may only ever decline a chunk; whatever it indexes must be what
the line path would have indexed, findings and check JSON included.
"""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model import scan
from dsh_tui.model.diagnosis import diagnose
from dsh_tui.model.report import check_json
from dsh_tui.model.session import load_session
from dsh_tui.model.source import LogUnreadable

from .conftest import DSH_LOGS, HEADER, ev, frame
from .hostile_corpus import demo_file


def _load(path, fast: bool):
    old = scan.FAST
    scan.FAST = fast
    try:
        return load_session(path, lenient=True, parallel=False)
    finally:
        scan.FAST = old


def same_both_ways(path, lenient_diff: int = 0):
    """Loads ``path`` with and without the fast path; asserts one index; returns the fast load.

    ``lenient_diff``: lines the line path parses leniently and the fast path reads as
    plain JSON (a number orjson refuses in a skipped payload: fastscan's docstring)."""
    try:
        fast = _load(path, True)
    except LogUnreadable as exc:
        with pytest.raises(LogUnreadable) as slow_exc:
            _load(path, False)
        assert slow_exc.value.message == exc.message
        return None
    slow = _load(path, False)
    assert slow._scanner.fast_records == 0
    assert fast.res.lenient_records + lenient_diff == slow.res.lenient_records
    slow.res.lenient_records = fast.res.lenient_records
    assert fast.res == slow.res
    a, b = fast._scanner, slow._scanner
    assert (a.expected, a.skipped, a.type_ids, a.projected) == (b.expected, b.skipped, b.type_ids, b.projected)
    assert check_json(fast, diagnose(fast), None) == check_json(slow, diagnose(slow), None)
    return fast


def _plain(tmp_path, lines: list[bytes], name="s.jsonl"):
    path = tmp_path / name
    path.write_bytes(orjson.dumps(HEADER) + b"\n" + b"\n".join(lines) + b"\n")
    return path


def _chunks(seq: int, n: int) -> list[bytes]:
    return [orjson.dumps(ev("assistant/chunk", seq + k, {"turn": 1, "step": 1,
                                                        "chunk": {"type": "text-delta", "index": 0, "text": "t"}}))
            for k in range(n)]


SHARED = sorted(p for p in DSH_LOGS.glob("*/*") if p.is_file() and "session" in p.name
                and "large" not in p.parts) if DSH_LOGS.exists() else []


@pytest.mark.skipif(not SHARED, reason="../shared absent")
def test_every_shared_fixture_and_written_log_indexes_the_same():
    for path in SHARED:
        log = same_both_ways(path)
        if log is None or log._scanner.projected:
            continue  # dsh's projected fixtures carry no seq: always line by line
        if path.parent.name == "written" and "unknown-type" not in path.name:
            assert log._scanner.fast_records == log.records - 1, path.name  # all but the first record


def test_generated_log_goes_fast_and_identical(tmp_path):
    path = tmp_path / "g.jsonl.zstd"
    write_synthetic(path, 20_000, seed=5)
    log = same_both_ways(path)
    assert log.records - 1 <= log._scanner.fast_records <= log.records  # all but the first record


def test_big_shared_log_indexes_the_same():
    path = DSH_LOGS / "large" / "big-936k-events__session.jsonl.zstd"
    if not path.exists():
        pytest.skip("../shared absent")
    log = same_both_ways(path)
    assert log._scanner.fast_records == log.records - 1


# Each line below makes the fast path decline its chunk; the line path must report it exactly.
ODD_LINES = {
    "unknown type": orjson.dumps(ev("plugin/thing", 3, {"a": 1})),
    "unknown type, ignorable": orjson.dumps(ev("plugin/thing", 3, {"a": 1}, ignorable=True)),
    "extra envelope key": orjson.dumps(ev("turn/start", 3, {"turn": 1}, extra=1)),
    "seq gap": orjson.dumps(ev("turn/start", 9, {"turn": 1})),
    "seq as float": orjson.dumps(ev("turn/start", 3.0, {"turn": 1})),
    "seq missing": orjson.dumps({"type": "turn/start", "time": 1, "data": {"turn": 1}}),
    "not json": b'{"type":"turn/start","seq":3,',
    "not an object": b'[1,2,3]',
    "blank line": b"",
    "spaces": b"   ",
    "invalid utf-8 in a payload": b'{"type":"assistant/chunk","seq":3,"time":1,"data":{"turn":1,"step":1,'
                                  b'"chunk":{"type":"text-delta","index":0,"text":"\xff"}}}',
    "lone surrogate": b'{"type":"tool/call","seq":3,"time":1,"data":{"callId":"c","arguments":"\\ud800"}}',
    "malformed row": orjson.dumps({"type": "text-chunks", "seq0": 3, "time0": 1,
                                   "data": {"turn": 1, "step": 1, "index": 0, "dt": [1], "texts": ["a", 5]}}),
    "row dt too short": orjson.dumps({"type": "text-chunks", "seq0": 3, "time0": 1,
                                      "data": {"turn": 1, "step": 1, "index": 0, "dt": [], "texts": ["a", "b"]}}),
    "row unsafe dt": orjson.dumps({"type": "text-chunks", "seq0": 3, "time0": 1,
                                   "data": {"turn": 1, "step": 1, "index": 0, "dt": [2**60], "texts": ["a", "b"]}}),
    "chunk without data": orjson.dumps({"type": "assistant/chunk", "seq": 3, "time": 1}),
    "chunk with null chunk": orjson.dumps(ev("assistant/chunk", 3, {"turn": 1, "chunk": None})),
    "chunk type not hashable": orjson.dumps(ev("assistant/chunk", 3, {"chunk": {"type": {"x": 1}}})),
    "legacy assistant message": orjson.dumps(ev("assistant/message", 3, {"turn": 1, "content": [
        {"type": "tool-call", "id": "c1", "name": "bash", "arguments": "{}"}]})),
    "assistant message not an object": orjson.dumps(ev("assistant/message", 3, [1])),
    "legacy tool result": orjson.dumps(ev("tool/result", 3, {"callId": "c1", "content": [], "isError": True},
                                          surfaceOp="append")),
    "legacy turn end": orjson.dumps(ev("turn/end", 3, {"turn": 1, "reason": {"kind": "disposed"}})),
    "steering message": orjson.dumps(ev("steering/message", 3, {"content": [{"type": "text", "text": "hi"}]})),
    "big number in a fact": b'{"type":"turn/start","seq":3,"time":1,"data":{"turn":1e999}}',
    "second header": orjson.dumps(HEADER),
    "deep nesting": b'{"type":"feedback/record","seq":3,"time":1,"data":' + b"[" * 5000 + b"]" * 5000 + b"}",
}


@pytest.mark.parametrize("name", sorted(ODD_LINES))
@pytest.mark.parametrize("encoding", ["jsonl", "zstd"])
def test_an_odd_line_is_read_line_by_line_and_the_rest_stays_fast(tmp_path, name, encoding):
    lines = _chunks(0, 3) + [ODD_LINES[name]] + _chunks(4, 2000)
    if encoding == "jsonl":
        path = _plain(tmp_path, lines)
    else:  # the odd line in a frame of its own between two ordinary frames
        path = tmp_path / "s.jsonl.zstd"
        path.write_bytes(frame(orjson.dumps(HEADER) + b"\n") + frame(b"\n".join(lines[:3]) + b"\n")
                         + frame(lines[3] + b"\n") + frame(b"\n".join(lines[4:]) + b"\n"))
    log = same_both_ways(path)
    if log is not None:  # only the odd line's neighbourhood went line by line
        assert log._scanner.fast_records >= 1900


def test_a_number_orjson_refuses_in_a_skipped_payload_is_plain_json_to_the_fast_path(tmp_path):
    odd = b'{"type":"agent/inbox/spliced","seq":3,"time":1e999,"data":{"n":-1e400}}'
    log = same_both_ways(_plain(tmp_path, _chunks(0, 3) + [odd] + _chunks(4, 5)), lenient_diff=1)
    assert log._scanner.fast_records == 8 and log.res.lenient_records == 0 and log.whole


def test_the_fast_path_keeps_every_fact(tmp_path):
    lines = [orjson.dumps(e) for e in (
        ev("turn/start", 0, {"turn": 1}),
        ev("step/start", 1, {"turn": 1, "step": 1}),
        ev("request/header", 2, {"header": {"tools": [{"name": "bash"}], "config": {"model": "m"}}}),
        ev("assistant/chunk", 3, {"turn": 1, "step": 1, "chunk": {"type": "usage", "usage": {"inputTokens": 5}}}),
        ev("assistant/chunk", 4, {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": "tool-calls"}}),
        ev("assistant/message", 5, {"turn": 1, "step": 1, "usage": {"outputTokens": 2}, "message": {
            "id": "m", "role": "assistant", "content": [
                {"type": "reasoning", "text": "think"}, {"type": "tool-call", "id": "c1", "name": "bash",
                                                         "arguments": '{"cmd":"ls"}'}]}}),
        ev("tool/call", 6, {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": '{"cmd":"ls"}'}),
    )]
    lines.append(orjson.dumps({"type": "tool-call-chunks", "seq0": 7, "time0": 1, "data": {
        "turn": 1, "step": 1, "index": 0, "dt": [1, -2], "id": "c2", "args": ["a", "b", "c"]}}))
    log = same_both_ways(_plain(tmp_path, lines))
    assert log._scanner.fast_records == len(lines) - 1
    kinds = [f.type for f in log.res.facts]
    assert kinds == ["turn/start", "step/start", "request/header", "chunk/usage", "chunk/finish",
                     "assistant/message", "tool/call"]
    assert log.res.facts[5].data["calls"] == [{"id": "c1", "name": "bash", "args": '{"cmd":"ls"}'}]
    assert len(log) == 10 and log.whole


@pytest.fixture(scope="module")
def demo_lines(tmp_path_factory):
    return demo_file(tmp_path_factory.mktemp("demo"), "jsonl").read_bytes().split(b"\n")


NASTY = [b'"', b"\\", b"{", b"}", b",", b"\xff", b"\n", b" ", b"1", b"-", b"e", b"[", b"null", b'\\u0000']


def _mutated(lines: list[bytes], picks) -> bytes:
    out = list(lines)
    for line_pick, pos_pick, what in picks:
        k = 1 + line_pick % (len(out) - 1)  # never the header
        line = out[k]
        i = pos_pick % (len(line) + 1)
        out[k] = line[:i] + what + line[i + 1:]
    return b"\n".join(out)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.tuples(st.integers(0, 2**20), st.integers(0, 2**20), st.sampled_from(NASTY)),
                      min_size=1, max_size=3))
def test_mutated_lines_index_the_same_either_way(demo_lines, tmp_path_factory, picks):
    path = tmp_path_factory.mktemp("mut") / "m.jsonl"
    path.write_bytes(_mutated(demo_lines, picks))
    same_both_ways(path)


def test_shuffled_and_duplicated_lines_index_the_same(demo_lines, tmp_path):
    rng = random.Random(7)
    for k in range(5):
        body = demo_lines[1:-1]
        body = body + rng.sample(body, 3)
        rng.shuffle(body)
        path = tmp_path / f"s{k}.jsonl"
        path.write_bytes(b"\n".join([demo_lines[0], *body]) + b"\n")
        same_both_ways(path)
