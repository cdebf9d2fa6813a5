"""What the diagnosis gathers fact by fact, besides the pairing: one resumable pass.

`take_notes` reads the compact facts (facts.py) a log's scan kept, in log
order, and can be called again with the facts indexed since (a big log's head
is noted while its tail is still being read).
"""

from __future__ import annotations

from msgspec import Struct, field

from ..reading.facts import FINISH, key_value
from ..columns.interning import shared_name
from ..columns.perturn import TurnEnds


class Notes(Struct):
    # Every turn/end as (turn, reason kind), in log order; the facts of those not "completed" (a finding
    # each), and the index of the last. Not every fact: a big log has tens of thousands of turns.
    turn_ends: TurnEnds = field(default_factory=TurnEnds)
    bad_turn_ends: list = field(default_factory=list)
    last_turn_end: int | None = None
    turn_end_kind: dict = field(default_factory=dict)  # turn -> reason.kind of its (last) turn/end
    # (turn, step) -> [its llm/retry rows, and the type, index and seq of its last llm/retry(-started)]: a
    # row is (index, seq, retry, maxRetries, failure code, failure message), what its finding says, not
    # the fact (a big log has tens of thousands of retries: their facts held to the end left ~10 MiB of
    # holes in the allocator once freed)
    retries: dict = field(default_factory=dict)
    # What tells a retry's outcome, kept only once a retry is noted (what came before cannot be after
    # it): (turn, step) -> index of its latest assistant/message; turn -> index of its latest step/start.
    answered: dict = field(default_factory=dict)
    step_starts: dict = field(default_factory=dict)
    retry_turns: set = field(default_factory=set)
    preset: list = field(default_factory=list)  # the latest agent-preset/selected's agentPreset, if any
    descriptor: dict | None = None
    latest_tools: object = None
    end_seeds: list = field(default_factory=list)  # (index, seq) of each session/end-seed
    compactions: dict = field(default_factory=dict)  # compactionId -> [start fact, end fact or None]
    dispatches: dict = field(default_factory=dict)  # subCallId -> [start fact, done fact or None]
    workflow: list = field(default_factory=list)  # tool-workflow agent-end / run-end facts that failed
    hooks: list = field(default_factory=list)  # hook/result facts with a blocking decision
    goals: list = field(default_factory=list)  # goal/change facts that block the goal
    cut_messages: list = field(default_factory=list)  # assistant/message facts with interrupted: true
    bad_finishes: list = field(default_factory=list)  # assistant/chunk finish facts with reason error / aborted


BLOCKING_HOOK_DECISIONS = frozenset({"block", "deny", "blocked", "denied"})


# The fact types take_notes reads: the others (a big log's chunk runs, step ends, tool calls and
# results: half its facts) are passed over at once, not after a compare with each of these.
NOTED = frozenset({"turn/end", "step/start", "llm/retry", "llm/retry-started", "assistant/message", FINISH,
                   "session/end-seed", "compaction/start", "compaction/end", "tool/code-dispatch-start",
                   "tool/code-dispatch", "tool-workflow/agent-end", "tool-workflow/run-end", "hook/result",
                   "goal/change", "agent-preset/selected", "subagent/descriptor", "request/header"})


def take_notes(notes: Notes, facts) -> None:
    retries, answered, retry_turns = notes.retries, notes.answered, notes.retry_turns
    for f in facts:
        t, index, seq, d = f
        if t not in NOTED:
            continue
        if t == "request/header":  # (as often as a model call: first, not last)
            notes.latest_tools = d[0]
        elif t == "turn/end":
            reason = d[1]
            kind = shared_name(reason.get("kind") if isinstance(reason, dict) else None)  # (one str, not one a turn)
            notes.turn_ends.append((d[0], kind))
            if kind != "completed":
                notes.bad_turn_ends.append(f)
            notes.last_turn_end = index
            notes.turn_end_kind[d[0]] = kind
        elif t == "step/start":
            if d[0] in retry_turns:
                notes.step_starts[d[0]] = index
        elif t in ("llm/retry", "llm/retry-started"):
            group = retries.get(key := (d.get("turn"), d.get("step")))
            if group is None:
                group = retries[key] = [[], t, index, seq]
            else:
                group[1:] = t, index, seq
            if t == "llm/retry":
                failure = d.get("failure") if isinstance(d.get("failure"), dict) else {}
                group[0].append((index, seq, d.get("retry"), d.get("maxRetries", "∞"),
                                 shared_name(failure.get("code")), failure.get("message")))  # (a few codes, 20k times)
            retry_turns.add(d.get("turn"))
        elif t == "assistant/message":
            if (d[0], d[1]) in retries:
                answered[(d[0], d[1])] = index
            if d[3]:
                notes.cut_messages.append(f)
        elif t == FINISH:
            notes.bad_finishes.append(f)
        elif t == "session/end-seed":
            notes.end_seeds.append((index, seq))
        elif t == "compaction/start":
            notes.compactions[key_value(d.get("compactionId"))] = [f, None]
        elif t == "compaction/end":
            notes.compactions.setdefault(key_value(d.get("compactionId")), [None, None])[1] = f
        elif t == "tool/code-dispatch-start":
            notes.dispatches[d[1]] = [f, None]
        elif t == "tool/code-dispatch":
            notes.dispatches.setdefault(d[1], [None, None])[1] = f
        elif t == "tool-workflow/agent-end":
            if d.get("outcome") in ("failed", "cancelled"):
                notes.workflow.append(f)
        elif t == "tool-workflow/run-end":
            if d.get("stopReason") in ("error", "cancelled"):
                notes.workflow.append(f)
        elif t == "hook/result":
            if isinstance(d.get("decision"), str) and d["decision"].lower() in BLOCKING_HOOK_DECISIONS:
                notes.hooks.append(f)
        elif t == "goal/change":
            if d[0] == "block":
                notes.goals.append(f)
        elif t == "agent-preset/selected":
            if "agentPreset" in d:
                notes.preset[:] = [d["agentPreset"]]
        elif t == "subagent/descriptor":
            notes.descriptor = d
