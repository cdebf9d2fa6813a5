"""`dsh-tui grep`: matches in calls' arguments, results and messages across sessions, as ID@SEQ."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("duckdb")

from dsh_tui.cli import main  # noqa: E402
from dsh_tui.fleet.grep import strings  # noqa: E402
from tests.support.session_roots import build_root  # noqa: E402

from .conftest import dsh  # noqa: E402


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    base = tmp_path_factory.mktemp("grep")
    built = build_root(base / "root")
    return built


def test_finds_the_arguments_of_a_call_and_names_its_permalink(root, capsys):
    from dsh_tui.demo import demo_batches
    done = dsh("grep", "deploy", str(root.root), "--format", "json")
    assert done.returncode == 0
    hits = [json.loads(line) for line in done.stdout.splitlines()]
    demo = root.ids["demo"]
    calls = [h for h in hits if h["session_id"] == demo and h["type"] == "tool/call"]
    assert calls, hits
    # the permalink names the event whose arguments hold the word
    _h, batches = demo_batches()
    events = {e["seq"]: e for batch in batches for e in batch if "seq" in e}
    for h in calls:
        assert h["permalink"] == f"{demo}@{h['seq']}"
        assert "deploy" in events[h["seq"]]["data"]["arguments"]


def test_no_match_is_exit_1_and_a_bad_pattern_exit_2(root, capsys):
    done = dsh("grep", "no-such-text-anywhere-\\d{40}", str(root.root))
    assert done.returncode == 1 and done.stdout == ""
    assert main(["grep", "(unclosed", str(root.root)]) == 2


def test_ignore_case_and_terminal_safe_text(root, capsys):
    done = dsh("grep", "-i", "QUESTION 1", str(root.root))
    assert done.returncode == 0
    out = done.stdout
    assert "question 1" in out and "\x1b" not in out


def test_strings_walks_deep_values_without_recursion():
    deep = "x"
    for _ in range(100_000):
        deep = [deep]
    assert list(strings({"a": deep, "b": "y"})) == ["x", "y"]
