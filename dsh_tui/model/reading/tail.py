"""A provisional verdict from the end of the file, before the full decode.

The common failure, a crash inside a turn, is decided by the last step alone:
dsh's repair rules clear pending calls at step/end and turn/start, so what is
pending after the last step/start is exactly what the full pass will report.
Reading only the last frames (zstd) or the last bytes (JSONL) answers that in
a fraction of the full decode; the explorer shows it marked "provisional"
until the full pass confirms it. When the tail does not contain a whole open
step, there is no provisional verdict.
"""

from __future__ import annotations

import os
from array import array
from functools import partial
from pathlib import Path

from msgspec import Struct
import zstandard

from .jsonparse import parse_json
from .filewindow import FileBytes
from .source import ZSTD_MAGIC, max_plain_bytes, open_file_bytes
from .frames import MAX_FRAME_PLAIN, FrameError, decode_frame, needs_measuring, plain_size

TAIL_PLAIN = 512 * 1024


class TailVerdict(Struct, frozen=True):
    kind: str  # TOOL_OUTCOME_UNKNOWN | TOOL_NOT_STARTED
    call_id: str
    name: str | None
    seq: int | None
    turn: object
    step: object
    tail_bytes: int  # how much plaintext was read


def tail_verdict(path: str | Path, *, limit: int | None = None) -> TailVerdict | None:
    """Never raises: any doubt gives None (the full pass decides). ``limit``: the plaintext limit
    (`source.max_plain_bytes`), which the file and every frame decoded here are held to too."""
    try:
        limit = max_plain_bytes(limit)
        fb, _st = open_file_bytes(Path(path), limit)
        try:
            plain = _tail_plain(fb, limit)
        finally:
            fb.close()
    except Exception:  # noqa: BLE001 - provisional only; the full decode reports problems properly
        return None
    if plain is None:
        return None
    try:
        return _decide(plain)
    except Exception:  # noqa: BLE001 - odd values in crafted records (e.g. a list as callId)
        return None


def _tail_plain(fb: FileBytes, limit: int) -> bytes | None:
    """The file's last records: the JSONL's last TAIL_PLAIN bytes, or its last frames (found by
    walking every frame's header a window at a time: only the frames read back are held)."""
    if fb.read(0, 4) != ZSTD_MAGIC:
        start = max(0, fb.size - TAIL_PLAIN)
        data = fb.read(start, fb.size - start)
        cut = data.rfind(b"\n")
        if cut < 0:
            return None
        begin = data.find(b"\n") + 1  # past the header line, or the partial line the window starts in
        return data[begin:cut + 1]
    starts, ends, blocks = array("Q"), array("Q"), array("Q")  # the complete frames, 24 bytes each
    try:
        for s, _frame in fb.frames(0):
            if s.complete:
                starts.append(s.start)
                ends.append(s.end)
                blocks.append(s.blocks)
    except FrameError:
        return None
    dctx = zstandard.ZstdDecompressor()
    parts: list[bytes] = []
    size = 0
    for k in range(len(starts) - 1, 0, -1):  # from the last frame back; never the header frame
        frame = memoryview(fb.read(starts[k], ends[k] - starts[k]))
        room = min(limit - size, MAX_FRAME_PLAIN)
        if needs_measuring(blocks[k], room) and plain_size(dctx, frame, room) > room:
            return None  # a frame dsh never writes: no provisional verdict (the full pass refuses it)
        plain = decode_frame(dctx, frame)
        parts.append(plain)
        size += len(plain)
        if size >= TAIL_PLAIN:
            break
    return b"".join(reversed(parts))


def _decide(plain: bytes) -> TailVerdict | None:
    pending: dict[str, dict] = {}
    in_step = False
    for line in plain.split(b"\n"):
        if not line:
            continue
        obj, _ = parse_json(line)
        if not isinstance(obj, dict):
            return None
        t, d, seq = obj.get("type"), obj.get("data"), obj.get("seq")
        if not isinstance(d, dict):
            continue
        if t in ("turn/start", "turn/end", "step/end"):
            pending.clear()
            in_step = False
        elif t == "step/start":
            pending.clear()
            in_step = True
        elif t == "assistant/message" and in_step:
            msg = d.get("message") if isinstance(d.get("message"), dict) else {}
            for b in msg.get("content") or ():
                if isinstance(b, dict) and b.get("type") == "tool-call" and isinstance(b.get("id"), str):
                    pending[b["id"]] = {"name": b.get("name"), "seq": seq, "call": False,
                                        "turn": d.get("turn"), "step": d.get("step")}
        elif t == "tool/call" and in_step and isinstance(d.get("callId"), str) and d["callId"] in pending:
            p = pending[d["callId"]]
            p.update(call=True, seq=seq, name=d.get("name") or p["name"])
        elif t == "tool/result" and in_step:
            msg = d.get("message") if isinstance(d.get("message"), dict) else {}
            src = msg.get("source") if isinstance(msg.get("source"), dict) else {}
            if isinstance(src.get("callId"), str):
                pending.pop(src["callId"], None)
    if not in_step or not pending:
        return None
    # Newest first, as the full pass orders them: a started call sits after the message.
    call_id, p = max(pending.items(), key=lambda kv: (kv[1]["seq"] if isinstance(kv[1]["seq"], int) else -1,
                                                     kv[1]["call"]))
    return TailVerdict("TOOL_OUTCOME_UNKNOWN" if p["call"] else "TOOL_NOT_STARTED", call_id, p["name"],
                       p["seq"] if isinstance(p["seq"], int) else None, p["turn"], p["step"], len(plain))


def start_tail_probe(path: str | Path, max_plain: int | None = None):
    """`tail_verdict` in a forked child, started before the UI imports (~0.25 s of Textual) so
    the two overlap on two cores. Returns a ForkedCall, or None where fork is unavailable.
    ``max_plain``: --max-plain-size, which the probe honours as the full read does."""
    from .forked import ForkedCall, can_fork
    if not can_fork() or not os.path.isfile(path):
        return None
    return ForkedCall(partial(tail_verdict, limit=max_plain), path)
