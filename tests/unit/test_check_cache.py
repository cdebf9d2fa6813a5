"""`check` reads and writes the index cache as the explorer does (issue 34 item 11): a repeated
`check` is answered from the cache, with the very output `--no-cache` gives."""

from __future__ import annotations

import pytest

from dsh_tui.cli import main
from dsh_tui.demo import write_synthetic
from dsh_tui.model.opening import cache

from ..support.logs import DSH_LOGS


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "no-dsh-home"))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    return tmp_path / "xdg-cache" / "dsh-tui" / "index"


def _out(capsys, *argv) -> tuple[int, str, str]:
    rc = main(["check", *argv])
    got = capsys.readouterr()
    return rc, got.out, got.err


def _logs(tmp_path) -> list:
    made = []
    for encoding, crash in (("zstd", True), ("jsonl", False)):
        path = tmp_path / "logs" / f"{encoding}-{crash}" / f"session.{'jsonl.zstd' if encoding == 'zstd' else 'jsonl'}"
        path.parent.mkdir(parents=True)
        write_synthetic(path, 6000, encoding=encoding, crash=crash)
        made.append(path)
    shared = [DSH_LOGS / "large" / "medium-4550-events__session.jsonl.zstd",
              DSH_LOGS / "large" / "big-936k-events__session.jsonl.zstd"]
    return made + [p for p in shared if p.exists()]


def test_check_writes_the_cache_and_answers_from_it_with_the_same_output(cache_home, tmp_path, capsys):
    for path in _logs(tmp_path):
        for fmt in ("text", "json", "markdown"):
            plain = _out(capsys, str(path), "--no-cache", "--format", fmt)
            assert not cache.has_entry(path)  # --no-cache writes nothing
            first = _out(capsys, str(path), "--format", fmt)
            assert cache.has_entry(path), f"{path.name}: check left no cache entry"
            again = _out(capsys, str(path), "--format", fmt)
            assert plain == first == again, f"{path.name} {fmt}"
            for entry in cache_home.glob("*.idx"):
                entry.unlink()


def test_check_answers_from_the_entry_it_wrote(cache_home, tmp_path, capsys, monkeypatch):
    path = _logs(tmp_path)[0]
    _out(capsys, str(path))
    from dsh_tui.model.opening import open as opening
    decoded = []
    real = opening.load_session
    monkeypatch.setattr(opening, "load_session", lambda *a, **k: decoded.append(a) or real(*a, **k))
    _out(capsys, str(path))
    assert decoded == []  # the second check never decoded the log


def test_the_environment_turns_the_cache_off_for_check(cache_home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(cache.CACHE_ENV, "1")
    path = _logs(tmp_path)[0]
    _out(capsys, str(path))
    assert not cache_home.exists() or not list(cache_home.glob("*.idx"))
