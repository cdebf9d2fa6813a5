"""What the tests share: tiny logs built in code, waits, and where the shared real logs and the parity cases are."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest
import zstandard

TESTS = Path(__file__).resolve().parents[1]
PARITY = TESTS / "parity"  # logs written by dsh's own writer, and its answers
SHARED = TESTS.parent.parent / "shared"
DSH_LOGS = SHARED / "dsh-logs"

HEADER = {"type": "session", "version": 0, "id": "sess-1", "createdAt": 1790000000000,
          "cwd": "/home/u/p", "delegationDepth": 0}

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


def chunk(seq, text, *, index=0, kind="text-delta"):
    return ev("assistant/chunk", seq, {"turn": 1, "step": 1, "chunk": {"type": kind, "index": index, "text": text}})


def row(seq0, texts, dt, tag="text-chunks", **data):
    return {"type": tag, "seq0": seq0, "time0": 1000, "data": {"turn": 1, "step": 1, "index": 0, "dt": dt,
                                                               "texts": texts, **data}}
