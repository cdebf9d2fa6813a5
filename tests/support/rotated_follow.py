"""Rotated follow files: a followed log replaced under the reader, each way it happens.

Each rotation starts from ``old`` (the bytes the reader opens) and changes the file at
the same path: replaced by another session of the same size, by a larger one, by one
renamed over it (a new inode, same size and mtime), rewritten in place (same inode, the
same session with its last record edited and more appended), or truncated. ``words``
is what the follow step must say changed. The old file is the demo session (or its first
half), the other session a synthetic one, larger than the demo. Built from the project's
generators; nothing here is read from outside the test's directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import orjson
import zstandard

from dsh_tui.demo import compress_frame, demo_batches
from dsh_tui.gen.storage import encode_log
from dsh_tui.gen.synthetic import iter_synthetic_batches, synthetic_header
from dsh_tui.model.reading.frames import walk_frames

OTHER_SESSION_ID = synthetic_header(1)["id"]


def sessions(encoding: str) -> tuple[bytes, bytes]:
    """(the demo, another session that is larger)."""
    header, batches = demo_batches()
    ours = encode_log(header, batches, encoding=encoding)
    theirs = encode_log(synthetic_header(1), iter_synthetic_batches(800, seed=1), encoding=encoding)
    assert len(theirs) > len(ours)
    return ours, theirs


def record_ends(data: bytes, encoding: str) -> list[int]:
    """Byte offsets where a line (JSONL) or a frame (zstd) ends: where a writer may stop."""
    if encoding == "zstd":
        return [span.end for span in walk_frames(data)]
    return [k + 1 for k in range(len(data)) if data[k] == 0x0A]


def middle(data: bytes, encoding: str) -> int:
    ends = record_ends(data, encoding)
    return ends[len(ends) // 2]


def edited_last_record(data: bytes, cut: int, encoding: str) -> bytes:
    """``data[:cut]`` with its last record edited (a key added: the record grows), then the rest."""
    if encoding == "zstd":
        start = max(end for end in [0] + record_ends(data, encoding) if end < cut)
        plain = zstandard.ZstdDecompressor().decompressobj().decompress(data[start:cut])
        return data[:start] + compress_frame(_edit_last_line(plain)) + data[cut:]
    return _edit_last_line(data[:cut]) + data[cut:]


def _edit_last_line(text: bytes) -> bytes:
    head, _, last = text[:-1].rpartition(b"\n")
    record = orjson.loads(last)
    record["edited"] = True
    return (head + b"\n" if head else b"") + orjson.dumps(record) + b"\n"


def _mtime_moves_on(path: Path, before: os.stat_result) -> None:
    """A rewrite a second later (the test writes faster than the file system's clock ticks)."""
    later = before.st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))


def _overwrite(path: Path, data: bytes) -> None:
    """Write ``data`` over the file from byte 0, same inode, without truncating it first."""
    with open(path, "r+b") as fh:
        fh.write(data)


@dataclass
class Rotation:
    old: bytes
    rotate: Callable[[Path], None]
    words: str  # in FollowStep.replaced
    new: bytes  # the file's bytes after the rotation


def rotations(encoding: str) -> dict[str, Rotation]:
    ours, theirs = sessions(encoding)
    cut = middle(ours, encoding)
    half = ours[:cut]

    def same_size(path: Path) -> None:
        before = os.stat(path)
        _overwrite(path, theirs[:cut])
        _mtime_moves_on(path, before)

    def larger(path: Path) -> None:
        path.write_bytes(theirs)  # truncated and rewritten: the same inode

    def renamed_over(path: Path) -> None:
        before = os.stat(path)
        other = path.with_name(path.name + ".new")
        other.write_bytes(theirs[:cut])
        os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))  # only the inode tells
        os.replace(other, path)

    edited = edited_last_record(ours, cut, encoding)

    def rewritten_in_place(path: Path) -> None:
        _overwrite(path, edited)

    def truncated(path: Path) -> None:
        os.truncate(path, cut)

    return {
        "same-size": Rotation(half, same_size, "rewritten at the same size", theirs[:cut]),
        "larger": Rotation(half, larger, "bytes before the old end changed", theirs),
        "renamed-over": Rotation(half, renamed_over, "new inode", theirs[:cut]),
        "rewritten-in-place": Rotation(half, rewritten_in_place, "bytes before the old end changed", edited),
        "truncated": Rotation(ours, truncated, f"shrank from {len(ours):,} to {cut:,} bytes", half),
    }
