"""Private Textual names are used in one fenced place: dsh_tui/ui/compat/.

A private name is a module of Textual's starting with ``_`` (``textual._compositor``), a ``_name``
imported from Textual, or a ``_name`` attribute Textual defines (``_size_updated``,
``_compositor``, ``_bindings_ready``...). Outside ui/compat/ the package may not name one:

- no import of ``textual._x`` nor of a ``_name`` from a Textual module;
- no ``<expr>._name`` (nor ``getattr(x, "_name")``) for a name Textual's classes define (or one of
  KNOWN) that the package's own classes do not define themselves (``os._exit`` is os's: skipped);
- in every class of ours whose bases include a Textual class, no ``self._name``/``super()._name``
  and no method or class attribute ``_name`` that a Textual class of the same MRO defines: an
  override of ``_on_blur`` or a read of ``self._size`` is a use of Textual's internals, and a
  name of ours that merely collides would clobber Textual's.

The names Textual defines are read from the installed Textual's source, so a newer Textual's new
privates are covered too. Tests may still read ``app._notifications``, ``screen._compositor`` and
``app._exception`` (tests/support/app.py): Textual offers no public way to see them.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from functools import lru_cache
from pathlib import Path

import textual

import dsh_tui

PACKAGE_DIR = Path(dsh_tui.__file__).parent
TEXTUAL_DIR = Path(textual.__file__).parent
FENCE = PACKAGE_DIR / "ui" / "compat"
# Named in the issue; flagged even where a class of ours defines the same name.
KNOWN = frozenset({"_compositor", "_size_updated", "_component_styles", "_on_blur", "_on_focus", "_bindings_ready",
                   "_vertical_scrollbar", "_start_widget", "_notifications", "_exception", "_exit", "_size",
                   "_get_renders", "_dirty_regions", "_visible_widgets", "_get_component_classes"})


# Uses allowed for a while (where -> names), e.g. in a module whose change is still to come.
# An entry no longer found fails: drop it then.
PENDING_READS: dict[str, tuple[str, ...]] = {}
PENDING_CLASSES: dict[str, tuple[str, ...]] = {}


def without_pending(found: dict[str, list[str]], pending: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """``found`` (where -> hits) less the pending uses; each of those must still be there."""
    def is_pending(where: str, hit: str) -> bool:
        return any(f"{name} " in hit or hit.endswith(f".{name}") or f"'{name}'" in hit for name in pending.get(where, ()))

    for where, names in pending.items():
        assert len([h for h in found.get(where, []) if is_pending(where, h)]) >= len(names), \
            f"{where} no longer uses {names}: drop it from the pending list"
    return {where: left for where, hits in found.items() if (left := [h for h in hits if not is_pending(where, h)])}


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_names(tree: ast.AST) -> set[str]:
    """Private names the classes in ``tree`` define: methods, class attributes, ``self._x = ...``."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out.add(item.name)
                elif isinstance(item, ast.Assign):
                    out |= {t.id for t in item.targets if isinstance(t, ast.Name)}
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.add(item.target.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            out.add(node.attr)
    return {n for n in out if is_private(n)}


@lru_cache(maxsize=None)
def textual_privates() -> frozenset[str]:
    names: set[str] = set()
    for path in TEXTUAL_DIR.rglob("*.py"):
        names |= defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def our_files() -> list[Path]:
    return sorted(p for p in PACKAGE_DIR.rglob("*.py") if FENCE not in p.parents)


@lru_cache(maxsize=None)
def own_names() -> frozenset[str]:
    """Private names the package's own classes define (outside the fence), less the known Textual ones."""
    names: set[str] = set()
    for path in our_files():
        names |= defined_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names - KNOWN)


def private_imports(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.startswith("textual.") and any(
                is_private(part) for part in a.name.split("."))]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "textual":
            parts = (node.module or "").split(".")
            if any(is_private(p) for p in parts):
                out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names if is_private(a.name)]
    return out


def private_reads(tree: ast.AST, forbidden: frozenset[str]) -> list[str]:
    """``<expr>._name`` and ``getattr(x, "_name", ...)`` for a forbidden name; ``module._name`` of a
    module this file imports (``os._exit``) is that module's business."""
    modules = {a.asname or a.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for a in node.names if not a.name.startswith("textual")}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in forbidden:
            if not (isinstance(node.value, ast.Name) and node.value.id in modules):
                out.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in forbidden:
            out.append(f"{node.lineno}: {node.func.id}(..., {node.args[1].value!r})")
    return sorted(out)


def names_on_self(cls: type) -> dict[str, int]:
    """Private names a class of ours uses on itself: its methods and class attributes, ``self._x``, ``super()._x``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr) and (
                (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
                or (isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id == "super")):
            out.setdefault(node.attr, node.lineno)
    body = tree.body[0].body if tree.body else []
    for item in body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_private(item.name):
            out.setdefault(item.name, item.lineno)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            out |= {t.id: item.lineno for t in targets if isinstance(t, ast.Name) and is_private(t.id)
                    and t.id not in out}
    return out


@lru_cache(maxsize=None)
def privates_of_textual_class(cls: type) -> frozenset[str]:
    try:
        return frozenset(defined_names(ast.parse(inspect.getsource(cls))))
    except (OSError, TypeError):  # no source (a C type): it defines nothing we could shadow by name
        return frozenset()


def is_textual(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "textual"


def overrides(cls: type, ours) -> list[str]:
    """Where the classes of ``cls``'s MRO that ``ours(c)`` accepts use a private name of its Textual classes."""
    textual_classes = [c for c in cls.__mro__ if is_textual(c)]
    if not textual_classes:
        return []
    theirs = frozenset().union(*(privates_of_textual_class(c) for c in textual_classes)) | KNOWN
    out = []
    for c in cls.__mro__:
        if ours(c):
            out += [f"{c.__module__}.{c.__qualname__}: {name} (line {line})"
                    for name, line in names_on_self(c).items() if name in theirs]
    return out


def outside_fence(c: type) -> bool:
    module = c.__module__
    return module.startswith("dsh_tui.") and not module.startswith("dsh_tui.ui.compat")


def ui_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages([str(PACKAGE_DIR)], prefix="dsh_tui.")
                  if info.name.startswith(("dsh_tui.ui", "dsh_tui.splash")))


# -- the package --------------------------------------------------------------------------------------
def test_no_private_textual_import_outside_the_fence():
    found = {str(p.relative_to(PACKAGE_DIR)): hits for p in our_files()
             if (hits := private_imports(ast.parse(p.read_text(encoding="utf-8"))))}
    assert not found, f"private Textual modules/names imported outside ui/compat/: {found}"


def test_no_private_textual_attribute_outside_the_fence():
    forbidden = (textual_privates() - own_names()) | KNOWN
    found = without_pending({str(p.relative_to(PACKAGE_DIR)): hits for p in our_files()
                             if (hits := private_reads(ast.parse(p.read_text(encoding="utf-8")), forbidden))},
                            PENDING_READS)
    assert not found, f"private Textual attributes used outside ui/compat/ (use dsh_tui.ui.compat): {found}"


def test_no_class_outside_the_fence_overrides_or_reads_textual_internals():
    found: dict[str, list[str]] = {}
    seen: set[type] = set()
    for name in ui_modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls not in seen and cls.__module__ == name:
                seen.add(cls)
                for hit in overrides(cls, outside_fence):
                    found.setdefault(hit.split(":")[0], []).append(hit)
    assert seen, "no class found: the walk is broken"
    found = without_pending(found, PENDING_CLASSES)
    assert not found, f"Textual internals used by classes outside ui/compat/: {found}"


# -- the checks catch what they must ------------------------------------------------------------------
def test_the_checks_catch_each_kind_of_use():
    source = (
        "import os\n"
        "from textual._compositor import Compositor\n"
        "import textual._xterm_parser\n"
        "from textual.app import _private_helper\n"
        "def f(app, screen):\n"
        "    os._exit(0)\n"
        "    screen._compositor.render_strips()\n"
        "    return getattr(app, '_exit', False) or app._notifications\n")
    tree = ast.parse(source)
    assert private_imports(tree) == ["textual._compositor", "textual._xterm_parser", "textual.app._private_helper"]
    forbidden = (textual_privates() - own_names()) | KNOWN
    assert private_reads(tree, forbidden) == ["7: ._compositor", "8: ._notifications", "8: getattr(..., '_exit')"]
    assert {"_size_updated", "_on_blur", "_compositor", "_bindings_ready"} <= textual_privates()


class _Mixin:  # a mixin of ours: judged within the MRO of the widget that uses it
    def _on_blur(self, event) -> None:
        pass


def test_an_override_or_a_read_of_a_textual_private_is_caught():
    from textual.scroll_view import ScrollView

    class Sized(_Mixin, ScrollView):
        _label = "mine"  # no Textual class of this MRO defines it: fine

        def _size_updated(self, size, virtual_size, container_size, layout=True):
            return super()._size_updated(size, virtual_size, container_size, layout)

        def render_line(self, y):
            return self._size

    found = overrides(Sized, lambda c: c.__module__ == __name__)
    names = sorted(hit.split(": ")[1].split(" ")[0] for hit in found)
    assert names == ["_on_blur", "_size", "_size_updated"], found
