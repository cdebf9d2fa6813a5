"""No Python repr reaches a message (issue 34 item 5): every header check, rejection and finding
template, fed missing, null and wrong-typed fields, speaks in words or in JSON's spelling."""

from __future__ import annotations

import re

import orjson
import pytest

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.reading.header import parse_header
from dsh_tui.model.reading.session import load_session

from ..support.logs import HEADER, ev

# None, True, False, an empty list or object, a single-quoted token ('x', not "dsh's")
PYTHON = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\[\]|\{\}|(?<![A-Za-z])'[^'\s]*'")
MISSING = object()


def _id(value) -> str:
    """A stable test id (xdist's workers must collect the same names: no object address)."""
    return "missing" if value is MISSING else repr(value)


WRONG = [MISSING, None, True, False, [], {}, "x", "", [1, "a"], {"a": None}, 1.5, -1]


def _no_python(text: str, what) -> None:
    assert not PYTHON.search(text), f"{what}: {text}"


def _with(obj: dict, key: str, value) -> dict:
    out = {k: v for k, v in obj.items() if k != key}
    if value is not MISSING:
        out[key] = value
    return out


@pytest.mark.parametrize("key", ["type", "version", "id", "createdAt", "delegationDepth", "cwd", "parentSession",
                                 "agentPreset", "seedLength", "origin"])
@pytest.mark.parametrize("value", WRONG, ids=_id)
def test_every_header_rejection_speaks_words(key, value):
    header = parse_header(orjson.dumps(_with(HEADER, key, value)))
    if header.rejection is not None:
        _no_python(header.rejection.message, (key, value))


def test_a_header_without_a_version_says_so():
    assert parse_header(orjson.dumps(_with(HEADER, "version", MISSING))).rejection.message.startswith(
        "the header has no version")
    assert "the header's version is null, not a number" in parse_header(
        orjson.dumps(_with(HEADER, "version", None))).rejection.message
    assert 'the header\'s version is "0", not a number' in parse_header(
        orjson.dumps(_with(HEADER, "version", "0"))).rejection.message


def _records(value) -> list[dict]:
    """One event of each kind a finding template reads, its fields set to ``value`` (or left out)."""
    def v(data: dict, key: str) -> dict:
        return _with(data, key, value)
    recs = [
        ev("turn/start", 0, {"turn": 1}),
        ev("step/start", 1, {"turn": 1, "step": 1}),
        ev("request/header", 2, {"header": {"config": {"provider": "p", "model": "m"},
                                            "tools": [{"name": "read"}]}, "reason": "initial"}),
        ev("llm/retry", 3, v(v(v({"retryId": "r", "turn": 1, "step": 1, "retry": 1, "maxRetries": 2,
                                 "failure": v(v({"code": "C", "message": "m"}, "code"), "message")},
                                "retry"), "maxRetries"), "failure")),
        ev("llm/retry-started", 4, {"retryId": "r", "turn": 1, "step": 1, "retry": 1}),
        ev("command/run", 5, v({"commandId": "c1", "name": "compact", "source": {"kind": "user"}}, "name")),
        ev("command/run", 6, v({"commandId": "c2", "name": "x", "source": {"kind": "user"}}, "name")),
        ev("command/done", 7, v({"commandId": "c2", "kind": "error", "text": "bad", "code": "E"}, "code")),
        ev("approval/asked", 8, v({"id": "a1", "toolName": "bash"}, "toolName")),
        ev("compaction/start", 9, v({"compactionId": "k1", "turn": 1}, "compactionId")),
        ev("compaction/start", 10, {"compactionId": "k2", "turn": 1}),
        ev("compaction/end", 11, {"compactionId": "k2", "turn": 1, "error": value if value is not MISSING else "e"}),
        ev("tool-workflow/agent-end", 12, v(v({"runId": "w", "seq": 1, "outcome": "failed"}, "runId"), "seq")),
        ev("tool-workflow/run-end", 13, v({"runId": "w", "stopReason": "error"}, "runId")),
        ev("hook/result", 14, v(v({"handlerId": "h", "point": "p", "decision": "block", "exitCode": 2,
                                   "stderrSummary": "no"}, "handlerId"), "point")),
        ev("goal/change", 15, {"operation": "block", "goalId": value if value is not MISSING else "g",
                               "objective": value if value is not MISSING else "o"}),
        ev("assistant/chunk", 16, {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": v(
            {"kind": "error", "message": "m", "code": "C"}, "code")}}),
        ev("tool/call", 17, {"turn": 1, "step": 1, "callId": "call_x", "name": "bash", "arguments": "{\"command\":\"ls\"}"}),
        ev("mystery/type", 18, {}, ignorable=True),
        ev("step/end", 19, {"turn": 1, "step": 1}),
        ev("turn/end", 20, {"turn": value if value is not MISSING else 1, "reason": v(
            {"kind": "error", "error": v(v({"code": "C", "message": "m"}, "code"), "message")}, "error")}),
        ev("turn/start", 21, {"turn": 2}),
        ev("turn/end", 22, {"turn": 2, "reason": {"kind": "aborted", "reason": v({"kind": "user"}, "kind")}}),
        ev("turn/start", 23, {"turn": 3}),
        ev("turn/end", 24, {"turn": 3, "reason": v({"kind": "weird"}, "kind")}),
        ev("turn/start", 25, {"turn": value if value is not MISSING else 4}),  # left open: OPEN_TURN
    ]
    return recs


@pytest.mark.parametrize("value", WRONG, ids=_id)
def test_every_finding_speaks_words(write_jsonl, capsys, isolated_xdg, value):
    path = write_jsonl(_records(value))
    log = load_session(path, lenient=True)
    diag = diagnose(log)
    assert len(diag.findings) > 10
    for f in diag.findings:
        _no_python(f.message, (f.kind, value))
        _no_python(f.advice or "", (f.kind, value))
    for fmt in ("text", "markdown"):
        main(["check", str(path), "--no-cache", "--lenient", "--format", fmt])
        out = capsys.readouterr().out
        # Code spans quote the log's values in their JSON spelling (`[]` is what the log holds): data, not
        # prose; so does the snippet's turn/step line (a crafted turn kept as its JSON text).
        out = re.sub(r"`[^`\n]*`|^turn/step: .*$", "", out, flags=re.M)
        _no_python(out, fmt)
