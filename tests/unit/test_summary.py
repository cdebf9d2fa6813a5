"""Pure (Textual-free) pieces of the explorer: row summaries, detail sections, filters, the checklist."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_tui.demo import EventBuilder, ToolCall, demo_header, write_demo, write_log
from dsh_tui.model.presenting.detail import SECTION_CAP, diff_lines, parse_arguments
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.presenting.detail import detail_sections
from dsh_tui.model.presenting.summary import call_id_of, light_event, row_summary
from dsh_tui.safety import is_clean
from dsh_tui.model.presenting.checklist import ten_minute_pass
from dsh_tui.ui.views import RowSource, build_filter, filter_specs

SHARED = Path(__file__).resolve().parents[3] / "shared" / "dsh-logs"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = write_demo(tmp_path_factory.mktemp("demo") / "session.jsonl.zstd")
    log = load_session(path)
    return log, diagnose(log)


def shared_logs() -> list[Path]:
    if not SHARED.exists():
        return []
    written = sorted((SHARED / "written").glob("*.zstd")) + sorted((SHARED / "written").glob("*.jsonl"))
    fixtures = sorted((SHARED / "fixtures").glob("acp__*.jsonl"))[:40]
    return [p for p in written + fixtures if "decoded" not in p.name]


def _check_log(log, diag) -> None:
    for i in range(len(log)):
        ev, full = light_event(log, i), log.event(i)
        assert (ev.index, ev.record, ev.seq, ev.type, ev.time, ev.event, ev.packed, ev.legacy, ev.raw, ev.lenient) == \
            (full.index, full.record, full.seq, full.type, full.time, full.event, full.packed, full.legacy,
             full.raw, full.lenient)
        row = row_summary(ev)
        for text in (row.text, row.type, row.turn_step, row.time_text):
            assert is_clean(text) and "\n" not in text
        assert len(row.text) <= 300 and row.badge in ("surface", "log")
        for sec in detail_sections(ev, log, diag):
            assert is_clean(sec.title)
            assert all(is_clean(line) and "\n" not in line for line in sec.lines)


def test_demo_rows_and_details_are_clean_and_match_event(demo):
    _check_log(*demo)


@pytest.mark.parametrize("path", shared_logs(), ids=lambda p: p.name)
def test_shared_logs_rows_and_details(path):
    log = load_session(path, lenient=True)
    _check_log(log, diagnose(log))


def test_row_summaries_say_what_matters(demo):
    log, _ = demo
    rows = {log.seq_of(i): row_summary(light_event(log, i)) for i in range(len(log))}
    assert rows[65].type == "tool/call" and rows[65].text.startswith('write call_00_write {"file_path":"README.md"')
    assert rows[68].badge == "surface" and "call_00_write ✓ [diff README.md]" in rows[68].text
    assert "call_02_read ✗ FS_NOT_FOUND: Error: cannot read" in rows[194].text
    assert rows[319].time_text == "13:31:06.173" and rows[319].turn_step == "3/1"
    assert rows[0].text.startswith("/permission") and rows[0].badge == "log"
    assert call_id_of(light_event(log, 68)) == "call_00_write"


def test_detail_sections_of_a_call_a_result_and_a_diff(demo):
    log, diag = demo
    titles = [s.title for s in detail_sections(light_event(log, 195), log, diag)]
    assert "arguments: NOT valid JSON" in titles and "finding TOOL_ERROR (failure)" not in titles
    secs = {s.title: s for s in detail_sections(light_event(log, 132), log, diag)}
    diff1 = secs["meta.diffs 1/2: src/app.py"]
    assert diff1.kind == "diff" and diff1.lines[:2] == ["--- a/src/app.py", "+++ b/src/app.py"]
    assert "+import os" in diff1.lines and any(x.startswith("@@ -1,") for x in diff1.lines)
    diff2 = secs["meta.diffs 2/2: src/app.py"]
    assert "-    port = 8000" in diff2.lines and '+    port = int(os.environ.get("PORT", "8000"))' in diff2.lines
    raw = secs[next(t for t in secs if t.startswith("raw record"))]
    assert raw.lines == [log.record_bytes(log.res.record_of(132)).decode()]


def test_diff_lines_new_file_and_no_change():
    assert diff_lines({"path": "a.txt", "oldText": None, "newText": "x\ny"}) == [
        "--- /dev/null", "+++ b/a.txt", "@@ -0,0 +1,2 @@", "+x", "+y"]
    assert diff_lines({"path": "a", "oldText": "s", "newText": "s"})[-1] == "(no textual change)"
    assert "not a string" in diff_lines({"path": "a", "oldText": 1, "newText": "s"})[2]


def test_parse_arguments_follows_json_parse():
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments('{"a": NaN}')[1] is not None
    assert parse_arguments('{"command": "pytest -q", "timeout": 120')[1] is not None


def test_huge_payloads_are_capped_with_a_note(tmp_path):
    b = EventBuilder()
    b.turn_start(1)
    big = "x" * 300_000
    b.model_step(1, 1, calls=[ToolCall("call_big", "read", '{"p": "' + big + '"}', big + "\n" + big)])
    b.turn_end(1)
    path = tmp_path / "big.jsonl.zstd"
    write_log(path, demo_header(), b.finish())
    log = load_session(path)
    diag = diagnose(log)
    idx = next(i for i in range(len(log)) if log.type_of(i) == "tool/result")
    for sec in detail_sections(light_event(log, idx), log, diag):
        assert sum(len(x) for x in sec.lines) <= SECTION_CAP + 200
        if sec.title.startswith(("result content", "raw record")):
            assert sec.lines[-1].startswith("… capped at 64 KiB")


def test_past_254_types_the_filters_offer_the_rest_as_one_and_match_them(tmp_path):
    """A crafted log of 300 event types (ignorable, unknown to dsh): the type column says 255 for the
    types past the 255th; the filters list each of the others and one "other types" entry, whose
    events are exactly those of the rest (the counts from the type column, a byte a record)."""
    from ..support.logs import HEADER, ev, lines_of
    names = [f"x/t{k:03d}" for k in range(300)]
    events = [ev(name, seq, {}, ignorable=True) for seq, name in enumerate(names + names[::7])]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([HEADER, *events])) + b"\n")
    log = load_session(path, lenient=True)
    diag = diagnose(log)
    assert [log.type_of(i) for i in range(len(log))] == [e["type"] for e in events]
    specs = {s.key: s for s in filter_specs(log, diag)}
    first = set(log.res.types[:255])  # (the scan's own first, the chunks', among them)
    rest = [i for i, e in enumerate(events) if e["type"] not in first]
    assert 40 < len(rest) < len(events) - 254
    assert specs["type:255"].count == len(rest) and list(build_filter(log, diag, "type:255")) == rest
    for tid in (3, 8, 254):
        name = log.res.types[tid]
        want = [i for i, e in enumerate(events) if e["type"] == name]
        assert want and specs[f"type:{tid}"].count == len(want) and list(build_filter(log, diag, f"type:{tid}")) == want


def test_filters_match_brute_force(demo):
    log, diag = demo
    specs = {s.key: s for s in filter_specs(log, diag)}
    assert build_filter(log, diag, "all") is None
    for key, spec in specs.items():
        if key == "all":
            continue
        got = list(build_filter(log, diag, key))
        if key.startswith("type:"):
            want = [i for i in range(len(log)) if log.event(i).event["type"] == log.res.types[int(key[5:])]]
        elif key == "no-chunks":
            want = [i for i in range(len(log)) if log.type_of(i) != "assistant/chunk"]
        elif key == "findings":
            want = sorted({f.index for f in diag.findings})
        else:
            continue
        assert got == want, key
        if spec.count is not None:
            assert spec.count == len(got)
    problems = set(build_filter(log, diag, "problems"))
    assert {318, 319, 194, 196} <= problems and 65 not in problems
    src = RowSource(len(log), build_filter(log, diag, "pairs"), "pairs")
    assert src.row_of(65) is not None and src.row_of(1) is None
    assert src.index(src.nearest_row(70)) >= 68


def test_ten_minute_pass_on_the_demo(demo):
    log, diag = demo
    steps = ten_minute_pass(log, diag)
    assert [s.status for s in steps] == ["ok", "ok", "fail", "fail", "ok", "info"]
    # The crash left two calls: both named, the started one first, each with what to do about it.
    assert steps[2].index == 319 and steps[2].lines[0] == "the crash left 2 calls without a result:"
    assert "call_05_deploy bash: TOOL_OUTCOME_UNKNOWN" in steps[2].lines[1]
    assert "call_06_tag bash: TOOL_NOT_STARTED" in steps[2].lines[2]
    advice = " ".join(steps[3].lines)
    assert "Retry only if it is read-only or idempotent" in advice and "Retry it if it is still needed" in advice
    assert "cwd /home/user/projects/demo-app" in steps[0].lines
    assert steps[5].lines[0] == "callId:          call_05_deploy"
    assert steps[5].lines[2] == "header version:  0"


def test_ten_minute_pass_on_torn_and_unknown_logs():
    torn = SHARED / "written" / "crash-torn-midframe__session.jsonl.zstd"
    if not torn.exists():
        pytest.skip("shared logs not available")
    log = load_session(torn)
    step2 = ten_minute_pass(log, diagnose(log))[1]
    assert step2.status == "warn" and "torn tail at byte 669" in step2.lines[-1]
    log = load_session(SHARED / "written" / "live-zstd__session.jsonl.zstd")
    steps = ten_minute_pass(log, diagnose(log))
    assert steps[2].status == "fail" and "FS_NOT_FOUND" in steps[2].lines[0]
    assert steps[4].status == "warn" and steps[4].lines[0].startswith("read (callId call_01_read_demo")


def test_the_checklist_advises_no_retry_for_a_call_that_may_have_run():
    from pathlib import Path
    case = Path(__file__).resolve().parents[1] / "parity" / "cases" / "zstd" / "--home-user-parity--" / "torn-call" / "session.jsonl.zstd"
    log = load_session(case)
    steps = ten_minute_pass(log, diagnose(log))
    assert "do not retry blindly" in " ".join(steps[3].lines)
    assert "Retry it if it is still needed" not in " ".join(steps[3].lines)


def test_an_unexpected_tool_says_what_to_do(write_jsonl):
    from ..support.logs import crash_records, ev, result
    recs = crash_records()[:3] + [
        ev("tool/call", 3, {"turn": 1, "step": 1, "callId": "call_z", "name": "spawn_child", "arguments": "{}"}),
        result(4, "call_z")]
    log = load_session(write_jsonl(recs))
    step5 = ten_minute_pass(log, diagnose(log))[4]
    assert step5.status == "warn" and "unload the plugin loaded last" in " ".join(step5.lines)
    assert "may belong to a child" not in " ".join(step5.lines)
