"""A per-file index cache in the user's cache directory (never beside the log).

Re-opening an unchanged log loads the index and the diagnosis from here and decodes only the
frames the views touch.

What is stored: one entry per log path (`index/<sha256 of the real path>.idx`) holding the log's
index (record and event offsets, frame table, scan notes) and its diagnosis as data only
(cachecodec.py: JSON and typed binary arrays; no pickle, nothing that can name code), and one
per-user secret, `index/hmac.key` (32 random bytes, mode 0600).

How an entry is protected:
- It carries an HMAC-SHA256 under that key over the whole entry and over what it must match: the
  log's identity (real path, device, inode, size, mtime, sha256 of every byte), the options that
  change the result (plaintext limit, lenient, the facts limit), FORMAT, the dsh-tui version and the codec's schema.
  The MAC is checked (`hmac.compare_digest`) before anything but the fixed 64-byte header is
  parsed. A bad, stale or foreign entry is ignored and rewritten, never trusted.
- The directories (`dsh-tui`, `dsh-tui/index`) are made 0700 and used only when they are real
  directories (not symlinks) owned by the effective user and not writable by group or others; the
  key only when it is a regular 0600 file of that user and 32 bytes long; an entry only when it is
  a regular file of that user that group and others cannot read or write. Otherwise the cache is
  off for the run (nothing read or written) and `notice()` says why, in one line.
- Files are opened relative to the checked directory's descriptor, never through a symlink
  (privatedir.py). A new entry is written to an unpredictable temp name (O_CREAT|O_EXCL|O_NOFOLLOW,
  0600) and renamed into place; the temp is removed on any failure (a full disk), stale temps (over
  an hour) and entries past MAX_ENTRIES are pruned.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from typing import Any

from ... import __version__
from . import privatedir

FORMAT = 29  # 29: the scan's types a byte a record, not an event (ScanResult.rec_type);
# 28: packed lists' int columns (packed.py) and the context records' number columns
# (contextcolumns.py) a byte or two a cell where their values fit;
# 27: the records' first events as the rows of more than one (ScanResult.row_rec);
# 26: a sparse column's parts as they are, its values' JSON kept (textcolumn.py);
# 25: the head, the blob, then the tree (the parts written as they are made), MAC'd in that
# order but the head last;
# 24: the context records' number columns as arrays, the rest as JSON (contextcolumns.py);
# 23: packed lists' int columns as their cells, int32 from a base where they fit (packed.py);
# 22: the context records' turns as int columns, each header body written once, no result
# text for a call that succeeded with arguments (pairing.py);
# 21: the seq gaps past the first 10,000 counted (ScanResult.gaps_dropped);
# 20: findings in words (no Python repr), a checksum-only torn tail not "lost";
# 19: the turn ends and each turn's token counts as columns (perturn.py);
# 18: the pairs as columns (pairtable.py);
# 17: the timing's turns as the walk packs them (TurnList, Timing.plain's version 6);
# 16: the diagnosis's turn ends as columns;
# 15: the timing's turns as columns, its repeated strings coded (Timing.plain's version 5);
# 14: the timing's turn and step columns, compact turns (an older entry would read as no timing);
# 13: the timing's model and tool calls as columns (arrays);
# 12: facts carry their event's time, the diagnosis its clock (timing);
# 11: data only, authenticated (cachecodec, HMAC); 10: a call's usage is its last
CHUNK = 1024 * 1024
MAX_ENTRIES = 32
CACHE_ENV = "DSH_TUI_NO_CACHE"
KEY_NAME = "hmac.key"
KEY_BYTES = 32
ENTRY_SUFFIX = ".idx"
TMP_MAX_AGE = 3600.0  # seconds: a temp this old belongs to no writer still running
MAGIC = b"DSHIDX\x00\n"
# magic, FORMAT, flags (0), tree length, blob length, MAC: the only bytes looked at before the MAC is checked
HEAD = struct.Struct("<8sIIQQ32s")
# What an entry must match, besides FORMAT, version and schema: the file, then the options.
KEY_FIELDS = ("path", "dev", "ino", "size", "mtime_ns", "sha256", "plain_limit", "lenient", "fact_limit")

_refused: dict[str, str] = {}  # index directory -> why the cache is off there for this run


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "dsh-tui" / "index"


def enabled() -> bool:
    return not os.environ.get(CACHE_ENV)


def notice() -> str | None:
    """Why the cache is off for this run (a directory or key dsh-tui refuses to trust), in one
    line for stderr or the status bar; None while it is in use. The reason stays the same for
    the whole run, so a caller shows it once."""
    why = _refused.get(str(cache_dir()))
    if why is None:
        return None
    from ...safety import one_line
    return one_line(f"index cache off: {why}; fix or remove it, or set {CACHE_ENV}=1", 600)


def file_key(path: Path, st: os.stat_result | None = None) -> dict[str, Any]:
    """Identity plus a hash of every byte (sha256 runs at GB/s here: ~10 ms for 20 MB)."""
    import hashlib  # here, not at import: `check --no-cache` never needs it (~5 ms)
    st = st or os.stat(path)
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        offset = 0
        # One buffer read into again and again: a fresh block per read cost ~5 ms of page faults.
        view = memoryview(bytearray(min(CHUNK, st.st_size)))
        while offset < st.st_size:  # only the bytes that existed at stat time
            got = os.readv(fd, [view[:min(CHUNK, st.st_size - offset)]])
            if not got:
                break
            digest.update(view[:got])
            offset += got
    finally:
        os.close(fd)
    return {"path": os.path.realpath(path), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino,
            "dev": st.st_dev, "sha256": digest.hexdigest()}


def entry_key(path: Path, st: os.stat_result | None = None, *, plain_limit: int, lenient: bool) -> dict[str, Any]:
    """What an entry for ``path`` must match: the file (`file_key`) and the options that change the result."""
    # ($DSH_TUI_MAX_FACTS: an entry read past the default is not served under it)
    from ..reading.scanchecks import max_facts
    return {**file_key(path, st), "plain_limit": int(plain_limit), "lenient": bool(lenient),
            "fact_limit": max_facts()}


def _entry_name(path: Path) -> str:
    import hashlib
    return hashlib.sha256(os.path.realpath(path).encode("utf-8", "surrogateescape")).hexdigest()[:40] + ENTRY_SUFFIX


def entry_path(path: Path) -> Path:
    return cache_dir() / _entry_name(path)


def has_entry(path: Path) -> bool:
    """Whether anything is cached for this path (no hash of the file: whether it is fresh is `load`'s
    call). Without one, a first open neither hashes the file nor forks anything to throw away."""
    if str(cache_dir()) in _refused:
        return False
    try:
        st = os.stat(entry_path(path), follow_symlinks=False)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid()


def load(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cached payload for ``path`` if its entry is authentic and made for ``key`` (`entry_key`), else None."""
    from . import cachecodec
    from ..reading.gcpause import gc_paused
    context = _context(key)
    directory = _open_dir(create=False)
    if directory is None:
        return None
    try:
        secret = _secret(directory, create=False)
        fd = None if secret is None else privatedir.open_file(directory, _entry_name(path), _max_entry(key["size"]))
        if fd is None:
            return None
        try:
            with gc_paused():  # ~100k containers: collection passes would only re-scan them
                payload = _read_entry(fd, secret, context)
        finally:
            os.close(fd)
    except (OSError, cachecodec.CodecError, MemoryError):
        return None
    finally:
        os.close(directory)
    return payload if isinstance(payload, dict) else None


def save(path: Path, key: dict[str, Any], payload: dict[str, Any]) -> Path | None:
    """Write the entry for ``path`` (mode 0600, atomically) and prune old ones. Failures are silent:
    the cache is optional, and a refused directory or key is reported by `notice`. The binary parts
    go to the file as the codec makes them (`_EntrySink`), the tree after them, the head last."""
    from . import cachecodec
    context = _context(key)
    limit = _max_entry(key["size"])
    directory = _open_dir(create=True)
    if directory is None:
        return None
    try:
        secret = _secret(directory, create=True)
        if secret is None:
            return None

        def fill(fd: int) -> bool:
            sink = _EntrySink(fd, secret, context)
            try:
                tree, _none = cachecodec.encode(payload, sink)
            except (cachecodec.CodecError, RecursionError, RuntimeError, MemoryError):  # (Runtime: changed meanwhile)
                return False
            if HEAD.size + sink.size + len(tree) > limit:
                return False  # `load` would refuse it
            privatedir.write_all(fd, [tree])
            head = HEAD.pack(MAGIC, FORMAT, 0, len(tree), sink.size, bytes(32))[:-32]
            sink.mac.update(tree)
            sink.mac.update(head)
            os.pwrite(fd, head + sink.mac.digest(), 0)
            return True

        name = _entry_name(path)
        if not privatedir.write_new_with(directory, name, fill):
            return None
        privatedir.prune(directory, ENTRY_SUFFIX, MAX_ENTRIES, TMP_MAX_AGE)
        return cache_dir() / name
    except OSError:
        return None
    finally:
        os.close(directory)


class _EntrySink:
    """The codec's binary parts written to a new entry's file after its head's place, each through the
    MAC as it goes (cachecodec.PartSink): none is held once written."""

    def __init__(self, fd: int, secret: bytes, context: bytes) -> None:
        self.fd, self.secret, self.context = fd, secret, context
        self.restart()

    def restart(self) -> None:
        os.ftruncate(self.fd, HEAD.size)
        os.lseek(self.fd, HEAD.size, os.SEEK_SET)
        self.mac = _mac_start(self.secret, self.context)
        self.size = 0

    def write(self, data: bytes) -> None:
        privatedir.write_all(self.fd, [data])
        self.mac.update(data)
        self.size += len(data)


def _open_dir(create: bool) -> int | None:
    """The checked index directory (privatedir.open_dir), or None; a refusal turns the cache off
    for the run and is kept for `notice`."""
    index = cache_dir()
    if str(index) in _refused:
        return None
    try:
        return privatedir.open_dir(index, 2, create)  # .../dsh-tui and .../dsh-tui/index
    except privatedir.Untrusted as exc:
        _refused.setdefault(str(index), str(exc))
        return None


def _secret(directory: int, create: bool) -> bytes | None:
    """The per-user MAC key; None when there is none yet (and ``create`` is false) or it is refused."""
    try:
        return privatedir.read_secret(directory, KEY_NAME, KEY_BYTES, cache_dir() / KEY_NAME, create)
    except privatedir.Untrusted as exc:
        _refused.setdefault(str(cache_dir()), str(exc))
        return None


# -- the MAC ------------------------------------------------------------------------------------

def _context(key: dict[str, Any]) -> bytes:
    """What the MAC binds besides the entry's bytes: the format, this code, the log and the options."""
    from . import cachecodec
    missing = [f for f in KEY_FIELDS if f not in key]
    if missing:
        raise ValueError(f"cache key lacks {missing}")
    items = tuple(sorted(key.items()))
    if any(type(v) not in (str, int, bool) for _k, v in items):
        raise ValueError("cache key values are str, int or bool")
    return repr((FORMAT, __version__, cachecodec.SCHEMA, items)).encode("utf-8", "backslashreplace")


def _mac_start(secret: bytes, context: bytes):
    """An entry's MAC with ``context`` taken; then go its blob, its tree and its head but the MAC, in
    that order (the head last: it holds the lengths, known once the rest is written)."""
    import hashlib
    import hmac
    mac = hmac.new(secret, digestmod=hashlib.sha256)
    mac.update(struct.pack("<Q", len(context)))
    mac.update(context)
    return mac


def _read_entry(fd: int, secret: bytes, context: bytes) -> Any:
    """The payload of the entry ``fd`` reads, if its header is well-formed and its MAC is right, else
    None. The MAC is checked first, on the file read a chunk at a time; then the tree is read and its
    binary parts as its decode asks for them (entryparts.py), arrays straight into their memory: the
    entry is never held whole. (The file is this user's, 0600, in a 0700 directory of theirs, and
    entries are replaced by rename, never written in place: what was checked is what is read.)"""
    import hmac
    from . import cachecodec
    from .entryparts import FileParts
    size = os.fstat(fd).st_size
    head = bytearray(HEAD.size)
    if size < HEAD.size or not privatedir.read_at(fd, memoryview(head), 0):
        return None
    magic, fmt, flags, tree_len, blob_len, mac = HEAD.unpack(head)
    if magic != MAGIC or fmt != FORMAT or flags != 0 or HEAD.size + tree_len + blob_len != size:
        return None
    digest = _mac_start(secret, context)
    chunk = memoryview(bytearray(min(CHUNK, size)))
    for at in range(HEAD.size, size, CHUNK):  # the blob, then the tree
        view = chunk[:min(CHUNK, size - at)]
        if not privatedir.read_at(fd, view, at):
            return None
        digest.update(view)
    digest.update(head[:HEAD.size - 32])
    if not hmac.compare_digest(digest.digest(), mac):
        return None
    tree = bytearray(tree_len)
    if not privatedir.read_at(fd, memoryview(tree), HEAD.size + blob_len):
        return None
    return cachecodec.decode(tree, FileParts(fd, HEAD.size, blob_len))


def _max_entry(log_size: int) -> int:
    """What an entry may be for a log of this size, its MAC checked or not (real entries are ~0.4x the
    file; a tiny, crafted zstd frame may index to more)."""
    return 64 * 1024 * 1024 + 8 * max(0, log_size)
