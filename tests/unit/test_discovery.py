"""The session browser's model: naming rules, header-only listing, status, tree, filter."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from dsh_tui.demo import DEMO_SESSION_ID, write_log
from dsh_tui.gen.storage import compress_frame, encode_log
from dsh_tui.model.sessions.discovery import (MAX_TREE_INDENT, RootUnreadable, SessionEntry, build_tree,
                                             decode_project_key, decode_segment, default_root, encode_segment,
                                             fill_status, filter_entries, group_by_project, list_sessions,
                                             project_key, read_entry, tree_marker, walk_tree)

from ..support.session_roots import APP, OTHER, T0, build_root, header, session_path, turn_batches, write_session, \
    write_session_fast


@pytest.fixture
def built(tmp_path):
    return build_root(tmp_path / "sessions")


def by_label(built, listing) -> dict[str, SessionEntry]:
    paths = {p: label for label, p in built.paths.items()}
    return {paths[e.path]: e for e in listing.entries}


# -- naming rules ------------------------------------------------------------------------

def test_default_root_follows_dsh_home(monkeypatch, tmp_path):
    monkeypatch.setenv("DSH_HOME", str(tmp_path / "h"))
    assert default_root() == tmp_path / "h" / "sessions"
    monkeypatch.setenv("DSH_HOME", "   ")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_root() == tmp_path / "home" / ".dsh" / "sessions"
    monkeypatch.delenv("DSH_HOME")
    assert default_root() == tmp_path / "home" / ".dsh" / "sessions"


@pytest.mark.parametrize("cwd,key", [
    ("/home/user/projects/demo-app", "--home-user-projects-demo-app--"),
    ("D:\\work\\my project", "--D-work-my~0020project--"),
    ("/srv/caf\u00e9 app", "--srv-caf~00E9~0020app--"),
    ("/", "--root--"),
    ("//a:\\/b/", "--a-b---"),
    ("/x/~tilde", "--x-~007Etilde--"),
    ("/e/\U0001F600", "--e-~D83D~DE00--"),
])
def test_project_key_matches_dsh(cwd, key):
    assert project_key(cwd) == key


def test_project_key_is_cut_at_251():
    key = project_key("/" + "a" * 400)
    assert key == "--" + "a" * 251 + "--"


@pytest.mark.parametrize("dirname,display", [
    ("--home-user-projects-demo-app--", "home-user-projects-demo-app"),
    ("--srv-caf~00E9~0020app--", "srv-caf\u00e9 app"),
    ("--e-~D83D~DE00--", "e-\U0001F600"),
    ("--bad~zz--", "bad~zz"),
    ("_no-cwd", "(no cwd)"),
    ("not-a-project", None),
    ("----", None),
])
def test_decode_project_key(dirname, display):
    assert decode_project_key(dirname) == display


@pytest.mark.parametrize("sid", ["7f3c2a9e-5b1d-4c8a-9e21-d04b6f1a8c35", "a/b\\c:d", ".", "..", "a.b", "~x~",
                                 "caf\u00e9 \U0001F600", "lone\ud800surrogate", "sp ace\x00nul"])
def test_segment_round_trip(sid):
    seg = encode_segment(sid)
    assert decode_segment(seg) == sid
    assert "/" not in seg and seg not in (".", "..")
    assert all(c.isascii() and (c.isalnum() or c in "._-~") for c in seg)


def test_encode_segment_matches_dsh():
    assert encode_segment(".") == "~002E" and encode_segment("..") == "~002E~002E"
    assert encode_segment("a/b") == "a~002Fb" and encode_segment("x~") == "x~007E"
    with pytest.raises(ValueError):
        encode_segment("")


# -- listing --------------------------------------------------------------------------------

def test_a_name_ending_in_a_newline_is_no_leftover_of_dsh(built):
    """dsh's temp-file rule ends with JavaScript's $ (the very end): a name with one more character, a
    newline, is not its leftover (Python's $ would match before that newline)."""
    odd = built.paths["done"].with_name("session.jsonl.zstd.0123456789ab.tmp\n")
    odd.write_bytes(b"partial")
    flat = built.root / "x.jsonl.zstd.0123456789ab.tmp\n"
    flat.write_bytes(b"partial")
    listing = list_sessions(built.root)
    assert sorted(listing.ignored_tmp) == built.tmp and odd not in listing.ignored_tmp
    assert flat not in listing.ignored_tmp and flat not in listing.legacy_flat


def test_list_sessions_finds_every_log_and_leftover(built):
    listing = list_sessions(built.root)
    assert sorted(e.path for e in listing.entries) == sorted(built.paths.values())
    assert sorted(listing.ignored_tmp) == built.tmp
    assert listing.legacy_flat == built.flat and len(built.flat) == 2
    assert any("legacy flat" in p for p in listing.problems)
    times = [e.sort_time for e in listing.entries]
    assert times == sorted(times, reverse=True)
    e = by_label(built, listing)
    assert e["demo"].session_id == DEMO_SESSION_ID and e["demo"].encoding == "zstd"
    assert e["demo"].project_dir == "--home-user-projects-demo-app--" and e["demo"].project_display == APP
    assert e["error"].project_display == OTHER  # the header cwd, not the lossy key
    assert e["nocwd"].project_dir == "_no-cwd" and e["nocwd"].project_display == "(no cwd)" and e["nocwd"].cwd is None
    child = e["child"]
    assert (child.parent_session, child.origin, child.delegation_depth) == (DEMO_SESSION_ID, "subagent", 1)
    assert e["done"].agent_preset == "code" and e["done"].created_at == T0 + 1_000
    assert e["done"].size == built.paths["done"].stat().st_size and e["done"].mtime > 0
    for label in ("demo", "done", "child", "torn"):
        assert e[label].status == "unknown" and e[label].header_error is None and e[label].events is None
        assert e[label].notes == []
    assert e["rejected"].status == "rejected" and "delegationDepth" in e["rejected"].header_error


def test_listing_reads_only_the_header_frame(tmp_path, monkeypatch):
    """The event frames are never read: garbage after the header frame goes unnoticed."""
    h = header("66666666-0000-4000-8000-000000000001", T0)
    path = session_path(tmp_path, h)
    path.parent.mkdir(parents=True)
    head = encode_log(h, [])
    path.write_bytes(head + compress_frame(b'{"x":1}\n') + os.urandom(2 * 1024 * 1024))
    seen = []
    real_read = os.read

    def counting_read(fd, n):
        data = real_read(fd, n)
        seen.append(len(data))
        return data

    monkeypatch.setattr(os, "read", counting_read)
    listing = list_sessions(tmp_path)
    (entry,) = listing.entries
    assert entry.status == "unknown" and entry.header_error is None
    assert entry.session_id == h["id"]
    assert 0 < sum(seen) <= 8192
    assert fill_status(entry).status == "rejected"  # the garbage after it: dsh refuses the log (bad frame magic)


def test_header_frame_spanning_many_reads(tmp_path):
    """A header frame bigger than 8 KiB (incompressible preset name) is read chunk by chunk."""
    h = header("66666666-0000-4000-8000-000000000002", T0, agentPreset=os.urandom(12_000).hex())
    path = write_session(tmp_path, h)
    entry = read_entry(path)
    assert entry.header_error is None and entry.agent_preset == h["agentPreset"]


def test_jsonl_root_and_bad_headers(tmp_path):
    good = write_session(tmp_path, header("77777777-0000-4000-8000-000000000001", T0), encoding="jsonl")
    no_nl = write_session_fast(tmp_path, header("77777777-0000-4000-8000-000000000002", T0),
                               encode_log(header("77777777-0000-4000-8000-000000000002", T0), [],
                                          encoding="jsonl").rstrip(b"\n"), "jsonl")
    not_json = write_session_fast(tmp_path, header("77777777-0000-4000-8000-000000000003", T0), b"{nope\n", "jsonl")
    h4 = header("77777777-0000-4000-8000-000000000004", T0)
    torn_hdr = write_session_fast(tmp_path, h4, encode_log(h4, [])[:-6])  # zstd header frame cut
    empty = write_session_fast(tmp_path, header("77777777-0000-4000-8000-000000000005", T0), b"")
    listing = list_sessions(tmp_path)
    e = {x.path: x for x in listing.entries}
    assert e[good].encoding == "jsonl" and e[good].status == "unknown"
    assert e[no_nl].status == "torn" and e[no_nl].torn and e[no_nl].session_id is not None
    assert e[not_json].status == "corrupt" and e[not_json].session_id is None
    assert e[torn_hdr].status == "torn" and "torn" in e[torn_hdr].header_error
    assert fill_status(e[torn_hdr]).status == "torn" and "torn" in e[torn_hdr].error
    assert e[empty].status == "corrupt" and "empty" in e[empty].header_error
    assert any("mixes" in p for p in listing.problems)
    assert fill_status(e[good]).status == "completed"


def test_header_frame_must_hold_only_the_header(tmp_path):
    h = header("66666666-0000-4000-8000-000000000003", T0)
    plain = encode_log(h, [], encoding="jsonl") + b'{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}\n'
    path = write_session_fast(tmp_path, h, compress_frame(plain))
    entry = read_entry(path)
    assert entry.session_id == h["id"] and entry.status == "corrupt"
    assert "not exactly the header line" in entry.header_error


def test_hostile_header_values_never_raise(tmp_path):
    d = tmp_path / project_key(APP) / "x"
    d.mkdir(parents=True)
    (d / "session.jsonl").write_bytes(b'{"type":"session","version":0,"id":"","createdAt":1e300,"cwd":"",'
                                      b'"delegationDepth":-0.0,"seedLength":true,"parentSession":7}\n')
    (entry,) = list_sessions(tmp_path).entries
    assert entry.status == "rejected" and entry.session_id == "" and entry.created_at is None
    assert entry.seed_length is None and entry.parent_session is None
    assert fill_status(entry).status == "rejected"


def test_identity_notes(tmp_path):
    h = header("88888888-0000-4000-8000-000000000001", T0, "/somewhere/else")
    path = tmp_path / project_key(APP) / "other-dir-name" / "session.jsonl.zstd"
    path.parent.mkdir(parents=True)
    write_log(path, h, [])
    (entry,) = list_sessions(tmp_path).entries
    assert any("directory name" in n for n in entry.notes)
    assert any("different project" in n for n in entry.notes)


def test_root_errors(tmp_path):
    with pytest.raises(RootUnreadable, match="no such directory"):
        list_sessions(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(RootUnreadable, match="not a directory"):
        list_sessions(tmp_path / "file")


def test_root_may_be_a_project_or_session_dir(built):
    project = built.root / project_key(OTHER)
    listing = list_sessions(project)
    assert {e.path for e in listing.entries} == {built.paths[k] for k in ("error", "aborted", "child", "grandchild")}
    single = list_sessions(built.paths["done"].parent)
    assert [e.path for e in single.entries] == [built.paths["done"]]


def test_duplicate_ids_are_a_problem(tmp_path):
    h = header("99999999-0000-4000-8000-000000000001", T0)
    write_session(tmp_path, h)
    write_session(tmp_path, {**h, "cwd": "/elsewhere"})
    listing = list_sessions(tmp_path)
    assert len(listing.entries) == 2 and any("duplicate session id" in p for p in listing.problems)


def test_thousand_sessions(tmp_path, capsys):
    batches = turn_batches("completed")
    ids = set()
    for i in range(1000):
        h = header(f"{i:08d}-0000-4000-8000-000000000000", T0 + i, f"/home/u/p{i % 10}")
        ids.add(h["id"])
        write_session_fast(tmp_path, h, encode_log(h, batches))
    t0 = time.perf_counter()
    listing = list_sessions(tmp_path)
    elapsed = time.perf_counter() - t0
    with capsys.disabled():
        print(f"\n[list_sessions: 1,000 sessions in {elapsed:.3f} s]")
    assert {e.session_id for e in listing.entries} == ids
    assert all(e.status == "unknown" and e.header_error is None for e in listing.entries)
    assert len(group_by_project(listing.entries)) == 10
    assert listing.entries[0].session_id == "00000999-0000-4000-8000-000000000000"


# -- status -----------------------------------------------------------------------------------

def test_fill_status(built):
    e = by_label(built, list_sessions(built.root))
    for entry in e.values():
        assert fill_status(entry) is entry
    expect = {"demo": "open-turn", "done": "completed", "error": "error", "aborted": "aborted",
              "nocwd": "completed", "child": "completed", "grandchild": "interrupted", "torn": "torn",
              "rejected": "rejected"}
    assert {k: e[k].status for k in expect} == expect
    demo = e["demo"]
    assert demo.last_turn_outcome == "open" and demo.events == 320 and not demo.torn
    assert demo.verdict_kind == "TOOL_OUTCOME_UNKNOWN" and demo.verdict_call_id == "call_05_deploy"
    assert e["done"].verdict_kind is None and e["done"].last_turn_outcome == "completed"
    assert e["done"].effective_preset == "minimal" and e["done"].preset == "minimal"  # the event beats the header
    assert e["error"].verdict_kind == "TURN_NOT_COMPLETED" and "MODEL_FAILED" in e["error"].verdict_message
    assert e["torn"].torn and e["torn"].last_turn_outcome == "open"
    assert e["rejected"].events == 13 and "delegationDepth" in e["rejected"].error


def test_fill_status_other_outcomes(tmp_path):
    empty = write_session(tmp_path, header("aaaaaaaa-0000-4000-8000-000000000001", T0), [])
    idle_h = header("aaaaaaaa-0000-4000-8000-000000000002", T0)
    idle = write_session(tmp_path, idle_h, [[{"type": "session/title", "seq": 0, "time": T0,
                                             "data": {"title": "t", "messageSeqs": [], "source": {"kind": "fallback"}}}]])
    missing = SessionEntry(tmp_path / "gone" / "session.jsonl.zstd", "", "")
    garbage = tmp_path / "g.jsonl"
    garbage.write_bytes(b"\x00\x01binary")
    assert fill_status(read_entry(empty)).status == "empty"
    assert fill_status(read_entry(idle)).status == "idle"
    out = fill_status(missing)
    assert out.status == "unreadable" and out.error
    assert fill_status(SessionEntry(garbage, "", "")).status == "corrupt"


def test_fill_status_cancel_leaves_entry(built):
    entry = read_entry(built.paths["demo"])
    cancel = threading.Event()
    cancel.set()
    assert fill_status(entry, cancel=cancel).status == "unknown"


def test_fill_status_never_raises(built, monkeypatch):
    import dsh_tui.model.reading.session as session
    monkeypatch.setattr(session, "load_session", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("bug")))
    entry = fill_status(read_entry(built.paths["done"]))
    assert entry.status == "unreadable" and "RuntimeError: bug" in entry.error


# -- tree, grouping, filter --------------------------------------------------------------------

def test_build_tree(built):
    listing = list_sessions(built.root)
    e = by_label(built, listing)
    roots = build_tree(listing.entries)
    assert e["child"] in e["demo"].children and e["grandchild"] in e["child"].children
    assert e["child"] not in roots and e["grandchild"] not in roots
    assert e["orphan"] in roots and e["orphan"].orphan
    assert any("not found" in n for n in e["orphan"].notes)
    assert [x.sort_time for x in roots] == sorted((x.sort_time for x in roots), reverse=True)
    order = [x for x, _ in walk_tree(roots)]
    assert len(order) == len(listing.entries) == len(set(map(id, order)))
    levels = {x.session_id: lvl for x, lvl in walk_tree(roots)}
    assert levels[e["grandchild"].session_id] == 2
    again = build_tree(listing.entries)  # idempotent
    assert len(e["demo"].children) == 1 and len(e["orphan"].notes) == 1 and len(again) == len(roots)


def test_build_tree_cycles_stay_visible(tmp_path):
    def child(path, sid, parent, created):
        return SessionEntry(Path(path), "p", "p", session_id=sid, parent_session=parent, created_at=created,
                            origin="subagent", delegation_depth=1)
    a, b, s, c = child("a", "A", "B", 2), child("b", "B", "A", 1), child("s", "S", "S", 3), child("c", "C", "A", 4)
    roots = build_tree([a, b, s, c])
    assert roots == [s, a, b] and c in a.children
    assert all(x.orphan for x in (a, b, s)) and not c.orphan


def test_a_loop_above_a_chain_and_a_duplicate_id(tmp_path):
    """Only the sessions on a loop are cut loose; a chain leading into it and a second session with a
    looped id hang under their parents (the walk marks each session once, across walks)."""
    def entry(sid, parent, created):
        return SessionEntry(Path(sid), "p", "p", session_id=sid, parent_session=parent, created_at=created,
                            origin="subagent", delegation_depth=1)
    loop = [entry("L0", "L2", 1), entry("L1", "L0", 2), entry("L2", "L1", 3)]
    tail = [entry("T0", "L1", 4), entry("T1", "T0", 5), entry("T2", "T1", 6)]
    dup = entry("L1", "L0", 7)  # the id of a loop member: by_id keeps the first, this one is a child of L0
    roots = build_tree([*tail, *loop, dup])  # walks start at the tail, before the loop
    assert roots == loop[::-1] and [x.orphan for x in loop] == [True] * 3
    assert loop[1].children == [tail[0]] and tail[0].children == [tail[1]] and tail[1].children == [tail[2]]
    assert dup in loop[0].children and not dup.orphan and not any(x.orphan for x in tail)
    assert [(x.session_id, d) for x, d in walk_tree(roots) if x.session_id.startswith("T")] == [
        ("T0", 1), ("T1", 2), ("T2", 3)]


def test_a_long_chain_is_nested_and_walked_without_recursion():
    """5,000 sessions each the child of the one before: _sort_tree and walk_tree recursed once per
    level (RecursionError past ~1,000) and the loop check walked every chain to its top (quadratic)."""
    n = 5000
    entries = [SessionEntry(Path(str(k)), "p", "p", session_id=str(k), parent_session=str(k - 1) if k else None,
                            created_at=k, origin="subagent" if k else None) for k in range(n)]
    roots = build_tree(entries[::-1])
    assert roots == [entries[0]] and not any(e.orphan for e in entries)
    assert [(e, d) for e, d in walk_tree(roots)] == [(e, k) for k, e in enumerate(entries)]
    assert [d for _e, d in walk_tree(roots, depth=3)][:3] == [3, 4, 5]


def test_tree_marker_stops_indenting_past_its_cap():
    assert tree_marker(0) == "" and tree_marker(1) == "↳ " and tree_marker(3) == "    ↳ "
    assert tree_marker(MAX_TREE_INDENT) == "  " * (MAX_TREE_INDENT - 1) + "↳ "
    assert tree_marker(MAX_TREE_INDENT + 1) == "  " * (MAX_TREE_INDENT - 1) + f"↳{MAX_TREE_INDENT + 1} "
    assert len(tree_marker(20_000)) == len(tree_marker(MAX_TREE_INDENT + 1)) + 3


def test_group_by_project(built):
    listing = list_sessions(built.root)
    roots = build_tree(listing.entries)
    e = by_label(built, listing)
    groups = group_by_project(roots)
    app, other = "--home-user-projects-demo-app--", project_key(OTHER)
    assert list(groups) == [app, "_no-cwd", other]  # newest group first (nocwd is newer than aborted)
    assert set(groups[other]) == {e["error"], e["aborted"]}  # the child tree hangs off demo, in app
    assert groups[app][0] is e["demo"]


def test_filter_entries(built):
    listing = list_sessions(built.root)
    for x in listing.entries:
        fill_status(x)
    e = by_label(built, listing)
    assert filter_entries(listing.entries, "") == listing.entries
    assert filter_entries(listing.entries, "DEMO-7F3C") == [e["demo"]]
    assert set(filter_entries(listing.entries, "CAFÉ")) == {e[k] for k in ("error", "aborted", "child", "grandchild")}
    assert filter_entries(listing.entries, "minimal") == [e["done"]]
    assert filter_entries(listing.entries, "interrupted") == [e["grandchild"]]
    assert filter_entries(listing.entries, "café error") == [e["error"]]
    assert filter_entries(listing.entries, "no cwd") == [e["nocwd"]]
    assert filter_entries(listing.entries, "zzz-nothing") == []
