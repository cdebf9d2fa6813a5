"""The context records the scan keeps (reading/contextfacts.py) are the ones read back from the events
when an index came from the cache: `check` and the views give one answer either way."""

from __future__ import annotations

import marshal
from array import array
from pathlib import Path

import orjson
import pytest

from dsh_tui.model.context import export
from dsh_tui.model.reading import contextcolumns
from dsh_tui.model.reading.contextcolumns import Columns
from dsh_tui.model.context.select import records
from dsh_tui.model.opening.cachecodec import decode, encode
from dsh_tui.model.reading.contextfacts import CONTEXT_TYPES
from dsh_tui.model.reading.session import load_session
from tests.support.logs import DSH_LOGS, HEADER, PARITY, ev, lines_of, result

CASE = PARITY / "context" / "root" / "--home-user-context--" / "context" / "session.jsonl.zstd"


def _unpacked(packed: tuple) -> Columns:
    """The columns a packed form stands for, as the parent makes them of a tail slice's (merge)."""
    out = Columns()
    out.merge(packed)
    return out


def _walked(log) -> list[tuple]:
    kept, log.res.context = log.res.context, None
    try:
        return list(records(log, tuple(CONTEXT_TYPES)))
    finally:
        log.res.context = kept


def _answers(log) -> tuple:
    ins = export.Insight(log)
    return ([r.as_dict() for r in ins.requests], [h.as_dict() for h in ins.headers],
            export.files_json(ins), [(f.kind, f.seq, f.message) for f in ins.loops])


def _same_either_way(log) -> None:
    scanned = log.res.context
    assert scanned is not None
    assert list(scanned.records()) == _walked(log)
    back = _unpacked(marshal.loads(marshal.dumps(scanned.pack())))  # the tail helper's pipe
    assert back == scanned and list(back.records()) == list(scanned.records())
    from_scan = _answers(log)
    kept, log.res.context = log.res.context, None
    try:
        assert _answers(log) == from_scan
    finally:
        log.res.context = kept
    _same_compacted(log, from_scan)


def _same_compacted(log, answers: tuple) -> None:
    """`Columns.compact` (the explorer's, after its load) gives back the very objects the lists held,
    the same answers, and takes records appended later (a followed log) as the lists would."""
    scanned = log.res.context
    before, packed = list(scanned.records()), scanned.pack()
    copy = _unpacked(packed)
    scanned.compact()
    after = list(scanned.records())
    assert after == before and scanned.pack() == packed and _answers(log) == answers
    listed = [j for cols in copy.fields for j, col in enumerate(cols) if type(col) is list]
    assert all(a[3 + j] is b[3 + j] for a, b in zip(after, before) for j in range(len(a) - 3)
               if type(a[3 + j]) is not int)
    assert listed and any(type(col).__name__ == "SharedColumn" for cols in scanned.fields for col in cols)
    grown = _unpacked(packed)
    grown.compact()
    for rec in before[-3:]:  # appended on, past the compaction
        grown.append(rec)
        copy.append(rec)
    assert list(grown.records()) == list(copy.records()) == before + before[-3:]


def _hostile(tmp_path: Path) -> Path:
    deep = "@DEEP@"  # 2,900 levels, written as text (no serialiser writes them)
    recs = [HEADER, ev("turn/start", 0, {"turn": {"nested": [1, 2]}})]
    seq = 1
    header = {"reason": "initial", "header": {"config": {"provider": "p", "model": "m", "deep": deep,
                                                          "list": [1, {"a": 2}]},
                                               "adapterDefaults": {"t": [1.5]}, "system": "@SURROGATE@",
                                               "tools": [{"name": "bash"}, {"nope": 1}, "x"]}}
    recs.append(ev("request/header", seq, header))
    seq += 1
    for k in range(4):  # the same object-typed arguments four times: one REPEATED_CALL
        recs.append(ev("tool/call", seq, {"turn": {"nested": [1, 2]}, "step": 1, "callId": f"c{k}",
                                          "name": "edit", "arguments": {"path": "a.py", "deep": deep}}))
        seq += 1
        recs.append(result(seq, f"c{k}", is_error=True, text="boom @SURROGATE@",
                           meta={"diffs": [{"path": "a.py", "oldText": 7, "newText": deep}, "junk"]}))
        recs[-1]["sourceEventSeqs"] = [seq - 1]
        seq += 1
    recs.append(ev("tool/result", seq, "not an object", sourceEventSeqs=["x"]))
    seq += 1
    recs.append(ev("assistant/message", seq, {"turn": [1], "step": deep, "usage": {"inputTokens": 5.0}}))
    path = tmp_path / "session.jsonl"
    text = b"\n".join(lines_of(recs)) + b"\n"
    text = text.replace(b'"@DEEP@"', b"[" * 2_900 + b'"x"' + b"]" * 2_900).replace(b"@SURROGATE@", b"s\\ud83d")
    path.write_bytes(text)
    return path


def test_a_hostile_log_gives_the_same_records_and_answers(tmp_path):
    log = load_session(_hostile(tmp_path), lenient=True)
    _same_either_way(log)
    ins = export.Insight(log)
    assert [f.kind for f in ins.loops].count("REPEATED_CALL") == 1
    assert "deep" in ins.headers[0].config and ins.headers[0].tools == ("bash", "?", "?")


def test_dsh_written_context_case_gives_the_same_records_and_answers():
    _same_either_way(load_session(CASE))


@pytest.mark.parametrize("rel", ["large/medium-4550-events__session.jsonl.zstd"])
def test_a_shared_log_gives_the_same_records_and_answers(rel):
    path = DSH_LOGS / rel
    if not path.exists():
        pytest.skip(f"shared log {rel} not available (../shared absent)")
    _same_either_way(load_session(path))


def test_the_index_cache_gives_back_the_records_the_scan_kept(isolated_xdg):
    """A log opened from the index cache has the scan's records as they were (no second read of its
    events); a cache written without them (a string that is not UTF-8) reads the events instead."""
    from dsh_tui.model.opening.target import OpenOptions, open_target
    path = DSH_LOGS / "large" / "medium-4550-events__session.jsonl.zstd"
    if not path.exists():
        pytest.skip("shared log not available (../shared absent)")
    fresh, _ = open_target(path, OpenOptions(use_cache=True, write_cache=True))
    assert not fresh.from_cache and fresh.res.context
    cached, _ = open_target(path, OpenOptions(use_cache=True, write_cache=True))
    assert cached.from_cache
    assert cached.res.context == fresh.res.context
    assert _answers(cached) == _answers(fresh)


def test_records_that_json_cannot_carry_are_left_to_the_events(tmp_path):
    from dsh_tui.model.reading import contextcolumns
    log = load_session(_hostile(tmp_path), lenient=True)
    assert contextcolumns.dumps(log.res.context) is None  # a failed result's text holds a lone surrogate
    rest = Columns()
    for r in log.res.context.records():
        if r[0] != "tool/result":
            rest.append(r)
    back = contextcolumns.loads(contextcolumns.dumps(rest))
    assert back == rest and list(back.records()) == list(rest.records())
    assert contextcolumns.loads(b"[[1]]") is None and contextcolumns.loads("[]") is None
    plain = contextcolumns.dumps(rest)
    assert plain[2] is rest.index  # (the arrays themselves: the codec copies each as it writes it)
    assert all(type(col) is array for col in plain[4])
    tree, parts = encode(plain)
    assert contextcolumns.loads(decode(tree, b"".join(parts))) == rest  # through the cache's codec

    def bad(k, value) -> tuple:
        return (*plain[:k], value, *plain[k + 1:])

    text = orjson.loads(plain[5])
    number = next([code, j, 0] for code, cols in enumerate(rest.fields) for j, col in enumerate(cols)
                  if type(col) is array and col and col[0] != contextcolumns.NONE)
    for broken in (bad(2, plain[2][:-1]),  # one index short of the kinds
                   bad(1, plain[1] + b"\x04"),  # a kind past the four
                   bad(3, array("q", plain[3])),  # seqs not 32-bit
                   bad(4, [array("d", plain[4][0]), *plain[4][1:]]),  # a number column of floats
                   bad(4, plain[4][:-1]),  # a number column missing
                   bad(5, orjson.dumps([text[0][:-1], *text[1:]])),  # a field's list missing
                   bad(5, orjson.dumps([[col[:-1] for col in text[0]], *text[1:]])),  # each list short
                   bad(5, orjson.dumps([text[0], [[*number, None]], *text[2:]])),  # an odd value where a number is
                   bad(5, orjson.dumps([text[0], [*text[1], [0, 0, -1, None]], *text[2:]])),  # a place before the first
                   bad(5, b"[1"), bad(0, "records")):
        assert contextcolumns.loads(broken) is None


def test_a_header_that_changes_one_to_true_is_a_change(tmp_path):
    """Python's == takes 1, 1.0 and true for one value: a header repeating the one before is known by
    its JSON text, so a config that turns 1 into true is read as the change it is."""
    from dsh_tui.model.context.requests import headers
    config = {"provider": "p", "model": "m", "maxTokens": 1}
    recs = [HEADER]
    for seq, value in enumerate([1, True, 1.0, 1]):
        recs.append(ev("request/header", seq, {"reason": "change", "header": {"config": {**config, "maxTokens": value}}}))
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of(recs)) + b"\n")
    log = load_session(path, lenient=True)
    _same_either_way(log)
    hs = headers(log)
    assert [type(h.config["maxTokens"]) for h in hs] == [int, bool, float, int]
    assert [bool(h.changes) for h in hs] == [False, True, True, True]


def test_values_an_array_cannot_hold_come_back_as_they_were():
    """Tokens, a result's call seq and the argument hash sit in int64 arrays; None, a bool and an int
    past int64 (a crafted log) are kept beside them and read back as they were, through the helper's
    pipe and the cache's JSON alike."""
    from dsh_tui.model.reading import contextcolumns
    cols = Columns()
    recs = [("assistant/message", 1, 1, 1, 1, None), ("assistant/message", 2, 2, 1, 2, 1 << 70),
            ("tool/call", 3, 3, 1, "bash", (1 << 64) - 1, None), ("tool/result", 4, 4, None, False, True, "x", None),
            ("tool/result", 5, 5, -(1 << 63), True, False, "", None), ("assistant/message", 6, 6, 2, 1, 7)]
    for r in recs:
        cols.append(r)
    assert list(cols.records()) == recs
    later = Columns()
    later.merge(cols.pack())
    later.merge(marshal.loads(marshal.dumps(cols.pack())), shift=10)
    assert list(later.records())[6:] == [(r[0], r[1] + 10, *r[2:]) for r in recs]
    assert contextcolumns.dumps(cols) is None  # JSON carries no int past 64 bits: left to the events
    small = Columns()
    for r in recs[:1] + recs[2:]:
        small.append(r)
    assert list(contextcolumns.loads(contextcolumns.dumps(small)).records()) == recs[:1] + recs[2:]


@pytest.mark.parametrize("raw, kept", [
    ('{"command":"cat a.txt"}', (None, None, "cat a.txt")),
    ('{"command":"\\u0063at a.txt"}', (None, None, "cat a.txt")),  # a verb spelled with an escape
    ('{"command":"\\tcat a.txt"}', (None, None, "\tcat a.txt")),  # led by whitespace
    ('{"command":"echo cat"}', None),  # a verb, but not the command's
    ('{"command":"make"}', None),
    ('{"command":"   "}', None),  # (the files view reads no path from it)
    ('{"path":"b.py","command":"ls"}', (None, "b.py", None)),
    ('{"file_path":"c.py"}', ("c.py", None, None)),
    ('{"comm\\u0061nd":"rm x"}', (None, None, "rm x")),  # the key itself escaped
    ('["cat"]', None),
    ('not json "command" cat', None),
])
def test_path_arguments_are_read_only_where_a_file_can_be_named(raw, kept):
    """The quick test that skips parsing most calls' arguments gives what parsing them gives."""
    from dsh_tui.model.reading.contextfacts import path_args
    assert path_args(raw) == kept


def test_a_hunk_that_says_what_another_said_is_kept_once():
    """A result's hunks, each line parsed apart: the scan's memo keeps one tuple for equal ones."""
    from dsh_tui.model.reading.contextfacts import slim_meta
    meta = '{"diffs": [{"path": "a.py", "oldText": "limit = 10", "newText": "limit = 20"}, {"path": "b.py"}]}'
    memo: dict = {}
    first, again = (slim_meta(orjson.loads(meta), memo) for _ in range(2))
    assert first == again == ("d", (("a.py", "limit = 10", "limit = 20"), ("b.py", None, None)), ())
    assert all(x is y for x, y in zip(first[1], again[1]))
    assert slim_meta(orjson.loads(meta)) == first and slim_meta(orjson.loads(meta))[1][0] is not first[1][0]


@pytest.mark.parametrize("usage, tokens", [
    ({"inputTokens": 5, "cacheReadTokens": 3}, 8),
    ({"inputTokens": 5, "cacheReadTokens": 3, "cacheWriteTokens": 2}, 10),
    ({"inputTokens": 5.0, "cacheWriteTokens": True}, 5),
    ({"cacheReadTokens": 3}, None),
    ("x", None),
])
def test_a_request_s_input_tokens_count_exact_ints_only(usage, tokens):
    from dsh_tui.model.reading.contextfacts import input_tokens
    got = input_tokens(usage)
    assert got == tokens and type(got) is type(tokens)


def test_the_cache_writes_a_shared_header_body_once_and_shares_it_again():
    from dsh_tui.model.reading import contextcolumns
    body = ("initial", "p", "m", (("maxTokens", 5),), None, ("bash",), 1, 10, 7)
    other = ("initial", "p", "m", (("maxTokens", True),), None, ("bash",), 1, 10, 7)
    cols = Columns()
    for k, b in enumerate([body, body, other, body]):
        cols.append(("request/header", k, k, b))
    plain = contextcolumns.dumps(cols)
    assert plain[-1].count(b'"maxTokens"') == 2  # each body once, however many headers share it
    back = list(contextcolumns.loads(plain).records())
    assert back == list(cols.records())
    assert back[0][3] is back[1][3] is back[3][3] and back[2][3] is not back[1][3]
    assert type(back[2][3][3][0][1]) is bool  # true stays true, not 1


def test_a_seq_past_32_bits_is_kept_as_it_was():
    """Index and seq sit in 32-bit arrays (the scan's event index is 32-bit); a crafted log's seq past
    that turns the seq column to a list, through append, the helper's merge and the cache alike."""
    from dsh_tui.model.reading import contextcolumns
    small = ("assistant/message", 1, 5, 1, 1, 10)
    big = ("assistant/message", 2, 1 << 40, 1, 2, 11)
    cols = Columns()
    for r in (small, big, small):
        cols.append(r)
    assert list(cols.records()) == [small, big, small]
    merged = Columns()
    merged.append(small)
    merged.merge(cols.pack(), shift=3)
    assert [r[2] for r in merged.records()] == [5, 5, 1 << 40, 5]
    assert list(contextcolumns.loads(contextcolumns.dumps(cols)).records()) == [small, big, small]


@pytest.mark.parametrize("window", [
    [("assistant/message", 1, 1, 1, 1, 9), ("tool/call", 2, 2, 1, "bash", 5, None), ("request/header", 3, 3, ("r",)),
     ("tool/result", 4, 4, 2, False, True, "x", None), ("assistant/message", 5, 5, 2, 1, 7)],
    [("assistant/message", 1, 1, 1, 1, None), ("tool/result", 2, 2, 1, False, False, "", None)],  # None
    [("assistant/message", 2, 2, 1, True, 3)],  # a bool (an array would take it as 1)
    [("tool/call", 3, 3, 1, "bash", (1 << 64) - 1, None), ("assistant/message", 4, 4, 1, 1, 1 << 70)],  # past int64
    [("assistant/message", 5, 1 << 40, 1, 2, 11), ("tool/result", 6, 6, 1, False, False, "", None)],  # seq past 32 bits
])
def test_a_window_s_records_kept_in_one_go_are_those_kept_one_by_one(window):
    """The scan hands the columns a window's records at once (`extend`): the columns, their odd values
    and what comes back are those of one `append` per record, whatever the window holds, and a later
    window goes on from them."""
    before = [("assistant/message", 0, 0, 1, 1, 2)]
    one_by_one, at_once = Columns(), Columns()
    for r in before + window + before:
        one_by_one.append(r)
    at_once.extend(before)
    at_once.extend(window)
    at_once.extend(before)
    assert at_once.pack() == one_by_one.pack()
    assert list(at_once.records()) == before + window + before


def test_the_verb_search_knows_every_verb_the_files_view_reads():
    """`_names_a_verb` spells COMMAND_VERBS out, one search each: a verb added to one list and not the
    other would leave its commands' files unread."""
    from dsh_tui.model.reading.contextfacts import COMMAND_VERBS, _names_a_verb, path_args
    for verb in COMMAND_VERBS:
        assert _names_a_verb(f'{{"command":"{verb} x"}}')
        assert path_args(f'{{"command":"{verb} x"}}') == (None, None, f"{verb} x")
    assert not _names_a_verb('{"command":"make build"}')


def test_compacted_columns_share_seq_and_index_until_a_record_comes():
    """After the load (`compact`), a log without gaps keeps one array for its records' seqs and
    indexes; a record appended after (a followed log), one at a time, in a window or merged, gives
    each back its own, both whole."""
    def fresh(seqs):
        cols = Columns()
        cols.extend([("tool/call", i, s, 1, "bash", 7, None) for i, s in zip(range(5), seqs)])
        cols.compact()
        return cols
    gapped = fresh([0, 1, 2, 9, 10])
    assert gapped.seq is not gapped.index and list(gapped.seq) == [0, 1, 2, 9, 10]
    for add in ("append", "extend", "merge"):
        cols = fresh(range(5))
        assert cols.seq is cols.index
        record = ("tool/result", 5, 7, 3, False, False, "", None)
        if add == "merge":
            more = Columns()
            more.append(record)
            cols.merge(more.pack())
        else:
            getattr(cols, add)(record if add == "append" else [record])
        assert cols.seq is not cols.index
        assert list(cols.index) == [0, 1, 2, 3, 4, 5] and list(cols.seq) == [0, 1, 2, 3, 4, 7], add
        assert [r[1:3] for r in cols.records()] == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 7)]


def test_tool_names_read_from_the_cache_are_one_str_each_as_the_scan_keeps_them():
    """The cache's JSON makes a str a call; read back, a tool name is one object again (interned, as
    the scan keeps it), so `compact` keeps the column a byte a call."""
    from dsh_tui.model.reading import contextcolumns
    from dsh_tui.model.reading.contextfacts import path_args
    cols = Columns()
    for k in range(300):
        cols.append(("tool/call", k, k, 1, "bash" if k % 3 else None, k, path_args("{}")))
    back = contextcolumns.loads(contextcolumns.dumps(cols))
    assert list(back.records()) == list(cols.records())
    names = [r[4] for r in back.records()]
    assert len({id(n) for n in names if n is not None}) == 1
    back.compact()
    assert type(back.fields[0][1]).__name__ == "SharedColumn" and list(back.records()) == list(cols.records())


def test_compacted_int_columns_are_narrow_until_a_record_is_added():
    """`compact` keeps an int64 column as narrow as its values fit (a step a byte, tokens four) while none
    is kept apart; a record added after (a followed log) gives each its own type back first, so a value
    past int32, or one no array holds, is kept as it was."""
    msgs = [("assistant/message", k, k, 1, k % 3, 1000 * k) for k in range(50)]
    odd_turn = ("tool/call", 50, 50, None, "bash", 7, None)  # a turn that is no int: kept in odd
    cols = Columns()
    for r in [*msgs, odd_turn]:
        cols.append(r)
    before = list(cols.records())
    cols.compact()
    assert [col.typecode for col in cols.fields[2]] == ["b", "b", "i"]  # (turn 1, steps 0-2, tokens to 49,000)
    assert cols.fields[0][0].typecode == "q"  # (its odd value's NONE is no int32)
    assert list(cols.records()) == before
    later = [("assistant/message", 51, 51, 2, 1, 2**40), ("tool/call", 52, 52, 2**35, "bash", 8, None),
             ("tool/call", 53, 53, True, None, 9, None)]
    for r in later:
        cols.append(r)
    assert [col.typecode for col in cols.fields[2]] == ["q", "q", "q"] and not cols.narrow
    assert list(cols.records()) == before + later and type(list(cols.records())[-1][3]) is bool


@pytest.mark.parametrize("low, high, width", [(-128, 127, "b"), (-129, 0, "h"), (0, 128, "h"),
                                              (-(2**15), 2**15 - 1, "h"), (0, 2**15, "i"), (-(2**15) - 1, 0, "i"),
                                              (-(2**31), 2**31 - 1, "i"), (0, 2**31, "q"), (-(2**31) - 1, 0, "q")])
def test_compact_takes_the_narrowest_width_and_the_cache_keeps_it(low, high, width):
    """A compacted column is the narrowest of int8, int16 and int32 that holds its lowest and highest
    value (int64 when none does); its records, and the cache's form read back, are the same."""
    msgs = [("assistant/message", k, k, turn, 0, 5) for k, turn in enumerate((low, 3, high))]
    cols = Columns()
    for r in msgs:
        cols.append(r)
    cols.compact()
    assert cols.fields[2][0].typecode == width and list(cols.records()) == msgs
    back = contextcolumns.loads(contextcolumns.dumps(cols))
    assert back is not None and back.fields[2][0].typecode == width and list(back.records()) == msgs
    later = ("assistant/message", 3, 3, 2**40, 0, 5)
    back.append(later)  # (a followed log: the column its own type again)
    assert back.fields[2][0].typecode == "q" and list(back.records()) == [*msgs, later]
