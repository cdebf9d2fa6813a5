"""The read's seam (readplan.py): one plan decides a linear or a split read, the readers close what they
start, and the scan reports to a sink as it goes."""

from __future__ import annotations

import os

import pytest

from dsh_tui.model.reading import session
from dsh_tui.model.reading.readplan import CallbackSink, LinearReader, ReadPlan
from dsh_tui.model.reading.session import load_session, plan_read, reader_for
from dsh_tui.model.reading.source import open_log
from dsh_tui.model.reading.split import SplitReader

from ..support.logs import ev, no_children


def _plan(path, **kw) -> ReadPlan:
    raw, fb, limit = open_log(path)
    try:
        return plan_read(raw, fb, limit, **kw)
    finally:
        fb.close()


class Recorder:
    """A ScanSink that notes what it is told."""

    def __init__(self) -> None:
        self.turns: list[int] = []
        self.logs: list = []

    def progress(self, scanner) -> None:
        self.turns.append(len(scanner.res.rec_start))

    def done(self, log) -> None:
        self.logs.append(log)


def test_a_jsonl_log_is_read_linearly(write_jsonl):
    plan = _plan(write_jsonl([ev("user/message", 0, {"text": "hi"})]), parallel=True)
    assert plan.split is None and plan.early is None and not plan.keep_plain


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the tail helper needs os.fork")
def test_one_plan_decides_the_split(synthetic, helper_for_small_logs):
    assert _plan(synthetic, parallel=False).split is None
    split = _plan(synthetic, parallel=True, lenient=True)
    assert split.split is not None and split.lenient and split.early is None
    raw, fb, _limit = open_log(synthetic)
    try:
        assert isinstance(reader_for(split, raw, fb), SplitReader)
        assert isinstance(reader_for(_plan(synthetic, parallel=False), raw, fb), LinearReader)
    finally:
        fb.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the tail helper needs os.fork")
@pytest.mark.parametrize("parallel", [False, True], ids=["linear", "split"])
def test_the_sink_is_told_as_the_scan_goes_then_given_the_log(synthetic, helper_for_small_logs, monkeypatch,
                                                              parallel):
    monkeypatch.setattr(session, "DIGEST_BYTES", 64 << 10)
    sink = Recorder()
    log = load_session(synthetic, parallel=parallel, sink=sink)
    assert sink.logs == [log]
    assert len(sink.turns) >= 2 and sink.turns == sorted(sink.turns) and sink.turns[-1] <= log.records
    assert no_children(5.0)


def test_a_bare_callback_is_the_sinks_progress(synthetic, monkeypatch):
    monkeypatch.setattr(session, "DIGEST_BYTES", 64 << 10)
    seen = []
    log = load_session(synthetic, parallel=False, while_waiting=lambda scanner: seen.append(scanner))
    assert seen and all(s is log._scanner for s in seen)
    CallbackSink(seen.append).done(log)  # nothing to do at the end


def test_text_in_hand_is_kept(write_jsonl):
    path = write_jsonl([ev("user/message", 0, {"text": "hi"})])
    raw, fb, _limit = open_log(path)
    fb.close()
    raw.plain = path.read_bytes()
    log = session.read_log(raw, LinearReader(iter((raw.plain,))), ReadPlan(), None)
    assert len(log) == 1 and log.store.slice(0, 8) == raw.plain[:8] and raw.plain == path.read_bytes()
