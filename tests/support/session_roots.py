"""Build dsh session roots in tmp_path with the project's own log generator.

`build_root(root)` lays out a realistic root: several projects (one with a
non-ASCII, spaced cwd), `_no-cwd`, a subagent child in another project than its
parent, a grandchild, an orphan, a `.tmp` leftover, a legacy flat file, a torn
log and a rejected header. Returns a `Built` naming what it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dsh_tui.demo import EventBuilder, demo_batches, write_log
from dsh_tui.gen.storage import encode_log
from dsh_tui.model.sessions.layout import NO_CWD, encode_segment, project_key

T0 = 1_796_000_000_000  # createdAt base (ms)


def header(sid: str, created: int, cwd: str | None = "/home/user/projects/demo-app", **extra) -> dict:
    h = {"type": "session", "version": 0, "id": sid, "createdAt": created}
    if cwd is not None:
        h["cwd"] = cwd
    h.update(extra)
    h.setdefault("delegationDepth", 0)
    return h


def turn_batches(outcome: str | dict | None = "completed", *, start_ms: int = T0, preset: str | None = None,
                 turns: int = 1) -> list[list[dict]]:
    """``turns`` short turns; the last ends with ``outcome`` (None: left open, the process died)."""
    b = EventBuilder(start_ms, seed=7)
    if preset is not None:
        b.agent_preset(preset)
    for t in range(1, turns + 1):
        b.turn_start(t)
        b.model_step(t, 1, user=f"question {t}", text=f"answer {t}")
        last = t == turns
        if not last or outcome is not None:
            b.turn_end(t, "completed" if not last else outcome)
    return b.finish()


def session_path(root: Path, h: dict, encoding: str = "zstd") -> Path:
    project = project_key(h["cwd"]) if "cwd" in h else NO_CWD
    name = "session.jsonl.zstd" if encoding == "zstd" else "session.jsonl"
    return root / project / encode_segment(h["id"]) / name


def write_session(root: Path, h: dict, batches: list[list[dict]] | None = None, *,
                  encoding: str = "zstd") -> Path:
    path = session_path(root, h, encoding)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_log(path, h, turn_batches() if batches is None else batches, encoding=encoding)
    return path


def write_session_fast(root: Path, h: dict, data: bytes, encoding: str = "zstd") -> Path:
    """No temp file + fsync: for the 1,000-session listing."""
    path = session_path(root, h, encoding)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


@dataclass
class Built:
    root: Path
    paths: dict[str, Path] = field(default_factory=dict)  # label -> log path
    ids: dict[str, str] = field(default_factory=dict)  # label -> session id
    tmp: list[Path] = field(default_factory=list)
    flat: list[Path] = field(default_factory=list)


APP = "/home/user/projects/demo-app"
OTHER = "/srv/caf\u00e9 app"  # -> --srv-caf~00E9~0020app--


def build_root(root: Path) -> Built:
    root.mkdir(parents=True, exist_ok=True)
    out = Built(root)

    def add(label: str, h: dict, batches=None, **kw) -> Path:
        out.ids[label] = h["id"]
        out.paths[label] = write_session(root, h, batches, **kw)
        return out.paths[label]

    demo_h, demo_b = demo_batches()  # crashed: open turn, TOOL_OUTCOME_UNKNOWN + TOOL_NOT_STARTED
    add("demo", demo_h, demo_b)
    add("done", header("11111111-0000-4000-8000-000000000001", T0 + 1_000, APP, agentPreset="code"),
        turn_batches("completed", preset="minimal"))
    add("error", header("11111111-0000-4000-8000-000000000002", T0 + 2_000, OTHER),
        turn_batches({"kind": "error", "error": {"code": "MODEL_FAILED", "message": "upstream 500"}}))
    add("aborted", header("11111111-0000-4000-8000-000000000003", T0 + 3_000, OTHER),
        turn_batches({"kind": "aborted", "reason": {"kind": "user"}}))
    add("nocwd", header("11111111-0000-4000-8000-000000000004", T0 + 4_000, None), turn_batches("completed"))
    # A subagent child of the demo session, living in another project directory, and its own child.
    add("child", header("22222222-0000-4000-8000-000000000001", T0 + 5_000, OTHER,
                        parentSession=demo_h["id"], origin="subagent", delegationDepth=1),
        turn_batches("completed"))
    add("grandchild", header("22222222-0000-4000-8000-000000000002", T0 + 6_000, OTHER,
                             parentSession=out.ids["child"], origin="subagent", delegationDepth=2),
        turn_batches("interrupted"))
    add("orphan", header("22222222-0000-4000-8000-000000000003", T0 + 7_000, APP,
                         parentSession="99999999-dead-4000-8000-000000000000", origin="subagent",
                         delegationDepth=1), turn_batches("completed"))
    # Torn: cut the last frame in half.
    torn = add("torn", header("33333333-0000-4000-8000-000000000001", T0 + 8_000, APP),
               turn_batches("completed", turns=2))
    data = torn.read_bytes()
    torn.write_bytes(data[:-20])
    # Rejected: no delegationDepth in the header.
    rej_h = header("33333333-0000-4000-8000-000000000002", T0 + 9_000, APP)
    del rej_h["delegationDepth"]
    add("rejected", rej_h, turn_batches("completed"))
    # Leftovers: a temp file beside a log, and one alone in a session dir; a legacy flat log.
    tmp1 = out.paths["done"].with_name("session.jsonl.zstd.0123456789ab.tmp")
    tmp1.write_bytes(b"partial")
    lone = root / project_key(APP) / "44444444-0000-4000-8000-000000000001" / "session.jsonl.zstd.ba9876543210.tmp"
    lone.parent.mkdir(parents=True)
    lone.write_bytes(b"x")
    flat_tmp = root / project_key(OTHER) / "66666666-0000-4000-8000-000000000001.jsonl.zstd.abcdef012345.tmp"
    flat_tmp.write_bytes(b"y")
    root_tmp = root / "77777777-0000-4000-8000-000000000001.jsonl.0a0b0c0d0e0f.tmp"  # pre-project layout
    root_tmp.write_bytes(b"z")
    out.tmp = sorted([tmp1, lone, flat_tmp, root_tmp])
    flat = root / project_key(APP) / "55555555-0000-4000-8000-000000000001.jsonl"
    flat.write_bytes(encode_log(header("55555555-0000-4000-8000-000000000001", T0, APP), [], encoding="jsonl"))
    root_flat = root / "88888888-0000-4000-8000-000000000001.jsonl.zstd"
    root_flat.write_bytes(encode_log(header("88888888-0000-4000-8000-000000000001", T0, APP), []))
    out.flat = sorted([flat, root_flat])
    # Ignored: a file in a session dir that is not a log, and a non-project directory at the root.
    (out.paths["done"].parent / "notes.txt").write_text("not a log")
    (root / "not-a-project").mkdir()
    return out


# A parent with two children where the FIRST child (by createdAt) has a child of its own: a
# level-by-level listing puts the grandchild after the second child, i.e. under the wrong parent.
TREE_PARENT = "aaaaaaaa-0000-4000-8000-000000000001"
TREE_KID_A = "aaaaaaaa-0000-4000-8000-00000000000a"  # created first; forked (seedLength 1); has TREE_GRANDKID
TREE_KID_B = "aaaaaaaa-0000-4000-8000-00000000000b"  # created second
TREE_GRANDKID = "aaaaaaaa-0000-4000-8000-0000000000a1"  # child of TREE_KID_A, created last


def build_tree_family(root: Path) -> dict[str, Path]:
    """The family above in ``root`` (labels: parent, kid_a, kid_b, grandkid)."""
    def kid(sid: str, created: int, parent: str, depth: int, **extra) -> dict:
        return header(sid, created, APP, parentSession=parent, origin="subagent", delegationDepth=depth, **extra)

    a = EventBuilder(T0 + 1_000, seed=3)
    a.emit("session/end-seed", {})
    a.turn_start(1)
    a.model_step(1, 1, user="first task", text="done")
    a.turn_end(1)
    return {
        "parent": write_session(root, header(TREE_PARENT, T0, APP), turn_batches("completed")),
        "kid_a": write_session(root, kid(TREE_KID_A, T0 + 1_000, TREE_PARENT, 1, seedLength=1), a.finish()),
        "kid_b": write_session(root, kid(TREE_KID_B, T0 + 2_000, TREE_PARENT, 1),
                               turn_batches("completed", start_ms=T0 + 2_000)),
        "grandkid": write_session(root, kid(TREE_GRANDKID, T0 + 3_000, TREE_KID_A, 2),
                                  turn_batches("completed", start_ms=T0 + 3_000)),
    }
