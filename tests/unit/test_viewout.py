"""The view out of the explorer (model/presenting/viewout.py): the raw records as JSONL, each record
once, into a new 0600 file (never overwritten, never the log, no symlink followed), or on a command's
stdin with its output bounded in size and time."""

from __future__ import annotations

import os
import stat
import threading
from array import array

import orjson
import pytest

from dsh_tui.model.presenting.viewout import (ViewOutError, default_name, pipe_records, target_path, view_indices,
                                              view_records)
from dsh_tui.model.presenting.viewout import write_jsonl as write_view
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import Cancelled

from ..support.logs import chunk, ev, row


def _log(write_jsonl_fixture):
    return load_session(write_jsonl_fixture([ev("user/message", 0, {"text": "a"}), row(1, ["b", "c", "d"], [1, 1]),
                                             ev("tool/call", 4, {"callId": "c1", "name": "bash"}), chunk(5, "e")]))


def test_the_views_raw_records_once_each_in_log_order(write_jsonl):
    log = _log(write_jsonl)
    lines = list(view_records(log, view_indices(len(log), None)))
    assert [orjson.loads(x).get("seq", orjson.loads(x).get("seq0")) for x in lines] == [0, 1, 4, 5]
    assert all(x.endswith(b"\n") and x.count(b"\n") == 1 for x in lines)
    filtered = list(view_records(log, array("I", [2, 3, 4])))  # two members of the packed row, then the call
    assert [orjson.loads(x)["type"] for x in filtered] == ["text-chunks", "tool/call"]
    assert lines[2] == bytes(log.record_bytes(log.res.record_of(4))) + b"\n"  # exactly as written


def test_the_file_is_new_private_and_never_the_log(write_jsonl, tmp_path):
    log = _log(write_jsonl)
    path = target_path("", tmp_path / "out", default_name(log, "filter: tool/call"))
    path.parent.mkdir()
    done = write_jsonl_records(log, path)
    assert done.records == 4 and path.read_bytes().count(b"\n") == 4
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600 and path.name.endswith(".jsonl")
    with pytest.raises(ViewOutError, match="never overwritten"):
        write_jsonl_records(log, path)
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(ViewOutError):
        write_jsonl_records(log, link)
    assert not (tmp_path / "elsewhere.jsonl").exists()
    src = tmp_path / "session.jsonl"  # the log the fixture wrote
    before = src.read_bytes()
    with pytest.raises(ViewOutError, match="log being read"):
        write_view(src, view_records(log, range(len(log))), log_path=src)
    assert src.read_bytes() == before
    assert target_path(str(tmp_path), tmp_path, "x.jsonl") == tmp_path / "x.jsonl"  # a directory: the name in it
    assert done.path == path


def write_jsonl_records(log, path):
    return write_view(path, view_records(log, range(len(log))))


def test_a_cancelled_write_leaves_no_partial_file(write_jsonl, tmp_path):
    log = _log(write_jsonl)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        write_view(tmp_path / "v.jsonl", view_records(log, range(len(log)), cancel=cancel), cancel=cancel)
    assert not (tmp_path / "v.jsonl").exists()


def test_a_command_gets_the_records_on_stdin(write_jsonl):
    log = _log(write_jsonl)
    out = pipe_records("wc -l; echo done >&2", view_records(log, range(len(log))))
    assert out.output.split() == [b"4", b"done"] and out.returncode == 0 and out.records == 4
    early = pipe_records("head -n 1", (b'{"x":1}\n' for _ in range(200_000)))  # stops reading: no hang
    assert early.output == b'{"x":1}\n' and early.returncode == 0
    failed = pipe_records("exit 3", iter([b"{}\n"]))
    assert failed.returncode == 3


def test_a_commands_output_and_time_are_bounded():
    big = pipe_records("yes", iter([]), cap=1000)
    assert big.truncated and len(big.output) == 1000 and big.returncode is None
    slow = pipe_records("sleep 30", iter([]), timeout=0.3)
    assert slow.timed_out and slow.returncode is None
