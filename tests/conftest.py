"""Fixtures every test folder uses: isolated XDG dirs, logs written to tmp_path, the demo log, the split reader's knobs."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from dsh_tui.demo import write_demo

from .support.logs import HEADER, frame, lines_of


@pytest.fixture
def isolated_xdg(tmp_path, monkeypatch):
    """State and cache under tmp_path, colours on: a UI test never touches the user's dirs."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # never the user's config.toml
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A 20k-event generated zstd log, big enough to split (test_segments*)."""
    from dsh_tui.gen.synthetic import write_synthetic
    path = tmp_path_factory.mktemp("seg") / "big.jsonl.zstd"
    write_synthetic(path, 20_000, seed=3)
    return path


@pytest.fixture
def merges(monkeypatch):
    """The tail helper's slices merged, in order (none: the parent read the tail itself)."""
    from dsh_tui.model.reading.split import merge as tailmerge
    calls = []
    real = tailmerge.merge_tail

    def counting(*args):
        calls.append(args[2])
        return real(*args)
    monkeypatch.setattr(tailmerge, "merge_tail", counting)
    return calls


@pytest.fixture
def helper_for_small_logs(monkeypatch):
    """The tail helper forks for the tests' small logs too (it waits for 4 MiB files; a
    DSH_TUI_SEGMENTS=0 in the environment would turn it off)."""
    from dsh_tui.model.reading.split import helper as segments
    monkeypatch.setattr(segments, "MIN_FILE_BYTES", 0)
    monkeypatch.delenv(segments.ENV, raising=False)


@pytest.fixture
def write_jsonl(tmp_path):
    def _write(records, header=HEADER, name="session.jsonl", tail=b"\n") -> Path:
        body = b"\n".join(lines_of([header, *records])) + tail
        path = tmp_path / name
        path.write_bytes(body)
        return path
    return _write


@pytest.fixture
def write_zstd(tmp_path):
    """batches: list of lists of records; the header gets its own frame, as dsh writes."""
    def _write(batches, header=HEADER, name="session.jsonl.zstd") -> Path:
        data = frame(orjson.dumps(header) + b"\n")
        for batch in batches:
            data += frame(b"".join(line + b"\n" for line in lines_of(batch)))
        path = tmp_path / name
        path.write_bytes(data)
        return path
    return _write



@pytest.fixture
def demo(tmp_path) -> Path:
    """The bundled demo log, written afresh."""
    return write_demo(tmp_path / "demo-session.jsonl.zstd")


WORKERS_A_CORE = 2
MAX_AUTO_WORKERS = 16


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: two workers a core, not one. A UI test spends about half its time waiting on the
    app's timers and paints (the UI suite in one process: 163 s of CPU in 302 s), so one worker a
    core left the cores half idle (the suite on this 2-core machine: ~9 min at two workers, 6.5 at four)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(MAX_AUTO_WORKERS, WORKERS_A_CORE * cores))


def pytest_collection_modifyitems(config, items) -> None:
    """The UI suite's second run under the stock render (one test, about half the suite's time, in a
    child process) goes first: across xdist's workers it then runs beside the rest, not after it."""
    items.sort(key=lambda item: item.get_closest_marker("stock") is None)


def _printable(text: str) -> str:
    """``text`` as valid UTF-8: a lone surrogate (a hostile log's \\ud83d) escaped."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test whose report holds a lone surrogate (a log's \\ud83d in an assertion) is sent
    from an xdist worker with it escaped: execnet cannot send such a string, and the whole run ended
    in an INTERNALERROR instead of naming the failure."""
    outcome = yield
    rep = outcome.get_result()
    if rep.longrepr is not None and not isinstance(rep.longrepr, tuple):
        text = str(rep.longrepr)
        if _printable(text) is not text:
            rep.longrepr = _printable(text)
    rep.sections = [(_printable(title), _printable(body)) for title, body in rep.sections]
