"""The ten-minute pass (DSH-FORMAT 6-7) on small logs the tests build."""

from __future__ import annotations

import json

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.reading.tokens import TOKEN_KEYS
from dsh_tui.model.presenting.report import snippet
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.session import load_session

from ..support.logs import HEADER, MODEL_SOURCE, crash_records, ev, result


def kinds(diag):
    return [(f.kind, f.call_id) for f in diag.findings]


def test_open_turn_classifies_like_dsh_repair(write_zstd):
    diag = diagnose(load_session(write_zstd([crash_records()])))
    assert kinds(diag)[:3] == [("TOOL_OUTCOME_UNKNOWN", "call_a"), ("TOOL_NOT_STARTED", "call_b"), ("OPEN_TURN", None)]
    assert diag.verdict.call_id == "call_a" and diag.verdict.seq == 4
    not_started = diag.findings[1]
    assert not_started.seq == 3 and not_started.index == 3  # points at the assistant/message that asked
    statuses = {p.key: p.status for p in diag.pairs if p.kind == "tool"}
    assert statuses == {"call_a": "TOOL_OUTCOME_UNKNOWN", "call_b": "TOOL_NOT_STARTED"}


def test_step_end_clears_pending_like_repair(write_jsonl):
    recs = crash_records() + [ev("step/end", 5, {"turn": 1, "step": 1})]
    diag = diagnose(load_session(write_jsonl(recs)))
    assert diag.pairing.interrupted == []  # dsh's repair would add no closers for them
    assert diag.closers == ["6:turn/end interrupted"]  # the step closed: only the turn is left open
    f = {x.call_id: x for x in diag.findings if x.call_id}
    # Not a repair code: dsh will never write one for these calls.
    assert f["call_a"].kind == f["call_b"].kind == "TOOL_UNPAIRED"
    assert all(f[c].severity == "warning" and f[c].code is None for c in ("call_a", "call_b"))
    assert "step/end at seq 5" in f["call_a"].message and "does not close it" in f["call_a"].message
    assert "tool/call at seq 4" in f["call_a"].message and "no tool/call" in f["call_b"].message


def test_results_written_by_dsh_repair_are_recognised(write_jsonl):
    recs = crash_records() + [
        result(5, "call_a", error={"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}, is_error=True),
        result(6, "call_b", error={"name": "ToolNotStartedError", "code": "TOOL_NOT_STARTED"}, is_error=True),
        ev("step/end", 7, {"turn": 1, "step": 1}),
        ev("turn/end", 8, {"turn": 1, "reason": {"kind": "interrupted"}}),
    ]
    diag = diagnose(load_session(write_jsonl(recs)))
    assert kinds(diag) == [("TURN_NOT_COMPLETED", None), ("TOOL_NOT_STARTED", "call_b"), ("TOOL_OUTCOME_UNKNOWN", "call_a")]
    assert all(f.repaired for f in diag.findings)
    assert diag.verdict.call_id == "call_b" and diag.open_turn is None
    assert "crash repair" in diag.findings[0].message


def test_error_results_by_code_and_by_is_error(write_jsonl):
    recs = crash_records()[:4] + [
        ev("tool/call", 4, {"turn": 1, "step": 1, "callId": "call_a", "name": "bash", "arguments": "{}"}),
        result(5, "call_a", error={"name": "FsNotFoundError", "code": "FS_NOT_FOUND"}, is_error=True),
        ev("tool/call", 6, {"turn": 1, "step": 1, "callId": "call_b", "name": "bash", "arguments": "{"}),
        result(7, "call_b", text="exit 2", is_error=True),
        ev("step/end", 8, {"turn": 1, "step": 1}),
        ev("turn/end", 9, {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    diag = diagnose(load_session(write_jsonl(recs)))
    assert kinds(diag) == [("TOOL_ERROR", "call_b"), ("TOOL_ERROR", "call_a")]
    assert diag.findings[1].code == "FS_NOT_FOUND" and diag.findings[0].code is None
    assert diag.verdict.call_id == "call_b"
    assert diag.pairing.tools["call_b"].detail == "{"  # raw arguments, invalid JSON kept as is


def test_commands_approvals_retries_and_turn_errors(write_jsonl):
    recs = [
        ev("command/run", 0, {"commandId": "cmd-1", "name": "permission", "args": " x", "source": {"kind": "user"}}),
        ev("turn/start", 1, {"turn": 1}),
        ev("step/start", 2, {"turn": 1, "step": 1}),
        ev("llm/retry", 3, {"retryId": "r1", "turn": 1, "step": 1, "provider": "p", "mode": "normal", "policyKey": "k",
                            "retry": 1, "maxRetries": 2, "delayMs": 1, "failure": {"message": "slow", "code": "TIMEOUT"}}),
        ev("llm/retry", 4, {"retryId": "r2", "turn": 1, "step": 1, "provider": "p", "mode": "normal", "policyKey": "k",
                            "retry": 2, "maxRetries": 2, "delayMs": 1, "failure": {"message": "slow", "code": "TIMEOUT"}}),
        ev("approval/asked", 5, {"id": "ap-1", "toolName": "bash", "callId": "c"}),
        ev("step/end", 6, {"turn": 1, "step": 1}),
        ev("turn/end", 7, {"turn": 1, "reason": {"kind": "error", "error": {"message": "gave up", "code": "TIMEOUT"}}}),
    ]
    diag = diagnose(load_session(write_jsonl(recs)))
    assert [f.kind for f in diag.findings] == ["TURN_NOT_COMPLETED", "APPROVAL_UNDECIDED", "MODEL_REQUEST_FAILED",
                                                "LLM_RETRY", "LLM_RETRY", "COMMAND_NOT_DONE"]
    assert diag.findings[0].code == "TIMEOUT"
    assert diag.verdict.kind == "TURN_NOT_COMPLETED"
    assert diag.findings[2].code == "TIMEOUT" and diag.findings[2].seq == 4


def test_recovered_retry_is_info_only_and_exit_zero(write_jsonl, capsys):
    recs = [
        ev("turn/start", 0, {"turn": 1}), ev("step/start", 1, {"turn": 1, "step": 1}),
        ev("llm/retry", 2, {"retryId": "r1", "turn": 1, "step": 1, "retry": 1, "failure": {"message": "m", "code": "C"}}),
        ev("assistant/message", 3, {"turn": 1, "step": 1, "message": {"id": "m", "role": "assistant", "content": [],
                                                                      "source": MODEL_SOURCE}},
           surfaceOp="append"),
        ev("step/end", 4, {"turn": 1, "step": 1}), ev("turn/end", 5, {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    path = write_jsonl(recs)
    diag = diagnose(load_session(path))
    assert [(f.kind, f.severity) for f in diag.findings] == [("LLM_RETRY", "info")]
    assert diag.verdict is None and not diag.failed
    assert main(["check", str(path)]) == 0
    assert "no failure found" in capsys.readouterr().out


def test_tool_not_in_latest_tool_set_is_flagged(write_jsonl):
    recs = crash_records()[:3] + [
        ev("tool/call", 3, {"turn": 1, "step": 1, "callId": "call_z", "name": "spawn_child", "arguments": "{}"}),
        result(4, "call_z"),
    ]
    diag = diagnose(load_session(write_jsonl(recs)))
    flagged = [f for f in diag.findings if f.kind == "NOT_IN_TOOL_SET"]
    assert len(flagged) == 1 and flagged[0].name == "spawn_child" and "tool set" in flagged[0].message
    # No guess about children in the diagnosis (the lineage links a child that calls it); the advice
    # says what to do when none does.
    assert "child session" not in flagged[0].message and "unload the plugin loaded last" in flagged[0].advice


def test_usage_counts_each_call_once_with_its_last_usage_and_skips_fork_seed(write_jsonl):
    def usage_chunk(seq, turn, step, n):
        return ev("assistant/chunk", seq, {"turn": turn, "step": step, "chunk": {"type": "usage", "usage": {
            "inputTokens": n, "outputTokens": 1}}})

    def message(seq, turn, step, n):
        return ev("assistant/message", seq, {"turn": turn, "step": step, "usage": {"inputTokens": n, "outputTokens": 1},
                                             "message": {"id": "m", "role": "assistant", "content": [], "source": MODEL_SOURCE}},
           surfaceOp="append")
    recs = [usage_chunk(0, 1, 1, 1000), message(1, 1, 1, 5),  # inherited (seq < seedLength)
            usage_chunk(2, 2, 1, 10), message(3, 2, 1, 99),    # the message, the final sample, wins
            message(4, 2, 2, 7),                                # no chunk: the message
            usage_chunk(5, 2, 3, 30)]                           # the request failed after its chunk
    log = load_session(write_jsonl(recs, header={**HEADER, "seedLength": 2, "parentSession": "p"}))
    usage = diagnose(log).usage
    assert usage.session["inputTokens"] == 99 + 7 + 30 and usage.calls == 3 and usage.from_message == 2
    assert usage.inherited["inputTokens"] == 5
    assert usage.turns[2][TOKEN_KEYS.index("outputTokens")] == 3


def test_per_call_usage_of_two_parts_merges_into_the_whole():
    """The tail helper's per-call counts, merged, equal one scan of the whole log, cut anywhere: runs
    of one call's samples, the last of each winning, chunk or message, in the meter's order."""
    from dsh_tui.model.reading.facts import note_chunk_usage, note_message_usage
    from dsh_tui.model.diagnosing.usage import UsageTally
    from dsh_tui.model.columns.calltable import CallTable
    events = [("m", 1, 1), ("c", 1, 1), ("m", 1, 1), ("m", 1, 2), ("m", 1, 2), ("c", 2, 1), ("m", 1, 3),
              ("c", 1, 3), ("m", 2, 1), ("c", 1, 2), ("m", 3, 1), ("m", 1, 1), ("c", 3, 1), ("m", 3, 1)]

    def noted(part):
        calls = CallTable()
        for seq, (kind, turn, step) in part:
            data = {"turn": turn, "step": step, "usage": {"inputTokens": seq}}
            if kind == "c":
                note_chunk_usage(calls, data, {"type": "usage", "usage": {"inputTokens": seq}}, seq)
            else:
                note_message_usage(calls, (turn, step, ()), data, seq)
        return calls
    def summed(table, seed):  # what compute_usage must give, the plain way
        turns: dict = {}
        inherited, calls, from_message = [0] * 5, 0, 0
        for (turn, _step), (seq, counts, from_chunk) in table.items():
            if seq < seed:
                inherited = [a + b for a, b in zip(inherited, counts)]
                continue
            calls, from_message = calls + 1, from_message + (not from_chunk)
            turns[turn] = [a + b for a, b in zip(turns.get(turn, [0] * 5), counts)]
        return calls, from_message, inherited, list(turns.items())

    def as_summed(usage):
        return (usage.calls, usage.from_message, list(usage.inherited.values()),
                [(t, list(v)) for t, v in usage.turns.items()])
    numbered = list(enumerate(events))
    whole = noted(numbered)
    # dsh's meter: a sample replaces the one before only if that is the same call's, else it adds
    assert [(k, v[0]) for k, v in whole.items()] == [((1, 1), 2), ((1, 2), 4), ((2, 1), 5), ((1, 3), 7), ((2, 1), 8),
                                                     ((1, 2), 9), ((3, 1), 10), ((1, 1), 11), ((3, 1), 13)]
    for cut in range(len(events) + 1):
        calls = noted(numbered[:cut])
        calls.merge(noted(numbered[cut:]))
        assert list(calls.items()) == list(whole.items()), cut
        for seed in (0, 4):  # per-turn sums kept up as the table grows (UsageTally), a merge replacing some
            table = noted(numbered[:cut])
            tally = UsageTally(seed)
            tally.add(table)
            tally.add(table)  # adding again counts nothing twice
            table.merge(noted(numbered[cut:]))
            assert as_summed(tally.usage(table)) == summed(whole, seed), (cut, seed)


def test_token_counts_that_are_not_finite_count_zero(tmp_path, capsys):
    """A hand-edited line read leniently can hold 1e999 or NaN where dsh writes token counts."""
    head = json.dumps(HEADER).encode()
    lines = [b'{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"usage",'
             b'"usage":{"inputTokens":1e999,"outputTokens":NaN,"cacheReadTokens":-Infinity,"reasoningTokens":2.9}}}}',
             b'{"type":"assistant/message","seq":1,"time":1,"data":{"turn":1,"step":2,"usage":{"inputTokens":NaN,'
             b'"outputTokens":3},"message":{"id":"m","role":"assistant","content":[],"source":{}}}}']
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join([head, *lines]) + b"\n")
    usage = diagnose(load_session(path)).usage
    assert usage.session == {"inputTokens": 0, "outputTokens": 3, "cacheReadTokens": 0, "cacheWriteTokens": 0,
                             "reasoningTokens": 2}
    # A report, not a traceback (dsh itself refuses NaN: not JSON; --lenient reads on).
    assert main(["check", str(path), "--format", "json"]) == 3
    capsys.readouterr()
    assert main(["check", str(path), "--format", "json", "--lenient"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["usage"]["calls"] == 2


def test_legacy_pre_identity_results_pair_with_their_calls(write_jsonl):
    recs = [
        ev("turn/start", 0, {"turn": 1, "trigger": {"kind": "user"}}),
        ev("assistant/message", 1, {"turn": 1, "step": 1, "content": [
            {"type": "tool-call", "id": "c1", "name": "read", "arguments": "{}"}], "provenance": {"provider": "p"}}),
        ev("tool/call", 2, {"turn": 1, "step": 1, "callId": "c1", "name": "read", "arguments": "{}"}),
        ev("tool/result", 3, {"turn": 1, "step": 1, "callId": "c1", "content": [{"type": "text", "text": "no"}],
                              "isError": True}),
        ev("turn/end", 4, {"turn": 1, "reason": {"kind": "disposed"}}),
    ]
    log = load_session(write_jsonl(recs))
    assert set(log.res.legacy) == {"turn/start.trigger", "assistant/message pre-identity", "tool/result pre-identity",
                                   "turn/end.reason"}
    diag = diagnose(log)
    assert [(f.kind, f.call_id) for f in diag.findings] == [("TURN_NOT_COMPLETED", None), ("TOOL_ERROR", "c1")]
    assert "aborted by disposed" in diag.findings[0].message
    assert log.event(3).legacy == "tool/result pre-identity"
    assert log.event(3).event["data"]["message"]["source"] == {"kind": "tool", "callId": "c1"}


def test_result_for_unknown_call_id_is_a_warning(write_jsonl):
    diag = diagnose(load_session(write_jsonl([result(0, "ghost")])))
    assert [(f.kind, f.call_id, f.severity) for f in diag.findings] == [("TOOL_ERROR", "ghost", "warning")]


def test_snippet_fields_and_not_whole_banner(write_jsonl):
    path = write_jsonl(crash_records()[:1] + crash_records()[3:])
    log = load_session(path)
    diag = diagnose(log)
    assert diag.verdict.kind == "RESUME_TRUNCATES"  # a raw log with a gap mid-log: dsh's resume cuts it there
    text = snippet(log, diag, next(f for f in diag.findings if f.kind == "TOOL_OUTCOME_UNKNOWN"))
    first, *rest = text.splitlines()
    assert first.startswith("WARNING: DECODE NOT WHOLE") and "seq gap" in first
    body = "\n".join(rest)
    for needle in ("callId:          call_a", "tool/name:       bash", "classification:  TOOL_OUTCOME_UNKNOWN",
                   "header version:  0", "session id:      sess-1", "delegation:      depth 0", "file:            session.jsonl",
                   "dsh-tui:", "plugin SHAs:"):
        assert needle in body
    data = check_json(log, diag)
    assert data["seq"]["contiguous"] is False and data["seq"]["gaps"][0] == {
        "expected": 1, "found": 3, "line": 3, "cause": data["seq"]["gaps"][0]["cause"]}
    assert [f["kind"] for f in data["findings"]].count("SEQ_GAP") == 1


def test_check_json_has_the_contract_keys(write_zstd, capsys):
    rc = main(["check", str(write_zstd([crash_records()])), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 1
    for key in ("schema", "file", "encoding", "frames", "accepted", "rejection", "header", "delegated", "events",
                "records", "projected", "torn_tail", "seq", "unknown_types", "findings", "verdict", "usage", "snippet"):
        assert key in data, key
    assert data["schema"] == "dsh-tui/check/1" and data["frames"] == 2 and data["events"] == 5
    for f in data["findings"]:
        assert set(f) >= {"kind", "seq", "callId", "name", "turn", "step", "code", "message"}


def test_check_exit_codes_for_bad_input(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": 1}\n')
    cases = {str(tmp_path / "missing.jsonl"): "no such file", str(tmp_path): "is a directory",
             str(empty): "is empty", str(other): "not a session header", "/dev/zero": "not a regular file"}
    for path, words in cases.items():
        assert main(["check", path]) == 3, path
        err = capsys.readouterr().err
        assert err.startswith("dsh-tui: ") and words in err and err.count("\n") == 1, err
    assert main(["check"]) == 2
    assert main(["check", str(other), "--format", "yaml"]) == 2
    capsys.readouterr()


def test_markdown_report_masks_secrets_and_shows_pairs(write_zstd, capsys):
    records = crash_records()
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8" * 3
    records[4]["data"]["arguments"] = '{"command":"curl -H \'Authorization: Bearer ' + secret + '\' x"}'
    path = write_zstd([records])
    assert main(["check", str(path), "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("# dsh session report: TOOL_OUTCOME_UNKNOWN")
    assert "## Pairs around it" in out and "`call_a`" in out and "**TOOL_NOT_STARTED**" in out
    assert "permalink:       sess-1@4" in out
    assert secret not in out and "redacted" in out
    main(["check", str(path), "--format", "json"])
    assert secret not in capsys.readouterr().out  # the JSON's snippet is pasted too: masked
    main(["check", str(path), "--format", "json", "--raw-snippet"])
    assert secret in capsys.readouterr().out  # unless asked for as the log holds it


def _diagnosis_logs(tmp_path):
    from dsh_tui.gen.synthetic import write_synthetic
    from ..support.logs import DSH_LOGS
    from ..support.hostile_corpus import demo_file
    write_synthetic(tmp_path / "syn.jsonl.zstd", 3000, seed=9)
    paths = [demo_file(tmp_path), tmp_path / "syn.jsonl.zstd"]
    paths += sorted((DSH_LOGS / "written").glob("*")) if DSH_LOGS.exists() else []
    return [p for p in paths if p.is_file()]


def test_a_diagnosis_begun_on_the_head_ends_as_the_whole_one(tmp_path):
    """opener starts the diagnosis on the head's facts while the tail is read; any cut gives the same."""
    from dsh_tui.model.diagnosing.diagnosis import begin
    checked = 0
    for path in _diagnosis_logs(tmp_path):
        try:
            log = load_session(path, lenient=True)
        except Exception:  # noqa: BLE001 - refused logs have nothing to diagnose
            continue
        whole = check_json(log, diagnose(log), None)
        facts = log.res.facts
        for k in sorted({0, 1, len(facts) // 3, len(facts) // 2, len(facts) - 1, len(facts)}):
            if 0 <= k <= len(facts):
                assert check_json(log, diagnose(log, begin(facts[:k])), None) == whole, (path.name, k)
                checked += 1
    assert checked >= 12


def test_a_call_waiting_on_an_approval_never_decided_says_so_and_links_to_it():
    from ..support.logs import PARITY
    log = load_session(PARITY / "cases" / "zstd" / "--home-user-parity--" / "approval-undecided-crash" / "session.jsonl.zstd")
    diag = diagnose(log)
    verdict = diag.verdict
    approval = next(f for f in diag.findings if f.kind == "APPROVAL_UNDECIDED")
    assert verdict.kind == "TOOL_OUTCOME_UNKNOWN" and verdict.call_id == "call_ap_1"
    assert f"waiting on approval approval-1 (asked at seq {approval.seq})" in verdict.message
    assert approval.index in verdict.related  # the partner key reaches the approval
    assert f"for call call_ap_1 at seq {verdict.seq}" in approval.message and verdict.index in approval.related


def test_a_call_with_a_decided_approval_is_not_said_to_wait(write_jsonl):
    records = crash_records() + [ev("approval/asked", 5, {"id": "ap", "toolName": "bash", "callId": "call_a"}),
                                 ev("approval/decided", 6, {"id": "ap", "outcome": "allowed-once"})]
    diag = diagnose(load_session(write_jsonl(records)))
    assert diag.verdict.call_id == "call_a" and "waiting on approval" not in diag.verdict.message


def test_a_result_keeps_its_first_line_and_the_finding_shows_it(write_jsonl):
    recs = crash_records() + [result(5, "call_a", text="boom: exit 2\nstack line 1\nstack line 2", is_error=True),
                              result(6, "call_b", text="\nsecond line only", is_error=True)]
    diag = diagnose(load_session(write_jsonl(recs)))
    a, b = diag.pairing.tools["call_a"], diag.pairing.tools["call_b"]
    assert a.result == "boom: exit 2\n" and b.result == "\n"  # the line break kept: a blank first line is still a result
    f = {x.call_id: x for x in diag.findings if x.call_id}
    assert f["call_a"].message.endswith(" - boom: exit 2") and "stack" not in f["call_a"].message
    assert f["call_b"].message.endswith(" - ")


def test_a_retry_keeps_of_its_failure_what_the_finding_quotes(write_jsonl):
    """A retry's fact keeps the failure's code and the start of its message, not the upstream body:
    the findings read the same as from the whole event."""
    body = {"detail": ["x" * 100] * 50}
    message = "upstream said no " * 40  # longer than the 160 characters a finding quotes
    recs = [
        ev("turn/start", 0, {"turn": 1}), ev("step/start", 1, {"turn": 1, "step": 1}),
        ev("llm/retry", 2, {"retryId": "r1", "turn": 1, "step": 1, "retry": 1, "maxRetries": 1,
                            "failure": {"message": message, "code": "UPSTREAM", "body": body}}),
        ev("step/start", 3, {"turn": 1, "step": 2}),  # a later step: the request failed for good
        ev("step/end", 4, {"turn": 1, "step": 2}),
        ev("turn/end", 5, {"turn": 1, "reason": {"kind": "completed"}}),
    ]
    log = load_session(write_jsonl(recs))
    fact = next(f for f in log.res.facts if f[0] == "llm/retry")
    assert fact[3]["failure"] == {"code": "UPSTREAM", "message": message[:160]}
    diag = diagnose(log)
    failed = next(f for f in diag.findings if f.kind == "MODEL_REQUEST_FAILED")
    assert failed.code == "UPSTREAM" and failed.message.endswith(f"(UPSTREAM: {message[:160]})")
    retry = next(f for f in diag.findings if f.kind == "LLM_RETRY")
    assert retry.message == f"model request retry 1/1 after UPSTREAM: {message[:160]}"


def test_only_what_follows_a_retry_tells_its_outcome(write_jsonl):
    """An answer (assistant/message) or a later step before the retry says nothing of it; after, it does."""
    def run(after_retry: bool):
        answer = ev("assistant/message", 0, {"turn": 1, "step": 1, "message": {
            "id": "m", "role": "assistant", "content": [], "source": MODEL_SOURCE}}, surfaceOp="append")
        retry = ev("llm/retry", 0, {"retryId": "r1", "turn": 1, "step": 1, "retry": 1,
                                    "failure": {"message": "m", "code": "C"}})
        body = [retry, answer] if after_retry else [answer, retry]
        recs = [ev("turn/start", 0, {"turn": 1}), ev("step/start", 0, {"turn": 1, "step": 1}), *body]
        for seq, rec in enumerate(recs):
            rec["seq"] = seq
        return diagnose(load_session(write_jsonl(recs)))
    assert next(f for f in run(True).findings if f.kind == "LLM_RETRY").severity == "info"  # recovered
    late = run(False)
    assert next(f for f in late.findings if f.kind == "LLM_RETRY").severity == "warning"
    assert late.verdict.kind == "RETRY_INTERRUPTED"


def test_per_call_usage_is_columns_that_widen_past_int64():
    """The per-call table holds no tuple per call (columns indexed by a call's position); a crafted
    log's counts past int64 or odd keys fall back to list columns with the same values."""
    from array import array
    from dsh_tui.model.columns.calltable import CallTable
    from dsh_tui.model.diagnosing.usage import UsageTally
    table = CallTable()
    for i in range(300):
        table.put((i // 3, i % 3), i, (i, i + 1, 0, 0, 0), True)
    assert all(type(col) is array for col in table.cols) and table.index is None  # (ascending: no dict of keys)
    tally = UsageTally()
    tally.add(table)
    table.put((99, 2), 300, (1, 2, 3, 4, 5), False)  # a message after its chunk, counted already
    table.put(("x", "[1]"), 301, (10**30, 0, 0, 0, 0), False)  # past int64: lists from here on
    assert all(type(col) is list for col in table.cols)
    assert table[(99, 2)] == (300, (1, 2, 3, 4, 5), False) and table[(5, 1)] == (16, (16, 17, 0, 0, 0), True)
    assert table.output(2, 2) == 9 and table.output(999, 0) is None
    later = CallTable()
    later.put((1, 1), 302, (2**70, 7, 0, 0, 0), False)
    table.merge(later.pack())
    usage = tally.usage(table)
    plain = {}
    for (turn, _), (seq, counts, _c) in table.items():
        plain[turn] = [a + b for a, b in zip(plain.get(turn, [0] * 5), counts)]
    assert [(t, list(v)) for t, v in usage.turns.items()] == list(plain.items())
    assert usage.calls == 302 and usage.from_message == 3 and usage.turns["x"][0] == 10**30  # (1, 1) came back
    head, tail = CallTable(), CallTable()  # a merged slice past int64, one call cut by the boundary
    head.put((1, 1), 0, (1, 0, 0, 0, 0), True)
    tail.put((2, 1), 1, (2**63, 0, 0, 0, 0), True)
    tail.put((1, 1), 2, (5, 0, 0, 0, 0), False)
    head.merge(tail.pack())
    assert list(head.items()) == [((1, 1), (0, (1, 0, 0, 0, 0), True)), ((2, 1), (1, (2**63, 0, 0, 0, 0), True)),
                                  ((1, 1), (2, (5, 0, 0, 0, 0), False))]  # (1, 1) came back: counted again


def test_which_sample_won_keeps_a_seq_in_four_bytes_while_they_fit():
    """The usage source (which sample won each call) keeps its seqs as uint32 while they fit, int64
    from a seq past them, and reads back the same rows either way."""
    from dsh_tui.model.columns.calltable import CallTable
    from dsh_tui.model.diagnosing.usage import UsageTally
    for top, typecode in ((2**32 - 1, "I"), (2**32, "q")):
        table = CallTable()
        for i in range(5):
            table.put((1, i + 1), top - 4 + i, (1, 1, 0, 0, 0), i % 2 == 0)
        usage = UsageTally().usage(table)
        assert usage.won[1].typecode == typecode
        assert list(usage.won_rows()) == [(1, i + 1, top - 4 + i, i % 2 == 0) for i in range(5)]
