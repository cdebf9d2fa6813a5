"""The malloc threshold is fixed once, only for a file big enough to pay for it, never failing."""

from __future__ import annotations

import platform
import sys

import pytest

from dsh_tui import memtune


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(memtune, "_done", False)


def test_a_small_file_changes_nothing(tmp_path):
    p = tmp_path / "small.jsonl"
    p.write_bytes(b"{}\n")
    memtune.before_big_decode(p)
    assert memtune._done is False


def test_a_missing_file_is_no_error(tmp_path):
    memtune.before_big_decode(tmp_path / "absent")
    assert memtune._done is False


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_a_big_file_fixes_the_threshold_once(tmp_path):
    p = tmp_path / "big.jsonl.zstd"
    with open(p, "wb") as f:
        f.truncate(memtune.BIG_FILE)
    memtune.before_big_decode(p)
    assert memtune._done is True
