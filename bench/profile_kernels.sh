#!/usr/bin/env bash
# Nsight Compute on one task's template kernel and on torch.compile's kernels for the same workloads, on a GPU machine:
#
#   bench/profile_kernels.sh OUT_DIR TASK WORKLOAD[,WORKLOAD...] [CONFIGS.json|default]
#
# Two profiles, each its own process, so that one kernel's launches cannot use up the other's count: OUT_DIR/TASK-ours.txt
# (the template's kernel, named by its launch in tasks/TASK/definition.json, every configuration of CONFIGS.json; no
# torch.compile in that process) and OUT_DIR/TASK-compile.txt (Triton's kernels, through the sweep's --compile, the last
# launches of each workload after its warm-up). Then OUT_DIR/TASK.md: per kernel and grid, duration, cycles, DRAM
# throughput, registers and warp cycles per issued instruction. Under ncu the sweep's own times are missing (CUPTI takes
# one subscriber): read ncu's. --clock-control none, as METHOD.md asks (Firecracker's ncu reads the counters so).
# Settings (environment): NCU (ncu), PYTHON (python3 with torch, CuPy and CUDA), LAUNCHES (launches profiled per kernel
# and workload, 3).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bench/profile_kernels.sh OUT_DIR TASK WORKLOAD[,WORKLOAD...] [CONFIGS.json|default]}
task=${2:?task name, e.g. swiglu}
workloads=${3:?workload uuids, comma-separated}
configs=${4:-default}
ncu=${NCU:-ncu} python=${PYTHON:-python3} launches=${LAUNCHES:-3}
mkdir -p "$out" && out=$(cd "$out" && pwd)
kernel=$("$python" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next(t["launch"]["kernel"] for t in d["kernelarc"]["templates"] if t.get("form") == "kernel"))' "tasks/$task/definition.json")
count=$(( (launches + 2) * $(tr ',' '\n' <<< "$workloads" | wc -l) * $( [[ $configs == default ]] && echo 1 || "$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$configs") ))
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis)
sweep=(bench/template_sweep.py "tasks/$task" "$configs" --workloads "$workloads" --warmup 1 --iterations "$launches")

echo "== $task: $kernel on $workloads ($count launches)"
"$ncu" --clock-control none --kernel-name "regex:^$kernel" --launch-skip 0 --launch-count "$count" "${sections[@]}" \
  "$python" "${sweep[@]}" > "$out/$task-ours.txt" 2>&1 || echo "ncu on $kernel failed: see $out/$task-ours.txt"
echo "== $task: torch.compile's Triton kernels"
"$ncu" --clock-control none --kernel-name "regex:^triton_" --launch-count $(( 40 * launches )) "${sections[@]}" \
  "$python" "${sweep[@]}" --compile > "$out/$task-compile.txt" 2>&1 || echo "ncu on torch.compile failed: see $out/$task-compile.txt"

"$python" - "$out" "$task" > "$out/$task.md" <<'PY'
import re, sys
out, task = sys.argv[1], sys.argv[2]
fields = ["Duration", "Elapsed Cycles", "DRAM Throughput", "Registers Per Thread", "Achieved Occupancy",
          "Warp Cycles Per Issued Instruction"]
print(f"# ncu: {task}\n\n| profile | kernel and launch | " + " | ".join(fields) + " |")
print("|---|---|" + "---|" * len(fields))
for side in ("ours", "compile"):
    text = open(f"{out}/{task}-{side}.txt", errors="replace").read()
    for block in re.split(r"\n  (?=\S+ \(\d+, \d+, \d+\)x\()", text)[1:]:
        head = block.split(", Context")[0]
        values = []
        for field in fields:
            found = re.search(r"\n\s+" + re.escape(field) + r"\s+\S+\s+([\d.,]+)", block)
            values.append(found.group(1) if found else "")
        print(f"| {side} | `{head}` | " + " | ".join(values) + " |")
PY
cat "$out/$task.md"
