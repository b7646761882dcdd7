#!/usr/bin/env python3
"""KernelArc against the benchmark's own harness (issue 23), on a machine with an NVIDIA GPU:

  bench/harness_agreement.py OUT_DIR --sol-execbench DIR [--kernelarc bundle/kernelarc] [--budget 0] [--tasks T ...]
                             [--jobs 6] [--rejudge] [--through-oracle] [--deadline-s S] [--no-examples] [--no-builtin]

DIR holds a snapshot of NVIDIA/SOL-ExecBench (its src/ and examples/; never committed here). Two tables:
- each built-in task with a CUDA template: its best kernel (budget 0: the first CUDA template's default, judged by
  `kernelarc eval`, which is what the family's runs ended with; budget N: the best of a short `kernelarc run`), exported
  as solution.json, then judged by the benchmark's harness: verdicts per workload and the harness's latency against
  KernelArc's median from the judgement that chose the kernel (within 5% is agreement; --rejudge judges the exported
  solution.json with `kernelarc eval` again and compares with that instead);
- each example problem of the benchmark with its solution: judged by both, verdicts per workload.
Writes OUT_DIR/agreement.md (and a trace, a verdict and a log per case); prints the last lines of each table.
"""

import argparse
import concurrent.futures
import fcntl
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

REPO = pathlib.Path(__file__).resolve().parent.parent


PROGRESS = None  # OUT_DIR/progress.log: each step's start and end, so a cut-off call still says where its time went
DEADLINE = None  # time.monotonic() after which no case starts


def note(text):
    line = f"{time.strftime('%H:%M:%S')} {text}"
    print(line, flush=True)
    if PROGRESS:
        with open(PROGRESS, "a") as out:
            out.write(line + "\n")


def run(command, log, timeout=600, env=None):
    with open(log, "w") as out:
        out.write("$ " + " ".join(map(str, command)) + "\n")
        out.flush()
        try:
            return subprocess.run(list(map(str, command)), stdout=out, stderr=subprocess.STDOUT, timeout=timeout, env=env).returncode
        except subprocess.TimeoutExpired:
            out.write(f"\n(timed out after {timeout} s)\n")
            return 124


# The harness's CLI with its timed phase (eval_driver.py) behind a lock: builds run side by side, timings one at a time.
HARNESS_WITH_A_TIMING_LOCK = """
import fcntl, subprocess, sys
from sol_execbench.cli import main
real_run, lock_path = subprocess.run, sys.argv.pop(1)
def run(command, *args, **kwargs):
    if "eval_driver.py" not in " ".join(map(str, command)):
        return real_run(command, *args, **kwargs)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return real_run(command, *args, **kwargs)
main.subprocess.run = run
main.cli()
"""


def harness(problem, solution, trace, log, sol_src, lock):
    """The benchmark's CLI on one problem folder; {uuid: (status, latency_ms)} from its trace. The reference is not timed
    (its speed-up is not compared here): the harness's own defaults otherwise."""
    env = dict(os.environ, PYTHONPATH=f"{sol_src}:{os.environ.get('PYTHONPATH', '')}")
    config = trace.parent / "harness-config.json"
    config.write_text(json.dumps({"benchmark_reference": False}) + "\n")
    run([sys.executable, "-c", HARNESS_WITH_A_TIMING_LOCK, lock, problem, "--solution", solution, "--config", config, "-o", trace], log,
        env=env)
    found = {}
    if trace.exists():
        for line in trace.read_text().splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            evaluation = record.get("evaluation") or {}
            performance = evaluation.get("performance") or {}
            found[record["workload"]["uuid"]] = (evaluation.get("status", "-"), performance.get("latency_ms"))
    return found


def kernelarc_eval(kernelarc, task, solution, verdict, log, lock, extra=()):
    """`kernelarc eval` with the full GPU protocol, holding the timing lock; {uuid: (status, median_ms, reason)}."""
    with open(verdict, "w") as out, open(log, "w") as err, open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        command = [kernelarc, "eval", task, *([solution] if solution else []), "--device", "cuda:0", "--json", *extra]
        subprocess.run(list(map(str, command)), stdout=out, stderr=err, timeout=3600)
    return verdict_rows(verdict)


def verdict_rows(verdict):
    """{uuid: (status, median_ms, reason)} from a `kernelarc eval --json` document; {} if there is none."""
    try:
        rows = json.loads(verdict.read_text())["workloads"]
    except (OSError, ValueError, KeyError):
        return {}
    return {row["uuid"]: (row["status"], (row.get("timing") or {}).get("median_ns", 0) / 1e6 or None, row.get("reason", "")) for row in rows}


def problem_folder(task_dir, into):
    """The task as the benchmark reads it: definition.json without KernelArc's section, and the workloads."""
    into.mkdir(parents=True, exist_ok=True)
    definition = json.loads((task_dir / "definition.json").read_text())
    definition.pop("kernelarc", None)
    (into / "definition.json").write_text(json.dumps(definition, indent=1) + "\n")
    (into / "workload.jsonl").write_text((task_dir / "workload.jsonl").read_text())
    return into


def table_rows(name, ours, theirs, compare_time):
    if not ours and not theirs:
        return [f"| {name} | - | no verdict | no verdict | {'| | | ' if compare_time else ''}**no** | see the case's logs |"], 0
    rows, agreed = [], 0
    for uuid in sorted(set(ours) | set(theirs)):
        a, b = ours.get(uuid, ("-", None, "")), theirs.get(uuid, ("-", None))
        same = a[0] == b[0]
        difference = abs(a[1] - b[1]) / b[1] if compare_time and a[1] and b[1] else None
        ok = same and (difference is None or difference <= 0.05)
        agreed += ok
        time = (f"{a[1] * 1e3:.2f} us | {b[1] * 1e3:.2f} us | {100 * difference:.1f}%" if difference is not None else "- | - | -") if compare_time else ""
        reason = a[2].replace("|", "/")[:80] if a[0] != "PASSED" else ""
        rows.append(f"| {name} | {uuid} | {a[0]} | {b[0]} | {time + ' | ' if compare_time else ''}{'yes' if ok else '**no**'} | {reason} |")
    return rows, agreed


def first_cuda_template(task):
    templates = json.loads((REPO / "tasks" / task / "definition.json").read_text()).get("kernelarc", {}).get("templates", [])
    return next((t["name"] for t in templates if t.get("device") == "cuda"), None)


def best_kernel(args, task, case, lock):
    """The task's best kernel as solution.json, or None (the logs say why)."""
    store = case / "runs.db"
    if args.budget > 0:
        with open(lock, "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            run([args.kernelarc, "run", task, "--device", "cuda:0", "--budget", args.budget, "--time-limit", "3m", "--json",
                 "--quiet", "--store", store], case / "run.log")
    else:
        kernelarc_eval(args.kernelarc, task, None, case / "default.json", case / "run.log", lock,
                       ("--template", first_cuda_template(task), "--rounds", 1, "--store", store))
    solution = case / "solution.json"
    exported = run([args.kernelarc, "export", "--run", 1, "--format", "solution-json", "--store", store, "-o", solution],
                   case / "export.log")
    return solution if exported == 0 else None


def builtin_case(args, task, out, sol_src, lock):
    if DEADLINE and time.monotonic() > DEADLINE:
        return [f"| {task} | - | not run (the call's deadline) | | | | | **no** | |"], None  # None: not judged
    note(f"{task}: start")
    case = out / task
    case.mkdir(exist_ok=True)
    solution = best_kernel(args, task, case, lock)
    if solution is None:
        return [f"| {task} | - | no run or export (see {task}/run.log, export.log) | | | | | **no** | |"], 0
    if args.budget > 0 or args.rejudge:  # the exported solution.json judged by KernelArc again (natively, as export wrote it)
        ours = kernelarc_eval(args.kernelarc, task, solution, case / "kernelarc.json", case / "kernelarc.log", lock)
    else:  # KernelArc's own verdict and time for the kernel, from the judgement the run made
        ours = verdict_rows(case / "default.json")
    note(f"{task}: judged by KernelArc, the harness next")
    theirs = harness(problem_folder(REPO / "tasks" / task, case / "problem"), solution, case / "trace.jsonl",
                     case / "harness.log", sol_src, lock)
    rows, agreed = table_rows(task, ours, theirs, True)
    if args.through_oracle:
        note(f"{task}: the exported binding judged by KernelArc through its oracle")
        oracle = kernelarc_eval(args.kernelarc, task, as_torch_extension(solution, case / "solution-oracle.json"),
                                case / "kernelarc-oracle.json", case / "kernelarc-oracle.log", lock, ("--reference", "python"))
        rows += table_rows(f"{task} (oracle)", oracle, theirs, True)[0]
    note(f"{task}: done")
    return rows, agreed


def as_torch_extension(solution, into):
    """The exported solution with its entry point renamed, so KernelArc judges it as the harness does: the torch extension
    built by torch, called through the oracle (the same binary on both sides; only the timing protocol differs)."""
    text = solution.read_text().replace("KERNELARC_CANDIDATE", "EXPORTED_CANDIDATE").replace("kernelarc_run", "exported_run")
    into.write_text(text)
    return into


def example_case(args, solution, out, sol_src, lock):
    problem = solution.parent
    name = f"{problem.parent.name}/{problem.name}"
    if DEADLINE and time.monotonic() > DEADLINE:
        return [f"| {name} | - | not run (the call's deadline) | | **no** | |"], None
    note(f"{name}: start")
    case = out / "examples" / name.replace("/", "-")
    case.mkdir(parents=True, exist_ok=True)
    ours = kernelarc_eval(args.kernelarc, problem, solution, case / "kernelarc.json", case / "kernelarc.log", lock,
                          ("--reference", "python"))
    theirs = harness(problem, solution, case / "trace.jsonl", case / "harness.log", sol_src, lock)
    note(f"{name}: done")
    return table_rows(name, {k: (v[0], None, v[2]) for k, v in ours.items()}, theirs, False)


def summary(cases, wanted, agreeing, what):
    """One line over the finished cases' (rows, agreed): a case the deadline stopped (agreed None) is counted apart."""
    judged = [(rows, ok) for rows, ok in cases if ok is not None]
    line = f"{sum(ok for _, ok in judged)} of {sum(len(rows) for rows, _ in judged)} {agreeing}; {len(judged)} of {wanted} {what} done"
    stopped = len(cases) - len(judged)
    return line + (f", {stopped} not run (the call's deadline)." if stopped else ".")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--sol-execbench", type=pathlib.Path, required=True)
    parser.add_argument("--kernelarc", default=str(REPO / "bundle" / "kernelarc"))
    parser.add_argument("--budget", type=int, default=0)
    parser.add_argument("--tasks", nargs="*")
    parser.add_argument("--jobs", type=int, default=6, help="cases side by side (builds in parallel, GPU timing one at a time)")
    parser.add_argument("--deadline-s", type=float, default=0, help="start no case after this many seconds (0: no deadline)")
    parser.add_argument("--rejudge", action="store_true",
                        help="judge each exported solution.json with KernelArc again (a run's budget implies it); without it "
                             "KernelArc's column is the judgement of the template's default that was exported")
    parser.add_argument("--through-oracle", action="store_true",
                        help="also judge each exported binding with KernelArc through its oracle (torch's build, as the "
                             "harness builds it): rows marked (oracle)")
    parser.add_argument("--examples", action=argparse.BooleanOptionalAction, default=True, help="judge the benchmark's examples too")
    parser.add_argument("--builtin", action=argparse.BooleanOptionalAction, default=True, help="judge the built-in tasks' kernels")
    args = parser.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    lock = out / "gpu-timing.lock"
    sol_src = (args.sol_execbench / "src").resolve()
    tasks = (args.tasks or sorted(p.name for p in (REPO / "tasks").iterdir() if first_cuda_template(p.name))) if args.builtin else []
    examples = sorted((args.sol_execbench / "examples").glob("*/*/solution*.json")) if args.examples else []
    global PROGRESS, DEADLINE
    PROGRESS = out / "progress.log"
    DEADLINE = time.monotonic() + args.deadline_s if args.deadline_s else None
    what = "the first CUDA template's default" if args.budget == 0 else f"the best kernel of a run (budget {args.budget})"
    builtin, example = {}, {}
    written = threading.Lock()

    def write_table():  # after every case: a call cut off keeps what it finished
        lines = ["# KernelArc and the benchmark's harness", "",
                 f"## Built-in tasks: {what}, exported, judged by both", "",
                 "| task | workload | KernelArc | harness | KernelArc median | harness latency | difference | agree | KernelArc's reason |",
                 "|---|---|---|---|---|---|---|---|---|"]
        lines += [row for task in tasks if task in builtin for row in builtin[task][0]]
        lines += ["", summary([builtin[task] for task in tasks if task in builtin], len(tasks), "workloads agree (same verdict; "
                              "the harness's latency within 5% of KernelArc's median)", "tasks"), "",
                  "## The benchmark's examples, judged by both (KernelArc through the PyTorch reference)", "",
                  "| example | workload | KernelArc | harness | agree | KernelArc's reason |", "|---|---|---|---|---|---|"]
        lines += [row for path in examples if path in example for row in example[path][0]]
        lines += ["", summary([example[path] for path in examples if path in example], len(examples),
                              "example workloads agree (same verdict)", "examples")]
        (out / "agreement.md").write_text("\n".join(lines) + "\n")
        return lines

    def finish(results, key, future):
        with written:
            try:
                results[key] = future.result()
            except Exception as error:  # one case's failure is a row, not the end of the table
                results[key] = ([f"| {key} | - | failed: {type(error).__name__}: {str(error)[:80]} | | | **no** | |"], 0)
            write_table()

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for task in tasks:
            pool.submit(builtin_case, args, task, out, sol_src, lock).add_done_callback(
                lambda future, task=task: finish(builtin, task, future))
        for solution in examples:
            pool.submit(example_case, args, solution, out, sol_src, lock).add_done_callback(
                lambda future, solution=solution: finish(example, solution, future))
    print("\n".join(line for line in write_table() if "agree (" in line))


if __name__ == "__main__":
    main()
