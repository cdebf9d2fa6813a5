"""check's text report: words, not Python; findings grouped by kind; every call a crash left."""

from __future__ import annotations

from dsh_tui.cli import main

from ..support.logs import HEADER, crash_records, ev


def text_of(capsys, path, *extra) -> str:
    main(["check", str(path), "--no-cache", *extra])
    return capsys.readouterr().out


def test_a_header_only_log_in_words(write_zstd, write_jsonl, capsys):
    out = text_of(capsys, write_zstd([]))
    assert "zstd, 1 frame, 0 records, 0 events" in out and "whole: no events (the log holds only its header)" in out
    assert "0..-1" not in out and "0 model calls\n" in out and "model calls: " not in out
    out = text_of(capsys, write_jsonl([]))
    assert "jsonl, 0 records, 0 events" in out and "frames" not in out


def test_absent_fields_say_absent_and_an_absent_depth_is_not_top_level(write_jsonl, capsys):
    header = {k: v for k, v in HEADER.items() if k != "delegationDepth"}
    out = text_of(capsys, write_jsonl(crash_records(), header=header), "--lenient")
    assert "None" not in out
    assert "delegationDepth: absent" in out and "agent preset:    absent" in out
    assert "(top-level" not in out and "not known to be top-level" in out


def test_findings_are_grouped_by_kind_with_counts_and_ranges(write_jsonl, capsys):
    retries = [ev("llm/retry", 2 + k, {"retryId": f"r{k}", "turn": 1, "step": 1, "retry": k + 1, "maxRetries": 9,
                                       "failure": {"message": "slow", "code": "TIMEOUT"}}) for k in range(9)]
    recs = [ev("turn/start", 0, {"turn": 1}), ev("step/start", 1, {"turn": 1, "step": 1}), *retries,
            ev("step/end", 11, {"turn": 1, "step": 1}),
            ev("turn/end", 12, {"turn": 1, "reason": {"kind": "error", "error": {"message": "gave up",
                                                                                  "code": "TIMEOUT"}}})]
    out = text_of(capsys, write_jsonl(recs))
    assert "LLM_RETRY (9, seq 2..10)" in out
    assert out.count("] seq 10 LLM_RETRY") == 1 and "seq 7 LLM_RETRY" not in out  # the newest three shown
    assert "... and 6 more LLM_RETRY (seq 2..7)" in out
    assert "Findings (11 in 3 kinds, newest first)" in out and "turn/step:       1\n" in out


def test_every_call_the_crash_left_is_named(write_jsonl, capsys):
    out = text_of(capsys, write_jsonl(crash_records()))
    assert "also left by the crash: call_b (bash: TOOL_NOT_STARTED)" in out
    assert "also left:       call_b (bash: TOOL_NOT_STARTED)" in out  # in the snippet too


def test_a_tiny_log_has_no_slowest_section_a_slow_one_has(write_jsonl, capsys):
    """A few milliseconds in all say nothing: no "Slowest" section; a turn of seconds gets one."""
    out = text_of(capsys, write_jsonl(crash_records()))
    assert "== Slowest ==" not in out and "Usage ==" in out
    slow = [ev("turn/start", 0, {"turn": 1}), ev("step/start", 1, {"turn": 1, "step": 1}),
            ev("step/end", 2, {"turn": 1, "step": 1}, time=1790000000000 + 5000),
            ev("turn/end", 3, {"turn": 1, "reason": {"kind": "completed"}}, time=1790000000000 + 5001)]
    out = text_of(capsys, write_jsonl(slow))
    assert "== Slowest ==\n  turns 5,001 ms: idle 5,001 ms (100%)\n" in out, out


def test_a_retry_started_row_reads_as_words():
    from dsh_tui.model.presenting.summary import _sum_generic
    text = _sum_generic("llm/retry-started", {"retryId": "r-1", "turn": 2, "step": 3, "retry": 2})
    assert text == "retry 2 started: turn 2 step 3 (r-1)"
    assert "{" not in _sum_generic("llm/retry-started", {})
