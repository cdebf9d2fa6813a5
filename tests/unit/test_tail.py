"""The provisional tail verdict agrees with the full pass whenever it answers."""

from __future__ import annotations

import pytest

from dsh_tui.demo import demo_batches, write_log, write_synthetic
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.reading.tail import tail_verdict

from ..support.logs import shared_log


@pytest.mark.parametrize("encoding", ["zstd", "jsonl"])
def test_tail_matches_full_verdict_on_a_crash(tmp_path, encoding):
    path = tmp_path / f"s.{encoding}"
    facts = write_synthetic(path, 30_000, encoding=encoding)
    tv = tail_verdict(path)
    _, diag = open_target(path, OpenOptions(use_cache=False))
    assert tv is not None and tv.tail_bytes < path.stat().st_size * 50
    assert (tv.kind, tv.call_id, tv.seq) == (diag.verdict.kind, diag.verdict.call_id, diag.verdict.seq)
    assert tv.call_id == facts["last_call_id"]


def test_tail_on_demo_and_shared_crash(tmp_path):
    header, batches = demo_batches()
    write_log(tmp_path / "d.zst", header, batches)
    tv = tail_verdict(tmp_path / "d.zst")
    assert (tv.kind, tv.call_id) == ("TOOL_OUTCOME_UNKNOWN", "call_05_deploy")
    tv = tail_verdict(shared_log("written/crash-open-turn__session.jsonl.zstd"))
    assert (tv.kind, tv.call_id, tv.seq) == ("TOOL_OUTCOME_UNKNOWN", "call_deploy", 25)


def test_no_provisional_verdict_when_the_session_ended_or_input_is_bad(tmp_path):
    path = tmp_path / "ok.zst"
    write_synthetic(path, 5000, crash=False)
    assert tail_verdict(path) is None
    bad = tmp_path / "bad"
    bad.write_bytes(b"\x28\xb5\x2f\xfdgarbage")
    assert tail_verdict(bad) is None
    assert tail_verdict(tmp_path / "missing") is None


def test_content_of_any_type_is_read_without_an_error(tmp_path):
    """A message's content and a failed result's inner content that are not lists (a crafted log's)
    hold no call and no error text: the tail and `check` read on (the scan's context record of such a
    result raised)."""
    import io
    from contextlib import redirect_stdout

    import orjson

    from dsh_tui.cli import main
    header = {"type": "session", "version": 0, "id": "odd", "createdAt": 1, "cwd": "/w", "delegationDepth": 0}
    message = {"role": "assistant", "id": "m1", "content": 5,
               "source": {"kind": "model", "provider": "p", "model": "m"}}
    result = {"role": "user", "id": "r1", "source": {"kind": "tool", "callId": "c1"},
              "content": [{"type": "tool-result", "toolCallId": "c1", "isError": True, "content": -1}]}
    events = [("turn/start", {"turn": 1}), ("step/start", {"turn": 1, "step": 1}),
              ("assistant/message", {"turn": 1, "step": 1, "message": message}),
              ("tool/call", {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": "{}"}),
              ("tool/result", {"turn": 1, "step": 1, "message": result})]
    lines = [orjson.dumps(header)]
    for seq, (etype, data) in enumerate(events):
        ev = {"type": etype, "seq": seq, "time": 10 + seq, "data": data}
        if etype in ("assistant/message", "tool/result"):
            ev["surfaceOp"] = "append"
        lines.append(orjson.dumps(ev))
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert tail_verdict(path) is None  # no call the message names
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["check", str(path), "--format", "json", "--no-cache", "--lenient"])
    assert code in (0, 1, 3) and orjson.loads(out.getvalue())["events"] == len(events)
