"""The controllers reach the explorer only through their ports (dsh_tui/ui/controllers/ports.py): each
declares one (``port: JumpsPort``), reads and calls on ``self.port`` only what that port names, never
holds the app, and the explorer screen has every member of every port."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Protocol

from dsh_tui.ui.controllers import ports
from dsh_tui.ui.screens.explorer import ExplorerScreen

CONTROLLERS = Path(ports.__file__).parent
MODULES = sorted(p for p in CONTROLLERS.glob("*.py") if p.name not in ("__init__.py", "ports.py"))


def members(protocol: type) -> set[str]:
    """The names a port declares: its attributes, properties and methods, its bases' too."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls.__module__ != ports.__name__:
            continue
        names |= set(vars(cls).get("__annotations__", {}))
        names |= {n for n, v in vars(cls).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    return names


def port_of(cls: ast.ClassDef) -> str | None:
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == "port":
            return ast.unparse(stmt.annotation)
    return None


def uses(node: ast.AST) -> set[str]:
    """The attributes read or called on the port: ``self.port.x``, or ``port.x`` on a local alias."""
    found = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Attribute):
            continue
        value = sub.value
        on_self = (isinstance(value, ast.Attribute) and value.attr == "port" and isinstance(value.value, ast.Name)
                   and value.value.id == "self")
        if on_self or (isinstance(value, ast.Name) and value.id == "port"):
            found.add(sub.attr)
    return found


def test_every_controller_declares_a_port_and_uses_only_it():
    problems = []
    for path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for sub in ast.walk(tree):  # the app is out of reach: no ``app`` name, no ``.app`` attribute
            if getattr(sub, "id", None) == "app" or getattr(sub, "attr", None) == "app":
                problems.append(f"{path.name}:{sub.lineno}: reaches for the app")
        classes = [c for c in tree.body if isinstance(c, ast.ClassDef)
                   and (c.name.endswith("Controller") or any(ast.unparse(b) == "Controller" for b in c.bases))]
        for cls in classes:
            name = port_of(cls)
            if name is None:
                problems.append(f"{path.name}: {cls.name} declares no port")
                continue
            protocol = getattr(ports, name)
            outside = sorted(uses(cls) - members(protocol))
            if outside:
                problems.append(f"{path.name}: {cls.name} uses {outside}, not in {name}")
        assert classes or path.name == "base.py" or not uses(tree), path
    assert not problems, "\n".join(problems)


def test_the_explorer_screen_is_every_port():
    screen = ExplorerScreen("demo.jsonl")
    protocols = [p for _, p in inspect.getmembers(ports, inspect.isclass)
                 if p.__module__ == ports.__name__ and issubclass(p, Protocol)]
    assert len(protocols) > 15
    for protocol in protocols:
        missing = [m for m in members(protocol) if m not in vars(screen) and not hasattr(ExplorerScreen, m)]
        assert not missing, (protocol.__name__, missing)


def test_a_controller_holds_no_other_controller():
    """A controller reaches another only through the port's routed calls: no module imports another's
    controller class (the messages and dataclasses they share are fine)."""
    for path in MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 1:
                names = [a.name for a in node.names]
                assert not [n for n in names if n.endswith("Controller") and n != "Controller"], (path.name, names)


def test_no_screen_or_widget_reaches_for_the_explorer_through_the_app():
    """A screen over the explorer, a widget or a controller is given what it calls (a port, or a
    callable in its constructor): none looks up ``app.explorer`` to find another's controller."""
    ui = CONTROLLERS.parent
    found = []
    for path in sorted([*ui.glob("screens/*.py"), *ui.glob("widgets/*.py"), *CONTROLLERS.glob("*.py")]):
        if path.name == "explorer.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "explorer":
                found.append(f"{path.name}:{node.lineno}")
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) > 1
                  and isinstance(node.args[1], ast.Constant) and node.args[1].value == "explorer"):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []
