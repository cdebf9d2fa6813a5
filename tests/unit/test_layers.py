"""The model's layers: every import inside `dsh_tui.model` goes down this order, and no package
of the model imports, directly or through others, a package that imports it.

Read from the source as test_import_hygiene.py reads it: every `import` / `from ... import` of a
dsh_tui module, wherever it stands (module level, inside a function, under TYPE_CHECKING). A
subpackage counts as its package's (reading/split is reading). A new package of the model fails
here until it is given a place in MODEL_LAYERS (and in docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import pkgutil

from .test_import_hygiene import MODULES, PACKAGE_DIR, cycles_in, imports_of

# Lowest first. Packages on one row are peers: neither may import the other.
MODEL_LAYERS = (
    ("columns",),  # generic column stores: no domain imports at all
    ("reading",),  # bytes to an index: frames, the scan, dsh's load checks, export ZIPs
    ("diagnosing",),  # the index to findings and a verdict
    ("context", "opening"),  # what the model saw / a log opened: cache, decode, diagnosis
    ("sessions",),  # the session tree: layout, entries, discovery (opens logs), lineage
    ("presenting",),  # what a person reads (the report prints a lineage and the context)
    ("diffing",),  # two runs aligned (its report writes with presenting's writers)
)
RANK = {pkg: i for i, row in enumerate(MODEL_LAYERS) for pkg in row}


def layer_of(module: str) -> str | None:
    """`dsh_tui.model.reading.split.helper` -> ``reading``; None for `dsh_tui.model` itself."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else None


MODEL = sorted(m for m in MODULES if m.startswith("dsh_tui.model."))


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {pkg: set() for pkg in RANK}
    for m in MODEL:
        here = layer_of(m)
        for i in imports_of(m):
            there = layer_of(i) if i.startswith("dsh_tui.model.") else None
            if there is not None and there != here:
                graph.setdefault(here, set()).add(there)
    return graph


def test_every_model_package_has_its_layer():
    on_disk = {info.name for info in pkgutil.iter_modules([str(PACKAGE_DIR / "model")])}
    loose = sorted(n for n in on_disk if (PACKAGE_DIR / "model" / f"{n}.py").exists())
    assert loose == [], "a module of the model belongs in one of its packages"
    assert on_disk == set(RANK)


def test_the_walk_sees_imports_inside_functions():
    # presenting/report.py imports the lineage's writers inside its functions (`check` without a
    # family never loads them): the check below must see such an import.
    assert "dsh_tui.model.sessions.lineage" in imports_of("dsh_tui.model.presenting.report")


def test_model_imports_go_down_the_layers():
    upward = []
    for m in MODEL:
        here = layer_of(m)
        for i in sorted(imports_of(m)):
            there = layer_of(i) if i.startswith("dsh_tui.model.") else None
            if there is None or there == here:
                continue
            if not RANK[there] < RANK[here]:
                upward.append(f"{m} -> {i} ({here} is not above {there})")
    assert upward == []


def test_the_column_stores_import_nothing_of_the_domain():
    bad = {m: sorted(i for i in imports_of(m) if i.startswith("dsh_tui.") and not i.startswith("dsh_tui.model.columns"))
           for m in MODEL if layer_of(m) == "columns"}
    assert {m: i for m, i in bad.items() if i} == {}


def test_no_package_cycle_in_the_model():
    assert cycles_in(package_graph()) == []
