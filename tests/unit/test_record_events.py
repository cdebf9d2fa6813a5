"""Records to events and back (ScanResult.first_event, record_events, spans, record_of): only the
records of more than one event (packed rows) are listed, each other record holds one. Checked against
the counts the test wrote, not against another reading of the scan."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from dsh_tui.model.reading.session import load_session

from ..support.logs import HEADER, ev, lines_of, row

# A line: 0 no record (blank), -1 no record (not JSON), 1 an event, m > 1 a packed row of m members, -m a
# packed row of m members from 1 (a row of one member is a record of one event).
records = st.lists(st.one_of(st.just(1), st.integers(2, 6), st.integers(-4, 0)), max_size=40)


def _write(tmp_path, kinds: list[int]) -> tuple[object, list[int]]:
    """The log of ``kinds`` and each record's event count, in order."""
    lines, counts, seq = [], [], 0
    for k in kinds:
        if k == 0:
            lines.append(b"")
        elif k == -1:
            lines.append(b"{not json")
        elif k < -1:
            k = -k - 1  # a row of 1 to 3 members
            lines.append(row(seq, [f"t{j}" for j in range(k)], [1] * (k - 1)))
            counts.append(k)
            seq += k
        elif k == 1:
            lines.append(ev("turn/start", seq, {"turn": 1}))
            counts.append(1)
            seq += 1
        else:
            lines.append(row(seq, [f"t{j}" for j in range(k)], [1] * (k - 1)))
            counts.append(k)
            seq += k
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([HEADER, *lines])) + b"\n")
    return path, counts


@settings(max_examples=150, deadline=None)
@given(kinds=records)
def test_each_record_and_event_maps_to_the_other_as_written(tmp_path_factory, kinds):
    path, counts = _write(tmp_path_factory.mktemp("log"), kinds)
    log = load_session(path, lenient=True)
    res = log.res
    firsts = [sum(counts[:r]) for r in range(len(counts))]
    n = sum(counts)
    assert len(res.rec_start) == len(counts) and len(log) == n
    for r, (first, count) in enumerate(zip(firsts, counts)):
        assert res.first_event(r) == first
        assert res.record_events(r) == (first, count)
        for i in range(first, first + count):
            assert res.record_of(i) == r
    assert list(res.spans(0)) == [(f, f + c) for f, c in zip(firsts, counts)]
    for r in range(len(counts)):
        assert next(res.spans(r)) == (firsts[r], firsts[r] + counts[r])
    assert res.record_of(-1) == -1
    assert res.record_of(n) == len(counts) - 1  # past the end: the last record (-1 when there is none)
    # Only the records of more than one event are listed: a log of single events lists none.
    assert list(res.row_rec) == [r for r, c in enumerate(counts) if c > 1]


# A record: "row" a packed row of 2 to 5 chunk members, else one event of that type.
typed = st.lists(st.one_of(st.sampled_from(["turn/start", "step/start", "assistant/chunk", "user/message"]),
                           st.just("row")), max_size=40)


@settings(max_examples=150, deadline=None)
@given(kinds=typed, members=st.integers(2, 5))
def test_each_event_has_its_type_as_written_though_a_byte_is_kept_a_record(tmp_path_factory, kinds, members):
    """The type column holds a byte a record, a packed row's for all its members: each event's type,
    every event's bytes, the counts and the events of some types are those of the events written."""
    lines, types, seq = [], [], 0
    for k in kinds:
        if k == "row":
            lines.append(row(seq, [f"t{j}" for j in range(members)], [1] * (members - 1)))
            types += ["assistant/chunk"] * members
            seq += members
        else:
            lines.append(ev(k, seq, {"turn": 1}))
            types.append(k)
            seq += 1
    path = tmp_path_factory.mktemp("log") / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([HEADER, *lines])) + b"\n")
    log = load_session(path, lenient=True)
    res = log.res
    ids = {name: k for k, name in enumerate(res.types)}
    assert len(log) == res.event_end() == len(types) and len(res.rec_type) == len(kinds)
    assert [log.type_of(i) for i in range(len(types))] == types
    assert res.event_types() == bytes(ids[t] for t in types)
    counts = res.type_counts()
    assert [counts[ids[t]] for t in res.types] == [types.count(t) for t in res.types]
    assert sum(counts) == len(types)
    for want in ({"turn/start"}, {"assistant/chunk"}, {"step/start", "user/message"}, {"assistant/chunk", "turn/start"},
                 set(), {"no/such-type"}):
        got = res.events_of({ids[t] for t in want if t in ids})
        assert list(got) == [i for i, t in enumerate(types) if t in want]
    for i in (-1, len(types)):
        with pytest.raises(IndexError):
            res.type_id(i)
    for step in (1, 2, 3, 7):
        some = range(step // 2, len(types), step)
        assert res.type_ids_of(some) == bytes(ids[types[i]] for i in some)
