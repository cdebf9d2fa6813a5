"""Regex search with smart case (model/reading/query.py, search.py): the pattern on the raw records,
case-insensitive unless it holds an uppercase letter, bad patterns refused in one line, and a
catastrophic pattern stopped by its time bound instead of hanging."""

from __future__ import annotations

import pytest

from dsh_tui.model.presenting.hits import match_spans
from dsh_tui.model.reading.query import BadPattern, PatternTooSlow, make_query, smart_case_sensitive
from dsh_tui.model.reading.search import find_all
from dsh_tui.model.reading.session import load_session

from ..support.logs import chunk, ev, row


def test_smart_case_counts_the_patterns_own_uppercase_letters_only():
    assert not smart_case_sensitive(r"tool/\w+ \S+\D")  # escapes are not letters
    assert smart_case_sensitive(r"Bash")
    assert smart_case_sensitive(r"\sX")
    assert not make_query("bash.*fail", True).case
    assert make_query("Bash.*fail", True).case


def test_a_literal_needle_stays_literal_and_case_insensitive(write_jsonl):
    log = load_session(write_jsonl([ev("user/message", 0, {"text": "a.c"}), ev("user/message", 1, {"text": "abc"}),
                                    ev("user/message", 2, {"text": "A.C"})]))
    assert list(find_all(log, "a.c").indices) == [0, 2]
    assert list(find_all(log, make_query("a.c", True)).indices) == [0, 1, 2]
    assert list(find_all(log, make_query("A.C", True)).indices) == [2]  # an uppercase letter: case counts


def test_regex_hits_one_per_event_across_windows_and_packed_members(write_jsonl):
    records = [chunk(k, f"filler {'x' * 50} err-{k:03d}") for k in range(120)]
    log = load_session(write_jsonl(records))
    q = make_query(r"err-0[0-4]\d", True)
    for window in (7, 64, 1000, 1 << 20):  # windows end with a record: no match is cut or counted twice
        assert list(find_all(log, q, window=window).indices) == list(range(50)), window
    packed = load_session(write_jsonl([chunk(0, "a"), row(1, ["b", "code 42", "d", "CODE 7"], [1, 1, 1])]))
    assert list(find_all(packed, make_query(r"code \d+", True)).indices) == [2, 4]
    assert list(find_all(packed, make_query(r"CODE \d+", True)).indices) == [4]


def test_an_invalid_pattern_is_one_line():
    with pytest.raises(BadPattern) as err:
        make_query("bash(", True)
    text = str(err.value)
    assert text.startswith("not a valid regex") and "\n" not in text
    make_query("bash(", False)  # a literal needle never fails


def test_a_catastrophic_pattern_stops_instead_of_hanging(write_jsonl):
    log = load_session(write_jsonl([ev("user/message", 0, {"text": "a" * 40 + "!"})]))
    with pytest.raises(PatternTooSlow):
        find_all(log, make_query("(a|aa)+$", True))
    slow = make_query("(a|aa)+$", True).shown
    assert match_spans("a" * 40 + "!", slow) == []  # the row: no style, no hang
    assert match_spans("aa", slow) == []  # and no row after it pays the timeout again


def test_highlight_spans_follow_the_mode():
    assert match_spans("Bash bash", make_query("bash").shown) == [(0, 4), (5, 9)]
    assert match_spans("Bash bash", make_query("Ba.h", True).shown) == [(0, 4)]
    assert match_spans("Bash bash", make_query("ba.h", True).shown) == [(0, 4), (5, 9)]


def test_anchors_hold_at_each_records_ends(write_jsonl):
    log = load_session(write_jsonl([ev("user/message", 0, {"text": "x"}), ev("tool/call", 1, {"callId": "c"})]))
    assert list(find_all(log, make_query(r'^\{"type":"tool/', True)).indices) == [1]
    assert list(find_all(log, make_query(r'"c"\}\}$', True)).indices) == [1]


def test_counted_repeats_that_would_explode_when_compiled_are_refused():
    with pytest.raises(BadPattern, match="counted repeats"):
        make_query("(?:a{1000}){1000}", True)  # seconds and hundreds of MB to compile
    with pytest.raises(BadPattern):
        make_query("x{99999999999999}", True)
    assert make_query(r"(?:a{100}){100}|\{5\}", True).regex  # 10,000, and escaped braces are text
