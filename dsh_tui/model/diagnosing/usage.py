"""Token usage per turn and per session.

Counted as dsh's own token meter folds the samples (`@deepseek-ai/dsh-token-meter`, its usage
projection): a sample (an assistant/message's `usage`, or a `usage` chunk) replaces the previous one
only when that belongs to the same (turn, step); otherwise it adds. So the last adjacent sample of a
call wins (usually its message; its chunk when that comes after), and a call whose sample comes back
after another call's is counted again (calltable.py keeps one entry per such run). Events inherited
through a fork (seq < seedLength) are summed apart: they were the parent's calls.
"""

from __future__ import annotations

from array import array
from operator import add, sub
from typing import Any, Iterator

from msgspec import Struct, field

from ..columns.calltable import CallTable
from ..columns.perturn import TurnCounts
from ..reading.tokens import TOKEN_KEYS

DSH_METER_KEYS = TOKEN_KEYS[:4]  # dsh's meter buckets (inputTokens is its "uncachedInputTokens")


class Usage(Struct):
    session: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOKEN_KEYS, 0))
    inherited: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOKEN_KEYS, 0))
    # turn -> its TOKEN_KEYS counts (a tuple), in first-seen order: a dict, or its columns (perturn.py)
    turns: dict[Any, tuple[int, ...]] | TurnCounts = field(default_factory=dict)
    calls: int = 0
    from_message: int = 0  # calls whose last usage is the assistant/message's (else a usage chunk's)
    # Which sample won for each counted run of a call's samples, in the meter's order, as `won_rows`
    # gives them: (turn, step, seq of the sample, True if a usage chunk's). Kept as columns
    # (`_won_columns`): a tuple of four objects a call was ~15 MiB on a 10M-event log.
    won: list | tuple = field(default_factory=list)
    # What dsh's meter counts when dsh loads only a prefix of the log (a resume cut, resume.py): that
    # prefix's fold, in its four buckets; None when dsh loads the whole log.
    dsh_loaded: dict | None = None
    dsh_nan: int = 0  # buckets dsh's meter makes NaN (1: input, 2: output): a sample lacking that count

    @property
    def dsh_total(self) -> dict[str, int]:
        """What dsh's own token meter counts over the whole log: this session's calls and those inherited
        through a fork seed, in its four buckets (it keeps no reasoning count); over the prefix dsh
        loads when its loader stops at damage mid-log (``dsh_loaded``)."""
        if self.dsh_loaded is not None:
            return dict(self.dsh_loaded)
        out = {k: self.session[k] + self.inherited[k] for k in DSH_METER_KEYS}
        for bit, key in ((1, "inputTokens"), (2, "outputTokens")):
            if self.dsh_nan & bit:
                out[key] = None  # NaN in dsh's meter (JSON null): a sample without this count poisons it
        return out

    def as_dict(self, many=list) -> dict:
        """``many``: what makes the per-turn list (`jsonstream.Items` writes it as it goes)."""
        return {"session": self.session, "inherited": self.inherited, "dsh_total": self.dsh_total,
                "calls": self.calls,
                "calls_from_message_usage": self.from_message,
                "turns": many({"turn": t, **dict(zip(TOKEN_KEYS, v))} for t, v in self.turns.items()),
                "source": {"rule": SOURCE_RULE,
                           "calls": many({"turn": t, "step": st, "seq": seq,
                                          "sample": "usage chunk" if chunk else "assistant/message"}
                                         for t, st, seq, chunk in self.won_rows())}}

    def won_rows(self) -> Iterator[tuple]:
        won = self.won
        if type(won) is not tuple:
            return iter(won)
        codes, seqs, chunk, odd = won
        return ((*(odd[k] if c < 0 else (c >> 32, c & _LOW)), seqs[k], bool(chunk[k])) for k, c in enumerate(codes))


SOURCE_RULE = ("dsh's meter: a sample (assistant/message usage or a usage chunk) replaces the previous one only "
               "when that is of the same (turn, step), else it adds; the last adjacent sample of a call wins")


def compute_usage(log, tally: UsageTally | None = None) -> Usage:
    """The log's token usage from the per-call counts its scan kept (``res.usage_calls``, facts.py);
    ``tally``: one kept up to date while the log was read (used if it assumed the right seed)."""
    seed = log.header.get("seedLength")
    seed = int(seed) if isinstance(seed, (int, float)) and not isinstance(seed, bool) else 0
    if tally is None or tally.seed != seed:
        tally = UsageTally(seed)
    return tally.usage(log.res.usage_calls)


class UsageTally:
    """Sums per turn of a growing per-call table (the tail helper's slices are merged into it while
    the head's diagnosis goes on), so the sums are mostly done by the time the table is whole.
    One tally follows a table as it grows (the head's); compute_usage's fresh one reads it once.
    It keeps nothing per call: the table logs the old value of a call rewritten after it was counted."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.n = 0  # the table's calls counted: its first n positions
        self.crossed = False  # a call inherited from the seed until its later usage
        # Each turn's summed counts (TOKEN_KEYS), in first-seen order: its row in ``sums`` (an int64
        # array, a list past int64), not a tuple a turn (40k+ tuples and their ints, freed once the
        # usage is made, were ~7 MiB of holes the allocator kept on a 10M-event log). The turn being
        # counted is summed in ``current`` and written back when another comes (a turn's calls follow on).
        self.at: dict[Any, int] = {}
        self.sums: array | list = array("q")
        self.current: tuple | None = None  # (turn, its row, its sums so far)
        self.inherited: tuple[int, ...] = (0,) * len(TOKEN_KEYS)  # calls before seedLength (a fork's parent's)
        self.calls = self.from_message = 0

    def add(self, table: CallTable) -> None:
        """Count the calls appended to ``table`` since the last add (a table only grows at its end), and
        recount those counted before that have a later usage now (a message read after its chunk, in
        the next batch or slice): a few a batch, so the table's log of them is emptied each time."""
        replaced = table.replaced
        if self.n and replaced:
            self._recount(table, replaced)
        del replaced[:]  # (a fresh tally counts the table as it is now)
        count = self._count
        for key, seq, from_chunk, counts in table.rows(self.n):
            count(key[0], seq, counts, from_chunk)
        self.n = len(table)
        table.watched = max(table.watched, self.n)

    def _recount(self, table: CallTable, replaced: list) -> None:
        done, seed = set(), self.seed
        key_at = table.key_at
        for p, seq, counts, from_chunk in replaced:
            if p in done:  # the first rewrite since the last add keeps the value counted
                continue
            done.add(p)
            now = table.row(p)
            self.crossed |= seq < seed <= now[0]
            turn = key_at(p)[0]
            self._count(turn, seq, counts, from_chunk, -1)
            self._count(turn, *now)

    def _count(self, turn: Any, seq: int, counts: tuple, from_chunk: Any, sign: int = 1) -> None:
        """Add one call's counts (with ``sign`` -1, take them back)."""
        op = add if sign > 0 else sub  # the operator module's (this class has an add of its own)
        if seq < self.seed:
            self.inherited = tuple(map(op, self.inherited, counts))
            return
        self.calls += sign
        self.from_message += sign * (not from_chunk)
        current = self.current
        if current is not None and (turn is current[0] or turn == current[0]):  # (a dict key's equality)
            self.current = (current[0], current[1], tuple(map(op, current[2], counts)))
            return
        self._settle()
        k = self.at.get(turn)
        if k is None:
            k = self.at[turn] = len(self.at)
            self.sums += _ZEROS
            self.current = (turn, k, counts)
        else:
            self.current = (turn, k, tuple(map(op, self.sums[k * _W:(k + 1) * _W], counts)))

    def _settle(self) -> None:
        """The turn being counted written back into its row."""
        if self.current is None:
            return
        _turn, k, summed = self.current
        self.current = None
        try:
            self.sums[k * _W:(k + 1) * _W] = array("q", summed) if type(self.sums) is array else list(summed)
        except OverflowError:  # past int64 (a crafted log): a list from now on
            self.sums = list(self.sums)
            self.sums[k * _W:(k + 1) * _W] = list(summed)

    def usage(self, table: CallTable) -> Usage:
        self.add(table)
        self._settle()
        if self.crossed:  # its turn in table order, not where its recount put it
            seed, at, sums = self.seed, self.at, self.sums
            order = dict.fromkeys(turn for (turn, _), s in zip(table.keys(), table.cols[0]) if s >= seed)
            rows = [sums[at[turn] * _W:(at[turn] + 1) * _W] for turn in order]
            self.sums = sums[:0]  # (empty, of its kind)
            for row in rows:
                self.sums += row
            self.at = {turn: k for k, turn in enumerate(order)}
        out = Usage(calls=self.calls, from_message=self.from_message, dsh_nan=table.nan,
                    won=_won_columns(table))
        out.inherited = dict(zip(TOKEN_KEYS, self.inherited))
        out.turns = TurnCounts.of_rows(list(self.at), self.sums, _W)
        out.session = {key: sum(self.sums[i::_W]) for i, key in enumerate(TOKEN_KEYS)}  # the sum of its turns
        return out


def _won_columns(table: CallTable) -> tuple:
    """(each call's key coded as turn << 32 | step, or -1 with the key in ``odd`` by position; the
    seqs; the chunk flags; odd): `Usage.won_rows` reads them back."""
    if table.firsts is table.codes and not table.odd:  # a usual table's codes are these (turn << 32 | step)
        return (array("q", table.codes), _won_seqs(table), bytes(table.chunk), {})
    codes, odd = array("q"), {}
    for k, key in enumerate(table.keys()):
        t, s = key
        if type(t) is int and type(s) is int and 0 <= t < _TOP and 0 <= s < _TOP:
            codes.append(t << 32 | s)
        else:  # a bool, a float, a string, a negative or huge number: kept as it was read
            codes.append(-1)
            odd[k] = key
    return (codes, _won_seqs(table), bytes(table.chunk), odd)


def _won_seqs(table: CallTable) -> array | list:
    seqs = table.cols[0]
    for typecode in ("I", "q"):  # 4 bytes a call while the seqs fit (they do below 2**32 events)
        try:
            seqs = array(typecode, seqs)
            break
        except OverflowError:
            continue
    else:  # (a crafted log's seq past int64: its list)
        seqs = list(seqs)
    return seqs


_TOP, _LOW = 1 << 31, (1 << 32) - 1
_W = len(TOKEN_KEYS)
_ZEROS = array("q", [0] * _W)
