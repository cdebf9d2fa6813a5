"""Records to events and back (ScanResult.first_event, record_events, spans, record_of): only the
records of more than one event (packed rows) are listed, each other record holds one. Checked against
the counts the test wrote, not against another reading of the scan."""

from __future__ import annotations

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
