"""Targets, result rows, and the plain-text / Markdown table."""

from __future__ import annotations

MiB = 1024 * 1024
HEAD = ("metric", "value", "reference", "ratio", "target", "result")


def _row(metric: str, value: str, *, ref: str = "", ratio: str = "", target: str = "",
         ok: bool | None = None, skip: str | None = None, data: dict | None = None) -> dict:
    result = "SKIP" if skip is not None else ("INFO" if ok is None else ("PASS" if ok else "FAIL"))
    return {"metric": metric, "value": value if skip is None else f"skipped: {skip}", "reference": ref, "ratio": ratio,
            "target": target, "result": result, "data": data or {}}


def s(x: float | None) -> str:
    return "n/a" if x is None else (f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s")


def count(n: int) -> str:
    return f"{n // 10**6}M" if n % 10**6 == 0 else f"{n:,}"


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def mib(b: int | float) -> str:
    return f"{b / MiB:,.0f} MiB" if b >= 10 * MiB else f"{b / MiB:.1f} MiB" if b >= MiB else f"{b / 1024:.0f} KiB"


def log_rows(r: dict) -> list[dict]:
    """Rows for one log's results (keys missing from ``r`` were not measured)."""
    rows: list[dict] = []
    fl, plain = r["floor"]["best"], r["floor"]["plain_bytes"]
    rows.append(_row("floor: decode frames + orjson.loads every line", s(fl),
                     ref=f"{r['floor']['lines']:,} lines, {mib(plain)} plain", data={"s": fl}))
    c = r["check"]
    ratio = c["best"] / fl
    rows.append(_row("check --format json --no-cache (process)", s(c["best"]), ref=f"floor {s(fl)}",
                     ratio=f"{ratio:.2f}x", target="<= 1.5x floor", ok=ratio <= 1.5, data={"s": c["best"], "ratio": ratio}))
    one = c.get("one_core")
    if one:
        r1 = one["best"] / fl
        rows.append(_row("check --format json --no-cache pinned to one core (process)", s(one["best"]),
                         ref=f"floor {s(fl)}", ratio=f"{r1:.2f}x", target="<= 2.2x floor", ok=r1 <= 2.2,
                         data={"s": one["best"], "ratio": r1, "rss": one["rss"]}))
    jq = r.get("jq")
    if jq:
        jr = jq["best"] / c["best"]
        rows.append(_row("check vs zstd -dc | jq select(tool/*)", s(c["best"]), ref=f"jq {s(jq['best'])}",
                         ratio=f"{jr:.2f}x faster", target=">= 2x faster", ok=jr >= 2, data={"jq_s": jq["best"], "speedup": jr}))
    else:
        rows.append(_row("check vs zstd -dc | jq", "", target=">= 2x faster", skip=r.get("jq_skip", "jq/zstd absent")))
    rr = c["rss"] / plain
    rows.append(_row("check peak RSS", mib(c["rss"]), ref=f"plain {mib(plain)}", ratio=f"{rr:.2f}x",
                     target="<= 3x plain", ok=rr <= 3, data={"bytes": c["rss"], "ratio": rr}))
    v, want = c["verdict"], r.get("expected_call_id")
    rows.append(_row("check verdict", f"{v.get('kind')} {v.get('call_id')}", ref=f"expected {want}" if want else "",
                     target="TOOL_OUTCOME_UNKNOWN + last callId" if want else "",
                     ok=(v.get("kind") == "TOOL_OUTCOME_UNKNOWN" and v.get("call_id") == want) if want else None))
    ro = r.get("reopen")
    if ro:
        note = "" if ro["warm_hit_cache"] else " (no cache hit: log too small to cache)"
        rows.append(_row("re-open: open_target warm / cold (in-process)", s(ro["warm_best"]) + note,
                         ref=f"cold {s(ro['cold_best'])}", ratio=f"{ro['ratio']:.0%}", target="<= 25%",
                         ok=ro["ratio"] <= 0.25, data={"warm_s": ro["warm_best"], "cold_s": ro["cold_best"]}))
        tp = ro.get("timing")
        if tp and "check_added" in tp:
            w, wo = min(tp["check_with"]), min(tp["check_without"])
            rows.append(_row("timing pass: check --no-cache with it / without it (process, median of pairs)", s(w),
                             ref=f"without {s(wo)}; the pass alone {s(tp['pass_best'])}",
                             ratio=f"{tp['check_added']:+.1%}", target="<= +10%", ok=tp["check_added"] <= 0.10,
                             data={"with_s": w, "without_s": wo, "added": tp["check_added"], "pass_s": tp["pass_best"]}))
        if tp and "added" in tp:
            rows.append(_row("timing pass: cold open with it / without it (in-process, median of pairs)",
                             s(tp["with_best"]), ref=f"without {s(tp['without_best'])}", ratio=f"{tp['added']:+.1%}",
                             data={"with_s": tp["with_best"], "without_s": tp["without_best"], "added": tp["added"]}))
            # Made in a worker once the log is shown; the T rows below are what the keys wait for.
            rows.append(_row("timing view model after a warm open (rows, waterfall, sparkline; a worker)",
                             s(tp["view_best"]), data={"s": tp["view_best"]}))
        for key, how in (("check_cached", "the entry the explorer writes"),
                         ("check_rechecked", "the entry check writes")):
            if key not in ro:  # (a results file from before the second row)
                continue
            cc = ro[key]["best"]
            rows.append(_row(f"re-open: check with cache ({how}) / --no-cache (process)", s(cc),
                             ref=f"no-cache {s(c['best'])}", ratio=f"{cc / c['best']:.0%}", target="<= 25%",
                             ok=cc / c["best"] <= 0.25, data={"s": cc, "ratio": cc / c["best"]}))
    st, tui = r.get("startup"), r.get("tui")
    if st:
        rows.append(_row("Textual start-up: spawn -> trivial App painted", s(st["best"]), ref=f"RSS {mib(st['rss'])}",
                         data={"s": st["best"]}))
    if tui:
        tfl = r["tui_floor"]["best"] if r.get("tui_floor") else fl  # the floor measured between these runs
        budget = 2 * tfl + (st["best"] if st else 0)
        rows.append(_row("TUI: spawn -> verdict row painted (headless)", s(tui["best"]),
                         ref=f"2x floor {s(tfl)} + start-up = {s(budget)}", ratio=f"{tui['best'] / budget:.2f}x",
                         target="<= 2x floor + start-up", ok=tui["best"] <= budget,
                         data={"s": tui["best"], "budget_s": budget, "loaded_s": tui["to_loaded"],
                               "import_s": tui["import_s"]}))
        tr = tui["rss"] / plain
        rows.append(_row("TUI peak RSS", mib(tui["rss"]), ref=f"plain {mib(plain)}", ratio=f"{tr:.2f}x",
                         target="<= 4x plain", ok=tr <= 4, data={"bytes": tui["rss"], "ratio": tr}))
        keys = tui.get("keys") or {}
        if "overhead_unbound" in keys:
            o = keys["overhead_unbound"]
            rows.append(_row("key: Pilot overhead (unbound key, subtracted)", f"{ms(o['median'])} ms",
                             ref=f"p95 {ms(o['p95'])} ms", data=o))
        for name in ("down", "pagedown", "end", "home", "goto_prompt", "goto_prompt_digit", "goto",
                     "goto_count_digit", "goto_count", "search_next", "anomaly_next", "anomaly_previous"):
            k = keys.get(name)
            if not k:
                continue
            extra = f", wall p50 {s(k['wall']['median'])}" if "wall" in k else ""
            rows.append(_row(f"key {name}: CPU median / p95 (n={k['n']})", f"{ms(k['median'])} / {ms(k['p95'])} ms",
                             ref=f"max {ms(k['max'])} ms{extra}", target="< 30 / < 60 ms",
                             ok=k["median"] < 0.030 and k["p95"] < 0.060, data=k))
        for name, title in (("timing_view_first", "T timing view, first open"), ("timing_view", "T timing view, again")):
            k = keys.get(name)
            if k:
                rows.append(_row(f"{title}: CPU median (n={k['n']})", f"{ms(k['median'])} ms",
                                 ref=f"max {ms(k['max'])} ms", target="< 100 ms", ok=k["median"] < 0.100, data=k))
        for name, title, limit in (("context_view", "C context view at the verdict, open", 0.200),
                                   ("json_tree_1mb", "J JSON tree of a 1 MB argument, open", 0.100),
                                   ("json_tree_1mb_unfold_all", "J JSON tree of a 1 MB argument, L (unfold all)", 0.100),
                                   ("json_tree_deep", "J JSON tree of a 10,000-deep value, open", 0.100),
                                   ("json_tree_deep_unfold_all", "J JSON tree of a 10,000-deep value, L", 0.100)):
            k = keys.get(name)
            if k:
                filled = keys.get("context_view_filled") if name == "context_view" else None
                extra = f", its rows read in {s(filled['median'])} (a worker)" if filled else ""
                rows.append(_row(f"{title}: CPU median (n={k['n']})", f"{ms(k['median'])} ms",
                                 ref=f"max {ms(k['max'])} ms{extra}", target=f"< {limit * 1000:.0f} ms",
                                 ok=k["median"] < limit, data=k))
    tm = r.get("tmux")
    if tm:
        ln, ds = tm["lnav"]["best"], tm["dsh_tui"]["best"]
        rows.append(_row("tmux 160x45: lnav shows the raw last line", s(ln), data=tm["lnav"]))
        ok = None if ln is None else (ds is not None and ds <= 1.5 * ln)  # lnav failed: nothing to compare
        rows.append(_row("tmux 160x45: dsh-tui shows the verdict", s(ds), ref=f"lnav {s(ln)}",
                         ratio=f"{ds / ln:.2f}x" if ln and ds else "", target="<= 1.5x lnav", ok=ok, data=tm["dsh_tui"]))
    else:
        rows.append(_row("tmux: dsh-tui vs lnav", "", target="<= 1.5x lnav", skip=r.get("tmux_skip", "not run")))
    return rows


def growth_rows(g: dict) -> list[dict]:
    rows = []
    for x in g["sizes"]:
        rows.append(_row(f"growth {x['events']:,} events: check --no-cache", s(x["check_best"]),
                         ref=f"RSS {mib(x['check_rss'])}, plain {mib(x['plain_bytes'])}",
                         target="verdict = last callId", ok=x["verdict_ok"], data=x))
    if "time_ratio" in g:
        limit = 1.2 * g["size_ratio"]
        a, b = g["sizes"][0]["events"], g["sizes"][-1]["events"]
        rows.append(_row(f"growth: check time {count(b)} / {count(a)} events",
                         f"{g['time_ratio']:.2f}x", ref=f"RSS {g['rss_ratio']:.2f}x, size {g['size_ratio']:.0f}x",
                         target=f"<= {limit:.0f}x", ok=g["time_ratio"] <= limit,
                         data={k: g[k] for k in ("time_ratio", "rss_ratio", "size_ratio")}))
    return rows


def text_table(sections: list[tuple[str, list[dict]]]) -> str:
    all_rows = [r for _, rows in sections for r in rows]
    widths = [max([len(h)] + [len(r[h]) for r in all_rows]) for h in HEAD]
    line = "  ".join(h.upper().ljust(w) for h, w in zip(HEAD, widths)).rstrip()
    out = [line, "-" * len(line)]
    for title, rows in sections:
        out.append(f"[{title}]")
        for r in rows:
            out.append("  ".join(r[h].ljust(w) for h, w in zip(HEAD, widths)).rstrip())
    return "\n".join(out)


def markdown_table(sections: list[tuple[str, list[dict]]]) -> str:
    out = []
    for title, rows in sections:
        out += [f"**{title}**", "", "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
        for r in rows:
            cells = [r[h].replace("|", "\\|") for h in HEAD]
            if r["result"] in ("PASS", "FAIL"):
                cells[-1] = f"**{cells[-1]}**"
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)
