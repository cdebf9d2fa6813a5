"""The model layer must import no Textual or Rich (checked in a fresh interpreter)."""

import subprocess
import sys

import pytest

MODEL_MODULES = [
    "dsh_tui.model.session", "dsh_tui.model.diagnosis", "dsh_tui.model.report", "dsh_tui.model.pairing",
    "dsh_tui.model.scan", "dsh_tui.model.source", "dsh_tui.model.zstdframes", "dsh_tui.model.usage",
    "dsh_tui.model.cache", "dsh_tui.model.opener", "dsh_tui.model.plainstore", "dsh_tui.model.summary",
    "dsh_tui.model.discovery", "dsh_tui.model.entry", "dsh_tui.model.layout", "dsh_tui.model.exportzip",
    "dsh_tui.model.redact", "dsh_tui.model.lineage", "dsh_tui.model.tail", "dsh_tui.ls", "dsh_tui.demo",
    "dsh_tui.browse", "dsh_tui.live",
    "dsh_tui.safety", "dsh_tui.clipboard", "dsh_tui.cli",
]


@pytest.mark.parametrize("module", MODEL_MODULES)
def test_model_module_imports_no_textual_or_rich(module):
    code = (f"import sys, importlib; importlib.import_module({module!r}); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')); print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} pulled in {out.stdout.strip()}"


def _modules_after_check(tmp_path, args: list[str], wanted: str) -> str:
    """Run `check` on a header-only log in a fresh interpreter; the sorted names of the loaded
    modules that ``wanted`` (an expression over ``m``) selects, as their repr."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"session","version":0,"id":"x","createdAt":1,"delegationDepth":0}\n')
    code = (f"import sys; from dsh_tui.cli import main; rc = main(['check', sys.argv[1], *{args!r}]); "
            f"sys.stderr.write(repr(sorted(m for m in sys.modules if {wanted}))); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stderr


def test_check_command_runs_without_textual(tmp_path):
    assert _modules_after_check(tmp_path, ["--format", "json"],
                                "m.split('.')[0] in ('textual', 'rich')").endswith("[]")


def test_check_without_the_cache_loads_no_zip_hash_or_redaction_module(tmp_path):
    """Start-up is part of `check`'s time: what only ZIP exports, the index cache and bug reports
    need stays unloaded."""
    assert _modules_after_check(tmp_path, ["--no-cache"],
                                "m in ('zipfile', 'hashlib', 'dsh_tui.model.redact')").endswith("[]")
