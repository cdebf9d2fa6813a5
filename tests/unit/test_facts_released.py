"""A big log's facts are let go as the diagnosis reads them (open.py's ``keep_facts``, the diagnosis's
``advance(..., drop=True)``): what comes out is what a read that keeps every fact gives, the facts held
at any time are a few windows' worth, and a live follow of such a log re-reads it."""

from __future__ import annotations


import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.opening import open as opener
from dsh_tui.model.reading import session
from dsh_tui.model.reading import split as split_read
from dsh_tui.model.reading.split import helper as segments
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.reading.session import load_session
from dsh_tui.sessions.follow import follow_step

from ..support.logs import DSH_LOGS, shared_log
from ..support.plainform import values as plain_values


def _kept(path, lenient: bool = False):
    """The reference: a linear read that keeps every fact, diagnosed at once."""
    log = load_session(path, parallel=False, lenient=lenient)
    return log, diagnose(log)


def _held(monkeypatch) -> list[int]:
    """The facts left in the scan's list after each turn of the diagnosis."""
    held = []
    real = opener.advance_diagnosis

    def advance(head, facts, calls, **kw):
        real(head, facts, calls, **kw)
        held.append(len(facts))
    monkeypatch.setattr(opener, "advance_diagnosis", advance)
    return held


def _assert_same(path, log, diag):
    ref_log, ref = _kept(path, log.lenient)
    assert check_json(log, diag, None) == check_json(ref_log, ref, None)
    assert diag.timing.plain() == ref.timing.plain()  # every row of the timing, not just the report's top 20
    assert [(p.kind, p.key, p.status, p.open, p.close) for p in diag.pairs] == \
        [(p.kind, p.key, p.status, p.open, p.close) for p in ref.pairs]
    return ref_log


@pytest.fixture(scope="module")
def longer(tmp_path_factory):
    """~12 MiB of text: a linear read hands it to the scan in a dozen 1 MiB chunks."""
    path = tmp_path_factory.mktemp("long") / "long.jsonl.zstd"
    write_synthetic(path, 150_000, seed=3)
    return path


@pytest.fixture
def digest_often(monkeypatch):
    monkeypatch.setattr(session, "DIGEST_BYTES", 16 << 10)


def test_a_linear_read_holds_a_few_windows_of_facts(longer, monkeypatch, digest_often, isolated_xdg):
    monkeypatch.setenv(segments.ENV, "0")
    held = _held(monkeypatch)
    log, diag = open_target(longer, OpenOptions(use_cache=False, keep_facts=False))
    ref_log = _assert_same(longer, log, diag)
    total = len(ref_log.res.facts)
    assert len(held) >= 10 and max(held) < total / 5  # never more than a chunk or two's worth
    assert log.res.facts == [] and log.res.usage_calls == {}


@pytest.mark.parametrize("slice_bytes", [1, 1 << 40], ids=["many-slices", "one-slice"])
def test_a_split_read_drops_them_too(synthetic, monkeypatch, digest_often, helper_for_small_logs, merges,
                                     isolated_xdg, slice_bytes):
    monkeypatch.setattr(segments, "SLICE_PLAIN_BYTES", slice_bytes)
    monkeypatch.setattr(segments, "TAIL_CHUNK_BYTES", 1 << 14)
    held = _held(monkeypatch)
    log, diag = open_target(synthetic, OpenOptions(use_cache=False, keep_facts=False))
    assert merges  # the tail was read by the helper and merged
    ref_log = _assert_same(synthetic, log, diag)
    assert held and min(held) < len(ref_log.res.facts) / 10


def test_a_split_read_that_misses_its_split_starts_the_diagnosis_over(longer, monkeypatch, digest_often,
                                                                     helper_for_small_logs, isolated_xdg):
    """A split inside a frame (crafted input) makes the read start over linearly, with a new scanner:
    the diagnosis begun on the first try's facts, some already dropped, begins again, or it would
    take the new scanner's first facts for new ones and count them twice."""
    real = split_read.choose_split
    monkeypatch.setattr(split_read, "choose_split", lambda data, share=None: real(data, 0.7) + 3)
    held = _held(monkeypatch)
    log, diag = open_target(longer, OpenOptions(use_cache=False, keep_facts=False))
    assert len(held) >= 4  # facts were dropped before the split was found missed
    _assert_same(longer, log, diag)


def test_the_explorer_keeps_a_small_logs_facts_and_drops_a_big_ones(synthetic, monkeypatch, digest_often,
                                                                      isolated_xdg):
    monkeypatch.setenv(segments.ENV, "0")
    log, _diag = open_target(synthetic, OpenOptions(use_cache=False))  # keep_facts=None: the size decides
    assert log.res.facts and log._scanner is not None  # a live follow indexes appends in place
    monkeypatch.setattr(opener, "KEEP_FACTS_TEXT", 64 << 10)
    log, diag = open_target(synthetic, OpenOptions(use_cache=False))
    assert log.res.facts == [] and log._scanner is None
    _assert_same(synthetic, log, diag)


def test_a_followed_log_without_its_facts_is_read_again(tmp_path, monkeypatch, digest_often, isolated_xdg):
    monkeypatch.setenv(segments.ENV, "0")
    monkeypatch.setattr(opener, "KEEP_FACTS_TEXT", 0)
    path = tmp_path / "live.jsonl"
    write_synthetic(path, 3_000, seed=5, encoding="jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    cut = len(lines) * 2 // 3
    path.write_bytes(b"".join(lines[:cut]))
    log, _diag = open_target(path, OpenOptions(use_cache=False))
    assert log._scanner is None
    with open(path, "ab") as fh:
        fh.write(b"".join(lines[cut:]))
    before = len(log)
    step = follow_step(log)
    assert step is not None and step.reopened and step.added == len(step.log) - before > 0
    assert step.log.res.facts == []  # read again the same way, facts let go
    _assert_same(path, step.log, step.diag)


def test_the_timing_comes_back_whole_from_the_index_cache(synthetic, monkeypatch, isolated_xdg):
    monkeypatch.setenv(segments.ENV, "0")
    log, diag = open_target(synthetic, OpenOptions())
    assert diag.clock == ()  # the plain form is made for the cache, not kept beside the timing
    cached_log, cached = open_target(synthetic, OpenOptions())
    assert cached_log.from_cache
    assert plain_values(cached.timing.plain()) == plain_values(diag.timing.plain())
    assert cached.clock == ()  # let go once the timing is rebuilt from it
    assert check_json(cached_log, cached, None) == check_json(log, diag, None)


def _shared_logs():
    if not DSH_LOGS.exists():
        return []
    return sorted(p.relative_to(DSH_LOGS).as_posix() for sub in ("written", "fixtures", "large")
                  for p in (DSH_LOGS / sub).glob("*") if ".decoded." not in p.name and ".expected." not in p.name
                  and p.suffix in (".jsonl", ".zstd") and p.stat().st_size < 4 << 20)


@pytest.mark.parametrize("rel", _shared_logs() or ["written/crash-open-turn__session.jsonl.zstd"])
def test_shared_logs_read_as_with_every_fact(rel, monkeypatch, isolated_xdg):
    path = shared_log(rel)
    monkeypatch.setattr(session, "DIGEST_BYTES", 2048)
    monkeypatch.setenv(segments.ENV, "0")
    try:
        log, diag = open_target(path, OpenOptions(use_cache=False, keep_facts=False, lenient=True))
    except Exception as exc:  # a log the reader refuses is refused the same way either way
        with pytest.raises(type(exc)):
            _kept(path, True)
        return
    _assert_same(path, log, diag)


def test_a_fact_holds_one_int_for_its_index_and_an_equal_seq(tmp_path):
    """What the diagnosis keeps of a fact (pairs, findings, timing) holds its seq: where it equals the
    index, as on every log without a gap, one object serves both."""
    path = tmp_path / "session.jsonl"
    write_synthetic(path, 3000)
    facts = load_session(path).res.facts
    # Small ints are shared anyway; a chunk run's fact is made on the hot path, which is left alone.
    shared = [f for f in facts if f[1] == f[2] and f[1] > 256 and f[0] != "assistant/chunk run"]
    assert len(shared) > 100 and all(f[1] is f[2] for f in shared)
