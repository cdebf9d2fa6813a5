"""Property tests: mutated real and generated logs never raise, findings point at real events,
and the file is never written."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.presenting.report import check_text
from dsh_tui.model.presenting.checkjson import check_json
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import LogUnreadable

from ..support.logs import DSH_LOGS
from ..support.hostile_corpus import demo_file

SOURCES = ["demo.zstd", "demo.jsonl"] + [
    f"written/{n}" for n in ("crash-open-turn__session.jsonl.zstd", "live-zstd__session.jsonl.zstd",
                             "live-raw__session.jsonl", "child-subagent__session.jsonl.zstd")
    if (DSH_LOGS / "written" / n).exists()]


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    d = tmp_path_factory.mktemp("orig")
    out = {"demo.zstd": demo_file(d, "zstd").read_bytes(), "demo.jsonl": demo_file(d, "jsonl").read_bytes()}
    for name in SOURCES[2:]:
        out[name] = (DSH_LOGS / name).read_bytes()
    return out


def mutate(data: bytes, ops) -> bytes:
    for op, a, b in ops:
        n = len(data)
        if n == 0:
            break
        i, j = sorted((a % n, b % n))
        if op == "cut":
            data = data[:i]
        elif op == "flip":
            data = data[:i] + bytes([data[i] ^ (1 + b % 255)]) + data[i + 1:]
        elif op == "splice":  # move a span elsewhere
            span = data[i:j]
            rest = data[:i] + data[j:]
            k = b % (len(rest) + 1)
            data = rest[:k] + span + rest[k:]
        elif op == "dup-line":
            lines = data.split(b"\n")
            k = a % len(lines)
            lines.insert(k, lines[k])
            data = b"\n".join(lines)
        elif op == "drop-line":
            lines = data.split(b"\n")
            if len(lines) > 1:
                del lines[a % len(lines)]
            data = b"\n".join(lines)
    return data


OPS = st.lists(st.tuples(st.sampled_from(["cut", "flip", "splice", "dup-line", "drop-line"]),
                         st.integers(0, 2**31), st.integers(0, 2**31)), min_size=1, max_size=4)


def exercise(path) -> None:
    before = (os.stat(path).st_size, os.stat(path).st_mtime_ns, path.read_bytes())
    try:
        log = load_session(path, lenient=True)
    except LogUnreadable as exc:
        assert exc.message and "\n" not in exc.message
        return
    finally:
        assert (os.stat(path).st_size, os.stat(path).st_mtime_ns, path.read_bytes()) == before
    diag = diagnose(log)
    for f in diag.findings:
        if f.index is not None:
            assert 0 <= f.index < len(log)
            assert log.seq_of(f.index) == f.seq
    for i in range(len(log)):  # every event is addressable for the views
        ev = log.event(i)
        assert ev.index == i
    check_json(log, diag)
    check_text(log, diag)


def _run(originals, tmp_path_factory, source, ops):
    path = tmp_path_factory.mktemp("m") / ("x.zst" if "zst" in source else "x.jsonl")
    path.write_bytes(mutate(originals[source], ops))
    exercise(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(SOURCES), ops=OPS)
def test_mutated_logs_never_raise(originals, tmp_path_factory, source, ops):
    _run(originals, tmp_path_factory, source, ops)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(source=st.sampled_from(SOURCES), ops=OPS)
def test_mutated_logs_never_raise_long(originals, tmp_path_factory, source, ops):
    _run(originals, tmp_path_factory, source, ops)


# Structure-aware: valid JSON whose values have the wrong type (a list where dsh writes a callId,
# an object as a turn, a string as usage...). Byte flips rarely produce these.
ODD_VALUES = st.sampled_from([[1], {"a": [1]}, None, "x", "", 0, -1, 2**70, 1.5, True, [], {}])


def _paths(obj, prefix=()):
    """Every (path, value) inside a decoded record."""
    yield prefix, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, prefix + (i,))


def _retyped(data: bytes, picks) -> bytes:
    import orjson
    lines = data.split(b"\n")
    for line_pick, path_pick, value in picks:
        k = 1 + line_pick % max(1, len(lines) - 2)  # never the header
        try:
            obj = orjson.loads(lines[k])
        except orjson.JSONDecodeError:
            continue
        paths = [p for p, _ in _paths(obj) if p and p[0] not in ("type", "seq", "seq0")]
        if not paths:
            continue
        path = paths[path_pick % len(paths)]
        target = obj
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
        lines[k] = json.dumps(obj, separators=(",", ":")).encode()  # orjson refuses ints over 64 bits
    return b"\n".join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.tuples(st.integers(0, 2**16), st.integers(0, 2**16), ODD_VALUES), min_size=1, max_size=6))
def test_values_of_the_wrong_type_never_raise(originals, tmp_path_factory, picks):
    path = tmp_path_factory.mktemp("r") / "x.jsonl"
    path.write_bytes(_retyped(originals["demo.jsonl"], picks))
    exercise(path)
