"""Marks, filter chips and the position kept per log in $XDG_STATE_HOME, read back as hostile input."""

from __future__ import annotations

import os

import orjson
import pytest

from dsh_tui.model.presenting.filterstack import Chip
from dsh_tui.sessions import viewstate
from dsh_tui.sessions.viewstate import ViewState, load, parse_state, save, state_dir, view_key


@pytest.fixture
def state_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    log = tmp_path / "s.jsonl.zstd"
    log.write_bytes(b"")
    return log


def test_a_view_round_trips_per_log_and_member(state_home):
    state = ViewState([3, 9], [Chip("type", "assistant/chunk", False)], 9)
    assert save(state_home, state) is None
    assert load(state_home) == state
    assert load(state_home, "member.jsonl") == ViewState()  # a ZIP member is another log
    assert load(state_home.parent / "other.jsonl") == ViewState()
    folder = state_dir()
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    (name,) = os.listdir(folder)
    assert name == view_key(state_home) and "s.jsonl" not in name
    assert (folder / name).stat().st_mode & 0o077 == 0


def test_the_same_file_by_another_path_is_the_same_view(state_home, tmp_path):
    link = tmp_path / "link.jsonl.zstd"
    link.symlink_to(state_home)
    assert view_key(link) == view_key(state_home)


def test_malformed_fields_are_dropped_and_the_rest_kept():
    good_chip = Chip("text", "x").to_json()
    data = orjson.dumps({"version": 1, "marks": [5, "6", -1, 2.5, True, 5, 1 << 60, 3],
                         "chips": [good_chip, {"field": "eval", "value": "x"}, "x"], "position": "12"})
    assert parse_state(data) == ViewState([3, 5], [Chip("text", "x")], None)
    for bad in (b"", b"not json", b"[]", orjson.dumps({"version": 2, "marks": [1]}), b"\xff\xfe"):
        assert parse_state(bad) == ViewState()


def test_a_huge_or_shared_state_file_is_not_read(state_home):
    assert save(state_home, ViewState([1])) is None
    path = state_dir() / view_key(state_home)
    path.chmod(0o644)  # readable by others: not ours alone, so not trusted
    assert load(state_home) == ViewState()
    path.chmod(0o600)
    path.write_bytes(b" " * (viewstate.MAX_BYTES + 1))
    assert load(state_home) == ViewState()


def test_a_folder_others_can_write_is_refused_with_a_reason(state_home):
    folder = state_dir()
    folder.mkdir(parents=True)
    folder.parent.chmod(0o777)
    why = save(state_home, ViewState([1]))
    assert why is not None and why.startswith("marks and filters not saved") and "\n" not in why
    assert load(state_home) == ViewState()


def test_marks_are_bounded(state_home):
    data = orjson.dumps({"version": 1, "marks": list(range(50_000)), "chips": [], "position": None})
    assert len(parse_state(data).marks) == viewstate.MAX_MARKS
