"""dsh-tui says what dsh says: the parity cases (tests/parity) checked against dsh's own answers.

Every case was written by dsh's published writer; `dsh-facts.json` holds what dsh's reader, crash
repair, children listing and token meter said about those exact files. The differential test at the
end installs that reference into a temporary folder, writes the cases afresh, asks dsh again and
compares (it skips where npm cannot reach its registry or ../shared/dsh-reference is absent).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.presenting.checkjson import check_json, json_text

from ..support.reference import install_reference

CASES = Path(__file__).resolve().parents[1] / "parity"
PROJECT = "--home-user-parity--"
FACTS = json.loads((CASES / "dsh-facts.json").read_text())
ROOTS = {"zstd": "zstd", "raw-edited": "none", "zstd-damaged": "zstd", "zstd-listing": "zstd"}  # root -> compression
METER = {"uncachedInputTokens": "inputTokens", "outputTokens": "outputTokens", "cacheReadTokens": "cacheReadTokens",
         "cacheWriteTokens": "cacheWriteTokens"}


def case_path(base: Path, root: str, sid: str) -> Path:
    return base / root / PROJECT / sid / ("session.jsonl.zstd" if root.startswith("zstd") else "session.jsonl")


def accepted_cases(facts: dict) -> list[tuple[str, str]]:
    return [(root, sid) for root, sessions in sorted(facts.items()) for sid, f in sorted(sessions.items())
            if f["accepted"]]


def what_we_say(path: Path) -> dict:
    """The same facts, read off `check --format json` (its contract carries each of them)."""
    log, diag = open_target(path, OpenOptions(use_cache=False))
    out = json.loads(json_text(check_json(log, diag)))
    return {"closers": out["repair_closers"], "turn_ends": [[t["turn"], t["reason"]] for t in out["turn_ends"]],
            "end_seed_seqs": out["runs"]["end_seed_seqs"],
            "usage": {theirs: out["usage"]["dsh_total"][ours] for theirs, ours in METER.items()}}


def what_dsh_says(f: dict) -> dict:
    return {"closers": f["closers"], "turn_ends": f["turn_ends"], "end_seed_seqs": f["end_seed_seqs"],
            "usage": f["usage_fold_all"]}


@pytest.mark.parametrize("root,sid", accepted_cases(FACTS))
def test_repair_turn_ends_and_meter_match_dsh(root, sid):
    """The closers dsh's repair would append (seq, type, code, callId, in its order), every turn end,
    every end-seed, and dsh's token meter over the whole log."""
    assert what_we_say(case_path(CASES / "cases", root, sid)) == what_dsh_says(FACTS[root][sid])


def _reference(tmp: Path) -> Path | None:
    return install_reference(tmp, CASES / "write_cases.mjs", CASES / "dsh-resume.mjs")


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """The cases written afresh by dsh's writer, and what dsh says about them now."""
    tmp = tmp_path_factory.mktemp("dsh-reference")
    ref = _reference(tmp)
    if ref is None:
        pytest.skip("dsh's reference packages cannot be installed here (no ../shared/dsh-reference, npm or registry)")
    node = str(ref / "node_modules" / ".bin" / "node")
    subprocess.run([node, "write_cases.mjs", "out"], cwd=ref, check=True, capture_output=True, timeout=300)
    facts = {}
    for root, compression in ROOTS.items():
        for script, out in (("dsh-facts.mjs", f"{root}.json"), ("dsh-resume.mjs", f"{root}-resume.json")):
            subprocess.run([node, script, f"out/{root}", out, compression], cwd=ref, check=True,
                           capture_output=True, timeout=600)
        facts[root] = json.loads((ref / f"{root}.json").read_text())
        resume = json.loads((ref / f"{root}-resume.json").read_text())
        for sid, f in facts[root].items():
            f["resume"] = resume.get(sid)
    return ref / "out", facts


def test_dsh_itself_agrees_on_freshly_written_cases(fresh):
    """Differential: the same comparison on logs dsh's writer wrote just now, against dsh run just now."""
    out, facts = fresh
    assert sorted((r, s) for r in facts for s in facts[r]) == sorted((r, s) for r in FACTS for s in FACTS[r])
    mismatched = {}
    for root, sid in accepted_cases(facts):
        ours, theirs = what_we_say(case_path(out, root, sid)), what_dsh_says(facts[root][sid])
        if ours != theirs:
            mismatched[f"{root}/{sid}"] = (ours, theirs)
    for root, sessions in facts.items():  # accepted or refused, as dsh says now
        for sid, f in sessions.items():
            log, _diag = open_target(case_path(out, root, sid), OpenOptions(use_cache=False))
            if log.accepted != f["accepted"]:
                mismatched[f"{root}/{sid} accepted"] = (log.rejection, f.get("refusal"))
    from dsh_tui.model.sessions.lineage import find_lineage
    for sid, f in facts["zstd"].items():
        path = case_path(out, "zstd", sid)
        log, _diag = open_target(path, OpenOptions(use_cache=False))
        kids = [c.entry.session_id for c in find_lineage(path, sid, fill=False).children if c.depth == 1]
        ours = (log.header.delegated, kids)
        theirs = (bool(log.header.delegation_depth) or f["dsh_subagent"], f["dsh_list_children"])
        if ours != theirs:
            mismatched[f"zstd/{sid} lineage"] = (ours, theirs)
    assert not mismatched
    assert [(r, s) for r, s in accepted_cases(facts)] == accepted_cases(FACTS)  # dsh accepts the same cases


@pytest.mark.parametrize("sid", sorted(FACTS["zstd"]))
def test_delegated_and_children_as_dsh_has_them(sid):
    """Delegated: delegationDepth > 0 or origin "subagent"; a session's children: dsh's own listing
    (origin "subagent" only). A user fork (parentSession + seedLength, depth 0) is top-level."""
    f = FACTS["zstd"][sid]
    path = case_path(CASES / "cases", "zstd", sid)
    log, diag = open_target(path, OpenOptions(use_cache=False))
    from dsh_tui.model.sessions.lineage import find_lineage
    lineage = find_lineage(path, sid, fill=False)
    out = json.loads(json_text(check_json(log, diag, lineage)))
    depth = out["header"].get("delegationDepth", 0)
    assert out["delegated"] == (depth > 0 or f["dsh_subagent"])
    assert out["forked"] == ("parentSession" in out["header"] and not out["delegated"])
    assert [c["id"] for c in out["lineage"]["children"] if c["depth"] == 1] == f["dsh_list_children"]


def test_a_forks_failure_is_its_own(capsys):
    """src-fork crashed; its source src did not: src's check exits 0, lists the fork apart, and names
    only its subagent child among its children."""
    from dsh_tui.cli import main
    src = case_path(CASES / "cases", "zstd", "src")
    assert main(["check", str(src), "--format", "json", "--no-cache"]) == 0
    out = json.loads(capsys.readouterr().out)
    lineage = out["lineage"]
    assert [c["id"] for c in lineage["children"]] == ["src-child"] and lineage["child_failures"] == []
    forks = {f["id"]: f for f in lineage["forks"]}
    assert forks["src-fork"]["kind"] == "fork" and forks["src-fork"]["verdict_kind"] == "TOOL_OUTCOME_UNKNOWN"
    assert forks["src-fork"]["seed_length"] == 22 and forks["src-depth-only"]["kind"] == "unlisted"
    assert main(["check", str(case_path(CASES / "cases", "zstd", "src-fork")), "--no-cache"]) == 1
    text = capsys.readouterr().out
    assert "forked from src at seq 22" in text and "DELEGATED" not in text and "fork source: src" in text


@pytest.mark.parametrize("root,sid", [(r, s) for r in sorted(FACTS) for s in sorted(FACTS[r])])
def test_accepted_means_dsh_would_load_it(root, sid, capsys):
    """Beyond the header: the vocabulary dsh cannot replay, legacy shapes it cannot upgrade, unknown
    types, envelopes, message shapes and the surface. A refused log is exit 3 with dsh's reason;
    --lenient reads on, every output marked UNVERIFIED."""
    from dsh_tui.cli import main
    f = FACTS[root][sid]
    path = case_path(CASES / "cases", root, sid)
    log, _diag = open_target(path, OpenOptions(use_cache=False))
    assert log.accepted == f["accepted"], log.rejection
    if f["accepted"]:
        return
    assert main(["check", str(path), "--no-cache"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rejected" in err and "--lenient" in err
    main(["check", str(path), "--no-cache", "--lenient", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert out["accepted"] is False and out["verified"] is False and out["rejection"]["message"]
    main(["check", str(path), "--no-cache", "--lenient"])
    assert capsys.readouterr().out.startswith("UNVERIFIED")


KINDS = {  # parity case -> the finding its event types must give (rule 10)
    "compaction-open-at-crash": "COMPACTION_INTERRUPTED", "compaction-error": "COMPACTION_FAILED",
    "code-dispatch-unfinished": "CODE_DISPATCH_UNFINISHED", "code-dispatch-error": "CODE_DISPATCH_ERROR",
    "workflow-failed": "WORKFLOW_FAILED", "hook-blocked": "HOOK_BLOCKED", "goal-blocked": "GOAL_BLOCKED",
    "finish-error-interrupted": "MODEL_STREAM_FAILED", "command-error": "COMMAND_FAILED",
    "retry-wait-crash": "RETRY_INTERRUPTED", "retry-inflight-crash": "RETRY_INTERRUPTED",
    "retries-then-error": "MODEL_REQUEST_FAILED", "closed-turn-call": "TOOL_UNPAIRED",
}


@pytest.mark.parametrize("sid", sorted(KINDS))
def test_event_types_with_a_meaning_become_findings(sid):
    _log, diag = open_target(case_path(CASES / "cases", "zstd", sid), OpenOptions(use_cache=False))
    assert KINDS[sid] in {f.kind for f in diag.findings}


def test_a_crash_during_a_retry_is_not_a_failed_request():
    for sid, words in (("retry-wait-crash", "crashed while waiting to retry"),
                       ("retry-inflight-crash", "crashed during the retried request")):
        _log, diag = open_target(case_path(CASES / "cases", "zstd", sid), OpenOptions(use_cache=False))
        assert diag.verdict.kind == "RETRY_INTERRUPTED" and words in diag.verdict.message
        assert diag.verdict.severity == "warning" and "TIMEOUT" in diag.verdict.message
        assert "MODEL_REQUEST_FAILED" not in {f.kind for f in diag.findings}
    _log, diag = open_target(case_path(CASES / "cases", "zstd", "retries-then-error"), OpenOptions(use_cache=False))
    assert diag.verdict.kind == "TURN_NOT_COMPLETED" and diag.verdict.code == "TIMEOUT"  # above the open command
    assert {"MODEL_REQUEST_FAILED", "COMMAND_NOT_DONE"} <= {f.kind for f in diag.findings}


def test_a_resumed_session_is_judged_by_its_latest_run():
    _log, diag = open_target(case_path(CASES / "cases", "zstd", "resumed"), OpenOptions(use_cache=False))
    assert diag.verdict is None and not diag.failed
    repaired = [f for f in diag.findings if f.repaired]
    assert repaired and all(f.run == "earlier" and f.severity == "info" for f in repaired)
    assert any("repaired on resume at seq" in f.message for f in repaired)
    _log, diag = open_target(case_path(CASES / "cases", "zstd", "resumed-crashed-again"), OpenOptions(use_cache=False))
    assert diag.verdict.call_id == "call_resumed-crashed-again_3" and diag.verdict.run == "latest"
    assert diag.runs["end_seed_seqs"] == [36] and diag.runs["latest_run_seq"] == 36


def test_a_torn_tail_does_not_prove_a_call_never_ran():
    """dsh's repair calls call_a not started when the batch holding its tool/call was torn away; dsh-tui
    says the same code, but that it may have run, and does not advise a retry. Torn in its checksum only,
    the batch is read whole and the call is (rightly) TOOL_OUTCOME_UNKNOWN."""
    from dsh_tui.model.diagnosing.findings import MAY_HAVE_RUN
    log, diag = open_target(case_path(CASES / "cases", "zstd", "torn-call"), OpenOptions(use_cache=False))
    v = diag.verdict
    assert (v.kind, v.call_id) == ("TOOL_NOT_STARTED", "call_torn-call_a") and v.advice == MAY_HAVE_RUN
    torn_at = FACTS["zstd"]["torn-call"]["resume"]["cut"]  # where dsh's repair cuts: the torn frame's start
    assert log.raw.torn.offset == torn_at
    assert f"lost to the torn tail at byte {torn_at}" in v.message and "Retry it if" not in (v.advice or "")
    log, diag = open_target(case_path(CASES / "cases", "zstd", "torn-call-checksum"), OpenOptions(use_cache=False))
    assert not log.raw.torn.lost and diag.verdict.kind == "TOOL_OUTCOME_UNKNOWN"
    b = next(f for f in diag.findings if f.call_id == "call_torn-call-checksum_b")
    assert b.kind == "TOOL_NOT_STARTED" and "torn" not in b.message  # nothing was lost after it


def test_a_partial_line_naming_the_call_is_said_so(write_jsonl):
    """A raw log cut inside the tool/call line: the readable start names the call."""
    from dsh_tui.model.diagnosing.diagnosis import diagnose
    from dsh_tui.model.reading.session import load_session

    from ..support.logs import crash_records
    recs = crash_records()[:4]  # the model asked for call_a and call_b; no tool/call durable
    path = write_jsonl(recs, tail=b'\n{"type":"tool/call","seq":4,"time":1,"data":{"turn":1,"step":1,"callId":"call_a","na')
    diag = diagnose(load_session(path))
    a = next(f for f in diag.findings if f.call_id == "call_a")
    assert a.kind == "TOOL_NOT_STARTED" and "starts a record naming it" in a.message
    b = next(f for f in diag.findings if f.call_id == "call_b")
    assert "may have been in it" in b.message


def test_the_detail_shows_the_torn_bytes():
    """The explorer's detail of the event the torn tail points at holds its bytes: offsets, hex, text."""
    from dsh_tui.model.presenting.detail import detail_sections
    log, diag = open_target(case_path(CASES / "cases", "zstd", "torn-call"), OpenOptions(use_cache=False))
    sections = {s.title: s.lines for s in detail_sections(log.event(len(log) - 1), log, diag)}
    at, n = log.raw.torn.offset, log.raw.torn.unreadable_bytes
    torn = sections[f"torn bytes at byte {at:,}"]
    assert f"{n} bytes from byte {at:,}" in torn[0] and "records were lost" in torn[0]
    assert torn[1].split()[:5] == [f"{at:,}", "28", "b5", "2f", "fd"]  # the torn frame's magic, at its offset
    assert len(torn) == 1 + (n + 15) // 16


def test_the_header_says_fork_and_resume():
    from dsh_tui.model.presenting.summary import runs_text
    log, diag = open_target(case_path(CASES / "cases", "zstd", "resumed-crashed-again"), OpenOptions(use_cache=False))
    assert runs_text(log, diag) == "resumed at seq 36 after a crash dsh repaired"
    log, diag = open_target(case_path(CASES / "cases", "zstd", "src-fork"), OpenOptions(use_cache=False))
    assert runs_text(log, diag) == ""  # its end-seed at seedLength is the fork, not a resume


# -- issue 36: what dsh will do to this log ------------------------------------------------------------

def _truncated(f: dict) -> bool:
    """dsh's load() cut the file (a raw log's committed prefix) before appending its rows."""
    r = f.get("resume") or {}
    return r.get("cut") is not None and r["cut"] < r["size_before"]


@pytest.mark.parametrize("sid", sorted(FACTS["raw-edited"]))
def test_a_resume_cut_is_predicted_where_dsh_cuts(sid):
    """A raw log with a bad line, a blank line or a seq gap mid-log and no later turn/end: dsh loads the
    prefix and its repair truncates the file at that line. The byte offset, dsh's closers after the cut
    (compared with dsh's in the test above), and nothing for a log dsh does not cut."""
    f = FACTS["raw-edited"][sid]
    if not f["accepted"]:
        return
    log, diag = open_target(case_path(CASES / "cases", "raw-edited", sid), OpenOptions(use_cache=False))
    out = json.loads(json_text(check_json(log, diag)))
    if not _truncated(f):
        assert out["resume"] is None
        return
    cut = out["resume"]
    assert cut["offset"] == f["resume"]["cut"] and cut["closers"] == f["closers"]
    assert log.raw.size - cut["offset"] == cut["deleted_bytes"]
    calls = {c for c, _code in f["closer_calls"]}
    assert set(cut["closed_not_started"]) == {c for c, code in f["closer_calls"] if code == "TOOL_NOT_STARTED"}
    assert cut["destroyed_results"] and set(cut["destroyed_results"]) <= calls  # results recorded, then cut away
    v = out["verdict"]
    assert v["kind"] == "RESUME_TRUNCATES" and v["severity"] == "failure" and "copy the file" in v["advice"]
    assert f"byte {cut['offset']:,}" in v["message"]


def test_a_resume_cut_is_said_in_every_format(capsys):
    from dsh_tui.cli import main
    path = case_path(CASES / "cases", "raw-edited", "raw-bad-line-resume")
    offset = FACTS["raw-edited"]["raw-bad-line-resume"]["resume"]["cut"]
    for fmt in ("text", "markdown"):
        assert main(["check", str(path), "--no-cache", "--format", fmt]) == 1
        out = capsys.readouterr().out
        assert "RESUME_TRUNCATES" in out and f"byte {offset:,}" in out and "copy the file" in out, fmt
    log, diag = open_target(path, OpenOptions(use_cache=False))
    from dsh_tui.model.presenting.report import snippet
    text = snippet(log, diag)
    assert "RESUME_TRUNCATES" in text and "copy the file" in text


@pytest.mark.parametrize("root,sid", [(r, s) for r in sorted(FACTS) for s in sorted(FACTS[r])
                                      if not FACTS[r][s]["accepted"] and "corrupt" in FACTS[r][s]["refusal"]["message"]
                                      and "first frame" not in FACTS[r][s]["refusal"]["message"]])
def test_damage_dsh_refuses_is_refused_in_its_words(root, sid, capsys):
    """A bad line or a gap with a later turn/end (raw or zstd), or any bad line inside a complete zstd
    frame: dsh refuses the log; so does `check` (exit 3, dsh's message and line), and --lenient reads
    the rest marked unverified. The other side of dsh's line is the resume cut above."""
    from dsh_tui.cli import main
    path = case_path(CASES / "cases", root, sid)
    log, _diag = open_target(path, OpenOptions(use_cache=False))
    assert log.rejection.code == "CORRUPT_LOG" and log.rejection.message == FACTS[root][sid]["refusal"]["message"]
    assert main(["check", str(path), "--no-cache"]) == 3
    assert FACTS[root][sid]["refusal"]["message"] in capsys.readouterr().err
    main(["check", str(path), "--no-cache", "--lenient", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert out["accepted"] is False and out["verified"] is False and out["rejection"]["code"] == "CORRUPT_LOG"
    if "line" in FACTS[root][sid]["refusal"]["message"]:  # dsh counts lines after the header; the file, from 1
        dsh_line = int(FACTS[root][sid]["refusal"]["message"].split("at line ")[1].split()[0])
        assert out["rejection"]["line"] == dsh_line + 1
    assert out["events"] > 0  # the readable part is shown


def test_a_recovered_stream_failure_is_information(capsys):
    """A failed attempt (its finish error chunk, its interrupted message) that a retry of the same request
    recovered: information, exit 0 (dsh completed the turn)."""
    from dsh_tui.cli import main
    path = case_path(CASES / "cases", "zstd", "retry-recovered-stream")
    assert FACTS["zstd"]["retry-recovered-stream"]["turn_ends"] == [[1, "completed"]]
    assert main(["check", str(path), "--no-cache", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    kinds = {f["kind"]: f["severity"] for f in out["findings"]}
    assert kinds["MODEL_STREAM_FAILED"] == "info" and kinds["MESSAGE_INTERRUPTED"] == "info" and out["verdict"] is None
    _log, diag = open_target(case_path(CASES / "cases", "zstd", "finish-error-interrupted"), OpenOptions(use_cache=False))
    assert {f.severity for f in diag.findings if f.kind == "MODEL_STREAM_FAILED"} == {"warning"}  # not retried


def test_a_failure_outranks_a_warning_in_the_verdict():
    """/compact left open between turns: its command/run without command/done (a failure) is the verdict,
    not the newer compaction/start without end (a warning)."""
    _log, diag = open_target(case_path(CASES / "cases", "zstd", "compact-open-between-turns"), OpenOptions(use_cache=False))
    kinds = {f.kind: f.severity for f in diag.findings}
    assert kinds == {"COMPACTION_INTERRUPTED": "warning", "COMMAND_NOT_DONE": "failure"}
    assert diag.verdict.kind == "COMMAND_NOT_DONE"
    assert FACTS["zstd"]["compact-open-between-turns"]["closers"] == []  # dsh's own close says nothing else


@pytest.mark.parametrize("root", sorted(FACTS))
def test_a_session_that_breaks_dshs_listing_is_named_at_the_root(root, capsys):
    """dsh's list() throws for the whole root on one session whose first zstd frame holds more than the
    header line: `ls` (text and JSON) and the browser's notes say so first, name it, and advise moving it
    out, never deleting it; a root dsh lists has no such warning."""
    from dsh_tui.model.sessions.discovery import list_target
    from dsh_tui.sessions.browse import footer_notes
    from dsh_tui.sessions.ls import main_ls
    refused = {f["list_refusal"]["message"] for f in FACTS[root].values() if f.get("list_refusal")}
    listing = list_target(CASES / "cases" / root)
    assert bool(listing.breaks_listing) == bool(refused)
    assert main_ls([str(CASES / "cases" / root), "--no-status", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["breaks_listing"] == listing.breaks_listing
    if not refused:
        return
    assert refused == {"corrupt Zstandard session log: first frame is not exactly one header line"}
    assert [Path(b["path"]).parent.name for b in listing.breaks_listing] == ["lb-one-frame"]
    assert main_ls([str(CASES / "cases" / root), "--no-status"]) == 0
    second = capsys.readouterr().out.splitlines()[1]
    assert second.startswith("! DSH CANNOT LIST THIS ROOT") and "lb-one-frame" in second
    assert "move its session directory out" in second and "do not delete" in second
    assert footer_notes(listing)[0].startswith("DSH CANNOT LIST THIS ROOT")


def test_usage_source_says_which_sample_won_as_dshs_meter_folds():
    """A step whose sample comes back after another step's is counted twice; a chunk after its message
    wins; an equal message after its chunk leaves the chunk the winner (the meter skips it). dsh's meter's
    own totals are in dsh-facts.json (compared for every case above)."""
    def source(sid):
        log, diag = open_target(case_path(CASES / "cases", "zstd", sid), OpenOptions(use_cache=False))
        out = json.loads(json_text(check_json(log, diag)))
        return [(c["turn"], c["step"], c["sample"]) for c in out["usage"]["source"]["calls"]], out["usage"]
    calls, usage = source("usage-step-comes-back")
    assert calls == [(1, 1, "usage chunk"), (1, 2, "usage chunk"), (1, 1, "usage chunk")]
    assert usage["dsh_total"]["inputTokens"] == 10 + 20 + 11 == FACTS["zstd"]["usage-step-comes-back"]["usage_fold_all"][
        "uncachedInputTokens"]
    calls, _usage = source("usage-chunk-after-message")
    assert calls == [(1, 1, "usage chunk")]
    calls, _usage = source("usage-chunk-then-message")
    assert calls == [(1, 1, "assistant/message"), (1, 2, "usage chunk")]
    assert "replaces the previous one only" in _usage["source"]["rule"]


def test_a_resume_cut_before_the_last_run_stays_the_latest_runs(tmp_path):
    """The cut deletes the later run too: its finding is the verdict, not an earlier run's information."""
    head = {"type": "session", "version": 0, "id": "r", "createdAt": 1, "cwd": "/a", "delegationDepth": 0}
    recs = [{"type": "turn/start", "seq": 0, "time": 1, "data": {"turn": 1}},
            {"type": "turn/end", "seq": 1, "time": 2, "data": {"turn": 1, "reason": {"kind": "completed"}}},
            None,  # a bad line: dsh's loader stops here
            {"type": "turn/start", "seq": 2, "time": 3, "data": {"turn": 2}},
            {"type": "session/end-seed", "seq": 3, "time": 4, "data": {}},
            {"type": "turn/start", "seq": 4, "time": 5, "data": {"turn": 3}}]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) if r else '{"type":"tool/ca' for r in [head, *recs]) + "\n")
    log, diag = open_target(path, OpenOptions(use_cache=False))
    assert log.accepted and diag.runs["end_seed_seqs"] == [3]
    assert diag.verdict.kind == "RESUME_TRUNCATES" and diag.verdict.run == "latest"
    assert diag.resume["deleted_seqs"] == [2, 4]
