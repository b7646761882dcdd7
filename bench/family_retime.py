#!/usr/bin/env python3
"""The family's best kernels judged again with today's judge, against the times the family benchmark stored (issue 24:
"the family's best kernels at the same times within noise").

    python3 bench/family_retime.py OUT_DIR [TASK...]

From the repository root on the GPU machine with bundle/ carried. For each bench/results/family/TASK.json, the
configuration named by its "best" is judged in full (`kernelarc eval TASK --template T --knob ... --device cuda:0
--json`); OUT_DIR/TASK.json keeps the verdict and OUT_DIR/retime.md has per task the verdicts and the ratio of today's
median to the stored one (geometric mean, lowest, highest) over the workloads both passed. Knobs the template no
longer has are listed, not passed. Settings (environment): KERNELARC (bundle/kernelarc), DEVICE (cuda:0), TIMEOUT
(seconds per task, 150).
"""
import json
import math
import os
import pathlib
import re
import subprocess
import sys


def template_knobs(task_dir, template):
    definition = json.loads((task_dir / "definition.json").read_text())
    for entry in definition["kernelarc"]["templates"]:
        if entry["name"] == template:
            return [knob["name"] for knob in entry.get("knobs", [])]
    raise SystemExit(f"{task_dir.name}: no template {template} in definition.json")


def split_knobs(text, names):
    """'BLOCK0_KEEP_ROW4' -> {'BLOCK': '0', 'KEEP_ROW': '4'}: knob names are known, so the longest name matching at
    each position wins (KEEP_ROW before ROW)."""
    pattern = re.compile("(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r"|[A-Z][A-Z_]*?)(-?\d+)(?:_|$)")
    knobs, position = {}, 0
    while position < len(text):
        match = pattern.match(text, position)
        if not match:
            raise SystemExit(f"cannot read the knobs of {text!r} at {position}")
        knobs[match.group(1)] = match.group(2)
        position = match.end()
    return knobs


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    wanted = set(sys.argv[2:])
    kernelarc = os.environ.get("KERNELARC", "bundle/kernelarc")
    device = os.environ.get("DEVICE", "cuda:0")
    timeout = int(os.environ.get("TIMEOUT", "150"))
    rows = ["| task | configuration | passed | today / stored: geomean | lowest | highest | knobs not passed |",
            "|---|---|---|---|---|---|---|"]
    for summary_path in sorted(pathlib.Path("bench/results/family").glob("*.json")):
        summary = json.loads(summary_path.read_text())
        task = summary["task"]
        if wanted and task not in wanted:
            continue
        _, template, knob_text = summary["best"].split(".", 2)
        names = template_knobs(pathlib.Path("tasks") / task, template)
        knobs = split_knobs(knob_text, names)
        dropped = sorted(set(knobs) - set(names))
        command = [kernelarc, "eval", task, "--template", template, "--device", device, "--json", "--quiet"]
        for name in names:
            if name in knobs:
                command += ["--knob", f"{name}={knobs[name]}"]
        print(" ".join(command), flush=True)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            (out / f"{task}.json").write_text(done.stdout)
            (out / f"{task}.log").write_text(done.stderr)
            verdict = json.loads(done.stdout)
        except (subprocess.TimeoutExpired, ValueError) as error:
            rows.append(f"| {task} | {template} | no verdict ({type(error).__name__}) | | | | {', '.join(dropped)} |")
            continue
        today = {w["uuid"]: w for w in verdict["workloads"]}
        ratios = []
        for stored in summary["workloads"]:
            now = today.get(stored["uuid"])
            if now and now["status"] == "PASSED" and stored.get("best_ns"):
                ratios.append(now["timing"]["median_ns"] / stored["best_ns"])
        passed = sum(w["status"] == "PASSED" for w in verdict["workloads"])
        rows.append(f"| {task} | {template} | {passed}/{len(verdict['workloads'])} | {geomean(ratios):.3f} "
                    f"({len(ratios)} workloads) | {min(ratios, default=float('nan')):.3f} | "
                    f"{max(ratios, default=float('nan')):.3f} | {', '.join(dropped)} |")
        print(rows[-1], flush=True)
    (out / "retime.md").write_text("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
