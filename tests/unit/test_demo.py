"""Tests for dsh_tui.demo: the generator of format-correct dsh session logs.

The zstd files are decoded here independently of project code: frames are found by
parsing the frame and block headers (RFC 8878), and each frame is decompressed alone.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest
import zstandard

from dsh_tui import demo
from dsh_tui.demo import (ZSTD_MAGIC, EventBuilder, ToolCall, compress_frame, default_demo_path, demo_batches,
                          iter_synthetic_batches, pack_records, synthetic_header, write_demo, write_log,
                          write_synthetic)

from ..support.logs import DSH_LOGS as SHARED
ROW_KIND = {"text-chunks": "text-delta", "reasoning-chunks": "reasoning-delta",
            "tool-call-chunks": "tool-call-delta"}


# -- an independent decoder ------------------------------------------------------------
def walk_frames(buf: bytes) -> list[tuple[int, bytes]]:
    """Split a file into (frame header descriptor, frame bytes); asserts structure."""
    out, pos = [], 0
    while pos < len(buf):
        assert buf[pos:pos + 4] == b"\x28\xb5\x2f\xfd", f"bad magic at {pos}"
        fhd = buf[pos + 4]
        assert fhd & 0x08 == 0, "reserved bit set"
        single = (fhd >> 5) & 1
        p = pos + 5 + (0 if single else 1) + (0, 1, 2, 4)[fhd & 3]
        p += ((1 if single else 0), 2, 4, 8)[fhd >> 6]
        while True:
            header = int.from_bytes(buf[p:p + 3], "little")
            btype, size = (header >> 1) & 3, header >> 3
            assert btype != 3, "reserved block type"
            p += 3 + (1 if btype == 1 else size)
            if header & 1:
                break
        p += 4 if fhd & 0x04 else 0
        assert p <= len(buf), "torn frame"
        out.append((fhd, buf[pos:p]))
        pos = p
    return out


def frame_texts(path: Path) -> list[bytes]:
    texts = []
    for fhd, frame in walk_frames(path.read_bytes()):
        assert fhd & 0x04, "content checksum flag must be on"
        assert fhd >> 6 == 0 and not fhd & 0x20, "no frame content size / single segment"
        dobj = zstandard.ZstdDecompressor().decompressobj()
        texts.append(dobj.decompress(frame))
        assert dobj.eof and dobj.unused_data == b""
    return texts


def expand(record: dict) -> list[dict]:
    kind = ROW_KIND.get(record["type"])
    if kind is None:
        return [record]
    d = record["data"]
    members = d["args"] if kind == "tool-call-delta" else d["texts"]
    assert len(d["dt"]) == len(members) - 1 and members
    out, time = [], record["time0"]
    for k, member in enumerate(members):
        time += d["dt"][k - 1] if k else 0
        if kind == "tool-call-delta":
            chunk = {"type": kind, "index": d["index"], "id": d["id"]}
            if "name" in d:
                chunk["name"] = d["name"]
            chunk["argumentsDelta"] = member
        else:
            chunk = {"type": kind, "index": d["index"], "text": member}
        out.append({"type": "assistant/chunk", "seq": record["seq0"] + k, "time": time,
                    "data": {"turn": d["turn"], "step": d["step"], "chunk": chunk}})
    return out


def decode(path: Path) -> tuple[dict, list[list[dict]], list[dict]]:
    """(header, records per event frame, expanded events) of a zstd log."""
    texts = frame_texts(path)
    for text in texts:
        assert text.endswith(b"\n"), "frame plaintext must end on a record boundary"
    assert texts[0].count(b"\n") == 1, "frame 1 holds exactly the header line"
    frames = [[orjson.loads(line) for line in t.splitlines()] for t in texts[1:]]
    events = [e for records in frames for r in records for e in expand(r)]
    assert [e["seq"] for e in events] == list(range(len(events)))
    return orjson.loads(texts[0]), frames, events


def pending_calls(events: list[dict]) -> tuple[list[str], list[str]]:
    """dsh's crash classification (DSH-FORMAT section 7): (outcome unknown, not started)."""
    pending: dict[str, int | None] = {}
    in_turn = False
    for e in events:
        t, d = e["type"], e["data"]
        if t == "turn/start":
            in_turn, pending = True, {}
        elif t == "turn/end":
            in_turn = False
        elif t == "step/end":
            pending = {}
        elif t == "assistant/message":
            for block in d["message"]["content"]:
                if block["type"] == "tool-call":
                    pending[block["id"]] = None
        elif t == "tool/call" and d["callId"] in pending:
            pending[d["callId"]] = e["seq"]
        elif t == "tool/result":
            pending.pop(d["message"]["source"]["callId"], None)
    if not in_turn:
        return [], []
    return ([c for c, s in pending.items() if s is not None],
            [c for c, s in pending.items() if s is None])


def check_packing(frames: list[list[dict]]) -> int:
    """Rows have exact keys and >= 3 members; no packable run of >= 3 stayed loose."""
    rows = 0
    for records in frames:
        loose_run: list[tuple] = []
        for r in records:
            if r["type"] in ROW_KIND:
                rows += 1
                assert list(r) == ["type", "seq0", "time0", "data"]
                keys = list(r["data"])
                if r["type"] == "tool-call-chunks":
                    assert keys in (["turn", "step", "index", "dt", "id", "name", "args"],
                                    ["turn", "step", "index", "dt", "id", "args"])
                else:
                    assert keys == ["turn", "step", "index", "dt", "texts"]
                assert len(r["data"]["dt"]) + 1 >= 3
                assert all(type(x) is int for x in r["data"]["dt"])
                loose_run = []
                continue
            c = r["data"].get("chunk") if r["type"] == "assistant/chunk" else None
            if c and c["type"] in ROW_KIND.values():
                key = (c["type"], r["data"]["turn"], r["data"]["step"], c["index"], c.get("id"),
                       "name" in c, c.get("name"))
                if loose_run and loose_run[-1][0] == key and loose_run[-1][1] + 1 == r["seq"]:
                    loose_run.append((key, r["seq"]))
                else:
                    loose_run = [(key, r["seq"])]
                assert len(loose_run) < 3, f"unpacked run at seq {r['seq']}"
            else:
                loose_run = []
    return rows


# -- compress_frame / pack_records ----------------------------------------------------------
def test_compress_frame_parameters() -> None:
    frame = compress_frame(b'{"a":1}\n')
    assert frame.startswith(ZSTD_MAGIC)
    [(fhd, whole)] = walk_frames(frame)
    assert whole == frame and fhd == 0x04  # checksum on, no FCS, not single-segment
    assert frame[5] == 0x58  # 2 MiB window, like dsh
    assert zstandard.ZstdDecompressor().decompressobj().decompress(frame) == b'{"a":1}\n'


def _chunk(seq: int, chunk: dict, time: int | None = None, **extra) -> dict:
    return {"type": "assistant/chunk", "seq": seq, "time": 1000 + seq if time is None else time,
            "data": {"turn": 1, "step": 1, "chunk": chunk}, **extra}


def _text(seq: int, text: str = "x", **kw) -> dict:
    return _chunk(seq, {"type": "text-delta", "index": 0, "text": text}, **kw)


def _tool(seq: int, name: str | None = None, cid: str = "c1") -> dict:
    c = {"type": "tool-call-delta", "index": 1, "id": cid}
    if name is not None:
        c["name"] = name
    c["argumentsDelta"] = f"a{seq}"
    return _chunk(seq, c)


def test_pack_records_rules() -> None:
    assert pack_records([_text(0), _text(1)]) == [_text(0), _text(1)]
    [row] = pack_records([_text(0, "a"), _text(1, "b", time=999), _text(2, "c")])
    assert row == {"type": "text-chunks", "seq0": 0, "time0": 1000,
                   "data": {"turn": 1, "step": 1, "index": 0, "dt": [-1, 3], "texts": ["a", "b", "c"]}}
    assert list(row["data"]) == ["turn", "step", "index", "dt", "texts"]
    # an extra envelope key, a float time, a bool seq or a seq gap each break the run
    odd = [_text(0), _text(1, ignorable=True), _text(2), _text(3)]
    assert [r["type"] for r in pack_records(odd)] == ["assistant/chunk"] * 4
    assert len(pack_records([_text(0), _text(1, time=1.5), _text(2), _text(3)])) == 4
    assert len(pack_records([_text(0), _text(1), _text(3), _text(4)])) == 4
    bool_seq = _text(2)
    bool_seq["seq"] = True
    assert len(pack_records([_text(0), _text(1), bool_seq])) == 3
    # tool calls: name presence must match; the first (named) delta stays loose
    evs = [_tool(0, "bash"), _tool(1), _tool(2), _tool(3)]
    loose, row = pack_records(evs)
    assert loose == evs[0]
    assert row["type"] == "tool-call-chunks" and "name" not in row["data"]
    assert list(row["data"]) == ["turn", "step", "index", "dt", "id", "args"]
    named = pack_records([_tool(0, "bash"), _tool(1, "bash"), _tool(2, "bash")])[0]["data"]
    assert list(named) == ["turn", "step", "index", "dt", "id", "name", "args"]
    assert named["name"] == "bash" and named["args"] == ["a0", "a1", "a2"]
    assert len(pack_records([_tool(0), _tool(1, cid="c2"), _tool(2)])) == 3
    # expansion gives back the exact events
    mixed = [_text(0), _text(1), _text(2), _tool(3, "r"), _tool(4), _tool(5), _tool(6), _text(7)]
    assert [e for r in pack_records(mixed) for e in expand(r)] == mixed


@pytest.mark.parametrize("name", ["written/live-zstd__session.jsonl.zstd",
                                  "written/crash-open-turn__session.jsonl.zstd",
                                  "large/medium-4550-events__session.jsonl.zstd"])
def test_matches_real_writer_bytes(name: str) -> None:
    """Re-packing and re-compressing each real frame reproduces the real bytes."""
    path = SHARED / name
    if not path.exists():
        pytest.skip("shared dsh logs not present")
    frames = walk_frames(path.read_bytes())
    for i, (_, frame) in enumerate(frames):
        plain = zstandard.ZstdDecompressor().decompressobj().decompress(frame)
        assert compress_frame(plain) == frame
        if i == 0:
            continue
        records = [orjson.loads(line) for line in plain.splitlines()]
        events = [e for r in records for e in expand(r)]
        assert pack_records(events) == records


# -- the demo ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "session.jsonl.zstd"
    assert write_demo(path) == path
    return path


def test_demo_frames_and_events(demo_file: Path) -> None:
    header, batches = demo_batches()
    assert frame_texts(demo_file)[0] == orjson.dumps(header) + b"\n"
    assert list(header) == ["type", "version", "id", "createdAt", "cwd", "delegationDepth",
                            "agentPreset"]
    assert header["version"] == 0 and header["id"].startswith("demo-7f3c")
    assert header["cwd"] == "/home/user/projects/demo-app" and header["agentPreset"] == "standard"
    got_header, frames, events = decode(demo_file)
    assert got_header == header
    assert len(frames) == len(batches) >= 30  # one frame per batch, many small batches
    assert events == [e for batch in batches for e in batch]
    assert check_packing(frames) >= 10
    assert any(d < 0 for r in (r for f in frames for r in f) if r["type"] in ROW_KIND
               for d in r["data"]["dt"])
    for batch in batches:  # dsh flushes before each model request / tool body, at turn end
        assert all(e["type"] not in ("request/header", "tool/call", "turn/end") for e in batch[:-1])


def test_demo_content(demo_file: Path) -> None:
    _, _, events = decode(demo_file)
    by_type: dict[str, list[dict]] = {}
    for e in events:
        by_type.setdefault(e["type"], []).append(e)
        assert set(e) <= {"type", "seq", "time", "data", "sourceEventSeqs", "surfaceOp"}
        surface = e["type"] in ("user/message", "assistant/message", "tool/result")
        assert ("surfaceOp" in e) == surface
        assert all(s < e["seq"] for s in e.get("sourceEventSeqs", []))
    assert [e["type"] for e in events[:5]] == ["command/run", "permission/preset", "sandbox/mode",
                                               "approval/policy", "command/done"]
    assert by_type["command/run"][0]["data"]["args"] == " workspace-write"
    assert [e["data"]["turn"] for e in by_type["turn/start"]] == [1, 2, 3]
    assert len(by_type["turn/end"]) == 2
    retry = by_type["llm/retry"][0]
    assert retry["data"]["failure"] == {"message": "upstream timed out", "code": "TIMEOUT",
                                        "status": 504}
    assert by_type["llm/retry-started"][0]["seq"] == retry["seq"] + 1
    assert by_type["request/header"][0]["data"]["header"]["tools"][0].keys() == {
        "name", "description", "parameters"}
    calls = {e["data"]["callId"]: e for e in by_type["tool/call"]}
    results = {e["data"]["message"]["source"]["callId"]: e for e in by_type["tool/result"]}
    for cid, res in results.items():
        block = res["data"]["message"]["content"][0]
        assert block["toolCallId"] == cid and res["sourceEventSeqs"] == [calls[cid]["seq"]]
    write = results["call_00_write"]["data"]
    assert write["meta"]["diffs"][0].keys() == {"path", "oldText", "newText"}
    asked, decided = by_type["approval/asked"][0], by_type["approval/decided"][0]
    assert asked["data"]["callId"] == "call_00_write" and decided["data"]["outcome"] == "allowed-once"
    assert calls["call_00_write"]["seq"] < asked["seq"] < decided["seq"] < results["call_00_write"]["seq"]
    assert calls["call_01_edit"]["data"]["name"] == "edit"
    assert len(results["call_01_edit"]["data"]["meta"]["diffs"]) >= 2
    read = results["call_02_read"]["data"]
    assert read["error"] == {"name": "FsNotFoundError", "code": "FS_NOT_FOUND"}
    assert read["message"]["content"][0]["isError"] is True
    bad_json = [c for c in calls if c in results and not _valid_json(calls[c]["data"]["arguments"])]
    assert bad_json == ["call_03_tests"]
    assert any("[bold]" in b.get("text", "") for e in by_type["assistant/message"]
               for b in e["data"]["message"]["content"])
    usages = [e for e in by_type["assistant/chunk"] if e["data"]["chunk"]["type"] == "usage"]
    assert len(usages) == len(by_type["assistant/message"])
    assert by_type["session/title"][0]["data"]["messageSeqs"] == [by_type["user/message"][0]["seq"]]
    assert by_type["todo/write"]
    for msg in by_type["assistant/message"]:
        src = msg["sourceEventSeqs"]
        assert src == list(range(src[0], msg["seq"]))
        assert all(events[s]["type"] == "assistant/chunk" for s in src)


def _valid_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_demo_crash_shape(demo_file: Path) -> None:
    _, _, events = decode(demo_file)
    assert events[-1]["type"] == "tool/call"
    last_turn = max(i for i, e in enumerate(events) if e["type"] == "turn/start")
    tail = events[last_turn:]
    assert not any(e["type"] in ("turn/end", "step/end", "tool/result") for e in tail)
    msg = [e for e in tail if e["type"] == "assistant/message"][-1]
    ids = [b["id"] for b in msg["data"]["message"]["content"] if b["type"] == "tool-call"]
    assert ids == ["call_05_deploy", "call_06_tag"]
    assert [e["data"]["callId"] for e in tail if e["type"] == "tool/call"] == ["call_05_deploy"]
    assert pending_calls(events) == (["call_05_deploy"], ["call_06_tag"])


def test_demo_jsonl_equals_zstd(demo_file: Path, tmp_path: Path) -> None:
    raw = tmp_path / "session.jsonl"
    write_demo(raw, encoding="jsonl")
    assert raw.read_bytes() == b"".join(frame_texts(demo_file))
    assert sorted(os.listdir(tmp_path)) == ["session.jsonl"]  # no temp files left


def test_default_demo_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = default_demo_path()
    assert path == tmp_path / "cache" / "dsh-tui" / "demo" / "session.jsonl.zstd"
    first = path.stat()
    assert default_demo_path() == path
    assert path.stat().st_mtime_ns == first.st_mtime_ns and path.stat().st_ino == first.st_ino
    path.write_bytes(b"stale")
    assert default_demo_path() == path
    assert decode(path)[0]["id"] == demo.DEMO_SESSION_ID
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_demo_path() == tmp_path / "home" / ".cache" / "dsh-tui" / "demo" / "session.jsonl.zstd"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "home"]


# -- builder and synthetic logs ---------------------------------------------------------
@pytest.mark.parametrize("kw", [
    {}, {"user": "hi", "reasoning": "a b c", "text": "d e"},
    {"end": False, "start": False, "header": False, "usage": False, "text": "x"},
    {"retries": [{"message": "m", "code": "C"}] * 2, "calls": [
        ToolCall("c1", "bash", '{"command":"ls"}', "out", approval="rejected"),
        ToolCall("c2", "bash", "{}", None), ToolCall("c3", "read", "{", None, started=False)]},
])
def test_step_size_matches_model_step(kw: dict) -> None:
    b = EventBuilder(0)
    b.model_step(1, 1, **kw)
    expected = EventBuilder.step_size(
        start=kw.get("start", True), end=kw.get("end", True), user="user" in kw,
        header=kw.get("header", True), retries=len(kw.get("retries", ())),
        reasoning=len(demo.split_text(kw.get("reasoning", ""))) if kw.get("reasoning") else 0,
        text=len(demo.split_text(kw["text"])) if kw.get("text") else 0,
        calls=kw.get("calls", ()), usage=kw.get("usage", True))
    assert b.seq == expected == sum(len(x) for x in b.finish())


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> tuple[Path, dict]:
    path = tmp_path_factory.mktemp("syn") / "session.jsonl.zstd"
    return path, write_synthetic(path, 20_000, seed=3)


def test_synthetic_20k(synthetic: tuple[Path, dict]) -> None:
    path, facts = synthetic
    header, frames, events = decode(path)
    assert header == synthetic_header(3) and list(header)[:2] == ["type", "version"]
    assert len(events) == facts["events"] == 20_000
    assert facts["records"] == sum(len(f) for f in frames)
    assert facts["frames"] == len(frames) + 1
    assert facts["plain_bytes"] == sum(len(t) for t in frame_texts(path))
    calls = [e["data"]["callId"] for e in events if e["type"] == "tool/call"]
    assert calls == [f"call_{i:06d}" for i in range(len(calls))]
    assert facts["last_call_id"] == calls[-1]
    assert pending_calls(events) == ([calls[-1]], [])
    assert events[-1]["type"] == "tool/call"
    # realistic shape: mostly packed deltas, tens of events per frame, several steps per turn
    packed = sum(len(expand(r)) for f in frames for r in f if r["type"] in ROW_KIND)
    assert packed > 0.6 * len(events)
    assert 10 < len(events) / len(frames) < 60
    assert check_packing(frames) > 300
    sizes = [len(e["data"]["message"]["content"][0]["content"][0]["text"])
             for e in events if e["type"] == "tool/result"]
    assert min(sizes) < 500 and max(sizes) > 4000
    assert len([e for e in events if e["type"] == "step/start"]) > 2 * len(
        [e for e in events if e["type"] == "turn/start"])


def test_synthetic_jsonl_equals_zstd(synthetic: tuple[Path, dict], tmp_path: Path) -> None:
    path, facts = synthetic
    raw = tmp_path / "s.jsonl"
    raw_facts = write_synthetic(raw, 20_000, seed=3, encoding="jsonl")
    assert raw.read_bytes() == b"".join(frame_texts(path))
    assert raw_facts == facts | {"frames": 0}


@pytest.mark.parametrize("crash", [True, False])
def test_synthetic_exact_counts(crash: bool) -> None:
    for n in [60, 61, 97, 250, 777, 1000, 1501, 3333]:
        events = [e for batch in iter_synthetic_batches(n, seed=n, crash=crash) for e in batch]
        assert [e["seq"] for e in events] == list(range(n))
        assert events[-1]["type"] == ("tool/call" if crash else "turn/end")
        unknown, not_started = pending_calls(events)
        assert (unknown, not_started) == (([events[-1]["data"]["callId"]], []) if crash else ([], []))
    with pytest.raises(ValueError):
        next(iter_synthetic_batches(5))


def test_synthetic_is_lazy() -> None:
    batches = iter_synthetic_batches(10_000_000)
    first = next(batches)
    assert first[0]["seq"] == 0 and len(first) < 100


def test_write_log_encodings(tmp_path: Path) -> None:
    header = {"type": "session", "version": 0, "id": "x", "createdAt": 1, "delegationDepth": 0}
    b = EventBuilder(100)
    b.model_step(1, 1, user="hi", text="one two three four")
    batches = b.finish()
    write_log(tmp_path / "a.zst", header, batches)
    write_log(tmp_path / "a.jsonl", header, batches, encoding="jsonl", pack=False)
    _, frames, events = decode(tmp_path / "a.zst")
    assert events == [e for batch in batches for e in batch]
    lines = [orjson.loads(x) for x in (tmp_path / "a.jsonl").read_bytes().splitlines()]
    assert lines == [header] + events  # pack=False keeps one event per line
    with pytest.raises(ValueError):
        write_log(tmp_path / "b", header, batches, encoding="gzip")
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "a.zst"]


def test_cli(tmp_path: Path, capsys) -> None:
    assert demo.main([str(tmp_path / "d.zst")]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["last_call_id"] == "call_05_deploy" and facts["frames"] > 30
    assert demo.main([str(tmp_path / "s.jsonl"), "--events", "500", "--jsonl", "--no-crash",
                      "--seed", "2"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["events"] == 500 and facts["frames"] == 0
    lines = (tmp_path / "s.jsonl").read_bytes().splitlines()
    assert orjson.loads(lines[-1])["type"] == "turn/end"


def test_textual_free() -> None:
    import subprocess
    import sys

    code = ("import sys, dsh_tui.demo; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('textual', 'rich', 'pyperclip')]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
