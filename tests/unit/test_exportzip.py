"""The web export ZIP: detection, safe member names, bomb cap, in-memory SessionLog."""

from __future__ import annotations

import threading
import zipfile

import pytest

from dsh_tui.demo import DEMO_SESSION_ID, demo_batches
from dsh_tui.gen.storage import encode_log
from dsh_tui.model.diagnosing.diagnosis import diagnose
from dsh_tui.model.sessions.discovery import build_tree, fill_status
from dsh_tui.model.sessions.entry import zip_entries as entries_of
from dsh_tui.model.reading.exportzip import ExportZip, ZipUnreadable, is_export_zip, load_zip_session, safe_member_name
from dsh_tui.model.reading.session import load_session
from dsh_tui.model.reading.source import Cancelled, LogUnreadable

from ..support.session_roots import T0, header, turn_batches

CHILD_ID = "22222222-0000-4000-8000-000000000001"
GRAND_ID = "22222222-0000-4000-8000-000000000002"


def demo_jsonl() -> bytes:
    h, b = demo_batches()
    return encode_log(h, b, encoding="jsonl")


def child_jsonl(sid=CHILD_ID, parent=DEMO_SESSION_ID, depth=1, outcome="completed") -> bytes:
    h = header(sid, T0, "/srv/app", parentSession=parent, origin="subagent", delegationDepth=depth)
    return encode_log(h, turn_batches(outcome), encoding="jsonl")


def list_members(path):
    with ExportZip(path) as z:
        return z.members()


def read_member(path, member: str, **kw) -> bytes:
    with ExportZip(path) as z:
        return z.read(member, **kw)


def zip_entries(path):
    with ExportZip(path) as z:
        return entries_of(z)


def make_zip(path, members: dict[str, bytes], method=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.fixture
def export(tmp_path):
    return make_zip(tmp_path / f"dsh-session-{DEMO_SESSION_ID}.zip", {
        "session.jsonl": demo_jsonl(),
        f"subagents/{GRAND_ID}/session.jsonl": child_jsonl(GRAND_ID, CHILD_ID, 2, "interrupted"),
        f"subagents/{CHILD_ID}/session.jsonl": child_jsonl(),
        "media/att-1.png": b"\x89PNG\r\n\x1a\nfake",
    })


def test_is_export_zip(export, tmp_path):
    assert is_export_zip(export)
    no_root = make_zip(tmp_path / "other.zip", {"readme.txt": b"hi"})
    log = tmp_path / "session.jsonl"
    log.write_bytes(demo_jsonl())
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"PK\x03\x04 but not really a zip")
    assert not is_export_zip(no_root)
    assert not is_export_zip(log)
    assert not is_export_zip(fake)
    assert not is_export_zip(tmp_path / "missing.zip")
    assert not is_export_zip(tmp_path)


def test_list_members(export):
    z = list_members(export)
    assert z.root == "session.jsonl"
    assert z.children == sorted([f"subagents/{CHILD_ID}/session.jsonl", f"subagents/{GRAND_ID}/session.jsonl"])
    assert z.media == ["media/att-1.png"] and z.problems == []


@pytest.mark.parametrize("name", ["../evil/session.jsonl", "/abs/session.jsonl", "subagents/../../x/session.jsonl",
                                  "subagents\\x\\session.jsonl", "C:/x/session.jsonl", "subagents//session.jsonl",
                                  "subagents/./session.jsonl", "a\x1b]0;x\x07/session.jsonl", ""])
def test_unsafe_member_names(name):
    assert not safe_member_name(name)


def test_unsafe_members_are_skipped_and_refused(tmp_path):
    path = make_zip(tmp_path / "x.zip", {"session.jsonl": demo_jsonl(),
                                         "subagents/../../etc/session.jsonl": child_jsonl(),
                                         "subagents/ok/session.jsonl": child_jsonl()})
    z = list_members(path)
    assert z.children == ["subagents/ok/session.jsonl"]
    assert len(z.problems) == 1 and "unsafe" in z.problems[0]
    with pytest.raises(ZipUnreadable) as exc:
        read_member(path, "subagents/../../etc/session.jsonl")
    assert exc.value.code == "unsafe-member"


def test_list_members_errors(tmp_path):
    with pytest.raises(ZipUnreadable, match="no session.jsonl"):
        list_members(make_zip(tmp_path / "a.zip", {"x": b"1"}))
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ZipUnreadable, match="not a readable ZIP"):
        list_members(bad)
    with pytest.raises(ZipUnreadable, match="no such file"):
        list_members(tmp_path / "missing.zip")
    dup = tmp_path / "dup.zip"
    with zipfile.ZipFile(dup, "w") as zf, pytest.warns(UserWarning):
        zf.writestr("session.jsonl", b"{}\n")
        zf.writestr("session.jsonl", b"{}\n")
    with pytest.raises(ZipUnreadable, match="appears 2 times"):
        list_members(dup)
    with pytest.raises(ZipUnreadable, match="appears 2 times"):
        read_member(dup, "session.jsonl")


def test_duplicate_child_members_are_skipped(tmp_path):
    path = tmp_path / "dupchild.zip"
    with zipfile.ZipFile(path, "w") as zf, pytest.warns(UserWarning):
        zf.writestr("session.jsonl", demo_jsonl())
        zf.writestr("subagents/a/session.jsonl", child_jsonl())
        zf.writestr("subagents/a/session.jsonl", child_jsonl())
        zf.writestr("subagents/b/session.jsonl", child_jsonl())
    z = list_members(path)
    assert z.children == ["subagents/b/session.jsonl"] and "appears 2 times" in z.problems[0]


def test_read_member(export):
    assert read_member(export, "session.jsonl") == demo_jsonl()
    with pytest.raises(ZipUnreadable) as exc:
        read_member(export, "subagents/nope/session.jsonl")
    assert exc.value.code == "no-member"


def test_read_member_refuses_a_bomb(tmp_path):
    bomb = make_zip(tmp_path / "bomb.zip", {"session.jsonl": b"\n" * (4 * 1024 * 1024)})
    assert bomb.stat().st_size < 64 * 1024
    with pytest.raises(ZipUnreadable) as exc:
        read_member(bomb, "session.jsonl", limit=1024 * 1024)
    assert exc.value.code == "too-large"
    assert "zip bomb" in exc.value.message and "1,048,576" in exc.value.message
    assert len(read_member(bomb, "session.jsonl", limit=8 * 1024 * 1024)) == 4 * 1024 * 1024


def test_read_member_checks_the_declared_size_first(tmp_path, monkeypatch):
    bomb = make_zip(tmp_path / "bomb.zip", {"session.jsonl": b"\n" * 100_000})

    def never(*a, **k):
        raise AssertionError("the member must not be opened")
    monkeypatch.setattr(zipfile.ZipFile, "open", never)
    with pytest.raises(ZipUnreadable) as exc:
        read_member(bomb, "session.jsonl", limit=1000)
    assert exc.value.code == "too-large"


def test_read_member_env_limit(tmp_path, monkeypatch):
    bomb = make_zip(tmp_path / "bomb.zip", {"session.jsonl": b"\n" * 100_000})
    monkeypatch.setenv("DSH_TUI_MAX_PLAIN_BYTES", "50000")
    with pytest.raises(ZipUnreadable, match="zip bomb"):
        read_member(bomb, "session.jsonl")


def test_read_member_crc_error(tmp_path):
    data = demo_jsonl()
    path = make_zip(tmp_path / "crc.zip", {"session.jsonl": data}, method=zipfile.ZIP_STORED)
    raw = bytearray(path.read_bytes())
    at = raw.find(data[:40]) + 20
    raw[at] ^= 0x20
    path.write_bytes(bytes(raw))
    with pytest.raises(ZipUnreadable) as exc:
        read_member(path, "session.jsonl")
    assert exc.value.code == "bad-zip"


def test_read_member_cancel(export):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        read_member(export, "session.jsonl", cancel=cancel)


def test_load_zip_session_matches_the_file(export, tmp_path):
    before = sorted(p.name for p in tmp_path.iterdir())
    log = load_zip_session(export)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing unpacked to disk
    disk = tmp_path / "copy" / "session.jsonl"
    disk.parent.mkdir()
    disk.write_bytes(demo_jsonl())
    ref = load_session(disk)
    assert str(log.path).endswith(".zip!session.jsonl") and log.raw.encoding == "jsonl"
    assert log.session_id == DEMO_SESSION_ID and log.accepted and log.whole
    assert len(log) == len(ref) == 320 and log.records == ref.records
    assert log.event(100).event == ref.event(100).event
    dz, dr = diagnose(log), diagnose(ref)
    assert (dz.verdict.kind, dz.verdict.call_id) == (dr.verdict.kind, dr.verdict.call_id)
    assert [f.kind for f in dz.findings] == [f.kind for f in dr.findings]


def test_load_zip_child_and_variants(export, tmp_path):
    child = load_zip_session(export, f"subagents/{CHILD_ID}/session.jsonl")
    assert child.header.get("parentSession") == DEMO_SESSION_ID and child.header.delegated
    torn = make_zip(tmp_path / "torn.zip", {"session.jsonl": demo_jsonl()[:-30]})
    log = load_zip_session(torn)
    assert log.raw.torn is not None and log.raw.torn.kind == "partial-line" and len(log) == 319
    h, b = demo_batches()
    zst = make_zip(tmp_path / "zst.zip", {"session.jsonl": encode_log(h, b)})
    zlog = load_zip_session(zst)
    assert zlog.raw.encoding == "zstd" and len(zlog) == 320 and zlog.raw.frames > 2
    junk = make_zip(tmp_path / "junk.zip", {"session.jsonl": b"hello"})
    with pytest.raises(LogUnreadable, match="not a dsh session log"):
        load_zip_session(junk)
    rej = make_zip(tmp_path / "rej.zip", {"session.jsonl": b'{"type":"session","version":0,"id":"x","createdAt":1}\n'})
    assert not load_zip_session(rej).accepted


def test_zip_entries_tree_and_status(export):
    entries = zip_entries(export)
    assert [e.member for e in entries][0] == "session.jsonl" and len(entries) == 3
    assert all(e.path == export and e.header_error is None for e in entries)
    roots = build_tree(entries)
    assert len(roots) == 1 and roots[0].session_id == DEMO_SESSION_ID
    (child,) = roots[0].children
    assert child.session_id == CHILD_ID and child.children[0].session_id == GRAND_ID
    assert child.dir_name == CHILD_ID
    for e in entries:
        fill_status(e)
    assert [e.status for e in entries] == ["open-turn", "completed", "interrupted"]
    assert entries[0].events == 320


def test_read_member_holds_the_member_once(tmp_path):
    """The member is decompressed into one buffer handed over as it is (before: a bytearray, then
    ``bytes(out)``, a second full copy: 2.06x the member at the peak)."""
    import tracemalloc
    data = b"x" * (16 << 20)
    path = make_zip(tmp_path / "big.zip", {"session.jsonl": data})
    tracemalloc.start()
    try:
        out = read_member(path, "session.jsonl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out == data and peak < 1.4 * len(data), f"{peak / len(data):.2f}x"


def test_a_listing_and_its_statuses_open_the_zip_once(tmp_path, monkeypatch):
    """`ls` of an export ZIP: one open of the archive for the listing and every member's status,
    each member found by name (before: one open, and a scan of every name, per member)."""
    from dsh_tui.model.sessions.discovery import list_target
    path = make_zip(tmp_path / "dsh-session-x.zip", {"session.jsonl": demo_jsonl(), **{
        f"subagents/{k}/session.jsonl": child_jsonl(str(k)) for k in range(20)}})
    opened = []
    real = zipfile.ZipFile.__init__

    def counting(self, *a, **k):
        opened.append(a[0] if a else k.get("file"))
        real(self, *a, **k)
    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting)
    listing = list_target(path)
    try:
        for e in listing.entries:
            fill_status(e, archive=listing.archive)
    finally:
        listing.close()
    assert len(listing.entries) == 21 and opened == [path]
    assert [e.status for e in listing.entries] == ["open-turn"] + ["completed"] * 20


def test_a_truncated_zip_is_named_as_such(tmp_path, export):
    data = export.read_bytes()
    for keep in (len(data) // 2, len(data) - 10):
        cut = tmp_path / f"cut{keep}.zip"
        cut.write_bytes(data[:keep])
        assert not is_export_zip(cut)
        with pytest.raises(ZipUnreadable, match=r"is not a readable ZIP archive \(truncated\?\)") as exc:
            list_members(cut)
        assert exc.value.code == "bad-zip"


def test_export_zip_reads_members_through_one_open_archive(export):
    with ExportZip(export) as z:
        assert z.members().children == list_members(export).children
        child = z.load(f"subagents/{CHILD_ID}/session.jsonl")
        assert child.session_id == CHILD_ID and child.accepted
        assert z.read("media/att-1.png").startswith(b"\x89PNG")
        with pytest.raises(ZipUnreadable) as exc:
            z.read("../media/att-1.png")
        assert exc.value.code == "unsafe-member"
    with pytest.raises(ZipUnreadable, match="already closed"):  # closed: reads fail, nothing is re-opened
        z.read("session.jsonl")
