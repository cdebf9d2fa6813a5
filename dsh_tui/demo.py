"""Format-correct dsh session logs made by dsh-tui itself: a demo session and synthetic logs.

The demo is a deterministic three-turn session that ends in a crash (open turn, one
recorded call without result, one call never started). Synthetic logs are large
streaming sessions with the shape of the real 936k-event log. Both are written with the
real writer's framing (header frame, one zstd frame per batch) and packing.

CLI: ``python -m dsh_tui.demo OUT [--events N] [--seed S] [--jsonl] [--no-crash]``.
Textual-free: imports only the standard library, ``zstandard`` and ``orjson``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import orjson

from .gen.builder import EventBuilder, StepInfo, ToolCall, split_args, split_text
from .gen.storage import (ZSTD_MAGIC, atomic_write, compress_frame, encode_log, pack_records, record_event_count,
                          write_log, write_log_facts)
from .gen.synthetic import iter_synthetic_batches, synthetic_header, write_synthetic

__all__ = [
    "ZSTD_MAGIC", "compress_frame", "pack_records", "write_log", "EventBuilder", "ToolCall",
    "StepInfo", "demo_batches", "write_demo", "default_demo_path", "iter_synthetic_batches",
    "synthetic_header", "write_synthetic", "record_event_count", "split_text", "split_args",
    "DEMO_SESSION_ID", "main",
]

DEMO_SESSION_ID = "demo-7f3c2a9e-5b1d-4c8a-9e21-d04b6f1a8c35"
DEMO_CREATED_AT = 1_796_218_179_615
DEMO_CWD = "/home/user/projects/demo-app"
_SYSTEM = "You are a coding agent working in the user's repository. Be brief."
# Small clock steps; one backwards step per 83 events (dsh times are not monotonic).
_DTS = (1, 0, 2, 1, 0, 1, 1, 3, 0, 1, 2, 0, 1, 1, 0, 2, 1, 0, 1, -3, 1, 2, 0, 1, 1, 0, 1, 2, 1,
        0, 1, 1, 0, 2, 1, 1, 0, 1, 0, 1, 4) + (1, 0, 1, 2, 0, 1, 1, 0, 2, 1, 0, 1, 3, 0, 1, 1, 0,
        2, 1, 0, 1, 1, 2, 0, 1, 0, 1, 1, 0, 2, 1, 1, 0, 1, 0, 2, 1, 0, 1, 1, 0, 2)


def _schema(name: str, description: str, **props: str) -> dict:
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": {k: {"type": v} for k, v in props.items()},
                           "required": list(props)[:1]}}


_TOOLS = [
    _schema("read", "Read a file", file_path="string", offset="integer", limit="integer"),
    _schema("write", "Write a file", file_path="string", content="string"),
    _schema("edit", "Replace exact strings in a file", file_path="string", edits="array"),
    _schema("bash", "Run a shell command", command="string", timeout="integer"),
]


def _args(**kw: object) -> str:
    return orjson.dumps(kw).decode()


def _lines(*lines: str) -> str:
    return "\n".join(lines)


_README_OLD = _lines("# demo-app", "", "Run `make dev` to start.")
_README_NEW = "# demo-app\n\nHello from demo-app!\n\nRun `make dev` to start.\n"
_APP_HUNKS = [
    {"path": "src/app.py",
     "oldText": _lines('"""Demo app entry point."""', "", "import sys",
                       "from http.server import HTTPServer, SimpleHTTPRequestHandler", "",
                       'HOST = "127.0.0.1"'),
     "newText": _lines('"""Demo app entry point."""', "", "import os", "import sys",
                       "from http.server import HTTPServer, SimpleHTTPRequestHandler", "",
                       'HOST = "127.0.0.1"')},
    {"path": "src/app.py",
     "oldText": _lines("def main() -> int:", "    host = HOST",
                       "    # TODO: read the port from the environment", "    port = 8000",
                       "    server = HTTPServer((host, port), SimpleHTTPRequestHandler)",
                       '    print(f"serving on http://{host}:{port}")', "    server.serve_forever()"),
     "newText": _lines("def main() -> int:", "    host = HOST",
                       '    port = int(os.environ.get("PORT", "8000"))',
                       "    server = HTTPServer((host, port), SimpleHTTPRequestHandler)",
                       '    print(f"serving on http://{host}:{port}")', "    server.serve_forever()")},
]
_PYTEST_OUT = _lines(
    "============================= test session starts ==============================",
    "collected 6 items", "",
    "tests/test_app.py ......                                                 [100%]", "",
    "WARNING [bold]deprecated[/bold] config key 'port' ignored; use PORT",
    "============================== 6 passed in 0.42s ===============================")


def demo_header() -> dict:
    return {"type": "session", "version": 0, "id": DEMO_SESSION_ID, "createdAt": DEMO_CREATED_AT,
            "cwd": DEMO_CWD, "delegationDepth": 0, "agentPreset": "standard"}


def demo_batches() -> tuple[dict, list[list[dict]]]:
    """The demo session: header and its write batches (deterministic)."""
    b = EventBuilder(DEMO_CREATED_AT, seed=0x7F3C, batch_limit=6, dt_pattern=_DTS)
    # A slash command outside any turn.
    b.command("permission", " workspace-write", "Permission preset: workspace-write.",
              command_id="cmd-7f3c2a9e-1",
              domain=[("permission/preset", {"preset": "workspace-write"}),
                      ("sandbox/mode", {"mode": "workspace-write"}),
                      ("approval/policy", {"policy": "ask"})])
    b.cut()
    b.tick(4_200)

    # Turn 1: retry then success; write (approval, diff meta); multi-hunk edit; answer.
    prompt = "Add a greeting to README.md and make src/app.py read the port from $PORT."
    uid = b.new_id()
    b.inbox_spliced(inserted=[{"content": [{"type": "text", "text": prompt}],
                               "source": {"kind": "user"}, "role": "user", "id": uid}])
    b.turn_start(1)
    b.inbox_spliced(removed=1)
    write = ToolCall("call_00_write", "write", _args(file_path="README.md", content=_README_NEW),
                     "Wrote README.md (5 lines).", approval="allowed-once",
                     approval_reason="escalate sandbox to workspace-write",
                     meta={"diffs": [{"path": "README.md", "oldText": _README_OLD,
                                      "newText": _lines("# demo-app", "", "Hello from demo-app!", "",
                                                        "Run `make dev` to start.")}]})
    s1 = b.model_step(1, 1, user=prompt, user_id=uid, header={"system": _SYSTEM, "tools": _TOOLS},
                      retries=[{"message": "upstream timed out", "code": "TIMEOUT", "status": 504}],
                      reasoning="The user wants two changes: a greeting in README.md and a "
                                "configurable port in src/app.py. Start with the README.",
                      text="I'll add the greeting to README.md first.", calls=[write])
    edits = [{"old_string": "import sys", "new_string": "import os\nimport sys"},
             {"old_string": "    # TODO: read the port from the environment\n    port = 8000",
              "new_string": '    port = int(os.environ.get("PORT", "8000"))'}]
    edit = ToolCall("call_01_edit", "edit", _args(file_path="src/app.py", edits=edits),
                    "Edited src/app.py: 2 replacements.", meta={"diffs": _APP_HUNKS})
    b.model_step(1, 2, reasoning="Now src/app.py: it hardcodes port 8000 and needs `import os`.",
                 calls=[edit])
    b.model_step(1, 3, text="Done. README.md now greets visitors, and src/app.py reads `PORT` "
                            "from the environment (default 8000).")
    b.turn_end(1)
    b.session_title("Greeting and configurable port", [s1.user_seq])
    b.todo_write([("Add a greeting to README.md", "completed"),
                  ("Read the port from $PORT", "completed"), ("Deploy to staging", "pending")])
    b.cut()
    b.tick(31_000)

    # Turn 2: a read that fails (FS_NOT_FOUND), a call with invalid JSON arguments, tests.
    b.turn_start(2)
    read = ToolCall("call_02_read", "read", _args(file_path="config/settings.yml"),
                    'Error: cannot read "/home/user/projects/demo-app/config/settings.yml": '
                    "not found", is_error=True,
                    error={"name": "FsNotFoundError", "code": "FS_NOT_FOUND"})
    bad = ToolCall("call_03_tests", "bash", '{"command": "pytest -q", "timeout": 120',
                   "Error: invalid tool arguments: Expected ',' or '}' after property value in "
                   "JSON at position 38", is_error=True)
    b.model_step(2, 1, user="Show me config/settings.yml, then run the tests.",
                 reasoning="Read the config, and run pytest in parallel.", calls=[read, bad])
    tests = ToolCall("call_04_tests", "bash", _args(command="pytest -q"), _PYTEST_OUT,
                     duration_ms=1_830)
    b.model_step(2, 2, reasoning="The config file does not exist. My bash arguments were "
                                 "malformed JSON; retry with valid arguments.",
                 text="config/settings.yml does not exist. Re-running the tests.", calls=[tests])
    b.model_step(2, 3, text="All 6 tests pass. The logger prints a literal `[bold]deprecated[/bold]` "
                            "tag - its markup is not rendered. config/settings.yml does not exist, "
                            "so defaults are used.")
    b.turn_end(2)
    b.todo_write([("Add a greeting to README.md", "completed"),
                  ("Read the port from $PORT", "completed"), ("Run the tests", "completed"),
                  ("Deploy to staging", "in_progress")])
    b.cut()
    b.tick(48_000)

    # Turn 3: the process dies after recording the first of two bash calls.
    b.turn_start(3)
    deploy = ToolCall("call_05_deploy", "bash", _args(command="make deploy ENV=staging"), None)
    tag = ToolCall("call_06_tag", "bash", _args(command="git tag v1.2.0 && git push origin v1.2.0"),
                   None, started=False)
    b.model_step(3, 1, user="Deploy to staging, then tag the release v1.2.0.",
                 reasoning="Deploy first; tag only after the deploy succeeds.",
                 text="Deploying to staging, then tagging v1.2.0.", calls=[deploy, tag], end=False)
    return demo_header(), b.finish()


def _demo_bytes(encoding: str = "zstd") -> bytes:
    header, batches = demo_batches()
    return encode_log(header, batches, encoding=encoding)


def write_demo(path: str | os.PathLike[str], *, encoding: str = "zstd") -> Path:
    """Write the demo session to ``path`` (atomically) and return the path."""
    header, batches = demo_batches()
    write_log(path, header, batches, encoding=encoding)
    return Path(path)


def _cache_root() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"


def is_bundled_demo(path: Path) -> bool:
    """``path`` is the bundled demo log ``default_demo_path`` writes (a static file: nothing to follow)."""
    try:
        return Path(path).resolve() == (_cache_root() / "dsh-tui" / "demo" / "session.jsonl.zstd").resolve()
    except (OSError, RuntimeError, ValueError):
        return False


def default_demo_path() -> Path:
    """``<cache>/dsh-tui/demo/session.jsonl.zstd``, (re)written when missing or different."""
    path = _cache_root() / "dsh-tui" / "demo" / "session.jsonl.zstd"
    data = _demo_bytes()
    try:
        current = hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        current = b""
    if current != hashlib.sha256(data).digest():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda fh: fh.write(data))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsh_tui.demo",
                                     description="Write the demo session or a synthetic dsh log.")
    parser.add_argument("out", type=Path, help="output file (e.g. session.jsonl.zstd)")
    parser.add_argument("--events", type=int, help="write a synthetic log of exactly N events")
    parser.add_argument("--seed", type=int, default=0, help="synthetic log seed (default 0)")
    parser.add_argument("--jsonl", action="store_true", help="plain JSONL instead of zstd")
    parser.add_argument("--no-crash", action="store_true",
                        help="synthetic log ends with a closed turn instead of a crash")
    args = parser.parse_args(argv)
    encoding = "jsonl" if args.jsonl else "zstd"
    if args.events is None:
        if args.no_crash or args.seed:
            parser.error("--seed and --no-crash apply only with --events")
        header, batches = demo_batches()
        facts = write_log_facts(args.out, header, batches, encoding=encoding)
    else:
        try:
            facts = write_synthetic(args.out, args.events, seed=args.seed, encoding=encoding,
                                    crash=not args.no_crash)
        except ValueError as exc:
            parser.error(str(exc))
    sys.stdout.write(orjson.dumps({"path": str(args.out), **facts}).decode() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
