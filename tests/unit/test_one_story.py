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
