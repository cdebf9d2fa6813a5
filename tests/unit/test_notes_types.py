"""take_notes passes over the fact types it does not read before comparing with the ones it does
(`NOTED`): a branch for a type left out of NOTED would never run, so the two are one list."""

from __future__ import annotations

import ast
import inspect

from dsh_tui.model.diagnosing import notes
from dsh_tui.model.reading import facts


def _compared_types() -> set[str]:
    tree = ast.parse(inspect.getsource(notes.take_notes))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "t":
            for right in node.comparators:
                if isinstance(right, ast.Constant):
                    out.add(right.value)
                elif isinstance(right, ast.Tuple):
                    out.update(e.value for e in right.elts if isinstance(e, ast.Constant))
                elif isinstance(right, ast.Name) and hasattr(facts, right.id):
                    out.add(getattr(facts, right.id))
    return out


def test_every_type_take_notes_reads_is_noted():
    assert _compared_types() == set(notes.NOTED)


def test_a_fact_of_another_type_leaves_the_notes_as_they_were():
    before = notes.Notes()
    after = notes.Notes()
    notes.take_notes(after, [("tool/call", 1, 1, (1, 1, "c", "bash", "{}", None)), ("step/end", 2, 2, (1, 1, None))])
    assert after == before
