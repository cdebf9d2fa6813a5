"""Every disagreement the parity campaign (scripts/parity_campaign.py) ever found between dsh and
dsh-tui, kept as a fixture: the log dsh's writer wrote (then crashed or damaged), alone in a root of its
own, and what dsh itself said about those exact bytes (dsh.json: dsh-facts.mjs and dsh-resume.mjs).
Replayed without node: dsh-tui must now agree with dsh on each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.parity_compare import disagreements, root_disagreements

FOUND = Path(__file__).resolve().parents[1] / "parity" / "campaign" / "found"
FIXTURES = sorted(p.parent for p in FOUND.glob("*/dsh.json"))


def test_the_campaign_kept_its_findings():
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
def test_dsh_tui_agrees_with_dsh_on_what_the_campaign_found(fixture, isolated_xdg):
    kept = json.loads((fixture / "dsh.json").read_text())
    assert kept["found"]  # what once disagreed
    if "log" in kept:
        assert disagreements(fixture / kept["log"], kept["dsh"]) == []
        return
    root = fixture / kept["root"]
    assert root_disagreements(root, kept["dsh"]) == []
