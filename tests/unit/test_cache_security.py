"""The index cache cannot run code or lie: whatever is planted in its directory, `check` and the
explorer's open give the verdict a fresh decode gives, and nothing planted runs. Directories,
key and temp files are trusted only when they are the user's own, and never followed through a
symlink."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import time

import pytest

from dsh_tui.cli import main
from dsh_tui.demo import write_synthetic
from dsh_tui.model.opening import cache, cachecodec
from dsh_tui.model.opening.open import cache_payload
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.source import LogUnreadable

OTHER_UID = 54321  # a user that is not us (the tests may run as root: chown then works)


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    monkeypatch.setattr(cache, "_refused", {}, raising=False)
    return tmp_path / "xdg-cache" / "dsh-tui" / "index"


@pytest.fixture(params=["zstd", "jsonl"])
def crashed_log(request, tmp_path):
    """A log big enough to be cached, whose verdict is a failure (exit 1)."""
    path = tmp_path / "logs" / f"session.{request.param}"
    path.parent.mkdir()
    write_synthetic(path, 6000, encoding=request.param)
    return path


def _check(capsys, path, *extra) -> tuple[int, dict]:
    """`dsh-tui check --format json` in this process (a planted command would run here)."""
    rc = main(["check", "--format", "json", "--no-lineage", *extra, str(path)])
    out = capsys.readouterr()
    return rc, json.loads(out.out) if out.out else {"stderr": out.err}


def _evil_pickle(marker) -> bytes:
    """What the old restricted unpickler let through: a dotted name reached from a dsh_tui.model
    module (protocol 4 resolves it), here os.system, called with a shell command."""
    def text(s: str) -> bytes:
        b = s.encode()
        return b"\x8c" + bytes([len(b)]) + b
    return b"\x80\x04" + text("dsh_tui.model.opening.cache") + text("os.system") + b"\x93" + text(f"touch {marker}") \
        + b"\x85R."


def _lying_pickle(path) -> bytes:
    """A data-only pickle of the old format with the right key: the log's index, and no findings."""
    log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    payload = cache_payload(log, diag)
    payload["diag"].findings, payload["diag"].verdict = [], None
    return pickle.dumps({"format": cache.FORMAT, "version": __import__("dsh_tui").__version__,
                         "key": cache.file_key(path), **payload}, protocol=pickle.HIGHEST_PROTOCOL)


def _forged_entry(path, secret: bytes) -> bytes:
    """A well-formed entry of the current format with the right key and no findings, MACed with a
    key the attacker chose (not the user's)."""
    log, diag = open_target(path, OpenOptions(use_cache=False, write_cache=False))
    payload = cache_payload(log, diag)
    payload["diag"].findings, payload["diag"].verdict = [], None
    key = cache.entry_key(path, plain_limit=log.plain_limit, lenient=False)
    tree, parts = cachecodec.encode(payload)
    blob = b"".join(parts)
    head = cache.HEAD.pack(cache.MAGIC, cache.FORMAT, 0, len(tree), len(blob), bytes(32))[:-32]
    mac = cache._mac_start(secret, cache._context(key))
    for data in (blob, tree, head):  # (the order the entry is MAC'd in)
        mac.update(data)
    return head + mac.digest() + blob + tree


def _snapshot(directory):
    return {p.name: (p.read_bytes(), p.stat().st_mode) for p in directory.iterdir()}


def _restore(directory, snap):
    shutil.rmtree(directory)
    directory.mkdir(mode=0o700)
    for name, (data, mode) in snap.items():
        (directory / name).write_bytes(data)
        os.chmod(directory / name, mode)


def test_nothing_planted_in_the_cache_runs_or_changes_the_verdict(cache_home, crashed_log, tmp_path, capsys):
    rc, fresh = _check(capsys, crashed_log, "--no-cache")
    assert rc == 1 and fresh["findings"] and fresh["verdict"]
    open_target(crashed_log)  # writes the entry and the key
    snap = _snapshot(cache_home)
    entry = cache.entry_path(crashed_log).name
    assert sorted(snap) == sorted([entry, cache.KEY_NAME])
    assert _check(capsys, crashed_log)[1] == fresh  # served from the cache, the same answer
    marker = tmp_path / "ran"
    planted = {"code": _evil_pickle(marker), "lying-pickle": _lying_pickle(crashed_log),
               "forged": _forged_entry(crashed_log, b"\x00" * 32)}
    stale_tmp, fresh_tmp = "0123456789abcdef.tmp", "fedcba9876543210.tmp"
    for target in (entry, cache.KEY_NAME, stale_tmp, fresh_tmp):
        for what, data in planted.items():
            _restore(cache_home, snap)
            (cache_home / target).write_bytes(data)
            os.chmod(cache_home / target, 0o600)
            if target == stale_tmp:
                os.utime(cache_home / target, (time.time() - 7200,) * 2)
            cache._refused.clear()
            rc, got = _check(capsys, crashed_log)
            assert (rc, got) == (1, fresh), (target, what)
            log, diag = open_target(crashed_log)
            assert check_json(log, diag)["findings"] == fresh["findings"], (target, what)
            assert not marker.exists(), (target, what)
            if target == entry:  # a bad entry is ignored and rewritten (by `check` itself), never trusted
                assert log.from_cache and cache.entry_path(crashed_log).read_bytes() != planted[what]


def test_a_key_planted_by_another_user_is_refused(cache_home, crashed_log, capsys):
    """Another user's key, with an entry MACed by it that claims no findings: the key is refused."""
    rc, fresh = _check(capsys, crashed_log, "--no-cache")
    open_target(crashed_log)
    attacker = b"\x07" * 32
    (cache_home / cache.KEY_NAME).write_bytes(attacker)
    cache.entry_path(crashed_log).write_bytes(_forged_entry(crashed_log, attacker))
    os.chown(cache_home / cache.KEY_NAME, OTHER_UID, -1)
    assert _check(capsys, crashed_log) == (rc, fresh)
    log, _diag = open_target(crashed_log)
    assert not log.from_cache and "owned by uid 54321" in cache.notice()


@pytest.mark.parametrize("how", ["mode-0644", "short", "long", "symlink", "directory", "fifo"])
def test_a_bad_key_file_turns_the_cache_off_with_one_notice(cache_home, crashed_log, tmp_path, how):
    open_target(crashed_log)
    key = cache_home / cache.KEY_NAME
    victim = tmp_path / "victim"
    victim.write_bytes(b"v" * 32)
    os.chmod(victim, 0o600)
    if how == "mode-0644":
        os.chmod(key, 0o644)
    elif how in ("short", "long"):
        key.write_bytes(b"k" * (16 if how == "short" else 64))
    else:
        key.unlink()
        {"symlink": lambda: key.symlink_to(victim), "directory": key.mkdir, "fifo": lambda: os.mkfifo(key)}[how]()
    entry = cache.entry_path(crashed_log)
    before = entry.read_bytes()
    log, _diag = open_target(crashed_log)
    assert not log.from_cache
    assert entry.read_bytes() == before and victim.read_bytes() == b"v" * 32  # nothing written, nothing followed
    note = cache.notice()
    assert note and cache.KEY_NAME in note and "\n" not in note
    assert cache.notice() == note  # one reason for the whole run


@pytest.mark.parametrize("how", ["group-writable", "other-owner", "symlink", "parent-world-writable"])
def test_an_untrusted_directory_turns_the_cache_off(cache_home, crashed_log, tmp_path, how):
    open_target(crashed_log)  # a good entry is there: it must not be served from an untrusted place
    assert open_target(crashed_log)[0].from_cache
    cache._refused.clear()
    if how == "group-writable":
        os.chmod(cache_home, 0o770)
    elif how == "other-owner":
        os.chown(cache_home, OTHER_UID, -1)
    elif how == "parent-world-writable":
        os.chmod(cache_home.parent, 0o777)
    else:
        moved = tmp_path / "elsewhere"
        cache_home.rename(moved)
        cache_home.symlink_to(moved)
    listing = sorted(os.listdir(cache_home))
    log, _diag = open_target(crashed_log)
    assert not log.from_cache
    assert sorted(os.listdir(cache_home)) == listing  # nothing written there either
    note = cache.notice()
    assert note and "index cache off" in note
    assert {"group-writable": "writable by group or others", "other-owner": "owned by uid 54321",
            "symlink": "symlink", "parent-world-writable": "writable by group or others"}[how] in note
    assert not cache.has_entry(crashed_log)  # and `check` forks its helper as without a cache


def test_a_directory_made_by_another_user_is_refused_before_any_entry_is_written(cache_home, crashed_log):
    cache_home.parent.mkdir(parents=True, mode=0o777)
    os.chmod(cache_home.parent, 0o777)
    os.chown(cache_home.parent, OTHER_UID, -1)
    open_target(crashed_log)
    assert not cache_home.exists()
    assert "owned by uid 54321" in cache.notice()


def test_directories_and_files_are_made_private_whatever_the_umask(cache_home, crashed_log):
    old = os.umask(0)
    try:
        open_target(crashed_log)
    finally:
        os.umask(old)
    for d in (cache_home.parent, cache_home):
        assert oct(d.stat().st_mode & 0o777) == "0o700"
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in cache_home.iterdir()} == {
        cache.KEY_NAME: "0o600", cache.entry_path(crashed_log).name: "0o600"}
    assert len((cache_home / cache.KEY_NAME).read_bytes()) == cache.KEY_BYTES
    assert cache.notice() is None


def test_symlinks_at_entry_and_temp_names_are_never_written_through(cache_home, crashed_log, tmp_path):
    open_target(crashed_log)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    entry = cache.entry_path(crashed_log)
    entry.unlink()
    entry.symlink_to(victim)
    for guess in (entry.with_suffix(f".{os.getpid()}.tmp"), cache_home / "predictable.tmp"):
        guess.symlink_to(victim)  # the old writer's temp name was <entry>.<pid>.tmp
    log, diag = open_target(crashed_log)
    assert not log.from_cache and victim.read_bytes() == b"precious"
    assert not entry.is_symlink() and entry.is_file()  # the link itself was replaced by a fresh entry
    assert open_target(crashed_log)[0].from_cache


def test_stale_temps_are_pruned_and_fresh_ones_kept(cache_home, crashed_log, tmp_path):
    open_target(crashed_log)
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    old = time.time() - 2 * cache.TMP_MAX_AGE
    (cache_home / "aaaa.tmp").write_bytes(b"crashed writer")
    os.utime(cache_home / "aaaa.tmp", (old, old))
    (cache_home / "bbbb.tmp").write_bytes(b"a writer still running")
    (cache_home / "cccc.tmp").symlink_to(victim)
    os.utime(cache_home / "cccc.tmp", (old, old), follow_symlinks=False)
    other = tmp_path / "logs" / "other.jsonl"
    write_synthetic(other, 6000, encoding="jsonl")
    open_target(other)  # a save prunes
    names = set(os.listdir(cache_home))
    assert "aaaa.tmp" not in names and "cccc.tmp" not in names and "bbbb.tmp" in names
    assert victim.read_bytes() == b"precious"


def test_old_entries_beyond_the_limit_are_pruned(cache_home, crashed_log, monkeypatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 2)
    logs = []
    for i in range(3):
        path = crashed_log.with_name(f"copy{i}{crashed_log.suffix}")
        path.write_bytes(crashed_log.read_bytes())
        open_target(path)
        logs.append(path)
        time.sleep(0.01)
    assert [cache.has_entry(p) for p in logs] == [False, True, True]
    assert (cache_home / cache.KEY_NAME).exists()


_FULL_DISK = """
import os, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as a full disk fails
resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, 16 * 1024))
from dsh_tui.model.opening.target import open_target
log, diag = open_target(sys.argv[1])
assert not log.from_cache
print("ok")
"""


def test_a_failed_write_leaves_no_temp_behind(cache_home, crashed_log):
    out = subprocess.run([sys.executable, "-c", _FULL_DISK, str(crashed_log)], capture_output=True, text=True,
                         env=os.environ.copy(), timeout=120)
    assert out.stdout.strip() == "ok", out.stderr
    assert sorted(os.listdir(cache_home)) == [cache.KEY_NAME]  # the 32-byte key fits; no entry, no orphan


def test_a_cached_log_over_the_plain_limit_is_refused_as_a_fresh_decode_refuses_it(cache_home, crashed_log, capsys):
    open_target(crashed_log)
    limit = 100_000  # under the plaintext (and the file) size
    with pytest.raises(LogUnreadable) as fresh:
        open_target(crashed_log, OpenOptions(max_plain=limit, use_cache=False))
    with pytest.raises(LogUnreadable) as cached:
        open_target(crashed_log, OpenOptions(max_plain=limit))
    assert (cached.value.code, cached.value.message) == (fresh.value.code, fresh.value.message) \
        and fresh.value.code == "too-large"
    no_cache = _check(capsys, crashed_log, "--no-cache", "--max-plain-size", str(limit))
    assert no_cache[0] == 3 and _check(capsys, crashed_log, "--max-plain-size", str(limit)) == no_cache


def test_options_that_change_the_result_are_part_of_the_key(cache_home, crashed_log):
    log, _diag = open_target(crashed_log)
    assert open_target(crashed_log)[0].from_cache
    assert not open_target(crashed_log, OpenOptions(lenient=True))[0].from_cache  # lenient: another key (and entry)
    assert open_target(crashed_log, OpenOptions(lenient=True))[0].from_cache
    bigger = log.plain_limit * 2
    assert not open_target(crashed_log, OpenOptions(max_plain=bigger))[0].from_cache
    assert open_target(crashed_log, OpenOptions(max_plain=bigger))[0].from_cache


def test_an_entry_for_another_file_at_this_name_is_not_served(cache_home, crashed_log, tmp_path):
    """A genuine entry of the user's, copied to another log's entry name: the MAC binds the log."""
    other = tmp_path / "logs" / f"other{crashed_log.suffix}"
    write_synthetic(other, 7000, encoding="zstd" if crashed_log.suffix == ".zstd" else "jsonl")
    open_target(crashed_log)
    open_target(other)
    shutil.copyfile(cache.entry_path(other), cache.entry_path(crashed_log))
    log, _diag = open_target(crashed_log)
    assert not log.from_cache and len(log) == 6000
