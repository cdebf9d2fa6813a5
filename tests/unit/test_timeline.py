"""The merged timeline (model/diagnosing/timeline.py): every event of a session and its children,
interleaved by time, each session's own order kept, a child's seed left out, bounded in rows."""

from __future__ import annotations

from dsh_tui.model.diagnosing.timeline import Member, event_times, merge, session_tag
from dsh_tui.model.reading.session import load_session

from ..support.logs import HEADER, ev


def _log(write_jsonl, name, times, sid):
    records = [{**ev("user/message", k, {"text": f"{sid} {k}"}), "time": t} if t is not None
               else {"type": "user/message", "seq": k, "data": {"text": "untimed"}} for k, t in enumerate(times)]
    return load_session(write_jsonl(records, header={**HEADER, "id": sid}, name=name))


def test_interleaved_by_time_each_sessions_order_kept(write_jsonl):
    parent = _log(write_jsonl, "p.jsonl", [10, 20, None, 50, 60], "parent")
    child = _log(write_jsonl, "c.jsonl", [5, 20, 30, 55], "child-00ab")
    t = merge([Member(parent, "main", 0), Member(child, session_tag("child-00ab", 1), 1)])
    rows = [(t.session[r], t.index[r]) for r in range(len(t))]
    assert rows == [(1, 0), (0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (0, 3), (1, 3), (0, 4)]
    # ties: the session shown first; the untimed event stays after the one before it
    assert list(event_times(parent)) == [10, 20, 20, 50, 60]
    huge = _log(write_jsonl, "h.jsonl", [5, 2**63 + 7, -3, 9], "huge")
    assert list(event_times(huge)) == [5, 5, 5, 9]  # out of range: kept next to the event before
    assert t.row_of(0, 3) == 6 and t.row_of(1, 2) == 5


def test_a_childs_seed_is_left_out_and_rows_are_bounded(write_jsonl):
    parent = _log(write_jsonl, "p.jsonl", [1, 2, 3], "parent")
    child = _log(write_jsonl, "c.jsonl", [1, 2, 9, 10], "kid")
    t = merge([Member(parent, "main", 0), Member(child, "↳1 kid", 1, first=2)])
    assert [(t.session[r], t.index[r]) for r in range(len(t))] == [(0, 0), (0, 1), (0, 2), (1, 2), (1, 3)]
    cut = merge([Member(parent, "main", 0), Member(child, "↳1 kid", 1)], max_rows=3)
    assert cut.truncated and len(cut) == 3


def test_tags_name_depth_and_the_ids_end():
    assert session_tag("aaaaaaaa-0000-4000-8000-00000000000b", 1) == "↳1 000b"
    assert session_tag("x", 0) == "main"
    assert session_tag("\x1b[31m", 2) == "↳2 31m"  # letters and digits only: nothing raw reaches a row


def test_fast_times_agree_with_the_events_own(write_jsonl):
    from ..support.logs import chunk, row
    odd = {"seq": 4, "data": {"time": 1}, "time": 1500, "type": "user/message"}  # not dsh's key order
    log = load_session(write_jsonl([chunk(0, "a"), row(1, ["b", "c", "d"], [7, 5]), odd,
                                    {"type": "user/message", "seq": 5, "time": 1600, "data": {}}]))
    assert list(event_times(log)) == [log.event(i).time for i in range(len(log))]
    assert list(event_times(log, 2)) == [log.event(i).time for i in range(2, len(log))]
