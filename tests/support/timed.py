"""A log's timing with its events' times, for the timing view's tests while the scan does not yet hand
facts.py the events' times (tests/unit/test_timing.py skips its checks on the same condition).

``timing_of`` re-extracts the scan's facts with each event's envelope time (facts.py: the extractors'
time argument, the chunk clock for loose chunk events and packed rows), as the scan does once it passes
them, and computes the timing from them (timewalk.compute_timing). Once the scan keeps times, the
diagnosis's own timing is used unchanged.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import zstandard

from dsh_tui.model.diagnosing.timewalk import compute_timing
from dsh_tui.model.diagnosing.timing import Timing
from dsh_tui.model.reading.chunkclock import ChunkClock
from dsh_tui.model.reading.facts import CHUNK, CHUNKS, FACT_EXTRACTORS
from dsh_tui.model.opening.target import OpenOptions, open_target


def _records(path: Path) -> list[dict]:
    with open(path, "rb") as fh:
        text = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True).read()
    return [orjson.loads(line) for line in text.splitlines()[1:] if line.strip()]


def timing_of(path: Path, log=None, diag=None) -> Timing:
    if log is None:
        log, diag = open_target(path, OpenOptions(use_cache=False))
    if diag.timing.span is not None:  # the scan keeps the times: the real thing
        return diag.timing
    by_index = {f[1]: f for f in log.res.facts if f[0] != CHUNKS}
    clock, runs, index = ChunkClock(), [], 0
    timed = dict(by_index)
    for obj in _records(path):
        if "seq0" in obj:
            d = obj["data"]
            m = len(d.get("texts", d.get("args", ())))
            clock.row(runs.append, obj, obj["seq0"], index, m)
            index += m
            continue
        etype = obj.get("type")
        if etype == CHUNK:
            clock.tick(runs.append, obj.get("time"), obj, obj.get("seq"), index)
        elif index in by_index and etype in FACT_EXTRACTORS and type(obj.get("data")) is dict:
            t, i, seq, _fact = by_index[index]
            timed[index] = (t, i, seq, FACT_EXTRACTORS[t](obj["data"], obj.get("surfaceOp"), obj.get("time")))
        index += 1
    facts = sorted([*timed.values(), *runs], key=lambda f: (f[1], f[0] != CHUNKS))
    return compute_timing(facts, log.res.usage_calls, diag.pairing, log.res.projected)


def give_times(app, path: Path) -> Timing:
    """The explorer's session takes the timing with times (its diagnosis's cached value)."""
    timing = timing_of(path, app.log_, app.diag)
    app.diag.__dict__["timing"] = timing
    app.explorer.timing_view.log_shown()  # the header's sparkline from it
    return timing
