#!/usr/bin/env python3
"""Markdown tables from `kernelarc run` stores and torch_baselines.py's files.

    run_table.py task STORE RUN_ID TORCH_JSON   per workload: the start, the run's best, torch eager and compile, T_sol,
                                                the best's SOL score (T_b = the faster torch), then geometric means
    run_table.py experiment RESULTS_JSONL       the board experiment: mean and 95% interval of the final SOL score per
                                                task and setting
"""
import json
import math
import sqlite3
import statistics
import sys


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def verdicts(db, candidate_id):
    # A promoted candidate is measured twice: the later row of a workload is the one the controller kept.
    rows = db.execute("SELECT workload_uuid, held_out, status, median_ns, sol_ns, baseline_ns, score FROM verdicts "
                      "WHERE candidate_id = ? ORDER BY id", (candidate_id,)).fetchall()
    return {row[0]: row for row in rows}


def task_table(store, run_id, torch_json):
    db = sqlite3.connect(store)
    (summary,) = db.execute("SELECT summary_json FROM runs WHERE id = ?", (run_id,)).fetchone()
    summary = json.loads(summary)
    (start_id,) = db.execute("SELECT id FROM candidates WHERE run_id = ? AND proposer = 'start'", (run_id,)).fetchone()
    best_id = summary["best_candidate"]
    start, best = verdicts(db, start_id), verdicts(db, best_id)
    torch_rows = {row["uuid"]: row for row in json.load(open(torch_json))["workloads"]}
    print(f"best knobs: `{json.dumps(summary['best_knobs'])}`; {summary['judged']} candidates, {summary['promotions']} promotions, "
          f"{summary['plateaus']} plateaus; {summary['stop_reason']}\n")
    print("| workload | start us | best us | torch eager us | torch.compile us | T_sol us | best / compile | % of T_sol | SOL score |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios, starts, bests, eagers, compiles, scores, fractions = [], [], [], [], [], [], []
    for uuid, row in best.items():
        _, held_out, status, median, sol, baseline, score = row
        t = torch_rows.get(uuid, {})
        eager, compiled = (t.get("eager_ms") or 0) * 1e6, (t.get("compile_ms") or 0) * 1e6
        start_ns = start.get(uuid, (None,) * 7)[3]
        if status != "PASSED" or not median:
            print(f"| {uuid} | | {status} | | | | | | |")
            continue
        ratio = median / compiled if compiled else float("nan")
        print(f"| {uuid}{' (held out)' if held_out else ''} | {start_ns / 1e3 if start_ns else float('nan'):.2f} | {median / 1e3:.2f} | "
              f"{eager / 1e3:.2f} | {compiled / 1e3:.2f} | {sol / 1e3:.3f} | {ratio:.2f} | {100 * sol / median:.1f} | "
              f"{'-' if score is None else f'{score:.3f}'} |")
        if held_out:
            continue
        ratios.append(ratio), starts.append(start_ns), bests.append(median), eagers.append(eager), compiles.append(compiled)
        fractions.append(sol / median)
        if score is not None:
            scores.append(score)
    print(f"| **geometric mean** ({len(bests)} visible) | {geomean(starts) / 1e3:.2f} | {geomean(bests) / 1e3:.2f} | "
          f"{geomean(eagers) / 1e3:.2f} | {geomean(compiles) / 1e3:.2f} | | {geomean(ratios):.2f} | {100 * geomean(fractions):.1f} | "
          f"{statistics.mean(scores) if scores else float('nan'):.3f} (mean) |")


# Student's t at 97.5% for 1 to 10 degrees of freedom (more: the normal's 1.96 is within 5%): a 95% interval of a mean.
T_975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228]


def interval95(values):
    """Half the width of the 95% confidence interval of the mean of values (Student's t), 0 for fewer than two."""
    if len(values) < 2:
        return 0.0
    t = T_975[len(values) - 2] if len(values) - 2 < len(T_975) else 1.96
    return t * statistics.stdev(values) / math.sqrt(len(values))


def experiment_table(results):
    rows = [json.loads(line) for line in open(results) if line.strip()]
    settings = {}
    for row in rows:
        settings.setdefault((row.get("task", ""), row["setting"]), []).append(row)
    print("| task | setting | runs | candidates judged (mean) | final SOL score: mean | 95% interval | min | max | best time us: mean |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (task, setting), group in settings.items():
        scores = [r["sol_score"] for r in group if r.get("sol_score") is not None]
        times = [r["best_ns"] / 1e3 for r in group if r.get("best_ns")]
        judged = [r["judged"] for r in group if r.get("judged") is not None]
        mean = statistics.mean(scores) if scores else float("nan")
        half = interval95(scores)
        print(f"| {task} | {setting} | {len(group)} | {statistics.mean(judged) if judged else float('nan'):.1f} | {mean:.4f} | "
              f"{mean - half:.4f} to {mean + half:.4f} | {min(scores, default=float('nan')):.4f} | "
              f"{max(scores, default=float('nan')):.4f} | {statistics.mean(times) if times else float('nan'):.2f} |")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "task":
        task_table(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 3 and sys.argv[1] == "experiment":
        experiment_table(sys.argv[2])
    else:
        sys.exit(__doc__)
