"""The pairs kept as columns (model/columns/pairtable.py): a diagnosis whose pair tables packed (a
batch of 2 here, 16k on a real log) says what one that kept every pair an object says, through the
index cache too; the pairs by event and the newest-first order read as the lists they stand for."""

from __future__ import annotations

import msgspec.structs

import pytest

from dsh_tui.gen.synthetic import write_synthetic
from dsh_tui.model.columns import pairtable
from dsh_tui.model.diagnosing.pairing import Pair, Pairing, close_pairing, feed_facts, freeze_pairing
from dsh_tui.model.columns.pairtable import PairTable
from dsh_tui.model.presenting.detail import event_maps
from dsh_tui.model.presenting.report import check_text
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.opening.cachecodec import decode, encode
from dsh_tui.model.opening.open import cache_payload, from_payload
from dsh_tui.model.opening.target import OpenOptions, open_target
from dsh_tui.model.reading.source import LogUnreadable, max_plain_bytes

from ..support.hostile_corpus import build_cases
from ..support.logs import DSH_LOGS


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("pairtable")
    cases = [path for name, (path, _c, _w) in sorted(build_cases(d).items()) if name != "decompression-bomb"]
    synthetic = d / "s__session.jsonl.zstd"
    write_synthetic(synthetic, 3_000)
    shared = sorted(p for p in DSH_LOGS.rglob("*.jsonl*") if p.is_file())[:40] if DSH_LOGS.is_dir() else []
    return [synthetic, *cases, *shared]


def _opened(path, monkeypatch, pack_at):
    with monkeypatch.context() as m:
        if pack_at is not None:
            m.setattr(pairtable, "PACK_AT", pack_at)
        try:
            return open_target(path, OpenOptions(use_cache=False))
        except LogUnreadable:
            return None


def _old_by_event(pairs) -> dict:
    out: dict = {}
    for p in reversed(list(pairs)):  # oldest first, as the explorer's map was built
        for i in {p.ask, p.open, p.close} - {None}:
            out.setdefault(i, []).append(p)
    return out


def test_packed_pairs_say_what_objects_say(corpus, monkeypatch):
    packed_some = 0
    for path in corpus:
        whole = _opened(path, monkeypatch, None)
        if whole is None:
            continue
        log, want = whole
        _log, got = _opened(path, monkeypatch, 2)
        packed_some += got.pairing.tools.list.packed > 0
        assert check_json(log, got) == check_json(log, want), path.name
        assert check_text(log, got) == check_text(log, want), path.name
        assert list(got.pairs) == list(want.pairs) and got.closers == want.closers, path.name
        for name in ("tools", "commands", "approvals"):
            assert list(getattr(got.pairing, name).items()) == list(getattr(want.pairing, name).items())
        by_event = got.pairs.by_event()
        assert {i: by_event.get(i) for i in range(-1, len(log) + 1) if by_event.get(i)} == _old_by_event(want.pairs)
        for k in range(0, len(want.pairs), 7):
            assert got.pairs[k] == want.pairs[k] and got.pairs.position(want.pairs[k]) == k
    assert packed_some > 3


def test_packed_pairs_come_back_through_the_cache(corpus, monkeypatch):
    for path in corpus[:12]:
        opened = _opened(path, monkeypatch, 2)
        if opened is None:
            continue
        log, diag = opened
        tree, parts = encode(cache_payload(log, diag))
        log2, diag2 = from_payload(path, decode(tree, b"".join(parts)), log.lenient, max_plain_bytes())
        assert check_json(log2, diag2) == check_json(log, diag) and list(diag2.pairs) == list(diag.pairs)
        assert all(diag2.pairing.tools.get(k) is p for k, p in diag2.pairing.state.pending.items())


def test_a_pair_changed_after_it_was_packed_keeps_the_change(monkeypatch):
    monkeypatch.setattr(pairtable, "PACK_AT", 1)
    out = Pairing()
    feed_facts(out, [("turn/start", 0, 0, (1,)), ("tool/call", 1, 1, (1, 1, "a", "bash", "{}", None)),
                     ("tool/call", 2, 2, (1, 1, "b", "bash", "{}", None))])
    assert out.tools.list.packed == 2 and not out.tools.list.live  # both written to the columns
    feed_facts(out, [("tool/result", 3, 3, (1, 1, "a", True, None, "done\nmore", False, None))])
    assert out.tools["a"].status == "error" and out.tools["a"].result == "done\n" and not out.tools.list.live
    close_pairing(out)
    assert out.tools["b"].status == "unpaired" and out.tools["b"].cleared and out.tools["a"].close == 3


def test_a_result_is_kept_only_where_something_shows_it():
    """An error's first line (its finding, its advice) and a result whose call shows no arguments (the
    pairs view shows the result then); a call that succeeded with arguments keeps none."""
    out = Pairing()
    feed_facts(out, [("turn/start", 0, 0, (1,)), ("tool/call", 1, 1, (1, 1, "a", "bash", "{}", None)),
                     ("tool/call", 2, 2, (1, 1, "b", "bash", "{}", None)),
                     ("tool/call", 3, 3, (1, 1, "c", "bash", "", None)),
                     ("tool/result", 4, 4, (1, 1, "a", False, None, "fine\nmore", False, None)),
                     ("tool/result", 5, 5, (1, 1, "b", True, None, "boom\nmore", False, None)),
                     ("tool/result", 6, 6, (1, 1, "c", False, None, "bare\nmore", False, None)),
                     ("tool/result", 7, 7, (1, 1, "d", False, None, "lost", False, None))])
    got = {k: (p.status, p.result) for k, p in out.tools.items()}
    assert got == {"a": ("paired", ""), "b": ("error", "boom\n"), "c": ("paired", "bare\n"),
                   "d": ("result-without-call", "lost")}


def test_a_bad_table_in_the_cache_is_refused():
    table = PairTable(Pair, "tool")
    table.add(Pair("tool", "a", "bash", open=1))
    table.tidy(done=True)
    plain = table.plain()
    assert PairTable.from_plain(Pair, "tool", plain) == table
    for bad in (plain[:3], ("pairs", "command", *plain[2:]), (*plain[:2], ["b"], plain[3]),
                (*plain[:2], ["a", "a"], plain[3]), (*plain[:2], [1], plain[3])):
        with pytest.raises(ValueError):
            PairTable.from_plain(Pair, "tool", bad)
    cols = plain[3]
    objs = dict(cols[5], detail=[5])
    with pytest.raises(ValueError):
        PairTable.from_plain(Pair, "tool", (*plain[:3], (*cols[:5], objs, cols[6])))


def test_the_explorers_pair_map_is_an_index(corpus, monkeypatch):
    opened = _opened(corpus[0], monkeypatch, 2)
    _log, diag = opened
    pairs, _findings = event_maps(diag)
    assert type(pairs) is pairtable.PairsAt and pairs.get("x") is None and pairs.get(10**9, ()) == ()
    assert isinstance(pairs.get(next(i for i in range(len(_log)) if pairs.get(i)))[0], msgspec.Struct)


def test_frozen_keys_answer_as_the_dict_they_replace():
    """A finished table's key -> row: every lookup a dict answers, keys whose hashes collide (-1 and -2
    share one in CPython) told apart by the key column, iteration in the order first met."""
    keys = ["call_b", -1, "call_a", -2, "x" * 200]
    frozen = pairtable.FrozenKeys(keys)
    rows = dict(zip(keys, range(len(keys))))
    assert hash(-1) == hash(-2)
    for key in [*keys, "call_c", -3, None, 0]:
        assert frozen.get(key) == rows.get(key) and (key in frozen) == (key in rows)
        assert frozen.get(key, len(keys)) == rows.get(key, len(keys))
    assert frozen[-2] == 3 and list(frozen) == keys == list(frozen.keys()) and len(frozen) == 5
    with pytest.raises(KeyError):
        frozen["call_c"]
    with pytest.raises(TypeError):
        frozen.get([])


def test_a_finished_table_is_frozen_and_reads_on_as_a_dict(corpus, monkeypatch):
    """A decoded log's packed tables, frozen (as the explorer does after its load) and through the
    cache, keep FrozenKeys; a pair met after (a live log read on) makes the dict again, with every
    row where it was."""
    log, diag = _opened(corpus[0], monkeypatch, 2)
    tools = diag.pairing.tools
    assert type(tools.rows) is dict  # `check` does not freeze: its run ends there
    freeze_pairing(diag.pairing)
    assert type(tools.rows) is pairtable.FrozenKeys and len(tools) > 2
    tree, parts = encode(cache_payload(log, diag))
    _log2, diag2 = from_payload(corpus[0], decode(tree, b"".join(parts)), log.lenient, max_plain_bytes())
    assert type(diag2.pairing.tools.rows) is pairtable.FrozenKeys
    before = list(tools.items())
    new = msgspec.structs.replace(before[0][1], key="call_new")
    tools.add(new)
    assert type(tools.rows) is dict and list(tools.items()) == [*before, ("call_new", new)]
    assert all(tools.rows[k] == n for n, (k, _p) in enumerate(before))


def test_the_explorers_finding_map_answers_as_the_dict_it_replaced():
    """Event -> findings in the diagnosis's order, None-indexed findings in none, an index no finding
    names (or no int) the default; built from a copy: the diagnosis's list changed after leaves it."""
    from dsh_tui.model.diagnosing.findings import Finding
    from dsh_tui.model.presenting.detail import FindingsAt
    findings = [Finding("A", 7, 7, "a"), Finding("B", None, None, "b"), Finding("C", 3, 3, "c"),
                Finding("D", 7, 7, "d"), Finding("E", 0, 0, "e"), Finding("F", 7, 7, "f")]
    by_event: dict = {}
    for f in findings:
        if f.index is not None:
            by_event.setdefault(f.index, []).append(f)
    at = FindingsAt(findings)
    findings.clear()
    for i in (*range(-1, 10), 10**9, "7", None, 7.0):
        assert at.get(i, "none") == by_event.get(i, "none") if type(i) is int else at.get(i, "none") == "none"
    assert [f.kind for f in at.get(7)] == ["A", "D", "F"] and at.get(1) is None
