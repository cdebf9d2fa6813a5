"""Hostile input: `check` gives the exact exit code and a clear message, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dsh_tui.cli import main
from dsh_tui.model.diagnosis import diagnose
from dsh_tui.model.session import load_session

from .hostile_corpus import BOMB_LIMIT, build_cases, demo_file


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return build_cases(tmp_path_factory.mktemp("hostile"))


CASE_NAMES = [
    "empty", "directory", "missing", "dev-zero", "fifo", "non-dsh-jsonl", "non-dsh-zstd", "binary", "header-only",
    "header-only-zstd", "flipped-byte", "skippable-frame", "trailing-garbage", "torn-zstd", "64MiB-line",
    "deep-nesting", "invalid-utf8-surrogate", "duplicate-decreasing-seq", "bad-packed-rows", "result-unknown-callid",
    "float-and-huge-numbers", "lists-and-objects-as-ids-and-turns", "negative-zero-depth", "version-1",
    "decompression-bomb",
]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_check_on_hostile_case(corpus, name, capsys):
    path, code, words = corpus[name]
    limit = ["--max-plain-size", BOMB_LIMIT] if name == "decompression-bomb" else []
    before = _stamp(path)
    rc = main(["check", str(path), *limit])
    out = capsys.readouterr()
    assert rc == code, (name, out.err)
    if code == 3:
        assert out.err.startswith("dsh-tui: ") and out.err.count("\n") == 1 and words in out.err, out.err
    else:
        assert words in out.out, out.out[:2000]
        assert "\x1b" not in out.out
    assert _stamp(path) == before  # never written


def test_corpus_is_complete(corpus):
    assert sorted(corpus) == sorted(CASE_NAMES)


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path):
        return (st.st_mode,)
    return (st.st_size, st.st_mtime_ns, path.read_bytes() if st.st_size < 1_000_000 else st.st_ino)


def test_no_read_permission(tmp_path):
    """As root a chmod does not bite, so the check runs in a child that drops to 'nobody' first."""
    path = demo_file(tmp_path)
    path.chmod(0)
    tmp_path.chmod(0o755)
    drop = ("import os, sys; import dsh_tui.cli, dsh_tui.model.session, dsh_tui.model.diagnosis, "
            "dsh_tui.model.report, dsh_tui.model.opener, dsh_tui.safety, locale; dsh_tui.cli.check_parser().parse_args([sys.argv[1]]); "
            + ("os.setgid(65534); os.setuid(65534); " if os.geteuid() == 0 else "")
            + "sys.exit(dsh_tui.cli.main(['check', sys.argv[1]]))")
    out = subprocess.run([sys.executable, "-c", drop, str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 3, out.stderr
    assert out.stderr.startswith("dsh-tui: permission denied") and "Traceback" not in out.stderr


@pytest.mark.parametrize("encoding", ["zstd", "jsonl"])
def test_truncation_at_every_byte_offset(tmp_path, encoding):
    src = demo_file(tmp_path, encoding)
    data = src.read_bytes()
    cut = tmp_path / f"cut.{encoding}"
    step = max(1, len(data) // 1500)  # every offset of the first and last 300 bytes, evenly between
    offsets = sorted(set(range(0, 300)) | set(range(len(data) - 300, len(data))) | set(range(0, len(data), step)))
    seen_torn = 0
    for n in offsets:
        cut.write_bytes(data[:n])
        try:
            log = load_session(cut)
        except Exception as exc:  # only the documented refusals may escape
            from dsh_tui.model.source import LogUnreadable
            assert isinstance(exc, LogUnreadable), (n, exc)
            continue
        diag = diagnose(log)
        seen_torn += log.raw.torn is not None
        for f in diag.findings:
            if f.index is not None:
                assert 0 <= f.index < len(log) and log.seq_of(f.index) == f.seq
    assert seen_torn > len(offsets) // 2
