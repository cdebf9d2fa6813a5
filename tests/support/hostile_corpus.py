"""Builds the hostile-input corpus (issue: hostile input) from the project's generator.

Each case is (name, path builder, expected exit code of `check`, words the one-line
message or the output must contain). Used by the check tests and the TUI tests.
The tiny bombs (`build_bombs`) are files of a few KB that decode to gigabytes or to millions
of lines; `check` runs on them only in a measured child process (tests/measured.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from dsh_tui.demo import compress_frame, demo_batches, write_log

HEADER = {"type": "session", "version": 0, "id": "hostile", "createdAt": 1790000000000, "cwd": "/w",
          "delegationDepth": 0}


def _jsonl(path: Path, lines: list[bytes], header: dict | None = HEADER) -> Path:
    head = [orjson.dumps(header)] if header is not None else []
    path.write_bytes(b"\n".join(head + lines) + b"\n")
    return path


def _ev(etype, seq, data):
    return orjson.dumps({"type": etype, "seq": seq, "time": 1, "data": data})


def demo_file(directory: Path, encoding: str = "zstd") -> Path:
    header, batches = demo_batches()
    path = directory / ("demo.jsonl.zstd" if encoding == "zstd" else "demo.jsonl")
    write_log(path, header, batches, encoding=encoding)
    return path


def odd_values_log(path: Path) -> Path:
    """Lists and objects where dsh writes numbers and strings: turn, step, callId, command id, names."""
    odd = [_ev("turn/start", 0, {"turn": [1]}), _ev("step/start", 1, {"turn": [1], "step": {"a": 1}}),
           _ev("assistant/chunk", 2, {"turn": [1], "step": {"a": 1},
                                      "chunk": {"type": "usage", "usage": {"inputTokens": 3}}}),
           _ev("llm/retry", 3, {"turn": [1], "step": {"a": 1}, "retry": 1, "failure": {"code": ["x"]}}),
           _ev("assistant/message", 4, {"turn": [1], "step": {"a": 1}, "usage": {"outputTokens": 2}, "message": {
               "id": "m", "role": "assistant", "content": [
                   {"type": "tool-call", "id": ["c"], "name": {"n": 1}, "arguments": "{}"}]}}),
           _ev("tool/call", 5, {"turn": [1], "step": {"a": 1}, "callId": ["c"], "name": {"n": 1}, "arguments": "{}"}),
           _ev("command/run", 6, {"commandId": {"x": 1}, "name": ["n"], "turn": {"t": 1}}),
           _ev("approval/asked", 7, {"id": [1], "toolName": {"t": 1}, "callId": ["c"]})]
    return _jsonl(path, odd)


def build_cases(d: Path) -> dict[str, tuple[Path, int, str]]:
    """name -> (path, expected check exit code, expected words in stderr (exit 3) or stdout)."""
    cases: dict[str, tuple[Path, int, str]] = {}

    def add(name, path, code, words):
        cases[name] = (Path(path), code, words)

    (d / "empty.jsonl").write_bytes(b"")
    add("empty", d / "empty.jsonl", 3, "is empty")
    (d / "adir").mkdir()
    add("directory", d / "adir", 3, "is a directory")
    add("missing", d / "missing.jsonl", 3, "no such file")
    add("dev-zero", "/dev/zero", 3, "not a regular file")
    fifo = d / "fifo.jsonl"
    os.mkfifo(fifo)
    add("fifo", fifo, 3, "not a regular file")
    (d / "other.jsonl").write_text('{"level":"info","msg":"hello"}\n{"level":"warn"}\n')
    add("non-dsh-jsonl", d / "other.jsonl", 3, "not a session header")
    (d / "other.zst").write_bytes(compress_frame(b'{"some":"json"}\n') + compress_frame(b"{}\n"))
    add("non-dsh-zstd", d / "other.zst", 3, "not a session header")
    (d / "binary.bin").write_bytes(os.urandom(64) + b"\x00")
    add("binary", d / "binary.bin", 3, "not a dsh session log")
    add("header-only", _jsonl(d / "header-only.jsonl", []), 0, "0 events")
    zh = d / "header-only.zst"
    zh.write_bytes(compress_frame(orjson.dumps(HEADER) + b"\n"))
    add("header-only-zstd", zh, 0, "0 events")
    demo = demo_file(d)
    data = demo.read_bytes()
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x40
    (d / "flipped.zst").write_bytes(bytes(flipped))
    add("flipped-byte", d / "flipped.zst", 3, "failed validation")  # dsh refuses a frame that fails its checksum
    (d / "skippable.zst").write_bytes(data + b"\x50\x2a\x4d\x18\x04\x00\x00\x00abcd")
    add("skippable-frame", d / "skippable.zst", 3, "invalid frame magic")  # as dsh refuses it
    (d / "garbage.zst").write_bytes(data + b"trailing garbage")
    add("trailing-garbage", d / "garbage.zst", 3, "invalid frame magic")
    (d / "torn.zst").write_bytes(data[:-100])
    add("torn-zstd", d / "torn.zst", 1, "torn tail")
    big = b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"' + b"x" * (64 * 1024 * 1024) + b'"}}'
    add("64MiB-line", _jsonl(d / "big-line.jsonl", [big]), 0, "1 record, 1 event")
    deep = b'{"type":"feedback/record","seq":1,"time":1,"data":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    add("deep-nesting", _jsonl(d / "deep.jsonl", [_ev("turn/start", 0, {"turn": 1}), deep]), 1, "not valid JSON")
    bad_utf8 = b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"\xff\xfe bad \\ud800 lone"}}'
    add("invalid-utf8-surrogate", _jsonl(d / "utf8.jsonl", [bad_utf8]), 0, "1 record, 1 event")
    dup = [_ev("turn/start", 0, {"turn": 1}), _ev("step/start", 1, {"turn": 1, "step": 1}),
           _ev("step/start", 1, {"turn": 1, "step": 1}), _ev("step/end", 0, {"turn": 1, "step": 1})]
    add("duplicate-decreasing-seq", _jsonl(d / "dup.jsonl", dup), 1, "SEQ_GAP")
    rows = [orjson.dumps({"type": "text-chunks", "seq0": 0, "time0": 1, "data": {
                "turn": 1, "step": 1, "index": 0, "dt": [1], "texts": ["a", "b", "c"]}}),
            orjson.dumps({"type": "text-chunks", "seq0": 3, "time0": 1, "data": {
                "turn": 1, "step": 1, "index": 0, "dt": [-5, 2**60], "texts": ["a", "b", "c"]}}),
            orjson.dumps({"type": "tool-call-chunks", "seq0": 6, "time0": 1, "data": {
                "turn": 1, "step": 1, "index": 0, "dt": [], "id": 5, "args": []}})]
    add("bad-packed-rows", _jsonl(d / "rows.jsonl", rows), 1, "malformed")
    orphan = orjson.dumps({"type": "tool/result", "seq": 0, "time": 1, "surfaceOp": "append", "data": {
        "turn": 1, "step": 1, "message": {"id": "x", "role": "user", "source": {"kind": "tool", "callId": "ghost"},
                                          "content": [{"type": "tool-result", "toolCallId": "ghost", "content": []}]}}})
    add("result-unknown-callid", _jsonl(d / "orphan.jsonl", [orphan]), 1, "ghost")
    numbers = [b'{"type":"turn/start","seq":0.0,"time":1.0,"data":{"turn":1.0}}',
               b'{"type":"step/start","seq":1,"time":-0,"data":{"turn":1,"step":99999999999999999999999}}']
    add("float-and-huge-numbers", _jsonl(d / "numbers.jsonl", numbers, {**HEADER, "createdAt": 1.0}), 1, "OPEN_TURN")
    # dsh refuses these shapes (a message without a surfaceOp, ...): exit 3; --lenient shows them (test_app)
    add("lists-and-objects-as-ids-and-turns", odd_values_log(d / "odd-values.jsonl"), 3, "rejected")
    add("negative-zero-depth", _jsonl(d / "negzero.jsonl", [], {**HEADER, "delegationDepth": -0.0}), 3, "delegationDepth")
    add("version-1", _jsonl(d / "v1.jsonl", [], {**HEADER, "version": 1}), 3, "newer harness")
    bomb_body = orjson.dumps(HEADER) + b"\n" + b'{"type":"x","seq":0,"time":0,"data":"' + b"A" * (8 * 1024 * 1024) + b'"}\n'
    (d / "bomb.zst").write_bytes(compress_frame(orjson.dumps(HEADER) + b"\n") + compress_frame(bomb_body))
    add("decompression-bomb", d / "bomb.zst", 3, "decompresses to more than")
    return cases


BOMB_LIMIT = "1M"  # the corpus runs `check` with this --max-plain-size so the bomb is refused

# -- tiny bombs --------------------------------------------------------------------------------
RLE_BLOCK = 128 * 1024  # the most one zstd block may hold


def _block(kind: int, size: int, last: bool, payload: bytes) -> bytes:
    return (int(last) | kind << 1 | size << 3).to_bytes(3, "little") + payload


def rle_frame(plain_bytes: int, byte: bytes = b"A", prefix: bytes = b"", suffix: bytes = b"") -> bytes:
    """A zstd frame (no checksum, 2 MiB window as dsh writes) of ``prefix`` (a raw block), ``byte``
    repeated (RLE blocks of 4 bytes each: a 4 GiB frame is 128 KiB of file) and ``suffix`` (a raw
    block), ``plain_bytes`` in all. Written by hand: making it costs no compression."""
    out = [b"\x28\xb5\x2f\xfd\x00\x58"]
    if prefix:
        out.append(_block(0, len(prefix), False, prefix))
    left = plain_bytes - len(prefix) - len(suffix)
    while left > 0:
        n = min(RLE_BLOCK, left)
        left -= n
        out.append(_block(1, n, left == 0 and not suffix, byte))
    if suffix:
        out.append(_block(0, len(suffix), True, suffix))
    return b"".join(out)


def build_bombs(d: Path) -> dict[str, tuple[Path, int, str]]:
    """name -> (path, expected exit code, words in the one-line message): inputs of a few KB that
    must be refused quickly and in little memory (tests/test_hostile_check.py measures both)."""
    header = compress_frame(orjson.dumps(HEADER) + b"\n")
    cases: dict[str, tuple[Path, int, str]] = {}
    lines = d / "x-lines.zst"  # 32M lines of "x": ~6 KB of file
    lines.write_bytes(header + compress_frame(b"x\n" * (32 << 20)))
    cases["millions-of-x-lines"] = (lines, 3, "are not dsh records")
    blank = d / "blank-lines.zst"  # 64M blank lines: ~3 KB of file
    blank.write_bytes(header + compress_frame(b"\n" * (64 << 20)))
    cases["millions-of-blank-lines"] = (blank, 3, "are not dsh records")
    one = d / "one-frame-4GiB.zst"  # its first bytes are no header: refused before the frame is measured
    one.write_bytes(rle_frame(4 << 30))
    cases["one-frame-4GiB-bomb"] = (one, 3, "first line is not JSON")
    zeros = d / "zeros-4GiB.zst"  # what `head -c 4G /dev/zero | zstd` makes: ~130 KB
    zeros.write_bytes(rle_frame(4 << 30, b"\0"))
    cases["zeros-4GiB"] = (zeros, 3, "first line is not JSON")
    framed = d / "header-then-4GiB-frame.zst"  # a session header, then one frame of 4 GiB of records
    framed.write_bytes(header + rle_frame(4 << 30, b"\n", b'{"type":"feedback/record","seq":0,"time":1,"data":{}}'))
    cases["header-then-4GiB-frame"] = (framed, 3, "dsh writes frames of a few KB")
    line = d / "header-then-4GiB-line.zst"
    line.write_bytes(header + rle_frame(4 << 30, b"x", b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"'))
    cases["header-then-4GiB-line"] = (line, 3, "dsh writes frames of a few KB")
    cases["dev-zero"] = (Path("/dev/zero"), 3, "not a regular file")
    fifo = d / "bomb-fifo.jsonl"
    os.mkfifo(fifo)
    cases["fifo"] = (fifo, 3, "not a regular file")
    return cases  # the corpus runs `check` with this --max-plain-size so the bomb is refused


# -- valid records that amplify (issue: bounded even when the input is valid) ----------------------
def _frames_of(body: bytes, size: int = 1 << 20) -> bytes:
    """``body`` (whole lines) in zstd frames of about ``size`` bytes, each ending on a line."""
    out, pos = [], 0
    while pos < len(body):
        end = body.find(b"\n", min(pos + size, len(body) - 1)) + 1
        out.append(compress_frame(body[pos:end]))
        pos = end
    return b"".join(out)


def build_amplifiers(d: Path) -> dict[str, tuple[Path, int, str]]:
    """name -> (path, expected exit code, words in the one-line message): small files of valid records
    that cost a finding, a gap or a pair each; `check` must finish (or refuse) in bounded time and
    memory (tests/unit/test_hostile_check.py measures both in a child process)."""
    header = compress_frame(orjson.dumps(HEADER) + b"\n")
    cases: dict[str, tuple[Path, int, str]] = {}
    first = orjson.dumps({"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}}) + b"\n"
    again = orjson.dumps({"type": "turn/start", "seq": 1, "time": 1, "data": {"turn": 1}}) + b"\n"
    repeated = d / "repeated-4M.zst"  # one frame of a million identical records (~6 KB), four times
    repeated.write_bytes(header + compress_frame(first) + compress_frame(again * 1_000_000) * 4)
    cases["repeated-records-4M"] = (repeated, 3, "seq gaps")
    calls = d / "open-calls-1M.zst"  # a million tool/calls with their own ids and no result (~2 MB)
    line = b'{"type":"tool/call","seq":%d,"time":1,"data":{"turn":1,"step":1,"callId":"c%d","name":"x","arguments":"{}"}}\n'
    calls.write_bytes(header + _frames_of(b"".join([line % (k, k) for k in range(1_000_000)])))
    cases["open-calls-1M"] = (calls, 3, "calls, results, turns or messages")
    return cases
