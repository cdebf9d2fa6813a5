"""An impossible span (times more than a year apart: a clock in seconds beside one in ms, a crafted field)
reads "no clock" in the timing view and in `check`'s text, never "278275000h"."""

from __future__ import annotations

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.timing import Timing, TurnTiming
from dsh_tui.model.presenting.timing_text import ms
from dsh_tui.model.presenting.timing_view import MAX_SPAN_MS, NO_CLOCK, duration, session_length, waterfall_lines

from ..support.logs import lines_of
from ..support.session_roots import T0, header, turn_batches

BOGUS = 1_001_800_000_000_000  # ~31,700 years in ms


def test_a_span_past_a_year_reads_no_clock():
    assert duration(BOGUS) == NO_CLOCK and ms(BOGUS) == NO_CLOCK and duration(MAX_SPAN_MS + 1) == NO_CLOCK
    assert duration(30 * 24 * 3_600_000) == "720h"  # a month-long session is a duration still
    assert ms(MAX_SPAN_MS) != NO_CLOCK


def test_the_waterfall_and_the_session_length_of_an_impossible_turn_say_no_clock():
    turn = TurnTiming(turn=1, index=0, seq=0, start=T0, end=T0 + BOGUS, reason="completed", open=False,
                      split={"model_ms": 7, "idle_ms": BOGUS - 7})
    timing = Timing(turns=[turn])
    text = "".join(t for t, _ in waterfall_lines(timing, turn, 80)[0])
    assert "no clock: its times are more than a year apart" in text and "h wall" not in text
    timing.__dict__["_span"] = (T0, T0 + BOGUS)
    assert session_length(timing) == NO_CLOCK


def test_check_text_says_no_clock_for_an_impossible_turn(tmp_path, capsys):
    events = [e for batch in turn_batches("completed") for e in batch]
    events[-1]["time"] += BOGUS  # the turn/end
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of([header("w", T0), *events])) + b"\n")
    assert main(["check", str(path), "--no-cache"]) == 0
    out = capsys.readouterr().out
    slowest = out.split("== Slowest ==")[1].split("==")[0]
    assert "turns no clock: its times are more than a year apart" in slowest
    assert "1,001,800,000" not in out and "h:" not in slowest
