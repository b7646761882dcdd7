#!/usr/bin/env bash
# Nsight Compute on one task's template kernel and on torch.compile's kernels for the same workloads, on a GPU machine:
#
#   bench/profile_kernels.sh OUT_DIR TASK WORKLOAD[,WORKLOAD...] [SWEEP OPTIONS...]
#
# SWEEP OPTIONS choose the configurations as for `kernelarc sweep` (--template T, --knob NAME=V1,V2,..., --each-knob;
# none: the default configuration of the task's kernel-only CUDA template). Two profiles, each its own process, so that
# one kernel's launches cannot use up the other's count: OUT_DIR/TASK-ours.txt (the template's kernel, named by its
# launch in tasks/TASK/definition.json, in every configuration, screened by `kernelarc sweep` with LAUNCHES timed calls;
# no torch.compile in that process) and OUT_DIR/TASK-compile.txt (Triton's kernels: bench/torch_baselines.py's
# torch.compile of the reference, the last launches of each workload after its warm-up). Then OUT_DIR/TASK.md: per
# kernel and grid, duration, cycles, DRAM throughput, registers and warp cycles per issued instruction. Under ncu the
# sweep's own times are not the kernel's (CUPTI takes one subscriber, and ncu replays each launch): read ncu's.
# --clock-control none, as METHOD.md asks (Firecracker's ncu reads the counters so).
# Settings (environment): NCU (ncu), KERNELARC (build/kernelarc), DEVICE (cuda:0), PYTHON (python3 with torch, for
# torch.compile), LAUNCHES (timed calls profiled per kernel, configuration and workload, 3).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bench/profile_kernels.sh OUT_DIR TASK WORKLOAD[,WORKLOAD...] [--template T] [--knob NAME=V1,V2,...]...}
task=${2:?task name, e.g. swiglu}
workloads=${3:?workload uuids, comma-separated}
shift 3
grid=("$@")
ncu=${NCU:-ncu} python=${PYTHON:-python3} launches=${LAUNCHES:-3}
kernelarc=${KERNELARC:-build/kernelarc} device=${DEVICE:-cuda:0}
mkdir -p "$out" && out=$(cd "$out" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The template, its kernel and how many configurations the options give, from the launch rules (no GPU used here).
"$kernelarc" sweep "$task" --geometry --workloads "$workloads" "${grid[@]}" --json > "$scratch/geometry.json" || (( $? == 1 ))
IFS='|' read -r template kernel configurations < <("$python" -c 'import json, sys
templates = json.load(open(sys.argv[1]))["templates"]
if len(templates) != 1:
    sys.exit(f"{len(templates)} kernel-only CUDA templates: give --template")
print(templates[0]["template"], templates[0]["kernel"], len(templates[0]["configurations"]), sep="|")' "$scratch/geometry.json") || true
[[ -n ${configurations:-} ]] || exit 2
given_template=0
for option in "${grid[@]}"; do [[ $option == --template || $option == --template=* ]] && given_template=1; done
(( given_template )) || grid=(--template "$template" "${grid[@]}")
# Per configuration and workload the screening launches the kernel once to check it, twice to warm up, then LAUNCHES times.
count=$(( (launches + 3) * $(tr ',' '\n' <<< "$workloads" | wc -l) * configurations ))
sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis)
# The sweep's worker is a child process (--target-processes all); ncu's replays outlast the default call deadline.
sweep=("$kernelarc" sweep "$task" --device "$device" --workloads "$workloads" --iterations "$launches" --timeout-ms 600000 "${grid[@]}")

echo "== $task: $kernel ($template, $configurations configurations) on $workloads ($count launches)"
"$ncu" --target-processes all --clock-control none --kernel-name "regex:^$kernel" --launch-skip 0 --launch-count "$count" "${sections[@]}" \
  "${sweep[@]}" > "$out/$task-ours.txt" 2>&1 || echo "ncu on $kernel failed: see $out/$task-ours.txt"
echo "== $task: torch.compile's Triton kernels"
"$ncu" --target-processes all --clock-control none --kernel-name "regex:^triton_" --launch-count $(( 40 * launches )) "${sections[@]}" \
  "$python" bench/torch_baselines.py "$scratch/torch" "$task" --workloads "$workloads" --warmup 1 --iterations "$launches" \
  > "$out/$task-compile.txt" 2>&1 || echo "ncu on torch.compile failed: see $out/$task-compile.txt"

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
