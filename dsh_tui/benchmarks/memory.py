"""Memory at size and bombs (issue 23): `python -m dsh_tui.bench --memory` / `--bombs`.

* ~10M-event logs, one generated and one built from the real 936k log (its body repeated, each
  copy renumbered: seqs, times and call ids go on, so dsh accepts it): `check --no-cache` peak RSS
  against the plaintext, and the explorer headless after its full load and a search for a word
  near the start (the search the UI's worker runs, `find_all`), as the proportional set size of
  its process and of every helper process still alive (PSS: shared pages count once), and its
  peak RSS; then the same explorer measure through the index cache (its entry written first), as a
  log is met the second time. lnav, when installed, is measured on the same file in the same run
  (its RSS after it has shown the last line).
* Tiny bombs (a 4 GiB zstd bomb, a header then a 4 GiB line, /dev/zero, a FIFO): `check`
  refuses each with exit 3, in under 2 s and 256 MiB peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

import orjson

from . import proc
from .report import _row, mib, s

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
RSS_TARGET = 0.25  # of the plaintext: check, and the explorer with its helpers
BOMB_SECONDS, BOMB_RSS = 2.0, 256 << 20
HEADER = {"type": "session", "version": 0, "id": "bomb", "createdAt": 1790000000000, "cwd": "/w", "delegationDepth": 0}


# -- inputs ---------------------------------------------------------------------------------------
def repeated_log(source: Path, workdir: Path, times: int) -> Path:
    """``source``'s header frame, then its body ``times`` times, each copy after the first renumbered
    as a longer run of the same session would be: seqs (and the seqs events name), times and call ids
    (the 936k log's ``call_`` ids, given the copy's number) go on from the copy before, so dsh reads it
    whole. Frame by frame, as dsh framed it."""
    import zstandard

    from ..model.reading.source import open_log
    out = workdir / f"{source.name.split('__')[0]}-x{times}-renumbered__session.jsonl.zstd"
    if out.exists():
        return out
    _raw, fb, _limit = open_log(source)
    tmp = out.with_suffix(".tmp")
    try:
        spans = list(span for span, _frame in fb.frames(0))
        header, body = fb.read(0, spans[0].end), fb.read(spans[0].end, fb.size - spans[0].end)
        frames = [fb.read(sp.start, sp.end - sp.start) for sp in spans[1:]]
    finally:
        fb.close()
    dctx, cctx = zstandard.ZstdDecompressor(), zstandard.ZstdCompressor(level=3, write_checksum=True)
    events, first_time, last_time = _body_extent(dctx, frames)
    with open(tmp, "wb") as fh:
        fh.write(header)
        fh.write(body)
        for k in range(1, times):
            dseq, dtime = k * events, k * (last_time - first_time + 1)
            tag = f'"call_{k:02d}'.encode()
            for frame in frames:
                lines = dctx.decompressobj().decompress(frame).split(b"\n")
                text = b"\n".join(_shifted(line, dseq, dtime) if line else line for line in lines)
                fh.write(cctx.compress(text.replace(b'"call_', tag)))
    tmp.rename(out)
    return out


def _body_extent(dctx, frames: list[bytes]) -> tuple[int, int, int]:
    """The body's event count (the seq after its last event) and its first and last times."""
    from ..model.reading.vocabulary import PACKED_ROWS
    first = last = None
    following = 0
    for frame in frames:
        for line in dctx.decompressobj().decompress(frame).split(b"\n"):
            if not line:
                continue
            ev = orjson.loads(line)
            t = ev.get("time", ev.get("time0"))
            first = t if first is None else first
            last = t
            row = PACKED_ROWS.get(ev.get("type"))
            following = ev["seq"] + 1 if row is None else ev["seq0"] + len(ev["data"][row[1]])
    return following, first, last


def _shifted(line: bytes, dseq: int, dtime: int) -> bytes:
    """One record of a later copy: its seqs, the seqs it names and its times moved on."""
    ev = orjson.loads(line)
    for key, by in (("seq", dseq), ("seq0", dseq), ("time", dtime), ("time0", dtime)):
        if type(ev.get(key)) is int:
            ev[key] += by
    if isinstance(ev.get("sourceEventSeqs"), list):
        ev["sourceEventSeqs"] = [s + dseq for s in ev["sourceEventSeqs"]]
    op = ev.get("surfaceOp")
    if isinstance(op, dict):
        op.update({k: op[k] + dseq for k in ("start", "end") if type(op.get(k)) is int})
    return orjson.dumps(ev)


def _rle_frame(plain_bytes: int, byte: bytes, prefix: bytes = b"") -> bytes:
    """A zstd frame of ``prefix`` (a raw block) then ``byte`` repeated in RLE blocks (4 bytes each)."""
    def block(kind: int, size: int, last: bool, payload: bytes) -> bytes:
        return (int(last) | kind << 1 | size << 3).to_bytes(3, "little") + payload
    out = [b"\x28\xb5\x2f\xfd\x00\x58"]
    if prefix:
        out.append(block(0, len(prefix), False, prefix))
    left = plain_bytes - len(prefix)
    while left > 0:
        n = min(128 * 1024, left)
        left -= n
        out.append(block(1, n, left == 0, byte))
    return b"".join(out)


def bombs(workdir: Path) -> dict[str, Path]:
    import zstandard
    d = workdir / "bombs"
    d.mkdir(exist_ok=True)
    header = zstandard.ZstdCompressor(write_checksum=True).compress(orjson.dumps(HEADER) + b"\n")
    out = {"4 GiB zstd bomb (zeros, 1 frame)": d / "zeros.zst",
           "header then a 4 GiB line": d / "line.zst",
           "/dev/zero": Path("/dev/zero"), "a FIFO": d / "fifo.jsonl"}
    out["4 GiB zstd bomb (zeros, 1 frame)"].write_bytes(_rle_frame(4 << 30, b"\0"))
    out["header then a 4 GiB line"].write_bytes(
        header + _rle_frame(4 << 30, b"x", b'{"type":"feedback/record","seq":0,"time":1,"data":{"text":"'))
    if not out["a FIFO"].exists():
        os.mkfifo(out["a FIFO"])
    return out


# -- measurements -----------------------------------------------------------------------------------
def measure_bombs(workdir: Path) -> list[dict]:
    rows = []
    for name, path in bombs(workdir).items():
        r = proc.run([*proc.dsh_tui_argv(), "check", str(path), "--no-cache"], env=proc.child_env(workdir), timeout=120)
        ok = r.rc == 3 and r.wall < BOMB_SECONDS and r.rss < BOMB_RSS
        rows.append(_row(f"bomb refused: {name}", f"exit {r.rc} in {s(r.wall)}, {mib(r.rss)}",
                         ref=r.stderr.decode(errors="replace").strip()[:80],
                         target="exit 3, < 2 s, < 256 MiB", ok=ok,
                         data={"rc": r.rc, "s": r.wall, "rss": r.rss}))
    return rows


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), ()):
            out.append(k)
            todo.append(k)
    return out


def _needle(log) -> str:
    """A word near the start: the first callId, else the first event's type."""
    for i in range(min(len(log), 2000)):
        data = log.event(i).event.get("data")
        if isinstance(data, dict) and isinstance(data.get("callId"), str):
            return data["callId"]
    return log.type_of(0)


async def _explore(path: Path) -> dict:
    import resource

    from ..cli import start_background
    from .tui import SIZE, _wait_painted
    background = start_background(path)
    from ..model.reading.search import find_all
    from ..ui.app import ExplorerApp
    # lenient: a log dsh refuses is still measured on its whole read, as `check` reads it in full
    app = ExplorerApp(path, native_clipboard=False, lenient=True, **background)
    async with app.run_test(size=SIZE):
        await _wait_painted(app, 1800)
        needle = _needle(app.log_)
        t0 = time.monotonic()
        hits = find_all(app.log_, needle)
        searched = time.monotonic() - t0
        await asyncio.sleep(0.5)
        me = os.getpid()
        helpers = _descendants(me)
        res = {"pss": _pss(me), "helpers_pss": sum(map(_pss, helpers)), "helpers": len(helpers),
               "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "needle": needle,
               "hits": len(hits), "search_s": searched, "events": len(app.log_),
               "from_cache": bool(app.log_.from_cache)}
        app.cancel_event.set()
    return res


def plain_bytes(path: Path) -> tuple[int, str]:
    """What the log decodes to (frames decoded one at a time, nothing parsed), and its last line."""
    import zstandard

    from ..model.reading.source import open_log
    raw, fb, _limit = open_log(path)
    try:
        if raw.encoding != "zstd":
            return fb.size, _last_line(fb.read(max(0, fb.size - 65536), min(fb.size, 65536)))
        dctx, total, last = zstandard.ZstdDecompressor(), 0, b""
        for _span, frame in fb.frames(0):
            text = dctx.decompressobj().decompress(frame)
            total += len(text)
            last = text or last
        return total, _last_line(last)
    finally:
        fb.close()


def _last_line(text: bytes) -> str:
    return text.rstrip(b"\n").rsplit(b"\n", 1)[-1].decode("utf-8", "replace")


def _memory_of(pid: int) -> dict:
    """A process's PSS with its descendants', its RSS and its peak RSS (VmHWM), in bytes."""
    status = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    status[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    kids = _descendants(pid)
    return {"pss": _pss(pid) + sum(map(_pss, kids)), "rss": status.get("VmRSS", 0), "peak_rss": status.get("VmHWM", 0),
            "helpers": len(kids)}


def lnav_row(path: Path, workdir: Path, label: str, last_line: str, ours: int | None) -> dict:
    """lnav on the same file, its memory once it shows the last line (as its users meet it), against
    the explorer's (``ours``: its PSS with helpers after load and search)."""
    from . import tmuxrun
    metric = f"{label}: explorer vs lnav's memory on the same file (PSS)"
    if proc.which("lnav") is None:
        return _row(metric, "", skip="lnav not installed")
    if not tmuxrun.available():
        return _row(metric, "", skip="tmux not installed")
    home = workdir / "lnav-home"
    home.mkdir(parents=True, exist_ok=True)
    got = tmuxrun.time_to_screen(["env", f"HOME={home}", "lnav", str(path)], [tmuxrun.last_line_needle(last_line)],
                                 timeout=900, tag="lnavmem", probe=_memory_of)
    m = got.get("probe")
    if not got["ok"] or not m:
        return _row(metric, "", skip=f"lnav did not show the last line: {got.get('why', 'no process')}")
    ref = f"lnav PSS {mib(m['pss'])}, RSS {mib(m['rss'])}, peak {mib(m['peak_rss'])}; last line in {s(got['wall'])}"
    if ours is None:
        return _row(metric, "", ref=ref, skip="no explorer measure", data={"lnav": m})
    ratio = ours / max(1, m["pss"])
    return _row(metric, mib(ours), ref=ref, ratio=f"{ratio:.2f}x", target="<= 1x lnav (goal)", ok=ratio <= 1.0,
                data={"lnav": m, "lnav_s": got["wall"], "ours": ours, "ratio": ratio})


def measure_log(path: Path, workdir: Path, label: str, *, tui: bool = True) -> list[dict]:
    plain, last_line = plain_bytes(path)
    rows = []
    ours = None
    r = proc.run([*proc.dsh_tui_argv(), "check", str(path), "--format", "json", "--no-cache"],
                 env=proc.child_env(workdir, no_cache=True), timeout=3600)
    ratio = r.rss / plain
    rows.append(_row(f"{label}: check peak RSS", mib(r.rss), ref=f"plain {mib(plain)}", ratio=f"{ratio:.2f}x",
                     target=f"<= {RSS_TARGET}x plain", ok=ratio <= RSS_TARGET,
                     data={"bytes": r.rss, "plain": plain, "ratio": ratio, "s": r.wall}))
    if tui:
        e = _explore_child(path, workdir, no_cache=True)
        if isinstance(e, str):
            rows.append(_row(f"{label}: explorer after load + search (PSS, with helpers)", "", skip=e))
        else:
            ours = e["pss"] + e["helpers_pss"]
            rows.append(_explorer_row(f"{label}: explorer after load + search (PSS, with {e['helpers']} helpers)",
                                      e, plain))
        # The same through the index cache, as a user meets a log the second time: the entry is
        # written first (open_target, in a child), then the explorer reads it. Lenient, as the child
        # opens it (`_explore`): a strict entry is not served to a lenient open, which decodes the log
        # again and writes an entry of its own (what this row measured before it said where it read).
        prime = proc.prime_cache(path, workdir, lenient=True)
        metric = f"{label}: explorer re-opened through the index cache, after load + search (PSS)"
        e = _explore_child(path, workdir, no_cache=False) if prime.rc == 0 else "priming the cache failed"
        if isinstance(e, dict) and not e.get("from_cache"):
            e = "the explorer did not read the index cache entry"
        rows.append(_row(metric, "", skip=e) if isinstance(e, str) else _explorer_row(metric, e, plain))
    rows.append(lnav_row(path, workdir, label, last_line, ours))
    return rows


def _explore_child(path: Path, workdir: Path, *, no_cache: bool) -> dict | str:
    """The explorer's memory after load and search (`_explore`, in a child), or why it failed."""
    out = workdir / f"memory-explore-{os.getpid()}.json"
    run = proc.run([sys.executable, "-m", "dsh_tui.benchmarks.memory", "explore", str(path), "--out", str(out)],
                   env=proc.child_env(workdir, no_cache=no_cache), timeout=3600)
    if run.rc != 0 or not out.exists():
        return f"explorer child failed ({run.rc}): {run.stderr.decode(errors='replace')[-200:]}"
    e = json.loads(out.read_text())
    out.unlink()
    return e


def _explorer_row(metric: str, e: dict, plain: int) -> dict:
    total = e["pss"] + e["helpers_pss"]
    ratio = total / plain
    return _row(metric, mib(total), ref=f"plain {mib(plain)}; peak RSS {mib(e['peak_rss'])}; search {s(e['search_s'])}",
                ratio=f"{ratio:.2f}x", target=f"<= {RSS_TARGET}x plain", ok=ratio <= RSS_TARGET,
                data={**e, "plain": plain, "ratio": ratio})


def child_main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dsh_tui.benchmarks.memory")
    p.add_argument("mode", choices=("explore",))
    p.add_argument("file")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    res = asyncio.run(_explore(Path(args.file)))
    Path(args.out).write_text(json.dumps(res))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(child_main())
