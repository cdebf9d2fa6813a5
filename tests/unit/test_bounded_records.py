"""Valid records cost bounded memory (issue: bounded even when the input is valid): the first seq
gaps are kept and the rest counted, a log mostly of gaps or mostly of events that keep a fact is
refused with one line, and check's JSON lists the first findings of a kind and counts the rest."""

from __future__ import annotations

import json

import pytest

from dsh_tui.cli import main
from dsh_tui.model.presenting import findingcap
from dsh_tui.model.reading import scanchecks
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import LogUnreadable

from ..support.logs import ev


def _call(seq: int, k: int) -> dict:
    """A tool/call no message asked for; its own arguments, so no call repeats another (a loop finding)."""
    return ev("tool/call", seq, {"turn": 1, "step": 1, "callId": f"c{k}", "name": "x", "arguments": f'{{"k":{k}}}'})


def _chunk(seq: int) -> dict:
    return ev("assistant/chunk", seq, {"turn": 1, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "a"}})


def _gappy(n: int, every: int) -> list[dict]:
    """``n`` records, the seq jumping by one after every ``every``-th (a gap each time)."""
    out, seq = [], 0
    for k in range(n):
        out.append(_chunk(seq))
        seq += 2 if k % every == every - 1 else 1
    return out


@pytest.mark.parametrize("encoding", ["jsonl", "zstd"])
def test_gaps_past_the_first_are_counted_not_kept(write_jsonl, write_zstd, monkeypatch, encoding, capsys):
    monkeypatch.setattr(scanchecks, "MAX_GAPS", 5)
    records = _gappy(40, 5)  # 7 gaps in 40 records: fewer than a quarter, so read
    path = write_jsonl(records) if encoding == "jsonl" else write_zstd([records])
    res = load_session(path, parallel=False).res
    assert [g.line for g in res.gaps] == [7, 12, 17, 22, 27] and res.gaps_dropped == 2
    # dsh refuses a gap inside a complete zstd frame (exit 3); its JSON still says what the decode saw
    assert main(["check", str(path), "--no-cache", "--format", "json"]) == (1 if encoding == "jsonl" else 3)
    seq = json.loads(capsys.readouterr().out)["seq"]
    assert len(seq["gaps"]) == 5 and seq["gaps_dropped"] == 2 and seq["gaps"][0]["line"] == 7


@pytest.mark.parametrize("encoding", ["jsonl", "zstd"])
def test_a_log_mostly_of_seq_gaps_is_refused(write_jsonl, write_zstd, monkeypatch, encoding, capsys):
    """Records that repeat a seq cost a gap each: past MAX_GAPS, and more than a quarter of the
    records, the log is refused (dsh reads nothing past the first gap)."""
    monkeypatch.setattr(scanchecks, "MAX_GAPS", 5)
    records = [ev("turn/start", 0, {"turn": 1})] + [ev("turn/start", 1, {"turn": 1})] * 30
    path = write_jsonl(records) if encoding == "jsonl" else write_zstd([records])
    with pytest.raises(LogUnreadable) as info:
        load_session(path, parallel=False)
    assert info.value.code == "mostly-seq-gaps" and "6 seq gaps in its first 8 records" in info.value.message
    assert main(["check", str(path), "--no-cache"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("dsh-tui: ") and err.count("\n") == 1 and "seq gaps" in err


def test_a_log_mostly_of_events_that_keep_a_fact_is_refused(write_jsonl, monkeypatch):
    """A million tool calls cost a fact, a pair and a finding each: past DSH_TUI_MAX_FACTS of them,
    and more than a quarter of the events, the log is refused; among as many chunk events as a
    real log has, the same calls are read; the variable raises the count."""
    monkeypatch.setenv(scanchecks.MAX_FACTS_ENV, "50")
    calls = write_jsonl([_call(k, k) for k in range(60)], name="calls.jsonl")
    with pytest.raises(LogUnreadable) as info:
        load_session(calls, parallel=False)
    assert info.value.code == "mostly-facts" and "60 of its first 60 events" in info.value.message
    mixed, seq = [], 0
    for k in range(60):  # a call, then a run of ten chunk events (one fact a run): 2 facts in 11 events
        mixed.append(_call(seq, k))
        mixed += [_chunk(seq + j) for j in range(1, 11)]
        seq += 11
    assert len(load_session(write_jsonl(mixed, name="mixed.jsonl"), parallel=False)) == 660
    monkeypatch.setenv(scanchecks.MAX_FACTS_ENV, "1000")
    assert len(load_session(calls, parallel=False)) == 60


def test_check_json_lists_the_first_findings_of_a_kind_and_counts_the_rest(write_jsonl, monkeypatch, capsys):
    monkeypatch.setattr(findingcap, "MAX_LISTED", 3)
    path = write_jsonl([_call(k, k) for k in range(5)])
    assert main(["check", str(path), "--no-cache", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [f["seq"] for f in out["findings"]] == [4, 3, 2]  # newest first: the first three listed
    assert out["findings_by_kind"] == {"TOOL_UNPAIRED": 5}
    assert out["findings_dropped"] == {"TOOL_UNPAIRED": {"count": 2, "first_seq": 0, "last_seq": 1}}
    assert out["verdict"]["seq"] == 4
    assert main(["check", str(path), "--no-cache"]) == 1
    assert "... and 2 more TOOL_UNPAIRED (seq 0..1): --format json lists the first 3" in capsys.readouterr().out


def test_the_markdown_report_counts_the_findings_it_does_not_list_by_kind(write_jsonl, capsys):
    path = write_jsonl([_call(k, k) for k in range(55)])
    assert main(["check", str(path), "--no-cache", "--format", "markdown"]) == 1
    out = capsys.readouterr().out
    assert "- ... 5 more: TOOL_UNPAIRED x5 (seq 0..4)" in out, out[-600:]


def test_a_cached_log_read_past_the_facts_limit_is_not_served_under_it(write_jsonl, monkeypatch, tmp_path, capsys):
    """The facts limit changes the result, so it keys the index cache as --max-plain-size does."""
    from dsh_tui.model.opening.target import open_target
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    arguments = '{"text":"' + "x" * 300 + '"}'  # (a log under 256 KiB of text is not cached)
    path = write_jsonl([ev("tool/call", k, {"turn": 1, "step": 1, "callId": f"c{k}", "name": "x",
                                            "arguments": arguments}) for k in range(2000)])
    monkeypatch.setenv(scanchecks.MAX_FACTS_ENV, "5000")
    log, _diag = open_target(path)
    assert len(log) == 2000 and not log.from_cache
    assert open_target(path)[0].from_cache  # the entry is there
    monkeypatch.setenv(scanchecks.MAX_FACTS_ENV, "1500")
    capsys.readouterr()
    assert main(["check", str(path)]) == 3
    assert "calls, results, turns or messages" in capsys.readouterr().err


def test_open_calls_in_packed_rows_are_marked_unpaired_in_place(write_jsonl):
    """Past a packing batch (PACK_AT) the open calls' rows are columns: close_pairing writes their
    status and note there (PairTable.set_fields) instead of reviving each as an object."""
    from dsh_tui.model.diagnosing.diagnosis import diagnose
    from dsh_tui.model.columns.packed import PACK_AT
    n = PACK_AT + 500
    log = load_session(write_jsonl([_call(k, k) for k in range(n)]), parallel=False)
    diag = diagnose(log)
    tools = diag.pairing.tools
    assert tools.list.packed and not tools.list.live  # packed, and nothing left revived
    for key in ("c0", f"c{PACK_AT - 1}", f"c{n - 1}"):
        pair = tools[key]
        assert pair.status == "unpaired" and pair.cleared.startswith("no assistant/message asked for it")
    assert [f.kind for f in diag.findings].count("TOOL_UNPAIRED") == n
