"""take_notes skips the fact types it does not read before comparing with the ones it does
(`notes.NOTED`): a branch for a type left out of the set would never run, so the set is the list of
the types its chain compares with."""

from __future__ import annotations

import ast
import inspect

from dsh_tui.model.diagnosing import notes, pairing
from dsh_tui.model.reading import facts


def _compared_types(func) -> set[str]:
    """The fact types ``func`` compares ``t`` with (a literal, a tuple of them, or a facts.py name)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(func))):
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
    assert _compared_types(notes.take_notes) == set(notes.NOTED)


def test_a_fact_of_another_type_leaves_the_notes_and_pairs_as_they_were():
    others = [("tool/call", 1, 1, (1, 1, "c", "bash", "{}", None)), ("step/end", 2, 2, (1, 1, None)),
              (facts.CHUNKS, 3, 3, [1, 1, 2, None, None, 0, 0, 2, 0])]
    after = notes.Notes()
    notes.take_notes(after, others)
    assert after == notes.Notes()
    out = pairing.Pairing()
    pairing.feed_facts(out, others[2:])
    assert len(out.tools) == 0 and out.state.last_seq == 3
