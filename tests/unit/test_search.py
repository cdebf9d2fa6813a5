"""The search hit list (model/reading/search.py): every event holding a needle, then n/N as a bisect."""

from __future__ import annotations

import threading

import pytest

from dsh_tui.model.reading.plainstore import LogChanged
from dsh_tui.model.reading.search import HitList, find_all
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import Cancelled, LogUnreadable

from ..support.logs import chunk, ev, lines_of, row


def _log(write, records):
    return load_session(write(records))


def test_hits_are_sorted_distinct_events_case_insensitive(write_jsonl):
    log = _log(write_jsonl, [ev("user/message", 0, {"text": "Find the NEEDLE"}), chunk(1, "nothing"),
                             ev("tool/call", 2, {"callId": "needle-1", "name": "bash", "arguments": "needle needle"}),
                             chunk(3, "x"), chunk(4, "a needle")])
    hits = find_all(log, "needle")
    assert list(hits.indices) == [0, 2, 4]  # one entry per event, even with several matches in it
    assert not hits.capped and hits.events == len(log) and hits.needle == "needle"
    assert list(find_all(log, "NeEdLe").indices) == [0, 2, 4]
    assert len(find_all(log, "absent")) == 0
    assert len(find_all(log, "")) == 0


def test_packed_rows_count_each_member_that_holds_the_needle(write_jsonl):
    log = _log(write_jsonl, [chunk(0, "a"), row(1, ["b", "needle", "d", "more NEEDLE"], [1, 1, 1]), chunk(5, "needle2")])
    assert list(find_all(log, "needle").indices) == [2, 4, 5]
    # a hit outside the members (the row's own keys) lands on the row's first member
    assert list(find_all(log, "text-chunks").indices) == [1]
    # the old one-hit search agrees on the first hit
    assert find_all(log, "needle").indices[0] == log.search("needle", 0)


def test_header_is_not_a_hit_and_zstd_logs_work(write_zstd):
    log = load_session(write_zstd([[chunk(0, "x"), chunk(1, "sess-1 inside")], [chunk(2, "sess-1 again")]]))
    assert list(find_all(log, "sess-1").indices) == [1, 2]  # the header line also holds sess-1


def test_matches_across_scan_windows_are_found_once(write_jsonl):
    records = [chunk(k, f"filler {'x' * 50} needle {k}") for k in range(200)]
    log = _log(write_jsonl, records)
    want = list(range(200))
    for window in (7, 64, 100, 1000, 1 << 20):  # tiny windows split needles and records
        assert list(find_all(log, "needle", window=window).indices) == want, window


def test_cap_and_cancel(write_jsonl):
    log = _log(write_jsonl, [chunk(k, "needle") for k in range(50)])
    hits = find_all(log, "needle", max_hits=10)
    assert hits.capped and list(hits.indices) == list(range(10))
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        find_all(log, "needle", cancel=cancel)


def test_next_and_previous_wrap_around():
    from array import array
    hits = HitList("x", 100, array("I", [10, 20, 30]))
    assert hits.step(0, 1) == (10, False)
    assert hits.step(10, 1) == (20, False)
    assert hits.step(30, 1) == (10, True)
    assert hits.step(25, -1) == (20, False)
    assert hits.step(10, -1) == (30, True)
    assert hits.step(-1, 1) == (10, False)
    assert HitList("x", 100).step(5, 1) == (None, False)


@pytest.mark.parametrize("fmt", ["jsonl", "zstd"])
def test_a_search_from_the_cursor_finds_the_same_hits_window_by_window(write_jsonl, write_zstd, fmt):
    """From the cursor to the end, then from the start up to it: the same sorted list as a scan
    from the start, whatever the window; progress climbs to the text's size."""
    records = [chunk(k, "needle" if k % 7 == 0 else f"t{k}") for k in range(400)]
    log = load_session(write_jsonl(records) if fmt == "jsonl" else
                       write_zstd([lines_of(records[k:k + 9]) for k in range(0, 400, 9)]))
    whole = list(find_all(log, "NEEDLE").indices)
    assert whole == [k for k in range(400) if k % 7 == 0]
    for start in (0, 1, 200, 399):
        seen = []
        hits = find_all(log, "needle", start=start, window=97, progress=lambda done, total: seen.append((done, total)))
        assert list(hits.indices) == whole, start
        assert seen == sorted(seen) and seen[-1][0] == seen[-1][1]


def test_the_one_hit_search_reads_windows_and_agrees_with_the_hit_list(write_zstd):
    records = [chunk(k, "Needle" if k in (3, 150, 390) else f"t{k}") for k in range(400)]
    log = load_session(write_zstd([lines_of(records[k:k + 9]) for k in range(0, 400, 9)]))
    assert [log.search("needle", s) for s in (0, 3, 149, 150, 390)] == [3, 150, 150, 390, None]
    assert [log.search("needle", s, backward=True) for s in (399, 390, 150, 3)] == [390, 150, 3, None]
    assert log.search("needle", -1) == 3


@pytest.mark.parametrize("fmt", ["jsonl", "zstd"])
def test_a_log_truncated_under_us_is_a_one_line_notice_not_a_crash(write_jsonl, write_zstd, fmt):
    """The text is read back from the file: once the file is cut short under an open log, reading
    a record past the cut raises LogChanged (a LogUnreadable with one line saying so), and a search
    too; records before the cut still read."""
    records = [chunk(k, f"text {k}") for k in range(400)]
    path = write_jsonl(records) if fmt == "jsonl" else write_zstd([lines_of(records[k:k + 9]) for k in range(0, 400, 9)])
    log = load_session(path)
    assert log.event(399).event["data"]["chunk"]["text"] == "text 399"
    log.store.__dict__.get("_cache", {}).clear()
    log.parse_record.cache_clear()
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    with pytest.raises(LogChanged) as err:
        log.event(399)
    assert isinstance(err.value, LogUnreadable) and "\n" not in err.value.message
    assert "changed since it was read" in err.value.message
    with pytest.raises(LogChanged):
        find_all(log, "text 39")
    assert log.event(0).event["data"]["chunk"]["text"] == "text 0"
