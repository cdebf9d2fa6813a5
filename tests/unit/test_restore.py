"""dsh's load-time checks (model/reading/restore.py), event by event, on the parity cases dsh wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import zstandard

from dsh_tui.model.reading import restore

CASES = Path(__file__).resolve().parents[1] / "parity" / "cases"
FACTS = json.loads((CASES.parent / "dsh-facts.json").read_text())


def events(path: Path) -> list[dict]:
    """Every logical event of a parity log (they hold no packed rows dsh-tui would need to expand here)."""
    data = path.read_bytes()
    if path.suffix == ".zstd":
        data = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read()
    out, expected = [], 0
    for line in data.split(b"\n")[1:]:
        try:  # (not orjson: a case's callId holds a lone surrogate, as dsh writes it)
            obj = json.loads(line)
        except ValueError:
            break  # dsh's loader stops at a bad line (a damaged case: it loads the prefix)
        if obj.get("seq0", obj.get("seq")) != expected:
            break  # and at a seq gap
        if "seq0" in obj:  # a packed row: its members are canonical chunks, valid by construction
            expected += len(obj["data"].get("texts") or obj["data"].get("args"))
            continue
        expected += 1
        out.append(obj)
    return out


def problems(obj: dict) -> list[str]:
    etype, data = obj.get("type"), obj.get("data")
    found = [restore.envelope_problem(obj), restore.legacy_problem(etype, data), restore.shape_problem(etype, data)]
    order = restore.vocabulary_order(etype, data)
    if order is not None:
        found.append(restore.vocabulary_message(order, obj.get("seq")))
    return [p for p in found if p]


def folded(evs: list[dict]) -> tuple[int, int, str] | None:
    """restore.fold_problem over the surface of ``evs``, as the scan keeps it."""
    seqs, replacements, by_seq = [], [], {}
    for i, e in enumerate(evs):
        by_seq[e["seq"]] = e
        if e.get("type") not in ("user/message", "assistant/message", "tool/result"):
            continue
        op = e.get("surfaceOp")
        if isinstance(op, dict):
            replacements.append((len(seqs), i, e["seq"], e["type"], op["start"], op["end"],
                                 tuple(e.get("sourceEventSeqs") or ())))
        seqs.append(e["seq"])

    def rest(seq):
        e = by_seq.get(seq)
        return restore.without_content(e["data"]) if e and e["type"] == "tool/result" else None
    return restore.fold_problem(seqs, replacements, rest)


def accepted_logs():
    return [CASES / root / "--home-user-parity--" / sid / ("session.jsonl.zstd" if root.startswith("zstd") else "session.jsonl")
            for root, sessions in FACTS.items() for sid, f in sessions.items() if f["accepted"]]


@pytest.mark.parametrize("path", accepted_logs(), ids=lambda p: p.parent.name)
def test_nothing_dsh_loads_is_flagged(path):
    evs = events(path)
    assert [(e["seq"], problems(e)) for e in evs if problems(e)] == []
    assert folded(evs) is None


EDITED = {  # the line each edited case appends, and the words of dsh's refusal we must give
    "bad-replace": "start seq 900 not found in surface",
    "extra-envelope-key": "invalid event envelope",
    "fallback-header": 'request/header reason "fallback"',
    "legacy-mode-set": "mode/set",
    "legacy-header-delta": "request/header-delta",
    "malformed-turn-end": "malformed pre-react-loop turn/end",
    "surfaceop-on-log-only": "not surface-eligible and cannot carry surfaceOp",
    "missing-surfaceop": "requires a surfaceOp marker",
    "mismatched-tool-result": "mismatched tool call ids",
}


@pytest.mark.parametrize("sid", sorted(EDITED))
def test_what_dsh_refuses_is_flagged_with_its_reason(sid):
    assert FACTS["raw-edited"][sid]["accepted"] is False
    evs = events(CASES / "raw-edited" / "--home-user-parity--" / sid / "session.jsonl")
    last = evs[-1]
    said = problems(last)
    problem = folded(evs)
    if problem is not None:
        said.append(problem[2])
    assert any(EDITED[sid] in p for p in said), said
    assert all(not problems(e) for e in evs[:-1])  # only the edited line


def test_refusals_keep_the_first_problem_of_the_earliest_stage():
    r, other = restore.Refusals(), restore.Refusals()
    r.note(restore.Problem(restore.RESTORE, 0, 5, 5, "x", "late restore"))
    other.note(restore.Problem(restore.RESTORE, 0, 2, 2, "x", "early restore"))
    other.note(restore.Problem(restore.UNKNOWN, 0, 9, 9, "x", "unknown type"))
    r.merge(other)
    assert r.decisive().message == "unknown type"
    assert r.first[(restore.RESTORE, 0)].message == "early restore"
    r.note(restore.Problem(restore.VOCABULARY, 2, 1, 1, "x", "fallback"))
    r.note(restore.Problem(restore.VOCABULARY, 1, 8, 8, "x", "mode/set"))
    assert r.decisive().message == "mode/set"  # dsh looks for mode/set over the whole log before fallback


def test_a_tool_result_rewrite_may_change_only_its_content():
    """Pruning rewrites one earlier tool/result's content; anything else changed is refused."""
    def result(seq, text, *, call="c1", op="append", sources=None):
        e = {"type": "tool/result", "seq": seq, "data": {"turn": 1, "step": 1, "message": {
            "id": f"m{seq}", "role": "user", "source": {"kind": "tool", "callId": call},
            "content": [{"type": "tool-result", "toolCallId": call, "content": [{"type": "text", "text": text}]}]}},
             "surfaceOp": op}
        if sources is not None:
            e["sourceEventSeqs"] = sources
        return e
    prune = {"op": "replace", "start": 0, "end": 0}
    original = result(0, "a long output")
    same_message = result(1, "[pruned]", op=prune, sources=[0])
    same_message["data"]["message"]["id"] = "m0"
    assert folded([original, same_message]) is None
    other_call = result(1, "[pruned]", call="c2", op=prune, sources=[0])
    assert "may change only content" in folded([original, other_call])[2]
    unnamed = result(1, "[pruned]", op=prune, sources=[])
    assert "must include every shadowed surface node" in folded([original, unnamed])[2]
