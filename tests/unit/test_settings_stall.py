"""The stall threshold in the settings file: seconds above 0, at most a week; anything else is a problem
and the default (30 s)."""

from __future__ import annotations

import pytest

from dsh_tui.settings import STALL_SECONDS, load_settings, parse_settings


def test_the_default_is_30_seconds():
    assert STALL_SECONDS == 30 and parse_settings({}).stall_seconds == 30


@pytest.mark.parametrize("value", [5, 0.5, 600, 604800])
def test_a_number_of_seconds_is_kept(value):
    s = parse_settings({"stall_seconds": value})
    assert s.stall_seconds == value and not s.problems


@pytest.mark.parametrize("value", [0, -1, True, "30", float("nan"), float("inf"), 604801, [30]])
def test_anything_else_is_a_problem_and_the_default(value):
    s = parse_settings({"stall_seconds": value})
    assert s.stall_seconds == 30
    assert len(s.problems) == 1 and s.problems[0].startswith("stall_seconds:")


def test_read_from_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("stall_seconds = 12.5\n")
    assert load_settings(path).stall_seconds == 12.5
