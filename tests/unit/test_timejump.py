"""``:`` with a time (model/reading/timejump.py): a seq, a time of day, an ISO time or +5m from the
session start, landing on the first event at or after it, with a notice outside the session."""

from __future__ import annotations

import datetime as dt

import pytest

from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.timejump import BadTarget, landing, parse_target, session_span

from ..support.logs import ev

T0 = 1790000000000  # 2026-09-21T14:13:20Z


def iso(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def test_offsets_clock_times_iso_and_seqs_parse():
    assert parse_target("42", T0).kind == "seq" and parse_target("42", T0).value == 42
    assert parse_target("+5m", T0).value == T0 + 300_000
    assert parse_target("+1h2m", T0).value == T0 + 3_720_000
    assert parse_target("+90s", T0).value == T0 + 90_000
    assert parse_target("+1.5s", T0).value == T0 + 1500
    assert parse_target("+250ms", T0).value == T0 + 250
    assert parse_target(iso(T0 + 7000), T0).value == T0 + 7000
    assert parse_target("2026-09-21T16:13:27+02:00", T0).value == T0 + 7000  # its own offset
    assert parse_target("2026-09-21 14:13:27", T0).value == T0 + 7000  # no offset: UTC
    assert parse_target("14:13:27", T0).value == T0 + 7000  # on the start's date
    assert parse_target("14:13:27.5", T0).value == T0 + 7500


def test_a_clock_time_before_the_start_is_the_next_day_of_a_session_over_midnight():
    late = T0 - T0 % 86_400_000 + 23 * 3_600_000  # 23:00 on the start's day
    assert parse_target("00:30", late, late + 3_600_000).value == late + 5_400_000
    assert parse_target("00:30", late, late + 60_000).value == late - 81_000_000  # a one-day session: that day


@pytest.mark.parametrize("text", ["", "soon", "+5x", "25:00", "12:61", "2026-13-01T00:00:00"])
def test_what_is_no_target_is_one_line(text):
    with pytest.raises(BadTarget) as err:
        parse_target(text, T0)
    assert "\n" not in str(err.value) and str(err.value)


def test_lands_on_the_first_event_at_or_after_the_time(write_jsonl):
    times = [0, 1000, 1000, 5000, None, 9000, 20000]
    records = [{**ev("user/message", k, {"text": str(k)}), "time": T0 + t} if t is not None
               else {"type": "user/message", "seq": k, "data": {}} for k, t in enumerate(times)]
    log = load_session(write_jsonl(records))
    assert session_span(log) == (T0, T0 + 20000)
    assert landing(log, parse_target("+1s", T0)) == (1, None)
    assert landing(log, parse_target("+2s", T0)) == (3, None)
    assert landing(log, parse_target("+6s", T0))[0] in (4, 5)  # the untimed one takes a neighbour's time
    assert landing(log, parse_target("+20s", T0)) == (6, None)
    i, note = landing(log, parse_target("+1h", T0))
    assert i == 6 and "after the session's last event" in note
    i, note = landing(log, parse_target(iso(T0 - 60_000), T0))
    assert i == 0 and "before the session's first event" in note


def test_a_seeded_childs_start_is_its_own_first_event(write_jsonl):
    records = [{**ev("user/message", 0, {}), "time": T0 - 3_600_000}, {**ev("session/end-seed", 1, {}), "time": T0},
               {**ev("turn/start", 2, {"turn": 1}), "time": T0 + 10}, {**ev("turn/end", 3, {"turn": 1}), "time": T0 + 70_000}]
    log = load_session(write_jsonl(records))
    assert session_span(log) == (T0 - 3_600_000, T0 + 70_000)
    assert session_span(log, 2) == (T0 + 10, T0 + 70_000)
    assert landing(log, parse_target("+1m", *session_span(log, 2))) == (3, None)
