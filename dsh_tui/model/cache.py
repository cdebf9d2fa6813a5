"""A per-file index cache in the user's cache directory (never beside the log).

Re-opening an unchanged log loads the index and the diagnosis from here and
decodes only the frames the views touch. The key is the file's identity and
content (real path, size, mtime, inode, sha256 of every byte), so a grown,
truncated or rewritten file never matches a stale entry.
Loading uses a restricted unpickler that only builds this package's classes.
"""

from __future__ import annotations

import io
import os
import pickle
from pathlib import Path
from typing import Any

from .. import __version__

FORMAT = 10  # 10: a call's usage is its last (the message's), no longer its chunk's
CHUNK = 1024 * 1024
MAX_ENTRIES = 32
CACHE_ENV = "DSH_TUI_NO_CACHE"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "dsh-tui" / "index"


def enabled() -> bool:
    return not os.environ.get(CACHE_ENV)


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


def entry_path(path: Path) -> Path:
    import hashlib
    name = hashlib.sha256(os.path.realpath(path).encode("utf-8", "surrogateescape")).hexdigest()[:40]
    return cache_dir() / f"{name}.idx"


def has_entry(path: Path) -> bool:
    """Whether anything is cached for this path (no hash of the file: whether it is fresh is `load`'s
    call). Without one, a first open neither hashes the file nor forks anything to throw away."""
    return entry_path(path).is_file()


_ALLOWED_MODULES = ("dsh_tui.model.",)
_ALLOWED_BUILTINS = {("builtins", n) for n in ("set", "frozenset", "list", "dict", "tuple", "bytearray", "bytes")}
_ALLOWED_OTHER = {("array", "array"), ("array", "_array_reconstructor"), ("collections", "Counter"),
                  ("collections", "OrderedDict"), ("pathlib", "PosixPath"), ("pathlib", "WindowsPath"),
                  ("pathlib", "Path"), ("copyreg", "_reconstructor"), ("builtins", "object")}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module.startswith(_ALLOWED_MODULES) or (module, name) in _ALLOWED_BUILTINS | _ALLOWED_OTHER:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"cache entry refers to {module}.{name}")


def load(path: Path, key: dict[str, Any]) -> dict[str, Any] | None:
    """The cached payload for ``path`` if it matches ``key`` exactly, else None."""
    entry = entry_path(path)
    try:
        blob = entry.read_bytes()
        payload = _Unpickler(io.BytesIO(blob)).load()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError,
            IndexError, KeyError, MemoryError):
        return None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT or payload.get("version") != __version__:
        return None
    if payload.get("key") != key:
        return None
    return payload


def save(path: Path, key: dict[str, Any], payload: dict[str, Any]) -> Path | None:
    """Write atomically, mode 0600; prune old entries. Failures are silent (a cache is optional)."""
    directory = cache_dir()
    entry = entry_path(path)
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = entry.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            pickle.dump({"format": FORMAT, "version": __version__, "key": key, **payload}, fh,
                        protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, entry)
        _prune(directory)
        return entry
    except (OSError, pickle.PicklingError, TypeError, RecursionError):
        return None


def _prune(directory: Path) -> None:
    entries = sorted(directory.glob("*.idx"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[MAX_ENTRIES:]:
        try:
            old.unlink()
        except OSError:
            pass
