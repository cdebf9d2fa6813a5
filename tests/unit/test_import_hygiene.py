"""Import hygiene: the layers' contract, no import cycles, and what `check` leaves unloaded.

The package is walked (pkgutil), so a new module is covered without a list to keep up:
- the model (`dsh_tui.model.*`) and the session-level code (`dsh_tui.sessions.*`), like the
  sanitiser, the clipboard and the CLI, import neither Textual nor Rich (checked in a fresh
  interpreter), and the model imports nothing from `dsh_tui.ui` or `dsh_tui.sessions`;
- no module imports, directly or through others, a module that imports it (read from the source:
  every `import` / `from ... import` of a dsh_tui module, wherever it stands in the file).
The order of the model's own packages (columns, reading, diagnosing, ...) is test_layers.py's.
"""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dsh_tui

PACKAGE_DIR = Path(dsh_tui.__file__).parent


def all_modules() -> dict[str, Path]:
    out = {"dsh_tui": PACKAGE_DIR / "__init__.py"}
    for info in pkgutil.walk_packages([str(PACKAGE_DIR)], prefix="dsh_tui."):
        rel = Path(*info.name.split(".")[1:])
        out[info.name] = PACKAGE_DIR / rel / "__init__.py" if info.ispkg else PACKAGE_DIR / rel.with_suffix(".py")
    return out


MODULES = all_modules()
TEXTUAL_FREE = sorted(m for m in MODULES if m.startswith(("dsh_tui.model.", "dsh_tui.sessions."))
                      or m in ("dsh_tui.safety", "dsh_tui.clipboard", "dsh_tui.cli", "dsh_tui.demo"))


def imports_of(name: str) -> set[str]:
    """The dsh_tui modules ``name`` imports (a `from pkg import sub` names the submodule)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target in MODULES:
                out.add(target)
            out |= {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES}
    out.discard(name)
    return out


def test_the_walk_finds_the_layers():
    assert {"dsh_tui.model.reading.scan", "dsh_tui.model.diagnosing.diagnosis", "dsh_tui.model.presenting.report",
            "dsh_tui.sessions.targets", "dsh_tui.ui.app"} <= set(MODULES)


@pytest.mark.parametrize("module", TEXTUAL_FREE)
def test_model_module_imports_no_textual_or_rich(module):
    code = (f"import sys, importlib; importlib.import_module({module!r}); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')); print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} pulled in {out.stdout.strip()}"


def test_the_model_imports_neither_the_ui_nor_the_session_level_code():
    bad = {m: sorted(i for i in imports_of(m) if i.startswith(("dsh_tui.ui", "dsh_tui.sessions")))
           for m in MODULES if m.startswith("dsh_tui.model")}
    assert {m: i for m, i in bad.items() if i} == {}
    bad = {m: sorted(i for i in imports_of(m) if i.startswith("dsh_tui.ui"))
           for m in MODULES if m.startswith("dsh_tui.sessions")}
    assert {m: i for m, i in bad.items() if i} == {}


def cycles_in(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk of ``graph`` meets (node -> the nodes it imports)."""
    cycles, state, stack = [], {}, []

    def visit(m: str) -> None:  # colours: 1 on the stack, 2 done
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2
    for m in sorted(graph):
        if m not in state:
            visit(m)
    return cycles


def test_no_import_cycles():
    graph = {m: imports_of(m) - {p for p in MODULES if m.startswith(p + ".")} for m in MODULES}  # not its parents
    assert cycles_in(graph) == []


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
                                "m in ('zipfile', 'hashlib', 'regex', 'dsh_tui.model.presenting.redact')").endswith("[]")


def _dataclasses_in(name: str) -> list[str]:
    """The classes of module ``name`` decorated `@dataclass` (bare, called, or as `dataclasses.dataclass`)."""
    out = []
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.ClassDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if (isinstance(target, ast.Name) and target.id == "dataclass"
                        or isinstance(target, ast.Attribute) and target.attr == "dataclass"):
                    out.append(f"{name}.{node.name}")
    return out


def test_the_textual_free_code_declares_no_dataclass():
    """Start-up: a dataclass writes and compiles its methods at every import (~0.5 ms a class; the
    model's 51 were a third of `check`'s imports). Its record classes are msgspec Structs, made in C."""
    assert [c for m in TEXTUAL_FREE for c in _dataclasses_in(m)] == []
    assert any(_dataclasses_in(m) for m in MODULES if m.startswith("dsh_tui.ui."))  # (the UI keeps its own)
