"""An index cache entry's binary parts (cachecodec.py's arrays, bytes and odd strings), as its decode
asks for them.

`MemoryParts` reads them from bytes in memory. `FileParts` reads them from the entry's file, an array
straight into its own memory: the entry is never held whole. Read whole, its parts (~90 MiB of the x11
file's entry) were held twice at the re-open's peak, once in the entry and once in the arrays copied
out of it.
"""

from __future__ import annotations

from .privatedir import read_at


def _checked(offset: object, length: object, end: int) -> None:
    if type(offset) is not int or type(length) is not int or offset < 0 or length < 0 or offset + length > end:
        raise ValueError("a binary part lies outside the entry")


class MemoryParts:
    """Parts from bytes in memory (an entry made in this process: tests, the codec's round trip)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.data = memoryview(data)

    def check(self, offset: object, length: object) -> None:
        _checked(offset, length, len(self.data))

    def read(self, offset: int, length: int) -> memoryview:
        self.check(offset, length)
        return self.data[offset:offset + length]

    def fill(self, view: memoryview, offset: int) -> None:
        view[:] = self.read(offset, len(view))


class FileParts:
    """Parts read from ``fd``: the ``length`` bytes from file offset ``start`` on (the entry's blob).
    Raises ValueError for a part outside them, OSError if the file cannot be read."""

    __slots__ = ("fd", "start", "end")

    def __init__(self, fd: int, start: int, length: int) -> None:
        self.fd, self.start, self.end = fd, start, length

    def check(self, offset: object, length: object) -> None:
        _checked(offset, length, self.end)

    def read(self, offset: int, length: int) -> memoryview:
        out = memoryview(bytearray(length))
        self.fill(out, offset)
        return out

    def fill(self, view: memoryview, offset: int) -> None:
        self.check(offset, len(view))
        if not read_at(self.fd, view, self.start + offset):
            raise ValueError("the entry ends before its parts do")

