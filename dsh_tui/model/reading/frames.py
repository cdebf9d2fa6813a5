"""Walk a file of concatenated zstd frames in linear time.

dsh writes one frame for the header line and one per append batch, so a long
session has tens of thousands of frames. One-shot decoders stop after the first
frame, and slicing "the rest" per frame is quadratic; instead we read each
frame's extent from its header and block headers (RFC 8878) and hand the
decoder a zero-copy memoryview of exactly that frame. libzstd verifies the
XXH64 content checksum, so a flipped byte in a complete frame raises (a frame
whose header sets no checksum flag is decoded unverified: FrameSpan.checksum).

A frame's block count bounds what it can decode to (128 KiB a block), but a
few KB of blocks may still claim gigabytes: a frame that could pass
CHECK_ABOVE is measured first (`plain_size`, into one small reused buffer)
and refused past MAX_FRAME_PLAIN, before any of its output is held.
"""

from __future__ import annotations

import struct
from typing import Iterator

from msgspec import Struct
import zstandard

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
BLOCK_MAX = 128 * 1024  # a block never decodes to more than this (RFC 8878 3.1.1.2.3)
# The most one frame may decode to. dsh writes a frame per write batch (200 ms of events, cut at
# every checkpoint): a few KB, a few MB for a batch holding a huge tool output. 256 MiB is far past
# any of those and below what dsh itself could read back as one line (a V8 string holds ~512 MiB),
# and it bounds the memory one frame (and so one record) can cost.
MAX_FRAME_PLAIN = 256 << 20
# A frame whose blocks could decode past this is measured before it is decoded; below it the block
# count is bound enough and the frame is decoded in one call (the usual frame is one block).
CHECK_ABOVE = 32 << 20
PIECE = 1 << 20  # bounded decodes read this much at a time
_MAGIC = int.from_bytes(ZSTD_MAGIC, "little")
_HEAD, _U32 = struct.Struct("<IB"), struct.Struct("<I")  # a frame's magic and header byte; a block header
_FCS_SIZES = (0, 2, 4, 8)
_DID_SIZES = (0, 1, 2, 4)


class FrameError(Exception):
    """A complete frame is structurally invalid (dsh calls the log corrupt)."""

    def __init__(self, offset: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.kind = kind
        self.message = message


class FrameSpan(Struct):
    start: int
    end: int  # exclusive; for a torn frame: the file length
    blocks: int
    complete: bool
    checksum: bool = True  # the header sets the content-checksum flag (False: decoded unverified)
    blocks_whole: bool = False  # a torn frame whose every block is there: only its checksum is cut

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
    # The magic and the header byte in one C call, a block header in another (index by index and a
    # slice compare were ~1/3 of the walk; 35k frames in a big log).
    unpack_head, unpack_u32 = _HEAD.unpack_from, _U32.unpack_from
    while pos < n:
        start = pos
        if n - pos >= 5:
            magic, fhd = unpack_head(data, pos)
            if magic != _MAGIC:
                kind, msg = _describe_bad_magic(data, pos, base)
                raise FrameError(base + pos, kind, msg)
        else:
            if n - pos < 4:
                yield FrameSpan(start, n, 0, False)
                return
            if data[pos:pos + 4] != ZSTD_MAGIC:
                kind, msg = _describe_bad_magic(data, pos, base)
                raise FrameError(base + pos, kind, msg)
            yield FrameSpan(start, n, 0, False)
            return
        if fhd & 0x18:  # the reserved bit, and the unused one: dsh refuses either
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
            if pos + 4 <= n:
                bh = unpack_u32(data, pos)[0] & 0xFFFFFF
            else:  # (a block header in the buffer's last 3 bytes)
                bh = data[pos] | data[pos + 1] << 8 | data[pos + 2] << 16
            pos += 3
            btype = (bh >> 1) & 3
            if btype == 3:
                raise FrameError(base + pos - 3, "reserved-block",  # at the block's header, as dsh says
                                 f"frame at byte {base + start} has a reserved block type (at byte {base + pos - 3})")
            pos += 1 if btype == 1 else bh >> 3
            blocks += 1
            if bh & 1:
                break
        if checksum:
            pos += 4
        if pos > n:
            yield FrameSpan(start, n, blocks, False, bool(checksum), blocks_whole=bool(checksum) and pos - 4 <= n)
            return
        yield FrameSpan(start, pos, blocks, True, bool(checksum))


def decode_frame(dctx: zstandard.ZstdDecompressor, view: memoryview, cap: int | None = None) -> bytes:
    """Decode one frame, or the readable prefix of a torn one (no checksum then).

    With ``cap`` the output stops after ``cap + 1`` bytes, read a PIECE at a time (so no more
    than the output is ever allocated): the caller takes that path when the frame could cross
    a limit. Without it the frame is decoded whole: only for a frame whose blocks bound it.
    Raises zstandard.ZstdError on a checksum mismatch or corrupt block.
    """
    if cap is None:
        return dctx.decompressobj().decompress(view)
    reader = dctx.stream_reader(view, read_across_frames=False)
    parts, got = [], 0
    while got <= cap:
        piece = reader.read(min(PIECE, cap + 1 - got))
        if not piece:
            break
        parts.append(piece)
        got += len(piece)
    return b"".join(parts)


def plain_size(dctx: zstandard.ZstdDecompressor, view: memoryview, stop_after: int) -> int:
    """What one frame decodes to, counted without keeping it (decoded into one reused PIECE);
    ``stop_after + 1`` as soon as it passes ``stop_after``. Raises zstandard.ZstdError as
    `decode_frame` does (a complete frame's checksum is checked when its end is reached)."""
    reader = dctx.stream_reader(view, read_across_frames=False)
    buf = bytearray(min(PIECE, stop_after + 1))
    got = 0
    while got <= stop_after:
        n = reader.readinto(buf)
        if not n:
            break
        got += n
    return min(got, stop_after + 1)


def measure(dctx: zstandard.ZstdDecompressor, view: memoryview, stop_after: int) -> tuple[int, int, bool]:
    """`plain_size`, and what the count sees on the way: (size, newlines, ends with a newline)."""
    reader = dctx.stream_reader(view, read_across_frames=False)
    buf = bytearray(min(PIECE, stop_after + 1))
    got = newlines = 0
    last = 0
    while got <= stop_after:
        n = reader.readinto(buf)
        if not n:
            break
        got += n
        newlines += buf.count(b"\n", 0, n)
        last = buf[n - 1]
    return min(got, stop_after + 1), newlines, last == 0x0A


def line_pieces(dctx: zstandard.ZstdDecompressor, view: memoryview, piece: int = 4 * PIECE) -> Iterator[bytes]:
    """A frame's text a piece at a time, each piece cut after its last newline (what follows is
    carried into the next): a big frame of many records is never held whole. The frame must end
    with a newline (`measure` says so) or its last partial line is not yielded."""
    reader = dctx.stream_reader(view, read_across_frames=False)
    carry = bytearray()
    while True:
        part = reader.read(piece)
        if not part:
            return
        cut = part.rfind(b"\n") + 1
        if not cut:
            carry += part
            continue
        if carry:
            carry += memoryview(part)[:cut]
            yield bytes(carry)
            carry = bytearray()
        else:
            yield part if cut == len(part) else part[:cut]
        if cut < len(part):
            carry += memoryview(part)[cut:]


def needs_measuring(blocks: int, room: int) -> bool:
    """Whether a frame of ``blocks`` blocks could decode past ``room`` or CHECK_ABOVE (then: measure
    it with `plain_size` before decoding it)."""
    bound = max(1, blocks) * BLOCK_MAX
    return bound > room or bound > CHECK_ABOVE


def too_big_message(offset: int, compressed: int) -> str:
    """The one-line refusal of a frame that decodes past MAX_FRAME_PLAIN."""
    return (f"the zstd frame at byte {offset:,} ({compressed:,} bytes) decodes to more than "
            f"{MAX_FRAME_PLAIN >> 20} MiB; dsh writes frames of a few KB; refusing (a decompression bomb?)")
