"""A log re-opened through the index cache is no bigger than a fresh decode of it: the repeated
values a fresh diagnosis shares (kinds, statuses, tool names, turn numbers) come back shared, not
one object per occurrence as JSON makes them, and arrays come back at their exact size."""

from __future__ import annotations

import msgspec.structs
import json

import sys
from array import array

import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.diagnosing.findings import Finding
from dsh_tui.model.presenting.timing_rows import SortOrders
from dsh_tui.model.opening.cachecodec import decode, encode
from dsh_tui.model.columns.perturn import TurnCounts, TurnEnds
from dsh_tui.model.opening.open import cache_payload, from_payload
from dsh_tui.model.opening.target import OpenOptions, keep_for_exploring, open_target
from dsh_tui.model.columns import pairtable
from dsh_tui.model.columns.textcolumn import TextColumn
from dsh_tui.model.reading.source import max_plain_bytes

from ..support.logs import HEADER, ev
from ..support.plainform import values as plain_values


def roundtrip(value):
    tree, parts = encode(value)
    return decode(tree, b"".join(parts))


def _distinct(values) -> int:
    return len({id(v) for v in values})


@pytest.fixture(scope="module")
def opened(tmp_path_factory):
    path = tmp_path_factory.mktemp("sharing") / "s__session.jsonl.zstd"
    write_synthetic(path, 3_000)
    log, diag = open_target(path, OpenOptions(use_cache=False))
    back = roundtrip(cache_payload(log, diag))
    log2, diag2 = from_payload(path, back, log.lenient, max_plain_bytes())
    return diag, diag2


def test_arrays_come_back_at_their_exact_size():
    back = roundtrip(array("q", range(1000)))
    assert back == array("q", range(1000))
    assert sys.getsizeof(back) == sys.getsizeof(array("q", [0]) * 1000)


def test_a_findings_repeated_fields_are_shared():
    turn = 10**6  # past the small ints Python shares anyway
    found = [Finding("LLM_RETRY", i, i, f"message {i % 3}", severity="".join(["war", "ning"]), turn=turn + 0,
                     name="".join(["sh", "ell"]), code="".join(["E", "1"])) for i in range(6)]
    back = roundtrip(found)
    assert back == found
    for name in ("kind", "severity", "name", "code", "advice", "run", "turn"):
        assert _distinct(getattr(f, name) for f in back) == 1, name
    assert _distinct(f.message for f in back) == 3  # (a big log's retries say a few things, ten thousand times)


def test_a_retrys_findings_share_the_message_they_say_alike(tmp_path):
    """LLM_RETRY findings of one text are one str (the 936k log repeated 11 times: 20k findings, 18 texts)."""
    lines = [HEADER] + [ev(t, k * 3 + j, {"turn": k, "step": 1, "retry": 1, "maxRetries": 3,
                                         "failure": {"code": "RATE_LIMITED", "message": "slow down"}}
                           if t == "llm/retry" else {"turn": k, "step": 1})
                        for k in range(1, 40) for j, t in enumerate(("llm/retry", "llm/retry-started", "step/start"))]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(map(json.dumps, lines)) + "\n")
    _log, diag = open_target(path, OpenOptions(use_cache=False))
    said = [f.message for f in diag.findings if f.kind == "LLM_RETRY"]
    assert len(said) == 39 and len(set(said)) == _distinct(said) == 1
    assert _distinct(f.code for f in diag.findings if f.kind == "LLM_RETRY") == 1  # (each line parsed its own)


def test_the_timings_marks_are_arrays_fresh_and_from_the_cache(opened):
    diag, diag2 = opened
    assert diag.timing.marks and diag.timing.marks == diag2.timing.marks
    assert all(type(v) is array and v.typecode == "q" for d in (diag, diag2) for v in d.timing.marks.values())


def test_turn_ends_share_their_kinds(opened):
    diag, diag2 = opened
    assert diag2.turn_ends == diag.turn_ends and len(diag.turn_ends) > 3
    kinds = [k for _t, k in diag2.turn_ends]
    assert _distinct(kinds) == len(set(kinds)) <= _distinct(k for _t, k in diag.turn_ends)


def test_a_finished_pairing_keeps_its_keys_as_text(opened, tmp_path, monkeypatch):
    """A finished (packed) table holds its keys as text, no str a key: from the cache, and fresh once
    kept for exploring. Each key finds its pair, and reads back as its pair's."""
    _diag, diag2 = opened
    monkeypatch.setattr(pairtable, "PACK_AT", 5)  # (a big log's: its pairs packed as they are read)
    path = tmp_path / "f__session.jsonl.zstd"
    write_synthetic(path, 3_000)
    log, fresh = open_target(path, OpenOptions(use_cache=False))
    keep_for_exploring(log, fresh)
    for tools in (diag2.pairing.tools, fresh.pairing.tools):
        assert len(tools) > 3 and type(tools.list.objs["key"]) is TextColumn
        assert all(k == p.key and tools[k] == p for k, p in tools.items())
        assert _distinct(p.status for p in tools.values()) == len({p.status for p in tools.values()})
    assert list(diag2.pairing.tools.items()) == list(fresh.pairing.tools.items())


def test_kept_for_exploring_a_seq_is_its_event_index_and_a_cached_timing_waits(tmp_path, monkeypatch):
    """`keep_for_exploring` keeps a packed seq column that holds its event index's cells as that array
    (the pairs' and the timing's, read fresh); a timing from the index cache it leaves unbuilt (the
    timing worker builds it after the paint), and it comes back shared from the explorer's entry."""
    from dsh_tui.model.diagnosing import timewalk
    monkeypatch.setattr(pairtable, "PACK_AT", 5)  # (a big log's: its lists packed as they are read)
    monkeypatch.setattr(timewalk, "PACK_AT", 5)
    path = tmp_path / "f__session.jsonl.zstd"
    write_synthetic(path, 3_000)
    log, fresh = open_target(path, OpenOptions(use_cache=False))
    keep_for_exploring(log, fresh)
    pairs, calls = fresh.pairing.tools.list, fresh.timing.calls
    assert pairs.packed > 3 and pairs.ints["seq_open"] is pairs.ints["open"]
    assert calls.packed > 3 and calls.ints["seq"] is calls.ints["index"]
    log2, cached = from_payload(path, roundtrip(cache_payload(log, fresh)), log.lenient, max_plain_bytes())
    keep_for_exploring(log2, cached)
    assert "timing" not in cached.__dict__
    back = cached.timing.calls
    assert back.ints["seq"] is back.ints["index"] and back.shared and list(back) == list(calls)


def test_lists_come_back_at_their_exact_size():
    back = roundtrip([[1], [1, 2, 3, 4, 5, 6], []])
    assert back == [[1], [1, 2, 3, 4, 5, 6], []]
    exact = [sys.getsizeof([1]), sys.getsizeof([1, 2, 3, 4, 5, 6]), sys.getsizeof([])]
    assert [sys.getsizeof(x) for x in back] == exact


def test_the_timing_rebuilt_from_the_cache_shares_its_repeated_strings(opened):
    diag, diag2 = opened
    fresh, back = diag.timing, diag2.timing
    assert plain_values(back.plain()) == plain_values(fresh.plain())
    assert list(SortOrders.of(back).rows) == list(SortOrders.of(fresh).rows)
    for items, name in ((back.calls, "start_from"), (back.tools, "name"), (back.tools, "status"),
                        (back.turns, "reason")):
        values = [getattr(x, name) for x in items]
        assert len(values) > len(set(values)), name  # (the log repeats them)
        assert _distinct(values) == len(set(values)), name


def test_the_cache_form_of_the_timing_is_columns(opened):
    diag, _diag2 = opened
    plain = diag.timing.plain()
    tag, n, ints, _bases, _odd, _objs, _sparse = plain[4]
    assert tag == "columns" and n == len(diag.timing.turns)
    assert all(type(col) is array for col in ints.values()) and {"calls_lo", "tools_hi", "model_ms"} <= set(ints)
    assert plain[2][5]["status"][0] == "coded" and plain[1][5]["start_from"][0] == "coded"


def test_turn_ends_and_counts_go_as_columns_and_a_bad_form_is_a_miss(tmp_path):
    path = tmp_path / "s__session.jsonl.zstd"
    write_synthetic(path, 3_000)
    log, diag = open_target(path, OpenOptions(use_cache=False))
    payload = cache_payload(log, diag)
    assert payload["diag"].turn_ends[0] == "ends" and type(payload["diag"].turn_ends[2]["turn"]) is array
    assert payload["diag"].usage.turns[0] == "counts" and type(payload["diag"].usage.turns[3]) is array
    crafted = [(1, "completed"), ("x", None), (2**70, 3)]
    assert TurnEnds.from_plain(TurnEnds(crafted).plain()) == crafted
    back = roundtrip(payload)
    assert from_payload(path, back, log.lenient, max_plain_bytes())[1].usage == diag.usage
    for field, bad in (("turn_ends", lambda p: ("ends", 1, *p[2:])),  # a length its columns do not have
                       ("usage", lambda u: msgspec.structs.replace(u, turns=("counts", 5, u.turns[2], u.turns[3][:-1])))):
        back = roundtrip(payload)
        setattr(back["diag"], field, bad(getattr(back["diag"], field)))
        assert from_payload(path, back, log.lenient, max_plain_bytes()) is None, field
    assert type(diag.usage.turns) is TurnCounts and diag.usage.turns.as_dict is None


def test_a_tool_calls_id_reads_back_as_its_pairs_key(opened):
    """From the cache the timing's callIds are its own (the pairing keeps its keys as text)."""
    _diag, diag2 = opened
    tools = diag2.pairing.tools
    timed = list(diag2.timing.tools)
    assert len(timed) > 3 and all(t.call_id == tools[t.call_id].key for t in timed)


def test_an_events_seq_is_its_index_object_when_they_are_equal(opened):
    diag, diag2 = opened
    for d in (diag, diag2):
        pairs = [p for p in d.pairing.tools.values() if p.open is not None and p.open > 256]
        assert pairs
        if not d.pairing.tools.list.packed:  # (objects kept; the cache's are columns, each pair made as read)
            assert all(p.seq_open is p.open for p in pairs if p.seq_open == p.open)
        found = [f for f in d.findings if f.index is not None and f.index > 256]
        assert all(f.seq is f.index for f in found if f.seq == f.index)
