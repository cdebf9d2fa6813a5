"""The user's settings file, ``$XDG_CONFIG_HOME/dsh-tui/config.toml`` (default ``~/.config/dsh-tui/``).

Textual-free: parsed with ``tomllib`` and checked into a `Settings`; the UI applies it (ui/settings_ui.py).
The file is hostile like any input: a file that does not parse, a value of the wrong type, a key name
that is no key, an unknown binding id give a problem (said once, in one notice) and the default for
what was wrong, never an error. ::

    theme = "textual-light"
    filters = ["problems"]          # the filter a log opens with: the first of these the log offers
    stall_seconds = 30              # the "stall" anomaly (e / E): a gap between a call's outputs longer than this

    [keymap]                        # binding id = "key[,key...]" (the ids: the help screen, README)
    search = "slash,ctrl+f"
    copy-report = "y,ctrl+y"
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from .safety import one_line

MAX_BYTES = 256 * 1024  # a settings file is a few lines: anything larger is not one
FIXED_FILTERS = ("all", "findings", "problems", "pairs", "no-chunks")
# A key: a single printable character, or a Textual key name (letters, digits, _ and -) with modifiers (ctrl+x).
_KEY = re.compile(r"(?:(?:ctrl|shift|alt|meta|super|hyper)\+)*(?:[a-z][a-z0-9_]*|[0-9]|f[0-9]{1,2})", re.IGNORECASE)
_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
STALL_SECONDS = 30.0  # the default stall threshold (model/diagnosing/timing.py: STALL_MS)
MAX_STALL_SECONDS = 7 * 24 * 3600.0


@dataclass(frozen=True)
class Settings:
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> "key,key"
    theme: str | None = None
    filters: tuple[str, ...] = ()  # "findings", "problems", ..., or "type:<event type>"
    stall_seconds: float = STALL_SECONDS  # a gap between a model call's outputs longer than this is a stall
    path: Path | None = None  # the file read (None: no file)
    problems: tuple[str, ...] = ()  # what was wrong in it (each then left at its default)


def config_path(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path(env.get("HOME") or Path.home()) / ".config"
    return root / "dsh-tui" / "config.toml"


def valid_keys(value: str) -> bool:
    """``value`` is a comma-separated list of keys (``"slash,ctrl+f"``, ``"?"``)."""
    parts = [p.strip() for p in value.split(",")]
    return bool(parts) and all(p and (len(p) == 1 and p.isprintable() or _KEY.fullmatch(p)) for p in parts)


def load_settings(path: Path | None = None, *, known_ids: Iterable[str] | None = None) -> Settings:
    """The settings in ``path`` (default: `config_path`); defaults when there is no file.

    ``known_ids``: the binding ids a keymap may name (others are a problem).
    """
    path = config_path() if path is None else path
    try:
        data = _read_regular(path)
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        return Settings(path=path, problems=(f"cannot read it: {exc.strerror or exc}",))
    if isinstance(data, str):
        return Settings(path=path, problems=(data,))
    import tomllib  # only when there is a file: most runs have none
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return Settings(path=path, problems=(f"not TOML: {exc}",))
    except RecursionError:  # tomllib recurses per nested array or inline table
        return Settings(path=path, problems=("nests too deeply: not read",))
    return parse_settings(doc, path=path, known_ids=known_ids)


def _read_regular(path: Path) -> bytes | str:
    """The file's bytes, or one line why it is not read: only a regular file of at most MAX_BYTES is. Opened
    without blocking (a FIFO or a device answers at once) and judged by what was opened (fstat), not by a
    stat of the name before it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return "not a regular file: not read"
        if st.st_size > MAX_BYTES:
            return f"larger than {MAX_BYTES // 1024} KiB: not read"
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_BYTES:  # grew since the fstat
        return f"larger than {MAX_BYTES // 1024} KiB: not read"
    return b"".join(chunks)


def parse_settings(doc: dict, *, path: Path | None = None, known_ids: Iterable[str] | None = None) -> Settings:
    problems: list[str] = []
    known = None if known_ids is None else frozenset(known_ids)
    for key in doc:
        if key not in ("keymap", "theme", "filters", "stall_seconds"):
            problems.append(f"unknown setting {_shown(key)}")

    keymap: dict[str, str] = {}
    raw = doc.get("keymap", {})
    if not isinstance(raw, dict):
        problems.append("keymap: not a table of binding id = \"keys\"")
        raw = {}
    for binding_id, keys in raw.items():
        if known is not None and binding_id not in known or known is None and not _ID.fullmatch(binding_id):
            problems.append(f"keymap: no binding has the id {_shown(binding_id)}")
        elif isinstance(keys, list) and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
            if valid_keys(keys):
                keymap[binding_id] = keys
            else:
                problems.append(f"keymap: {_shown(binding_id)}: not a key: {_shown(keys)}")
        elif isinstance(keys, str) and valid_keys(keys):
            keymap[binding_id] = ",".join(k.strip() for k in keys.split(","))
        else:
            problems.append(f"keymap: {_shown(binding_id)}: not a key: {_shown(keys)}")

    theme = doc.get("theme")
    if theme is not None and not (isinstance(theme, str) and _ID.fullmatch(theme)):
        problems.append(f"theme: not a theme name: {_shown(theme)}")
        theme = None

    filters: list[str] = []
    raw_filters = doc.get("filters", [])
    if isinstance(raw_filters, str):
        raw_filters = [raw_filters]
    if not isinstance(raw_filters, list):
        problems.append("filters: not a list of filter names")
        raw_filters = []
    for name in raw_filters:
        if isinstance(name, str) and (name in FIXED_FILTERS or name.startswith("type:") and len(name) > 5):
            filters.append(name)
        else:
            problems.append(f"filters: no filter {_shown(name)} (use {', '.join(FIXED_FILTERS)} or type:<type>)")
    stall = doc.get("stall_seconds", STALL_SECONDS)
    if isinstance(stall, bool) or not isinstance(stall, (int, float)) or not 0 < stall <= MAX_STALL_SECONDS:
        problems.append(f"stall_seconds: not a number of seconds above 0 (at most a week): {_shown(stall)}")
        stall = STALL_SECONDS
    return Settings(keymap=keymap, theme=theme, filters=tuple(filters), stall_seconds=float(stall), path=path,
                    problems=tuple(problems))


def _shown(value) -> str:
    return one_line(repr(value), 60)
