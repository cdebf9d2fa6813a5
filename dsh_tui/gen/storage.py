"""Byte-exact dsh storage encoding: packed chunk rows, zstd frames, atomic log writes.

Mirrors ``packChunkRuns`` (packages/core/session/src/chunk-rows.ts) and the JSONL backend's
framing (DSH-FORMAT.md sections 2 and 5): frame 1 holds only the header line, then one
frame per write batch, each batch packed independently.
"""

from __future__ import annotations

import io
import os
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import zstandard

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MIN_RUN = 3
_SAFE = (1 << 53) - 1
_ROW_TAG = {
    "text-delta": "text-chunks",
    "reasoning-delta": "reasoning-chunks",
    "tool-call-delta": "tool-call-chunks",
}
_NL = orjson.OPT_APPEND_NEWLINE
_dumps = orjson.dumps
_COMPRESSOR = zstandard.ZstdCompressor(level=3, write_checksum=True, write_content_size=False)


def compress_frame(plain: bytes) -> bytes:
    """One standard zstd frame: checksum on, no content size, 2 MiB window (as dsh writes).

    A streaming compressobj is used so the source size is unknown to zstd, which gives the
    same Window_Descriptor (0x58) the Node writer produces.
    """
    cobj = _COMPRESSOR.compressobj()
    return cobj.compress(plain) + cobj.flush()


def _is_num(value: object) -> bool:
    return type(value) is int or type(value) is float


def _classify(event: Any) -> tuple | None:
    """Run key of a packable delta event (exact whitelisted shape), else None."""
    if type(event) is not dict or len(event) != 4 or event.get("type") != "assistant/chunk":
        return None
    seq, time, data = event.get("seq"), event.get("time"), event.get("data")
    if type(seq) is not int or type(time) is not int or type(data) is not dict or len(data) != 3:
        return None
    if seq < 0 or seq > _SAFE or time > _SAFE or time < -_SAFE:
        return None
    turn, step, chunk = data.get("turn"), data.get("step"), data.get("chunk")
    if not (_is_num(turn) and _is_num(step)) or type(chunk) is not dict:
        return None
    kind, index = chunk.get("type"), chunk.get("index")
    if not _is_num(index):
        return None
    if kind == "text-delta" or kind == "reasoning-delta":
        if len(chunk) == 3 and type(chunk.get("text")) is str:
            return (kind, turn, step, index)
        return None
    if kind == "tool-call-delta" and type(chunk.get("id")) is str:
        if type(chunk.get("argumentsDelta")) is not str:
            return None
        if len(chunk) == 4:
            return (kind, turn, step, index, chunk["id"], False, None)
        if len(chunk) == 5 and type(chunk.get("name")) is str:
            return (kind, turn, step, index, chunk["id"], True, chunk["name"])
    return None


def _row(key: tuple, run: list[dict]) -> dict:
    first = run[0]
    times = [e["time"] for e in run]
    data: dict[str, Any] = {
        "turn": key[1],
        "step": key[2],
        "index": key[3],
        "dt": [b - a for a, b in zip(times, times[1:])],
    }
    if key[0] == "tool-call-delta":
        data["id"] = key[4]
        if key[5]:
            data["name"] = key[6]
        data["args"] = [e["data"]["chunk"]["argumentsDelta"] for e in run]
    else:
        data["texts"] = [e["data"]["chunk"]["text"] for e in run]
    return {"type": _ROW_TAG[key[0]], "seq0": first["seq"], "time0": first["time"], "data": data}


def pack_records(events: list[dict]) -> list[dict]:
    """Apply dsh's packing rule to one write batch; non-packable events pass through as-is."""
    out: list[dict] = []
    run: list[dict] = []
    run_key: tuple | None = None

    def close() -> None:
        if len(run) >= MIN_RUN:
            out.append(_row(run_key, run))  # type: ignore[arg-type]
        else:
            out.extend(run)

    for event in events:
        key = _classify(event)
        if key is None:
            if run:
                close()
                run, run_key = [], None
            out.append(event)
            continue
        if run and key == run_key:
            prev = run[-1]
            if event["seq"] == prev["seq"] + 1 and abs(event["time"] - prev["time"]) <= _SAFE:
                run.append(event)
                continue
        if run:
            close()
        run, run_key = [event], key
    if run:
        close()
    return out


def record_event_count(record: dict) -> int:
    """How many logical events one stored record stands for."""
    tag = record.get("type")
    if tag in ("text-chunks", "reasoning-chunks"):
        return len(record["data"]["texts"])
    if tag == "tool-call-chunks":
        return len(record["data"]["args"])
    return 1


class LogEncoder:
    """Streams a header and write batches to a binary file object, counting facts."""

    def __init__(self, out: BinaryIO, *, encoding: str = "zstd", pack: bool = True) -> None:
        if encoding not in ("zstd", "jsonl"):
            raise ValueError(f"unknown encoding {encoding!r} (expected 'zstd' or 'jsonl')")
        self.out, self.zstd, self.pack = out, encoding == "zstd", pack
        self.events = self.records = self.frames = self.plain_bytes = 0
        self.last_call_id: str | None = None

    def _emit(self, plain: bytes) -> None:
        self.plain_bytes += len(plain)
        if self.zstd:
            self.out.write(compress_frame(plain))
            self.frames += 1
        else:
            self.out.write(plain)

    def header(self, header: dict) -> None:
        self._emit(_dumps(header, option=_NL))

    def batch(self, events: list[dict]) -> None:
        if not events:
            return
        for event in reversed(events):
            if event.get("type") == "tool/call":
                self.last_call_id = event["data"]["callId"]
                break
        records = pack_records(events) if self.pack else events
        self.events += len(events)
        self.records += len(records)
        self._emit(b"".join([_dumps(r, option=_NL) for r in records]))

    def facts(self) -> dict:
        return {
            "events": self.events,
            "records": self.records,
            "frames": self.frames,
            "plain_bytes": self.plain_bytes,
            "last_call_id": self.last_call_id,
        }


def encode_log(header: dict, batches: Iterable[list[dict]], *, encoding: str = "zstd",
               pack: bool = True) -> bytes:
    """The exact bytes :func:`write_log` would write."""
    buf = io.BytesIO()
    enc = LogEncoder(buf, encoding=encoding, pack=pack)
    enc.header(header)
    for batch in batches:
        enc.batch(batch)
    return buf.getvalue()


def atomic_write(path: str | os.PathLike[str], fill) -> Any:
    """Write via a sibling temp file + ``os.replace``; ``fill(fh)`` writes the content."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(tmp, "wb", buffering=1 << 20) as fh:
            result = fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result


def write_log_facts(path: str | os.PathLike[str], header: dict, batches: Iterable[list[dict]], *,
                    encoding: str = "zstd", pack: bool = True) -> dict:
    """Like :func:`write_log`, returning the facts (events, records, frames, plain_bytes, last_call_id)."""

    def fill(fh: BinaryIO) -> dict:
        enc = LogEncoder(fh, encoding=encoding, pack=pack)
        enc.header(header)
        for batch in batches:
            enc.batch(batch)
        return enc.facts()

    return atomic_write(path, fill)


def write_log(path: str | os.PathLike[str], header: dict, batches: Iterable[list[dict]], *,
              encoding: str = "zstd", pack: bool = True) -> None:
    """Write a dsh session log: header line, then one record per line (one frame per batch)."""
    write_log_facts(path, header, batches, encoding=encoding, pack=pack)
