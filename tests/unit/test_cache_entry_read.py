"""How an index cache entry is read back: its MAC checked first, a chunk at a time, then its tree and
its binary parts from the file as the decode asks for them, never the whole entry at once."""

from __future__ import annotations

import os

import pytest

from dsh_tui.demo import write_synthetic
from dsh_tui.model.opening import cache, cachecodec, privatedir
from dsh_tui.model.opening.entryparts import FileParts, MemoryParts
from dsh_tui.model.opening.target import OpenOptions, open_target


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A zstd log whose entry is written, and that entry's path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.setattr(cache, "_refused", {}, raising=False)
    path = tmp_path / "session.jsonl.zstd"
    write_synthetic(path, 6000, encoding="zstd")
    log, _diag = open_target(path)
    assert not log.from_cache and cache.entry_path(path).exists()
    return path, cache.entry_path(path)


def _reads(monkeypatch) -> list[int]:
    sizes: list[int] = []
    read_at = privatedir.read_at

    def counted(fd, view, offset):
        sizes.append(len(view))
        return read_at(fd, view, offset)
    monkeypatch.setattr(privatedir, "read_at", counted)
    return sizes


def test_an_entry_is_read_a_part_at_a_time_and_gives_what_was_written(cached, monkeypatch):
    path, entry = cached
    fresh, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    monkeypatch.setattr(cache, "CHUNK", 4096)
    sizes = _reads(monkeypatch)
    log, again = open_target(path)
    assert log.from_cache and again.findings == diag.findings and log.res.rec_start == fresh.res.rec_start
    size = entry.stat().st_size
    _magic, _fmt, _flags, tree_len, blob_len, _mac = cache.HEAD.unpack_from(entry.read_bytes())
    assert blob_len > 4 * 4096 and max(sizes) <= max(4096, tree_len, blob_len // 2) < size
    assert sum(sizes) <= 2 * size  # the MAC's pass, then the tree and the parts once each


@pytest.mark.parametrize("where", ["tree", "blob", "mac"])
def test_a_changed_byte_is_refused_before_anything_is_decoded(cached, monkeypatch, where):
    path, entry = cached
    data = bytearray(entry.read_bytes())
    _magic, _fmt, _flags, tree_len, blob_len, _mac = cache.HEAD.unpack_from(data)
    at = {"blob": cache.HEAD.size + blob_len // 2, "tree": cache.HEAD.size + blob_len + tree_len // 2,
          "mac": cache.HEAD.size - 1}[where]
    data[at] ^= 1
    entry.write_bytes(bytes(data))
    decoded = []
    monkeypatch.setattr(cachecodec, "decode", lambda *a: decoded.append(a))
    log, _diag = open_target(path, OpenOptions(write_cache=False))
    assert not log.from_cache and decoded == []


def test_an_entry_shorter_than_its_head_says_is_refused(cached):
    path, entry = cached
    entry.write_bytes(entry.read_bytes()[:-1])
    log, _diag = open_target(path, OpenOptions(write_cache=False))
    assert not log.from_cache


def test_parts_outside_the_blob_are_refused(tmp_path):
    blob = tmp_path / "blob"
    blob.write_bytes(b"head" + bytes(range(16)))
    fd = os.open(blob, os.O_RDONLY)
    try:
        for parts in (FileParts(fd, 4, 16), MemoryParts(bytes(range(16)))):
            assert bytes(parts.read(2, 3)) == bytes([2, 3, 4])
            view = memoryview(bytearray(4))
            parts.fill(view, 12)
            assert bytes(view) == bytes([12, 13, 14, 15])
            for offset, length in ((15, 2), (-1, 1), (0, -1), (True, 1), (1.0, 1)):
                with pytest.raises(ValueError):
                    parts.read(offset, length)
        with pytest.raises(ValueError):  # a blob the file does not hold to its end
            FileParts(fd, 4, 20).read(14, 4)
    finally:
        os.close(fd)


class _Sink:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.restarts = 0

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def restart(self) -> None:
        self.parts.clear()
        self.restarts += 1


def test_the_codec_hands_each_part_over_as_it_is_made_and_a_second_try_starts_over():
    from array import array
    payload = {"a": array("q", range(1000)), "b": [b"bytes", array("i", [1, 2])], "t": "plain"}
    sink = _Sink()
    tree, kept = cachecodec.encode(payload, sink)
    assert kept == [] and len(sink.parts) == 3 and sink.restarts == 1  # none held by the codec
    assert cachecodec.decode(tree, b"".join(sink.parts)) == payload
    odd = {**payload, "s": "\ud800"}  # (orjson refuses a lone surrogate: the careful second try)
    tree, kept = cachecodec.encode(odd, sink)
    assert sink.restarts == 3 and len(sink.parts) == 4  # the first try's parts gone, a part for the str
    assert cachecodec.decode(tree, b"".join(sink.parts)) == odd


def test_an_entry_written_after_a_second_try_reads_back(cached, monkeypatch):
    path, entry = cached
    log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    diag.findings[0].message += "\ud800"  # (a lone surrogate: orjson refuses it on the first try)
    from dsh_tui.model.opening.open import save_to_cache
    entry.unlink()
    save_to_cache(log, diag)
    again, back = open_target(path, OpenOptions(write_cache=False))
    assert again.from_cache and back.findings[0].message == diag.findings[0].message
    assert not [p for p in entry.parent.iterdir() if p.name.endswith(".tmp")]
