#!/usr/bin/env python3
"""bench/gemm_device.sh's tables: OUT_DIR's smoke verdicts, sweeps and torch timings as one markdown page on stdout.

    python3 bench/gemm_table.py OUT_DIR > OUT_DIR/gemm.md

Per workload: cuBLAS (torch's matmul, kernel span with the L2 flushed) beside the best swept configuration, both in
TFLOP/s, and the ratio (cuBLAS time over ours: above 1 is faster than cuBLAS). Per configuration: the geometric mean of
that ratio over the workloads it passed, its build time. No third-party packages: it runs wherever python3 does.
"""
import json
import math
import pathlib
import re
import sys


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def shape(uuid):
    found = re.search(r"-(\d+)x(\d+)x(\d+)$", uuid)
    return tuple(int(v) for v in found.groups()) if found else None


def tflops(uuid, ns):
    dims = shape(uuid)
    return 2.0 * dims[0] * dims[1] * dims[2] / ns / 1e3 if dims and ns else None


def number(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def smoke_section(out):
    lines = ["## Smoke: correctness on the GPU (kernelarc eval --correctness-only)", "",
             "| case | passed | workloads passed | first failure |", "|---|---|---|---|"]
    for path in sorted((out / "smoke").glob("*.json")):
        verdict = load(path)
        if not verdict:
            log = (out / "smoke" / (path.stem + ".log"))
            tail = log.read_text().strip().splitlines()[-3:] if log.exists() else []
            lines.append(f"| {path.stem} | no verdict | - | {' / '.join(tail)[:200]} |")
            continue
        rows = verdict.get("workloads", [])
        good = sum(r.get("status") == "PASSED" for r in rows)
        failure = next((f"{r.get('uuid')}: {r.get('status')} {r.get('reason', '')}" for r in rows if r.get("status") != "PASSED"), "")
        if not verdict.get("build", {}).get("ok", True):
            failure = "build: " + verdict["build"].get("diagnostics", "")[:200]
        lines.append(f"| {path.stem} | {verdict.get('passed')} | {good} of {len(rows)} | {failure[:240].replace('|', '/')} |")
    return lines


def torch_times(out, task):
    record = load(out / "torch" / f"{task}-torch.json")
    return {row["uuid"]: row["eager_ms"] * 1e6 for row in record["workloads"]} if record else {}


def sweep_section(out, name, torch_ns):
    """The sweep in sweep-NAME.json: NAME is the task, or TASK.TEMPLATE for a template other than wgmma_cuda."""
    task = name.split(".")[0]
    base = "torch._scaled_mm" if "fp8" in task else "cuBLAS"  # what torch runs for the task's reference
    sweep = load(out / f"sweep-{name}.json")
    if not sweep:
        return [f"## {name}: no sweep result (see sweep-{name}.log)", ""]
    task = name
    configurations = sweep.get("configurations", [])
    lines = [f"## {task}: the sweep ({len(configurations)} configurations, {number(sweep.get('seconds'), 0)} s), against {base}", "",
             f"| configuration | outcome | passed | geomean vs {base} | geomean time us | build s |", "|---|---|---|---|---|---|"]
    best = {}
    for configuration in configurations:
        rows = configuration.get("workloads", [])
        ratios = []
        for row in rows:
            ns = row.get("median_ns")
            if row.get("status") != "PASSED" or not ns:
                continue
            if row["uuid"] in torch_ns:
                ratios.append(torch_ns[row["uuid"]] / ns)
            if row["uuid"] not in best or ns < best[row["uuid"]][0]:
                best[row["uuid"]] = (ns, configuration.get("label", ""), row.get("sol_ns"))
        passed = sum(r.get("status") == "PASSED" for r in rows)
        mean_ns = configuration.get("geomean_ns")
        lines.append(f"| {configuration.get('label', '')} | {configuration.get('outcome')} | {passed} of {len(rows)} | "
                     f"{number(geomean(ratios), 3)} | {number(mean_ns / 1e3 if mean_ns else None, 2)} | "
                     f"{number(configuration.get('build', {}).get('seconds'), 2)} |")
    lines += ["", f"### {task}: per workload, the best configuration beside {base}", "",
              f"| workload | M | N | K | {base} us | {base} TFLOP/s | best us | best TFLOP/s | vs {base} | % of T_sol | best configuration |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for uuid in sorted(set(best) | set(torch_ns), key=lambda u: shape(u) or (0, 0, 0)):
        dims = shape(uuid) or ("?", "?", "?")
        ours = best.get(uuid)
        theirs = torch_ns.get(uuid)
        ratio = theirs / ours[0] if ours and theirs else None
        if ratio:
            ratios.append(ratio)
        sol = 100.0 * ours[2] / ours[0] if ours and ours[2] else None
        lines.append(f"| {uuid} | {dims[0]} | {dims[1]} | {dims[2]} | {number(theirs / 1e3 if theirs else None, 2)} | "
                     f"{number(tflops(uuid, theirs))} | {number(ours[0] / 1e3 if ours else None, 2)} | "
                     f"{number(tflops(uuid, ours[0]) if ours else None)} | {number(ratio, 3)} | {number(sol)} | {ours[1] if ours else '-'} |")
    lines += ["", f"Geometric mean over {len(ratios)} workloads, best configuration per workload against {base}: "
              f"{number(geomean(ratios), 3)}x (above 1: faster than {base}).", ""]
    return lines


def main():
    out = pathlib.Path(sys.argv[1])
    device = (out / "device.txt").read_text().strip() if (out / "device.txt").exists() else "?"
    lines = ["# Hopper GEMM templates on the GPU (bench/gemm_device.sh)", "", "```", device, "```", ""]
    lines += smoke_section(out) + [""]
    for path in sorted(out.glob("sweep-*.json")):
        name = path.stem[len("sweep-"):]
        lines += sweep_section(out, name, torch_times(out, name.split(".")[0]))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
