"""Builders for hostile listings: deep headers, long parent chains, cycles and hostile export ZIPs.

Each builder writes into a directory it is given and returns what the tests run on. They are
kept apart from the tests so the hostile corpus can take them in later. Chains are header-only
JSONL logs (one line each): 20,000 of them are written in a few seconds.
"""

from __future__ import annotations

import warnings
import zipfile
from pathlib import Path

import orjson

from dsh_tui.demo import compress_frame
from dsh_tui.gen.storage import encode_log
from dsh_tui.model.sessions.layout import NO_CWD, encode_segment, project_key

T0 = 1_796_000_000_000
CWD = "/home/user/projects/chain"


def chain_id(k: int) -> str:
    return f"c0000000-0000-4000-8000-{k:012d}"


def session_header(sid: str, created: int, parent: str | None = None, cwd: str | None = CWD, **extra) -> dict:
    h: dict = {"type": "session", "version": 0, "id": sid, "createdAt": created}
    if cwd is not None:
        h["cwd"] = cwd
    if parent is not None:
        h.update(parentSession=parent, origin="subagent")
    h["delegationDepth"] = extra.pop("delegationDepth", 0 if parent is None else 1)
    h.update(extra)
    return h


def log_path(root: Path, sid: str, cwd: str | None = CWD, name: str = "session.jsonl") -> Path:
    return root / (project_key(cwd) if cwd is not None else NO_CWD) / encode_segment(sid) / name


def write_header_log(root: Path, header: dict, body: bytes = b"") -> Path:
    """A JSONL log: the header line and ``body`` (complete lines) after it."""
    path = log_path(root, header["id"], header.get("cwd"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(header) + b"\n" + body)
    return path


def deep_value(depth: int) -> bytes:
    """A JSON value nested ``depth`` deep, objects and arrays alternating (~6 bytes a level)."""
    return b'{"a":[' * (depth // 2) + b"0" + b"]}" * (depth // 2)


def deep_header_line(depth: int = 1000, key: str = "cwd") -> bytes:
    """A session header whose ``key`` holds a value nested ``depth`` deep (a ~6 KB line)."""
    head = {"type": "session", "version": 0, "id": "deep-header", "createdAt": T0, "delegationDepth": 0}
    head.pop(key, None)
    return orjson.dumps(head)[:-1] + b',"' + key.encode() + b'":' + deep_value(depth) + b"}"


def deep_header_log(path: Path, depth: int = 1000, key: str = "cwd") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(deep_header_line(depth, key) + b"\n")
    return path


def deep_header_in_root(root: Path, depth: int = 1000, key: str = "cwd") -> Path:
    """A session directory in ``root`` whose log has a deep header (the sibling of other sessions)."""
    return deep_header_log(root / project_key(CWD) / "deep-header" / "session.jsonl", depth, key)


def chain_root(root: Path, n: int, *, cycle: bool = False) -> list[Path]:
    """``n`` sessions, each the child of the one before (session 0 is the top; with ``cycle`` its
    parent is the last, so the whole chain is one parentSession loop)."""
    paths = []
    for k in range(n):
        parent = chain_id(k - 1) if k else (chain_id(n - 1) if cycle else None)
        paths.append(write_header_log(root, session_header(chain_id(k), T0 + k, parent, delegationDepth=min(k, 1))))
    return paths


def cycle_root(root: Path) -> dict[str, Path]:
    """a -> b -> c -> a (a parentSession loop), d a child of b hanging off the loop, e alone."""
    out = {}
    for label, parent, created in (("a", "c", 1), ("b", "a", 2), ("c", "b", 3), ("d", "b", 4), ("e", None, 5)):
        out[label] = write_header_log(root, session_header(f"cycle-{label}", T0 + created,
                                                           f"cycle-{parent}" if parent else None))
    return out


def bomb_child_root(root: Path, plain_mib: int = 4) -> tuple[Path, Path]:
    """A parent (header only) and its child, a zstd log of a few KiB whose second frame decodes to
    one ``plain_mib`` MiB line. Both zstd: dsh refuses a root that mixes encodings. (parent, child)"""
    paths = []
    for sid, created, parent in (("bomb-parent", T0, None), ("bomb-child", T0 + 1, "bomb-parent")):
        h = session_header(sid, created, parent)
        path = log_path(root, sid, name="session.jsonl.zstd")
        path.parent.mkdir(parents=True, exist_ok=True)
        data = compress_frame(orjson.dumps(h) + b"\n")
        if parent is not None:
            data += compress_frame(b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"'
                                   + b"x" * (plain_mib << 20) + b'"}}\n')
        path.write_bytes(data)
        paths.append(path)
    return paths[0], paths[1]


# -- export ZIPs --------------------------------------------------------------------------------------

def _jsonl(header: dict) -> bytes:
    return encode_log(header, [], encoding="jsonl")


def chain_zip(path: Path, n: int) -> Path:
    """An export ZIP: the root ``session.jsonl`` and ``n`` subagent members, each the child of the
    member before it (a delegation chain ``n`` deep, flat in ``subagents/`` as dsh exports it)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("session.jsonl", _jsonl(session_header(chain_id(0), T0)))
        for k in range(1, n + 1):
            zf.writestr(f"subagents/{chain_id(k)}/session.jsonl",
                        _jsonl(session_header(chain_id(k), T0 + k, chain_id(k - 1))))
    return path


def truncated_zip(path: Path, keep: float = 0.5) -> Path:
    """A valid export ZIP cut to ``keep`` of its length (the central directory is lost)."""
    chain_zip(path, 3)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])
    return path


UNSAFE_MEMBERS = ("subagents/../../evil/session.jsonl", "/abs/session.jsonl", "subagents/x\x1b[2J/session.jsonl")
DUPLICATE_MEMBER = f"subagents/{chain_id(2)}/session.jsonl"


def bad_names_zip(path: Path) -> Path:
    """An export ZIP with unsafe member names and one child member twice, beside one good child."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        zf.writestr("session.jsonl", _jsonl(session_header(chain_id(0), T0)))
        zf.writestr(f"subagents/{chain_id(1)}/session.jsonl", _jsonl(session_header(chain_id(1), T0 + 1, chain_id(0))))
        for name in UNSAFE_MEMBERS:
            zf.writestr(name, _jsonl(session_header("evil", T0 + 9, chain_id(0))))
        for _ in range(2):
            zf.writestr(DUPLICATE_MEMBER, _jsonl(session_header(chain_id(2), T0 + 2, chain_id(0))))
    return path
