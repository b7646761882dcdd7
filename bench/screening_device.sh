#!/usr/bin/env bash
# The screening's throughput with its checks on the host and on the device (issue 25), in one call on the GPU machine:
# the GPU tests of the device checks, then for each task `kernelarc sweep TASK --each-knob` both ways, then a table of
# configurations a minute and where a warm configuration's time went (the judge's phases), from the sweeps' --json.
#
#   bash bench/screening_device.sh OUT_DIR
#
# From the repository root with bundle/ carried (scripts/device bundle). Settings (environment): TASKS (swiglu
# softmax_bf16), DEVICE (cuda:0), KERNELARC (bundle/kernelarc), SWEEP_TIMEOUT (seconds per sweep, 120).
# `bash bench/screening_device.sh --table OUT_DIR` makes the table again from the JSON files already there.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

table() {
  python3 - "$1" <<'EOF'
import json, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
print("| task | checks | configurations | dropped | per minute | median per warm configuration | where it went (medians) |")
print("|---|---|---|---|---|---|---|")
for path in sorted(out.glob("*-host.json")) + sorted(out.glob("*-device.json")):
    task, mode = path.stem.rsplit("-", 1)
    try:
        sweep = json.loads(path.read_text())
    except ValueError:
        print(f"| {task} | {mode} | no result (see {path.stem}.err) | | | | |")
        continue
    rows = sweep["configurations"]
    warm = rows[1:] or rows  # the first makes the inputs and the reference
    phases = {}
    for row in warm:
        for name, seconds in row.get("phase_seconds", {}).items():
            phases.setdefault(name, []).append(seconds)
    where = ", ".join(f"{name} {statistics.median(v):.3f}" for name, v in sorted(phases.items(), key=lambda p: -statistics.median(p[1]))
                      if statistics.median(v) >= 0.005)
    dropped = sum(row["outcome"] != "measured" for row in rows)
    print(f"| {task} | {mode} | {len(rows)} | {dropped} | {sweep['configurations_per_minute']:.1f} | "
          f"{statistics.median(row['seconds'] for row in warm):.3f} s | {where} |")
EOF
}

if [[ ${1:-} == --table ]]; then
  table "${2:?usage: bash bench/screening_device.sh --table OUT_DIR}"
  exit 0
fi
out=${1:?usage: bash bench/screening_device.sh OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
kernelarc=${KERNELARC:-bundle/kernelarc}
read -r -a tasks <<< "${TASKS:-swiglu softmax_bf16}"
device=${DEVICE:-cuda:0} limit=${SWEEP_TIMEOUT:-120}
if [[ -d bundle/lib ]]; then
  export LD_LIBRARY_PATH="$PWD/bundle/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export KERNELARC_TASKS_DIR="$PWD/tasks" KERNELARC_CACHE_DIR="$out/cache" KERNELARC_STORE="$out/runs.db"
export KERNELARC_SOURCE_ROOT="$PWD" KERNELARC_TEST_BINARY="$PWD/$kernelarc"
{
  date -u +%Y-%m-%dT%H:%MZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
} > "$out/device.txt"
cat "$out/device.txt"

if [[ -x bundle/kernelarc_gpu_tests ]]; then
  timeout 120 bundle/kernelarc_gpu_tests --gtest_filter='DeviceComparisonTest.*:DeviceChecksTest.*' > "$out/gpu-tests.txt" 2>&1
  echo "GPU tests of the device checks: exit $? (gpu-tests.txt)"
fi
for task in "${tasks[@]}"; do
  for mode in host device; do
    flag=()
    [[ $mode == device ]] && flag=(--checks-on-device)
    echo "[$(date -u +%H:%M:%S)] kernelarc sweep $task --device $device --each-knob --json ${flag[*]}"
    timeout "$limit" "$kernelarc" sweep "$task" --device "$device" --each-knob --json "${flag[@]}" > "$out/$task-$mode.json" 2> "$out/$task-$mode.err"
    echo "exit $?"
  done
done
rm -rf "$out/cache"
table "$out" | tee "$out/table.md"
