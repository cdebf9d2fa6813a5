"""Conformance: every shared real log gives the facts its README lists (skips without ../shared)."""

from __future__ import annotations

import json

import pytest

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.session import load_session

from ..support.logs import DSH_LOGS, shared_log


def _expected() -> dict:
    path = DSH_LOGS / "expected.json"
    if not path.exists():
        pytest.skip("../shared/dsh-logs/expected.json not available")
    return {k: v for k, v in json.loads(path.read_text()).items() if not k.startswith("_")}


EXPECTED_KEYS = sorted(json.loads((DSH_LOGS / "expected.json").read_text())) if (DSH_LOGS / "expected.json").exists() else []
FAST_KEYS = [k for k in EXPECTED_KEYS if not k.startswith("_") and "big-936k" not in k]


def _check(rel: str, capsys, *extra: str) -> tuple[int, dict]:
    rc = main(["check", str(shared_log(rel)), "--format", "json", *extra])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def _assert_facts(rel: str, exp: dict, rc: int, got: dict) -> None:
    assert got["encoding"] == exp["encoding"]
    if "accepted" in exp:
        assert got["accepted"] is exp["accepted"]
    if "exit" in exp:
        assert rc == exp["exit"]
    if exp.get("accepted") is False:
        assert exp["rejection_mentions"] in got["rejection"]["message"]
        return
    for key in ("frames", "records", "events", "delegated"):
        if key in exp:
            assert got[key] == exp[key], key
    if "torn" in exp:
        assert (got["torn_tail"] is not None) is exp["torn"]
    if "torn_offset" in exp:
        assert got["torn_tail"]["offset"] == exp["torn_offset"]
        assert got["torn_tail"]["unreadable_bytes"] == exp["unreadable_bytes"]
    for key, value in exp.get("header", {}).items():
        assert got["header"][key] == value
    for call_id, code in exp.get("errors", {}).items():
        assert any(f["callId"] == call_id and f["code"] == code for f in got["findings"]), call_id
    for call_id, kind in exp.get("calls", {}).items():
        assert any(f["callId"] == call_id and f["kind"] == kind for f in got["findings"]), call_id
    if "calls" in exp and not exp["calls"]:
        assert not [f for f in got["findings"] if f["kind"] in ("TOOL_NOT_STARTED", "TOOL_OUTCOME_UNKNOWN")]
    if "verdict" in exp:
        assert got["verdict"]["callId"] == exp["verdict"]
    if "unknown" in exp:
        assert [[u["type"], u["ignorable"]] for u in got["unknown_types"]] == exp["unknown"]
    if not got["torn_tail"] and not got["projected"]:
        assert got["seq"]["contiguous"] is True


@pytest.mark.parametrize("rel", FAST_KEYS)
def test_expected_facts(rel, capsys):
    exp = _expected()[rel]
    rc, got = _check(rel, capsys)
    _assert_facts(rel, exp, rc, got)


@pytest.mark.slow
def test_big_log_facts(capsys):
    rel = "large/big-936k-events__session.jsonl.zstd"
    exp = _expected()[rel]
    rc, got = _check(rel, capsys)
    _assert_facts(rel, exp, rc, got)
    assert rc == 1


def test_crash_open_turn_classification_and_snippet():
    log = load_session(shared_log("written/crash-open-turn__session.jsonl.zstd"))
    diag = diagnose(log)
    assert diag.verdict.call_id == "call_deploy" and diag.verdict.kind == "TOOL_OUTCOME_UNKNOWN"
    kinds = {f.call_id: f.kind for f in diag.findings if f.call_id}
    assert kinds == {"call_deploy": "TOOL_OUTCOME_UNKNOWN", "call_tag": "TOOL_NOT_STARTED"}
    assert diag.open_turn == 2
    snip = check_json(log, diag)["snippet"]
    assert snip.startswith("dsh session failure: TOOL_OUTCOME_UNKNOWN")
    for needle in ("call_deploy", "bash", "header version:  0", "session id:      demo-crash", "seq:             25",
                   "crash-open-turn__session.jsonl.zstd", "dsh version:"):
        assert needle in snip


def test_torn_log_snippet_says_decode_not_whole():
    log = load_session(shared_log("written/crash-torn-midframe__session.jsonl.zstd"))
    snip = check_json(log, diagnose(log))["snippet"]
    assert snip.splitlines()[0].startswith("WARNING: DECODE NOT WHOLE")
    assert "byte 669" in snip.splitlines()[0]


def test_rejected_log_reads_with_lenient_and_is_marked(capsys):
    rc, got = _check("written/edited-reject-no-delegation-depth__session.jsonl", capsys, "--lenient")
    assert got["accepted"] is False and got["verified"] is False
    assert got["rejection"]["code"] == "MISSING_DELEGATION_DEPTH"
    assert got["events"] == 70
    assert got["snippet"].startswith("WARNING: DECODE NOT WHOLE") and "UNVERIFIED" in got["snippet"]
    assert rc == 1


def test_child_subagent_is_delegated_loudly(capsys):
    rc = main(["check", str(shared_log("written/child-subagent__session.jsonl.zstd"))])
    out = capsys.readouterr().out
    assert "*** DELEGATED session (subagent child): depth 1, parent demo-live, origin subagent ***" in out
    assert rc == 0


def test_every_fixture_reads_without_traceback(capsys):
    fixtures = sorted((DSH_LOGS / "fixtures").glob("*.jsonl")) if DSH_LOGS.exists() else []
    if not fixtures:
        pytest.skip("fixtures not available")
    projected = 0
    for path in fixtures:
        rc = main(["check", str(path), "--format", "json", "--lenient"])
        captured = capsys.readouterr()
        assert rc in (0, 1, 3), (path.name, captured.err)
        if rc == 3:
            assert captured.err.startswith("dsh-tui: ") and "\n" == captured.err[-1], path.name
            continue
        got = json.loads(captured.out)
        projected += got["projected"]
        assert got["events"] >= 0
        if got["projected"]:
            assert got["seq"]["contiguous"] is False and got["seq"]["verifiable"] is False
    assert projected > 150  # the repo's fixtures are projected (no seq/time)


def test_fixture_packed_rows_and_legacy_counts():
    log = load_session(shared_log("fixtures/jsonrpc__bash-tool__session.jsonl"))
    assert log.res.projected and len(log) == 99 and log.records == 32
    legacy = load_session(shared_log("fixtures/web__code-mode-round__session.jsonl"), lenient=True)
    assert len(legacy) == 239
    assert {"assistant/message pre-identity", "tool/result pre-identity", "turn/start.trigger",
            "user/message pre-identity"} <= set(legacy.res.legacy)
    assert not legacy.accepted  # no delegationDepth in the header
