"""Shared fixtures: tiny logs the tests build, and the shared real logs when present."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest
import zstandard

SHARED = Path(__file__).resolve().parents[2] / "shared"
DSH_LOGS = SHARED / "dsh-logs"

HEADER = {"type": "session", "version": 0, "id": "sess-1", "createdAt": 1790000000000,
          "cwd": "/home/u/p", "delegationDepth": 0}


@pytest.fixture
def isolated_xdg(tmp_path, monkeypatch):
    """State and cache under tmp_path, colours on: a UI test never touches the user's dirs."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A 20k-event generated zstd log, big enough to split (test_segments*)."""
    from dsh_tui.gen.synthetic import write_synthetic
    path = tmp_path_factory.mktemp("seg") / "big.jsonl.zstd"
    write_synthetic(path, 20_000, seed=3)
    return path


@pytest.fixture
def merges(monkeypatch):
    """The tail helper's slices merged, in order (none: the parent read the tail itself)."""
    from dsh_tui.model.reading import tailmerge
    calls = []
    real = tailmerge.merge_tail

    def counting(*args):
        calls.append(args[2])
        return real(*args)
    monkeypatch.setattr(tailmerge, "merge_tail", counting)
    return calls


@pytest.fixture
def helper_for_small_logs(monkeypatch):
    """The tail helper forks for the tests' small logs too (it waits for 4 MiB files; a
    DSH_TUI_SEGMENTS=0 in the environment would turn it off)."""
    from dsh_tui.model.reading import segments
    monkeypatch.setattr(segments, "MIN_FILE_BYTES", 0)
    monkeypatch.delenv(segments.ENV, raising=False)


async def until(app, pilot, cond, what: str, timeout: float = 30) -> None:
    """Pause the Pilot until ``cond()``; fails on the app's own exception or after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert app._exception is None, app._exception
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)


def shared_log(rel: str) -> Path:
    path = DSH_LOGS / rel
    if not path.exists():
        pytest.skip(f"shared log {rel} not available (../shared absent)")
    return path


MODEL_SOURCE = {"kind": "model", "provider": "deepseek-official", "model": "deepseek-v4-flash"}  # as dsh writes it


def ev(etype: str, seq: int, data=None, **extra) -> dict:
    out = {"type": etype, "seq": seq, "time": 1790000000000 + seq, "data": {} if data is None else data}
    out.update(extra)
    return out


def lines_of(objs) -> list[bytes]:
    return [o if isinstance(o, bytes) else orjson.dumps(o) for o in objs]


def frame(plain: bytes) -> bytes:
    return zstandard.ZstdCompressor(write_checksum=True, write_content_size=False).compress(plain)


@pytest.fixture
def write_jsonl(tmp_path):
    def _write(records, header=HEADER, name="session.jsonl", tail=b"\n") -> Path:
        body = b"\n".join(lines_of([header, *records])) + tail
        path = tmp_path / name
        path.write_bytes(body)
        return path
    return _write


@pytest.fixture
def write_zstd(tmp_path):
    """batches: list of lists of records; the header gets its own frame, as dsh writes."""
    def _write(batches, header=HEADER, name="session.jsonl.zstd") -> Path:
        data = frame(orjson.dumps(header) + b"\n")
        for batch in batches:
            data += frame(b"".join(line + b"\n" for line in lines_of(batch)))
        path = tmp_path / name
        path.write_bytes(data)
        return path
    return _write


def crash_records() -> list[dict]:
    """A turn that dies after the model asked for two calls, only the first started."""
    call_a = {"type": "tool-call", "id": "call_a", "name": "bash", "arguments": "{\"command\":\"make deploy\"}"}
    call_b = {"type": "tool-call", "id": "call_b", "name": "bash", "arguments": "{\"command\":\"git tag\""}
    return [
        ev("turn/start", 0, {"turn": 1}),
        ev("step/start", 1, {"turn": 1, "step": 1}),
        ev("request/header", 2, {"header": {"config": {"provider": "p", "model": "m"},
                                            "tools": [{"name": "bash", "description": "", "parameters": {}}]},
                                 "reason": "initial"}),
        ev("assistant/message", 3, {"turn": 1, "step": 1, "message": {"id": "m1", "role": "assistant",
                                                                      "content": [call_a, call_b],
                                                                      "source": MODEL_SOURCE}},
           surfaceOp="append"),
        ev("tool/call", 4, {"turn": 1, "step": 1, "callId": "call_a", "name": "bash",
                            "arguments": call_a["arguments"]}),
    ]


def result(seq: int, call_id: str, *, text="ok", error=None, is_error=False, meta=None, turn=1, step=1) -> dict:
    block = {"type": "tool-result", "toolCallId": call_id, "content": [{"type": "text", "text": text}]}
    if is_error:
        block["isError"] = True
    data = {"turn": turn, "step": step, "message": {"id": f"r{seq}", "role": "user", "content": [block],
                                                    "source": {"kind": "tool", "callId": call_id}}}
    if error:
        data["error"] = error
    if meta is not None:
        data["meta"] = meta
    return ev("tool/result", seq, data, surfaceOp="append")


def no_children(wait: float = 0.0) -> bool:
    """True once this process has no child left (reaping finished ones), within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
