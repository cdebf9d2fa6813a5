"""Walk a file of concatenated zstd frames in linear time.

dsh writes one frame for the header line and one per append batch, so a long
session has tens of thousands of frames. One-shot decoders stop after the first
frame, and slicing "the rest" per frame is quadratic; instead we read each
frame's extent from its header and block headers (RFC 8878) and hand the
decoder a zero-copy memoryview of exactly that frame. libzstd verifies the
XXH64 content checksum, so a flipped byte in a complete frame raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import zstandard

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BLOCK_MAX = 128 * 1024  # a block never decodes to more than this (RFC 8878 3.1.1.2.3)
_FCS_SIZES = (0, 2, 4, 8)
_DID_SIZES = (0, 1, 2, 4)


class FrameError(Exception):
    """A complete frame is structurally invalid (dsh calls the log corrupt)."""

    def __init__(self, offset: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.kind = kind
        self.message = message


@dataclass(slots=True)
class FrameSpan:
    start: int
    end: int  # exclusive; for a torn frame: the file length
    blocks: int
    complete: bool

    @property
    def max_plain(self) -> int:
        """Upper bound of the decoded size, used to guard against bombs."""
        return max(1, self.blocks) * BLOCK_MAX


def _describe_bad_magic(data: bytes | memoryview, pos: int, base: int) -> tuple[str, str]:
    head = bytes(data[pos:pos + 4])
    if len(head) == 4 and head[1:] == b"\x2a\x4d\x18" and 0x50 <= head[0] <= 0x5F:
        return "skippable-frame", f"skippable zstd frame at byte {base + pos} (dsh allows none)"
    return "trailing-garbage", f"bytes at offset {base + pos} are not a zstd frame (invalid frame magic)"


def walk_frames(data: bytes | memoryview, base: int = 0) -> Iterator[FrameSpan]:
    """Yield every frame's extent. The last one may be incomplete (torn tail).

    Raises FrameError at the first structurally invalid frame; frames yielded
    before it stay valid. ``base``: the file offset of ``data``, for the error's
    offset and message (spans stay relative to ``data``).
    """
    n = len(data)
    pos = 0
    while pos < n:
        start = pos
        if n - pos < 4:
            yield FrameSpan(start, n, 0, False)
            return
        if data[pos:pos + 4] != ZSTD_MAGIC:
            kind, msg = _describe_bad_magic(data, pos, base)
            raise FrameError(base + pos, kind, msg)
        if pos + 5 > n:
            yield FrameSpan(start, n, 0, False)
            return
        fhd = data[pos + 4]
        if fhd & 0x08:
            raise FrameError(base + pos, "reserved-bit", f"frame at byte {base + pos} sets a reserved header bit")
        single = (fhd >> 5) & 1
        fcs = _FCS_SIZES[fhd >> 6]
        if single and fcs == 0:
            fcs = 1
        pos += 5 + (0 if single else 1) + _DID_SIZES[fhd & 3] + fcs
        checksum = (fhd >> 2) & 1
        blocks = 0
        while True:
            if pos + 3 > n:
                yield FrameSpan(start, n, blocks + 1, False)
                return
            bh = data[pos] | (data[pos + 1] << 8) | (data[pos + 2] << 16)
            pos += 3
            btype = (bh >> 1) & 3
            if btype == 3:
                raise FrameError(base + start, "reserved-block",
                                 f"frame at byte {base + start} has a reserved block type")
            pos += 1 if btype == 1 else bh >> 3
            blocks += 1
            if bh & 1:
                break
        if checksum:
            pos += 4
        if pos > n:
            yield FrameSpan(start, n, blocks, False)
            return
        yield FrameSpan(start, pos, blocks, True)


def decode_frame(dctx: zstandard.ZstdDecompressor, view: memoryview, cap: int | None = None) -> bytes:
    """Decode one frame, or the readable prefix of a torn one (no checksum then).

    With ``cap`` the output stops after ``cap + 1`` bytes: the caller takes
    that careful path only when the frame could cross the decompression limit.
    Raises zstandard.ZstdError on a checksum mismatch or corrupt block.
    """
    if cap is None:
        return dctx.decompressobj().decompress(view)
    return dctx.stream_reader(view, read_across_frames=False).read(cap + 1)
