"""Lines that are not records (blank, not JSON, not an event) cost no memory per line: the first
corruption reports are kept and the rest counted, a run of such lines is one entry with record
spans and line numbers exact, and a log mostly made of them is refused instead of read on."""

from __future__ import annotations

import pytest

from dsh_tui.model.reading import scan, scanchecks
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import LogUnreadable

from ..support.logs import ev


def _expected_lines(text: bytes):
    """Each record's (start, end, physical line), from the text itself."""
    starts = [0] + [i + 1 for i, b in enumerate(text) if b == 10]
    lines = text.split(b"\n")[:-1]
    return [(starts[k], starts[k] + len(line), k + 1) for k, line in enumerate(lines)
            if k and line.startswith(b'{"type"')]


def _spans(log):
    return [(log.res.rec_start[r], log.res.end_of(r), log.line_of_record(r)) for r in range(log.records)]


def test_corruption_reports_are_capped_and_the_rest_counted(write_jsonl):
    records = []
    for k in range(1500):
        records += [ev("turn/start", k, {"turn": k}), b"{bad %d" % k]
    log = load_session(write_jsonl(records))
    res = log.res
    cap = scanchecks.MAX_CORRUPTION
    assert len(res.corruption) == cap and res.corruption_dropped == 1500 - cap
    assert log.corruption_count == 1500 and not log.whole
    assert [c.line for c in res.corruption] == [3 + 2 * k for k in range(scanchecks.MAX_CORRUPTION)]  # the first ones
    assert len(log) == 1500 and _spans(log) == _expected_lines(log.path.read_bytes())


def test_a_run_of_lines_that_are_not_records_is_one_entry(write_jsonl, monkeypatch):
    """However long a run of blank and bad lines, it costs one entry; record spans and line
    numbers stay exact, whatever window the scan splits the text in."""
    records = ([ev("turn/start", 0, {"turn": 0})] + [b""] * 3000 + [b"{bad"] * 2000 + [b" \r"] * 3000
               + [ev("turn/start", 1, {"turn": 1}), b"", ev("turn/start", 2, {"turn": 2})] + [b""] * 5)
    path = write_jsonl(records)
    log = load_session(path)
    res = log.res
    assert (list(res.skip_rec), list(res.skip_lines)) == ([1, 2, 3], [8000, 8001, 8006])
    assert _spans(log) == _expected_lines(path.read_bytes())
    assert res.corruption_dropped == 2000 - scanchecks.MAX_CORRUPTION
    for window in (64, 4096):  # runs that cross windows are still one entry each
        monkeypatch.setattr(scan, "WINDOW", window)
        assert load_session(path).res == res, window


@pytest.mark.parametrize("line", [b"x", b"", b"[1]", b"\r"])
@pytest.mark.parametrize("encoding", ["jsonl", "zstd"])
def test_a_log_mostly_of_lines_that_are_not_records_is_refused(write_jsonl, write_zstd, line, encoding):
    body = [ev("turn/start", 0, {"turn": 0})] + [line] * (scanchecks.MAX_SKIPPED_LINES + 5)
    path = write_jsonl(body) if encoding == "jsonl" else write_zstd([body])
    with pytest.raises(LogUnreadable) as info:
        load_session(path)
    msg = info.value.message
    assert info.value.code == "mostly-not-records" and str(path) in msg and "\n" not in msg
    assert "10,001 of its first 10,003 lines are not dsh records" in msg and "more than the 1 that are" in msg


def test_bad_lines_among_as_many_records_are_read(write_jsonl):
    records = []
    for k in range(scanchecks.MAX_SKIPPED_LINES + 500):
        records += [ev("turn/start", k, {"turn": k}), b"x"]
    log = load_session(write_jsonl(records))
    assert len(log) == scanchecks.MAX_SKIPPED_LINES + 500 and log.corruption_count == len(log)
    assert len(log.res.skip_rec) == len(log)  # a run after each record: one entry each
