"""The runs of one log: a session resumed by dsh (or forked) holds one run per stretch between its
``session/end-seed`` rows (dsh appends one each time it builds a session from a seed: every resume,
every fork). `diff FILE --runs` compares the last two."""

from __future__ import annotations

from ..context.select import indices_of

END_SEED = "session/end-seed"


def run_bounds(log) -> list[tuple[int, int]]:
    """[lo, hi) event ranges of the log's runs, in order; an end-seed row closes the run before it."""
    cuts = [i + 1 for i in indices_of(log, (END_SEED,))]
    bounds, lo = [], 0
    for cut in cuts:
        if cut > lo:
            bounds.append((lo, cut))
        lo = cut
    if lo < len(log):
        bounds.append((lo, len(log)))
    return bounds


def last_two_runs(log) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The two latest runs, or None when the log holds one."""
    bounds = run_bounds(log)
    return (bounds[-2], bounds[-1]) if len(bounds) >= 2 else None
