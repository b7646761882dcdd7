#!/usr/bin/env bash
# The GEMM templates' decode path (tma_cuda's DECODE_M, DECODE_TILES and its block shape) on the GPU machine, in one call of
# about 5 minutes:
#
#   bash bench/gemm_decode_device.sh OUT_DIR
#
# From the repository root with bundle/ carried (scripts/device bundle). In order, each step bounded in time:
#   1. correctness: `kernelarc eval TASK --template tma_cuda --knob DECODE_M=.. --knob DECODE_TILES=.. --correctness-only`
#      on the decode workloads (M of 32 or less) of gemm_bf16, gemm_fp8_rowwise, gemm_bf16_residual and gemm_bf16_bias_gelu;
#   2. cuBLAS (torch's matmul, matmul then the add, torch._scaled_mm) per workload, re-measured in this call (bench/torch_baselines.py);
#   3. time: `kernelarc sweep` of DECODE_M 0 (the tiles), 16 and 32 by DECODE_TILES, DECODE_WARPS 4 and 12 and
#      DECODE_SM_BLOCKS 0 and 3 (DECODE_SHAPE_KNOBS) on those workloads;
#   4. OUT_DIR/gemm.md (bench/gemm_table.py): per workload the best setting beside cuBLAS, % of the roofline (T_sol).
# Settings (environment): KERNELARC (bundle/kernelarc), DEVICE (cuda:0), PYTHON (python3), and seconds: SMOKE_LIMIT (a task's
# correctness, 60), TORCH_LIMIT (60), SWEEP_LIMIT (a task's sweep, 90); DECODE_SHAPE_KNOBS (the block shape's --knob options).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

out=${1:?usage: bash bench/gemm_decode_device.sh OUT_DIR}
mkdir -p "$out/smoke" && out=$(cd "$out" && pwd)
kernelarc=${KERNELARC:-bundle/kernelarc} device=${DEVICE:-cuda:0} python=${PYTHON:-python3}
smoke_limit=${SMOKE_LIMIT:-60} torch_limit=${TORCH_LIMIT:-60} sweep_limit=${SWEEP_LIMIT:-90}
read -r -a shape_knobs <<< "${DECODE_SHAPE_KNOBS:---knob DECODE_WARPS=4,12 --knob DECODE_SM_BLOCKS=0,3}"
source bench/device_environment.sh
bench_environment "$out" "$python"

# Each task's workloads of M 32 or less (the uuid's first size is M).
decode_workloads() {
  grep -o '"uuid": *"[^"]*"' "tasks/$1/workload.jsonl" | sed 's/.*"\([^"]*\)"$/\1/' |
    awk -F- '{split($NF, s, "x"); if (s[1] <= 32) print}' | paste -sd, -
}

for task in gemm_bf16 gemm_fp8_rowwise gemm_bf16_residual gemm_bf16_bias_gelu; do
  only=()
  for uuid in $(decode_workloads "$task" | tr , ' '); do only+=(--workload "$uuid"); done
  deadline=$(($(date +%s) + smoke_limit))
  for rows in 32 16; do
    for tiles in 1 2 4; do
      left=$((deadline - $(date +%s)))
      ((left > 5)) || { echo "smoke $task DECODE_M=$rows DECODE_TILES=$tiles: skipped (time spent)"; continue; }
      name=$task-decode$rows-tiles$tiles
      timeout "$left" "$kernelarc" eval "$task" --template tma_cuda --knob "DECODE_M=$rows" --knob "DECODE_TILES=$tiles" \
        "${only[@]}" --device "$device" --correctness-only --json --quiet \
        > "$out/smoke/$name.json" 2> "$out/smoke/$name.log"
      echo "$name: exit $? $(grep -o '"status": *"[A-Z_]*"' "$out/smoke/$name.json" | sort | uniq -c | tr -s ' \n' ' ')"
    done
  done
done

timeout "$torch_limit" "$python" bench/torch_baselines.py "$out/torch" gemm_bf16 gemm_fp8_rowwise gemm_bf16_residual gemm_bf16_bias_gelu \
  --no-compile --iterations 30 --warmup 5 \
  > "$out/torch.log" 2>&1 || echo "torch baselines: exit $? (see torch.log)"

for task in gemm_bf16 gemm_fp8_rowwise gemm_bf16_residual gemm_bf16_bias_gelu; do
  timeout "$sweep_limit" "$kernelarc" sweep "$task" --template tma_cuda --knob DECODE_M=0,16,32 --knob DECODE_TILES=1,2,4 "${shape_knobs[@]}" \
    --time-limit $((sweep_limit * 2 / 3)) \
    --workloads "$(decode_workloads "$task")" --device "$device" --json --quiet > "$out/sweep-$task.tma_cuda.json" \
    2> "$out/sweep-$task.tma_cuda.log" || echo "sweep $task: exit $? (see sweep-$task.tma_cuda.log)"
done

"$python" bench/gemm_table.py "$out" > "$out/gemm.md" 2> "$out/gemm_table.log" || cat "$out/gemm_table.log"
head -n 60 "$out/gemm.md"
rm -rf "$out/cache"
