"""The pass says what the log says: the text, the snippet, the markdown, the JSON, the checklist and
the explorer's badges tell one story (issue 34)."""

from __future__ import annotations

import orjson

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checklist import ten_minute_pass
from dsh_tui.model.presenting.report import bug_report_markdown, snippet
from dsh_tui.model.reading.session import load_session

from ..support.logs import PARITY


def _check(capsys, path, *extra) -> str:
    main(["check", str(path), "--no-cache", *extra])
    return capsys.readouterr().out


def torn_in_checksum():
    return next((PARITY / "cases" / "zstd").glob("*/torn-call-checksum/session.jsonl.zstd"))


def test_a_frame_torn_in_its_checksum_only_loses_nothing_in_every_format(capsys, isolated_xdg):
    path = torn_in_checksum()
    got = orjson.loads(_check(capsys, path, "--format", "json"))
    assert got["torn_tail"]["records_lost"] is False
    text = _check(capsys, path)
    markdown = _check(capsys, path, "--format", "markdown")
    log = load_session(path)
    diag = diagnose(log)
    step2 = ten_minute_pass(log, diag)[1]
    for said in (text, markdown, got["snippet"], snippet(log, diag), "\n".join(step2.lines)):
        assert "write batch was lost" not in said and "records were lost" not in said
        assert "DECODE NOT WHOLE - do not file a bug" not in said
        assert "every record was read" in said
    assert snippet(log, diag).startswith("NOTE: decode not whole, no record lost: ")
    assert "WARNING: decode not whole" not in bug_report_markdown(log, diag)
    torn = next(f for f in diag.findings if f.kind == "TORN_TAIL")
    assert "lost" not in torn.message and "every record was read" in torn.message
    from dsh_tui.ui.widgets.header import integrity_badges
    badges = "".join(part if isinstance(part, str) else part[0] for part in integrity_badges(log))
    assert "every record read" in badges and "TORN TAIL" not in badges


def test_a_torn_tail_that_lost_records_still_warns(write_zstd, isolated_xdg):
    from ..support.logs import crash_records
    path = write_zstd([crash_records()])
    data = path.read_bytes()
    path.write_bytes(data[:-20])  # into the last frame's blocks: its records are gone
    log = load_session(path)
    diag = diagnose(log)
    assert log.raw.torn is not None and log.raw.torn.lost
    assert snippet(log, diag).startswith("WARNING: DECODE NOT WHOLE - do not file a bug from this alone: ")
    assert "the last write batch was lost" in snippet(log, diag)
    assert "WARNING: decode not whole" in bug_report_markdown(log, diag)


def model_failure_log(path):
    """The last turn ended with `error` after three UPSTREAM_5XX retries (verdict TURN_NOT_COMPLETED), then
    a /compact command left without command/done; the request/header offered one tool, none was called."""
    from dsh_tui.gen.builder import EventBuilder
    from dsh_tui.gen.storage import write_log
    b = EventBuilder()
    header = {"type": "session", "version": 0, "id": "sess-model", "createdAt": 1796218179000, "cwd": "/w",
              "delegationDepth": 0}
    b.turn_start(1)
    b.step_start(1, 1)
    b.user_message("hi")
    b.request_header(tools=[{"name": "bash", "description": "", "parameters": {}}])
    b.cut()
    failure = {"message": "upstream 502", "code": "UPSTREAM_5XX"}
    for k in range(1, 4):
        b.retry(1, 1, f"r{k}", failure, retry=k, max_retries=3)
    b.step_end(1, 1)
    b.turn_end(1, {"kind": "error", "error": {"message": "upstream 502 after 3 retries", "code": "UPSTREAM_5XX"}})
    b.emit("command/run", {"commandId": "cmd-compact", "name": "compact", "source": {"kind": "user"}})
    write_log(path, header, b.finish())
    return path


def test_the_ten_minute_pass_is_not_green_on_a_model_failure(tmp_path):
    log = load_session(model_failure_log(tmp_path / "session.jsonl.zstd"))
    diag = diagnose(log)
    assert diag.verdict.kind == "TURN_NOT_COMPLETED" and diag.verdict.code == "UPSTREAM_5XX"
    steps = ten_minute_pass(log, diag)
    s3, s4, s5, s6 = steps[2], steps[3], steps[4], steps[5]
    assert s3.status == s4.status == "fail" and s3.index == diag.verdict.index
    said3, said4 = "\n".join(s3.lines), "\n".join(s4.lines)
    for kind in ("TURN_NOT_COMPLETED", "COMMAND_NOT_DONE", "MODEL_REQUEST_FAILED", "LLM_RETRY"):
        assert kind in said3 and kind in said4
    assert "every tool call has a result" not in said3 and "nothing to classify" not in said4
    assert "deepseek-official / deepseek-v4-flash, request/header seq 3" in said3
    assert "LLM_RETRY at seq 8 (and 2 more)" in said3  # the retries that ran out: one line
    # A request/header with a tool list exists and no tool was called: nothing to check, said so.
    assert "no request/header tool list" not in s5.lines[0] and "no tool was called" in s5.lines[0]
    assert "offers 1 tool" in s5.lines[0]
    # Nothing names a call: no "callId: absent"; the seq, the permalink and the failed request instead.
    said6 = "\n".join(s6.lines)
    assert "callId" not in said6 and "absent" not in said6
    assert "seq:             11" in said6 and "permalink:       sess-model@11" in said6
    assert "finding:         TURN_NOT_COMPLETED (UPSTREAM_5XX)" in said6
    assert "failed request:  request/header seq 3; failed at seq 9" in said6
    assert all(s.status != "ok" for s in steps if s.number in (3, 4))


def test_the_model_failure_snippet_names_the_provider_and_model(tmp_path, capsys, isolated_xdg):
    path = model_failure_log(tmp_path / "session.jsonl.zstd")
    log = load_session(path)
    diag = diagnose(log)
    snip = snippet(log, diag)
    assert "model:           deepseek-official / deepseek-v4-flash\n" in snip
    assert "failed request:  request/header seq 3; failed at seq 9\n" in snip
    assert snip in bug_report_markdown(log, diag)  # the markdown's snippet is the same text
    assert orjson.loads(_check(capsys, path, "--format", "json"))["snippet"] == snip
    assert "model:           deepseek-official / deepseek-v4-flash" in _check(capsys, path)


def test_a_command_verdict_is_cited_by_its_command_id(write_jsonl):
    from ..support.logs import ev
    recs = [ev("command/run", 0, {"commandId": "cmd-7", "name": "compact", "source": {"kind": "user"}})]
    log = load_session(write_jsonl(recs))
    diag = diagnose(log)
    assert diag.verdict.kind == "COMMAND_NOT_DONE"
    assert "commandId:       cmd-7\n" in snippet(log, diag) and "callId" not in snippet(log, diag)
    steps = ten_minute_pass(log, diag)
    assert "commandId:       cmd-7" in steps[5].lines and steps[2].status == "fail"
    assert "COMMAND_NOT_DONE" in " ".join(steps[3].lines)
