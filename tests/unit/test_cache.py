"""The index cache: same answers as a fresh decode, never stale, never beside the log.
(What cannot be trusted in the cache directory: test_cache_security.py; the codec: test_cache_codec.py.)"""

from __future__ import annotations

import os

import pytest

from dsh_tui.demo import write_synthetic
from dsh_tui.model.opening import cache
from dsh_tui.model.opening.open import save_to_cache
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.presenting.checkjson import check_json


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    return tmp_path / "xdg-cache" / "dsh-tui" / "index"


@pytest.fixture(params=["zstd", "jsonl"])
def big_log(request, tmp_path):
    path = tmp_path / "logs" / f"session.{request.param}"
    path.parent.mkdir()
    write_synthetic(path, 6000, encoding=request.param)
    return path


def _snapshot(log, diag):
    data = check_json(log, diag)
    data.pop("file")
    picks = [0, 1, len(log) // 2, len(log) - 1]
    return data, [(log.event(i).event, log.event(i).raw, log.event(i).line) for i in picks]


def test_cached_open_gives_the_same_answers(cache_home, big_log):
    fresh_log, fresh_diag = open_target(big_log)
    assert not fresh_log.from_cache
    entries = list(cache_home.glob("*.idx"))
    assert len(entries) == 1 and oct(entries[0].stat().st_mode & 0o777) == "0o600"
    assert list(big_log.parent.iterdir()) == [big_log]  # nothing beside the log
    log, diag = open_target(big_log)
    assert log.from_cache
    assert _snapshot(log, diag) == _snapshot(fresh_log, fresh_diag)
    assert diag.pairs == fresh_diag.pairs and diag.findings == fresh_diag.findings  # every field kept
    needle = fresh_diag.verdict.call_id
    assert log.search(needle, 0) == fresh_log.search(needle, 0) is not None


def test_grown_file_is_not_served_stale(cache_home, big_log, tmp_path):
    open_target(big_log)
    other = tmp_path / "bigger"
    write_synthetic(other, 7000, encoding="zstd" if big_log.suffix == ".zstd" else "jsonl")
    big_log.write_bytes(other.read_bytes())  # a grown file: more events
    log, _ = open_target(big_log)
    assert not log.from_cache and len(log) == 7000


def test_same_size_rewrite_with_restored_mtime_is_not_served_stale(cache_home, big_log):
    log0, _ = open_target(big_log)
    st = big_log.stat()
    data = bytearray(big_log.read_bytes())
    if big_log.suffix == ".jsonl":  # change one event's payload, keep the size
        i = data.index(b'"turn":1,')
        data[i + 7:i + 8] = b"2"
    else:
        data[len(data) // 2] ^= 1
    big_log.write_bytes(bytes(data))
    os.utime(big_log, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert big_log.stat().st_size == st.st_size and big_log.stat().st_mtime_ns == st.st_mtime_ns
    log, _ = open_target(big_log)
    assert not log.from_cache


def test_cache_can_be_disabled(cache_home, big_log, monkeypatch):
    open_target(big_log, OpenOptions(use_cache=False))
    assert not cache_home.exists()
    monkeypatch.setenv(cache.CACHE_ENV, "1")
    open_target(big_log)
    assert not cache_home.exists()


def test_write_later_then_read(cache_home, big_log):
    log, diag = open_target(big_log, OpenOptions(write_cache=False))
    assert not cache_home.exists()
    save_to_cache(log, diag)
    assert open_target(big_log)[0].from_cache


def test_corrupt_or_foreign_cache_entry_is_ignored(cache_home, big_log):
    open_target(big_log)
    entry = next(cache_home.glob("*.idx"))
    entry.write_bytes(b"\x80\x04\x95garbage")
    log, _ = open_target(big_log)
    assert not log.from_cache
    import pickle
    entry.write_bytes(pickle.dumps({"format": cache.FORMAT, "x": os.system}))  # would run code if trusted
    log, _ = open_target(big_log)
    assert not log.from_cache


def test_any_changed_byte_of_an_entry_is_caught(cache_home, big_log):
    """The MAC covers the header, the JSON tree and the binary arrays: one flipped bit anywhere
    and the entry is not served (then rewritten)."""
    fresh = _snapshot(*open_target(big_log))
    entry = next(cache_home.glob("*.idx"))
    good = entry.read_bytes()
    tree_len = int.from_bytes(good[16:24], "little")
    for at in (3, 12, 20, 40, 64 + 5, 64 + tree_len // 2, 64 + tree_len + 3, len(good) - 1):
        bad = bytearray(good)
        bad[at] ^= 0x01
        entry.write_bytes(bytes(bad))
        log, diag = open_target(big_log)
        assert not log.from_cache and _snapshot(log, diag) == fresh, at
        assert entry.read_bytes() == good  # rewritten: same log, same key
    entry.write_bytes(good + b"x")
    assert not open_target(big_log)[0].from_cache
    entry.write_bytes(good[:-1])
    assert not open_target(big_log)[0].from_cache


def test_a_first_open_does_not_hash_the_file(cache_home, big_log, monkeypatch):
    hashed = []
    real = cache.file_key
    monkeypatch.setattr(cache, "file_key", lambda *a: hashed.append(1) or real(*a))
    log, _diag = open_target(big_log, OpenOptions(write_cache=False))
    assert not log.from_cache and not hashed  # nothing cached for this path: no lookup key needed
    save_to_cache(log, _diag)
    hashed.clear()
    assert open_target(big_log)[0].from_cache and hashed  # a cached entry is only served against the hash
