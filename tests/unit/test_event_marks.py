"""The event list's marks (model/presenting/eventmarks.py) against the rule they keep, a dict per event."""

from __future__ import annotations

import random

import pytest

from dsh_tui.model.diagnosing.findings import Finding
from dsh_tui.model.presenting.eventmarks import EventMarks

SEVERITIES = ("failure", "warning", "info", "odd")


def _by_the_rule(findings: list, verdict: int | None) -> dict:
    """Newest first in ``findings``; at an event a failure beats a warning beats the rest, the newest a tie."""
    rank = {"failure": 2, "warning": 1}
    out: dict = {}
    for f in findings:  # newest first: a later one replaces only a strictly higher rank
        if f.index is None:
            continue
        if f.index not in out or rank.get(f.severity, 0) > rank.get(out[f.index], 0):
            out[f.index] = f.severity
    if verdict is not None:
        out[verdict] = "verdict"
    return out


@pytest.mark.parametrize("seed", range(12))
def test_each_event_gets_the_mark_the_rule_gives(seed):
    rng = random.Random(seed)
    events = rng.randint(1, 60)
    findings = [Finding("K", rng.choice([None, *range(events)]), None, "m", severity=rng.choice(SEVERITIES))
                for _ in range(rng.randint(0, 120))]
    verdict = rng.choice([None, *range(events)])
    marks = EventMarks(findings, verdict)
    want = _by_the_rule(findings, verdict)
    assert {i: marks.get(i) for i in range(-2, events + 2) if marks.get(i) is not None} == want
    assert len(marks) == len(want)


def test_a_tie_goes_to_the_newest_and_a_lower_rank_never_wins():
    newest_first = [Finding("A", 3, None, "m", severity="info"), Finding("B", 3, None, "m", severity="odd"),
                    Finding("C", 5, None, "m", severity="warning"), Finding("D", 5, None, "m", severity="failure"),
                    Finding("E", 5, None, "m", severity="warning")]
    marks = EventMarks(newest_first)
    assert marks.get(3) == "info" and marks.get(5) == "failure"
    assert marks.get(4) is None and marks.get("5") is None and marks.get(None, "none") == "none"
    assert EventMarks([], 7).get(7) == "verdict" and EventMarks([], None).get(0) is None
    big = EventMarks([Finding("K", 2**70, None, "m")])  # (an index past int64: still found)
    assert big.get(2**70) == "failure" and big.get(1) is None
