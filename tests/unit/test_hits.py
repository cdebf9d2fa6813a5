"""Search hits as a reader counts them (model/presenting/hits.py): one hit per content block, "k of n", spans."""

from __future__ import annotations

import re
from array import array

from dsh_tui.model.presenting.hits import collapse_chunk_runs, count_text, match_spans
from dsh_tui.model.reading.search import HitList, find_all
from dsh_tui.model.reading.session import load_session

from ..support.logs import chunk, ev, row


def test_chunk_deltas_of_one_block_are_one_hit(write_jsonl):
    log = load_session(write_jsonl([
        ev("user/message", 0, {"text": "say needle"}),
        chunk(1, "nee"), chunk(2, "needle one"), chunk(3, "x"), chunk(4, "needle two"),  # block 0
        chunk(5, "needle three", index=1),  # another block: its own hit
        ev("tool/call", 6, {"callId": "c1", "name": "bash", "arguments": "needle"}),
        chunk(7, "needle four", index=1),  # same block as seq 5, but a tool call lies between
    ]))
    hits = find_all(log, "needle")
    assert list(hits.indices) == [0, 2, 4, 5, 6, 7]
    assert list(collapse_chunk_runs(log, hits).indices) == [0, 2, 5, 6, 7]


def test_packed_rows_collapse_too(write_jsonl):
    log = load_session(write_jsonl([chunk(0, "a"), row(1, ["needle", "b", "needle"], [1, 1]), chunk(4, "needle")]))
    hits = find_all(log, "needle")
    assert list(hits.indices) == [1, 3, 4]
    assert list(collapse_chunk_runs(log, hits).indices) == [1]


def test_count_text_is_k_of_n_and_says_a_capped_list():
    hits = HitList("x", 100, array("I", [3, 10, 40]))
    assert count_text(hits, 10) == "2 of 3"
    assert count_text(hits, 11) == "2 of 3"  # past a hit: the last one visited
    assert count_text(hits, 0) == "3 hits"
    hits.capped = True
    assert count_text(hits, 40) == "3 of 3+"


def test_match_spans_are_case_insensitive_and_literal():
    pat = re.compile(re.escape("a.B"), re.IGNORECASE)
    assert match_spans("xa.bY A.B aXb", pat) == [(1, 4), (6, 9)]
    assert match_spans("anything", None) == []
