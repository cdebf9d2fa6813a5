"""Make the PNGs in screenshots/ from the real explorer (headless), on the bundled demo log.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--size 120x36] [--only NAME ...]

The session browser runs on the tests' generated root; the subagent and
follow scenes (scripts/screenshot_live.py) on their own generated roots; the
timing view on the log dsh's writer wrote with known sleeps (tests/parity/timing).

Each scene runs the app in ``App.run_test``, exports an SVG with
``export_screenshot`` and converts it: rsvg-convert (after injecting
``xml:space="preserve"``, without which librsvg drops leading spaces), else
cairosvg, else the SVGs are kept and a message says why there is no PNG.
For crisp output install ``librsvg2-bin fonts-firacode``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dsh_tui.demo import write_demo  # noqa: E402
from dsh_tui.ui.app import ExplorerApp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import screenshot_live  # noqa: E402
import screenshot_lnav  # noqa: E402


async def _settle(app, pilot) -> None:
    while not app.load_finished:
        await app.workers.wait_for_complete()
        await pilot.pause(0.01)
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause(0.05)
    app.flush_detail()
    await pilot.pause()


async def scene_verdict(app, pilot) -> None:
    """The crash verdict: where the explorer opens."""


async def scene_pairs(app, pilot) -> None:
    """The call/result pairing pane, focused on the call that never started."""
    pane = app.pairs_pane
    pane.focus()
    await pilot.press("down")


async def scene_diff(app, pilot) -> None:
    """A multi-hunk fs diff (meta.diffs) in the detail pane."""
    app.jump_to(app.log_.index_of_seq(132))
    await _settle(app, pilot)
    app.detail.focus()


async def scene_help(app, pilot) -> None:
    """The help screen."""
    await pilot.press("question_mark")


async def scene_checklist(app, pilot) -> None:
    """The ten-minute pass."""
    await pilot.press("t")


SCENES = {"crash-verdict": scene_verdict, "pairing-pane": scene_pairs, "diff-detail": scene_diff,
          "help": scene_help, "ten-minute-pass": scene_checklist, "regex-search": screenshot_lnav.regex_search}
BROWSER_SCENES = ("session-browser",)  # a generated session root, not the demo log
# Each on its own generated root: name -> shoot(root, name, size).
ROOT_SCENES = {"subagent-tree": screenshot_live.shoot_subagent_tree,
               "subagent-child": screenshot_live.shoot_subagent_child,
               "follow-mode": screenshot_live.shoot_follow,
               "merged-timeline": screenshot_lnav.shoot_merged_timeline}
# On the log dsh's writer wrote with known sleeps (tests/parity/timing): the timing view and its waterfall.
TIMED_LOG = ROOT / "tests" / "parity" / "timing" / "zstd" / "--home-user-timing--" / "timed" / "session.jsonl.zstd"
TIMED_SCENES = ("timing-view",)
FLEET_SCENES = ("fleet-view",)  # a scan of generated sessions (needs the fleet extra)
DIFF_SCENES = ("runs-diff",)  # `dsh-tui diff` on a pair dsh's writer wrote (tests/parity/diff-cases)
# On the log dsh's writer wrote with a prune, a compaction, a header change and fs edits (tests/parity/context):
# name -> (the seq the cursor is put on, the keys that open the view).
CONTEXT_LOG = ROOT / "tests" / "parity" / "context" / "root" / "--home-user-context--" / "context" / "session.jsonl.zstd"
CONTEXT_SCENES = {"context-view": (50, ("X",)), "request-view": (16, ("I",)), "files-view": (16, ("D", "j", "enter")),
                  "json-tree": (11, ("J", *"jjjjjjjjj", "L"))}
# On logs dsh's writer wrote (tests/parity/cases): the header warning of a resume that deletes
# recorded work, and the browser on a root one session keeps dsh from listing.
PARITY = ROOT / "tests" / "parity" / "cases"
PARITY_SCENES = {"resume-truncation": PARITY / "raw-edited" / "--home-user-parity--" / "raw-bad-line-resume" / "session.jsonl",
                 "root-listing": PARITY / "zstd-listing"}
ALL_SCENES = [*SCENES, *BROWSER_SCENES, *ROOT_SCENES, *TIMED_SCENES, *FLEET_SCENES, *DIFF_SCENES, *CONTEXT_SCENES,
              *PARITY_SCENES]


async def _listed(app, pilot) -> None:
    from dsh_tui.ui.screens.browser import BrowserScreen
    while True:
        s = app.screen
        if isinstance(s, BrowserScreen) and s.listing is not None and s.pending == 0 and not any(
                w.group in ("listing", "fill") and not w.is_finished for w in app.workers):
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def shoot_browser(root: Path, name: str, size: tuple[int, int]) -> str:
    """The session browser on a generated root: projects, nested children, statuses."""
    app = ExplorerApp(root, native_clipboard=False, detail_delay=0.01)
    app.browse_root = root
    async with app.run_test(size=size) as pilot:
        await _listed(app, pilot)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def shoot_timing(name: str, size: tuple[int, int]) -> str:
    """The timing view (T): calls slowest first, the tool call selected, its turn's waterfall (the log's own
    times: tests/support/timed.py hands them over while the scan does not keep them)."""
    from tests.support.timed import give_times
    app = ExplorerApp(TIMED_LOG, native_clipboard=False, detail_delay=0.01)
    async with app.run_test(size=size) as pilot:
        await _settle(app, pilot)
        give_times(app, TIMED_LOG)
        await _settle(app, pilot)
        await pilot.press("T", "down")
        await pilot.pause(0.05)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def shoot_fleet(tmp: Path, name: str, size: tuple[int, int]) -> str:
    """The fleet view over a scan of 400 generated sessions (benchmarks/fleet.py) and the tests' root."""
    from dsh_tui.benchmarks.fleet import generated_root
    from dsh_tui.cli import main as cli_main
    from dsh_tui.ui.screens.fleet import FleetScreen
    roots = [generated_root(tmp / "fleet-root", 400), make_root(tmp / "fleet-tests")]
    out = tmp / "fleet-scan"
    if cli_main(["scan", *map(str, roots), "--out", str(out), "--quiet"]) != 0:
        raise SystemExit("fleet-view: the scan failed")
    app = ExplorerApp(out, native_clipboard=False, detail_delay=0.01)
    app.fleet_dir = out
    async with app.run_test(size=size) as pilot:
        while not (isinstance(app.screen, FleetScreen) and app.screen.view is not None and app.screen.rows):
            await pilot.pause(0.05)
        await pilot.press("down", "down")
        while app.workers and not all(w.is_finished for w in app.workers):
            await pilot.pause(0.05)
        await pilot.pause(0.1)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def shoot_diff(name: str, size: tuple[int, int]) -> str:
    """`dsh-tui diff A B`: a run and its re-run side by side, the cursor on the first divergence."""
    from tests.support.diffs import diff_app
    app = diff_app("args")
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.1)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def shoot_context(name: str, size: tuple[int, int]) -> str:
    """The context (X), request (I), files (D) and JSON tree (J) views, their workers awaited."""
    seq, keys = CONTEXT_SCENES[name]
    app = ExplorerApp(CONTEXT_LOG, native_clipboard=False, detail_delay=0.01)
    async with app.run_test(size=size) as pilot:
        await _settle(app, pilot)
        app.jump_to(app.log_.index_of_seq(seq))
        await _settle(app, pilot)
        await pilot.press(*keys)
        for _ in range(200):
            await app.workers.wait_for_complete()
            await pilot.pause(0.02)
            chart = app.screen.query("#context-chart")
            if not chart or chart.first().reqs:
                break
        await pilot.pause(0.05)
        return app.export_screenshot(title=f"dsh-tui: {name}")


def make_root(tmp: Path) -> Path:
    """The tests' realistic root (tests/support/session_roots.py), every mtime pinned; HOME=tmp shows it as ~/dsh/sessions."""
    from tests.support.session_roots import build_root
    root = build_root(tmp / "dsh" / "sessions").root
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(dirpath, name), (1_796_300_000, 1_796_300_000))
    return root


async def shoot(log: Path, name: str, size: tuple[int, int]) -> str:
    app = ExplorerApp(log, native_clipboard=False, detail_delay=0.01)
    async with app.run_test(size=size) as pilot:
        await _settle(app, pilot)
        await SCENES[name](app, pilot)
        await _settle(app, pilot)
        return app.export_screenshot(title=f"dsh-tui: {name}")


async def shoot_log(log: Path, name: str, size: tuple[int, int]) -> str:
    """The explorer as it opens on ``log``."""
    app = ExplorerApp(log, native_clipboard=False, detail_delay=0.01)
    async with app.run_test(size=size) as pilot:
        await _settle(app, pilot)
        return app.export_screenshot(title=f"dsh-tui: {name}")


def to_png(svg: Path, png: Path) -> str | None:
    """Convert; returns the tool used, or None when no converter is available."""
    if shutil.which("rsvg-convert"):
        patched = svg.read_text().replace("<svg ", '<svg xml:space="preserve" ', 1)
        with tempfile.NamedTemporaryFile("w", suffix=".svg", delete=False) as fh:
            fh.write(patched)
        try:
            subprocess.run(["rsvg-convert", fh.name, "-o", str(png)], check=True)
        finally:
            os.unlink(fh.name)
        return "rsvg-convert"
    try:
        import cairosvg  # type: ignore[import-not-found]
    except ImportError:
        return None
    cairosvg.svg2png(url=str(svg), write_to=str(png))
    return "cairosvg"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "screenshots")
    p.add_argument("--size", default="120x36", help="terminal size, COLSxROWS (default 120x36)")
    p.add_argument("--keep-svg", action="store_true", help="keep the SVGs next to the PNGs")
    p.add_argument("--only", action="append", choices=ALL_SCENES, metavar="NAME",
                   help=f"make just this scene (repeatable): {', '.join(ALL_SCENES)}")
    args = p.parse_args(argv)
    cols, rows = (int(x) for x in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.pop("NO_COLOR", None)
    names = [n for n in ALL_SCENES if not args.only or n in args.only]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        log = write_demo(Path(tmp) / "session.jsonl.zstd")
        os.environ["HOME"] = tmp
        for name in names:
            if name in PARITY_SCENES:
                target = PARITY_SCENES[name]
                if target.is_dir():  # a copy under HOME=tmp (shown as ~/...), its mtimes pinned
                    root = Path(tmp) / name / "dsh" / "sessions"
                    shutil.copytree(target, root)
                    for dirpath, _dirs, files in os.walk(root):
                        for f in files:
                            os.utime(os.path.join(dirpath, f), (1_796_300_000, 1_796_300_000))
                    svg_text = asyncio.run(shoot_browser(root, name, (cols, rows)))
                else:
                    svg_text = asyncio.run(shoot_log(target, name, (cols, rows)))
            elif name in BROWSER_SCENES:
                svg_text = asyncio.run(shoot_browser(make_root(Path(tmp)), name, (cols, rows)))
            elif name in TIMED_SCENES:
                svg_text = asyncio.run(shoot_timing(name, (cols, rows)))
            elif name in FLEET_SCENES:
                svg_text = asyncio.run(shoot_fleet(Path(tmp), name, (cols, rows)))
            elif name in DIFF_SCENES:
                svg_text = asyncio.run(shoot_diff(name, (cols, rows)))
            elif name in CONTEXT_SCENES:
                svg_text = asyncio.run(shoot_context(name, (cols, rows)))
            elif name in ROOT_SCENES:
                root = Path(tmp) / name / "dsh" / "sessions"
                svg_text = asyncio.run(ROOT_SCENES[name](root, name, (cols, rows)))
            else:
                svg_text = asyncio.run(shoot(log, name, (cols, rows)))
            if "\x1b" in svg_text:
                raise SystemExit(f"{name}: raw ESC in the screenshot (unsanitised text)")
            svg = args.out / f"{name}.svg"
            svg.write_text(svg_text)
            tool = to_png(svg, args.out / f"{name}.png")
            if tool is None:
                print(f"{name}: wrote {svg} (no PNG: install librsvg2-bin or `pip install cairosvg`)")
                continue
            if not args.keep_svg:
                svg.unlink()
            print(f"{name}: {args.out / (name + '.png')} ({tool})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
