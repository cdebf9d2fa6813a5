"""The bug reports (`y`) and saved events (`s`) are written the way the index cache is: into a folder of
this user's that is no symlink and not writable by others, a new file each time, never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dsh_tui.clipboard import copy_layered, write_report_file
from dsh_tui.model.reading.session import load_session
from dsh_tui.privatefiles import Refused, create_new, safe_name
from dsh_tui.ui.export import save_event_json

from ..support.logs import HEADER, ev


@pytest.fixture
def state(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "state"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    return target


def _log(write_jsonl, sid="sess-1"):
    return load_session(write_jsonl([ev("feedback/record", 0, {"text": "hi"})], header={**HEADER, "id": sid}))


def _plant(state: Path, folder: str, elsewhere: Path) -> None:
    (state / "dsh-tui").mkdir(mode=0o700)
    (state / "dsh-tui" / folder).symlink_to(elsewhere, target_is_directory=True)


def test_a_symlinked_reports_folder_gets_no_report(state, elsewhere):
    _plant(state, "reports", elsewhere)
    with pytest.raises(Refused, match="symlink"):
        write_report_file("secret snippet")
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_events_folder_gets_no_event(state, elsewhere, write_jsonl):
    _plant(state, "events", elsewhere)
    with pytest.raises(Refused, match="symlink"):
        save_event_json(_log(write_jsonl), 0)
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_state_folder_is_refused_too(state, elsewhere, write_jsonl):
    (state / "dsh-tui").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(Refused):
        write_report_file("x")
    with pytest.raises(Refused):
        save_event_json(_log(write_jsonl), 0)
    assert list(elsewhere.iterdir()) == []


def test_a_folder_others_may_write_is_refused(state):
    reports = state / "dsh-tui" / "reports"
    reports.mkdir(parents=True, mode=0o700)
    os.chmod(reports, 0o777)
    with pytest.raises(Refused, match="writable by group or others"):
        write_report_file("x")
    assert list(reports.iterdir()) == []


def test_the_copy_says_once_why_no_file_was_written(state, elsewhere):
    _plant(state, "reports", elsewhere)
    result = copy_layered("snippet", osc52=None, use_native=False)
    assert result.path is None and list(elsewhere.iterdir()) == []
    said = [n for n in result.notes if "report file" in n]
    assert len(said) == 1 and "symlink" in said[0] and "\n" not in said[0]


def test_reports_and_events_land_in_private_folders(state, write_jsonl):
    report = write_report_file("hello")
    saved = save_event_json(_log(write_jsonl), 0)
    assert report.parent == state / "dsh-tui" / "reports" and saved.parent == state / "dsh-tui" / "events"
    for path in (report, saved):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_the_session_id_cannot_choose_the_place_or_a_hidden_name(state, write_jsonl):
    for sid in ("../../../tmp/x", "-rf", ".hidden", "a\x1b]0;t\x07b/c", "..", "\u202egnp.exe"):
        saved = save_event_json(_log(write_jsonl, sid), 0)
        assert saved.parent == state / "dsh-tui" / "events", sid
        assert saved.name[0] not in ".-" and saved.name.isascii() and saved.name.isprintable(), saved.name
    assert safe_name("../x", "d") == "x" and safe_name("///", "d") == "d"


def test_an_existing_name_or_a_planted_link_is_never_written_through(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (folder / "a").symlink_to(victim)
    (folder / "b").write_text("old")
    path = create_new(folder, ["a", "b", "c"], b"new", levels=1)
    assert path == folder / "c" and victim.read_text() == "keep" and (folder / "b").read_text() == "old"
