#!/usr/bin/env python3
"""The task family's benchmark (issue 7): one summary per task, then the tables of docs/BENCHMARKS.md.

    family_table.py summarize STORE RUN_JSON TORCH_JSON DEVICE_TXT COMMAND > TASK.json
        one task's run against torch: per workload the start, the best, torch eager and torch.compile (re-measured in
        the same call), T_sol, and the judge's SOL score with T_b = the faster torch
    family_table.py tables [--write MARKDOWN] SUMMARY_JSON...
        the family's tables in Markdown on stdout; with --write, also in MARKDOWN between the lines
        <!-- family-benchmark:begin --> and <!-- family-benchmark:end --> (appended when absent)

A workload counts as large when its T_sol (the datasheet roofline) is at least LARGE_SOL_US: there the kernel's fraction
of the roofline is a target (85%); below it launch latency dominates and the torch ratio is what to read. A decode row is
a workload of DECODE_TOKENS tokens or fewer (its num_tokens, num_rows or M axis).

torch.compile is compared twice: as the benchmark times T_b (a call's kernel span, host launch gaps between its kernels
included) and replayed from a CUDA graph (no gaps; torch_baselines.py's compile_graphs_ms). A workload where the best
beats the first and not the second wins only because of torch's launch gaps: the per-task tables mark it "gaps".
"""
import json
import math
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_table import geomean, verdicts  # noqa: E402  (one reading of the store for both scripts)

LARGE_SOL_US = 50.0
DECODE_TOKENS = 32
TOKEN_AXES = ("num_tokens", "num_rows", "M")
BEGIN, END = "<!-- family-benchmark:begin -->", "<!-- family-benchmark:end -->"


def summarize(store, run_json, torch_json, device_txt, command):
    run = json.load(open(run_json))
    torch = json.load(open(torch_json))
    db = sqlite3.connect(store)
    run_id = run.get("run_id", 1)
    (summary,) = db.execute("SELECT summary_json FROM runs WHERE id = ?", (run_id,)).fetchone()
    summary = json.loads(summary)
    (start_id,) = db.execute("SELECT id FROM candidates WHERE run_id = ? AND proposer = 'start'", (run_id,)).fetchone()
    start, best = verdicts(db, start_id), verdicts(db, summary["best_candidate"])
    torch_rows = {row["uuid"]: row for row in torch["workloads"]}
    rows = []
    for uuid, (_, held_out, status, median, sol, baseline, score) in best.items():
        t = torch_rows.get(uuid, {})
        start_row = start.get(uuid)
        rows.append({
            "uuid": uuid, "held_out": bool(held_out), "status": status,
            "start_ns": start_row[3] if start_row and start_row[2] == "PASSED" else None,
            "best_ns": median if status == "PASSED" else None,
            "eager_ns": (t.get("eager_ms") or 0) * 1e6 or None, "compile_ns": (t.get("compile_ms") or 0) * 1e6 or None,
            "graphs_ns": (t.get("compile_graphs_ms") or 0) * 1e6 or None, "tokens": tokens(t.get("axes", {})),
            "sol_ns": sol, "baseline_ns": baseline,
            # The judge's SOL score against the run's T_b (--baseline-file: the faster torch); a wrong workload scores 0.
            "score": score if status == "PASSED" else 0.0,
        })
    return {
        "task": run.get("task", summary.get("task")),
        "device": open(device_txt).read().strip() if device_txt and os.path.exists(device_txt) else "",
        "torch": torch.get("torch"), "torch_date": torch.get("date"),
        "run": {k: run.get(k, summary.get(k)) for k in ("judged", "elapsed_s", "promotions", "plateaus", "stop_reason")},
        "command": command,
        "best": db.execute("SELECT name FROM candidates WHERE id = ?", (summary["best_candidate"],)).fetchone()[0],
        "workloads": rows,
    }


def tokens(axes):
    return next((axes[name] for name in TOKEN_AXES if name in axes), None)


def wins_only_by_gaps(row):
    """Faster than torch.compile as the benchmark times it, slower than torch.compile replayed from a CUDA graph."""
    return bool(row["best_ns"] and row["compile_ns"] and row.get("graphs_ns") and
                row["best_ns"] < row["compile_ns"] and row["best_ns"] >= row["graphs_ns"])


def ratios_by_class(passed):
    """Geometric means of torch's time over the best's, (against compile, against compile with graphs), per row class."""
    classes = {"decode": [r for r in passed if r.get("tokens") is not None and r["tokens"] <= DECODE_TOKENS],
               "large": [r for r in passed if r["sol_ns"] and r["sol_ns"] / 1e3 >= LARGE_SOL_US]}
    return {name: (geomean([r["compile_ns"] / r["best_ns"] for r in rows if r["compile_ns"]]),
                   geomean([r["graphs_ns"] / r["best_ns"] for r in rows if r.get("graphs_ns")]), len(rows))
            for name, rows in classes.items()}


def fmt_ratio(value):
    return "-" if value is None or math.isnan(value) else f"{value:.2f}x"


def fmt_us(ns, digits=2):
    if ns is None:
        return ""
    return "-" if math.isnan(ns) else f"{ns / 1e3:.{digits}f}"  # nan: a geometric mean over no time (torch.compile not run)


def fmt_score(score):
    return "-" if score is None else f"{score:.3f}"


def tables(summaries):
    out = []
    family = []
    for s in summaries:
        visible = [r for r in s["workloads"] if not r["held_out"]]
        passed = [r for r in visible if r["best_ns"]]
        large = [r for r in passed if r["sol_ns"] and r["sol_ns"] / 1e3 >= LARGE_SOL_US]
        scores = [r["score"] for r in visible if r["score"] is not None]
        family.append({
            "task": s["task"], "workloads": len(visible),
            "best": geomean([r["best_ns"] for r in passed]), "start": geomean([r["start_ns"] for r in passed]),
            "eager": geomean([r["eager_ns"] for r in passed]), "compile": geomean([r["compile_ns"] for r in passed]),
            "vs_compile": geomean([r["compile_ns"] / r["best_ns"] for r in passed if r["compile_ns"]]),
            "large_roofline": geomean([r["sol_ns"] / r["best_ns"] for r in large]) if large else None, "large": len(large),
            "score": statistics.mean(scores) if scores else None, "failed": len(visible) - len(passed), "run": s["run"],
            "classes": ratios_by_class(passed), "gaps": [r["uuid"] for r in passed if wins_only_by_gaps(r)],
        })
    out.append("| task | workloads | start us | best us | torch eager us | torch.compile us | speed-up over torch.compile "
               "| % of datasheet roofline, large workloads | mean SOL score | candidates judged | run time |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for f in family:
        roof = f"{100 * f['large_roofline']:.1f} ({f['large']})" if f["large_roofline"] else "- (none)"
        failed = f" ({f['failed']} failed)" if f["failed"] else ""
        out.append(f"| {f['task']} | {f['workloads']}{failed} | {fmt_us(f['start'])} | {fmt_us(f['best'])} | {fmt_us(f['eager'])} | "
                   f"{fmt_us(f['compile'])} | {fmt_ratio(f['vs_compile'])} | {roof} | "
                   f"{fmt_score(f['score'])} | "
                   f"{f['run'].get('judged')} | {f['run'].get('elapsed_s') or 0:.0f} s |")
    scores = [f["score"] for f in family if f["score"] is not None]
    if scores:
        out.append(f"\nMean SOL score across the family: **{statistics.mean(scores):.3f}** over {len(scores)} tasks (geometric "
                   f"means over the visible workloads; held-out workloads are in the per-task tables).")
    out.append(f"\nAgainst torch.compile by row class: as the benchmark times it (T_b's compile, launch gaps included) and "
               f"replayed from a CUDA graph (no gaps). Decode: {DECODE_TOKENS} tokens or fewer; large: T_sol of "
               f"{LARGE_SOL_US:.0f} us or more. Above 1.00x the best is faster.\n")
    out.append("| task | decode rows | vs torch.compile | vs torch.compile with graphs | large workloads | vs torch.compile "
               "| vs torch.compile with graphs | wins only by torch's launch gaps |")
    out.append("|---|---|---|---|---|---|---|---|")
    for f in family:
        (d_compile, d_graphs, d_count), (l_compile, l_graphs, l_count) = f["classes"]["decode"], f["classes"]["large"]
        out.append(f"| {f['task']} | {d_count} | {fmt_ratio(d_compile)} | {fmt_ratio(d_graphs)} | {l_count} | {fmt_ratio(l_compile)} | "
                   f"{fmt_ratio(l_graphs)} | {', '.join(f['gaps']) or 'none'} |")
    for s in summaries:
        out.append(f"\n### {s['task']}\n")
        out.append(f"{s['device']}; torch {s['torch']} measured {s['torch_date']}. `{s['command']}`: {s['run'].get('judged')} "
                   f"candidates in {s['run'].get('elapsed_s') or 0:.0f} s, {s['run'].get('promotions')} promotions, stop: "
                   f"{s['run'].get('stop_reason')}. Best: `{s['best']}`.\n")
        out.append("| workload | start us | best us | torch eager us | torch.compile us | torch.compile with graphs us | T_sol us "
                   "| best vs compile | best vs compile with graphs | % of T_sol | SOL score |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in s["workloads"]:
            name = r["uuid"] + (" (held out)" if r["held_out"] else "")
            if not r["best_ns"]:
                out.append(f"| {name} | {fmt_us(r['start_ns'])} | {r['status']} | {fmt_us(r['eager_ns'])} | {fmt_us(r['compile_ns'])} | "
                           f"{fmt_us(r.get('graphs_ns'))} | {fmt_us(r['sol_ns'], 3)} | | | | |")
                continue
            ratio = f"{r['compile_ns'] / r['best_ns']:.2f}x" if r["compile_ns"] else ""
            graphs = f"{r['graphs_ns'] / r['best_ns']:.2f}x" if r.get("graphs_ns") else ""
            if r.get("graphs_ns") and wins_only_by_gaps(r):
                graphs += " (gaps)"
            out.append(f"| {name} | {fmt_us(r['start_ns'])} | {fmt_us(r['best_ns'])} | {fmt_us(r['eager_ns'])} | {fmt_us(r['compile_ns'])} | "
                       f"{fmt_us(r.get('graphs_ns'))} | {fmt_us(r['sol_ns'], 3)} | {ratio} | {graphs} | {100 * r['sol_ns'] / r['best_ns']:.1f} | "
                       f"{fmt_score(r['score'])} |")
    return "\n".join(out) + "\n"


def write_section(path, text):
    body = open(path).read() if os.path.exists(path) else ""
    section = f"{BEGIN}\n{text}{END}"
    if BEGIN in body and END in body:
        body = body[:body.index(BEGIN)] + section + body[body.index(END) + len(END):]
    else:
        body = body.rstrip("\n") + "\n\n" + section + "\n"
    open(path, "w").write(body)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 6 and args[0] == "summarize":
        json.dump(summarize(*args[1:]), sys.stdout, indent=1)
        print()
    elif args and args[0] == "tables":
        target = None
        if len(args) > 2 and args[1] == "--write":
            target, args = args[2], args[2:]
        text = tables([json.load(open(path)) for path in args[1:]])
        sys.stdout.write(text)
        if target:
            write_section(target, text)
    else:
        sys.exit(__doc__)
