"""What dsh will do, at the explorer's and the browser's top (issue 36): a resume that deletes recorded
work, on the header; a session that breaks dsh's listing of its root, on the browser's head and notes.
Both on logs dsh's own writer wrote (tests/parity/cases), where dsh itself said so (dsh-facts.json)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .test_browser import browser_app, browser_ready, explorer_app, explorer_ready

PARITY = Path(__file__).resolve().parents[1] / "parity"
FACTS = json.loads((PARITY / "dsh-facts.json").read_text())
RESUME = PARITY / "cases" / "raw-edited" / "--home-user-parity--" / "raw-bad-line-resume" / "session.jsonl"


@pytest.fixture(autouse=True)
def _isolated(isolated_xdg, monkeypatch):
    monkeypatch.setenv("DSH_HOME", str(isolated_xdg / "dsh"))
    monkeypatch.setenv("HOME", str(isolated_xdg))


async def test_the_header_says_a_resume_deletes_recorded_work(tmp_path):
    log = tmp_path / "session.jsonl"
    shutil.copy(RESUME, log)
    cut = FACTS["raw-edited"]["raw-bad-line-resume"]["resume"]["cut"]  # where dsh's own load() cut it
    app = explorer_app(log)
    async with app.run_test(size=(80, 24)) as pilot:
        await explorer_ready(app, pilot)
        header = app.query_one("#header").plain()
        assert f"A RESUME DELETES 3 RECORDS (seq 35-37), 1 RESULT after byte {cut:,}" in header
        assert "VERDICT RESUME_TRUNCATES" in header


async def test_a_log_no_resume_cuts_has_no_such_badge(tmp_path):
    log = tmp_path / "session.jsonl.zstd"
    shutil.copy(PARITY / "cases" / "zstd" / "--home-user-parity--" / "two-pending" / "session.jsonl.zstd", log)
    app = explorer_app(log)
    async with app.run_test(size=(80, 24)) as pilot:
        await explorer_ready(app, pilot)
        assert "RESUME" not in app.query_one("#header").plain()


@pytest.mark.parametrize("root", ["zstd-listing", "zstd"])
async def test_the_browser_says_at_the_root_level_that_dsh_cannot_list_it(root):
    refused = any(f.get("list_refusal") for f in FACTS[root].values())  # dsh's own list() of this root
    app = browser_app(PARITY / "cases" / root)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await browser_ready(app, pilot)
        head = screen.query_one("#browser-head").plain()
        note = screen.query_one("#browser-note").plain() if screen.query_one("#browser-note").display else ""
        assert ("DSH CANNOT LIST THIS ROOT" in head) == refused
        assert ("lb-one-frame" in note and "DSH CANNOT LIST" in note) == refused
