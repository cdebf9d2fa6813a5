"""The scan's cheap checks of the common shape decide exactly as the full checks they stand in for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from dsh_tui.model.reading.tokens import tokens
from dsh_tui.model.reading import restore
from dsh_tui.model.reading.facts import _tokens
from dsh_tui.model.reading.legacy import upgrade
from dsh_tui.model.reading.scan import _COMPLETED, _END, _LEGACY_KIND, _MSG, _START, _USER, Scanner
from dsh_tui.model.reading.vocabulary import MAX_SAFE, PACKED_ROWS

# Values near the edges the rules draw: bools and floats that equal ints, the safe-integer bounds.
EDGY = st.sampled_from([0, 1, 2, 3, -1, True, False, 1.0, 2.5, None, "1", MAX_SAFE, MAX_SAFE + 1, -MAX_SAFE - 1,
                        [], {}])
NUM = st.one_of(st.integers(-3, 200), EDGY)


@st.composite
def envelopes(draw) -> dict:
    obj = {"type": draw(st.sampled_from(["assistant/message", "user/message", "tool/result", "step/start",
                                         "request/header-delta", 7]))}
    seq = draw(st.one_of(st.integers(0, 300), EDGY))
    for key, value in (("seq", seq), ("time", draw(st.one_of(st.integers(-5, 10**6), EDGY))),
                       ("data", {}), ("surfaceOp", draw(st.sampled_from(["append", "replace", {"op": "replace"}])))):
        if draw(st.integers(0, 9)):  # mostly present
            obj[key] = value
    if draw(st.booleans()):
        first = draw(st.integers(-2, 250))
        sources = list(range(first, first + draw(st.integers(0, 80))))
        if sources and draw(st.booleans()):  # a value off the run, a duplicate, or an int-equal non-int
            sources[draw(st.integers(0, len(sources) - 1))] = draw(NUM)
        elif len(sources) > 2 and draw(st.booleans()):  # a repeat and a skip, or two swapped: the ends unchanged
            k = draw(st.integers(1, len(sources) - 2))
            if draw(st.booleans()):
                sources[k] = sources[k - 1]
            else:
                sources[k], sources[k + 1] = sources[k + 1], sources[k]
        obj["sourceEventSeqs"] = sources if draw(st.integers(0, 5)) else draw(EDGY)
    if not draw(st.integers(0, 7)):
        obj[draw(st.sampled_from(["ignorable", "extra"]))] = draw(EDGY)
    return obj


@settings(max_examples=3000, deadline=None)
@given(envelopes())
def test_envelope_shortcut_agrees_with_the_rules(obj):
    assert restore.envelope_problem(obj) == restore.envelope_rules(obj)


@pytest.mark.parametrize("sources", [[5, 6, 7], [5, 5, 7], [5, 7, 6, 8], [5, 6.0, 7], [5, "6", 7], [5, None, 7],
                                     [2, True, 4], [0, 1, 2], [0, True, 2], [1, 2, 3], list(range(5, 15)),
                                     [5, 6, 7.5], [5, [6], 7], [5, 6, 7, 7]])
def test_envelope_shortcut_on_runs_with_a_flaw(sources):
    obj = {"type": "assistant/message", "seq": 20, "time": 1, "data": {}, "surfaceOp": "append",
           "sourceEventSeqs": sources}
    assert restore.envelope_problem(obj) == restore.envelope_rules(obj)


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.dictionaries(st.sampled_from(["inputTokens", "outputTokens", "cacheReadTokens",
                                                  "cacheWriteTokens", "reasoningTokens", "other"]),
                                 st.one_of(st.integers(-5, 10**9), EDGY, st.floats(allow_nan=True))), EDGY))
def test_usage_shortcut_agrees_with_tokens(usage):
    assert _tokens(usage) == tokens(usage)


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(sorted(PACKED_ROWS)), st.lists(st.one_of(st.text(max_size=3), EDGY), max_size=6),
       st.one_of(st.lists(st.one_of(st.integers(-3, 9), EDGY), max_size=6), EDGY))
def test_row_check_gives_the_largest_dt_it_proved(tag, members, dt):
    row = PACKED_ROWS[tag]
    obj = {"type": tag, "seq0": 1, "time0": 5, "data": {row[1]: members, "dt": dt}}
    fast, full = Scanner(0, None), Scanner(0, None)
    fast._lines = full._lines = [b"{}"]  # the window a malformed row's report points into
    m, top = fast._row_members(obj, row, 0, 0)
    assert m == full._row_checked(obj, row, 0, 0)
    assert fast.res.malformed_rows == full.res.malformed_rows
    if top is not None:
        assert top == max(dt) and list(map(type, dt)).count(int) == len(dt)


REASONS = st.sampled_from([{"kind": "completed"}, {"kind": "completed", "x": 1}, {"kind": "aborted"},
                           {"kind": "disposed"}, {"kind": "error", "step": 1}, {"kind": 1}, {}, "completed"])


@settings(max_examples=3000, deadline=None)
@given(st.sampled_from(sorted(_LEGACY_KIND)),
       st.dictionaries(st.sampled_from(["message", "trigger", "id", "role", "content", "callId", "turn", "reason"]),
                       st.one_of(EDGY, REASONS)))
def test_current_shape_needs_neither_legacy_check_nor_upgrade(etype, data):
    if _current(_LEGACY_KIND[etype], data):
        assert restore.legacy_problem(etype, data) is None
        assert upgrade(etype, data, 3, "s") == (etype, data, None)


def _current(kind: int, data: dict) -> bool:
    """The scan's proof that a legacy candidate is of the current shape (inlined there)."""
    return (kind == _MSG and "message" in data or kind == _START and "trigger" not in data
            or kind == _USER and "id" in data and "role" in data
            or kind == _END and len(data) == 2 and data.get("reason") == _COMPLETED
            and type(turn := data.get("turn")) is int and 1 <= turn <= MAX_SAFE)


@pytest.mark.parametrize("turn", [1, 2, MAX_SAFE, 0, -1, True, 1.0, MAX_SAFE + 1, None, "1"])
@pytest.mark.parametrize("reason", [{"kind": "completed"}, {"kind": "completed", "x": 1}, {"kind": "aborted"},
                                    {"kind": "disposed"}, {}])
@pytest.mark.parametrize("extra", [False, True])
def test_a_turn_s_usual_end_needs_neither_legacy_check_nor_upgrade(turn, reason, extra):
    data = {"turn": turn, "reason": reason, **({"x": 1} if extra else {})}
    usual = type(turn) is int and turn >= 1 and turn <= MAX_SAFE and reason == {"kind": "completed"} and not extra
    assert _current(_END, data) is usual
    if usual:
        assert restore.legacy_problem("turn/end", data) is None
        assert upgrade("turn/end", data, 3, "s") == ("turn/end", data, None)


@pytest.mark.parametrize("turn", [1, 0, True, 1.0, MAX_SAFE + 1])
@pytest.mark.parametrize("reason", [{"kind": "completed"}, {"kind": "completed", "x": 1}, {"kind": "aborted"}, {}])
@pytest.mark.parametrize("extra", [False, True])
def test_the_scan_refuses_and_upgrades_a_turn_end_as_the_rules_do(tmp_path, turn, reason, extra):
    """The scan's own inline proof, through a log: a turn/end it passes over is one the rules accept
    unchanged, and one they refuse or upgrade is refused or counted as upgraded."""
    import orjson
    from dsh_tui.model.reading.session import load_session
    from ..support.logs import HEADER, ev, lines_of
    data = {"turn": turn, "reason": reason, **({"x": 1} if extra else {})}
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([HEADER, ev("turn/start", 0, {"turn": 1}), ev("turn/end", 1, data)])) + b"\n")
    log = load_session(path, lenient=True)
    problem = restore.legacy_problem("turn/end", orjson.loads(orjson.dumps(data)))
    _type, _data, tag = upgrade("turn/end", data, 1, "sess-1")
    refused = log.rejection is not None and log.rejection.code == "MALFORMED_LEGACY"
    assert refused is (problem is not None)
    assert bool(log.res.legacy.get("turn/end.reason")) is (tag is not None)
