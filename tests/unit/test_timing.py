"""Timing read off the log's own clocks: a session dsh's writer wrote with known sleeps
(tests/parity/write_timing.mjs), the shared large logs, and hostile or missing times.

Each duration is checked twice: exactly against the two events' own `time`s (read here with a plain
JSON reader, packed rows expanded by hand: 1 ms resolution, no slack), and against the sleep the
writer made (at least the sleep; at most the sleep plus the scheduler's slack).
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import orjson
import pytest
import zstandard

from dsh_tui.model.diagnosing.timewalk import compute_timing
from dsh_tui.model.diagnosing.turnsplit import split_turn
from dsh_tui.model.diagnosing.timerows import sort_rows
from dsh_tui.model.diagnosing.timing import STALL_MS, Timing
from dsh_tui.model.reading.chunkclock import R_EVENTS, R_FIRST, R_GAP, R_GAP_AT, R_LAST, R_UNTIMED, ChunkClock
from dsh_tui.model.reading.facts import CHUNKS, FACT_EXTRACTORS
from dsh_tui.model.presenting.timing_rows import SortOrders
from dsh_tui.model.opening.target import OpenOptions, open_target

from ..support.logs import PARITY, shared_log
from ..support.plainform import values as plain_values
from ..support.reference import install_reference

TIMED = PARITY / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"
DELAYS = {"ttft": 300, "stall": 400, "looseStall": 250, "approval": 300, "tool": 500, "retry": 250, "command": 200}
SLACK = 150  # a sleep's scheduling slack (a loaded test machine), on top of the sleep itself


def events(path: Path) -> list[dict]:
    """Every logical event with its seq and time, packed rows expanded (format section 5)."""
    with open(path, "rb") as fh:
        text = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True).read()
    out = []
    for line in text.splitlines()[1:]:
        obj = orjson.loads(line)
        if "seq0" in obj:
            t = obj["time0"]
            members = obj["data"].get("texts", obj["data"].get("args"))
            for k in range(len(members)):
                t += obj["data"]["dt"][k - 1] if k else 0
                out.append({"type": "assistant/chunk", "seq": obj["seq0"] + k, "time": t, "data": obj["data"]})
        else:
            out.append(obj)
    return out


def scan_keeps_times() -> bool:
    """Whether the scan hands facts.py the events' times (the chunk clock and the extractors' time)."""
    log, _diag = open_target(TIMED, OpenOptions(use_cache=False))
    return any(f[0] == CHUNKS for f in log.res.facts)


needs_times = pytest.mark.skipif(not scan_keeps_times(), reason="the scan does not pass the events' times to "
                                 "facts.py yet (scan.py: chunkclock.ChunkClock.tick/row and the extractors' "
                                 "time argument)")


@pytest.fixture(scope="module")
def timed():
    log, diag = open_target(TIMED, OpenOptions(use_cache=False))
    return log, diag.timing, events(TIMED)


def _by(evs, etype, **match):
    return [e for e in evs if e["type"] == etype and all(e["data"].get(k) == v for k, v in match.items())]


def _within(measured, delay):
    assert delay <= measured <= delay + SLACK, (measured, delay)


@needs_times
def test_known_sleeps_read_back_from_dsh_written_log(timed):
    log, timing, evs = timed
    assert timing.missing == []
    step1, step2, step3 = timing.calls
    assert [(c.turn, c.step) for c in timing.calls] == [(1, 1), (1, 2), (1, 3)]
    # time to first token: the request/header to the first chunk event, exactly the log's times
    header1 = _by(evs, "request/header")[0]
    first1 = next(e for e in evs if e["type"] == "assistant/chunk" and e["data"]["step"] == 1)
    assert step1.start_from == "request/header" and step1.ttft_ms == first1["time"] - header1["time"]
    _within(step1.ttft_ms, DELAYS["ttft"])
    # a stall inside a packed row (its dt) and one between loose chunk events: the longest wins
    chunks2 = [e for e in evs if e["type"] == "assistant/chunk" and e["data"]["step"] == 2]
    gaps = [(b["time"] - a["time"], b["seq"]) for a, b in zip(chunks2, chunks2[1:])]
    assert step2.stall_ms == max(gaps)[0] and log.seq_of(step2.stall_index) == max(gaps)[1]
    _within(step2.stall_ms, DELAYS["stall"])
    assert sorted(g for g, _ in gaps)[-2] >= DELAYS["looseStall"]  # the loose stall is the runner-up
    assert step2.decode_ms == chunks2[-1]["time"] - chunks2[0]["time"]
    assert step2.output_tokens == 12 and step2.tokens_per_s == round(12 * 1000 / step2.decode_ms, 1)
    # the retry wait: llm/retry to llm/retry-started; TTFT counts from the new attempt
    retry, started = _by(evs, "llm/retry")[0], _by(evs, "llm/retry-started")[0]
    assert step3.retry_wait_ms == started["time"] - retry["time"]
    _within(step3.retry_wait_ms, DELAYS["retry"])
    first3 = next(e for e in evs if e["type"] == "assistant/chunk" and e["data"]["step"] == 3)
    assert step3.ttft_ms == first3["time"] - started["time"] < SLACK
    # the tool (approval wait inside it) and the command
    (tool,) = timing.tools
    call, result = _by(evs, "tool/call")[0], _by(evs, "tool/result")[0]
    assert tool.duration_ms == result["time"] - call["time"] and tool.status == "ok"
    _within(tool.duration_ms, DELAYS["tool"])
    asked, decided = _by(evs, "approval/asked")[0], _by(evs, "approval/decided")[0]
    assert tool.approval_ms == decided["time"] - asked["time"]
    _within(tool.approval_ms, DELAYS["approval"])
    (command,) = timing.commands
    _within(command.duration_ms, DELAYS["command"])


@needs_times
def test_turn_split_adds_up_and_lanes_fit_the_turn(timed):
    _log, timing, evs = timed
    (turn,) = timing.turns
    start, end = _by(evs, "turn/start")[0]["time"], _by(evs, "turn/end")[0]["time"]
    assert turn.wall_ms == end - start and turn.reason == "completed" and not turn.open
    assert sum(turn.split.values()) == turn.wall_ms
    assert turn.split["approval_ms"] == timing.tools[0].approval_ms
    assert turn.split["tool_ms"] == timing.tools[0].duration_ms - timing.tools[0].approval_ms
    assert turn.split["retry_ms"] == timing.calls[2].retry_wait_ms
    lanes = {lane.name: lane.spans for lane in timing.lanes(turn)}
    assert [s.kind for s in lanes["model"]] == ["ttft", "decode"] * 3
    assert all(0 <= s.start_ms <= s.end_ms <= turn.wall_ms for spans in lanes.values() for s in spans)
    assert lanes["tool"][0].index == timing.tools[0].index and lanes["approval"][0].label == "allowed-once"
    assert timing.turn_at(timing.tools[0].index) == turn  # (made anew as it is read)


@needs_times
def test_table_rows_sort_by_any_column(timed):
    _log, timing, _evs = timed
    rows = list(SortOrders.of(timing).rows)
    durations = [r.duration_ms for r in rows]
    assert durations == sorted(durations, reverse=True) and len(rows) == 5  # slowest first
    assert rows[0].kind == "model" and rows[0].step == 2  # the stalled call
    by_ttft = sort_rows(rows, "ttft_ms")
    assert [r.ttft_ms for r in by_ttft[:3]] == sorted((c.ttft_ms for c in timing.calls), reverse=True)
    assert all(r.ttft_ms is None for r in by_ttft[3:])  # rows without a value come last either way
    assert sort_rows(rows, "ttft_ms", descending=False)[0].ttft_ms == min(c.ttft_ms for c in timing.calls)
    assert [r.name for r in sort_rows(rows, "name", descending=False)][:2] == ["bash", "model"]


@needs_times
def test_activity_and_cursor_position(timed):
    log, timing, _evs = timed
    hist = timing.activity(20)
    assert len(hist) == 20 and sum(hist) > 0
    span = timing.span
    assert span[1] - span[0] >= sum(DELAYS.values()) - DELAYS["approval"]  # the approval is inside the tool
    assert timing.position(0, 20) == 0 and timing.position(len(log) - 1, 20) == 19
    assert timing.activity(0) == []


@needs_times
def test_anomalies_by_kind(timed):
    _log, timing, _evs = timed
    assert timing.anomalies("retry") == [timing.calls[2].retries[0][0]]
    assert timing.anomalies("stall") == [] and timing.anomalies("stall", stall_ms=300) == [timing.calls[1].stall_index]
    assert timing.anomaly_counts(300) == {"error": 0, "retry": 1, "turn-end": 0, "unpaired": 0, "approval": 0,
                                          "compaction": 0, "stall": 1}


@needs_times
def test_check_outputs_carry_the_timing(timed, capsys):
    from dsh_tui.cli import main
    main(["check", str(TIMED), "--format", "json", "--no-cache"])
    out = json.loads(capsys.readouterr().out)["timing"]
    assert out["turns"][0]["wall_ms"] == sum(out["turns"][0][k] for k in
                                             ("model_ms", "retry_ms", "tool_ms", "approval_ms", "idle_ms"))
    assert [r["duration_ms"] for r in out["slowest"]] == sorted((r["duration_ms"] for r in out["slowest"]), reverse=True)
    slow = next(r for r in out["slowest"] if r["kind"] == "tool")
    assert slow["approval_wait_ms"] >= DELAYS["approval"] and slow["callId"] == "call_timed_ls" and slow["name"] == "bash"
    assert slow["seq"] == 35 and slow["duration_ms"] >= DELAYS["tool"]
    assert out["stalls"][0]["seq"] == timed[0].seq_of(timed[1].calls[1].stall_index)
    assert out["slowest_commands"][0]["callId"] == "cmd-timed-1" and out["missing"] == []
    main(["check", str(TIMED), "--no-cache"])
    text = capsys.readouterr().out
    section = text.split("== Slowest ==\n")[1].split("==")[0]
    assert "tool bash call_timed_ls" in section and "longest stalls:" in section and len(section.splitlines()) <= 10


def test_a_projected_fixture_says_its_times_are_missing(capsys):
    from dsh_tui.cli import main
    path = shared_log("fixtures/acp__escalation-approved__session.jsonl")
    _log, diag = open_target(path, OpenOptions(use_cache=False))
    timing = diag.timing
    assert "a projected fixture: its events carry no times" in timing.missing
    assert all(c.duration_ms is None and c.ttft_ms is None for c in timing.calls) and timing.calls
    assert timing.activity(10) == [0] * 10 and timing.span is None and timing.time_at(5) is None
    assert timing.lanes(timing.turns[0])[0].spans == []
    main(["check", str(path), "--no-cache"])
    assert "no timing: a projected fixture" in capsys.readouterr().out


def test_plain_form_round_trips():
    """What the index cache keeps (plain tuples) builds the same timing back."""
    facts = _facts([("turn/start", (1,)), ("step/start", (1, 1)), ("request/header", (None,)),
                    ("assistant/message", (1, 1, (), False)), ("turn/end", (1, {"kind": "error"}))], step=50)
    timing = compute_timing(facts, {})
    back = Timing.from_plain(timing.plain())
    assert plain_values(back.plain()) == plain_values(timing.plain()) and back.turns[0].split == timing.turns[0].split
    assert back.anomalies("turn-end") == [4]
    assert Timing.from_plain(()).missing == ["no timing in this diagnosis"]


def _facts(rows, step=10, t0=1_790_000_000_000):
    """Facts as the scan keeps them, each row (type, data without its time) ``step`` ms after the last."""
    return [(t, k, k, (*d, t0 + k * step)) for k, (t, d) in enumerate(rows)]


# -- the chunk clock (chunkclock.py): runs, rows, hostile values ------------------------------------------

def _run(*feed):
    """Feed the clock ("tick", time) / ("row", time0, dt) items on consecutive indexes; the facts."""
    clock, out, index = ChunkClock(), [], 0
    for item in feed:
        if item[0] == "tick":
            clock.tick(out.append, item[1], {"data": {"turn": 1, "step": 1}}, index, index)
            index += 1
        elif item[0] == "skip":
            index += 1
        else:
            members = len(item[2]) + 1 if isinstance(item[2], list) else 3
            row = {"type": "text-chunks", "seq0": index, "time0": item[1],
                   "data": {"turn": 1, "step": 1, "index": 0, "dt": item[2], "texts": ["x"] * members}}
            clock.row(out.append, row, index, index, members)
            index += members
    return out


def test_chunk_clock_joins_loose_events_and_rows_into_runs():
    (fact,) = _run(("tick", 100), ("tick", 103), ("row", 110, [1, 50, 2]), ("tick", 170), ("tick", 171))
    run = fact[3]
    assert (run[R_EVENTS], run[R_FIRST], run[R_LAST]) == (8, 100, 171)
    assert (run[R_GAP], run[R_GAP_AT]) == (50, 4)  # inside the row: member 2 of the row, event 4 of the run
    two = _run(("tick", 100), ("skip",), ("tick", 500))  # a non-chunk event between: two runs
    assert [f[3][R_GAP] for f in two] == [0, 0] and [f[1] for f in two] == [0, 2]


def test_chunk_clock_survives_hostile_times():
    facts = _run(("tick", "soon"), ("tick", float("nan")), ("tick", 10**30), ("tick", None), ("tick", 5),
                 ("tick", 3), ("tick", 9), ("row", "x", [1, 2]), ("row", 20, ["a", 1]), ("row", 20, [1.5, 1]),
                 ("row", 30, [-4, 9]), ("row", 2**60, [True, 1]))
    (fact,) = facts
    run = fact[3]
    # a str, a float and None (ticks); rows with a bad time0, a str dt, a float dt, a bool dt: no times
    assert run[R_UNTIMED] == 3 + 3 + 3 + 3 + 3 and run[R_FIRST] == 10**30  # the walk drops it: past the safe range
    timing = compute_timing([("step/start", 0, 0, (1, 1, 1)), (CHUNKS, 1, 1, run),
                             ("assistant/message", 20, 20,
                              FACT_EXTRACTORS["assistant/message"]({"turn": 1, "step": 1}, None, "late"))], {})
    (call,) = timing.calls
    assert call.first_output is None and call.untimed == run[R_EVENTS] and call.duration_ms is None
    assert any("without a usable time" in m for m in call.missing)


def test_hostile_fact_times_and_a_backwards_clock():
    def fact(t, k, data, time):
        return (t, k, k, FACT_EXTRACTORS[t](data, None, time))
    call = {"turn": 1, "step": 1, "name": "bash", "arguments": ""}
    facts = [fact("turn/start", 0, {"turn": 1}, 5000), fact("step/start", 1, {"turn": 1, "step": 1}, "x"),
             fact("tool/call", 2, {**call, "callId": "c1"}, 9000),
             fact("tool/result", 3, {"turn": 1, "step": 1, "message": {"source": {"callId": "c1"}}}, 8000),
             fact("tool/call", 4, {**call, "callId": "c2"}, 2**53), fact("turn/end", 5, {"turn": 1, "reason": {}}, 4000)]
    timing = compute_timing(facts, {})
    c1, c2 = timing.tools
    assert c1.duration_ms is None and "the clock ran backwards" in c1.missing[0]
    assert c2.start is None and c2.duration_ms is None
    (turn,) = timing.turns
    assert turn.wall_ms is None and turn.split == {} and "ran backwards" in turn.missing[0]


def test_extractors_keep_a_usable_time_only():
    for t in ("tool/call", "turn/start", "assistant/message", "request/header"):
        extract = FACT_EXTRACTORS[t]
        assert extract({"turn": 1, "step": 1}, None, 17)[-1] == 17
        for bad in ("17", 1.5, True, 2**53, None, float("nan")):
            assert extract({"turn": 1, "step": 1}, None, bad)[-1] is None
        assert extract({"turn": 1, "step": 1}, None)[-1] is None  # called without a time
    assert FACT_EXTRACTORS["llm/retry"]({"@time": 99}, None, 5)["@time"] == 5  # the envelope's time wins


def test_split_counts_each_moment_once():
    """Overlapping calls: approval over tool over retry over model, the rest idle."""
    rows = [("turn/start", (1,)), ("step/start", (1, 1)), ("llm/retry", {"turn": 1, "step": 1, "delayMs": 10}),
            ("llm/retry-started", {"turn": 1, "step": 1}), ("assistant/message", (1, 1, (), False)),
            ("tool/call", (1, 1, "a", "bash", "")), ("approval/asked", {"id": "p", "callId": "a"}),
            ("tool/call", (1, 1, "b", "bash", "")), ("approval/decided", {"id": "p", "outcome": "rejected"}),
            ("tool/result", (1, 1, "a", True, None, "", False)), ("tool/result", (1, 1, "b", False, None, "", False)),
            ("turn/end", (1, {"kind": "completed"}))]
    facts = []
    for k, (t, d) in enumerate(rows):
        time = 1000 + 10 * k
        facts.append((t, k, k, {**d, "@time": time} if isinstance(d, dict) else (*d, time)))
    timing = compute_timing(facts, {})
    (turn,) = timing.turns
    assert turn.split == {"approval_ms": 20, "tool_ms": 30, "retry_ms": 10, "model_ms": 20, "idle_ms": 30}
    assert split_turn(timing, turn) == turn.split and sum(turn.split.values()) == turn.wall_ms == 110
    assert timing.anomalies("approval") == [8] and timing.anomalies("error") == [9]
    assert timing.tools[0].approval_ms == 20


@needs_times
@pytest.mark.parametrize("rel", ["large/medium-4550-events__session.jsonl.zstd", "written/live-zstd__session.jsonl.zstd",
                                 "written/crash-open-turn__session.jsonl.zstd"])
def test_shared_logs_agree_with_their_own_times(rel):
    """Every tool call's and turn's duration is its two events' time difference; every split adds up."""
    path = shared_log(rel)
    log, diag = open_target(path, OpenOptions(use_cache=False))
    timing, evs = diag.timing, events(path)
    time_of = {e["seq"]: e["time"] for e in evs}
    for tool in timing.tools:
        if tool.end_index is not None:
            assert tool.duration_ms == time_of[log.seq_of(tool.end_index)] - time_of[tool.seq]
    for turn in timing.turns:
        if turn.split:
            assert sum(turn.split.values()) == turn.wall_ms
    assert all(c.first_output is not None for c in timing.calls if c.chunks)
    if "crash" in rel:
        assert timing.turns[-1].open and "no turn/end" in timing.turns[-1].missing[0]
        assert timing.anomalies("unpaired")


@needs_times
def test_the_936k_log_split_read_and_linear_read_agree():
    from dsh_tui.model.reading.session import load_session
    from dsh_tui.model.diagnosing.diagnosis import diagnose
    path = shared_log("large/big-936k-events__session.jsonl.zstd")
    a = diagnose(load_session(path, parallel=True)).timing
    b = diagnose(load_session(path, parallel=False)).timing
    assert a.plain() == b.plain()
    assert len(a.calls) == 13200 and len(a.tools) == 8913 and len(a.turns) == 4400
    assert a.turns[-1].open and a.anomalies("unpaired") and len(a.anomalies("retry")) == 1808
    assert a.slowest(20)[0].duration_ms >= a.slowest(20)[-1].duration_ms


def _reference(tmp: Path) -> Path | None:
    return install_reference(tmp, PARITY / "write_timing.mjs")


@needs_times
def test_freshly_written_sleeps_read_back(tmp_path):
    """Differential: dsh's writer, run now, sleeps the DELAYS; the timing reads them back. Never less
    than a sleep; at most SLACK over it in one of two runs: a loaded machine oversleeps now and then,
    where a wait counted twice or across two events is over in every run."""
    ref = _reference(tmp_path)
    if ref is None:
        pytest.skip("dsh's reference packages cannot be installed here (no ../shared/dsh-reference, npm or registry)")
    node = str(ref / "node_modules" / ".bin" / "node")
    over: dict = {}
    for _attempt in range(2):
        done = subprocess.run([node, "write_timing.mjs", "out"], cwd=ref, check=True, capture_output=True, timeout=300)
        assert json.load(io.StringIO(done.stdout.decode())) == DELAYS
        path = ref / "out" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"
        _log, diag = open_target(path, OpenOptions(use_cache=False))
        t = diag.timing
        got = {"ttft": t.calls[0].ttft_ms, "stall": t.calls[1].stall_ms, "retry": t.calls[2].retry_wait_ms,
               "tool": t.tools[0].duration_ms, "approval": t.tools[0].approval_ms,
               "command": t.commands[0].duration_ms}
        assert all(got[k] >= DELAYS[k] for k in got), got
        over = {k: (v, DELAYS[k]) for k, v in got.items() if v > DELAYS[k] + SLACK}
        if not over:
            break
    assert not over, over
    assert STALL_MS == 30_000


def test_stalls_longest_first_by_any_threshold_and_a_crafted_time_past_int64():
    from dsh_tui.model.diagnosing.timing import ModelCall
    calls = [ModelCall(1, k, index=10 * k, seq=10 * k, stall_ms=ms, stall_index=10 * k + 1)
             for k, ms in enumerate([500, 0, 40_000, 500, 2**70, 31_000])]
    timing = Timing(calls=calls)
    assert [s.duration_ms for s in timing.stalls(None)] == [2**70, 40_000, 31_000, 500, 500]  # ties by position
    assert [s.index for s in timing.stalls(2)] == [41, 21]
    assert timing.anomalies("stall") == [21, 41, 51] and timing.anomalies("stall", stall_ms=400) == [1, 21, 31, 41, 51]
    assert timing.stalls(None, threshold_ms=31_000)[-1].duration_ms == 40_000


def test_the_few_longest_stalls_are_a_sort_of_them_all_cut():
    """`stalls(n)` finds the n longest without ordering every call's: the same stalls, in the same order
    (longest first, ties by position), as the whole order cut at n, for any threshold; a packed list's
    calls too. `anomalies("stall")` is the sorted event indexes of the calls over the threshold."""
    import random
    from dsh_tui.model.diagnosing.timing import ModelCall, call_list
    rng = random.Random(11)
    for trial in range(40):
        calls = [ModelCall(1, k, index=3 * k, seq=3 * k, stall_ms=rng.choice([0, -5, 7, 7, 30, rng.randrange(60)]),
                           stall_index=rng.choice([None, 3 * k + 1, 3 * k + 1]))
                 for k in range(rng.randrange(1, 40))]
        if trial % 2:
            calls = call_list(calls)
            calls.pack()
        timing = Timing(calls=calls)
        for threshold in (0, -10, 7, 29):
            every = sorted((-c.stall_ms, c.stall_index, k) for k, c in enumerate(calls)
                           if c.stall_index is not None and c.stall_ms > max(threshold, 0))
            whole = [(s.duration_ms, s.index, s.turn, s.step) for s in timing.stalls(None, threshold)]
            assert whole == [(-ms, at, 1, k) for ms, at, k in every]
            for n in (0, 1, 3, len(calls) + 1):
                assert [(s.duration_ms, s.index, s.turn, s.step) for s in timing.stalls(n, threshold)] == whole[:n]
        for stall_ms in (-1, 0, 7, 29):
            assert timing.anomalies("stall", stall_ms) == sorted(
                {c.stall_index for c in calls if c.stall_index is not None and c.stall_ms > max(stall_ms, 0)})


def test_slowest_ranks_as_a_sort_of_every_timed_item():
    """`slowest` ranks only the items as slow as the n-th: the same rows, in the same order, as a
    stable sort of every timed item by (duration, earlier first), ties across kinds included."""
    import random
    from dsh_tui.model.diagnosing.timing import ModelCall, ToolTiming
    rng = random.Random(7)
    t0 = 1_790_000_000_000

    def times():
        a = rng.choice([None, t0 + rng.randrange(50)])
        b = rng.choice([None, a if a is None else a + rng.choice([-5, 0, 10, 10, 20, rng.randrange(40)])])
        return a, b

    calls, tools = [], []
    for k in range(300):
        a, b = times()
        calls.append(ModelCall(1, k, index=rng.randrange(200), seq=k, start=a, end=b,
                               last_output=None if b is not None or a is None else a + rng.choice([0, 10])))
        a, b = times()
        tools.append(ToolTiming(f"c{k}", "bash", 1, k, index=rng.randrange(200), seq=k, start=a, end=b))
    timing = Timing(calls=calls, tools=tools)

    def span(x, model):
        end = x.end if x.end is not None or not model else x.last_output
        return end - x.start if x.start is not None and end is not None and end >= x.start else None

    timed = [(span(x, kind == "model"), x.index, kind, x) for kind, group in (("model", calls), ("tool", tools))
             for x in group if span(x, kind == "model") is not None]
    ranked = sorted(timed, key=lambda t: (t[0], -t[1]), reverse=True)
    for n in (0, 1, 3, 20, 10_000):
        got = timing.slowest(n)
        assert [(r.kind, r.seq, r.duration_ms) for r in got] == [(kind, x.seq, d) for d, _i, kind, x in ranked[:n]]
    assert [r.seq for r in timing.slowest(5, ("tool",))] == [x.seq for _d, _i, kind, x in ranked if kind == "tool"][:5]
