"""`check --format json` written a piece at a time is the text of the whole object, byte for byte."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from dsh_tui.cli import main
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting import jsonstream
from dsh_tui.model.presenting.jsonstream import Items, dump, json_pieces
from dsh_tui.model.presenting.checkjson import check_json, json_text
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import LogUnreadable

from ..support.logs import DSH_LOGS, HEADER, crash_records, ev, lines_of

LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2**53, 2**53), st.floats(allow_nan=False, allow_infinity=False),
                 st.text(max_size=8))  # text: controls, bidi marks and astral characters too (escaped alike)
VALUE = st.recursive(LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text(max_size=4), inner, max_size=4)),
                     max_leaves=20)


@st.composite
def lazy_and_whole(draw, depth: int = 0):
    """A dict whose values may be `Items` (some nested in a dict), and the same dict with plain lists."""
    lazy, whole = {}, {}
    for key in draw(st.lists(st.text(max_size=5), max_size=5, unique=True)):
        kind = draw(st.sampled_from(["value", "items", "dict"] if depth < 2 else ["value", "items"]))
        if kind == "items":
            items = draw(st.lists(VALUE, max_size=4))
            lazy[key], whole[key] = Items(iter(items)), items
        elif kind == "dict":
            lazy[key], whole[key] = draw(lazy_and_whole(depth + 1))
        else:
            lazy[key] = whole[key] = draw(VALUE)
    return lazy, whole


@settings(max_examples=300, deadline=None)
@given(lazy_and_whole())
def test_pieces_are_the_whole_dump(pair):
    lazy, whole = pair
    assert "".join(json_pieces(lazy)) == dump(whole)


@settings(max_examples=200, deadline=None)
@given(st.lists(VALUE, max_size=7), st.integers(1, 3), st.integers(0, 3))
def test_items_dumped_a_run_at_a_time_are_the_whole_dump(items, batch, depth):
    # Runs of 1-3 items (a batch is 256): every cut between runs, nested at any depth, the text alike.
    whole: object = items
    old, jsonstream.BATCH = jsonstream.BATCH, batch
    try:
        lazy: object = Items(iter(items))
        for k in range(depth):
            lazy, whole = {"k": lazy, "n": k}, {"k": whole, "n": k}
        assert "".join(json_pieces(lazy)) == dump(whole)
    finally:
        jsonstream.BATCH = old


def test_a_refused_value_in_a_later_run_falls_back_alone():
    lone = "a\ud83db"
    items = [{"n": k} for k in range(5)] + [{"x": lone}] + [{"n": k} for k in range(5)]
    old, jsonstream.BATCH = jsonstream.BATCH, 4
    try:
        text = "".join(json_pieces({"items": Items(iter(items))}))
    finally:
        jsonstream.BATCH = old
    back = json.loads(text)["items"]
    assert [b.get("n") for b in back] == [0, 1, 2, 3, 4, None, 0, 1, 2, 3, 4] and back[5]["x"] == lone


def test_a_value_orjson_refuses_falls_back_in_its_piece_alone():
    lone = "a\ud83db"  # a lenient parse keeps a lone surrogate as the log wrote it
    text = "".join(json_pieces({"ok": 1, "items": Items(iter([{"x": lone}, {"y": "\x1b[31m"}]))}))
    assert text.encode("utf-8")  # valid UTF-8: the lone surrogate is shown, not written raw
    back = json.loads(text)
    assert back["ok"] == 1 and back["items"][1] == {"y": "\x1b[31m"} and "\x1b" not in text
    assert back["items"][0]["x"] == lone and "\\ud83d" in text  # the JSON escape: exact


def test_items_are_made_as_they_are_written():
    made = []

    def items():
        for k in range(3):
            made.append(k)
            yield {"k": k}
    pieces = json_pieces({"a": Items(items()), "b": 2})
    assert next(pieces) == "{" and made == []
    "".join(pieces)
    assert made == [0, 1, 2]


def _crash_log(tmp_path, copies: int):
    """A log with many findings and turns: ``copies`` of the crash records, seqs renumbered."""
    out, seq = [HEADER], 0
    for _ in range(copies):
        for r in crash_records():
            out.append({**r, "seq": seq})
            seq += 1
    out.append(ev("turn/start", seq, {"turn": 2}))
    p = tmp_path / "session.jsonl"
    p.write_bytes(b"\n".join(lines_of(out)) + b"\n")
    return p


@pytest.mark.parametrize("copies", [1, 40])
def test_check_json_lazy_and_whole_agree(tmp_path, capsys, copies):
    path = _crash_log(tmp_path, copies)
    log = load_session(path, lenient=True)
    diag = diagnose(log)
    from dsh_tui.model.context.export import add_loop_findings, insight
    add_loop_findings(diag, insight(log).loops)  # as check does (40 copies: one call repeated 40 times)
    whole = json_text(check_json(log, diag))
    assert "".join(json_pieces(check_json(log, diag, lazy=True))) == whole
    assert main(["check", "--no-cache", "--no-lineage", "--lenient", "--format", "json", str(path)]) in (0, 1)
    assert capsys.readouterr().out == whole + "\n"


def test_every_shared_log_agrees(tmp_path):
    logs = sorted(p for p in DSH_LOGS.rglob("*") if p.suffix in (".zstd", ".jsonl") and p.stat().st_size < 8 << 20) \
        if DSH_LOGS.is_dir() else []
    if not logs:
        pytest.skip("shared logs not available (../shared absent)")
    for path in logs:
        try:
            log = load_session(path, lenient=True)
        except LogUnreadable:  # unreadable ones are check's error path, not its JSON
            continue
        diag = diagnose(log)
        assert "".join(json_pieces(check_json(log, diag, lazy=True))) == json_text(check_json(log, diag)), path


@settings(max_examples=500, deadline=None)
@given(VALUE, st.sampled_from(["\x7f", "\x1b", "\x85", "\u202e", "\n", "\t", "a"]))
def test_a_dump_is_escaped_as_escape_json_escapes_it(value, extra):
    """The shortcut for a serialiser's ASCII text (no DEL: nothing to escape) gives what escape_json
    gives, for orjson's text and the standard library's alike."""
    import orjson
    from dsh_tui.safety import escape_json
    value = [value, extra]
    texts = [json.dumps(value, indent=2, ensure_ascii=False)]
    try:
        texts.append(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())
    except TypeError:  # a lone surrogate: orjson refuses it (`dump` then falls back to the other)
        pass
    for text in texts:
        assert jsonstream._escaped(text) == escape_json(text)
