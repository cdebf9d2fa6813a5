"""A directory only this user can write, and the files in it, used without trusting the path.

For the index cache (cache.py), which may live where others can write (a shared cache home, a CI
runner, a box where dsh-tui runs as root). A directory is opened by descriptor, component by
component, never through a symlink, and used only when it is the effective user's own and not
writable by group or others; every later open, rename and unlink is relative to that
descriptor, so swapping a path component afterwards changes nothing. Files are read only when
they are regular files of this user, written only under a fresh unpredictable temp name
(O_CREAT|O_EXCL|O_NOFOLLOW) and renamed into place.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path
from typing import Callable

TMP_SUFFIX = ".tmp"
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0)  # a FIFO never blocks
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class Untrusted(Exception):
    """A directory or file that must not be used; the message says which and why, in one line."""


def open_dir(path: Path, levels: int, create: bool) -> int | None:
    """A descriptor on ``path`` once each of its last ``levels`` components is checked (made 0700
    when missing and ``create``). None when one is missing or cannot be made; raises Untrusted."""
    parts = path.parts[len(path.parts) - levels:]
    base = Path(*path.parts[:len(path.parts) - levels])  # e.g. the user's cache home: not ours to judge
    try:
        if create:
            os.makedirs(base, mode=0o700, exist_ok=True)
        fd = os.open(base, _DIR)
    except OSError:
        return None
    shown = base
    for name in parts:
        shown = shown / name
        try:
            child = _checked_dir(fd, name, shown, create)
        finally:
            os.close(fd)
        if child is None:
            return None
        fd = child
    return fd


def _checked_dir(parent: int, name: str, shown: Path, create: bool) -> int | None:
    made = False
    if create:
        try:
            os.mkdir(name, 0o700, dir_fd=parent)
            made = True
        except FileExistsError:
            pass
        except OSError:
            return None  # a read-only cache home: nothing to use, nothing to warn about
    try:
        fd = os.open(name, _DIR | os.O_NOFOLLOW, dir_fd=parent)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Untrusted(f"{shown} is a symlink or not a directory") from None
        raise Untrusted(f"{shown} cannot be opened ({exc.strerror or exc})") from None
    try:
        if made:
            os.fchmod(fd, 0o700)  # whatever the umask
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    why = _untrusted(st, stat.S_ISDIR, "a directory")
    if why is None and st.st_mode & 0o022:
        why = f"is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    if why is not None:
        os.close(fd)
        raise Untrusted(f"{shown} {why}")
    return fd


def _untrusted(st: os.stat_result, is_kind, kind: str) -> str | None:
    if not is_kind(st.st_mode):
        return f"is not {kind}"
    if st.st_uid != os.geteuid():
        return f"is owned by uid {st.st_uid}, not by this user (uid {os.geteuid()})"
    return None


def read_secret(directory: int, name: str, size: int, shown: Path, create: bool) -> bytes | None:
    """The ``size`` random bytes kept in ``name`` (a regular file of this user, mode 0600), made
    when missing and ``create``; None when missing. Raises Untrusted for anything else."""
    try:
        fd = os.open(name, _READ, dir_fd=directory)
    except FileNotFoundError:
        return _new_secret(directory, name, size, shown) if create else None
    except OSError as exc:
        raise Untrusted(f"{shown} is a symlink or cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        why = _untrusted(st, stat.S_ISREG, "a regular file")
        if why is None and stat.S_IMODE(st.st_mode) != 0o600:
            why = f"is not mode 0600 (mode {stat.S_IMODE(st.st_mode):04o})"
        data = os.read(fd, size + 1) if why is None else b""
        if why is None and (st.st_size != size or len(data) != size):
            why = f"is not a {size}-byte key"
    finally:
        os.close(fd)
    if why is not None:
        raise Untrusted(f"{shown} {why}")
    return data


def _new_secret(directory: int, name: str, size: int, shown: Path) -> bytes | None:
    """Written whole under a temp name, then linked into place: a process racing us reads no
    secret or a whole one, and the loser of the link uses the winner's."""
    import secrets  # here, not at import: it loads hashlib, which `check --no-cache` never needs
    tmp = secrets.token_hex(16) + TMP_SUFFIX
    fd = os.open(tmp, _CREATE, 0o600, dir_fd=directory)
    try:
        try:
            os.fchmod(fd, 0o600)
            write_all(fd, [secrets.token_bytes(size)])
            os.fsync(fd)  # once per user: a crash must not leave a short key behind
        finally:
            os.close(fd)
        try:
            os.link(tmp, name, src_dir_fd=directory, dst_dir_fd=directory, follow_symlinks=False)
        except FileExistsError:
            pass
    finally:
        unlink(directory, tmp)
    return read_secret(directory, name, size, shown, create=False)


def open_file(directory: int, name: str, limit: int) -> int | None:
    """A descriptor on ``name`` (the caller closes it) if it is a regular file of this user that group
    and others can neither read nor write, at most ``limit`` bytes long; else None."""
    try:
        fd = os.open(name, _READ, dir_fd=directory)
    except OSError:  # none, a symlink (ELOOP), a directory we cannot read...
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    if st is None or _untrusted(st, stat.S_ISREG, "") is not None or st.st_mode & 0o077 or st.st_size > limit:
        os.close(fd)
        return None
    return fd


def read_file(directory: int, name: str, limit: int) -> bytearray | None:
    """The bytes of ``name`` if `open_file` opens it; else None."""
    fd = open_file(directory, name, limit)
    if fd is None:
        return None
    try:
        data = bytearray(os.fstat(fd).st_size)
        return data if read_at(fd, memoryview(data), 0) else None  # (shorter than it said: None)
    finally:
        os.close(fd)


def read_at(fd: int, view: memoryview, offset: int) -> bool:
    """Fill ``view`` from ``fd`` at file offset ``offset``; False if the file ends first."""
    got, n = 0, len(view)
    while got < n:
        k = os.preadv(fd, [view[got:]], offset + got)
        if not k:
            return False
        got += k
    return True


def write_new(directory: int, name: str, parts: list) -> None:
    """Write ``parts`` to a fresh temp file (mode 0600) and rename it to ``name`` (`write_new_with`)."""
    write_new_with(directory, name, lambda fd: write_all(fd, parts) or True)


def write_new_with(directory: int, name: str, fill: Callable[[int], bool]) -> bool:
    """Let ``fill`` write a fresh temp file (mode 0600, its descriptor) and rename it to ``name``, which
    may be anything, a symlink included: it is replaced, never followed. False, and nothing renamed,
    when ``fill`` says False. The temp is gone whatever fails (ENOSPC, EFBIG, EIO...)."""
    import secrets
    tmp = secrets.token_hex(16) + TMP_SUFFIX
    fd = os.open(tmp, _CREATE, 0o600, dir_fd=directory)
    try:
        try:
            done = fill(fd)
        finally:
            os.close(fd)
        if done:
            os.replace(tmp, name, src_dir_fd=directory, dst_dir_fd=directory)
            return True
    except BaseException:
        unlink(directory, tmp)
        raise
    unlink(directory, tmp)
    return False


def write_all(fd: int, parts: list) -> None:
    for part in parts:
        view = memoryview(part)
        while view:
            view = view[os.write(fd, view):]


def unlink(directory: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=directory)
    except OSError:
        pass


def prune(directory: int, suffix: str, keep: int, tmp_age: float) -> None:
    """Keep the newest ``keep`` files named *``suffix``; remove temps older than ``tmp_age``
    seconds (a crashed writer's). Names and lstat only: a symlink is removed, never followed."""
    now = time.time()
    kept: list[tuple[float, str]] = []
    with os.scandir(directory) as it:
        for item in it:
            name = item.name
            is_tmp = name.endswith(TMP_SUFFIX)
            if not is_tmp and not name.endswith(suffix):
                continue
            try:
                mtime = item.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            if not is_tmp:
                kept.append((mtime, name))
            elif now - mtime > tmp_age:
                unlink(directory, name)
    kept.sort(reverse=True)
    for _mtime, name in kept[keep:]:
        unlink(directory, name)
