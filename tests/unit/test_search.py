"""The search hit list (model/reading/search.py): every event holding a needle, then n/N as a bisect."""

from __future__ import annotations

import threading

import pytest

from dsh_tui.model.reading.search import HitList, find_all
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import Cancelled

from ..support.logs import chunk, ev, row


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
