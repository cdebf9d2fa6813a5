"""The timing view's text (model/presenting/timing_view.py): durations as people read them, "no clock"
where a clock is missing (never 0), columns that fit 80 columns, a waterfall scaled to its width with its
axis, and the sparkline."""

from __future__ import annotations

import random
from functools import cmp_to_key

import pytest

from dsh_tui.model.diagnosing.timerows import Row, sort_rows
from dsh_tui.model.diagnosing.timing import Lane, Span, Timing, ToolTiming, TurnTiming
from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.diagnosing.timerows import call_row, command_row, tool_row
from dsh_tui.model.presenting.timing_rows import SORTABLE, SortOrders
from dsh_tui.model.presenting import timing_rows
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.presenting.timing_view import (COLUMNS, NO_CLOCK, WIDE, axis, bar, duration,
                                                  fit_columns, header_cells, row_cells, sparkline, stranded_calls,
                                                  waterfall_lines)


@pytest.mark.parametrize("ms, text", [(None, "no clock"), (0, "0 ms"), (843, "843 ms"), (1250, "1.25 s"),
                                      (12_340, "12.3 s"), (245_000, "4m05s")])
def test_durations(ms, text):
    assert duration(ms) == text


def _row(kind="model", **kw):
    base = dict(kind=kind, turn=1, step=2, name="model" if kind == "model" else "bash",
                call_id=None if kind == "model" else "call_1", index=7, seq=7, duration_ms=None)
    return Row(**{**base, **kw})


@pytest.mark.parametrize("width", [78, 80, 120, 158])
def test_a_row_and_the_titles_fit_the_width(width):
    cols = fit_columns(width)
    assert sum(w for _c, w in cols) + len(cols) - 1 == width
    for row in (_row(duration_ms=704, ttft_ms=11, decode_ms=692, tokens_per_s=17.3), _row("tool", wait_ms=306),
                _row("command", turn=None, step=None, name="x" * 300)):
        assert len("".join(t for t, _ in row_cells(row, width))) == width
    assert len("".join(t for t, _ in header_cells(width, "duration_ms", True))) == width


def test_a_missing_clock_reads_no_clock_and_what_does_not_apply_is_blank():
    model = "".join(t for t, _ in row_cells(_row(), 80))
    assert model.count(NO_CLOCK) == 3  # total, TTFT, decode: never 0
    tool = [t.strip() for t, _ in row_cells(_row("tool"), 80)]
    assert tool.count(NO_CLOCK) == 1 and tool[4:7] == ["", "", ""]  # TTFT, decode, tok/s: not a tool's
    assert " 0 ms" not in model


@pytest.mark.parametrize("width", [80, 158])
def test_a_tool_call_without_a_result_reads_no_result_and_one_without_a_time_no_clock(width):
    stranded = ToolTiming("call_1", "bash", 1, 1, index=20, seq=20, start=1000)  # no tool/result in the log
    untimed = ToolTiming("call_2", "read", 1, 2, index=30, seq=30, end_index=31)  # its result, but no clock
    timing = Timing(tools=[stranded, untimed])
    rows = {r.index: r for r in SortOrders.of(timing).rows}
    cells = lambda index: [t.strip() for t, _ in row_cells(rows[index], width, stranded_calls(timing))]  # noqa: E731
    assert cells(20)[3] == "no result" and NO_CLOCK not in cells(20)  # the total, whole
    assert cells(30)[3] == NO_CLOCK and "no result" not in cells(30)
    assert [t.strip() for t, _ in row_cells(rows[20], width)][3] == NO_CLOCK  # without its timing's calls


def test_the_sorted_column_is_marked():
    titles = "".join(t for t, _ in header_cells(80, "seq", False))
    assert "seq▲" in titles and "▼" not in titles


def _timing():
    turn = TurnTiming(turn=3, index=10, seq=10, start=1000, end=2000, reason="completed", open=False, calls=[0],
                      tools=[0], split={"model_ms": 600, "tool_ms": 400})
    timing = Timing(turns=[turn])
    timing.lanes = lambda t: [Lane("model", [Span("ttft", 0, 250, "step 1", 11), Span("decode", 250, 600, "step 1", 11)]),
                              Lane("retry", []), Lane("tool", [Span("tool", 600, 1000, "bash", 20)]),
                              Lane("approval", [])]
    return timing, turn


@pytest.mark.parametrize("width", [78, 158])
def test_the_waterfall_fits_and_scales_to_the_width(width):
    timing, turn = _timing()
    lines = waterfall_lines(timing, turn, width, selected=20)
    texts = ["".join(t for t, _ in line) for line in lines]
    assert texts[0].startswith("turn 3 · completed · 1.00 s wall · model 600 ms · tool 400 ms")
    lanes = dict((t[:9].strip(), t[10:]) for t in texts[1:6])
    assert set(lanes) == {"TTFT", "decoding", "tool", "approval", "retry"}
    assert all(len(t) <= width for t in texts)
    cells = len(lanes["tool"])
    # the tool ran the last 40% of the turn: its blocks fill the last 40% of the cells
    filled = [k for k, ch in enumerate(lanes["tool"]) if ch != " "]
    assert abs(filled[0] - 0.6 * cells) <= 1 and filled[-1] == cells - 1
    assert lanes["approval"].strip() == "" and lanes["retry"].strip() == ""
    assert texts[-1].strip().startswith("0") and texts[-1].rstrip().endswith("1.00 s")
    styles = {name for t, name in lines[3][2:] if t.strip()}  # the tool lane: the selected row's span
    assert styles == {"selected"} and {n for t, n in lines[1][2:] if t.strip()} == {"span"}


def test_a_turn_without_a_clock_says_why():
    turn = TurnTiming(turn=1, index=0, seq=0, missing=["its turn/end has no time"])
    lines = waterfall_lines(Timing(turns=[turn]), turn, 80)
    assert len(lines) == 1 and "no clock: its turn/end has no time" in "".join(t for t, _ in lines[0])
    assert "no turn" in "".join(t for t, _ in waterfall_lines(Timing(), None, 80)[0])


def test_a_short_span_still_shows_and_bars_are_eighths():
    assert "".join(t for t, _ in bar([Span("tool", 0, 1, "x", 1)], 100_000, 10)).startswith("▏")
    half = "".join(t for t, _ in bar([Span("tool", 0, 50, "x", 1)], 100, 3))
    assert half == "█▌ "
    assert "".join(t for t, _ in bar([Span("tool", 50, 100, "x", 1)], 100, 4)) == "  ██"


def test_axis_and_sparkline():
    line = axis(1820, 40)
    assert len(line) == 40 and line.startswith("0 ") and line.endswith("1.82 s") and "910 ms" in line
    assert sparkline([0, 1, 4, 100]) == " ▁▂█" and sparkline([0, 0]) == "  " and sparkline([]) == ""


def _plain_sort(rows, column, descending):
    """The order the table promises, by a comparison: by the column's value (largest first when
    descending), equal values in log order (the event index), rows without a value last as they came."""
    def cmp(a, b):
        va, vb = getattr(a, column), getattr(b, column)
        if va != vb:
            return (1 if va > vb else -1) * (-1 if descending else 1)
        return a.index - b.index
    known = [r for r in rows if getattr(r, column) is not None]
    return sorted(known, key=cmp_to_key(cmp)) + [r for r in rows if getattr(r, column) is None]


def _many_rows(n=400, seed=7):
    """Rows with many ties and missing values, in the default order (slowest first)."""
    rnd = random.Random(seed)
    pick = lambda *xs: rnd.choice(xs)  # noqa: E731
    rows = [_row(pick("model", "tool", "command"), turn=rnd.randrange(5), step=rnd.randrange(3),
                 name=pick("model", "bash", "read", "edit"), index=rnd.randrange(10**6), seq=k,
                 duration_ms=pick(None, *range(0, 5000, 250)), ttft_ms=pick(None, 10, 20, 30),
                 decode_ms=pick(None, 100, 200), tokens_per_s=pick(None, 12.5, 40.0, 40),
                 stall_ms=pick(None, 0, 31_000), wait_ms=pick(None, 300)) for k in range(n)]
    return sort_rows(rows)


@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("column", [c.key for c in COLUMNS + WIDE])
def test_the_table_is_sorted_by_any_column_either_way_from_orders_made_once(column, descending):
    rows = _many_rows()
    ahead, lazy = SortOrders.listed(rows).make_all(), SortOrders.listed(rows)
    ahead.table.columns = None  # (made ahead: no column is read from the rows again, the default's included)
    want = _plain_sort(rows, column, descending)
    assert list(ahead.rows_by(column, descending)) == want and list(lazy.rows_by(column, descending)) == want
    assert list(ahead.rows_by(column, descending)) == sort_rows(rows, column, descending)
    orders = SortOrders.listed(rows)
    assert orders.rows_by("duration_ms", True) is orders.rows and list(orders.rows) == rows  # the default order


def test_a_column_of_mixed_types_sorts_as_sort_rows_does():
    rows = sort_rows([_row(turn=t, index=k, seq=k, duration_ms=k) for k, t in enumerate([3, "2", None, 1, "x", 3])])
    for descending in (True, False):
        assert list(SortOrders.listed(rows).rows_by("turn", descending)) == sort_rows(rows, "turn", descending)
    assert list(SortOrders.listed([]).make_all().rows_by("name", False)) == []


def test_the_table_made_on_demand_orders_a_log_as_sorting_every_row_did(tmp_path):
    """The table keeps keys, not rows (a big log's rows held 70-80 MiB): each order of it, read
    row by row, is what sorting the whole list of rows gives."""
    path = tmp_path / "s__session.jsonl.zstd"
    write_synthetic(path, 20_000)
    _log, diag = open_target(path, OpenOptions(use_cache=False))
    t = diag.timing
    every = [*map(call_row, t.calls), *map(tool_row, t.tools), *map(command_row, t.commands)]
    assert len({r.kind for r in every}) >= 2 and len(every) > 100
    orders = SortOrders.of(t)
    base = sort_rows(every)  # the default order (slowest first), which the other orders start from
    assert SortOrders.of(t) is orders and list(orders.rows) == base  # made once, kept on the timing
    lazy = SortOrders(orders.rows)  # the same table, its orders made on first sort
    orders.make_all()
    for column in SORTABLE:
        for descending in (False, True):
            view = orders.rows_by(column, descending)
            assert list(view) == sort_rows(base, column, descending) == list(lazy.rows_by(column, descending))
            k = len(view) // 3
            assert view.position(view.key(k)) == k and view[k] == every[view.key(k)]
            assert view[k:k + 2] == list(view)[k:k + 2]


def test_columns_past_int64_or_turning_mixed_after_a_chunk_sort_as_sort_rows_does():
    """The orders are made from compact columns (int64, double), a list once a value does not fit:
    a time past int64, or a crafted turn that is a string rows after the first chunk."""
    rows = [_row("model" if k % 3 else "tool", turn=k % 7, step=1, index=k, seq=k, duration_ms=(k * 37) % 1000,
                 tokens_per_s=None if k % 5 else k / 3) for k in range(9_000)]
    rows[8_500] = rows[8_500]._replace(turn="x", duration_ms=2**70, tokens_per_s=7)
    rows[10] = rows[10]._replace(duration_ms=None, seq=2**64)
    rows[20] = rows[20]._replace(turn=-2**63)  # the int64 column's own None, as a crafted turn
    rows = sort_rows(rows)
    orders = SortOrders.listed(rows).make_all()
    for column in ("turn", "duration_ms", "tokens_per_s", "seq", "ttft_ms"):
        for descending in (False, True):
            assert list(orders.rows_by(column, descending)) == sort_rows(rows, column, descending), column


def test_a_big_table_has_only_its_default_order_ahead_and_each_other_made_on_its_first_sort(tmp_path, monkeypatch):
    """Every order of a big table held 14 arrays of 4 bytes a row ahead (12 MiB at 240k rows) for a
    view the user may never sort: past EAGER_ROWS the worker makes only the default, both ways."""
    path = tmp_path / "s__session.jsonl.zstd"
    write_synthetic(path, 3_000)
    _log, diag = open_target(path, OpenOptions(use_cache=False))
    every = SortOrders.ahead(diag.timing)
    assert all(every.ready(c, d) for c in SORTABLE for d in (True, False))  # a small table: every order ahead
    _log, diag = open_target(path, OpenOptions(use_cache=False))
    monkeypatch.setattr(timing_rows, "EAGER_ROWS", len(every.rows) - 1)
    big = SortOrders.ahead(diag.timing)
    assert big.ready("duration_ms", True) and big.ready("duration_ms", False)
    assert not any(big.ready(c, d) for c in SORTABLE if c != "duration_ms" for d in (True, False))
    big.make("ttft_ms")
    assert big.ready("ttft_ms", True) and big.ready("ttft_ms", False) and not big.ready("seq", True)
    big.table.columns = None  # (made: the sort reads no column again)
    for column in ("duration_ms", "ttft_ms"):
        for descending in (True, False):
            assert list(big.rows_by(column, descending)) == list(every.rows_by(column, descending))


@pytest.mark.parametrize("width", [78, 80, 120])
def test_a_long_callid_keeps_its_end_where_callids_differ(width):
    # Cut at the end, every callId read "call_0…": the part that tells them apart was gone.
    rows = [_row("tool", name="bash", call_id=f"call_0000000000{n}_{'x' * 40}_deploy_the_app_{n}{n}") for n in (1, 2)]
    names = [[t.strip() for t, _ in row_cells(r, width)][2] for r in rows]
    assert names[0] != names[1] and all(n.startswith("bash …") for n in names)
    assert names[0].endswith("app_11") and names[1].endswith("app_22")
    assert all(len("".join(t for t, _ in row_cells(r, width))) == width for r in rows)
    short = [t.strip() for t, _ in row_cells(_row("tool", name="read", call_id="call_1"), width)][2]
    assert short == "read call_1"  # what fits is shown whole
