#!/usr/bin/env python3
"""The task family's benchmark (issue 7): one summary per task, then the tables of docs/BENCHMARKS.md.

    family_table.py summarize STORE RUN_JSON TORCH_JSON DEVICE_TXT COMMAND > TASK.json
        one task's run against torch: per workload the start, the best, torch eager and torch.compile (re-measured in
        the same call), T_sol, and the judge's SOL score with T_b = the faster torch
    family_table.py tables [--write MARKDOWN] SUMMARY_JSON...
        the family's tables in Markdown on stdout; with --write, also in MARKDOWN between the lines
        <!-- family-benchmark:begin --> and <!-- family-benchmark:end --> (appended when absent)

A workload counts as large when its T_sol (the datasheet roofline) is at least LARGE_SOL_US: there the kernel's fraction
of the roofline is a target (85%); below it launch latency dominates and the torch ratio is what to read.
"""
import json
import os
import sqlite3
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_table import geomean, verdicts  # noqa: E402  (one reading of the store for both scripts)

LARGE_SOL_US = 50.0
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


def fmt_us(ns, digits=2):
    return "" if ns is None else f"{ns / 1e3:.{digits}f}"


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
        })
    out.append("| task | workloads | start us | best us | torch eager us | torch.compile us | speed-up over torch.compile "
               "| % of datasheet roofline, large workloads | mean SOL score | candidates judged | run time |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for f in family:
        roof = f"{100 * f['large_roofline']:.1f} ({f['large']})" if f["large_roofline"] else "- (none)"
        failed = f" ({f['failed']} failed)" if f["failed"] else ""
        out.append(f"| {f['task']} | {f['workloads']}{failed} | {fmt_us(f['start'])} | {fmt_us(f['best'])} | {fmt_us(f['eager'])} | "
                   f"{fmt_us(f['compile'])} | {f['vs_compile']:.2f}x | {roof} | "
                   f"{fmt_score(f['score'])} | "
                   f"{f['run'].get('judged')} | {f['run'].get('elapsed_s') or 0:.0f} s |")
    scores = [f["score"] for f in family if f["score"] is not None]
    if scores:
        out.append(f"\nMean SOL score across the family: **{statistics.mean(scores):.3f}** over {len(scores)} tasks (geometric "
                   f"means over the visible workloads; held-out workloads are in the per-task tables).")
    for s in summaries:
        out.append(f"\n### {s['task']}\n")
        out.append(f"{s['device']}; torch {s['torch']} measured {s['torch_date']}. `{s['command']}`: {s['run'].get('judged')} "
                   f"candidates in {s['run'].get('elapsed_s') or 0:.0f} s, {s['run'].get('promotions')} promotions, stop: "
                   f"{s['run'].get('stop_reason')}. Best: `{s['best']}`.\n")
        out.append("| workload | start us | best us | torch eager us | torch.compile us | T_sol us | best vs compile | % of T_sol | SOL score |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for r in s["workloads"]:
            name = r["uuid"] + (" (held out)" if r["held_out"] else "")
            if not r["best_ns"]:
                out.append(f"| {name} | {fmt_us(r['start_ns'])} | {r['status']} | {fmt_us(r['eager_ns'])} | {fmt_us(r['compile_ns'])} | "
                           f"{fmt_us(r['sol_ns'], 3)} | | | |")
                continue
            ratio = f"{r['compile_ns'] / r['best_ns']:.2f}x" if r["compile_ns"] else ""
            out.append(f"| {name} | {fmt_us(r['start_ns'])} | {fmt_us(r['best_ns'])} | {fmt_us(r['eager_ns'])} | {fmt_us(r['compile_ns'])} | "
                       f"{fmt_us(r['sol_ns'], 3)} | {ratio} | {100 * r['sol_ns'] / r['best_ns']:.1f} | "
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
