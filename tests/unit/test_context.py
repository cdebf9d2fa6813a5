"""The model's context, request headers, files touched and loops (model/context/), on a log written by
dsh's own writer (tests/parity/write_context.mjs: a prune, a compaction, a header change between steps,
fs edits and a failing command repeated). What is expected is read from the file's own records, decoded
here apart from dsh-tui's reader, and checked against what the generator wrote."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import zstandard

from dsh_tui.model.context import export, files as files_mod, loops, requests, surface
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.reading.session import load_session
from tests.support.logs import HEADER, PARITY, ev, lines_of, result

CASE = PARITY / "context" / "root" / "--home-user-context--" / "context" / "session.jsonl.zstd"
SCRIPT = PARITY / "write_context.mjs"
ROOT = Path(__file__).resolve().parents[2]


def written_events(path: Path = CASE) -> list[dict]:
    """The events as the file holds them, decoded with zstandard alone (no dsh-tui code)."""
    with open(path, "rb") as fh:
        text = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True).read()
    out = [json.loads(line) for line in text.decode().splitlines()[1:]]
    assert all("seq" in e for e in out)  # the case has no packed rows (no chunk runs)
    return out


@pytest.fixture(scope="module")
def log():
    return load_session(CASE)


@pytest.fixture(scope="module")
def events():
    return written_events()


def test_the_fold_shadows_exactly_what_the_replacements_name(log, events):
    ctx = surface.context_at(log)
    by_seq = {e["seq"]: e for e in events}
    replacing = [e for e in events if isinstance(e.get("surfaceOp"), dict)]
    assert [r.seq for r in ctx.replacements] == [e["seq"] for e in replacing]
    for r, e in zip(ctx.replacements, replacing):
        record = by_seq[e["seq"] - 1]  # dsh writes the summary or the prune right before its replacement
        assert r.record_seq == record["seq"]
        assert r.kind == {"compaction/summary": "compaction", "compaction/prune": "prune"}[record["type"]]
        assert r.token_count == record["data"]["shadowedTokenCount"]
        # what it shadowed: the surface nodes it names that were current, i.e. the summary's shadowedSeqs
        assert list(r.shadowed) == record["data"]["shadowedSeqs"]
        assert set(r.shadowed) <= set(e["sourceEventSeqs"])
        for seq in r.shadowed:
            node = next(n for n in ctx.nodes if n.seq == seq)
            assert node.state == "shadowed" and node.by == e["seq"]
    compaction = ctx.replacements[-1]
    assert compaction.compaction_id == by_seq[compaction.record_seq]["data"]["compactionId"] == "cmp-ctx-1"
    assert (compaction.shadowed, compaction.token_count) == ((1, 4, 41, 10, 12), 2600)  # as write_context.mjs wrote
    assert (ctx.replacements[0].shadowed, ctx.replacements[0].token_count) == ((6,), 120)
    surface_seqs = [e["seq"] for e in events if "surfaceOp" in e]
    current = [n.seq for n in ctx.current]
    assert set(current) | {n.seq for n in ctx.shadowed} == set(surface_seqs)
    assert current[0] == compaction.seq  # the summary stands where the range began
    assert [n.type for n in ctx.nodes if n.state == "log-only"] == ["compaction/prune", "compaction/summary"]


def test_the_context_at_an_earlier_event_folds_only_what_came_before_it(log, events):
    prune = next(e for e in events if e["type"] == "compaction/prune")
    before = surface.context_at(log, log.index_of_seq(prune["seq"]))
    assert before.replacements == [] and before.shadowed == []
    after = surface.context_at(log, log.index_of_seq(prune["seq"] + 1))
    assert [n.seq for n in after.shadowed] == prune["data"]["shadowedSeqs"]
    assert all(n.seq <= prune["seq"] + 1 for n in after.nodes)


def test_the_fold_reads_the_events_when_the_scan_columns_are_missing(events):
    fresh = load_session(CASE)
    want = surface.context_at(fresh)
    fresh.res.surface_seqs = type(fresh.res.surface_seqs)("Q")  # as from an index without them
    fresh.res.replacements = []
    assert surface.context_at(fresh) == want


def test_header_diffs_are_the_changes_written(log, events):
    hs = requests.headers(log)
    written = [e for e in events if e["type"] == "request/header"]
    assert [h.seq for h in hs] == [e["seq"] for e in written]
    assert [h.reason for h in hs] == [e["data"]["reason"] for e in written]
    for h, e in zip(hs, written):
        assert list(h.tools) == [t["name"] for t in e["data"]["header"]["tools"]]
    assert hs[0].changes == {}
    assert hs[1].changes == {"tools_added": ["edit"], "tools_removed": ["write"],
                             "config": {"reasoningEffort": [None, "high"]},
                             "adapter_defaults": [None, {"reasoningEffort": True}]}
    assert hs[2].changes["tools_added"] == ["write"] and "tools_removed" not in hs[2].changes


def test_the_header_in_force_for_a_call_is_the_last_before_it(log, events):
    hs = requests.headers(log)
    for e in events:
        if e["type"] != "tool/call":
            continue
        want = max(h["seq"] for h in events if h["type"] == "request/header" and h["seq"] < e["seq"])
        assert requests.in_force(hs, log.index_of_seq(e["seq"])).seq == want
    edit = next(e for e in events if e["type"] == "tool/call" and e["data"]["name"] == "edit")
    assert "edit" in requests.in_force(hs, log.index_of_seq(edit["seq"])).tools


def test_input_tokens_per_request_and_the_compactions_before_it(log, events):
    reqs = requests.requests(log)
    msgs = [e for e in events if e["type"] == "assistant/message"]
    assert [r.seq for r in reqs] == [e["seq"] for e in msgs]
    for r, e in zip(reqs, msgs):
        u = e["data"]["usage"]
        assert r.input_tokens == u["inputTokens"] + u.get("cacheReadTokens", 0) + u.get("cacheWriteTokens", 0)
    records = [e["seq"] for e in events if e["type"] in ("compaction/summary", "compaction/prune")]
    with_records = [r for r in reqs if r.compactions]
    assert len(with_records) == 1 and list(with_records[0].compactions) == records
    assert with_records[0].seq > max(records)


def test_files_touched_from_fs_meta(log, events):
    fs = files_mod.files_touched(log)
    app = fs.files["src/app.py"]
    results = {e["seq"]: e for e in events if e["type"] == "tool/result" and e["surfaceOp"] == "append"}
    with_diffs = [s for s, e in results.items() if "diffs" in (e["data"].get("meta") or {})]
    assert [o.seq for o in app.ops] == with_diffs
    assert [o.op for o in app.ops] == ["write", "edit", "edit"]
    assert [o.diffs for o in app.ops] == [[(h["oldText"], h["newText"]) for h in results[s]["data"]["meta"]["diffs"]]
                                          for s in with_diffs]
    assert [o.op for o in fs.files["README.md"].ops] == ["read"]
    assert [f.path for f in fs.changed] == ["src/app.py"]


def test_loops_and_churn_are_info_findings_with_their_seqs(log, events):
    found = loops.loop_findings(log, files_mod.files_touched(log))
    kinds = {f.kind: f for f in found}
    assert set(kinds) == set(loops.LOOP_KINDS)
    assert all(f.severity == "info" for f in found)
    make = [e["seq"] for e in events if e["type"] == "tool/call" and e["data"]["arguments"] == '{"command":"make test"}']
    assert len(make) == 3
    assert kinds["REPEATED_CALL"].seq == make[-1] and f"seqs {', '.join(map(str, make))}" in kinds["REPEATED_CALL"].message
    assert "in a row" in kinds["REPEATED_CALL"].message
    assert kinds["SAME_ERROR_RETRY"].seq == make[-1]
    assert kinds["FILE_CHURN"].seq == files_mod.files_touched(log).files["src/app.py"].ops[-1].seq


def test_loop_findings_move_neither_the_verdict_nor_the_failure(log):
    diag = diagnose(log)
    verdict, failed = diag.verdict, diag.failed
    export.add_loop_findings(diag, loops.loop_findings(log, files_mod.files_touched(log)))
    assert diag.verdict is verdict and diag.failed == failed
    assert [f.index for f in diag.findings] == sorted((f.index for f in diag.findings), reverse=True)


def test_a_call_repeated_across_turns_is_not_a_loop(tmp_path):
    recs = [HEADER]
    seq = 0
    for turn in (1, 2, 3):
        recs.append(ev("turn/start", seq, {"turn": turn})); seq += 1
        recs.append(ev("tool/call", seq, {"turn": turn, "step": 1, "callId": f"c{turn}", "name": "bash",
                                          "arguments": '{"command":"ls"}'})); seq += 1
        recs.append(result(seq, f"c{turn}", turn=turn) | {"sourceEventSeqs": [seq - 1]}); seq += 1
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of(recs)) + b"\n")
    assert loops.loop_findings(load_session(path)) == []


@pytest.mark.parametrize("command, want", [
    ("cat a.txt b.txt", [("read", "a.txt"), ("read", "b.txt")]),
    ("rm -f build/out.o", [("delete", "build/out.o")]),
    ("touch 'x y'", []),  # a quote: left out rather than guessed at
    ("cat a | grep b", []),
    ("rm $TARGET", []),
    ("ls -la", []),
    ("tail -n 5 log.txt", []),
    (None, []),
])
def test_bash_paths_only_where_they_can_be_read_off(command, want):
    assert files_mod.bash_paths(command) == want


def test_check_json_has_the_context_requests_and_files(tmp_path, events):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "DSH_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "dsh_tui", "check", "--format", "json", "--no-cache", str(CASE)],
                          capture_output=True, env=env, timeout=120)
    out = orjson.loads(done.stdout)
    plain = subprocess.run([sys.executable, "-m", "dsh_tui", "check", "--no-cache", str(CASE)], capture_output=True,
                           env=env, timeout=120)
    assert done.returncode == plain.returncode
    assert [r["seq"] for r in out["context"]["items"]] == [e["seq"] for e in events if e["type"] == "assistant/message"]
    assert out["context"]["total"] == len(out["context"]["items"])
    assert [h["seq"] for h in out["requests"]["items"]] == [e["seq"] for e in events if e["type"] == "request/header"]
    assert out["requests"]["changes"] == 2
    verdict = out["verdict"]["seq"]  # the last failing bash result: the request before it, the header in force
    assert out["context"]["at_verdict"]["seq"] == max(e["seq"] for e in events
                                                       if e["type"] == "assistant/message" and e["seq"] < verdict)
    assert out["requests"]["in_force_at_verdict"] == max(e["seq"] for e in events
                                                          if e["type"] == "request/header" and e["seq"] < verdict)
    assert out["files"]["items"][0]["path"] == "src/app.py"
    assert {f["kind"] for f in out["findings"]} >= set(loops.LOOP_KINDS)
    assert all(f["severity"] == "info" for f in out["findings"] if f["kind"] in loops.LOOP_KINDS)


def test_markdown_report_has_the_context_at_the_verdict_and_the_files_changed(log):
    from dsh_tui.model.presenting.report import bug_report_markdown
    diag = diagnose(log)
    text = bug_report_markdown(log, diag)
    r = requests.request_before(requests.requests(log), diag.verdict.index)
    assert f"{r.input_tokens:,} input tokens at the model request seq {r.seq}" in text
    assert "`src/app.py`: write 1, edit 2" in text


def test_json_lists_are_bounded_on_a_hostile_log(tmp_path):
    recs = [HEADER]
    n = export.HEADER_LIMIT + 50
    for k in range(n):
        tools = [{"name": f"t{k}"}]
        recs.append(ev("request/header", k, {"header": {"config": {"provider": "p", "model": "m"}, "tools": tools},
                                             "reason": "change"}))
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of(recs)) + b"\n")
    got = export.requests_json(export.Insight(load_session(path)))
    assert got["total"] == n and got["changes"] == n - 1
    assert len(got["items"]) == got["shown"] <= 2 * export.HEADER_LIMIT


def test_the_generator_writes_this_case_again(tmp_path):
    """Where dsh's reference packages can be installed, write the case afresh: the same events."""
    from tests.support.reference import install_reference
    installed = os.environ.get("DSH_REFERENCE")  # an installed copy of ../shared/dsh-reference, where npm cannot reach
    if installed and (Path(installed) / "node_modules" / ".bin" / "node").exists():
        ref = tmp_path / "ref"
        shutil.copytree(installed, ref, symlinks=True)
        shutil.copy(SCRIPT, ref)
    else:
        ref = install_reference(tmp_path, SCRIPT)
    if ref is None:
        pytest.skip("dsh's reference packages cannot be installed here (npm or its registry absent)")
    node = ref / "node_modules" / ".bin" / "node"
    subprocess.run([str(node), "write_context.mjs", "out"], cwd=ref, check=True, capture_output=True, timeout=300)
    fresh = next((ref / "out").rglob("session.jsonl.zstd"))
    assert _without_ids(written_events(fresh)) == _without_ids(written_events())


def _without_ids(events: list[dict]) -> list[dict]:
    """The events with their messages' ids left out (dsh's message constructors draw a random UUID)."""
    out = []
    for e in events:
        data = e["data"]
        if isinstance(data, dict) and isinstance(data.get("message"), dict):
            data = {**data, "message": {k: v for k, v in data["message"].items() if k != "id"}}
        elif e["type"] == "user/message":
            data = {k: v for k, v in data.items() if k != "id"}
        out.append({**e, "data": data})
    return out


BOUND_SCRIPT = r"""
import sys, tracemalloc
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.context.export import Insight
log = load_session(sys.argv[1])
tracemalloc.start()
ins = Insight(log)
ins.files, ins.headers, ins.loops
print(tracemalloc.get_traced_memory()[1] >> 20)  # the walk's peak, MiB
"""


def test_the_walk_keeps_no_big_payload_of_a_hostile_log(tmp_path):
    """600 headers with a 100 KB system prompt and 600 results with a 100 KB hunk: the walk keeps each as
    the little its view reads (a header's sizes and names, a hunk's first 4 KiB), not the 120 MB parsed."""
    big = "x" * 100_000
    recs = [HEADER]
    seq = 0
    for k in range(600):
        recs.append(ev("request/header", seq, {"header": {"config": {"provider": "p", "model": "m"}, "system": big + str(k),
                                                          "tools": [{"name": "write"}]}, "reason": "change"})); seq += 1
        recs.append(ev("tool/call", seq, {"turn": 1, "step": k, "callId": f"c{k}", "name": "write",
                                          "arguments": '{"file_path":"a.txt"}'})); seq += 1
        r = result(seq, f"c{k}", meta={"diffs": [{"path": "a.txt", "oldText": None, "newText": big}]}, step=k)
        recs.append(r | {"sourceEventSeqs": [seq - 1]}); seq += 1
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of(recs)) + b"\n")
    done = subprocess.run([sys.executable, "-c", BOUND_SCRIPT, str(path)], capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 30, f"the walk's peak: {int(done.stdout)} MiB"


def test_the_chart_fits_the_width_and_marks_the_request_after_a_compaction(log):
    from dsh_tui.model.presenting.insight_rows import chart
    reqs = requests.requests(log)
    lines, starts = chart(reqs, 78)
    assert all(len(line) <= 78 for line in lines) and len(starts) == len(reqs)
    after = next(k for k, r in enumerate(reqs) if r.compactions)
    width = len(lines[-1]) // len(reqs)
    assert lines[-1].index("▲") == after * width  # the marker under the request after the compaction
    many = [requests.Request(i, i, 1, i, 1000 + i % 7, ()) for i in range(13_200)]
    lines, starts = chart(many, 78)
    assert all(len(line) <= 78 for line in lines) and len(starts) == 78 and starts[0] == 0


def test_many_repeated_groups_stay_linear(tmp_path):
    """30,000 calls in 10,000 groups of three, interleaved: each group is one finding, none "in a row"."""
    recs = [HEADER, ev("turn/start", 0, {"turn": 1})]
    seq = 1
    for rep in range(3):
        for g in range(10_000):
            recs.append(ev("tool/call", seq, {"turn": 1, "step": 1, "callId": f"c{seq}", "name": "bash",
                                              "arguments": f'{{"command":"ls {g}"}}'}))
            seq += 1
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of(recs)) + b"\n")
    found = loops.loop_findings(load_session(path))
    assert len(found) == loops.MAX_FINDINGS and all("within turn 1" in f.message for f in found)
    assert f"and {10_000 - loops.MAX_FINDINGS:,} more of this kind" in found[-1].message


def test_loop_findings_are_added_once_however_often_asked():
    """`check` adds them and then saves the diagnosis in the index cache; the next `check` adds them
    to the cached one again: they must not double."""
    from dsh_tui.model.context.export import add_loop_findings, insight
    from dsh_tui.model.context.loops import LOOP_KINDS
    log = load_session(CASE)
    diag = diagnose(log)
    loops = insight(log).loops
    assert loops
    add_loop_findings(diag, loops)
    once = [(f.kind, f.seq) for f in diag.findings]
    add_loop_findings(diag, insight(log).loops)
    assert [(f.kind, f.seq) for f in diag.findings] == once
    assert sum(f.kind in LOOP_KINDS for f in diag.findings) == len(loops)


def test_requests_json_from_records_agrees_with_the_headers_made(tmp_path):
    """`check` walks the header records and makes a Header only where it lists one: the same JSON as
    from every Header made (the views' path), on repeats, reasons, equal but separately written
    configs, a 1 -> true change, tool and prompt changes, past HEADER_LIMIT too."""
    recs = [HEADER]
    for k in range(export.HEADER_LIMIT + 120):
        config = {"provider": "p", "model": "m", "temperature": True if k in (250, 251) else 1}
        tools = [{"name": "bash"}] + ([{"name": "edit"}] if k % 97 == 7 else [])
        header = {"config": config, "tools": tools, "system": "s" * (1 + (k == 260))}
        recs.append(ev("request/header", k, {"header": header, "reason": ["initial", "resume", "change"][k % 3]}))
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(lines_of(recs)) + b"\n")
    log = load_session(path)
    for at in (None, 3, 240, len(log) - 1):
        walked = export.requests_json(export.Insight(log), at)
        views = export.Insight(log)
        assert len(views.headers) == export.HEADER_LIMIT + 120  # made: requests_json reads them
        assert export.requests_json(views, at) == walked
    assert 8 <= walked["changes"] < walked["total"] and walked["shown"] > export.HEADER_LIMIT


def test_the_loops_and_files_a_check_read_come_back_from_the_index_cache(log):
    """What `check` read of the log alone goes to the cache as plain values and comes back the same;
    an entry's values are taken only in the shapes `derived` writes, for the same number of events."""
    from dsh_tui.model.opening import cachecodec
    read = export.Insight(log)
    assert export.derived(read) is None  # nothing read yet: nothing to keep
    assert read.loops and read.files.files
    tree, parts = cachecodec.encode(export.derived(read))
    kept = cachecodec.decode(tree, b"".join(parts))

    def seeded(value) -> export.Insight:
        ins = export.Insight(log)
        export._seed(ins, value)
        return ins

    back = seeded(kept)
    assert set(back.__dict__) >= {"loops", "files"}  # taken, not read again
    assert [f.as_dict() for f in back.loops] == [f.as_dict() for f in read.loops]
    assert [f.as_dict(10**6) for f in back.files.files.values()] == [f.as_dict(10**6) for f in read.files.files.values()]
    assert [o.diffs for f in back.files.files.values() for o in f.ops] == \
        [o.diffs for f in read.files.files.values() for o in f.ops]
    files = kept["files"]
    paths, counts, old = files[1], files[2], files[9]
    bad = [{**kept, "events": kept["events"] + 1}, {**kept, "loops": kept["loops"] + ["x"]},
           {**kept, "files": (0, paths + paths[:1], counts + counts[:1], *files[3:])},  # a path twice
           {**kept, "files": (*files[:2], [counts[0] + 1, *counts[1:]], *files[3:])},  # counts past the ops
           {**kept, "files": (*files[:9], old[:-1], files[10])},  # a hunk without its old text
           {**kept, "files": (*files[:4], [str(s) for s in files[4]], *files[5:])},  # a seq not an int
           {**kept, "files": files[:10]},
           {**kept, "loops": [export.Finding("TOOL_ERROR", 1, 1, "not a loop")]}, [kept], None]
    for value in bad:
        assert not {"loops", "files"} & set(seeded(value).__dict__)


def test_a_repeated_check_reads_no_call_again(tmp_path, monkeypatch, capsys):
    """The second `check` of a log takes the loops and files from the entry the first one wrote."""
    from dsh_tui.cli import main
    from dsh_tui.demo import write_synthetic
    from dsh_tui.model.opening import cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv(cache.CACHE_ENV, raising=False)
    path = tmp_path / "s" / "session.jsonl.zstd"
    path.parent.mkdir()
    write_synthetic(path, 6000, encoding="zstd", crash=True)
    main(["check", str(path), "--format", "json"])
    first = capsys.readouterr().out
    assert cache.has_entry(path)

    def unread(*_a, **_k):
        raise AssertionError("read again")

    monkeypatch.setattr(export, "files_touched", unread)
    monkeypatch.setattr(export, "calls", unread)
    main(["check", str(path), "--format", "json"])
    assert capsys.readouterr().out == first and '"files"' in first


def test_repeated_calls_group_only_what_repeats_as_grouping_every_call_would():
    """_repeated groups only the calls whose group's hash comes n times: the same findings, in the
    same order, as grouping every call by (the turn's repr, the key), turns such as 1, true, "1",
    1.0 and objects told apart."""
    import random
    rng = random.Random(3)
    turns = [1, 2, True, "1", 1.0, None, [1], {"t": 1}]
    cs = []
    for k in range(600):
        c = loops.Call(k, 1000 + k, rng.choice(turns), "bash", ("bash", rng.randrange(12)), pos=k)
        cs.append(c)

    def naive(n):
        groups: dict = {}
        for c in cs:
            groups.setdefault((repr(c.turn), c.key), []).append(c)
        return [(g[-1].seq, len(g)) for g in groups.values() if len(g) >= n]

    columns = loops.Calls([c.index for c in cs], [c.seq for c in cs], [c.turn for c in cs], [c.key[0] for c in cs],
                          [c.key[1] for c in cs], {})
    for n in (1, 2, 3, 5, 40):
        got = loops._repeated(columns, n)
        assert [(f.seq, f.message.split(" called ")[1].split(" times")[0]) for f in got] == \
            [(seq, str(size)) for seq, size in naive(n)][:loops.MAX_FINDINGS]
    assert len(loops._repeated(columns, 3)) > 20


def test_indices_by_type_are_the_events_of_those_types_in_order(log, events):
    from dsh_tui.model.context import select
    names = ("tool/call", "tool/result", "assistant/message")
    want = [i for i, e in enumerate(events) if e["type"] in names]
    assert len(want) > 3
    assert list(select.indices_of(log, names)) == want
    assert list(select.indices_of(log, ("no/such-type",))) == []


def _findings_one_call_at_a_time(records: list[tuple], n: int) -> list[tuple]:
    """The loop findings as a Call object a call made them (each result read in log order for the
    call of its seq seen before it): what `loops.calls`' columns must give."""
    from dsh_tui.model.reading.contextfacts import value
    out, by_seq = [], {}
    for r in records:
        if r[0] == "tool/call":
            _type, i, seq, turn, name, key, _paths = r
            name = name if name is not None else "?"
            c = loops.Call(i, seq, value(turn), name, (name, key), pos=len(out))
            out.append(c)
            by_seq[seq] = c
            continue
        _type, _i, _seq, call_seq, rewrite, is_error, text, _meta = r
        c = by_seq.get(call_seq) if call_seq is not None and not rewrite else None
        if c is not None:
            c.outcome = (is_error, text)
    repeated: dict = {}
    for c in out:
        repeated.setdefault((loops._turn_key(c.turn), c.key), []).append(c)
    got = [("REPEATED_CALL", g[-1].seq, len(g), g[-1].pos - g[0].pos == len(g) - 1) for g in repeated.values()
           if len(g) >= n]
    run: list = []
    for c in out + [None]:
        if c is not None and run and c.key == run[-1].key and c.outcome and c.outcome[0] and c.outcome == run[-1].outcome:
            run.append(c)
            continue
        if len(run) >= n:
            got.append(("SAME_ERROR_RETRY", run[-1].seq, len(run), run[-1].outcome[1]))
        run = [c] if c is not None and c.outcome and c.outcome[0] else []
    return got


def test_loops_read_from_columns_are_those_of_a_call_object_each():
    """The loops' calls are columns, a Call made only for a call a finding names; the findings are
    those of a Call object a call: results before their call, naming a seq two calls carry, rewrites,
    a later success after a failure, no seq, odd turns and names alike."""
    import random
    from types import SimpleNamespace

    from dsh_tui.model.reading.contextcolumns import Columns
    rng = random.Random(7)
    for trial in range(60):
        cols, records, index = Columns(), [], 0
        seqs = list(range(40)) + [5, 7, 7]  # (a crafted log's seqs repeat)
        for _ in range(rng.randrange(5, 120)):
            index += 1
            if rng.random() < 0.5:
                turn = rng.choice([1, 1, 2, True, "1", None, (orjson.dumps([1]).decode(), True), 2**70])
                r = ("tool/call", index, rng.choice(seqs), turn, rng.choice(["bash", "bash", None, "read"]),
                     rng.randrange(3), None)
            else:
                r = ("tool/result", index, 1000 + index, rng.choice([*seqs[:12], None, 2**70]), rng.random() < 0.1,
                     rng.random() < 0.6, rng.choice(["boom", "boom", "other"]), None)
            records.append(r)
            cols.append(r)
        log = SimpleNamespace(res=SimpleNamespace(context=cols))
        for n in (2, 3):
            found = loops._repeated(loops.calls(log), n) + loops._same_error(loops.calls(log), n)
            got = [(f.kind, f.seq, int(f.message.split(" called ")[1].split(" times")[0]), "in a row" in f.message)
                   if f.kind == "REPEATED_CALL" else
                   (f.kind, f.seq, int(f.message.split(" retried ")[1].split(" times")[0]) + 1,
                    f.message.split("same error: ")[1].split(" (seqs")[0]) for f in found]
            assert got == _findings_one_call_at_a_time(records, n), (trial, n)


def _files_one_record_at_a_time(records: list[tuple]):
    """The files as a walk of the records in log order made them (a dict of every call's tool and
    path arguments): what `files.files_touched`'s columns must give."""
    out, calls = files_mod.Files(), {}
    for r in records:
        if r[0] == "tool/call":
            calls[r[2]] = (r[4], r[6])
            continue
        _type, i, seq, call_seq, rewrite, _error, _text, meta = r
        tool, call = calls.get(call_seq, files_mod._NO_CALL) if call_seq is not None else files_mod._NO_CALL
        if rewrite:
            continue
        if meta is not None and meta[0] == "d":
            files_mod._from_diffs(out, meta[1], call, tool, seq, i, call_seq, meta[2])
        elif meta is not None:
            out.add(meta[1], files_mod.Op(files_mod._op(tool, "read"), seq, i, call_seq, tool))
        elif tool == "bash":
            for op, path in files_mod.bash_paths(call[2] if call else None):
                out.add(path, files_mod.Op(op, seq, i, call_seq, tool))
        elif tool in ("delete", "remove"):
            path = files_mod._arg_path(call)
            if path:
                out.add(path, files_mod.Op("delete", seq, i, call_seq, tool))
    return out


def test_files_read_from_columns_are_those_of_a_walk_of_the_records():
    """The files are read from the records' columns, only the results that can name one looked at:
    the same files and operations as a walk of every record, for results before their call, seqs two
    calls carry, rewrites, reads, edits, writes that created a file, bash commands and deletes."""
    import random
    from types import SimpleNamespace

    from dsh_tui.model.reading.contextcolumns import Columns
    rng = random.Random(11)
    for trial in range(80):
        cols, records, index = Columns(), [], 0
        ascending = trial % 2 == 0
        seqs = list(range(30)) if ascending else list(range(30)) + [4, 4, 9]
        pool = iter(rng.sample(range(30), 30)) if ascending else None
        for _ in range(rng.randrange(5, 90)):
            index += 1
            if rng.random() < 0.5:
                seq = next(pool, None) if ascending else rng.choice(seqs)
                if seq is None:
                    continue
                paths = rng.choice([None, ("a.py", None, None), (None, "b.py", None), (None, None, "cat c.py d.py"),
                                    (None, None, "rm -f e.py")])
                r = ("tool/call", index, seq, 1, rng.choice(["bash", "write", "edit", "read", "delete", None]),
                     1, paths)
            else:
                meta = rng.choice([None, None, ("r", "a.py"), ("d", [("a.py", "x", "y"), ("f.py", None, "z")], ()),
                                   ("d", [], ())])
                r = ("tool/result", index, 1000 + index, rng.choice([*seqs[:10], None]), rng.random() < 0.1,
                     False, "", meta)
            records.append(r)
            cols.append(r)
        if ascending:  # (each call's seq below the next one's, as in a log without a seq gap)
            calls = [r for r in records if r[0] == "tool/call"]
            order = sorted(r[2] for r in calls)
            for r, s in zip(calls, order):
                records[records.index(r)] = (*r[:2], s, *r[3:])
            cols = Columns()
            for r in records:
                cols.append(r)
        log = SimpleNamespace(res=SimpleNamespace(context=cols))
        got, want = files_mod.files_touched(log), _files_one_record_at_a_time(records)
        assert got.plain() == want.plain(), trial
