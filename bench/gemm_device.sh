#!/usr/bin/env bash
# Issue 26's first look on the GPU machine, in one call of about 8 minutes (bench/gemm_plan.md says what to read):
#
#   bash bench/gemm_device.sh OUT_DIR
#
# From the repository root with bundle/ carried (scripts/device bundle). In order, each step bounded in time:
#   1. smoke: `kernelarc eval TASK --template wgmma_cuda --device cuda:0 --correctness-only`: the paths never yet run on a
#      GPU first (the TMA templates' multicast and mma.sync tile, their persistent tile walk, then their other paths,
#      fp8, gate-up, bias-GELU's), then
#      gemm_bf16's other paths (one consumer, BK 128, BN 128 and 64, the register epilogue, split-K; on a few workloads
#      with every edge), then each task's default on every workload (each takes minutes: the step's time ends first);
#   2. the tasks' PyTorch references (torch.matmul, torch.matmul then the add, torch._scaled_mm) re-measured per workload
#      in this same call, kernel spans with the L2 flushed, as the judge times (bench/torch_baselines.py);
#   3. time: `kernelarc sweep gemm_bf16 --template wgmma_cuda` over a modest grid (BN x SPLIT_K), tma_cuda's (TMA loads)
#      with the persistent walk and 3 or 4 stages, fp8's (BN 128/64 x SPLIT_K) of gemm_fp8_rowwise against
#      torch._scaled_mm (both templates), and the residual task's epilogues against torch's matmul + add;
#   4. OUT_DIR/gemm.md: the smoke verdicts, TFLOP/s per workload beside cuBLAS's, each configuration's geometric mean
#      against cuBLAS, build time per candidate (bench/gemm_table.py). Everything else in OUT_DIR (logs, JSON).
#
# Settings (environment): KERNELARC (bundle/kernelarc), DEVICE (cuda:0), PYTHON (python3, with torch and CUDA),
# SWEEP_KNOBS, FP8_SWEEP_KNOBS, TMA_SWEEP_KNOBS and FP8_TMA_SWEEP_KNOBS (the grids, as --knob arguments), SMOKE_LIMIT /
# TORCH_LIMIT / SWEEP_LIMIT (seconds for each step; each sweep has a fixed share of SWEEP_LIMIT).
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bash bench/gemm_device.sh OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
kernelarc=${KERNELARC:-bundle/kernelarc}
device=${DEVICE:-cuda:0}
python=${PYTHON:-python3}
smoke_limit=${SMOKE_LIMIT:-200} torch_limit=${TORCH_LIMIT:-50} sweep_limit=${SWEEP_LIMIT:-300}
read -r -a sweep_knobs <<< "${SWEEP_KNOBS:---knob BN=256,128 --knob SPLIT_K=1,2,4,8}"
read -r -a fp8_sweep_knobs <<< "${FP8_SWEEP_KNOBS:---knob BN=128,64 --knob SPLIT_K=1,2,4,8}"  # fp8's BN is at most 128
# The TMA templates' grids add the persistent tile walk (split-K 1 only; 3 stages leave room for its staging).
read -r -a tma_sweep_knobs <<< "${TMA_SWEEP_KNOBS:---knob BN=256,128 --knob SPLIT_K=1,2,4 --knob STAGES=4,3 --knob PERSISTENT=0,1 --knob MULTICAST=1,2}"
read -r -a fp8_tma_sweep_knobs <<< "${FP8_TMA_SWEEP_KNOBS:---knob BN=128,64 --knob SPLIT_K=1,2,4 --knob PERSISTENT=0,1 --knob MULTICAST=1,2}"

began=$(date +%s)
say() { echo "[$(($(date +%s) - began)) s] $*"; }
source bench/device_environment.sh
bench_environment "$out" "$python"

# 1. Correctness: the defaults on every workload, the other configurations on a few that reach every edge (one token,
# ragged M, K 18944, N 18944). NAME TASK KNOB=VALUE...
few_bf16=(gemm_bf16-1x4096x4096 gemm_bf16-586x2560x2560 gemm_bf16-1571x5120x5120 gemm_bf16-128x3584x18944 gemm_bf16-64x18944x3584)
few_residual=(gemm_bf16_residual-1x4096x4096 gemm_bf16_residual-586x2560x2560 gemm_bf16_residual-1571x2560x2560)
few_bias_gelu=(gemm_bf16_bias_gelu-1x10240x2560 gemm_bf16_bias_gelu-586x10240x2560 gemm_bf16_bias_gelu-1571x6400x1600)
few_gate_up=(gemm_bf16_gate_up_silu-1x8192x3072 gemm_bf16_gate_up_silu-586x18944x3584 gemm_bf16_gate_up_silu-1571x8192x3072)
# The paths never yet run on a GPU first, the whole-task defaults (long: every workload) last.
few_fp8=(gemm_fp8_rowwise-1x4096x4096 gemm_fp8_rowwise-128x14336x4096 gemm_fp8_rowwise-1571x8192x8192)
smoke_cases=(
  "tma_multicast gemm_bf16 @tma_cuda MULTICAST=2"
  "tma_multicast_persistent gemm_bf16 @tma_cuda MULTICAST=2 PERSISTENT=1 STAGES=3"
  "tma_multicast gemm_fp8_rowwise @tma_cuda MULTICAST=2"
  "tma_gate_up gemm_bf16_gate_up_silu @tma_cuda"
  "tma_gate_up_multicast_persistent gemm_bf16_gate_up_silu @tma_cuda MULTICAST=2 PERSISTENT=1 BN=128"
  "tma_tensorwise gemm_fp8_tensorwise @tma_cuda"
  "tma_mma_sync gemm_bf16 @tma_cuda MMA=1"
  "tma_mma_sync_persistent_registers gemm_bf16 @tma_cuda MMA=1 PERSISTENT=1 EPILOGUE=0 BN=128"
  "tma_mma_sync_split2 gemm_fp8_rowwise @tma_cuda MMA=1 SPLIT_K=2"
  "tma_mma_sync_multicast gemm_bf16_residual @tma_cuda MMA=1 MULTICAST=2"
  "tma_persistent gemm_bf16 @tma_cuda PERSISTENT=1 STAGES=3"
  "tma_persistent_registers gemm_bf16 @tma_cuda PERSISTENT=1 EPILOGUE=0 BN=128"
  "tma_persistent gemm_fp8_rowwise @tma_cuda PERSISTENT=1"
  "tma_persistent gemm_bf16_residual @tma_cuda PERSISTENT=1 STAGES=3"
  "tma_persistent_registers gemm_bf16_bias_gelu @tma_cuda PERSISTENT=1 EPILOGUE=0"
  "tma_split4_bk128 gemm_bf16 @tma_cuda SPLIT_K=4 BK=128 STAGES=3 BN=128"
  "tma_bm256_bn64 gemm_bf16 @tma_cuda BM=256 BN=64 STAGES=5 EPILOGUE=0"
  "default gemm_fp8_rowwise"
  "split4 gemm_fp8_rowwise SPLIT_K=4"
  "registers_bk256 gemm_fp8_rowwise EPILOGUE=0 BK=256 STAGES=2"
  "default gemm_fp8_tensorwise"
  "default gemm_bf16_gate_up_silu"
  "bn128_split4 gemm_bf16_gate_up_silu BN=128 SPLIT_K=4 BK=128 STAGES=3"
  "split4 gemm_bf16_bias_gelu SPLIT_K=4"
  "registers gemm_bf16_bias_gelu EPILOGUE=0"
  "bk128 gemm_bf16 BK=128 STAGES=2"
  "bm256_bn64 gemm_bf16 BM=256 BN=64 STAGES=5"
  "one_consumer gemm_bf16 BM=64 CONSUMERS=1 BN=256"
  "bn128_registers gemm_bf16 BN=128 EPILOGUE=0 GROUP_M=1"
  "split4 gemm_bf16 SPLIT_K=4"
  "split8_bn128 gemm_bf16 SPLIT_K=8 BN=128 EPILOGUE=0"
  "registers gemm_bf16_residual EPILOGUE=0"
  "split2 gemm_bf16_residual SPLIT_K=2"
  "default gemm_bf16_bias_gelu"
  "default gemm_bf16_residual"
  "default gemm_bf16"
  "tma_default gemm_bf16 @tma_cuda"
  "tma_default gemm_fp8_rowwise @tma_cuda"
)
mkdir -p "$out/smoke"
smoke_deadline=$(($(date +%s) + smoke_limit))
for case in "${smoke_cases[@]}"; do
  read -r -a words <<< "$case"
  name=${words[0]} task=${words[1]} template=wgmma_cuda
  knobs=()
  for word in "${words[@]:2}"; do
    if [[ $word == @* ]]; then template=${word#@}; else knobs+=(--knob "$word"); fi
  done
  only=()
  if [[ $name != default && $name != tma_default ]]; then
    case $task in
      gemm_bf16) few=("${few_bf16[@]}") ;;
      gemm_bf16_residual) few=("${few_residual[@]}") ;;
      gemm_bf16_gate_up_silu) few=("${few_gate_up[@]}") ;;
      gemm_fp8_rowwise) few=("${few_fp8[@]}") ;;
      gemm_fp8_tensorwise) few=("${few_fp8[@]//rowwise/tensorwise}") ;;
      *) few=("${few_bias_gelu[@]}") ;;
    esac
    for uuid in "${few[@]}"; do only+=(--workload "$uuid"); done
  fi
  left=$((smoke_deadline - $(date +%s)))
  if ((left < 10)); then
    say "smoke $task/$name: skipped (the smoke step's ${smoke_limit} s are spent)"
    continue
  fi
  say "smoke: kernelarc eval $task --template $template ${knobs[*]} ${only[*]} --device $device --correctness-only"
  timeout "$left" "$kernelarc" eval "$task" --template "$template" "${knobs[@]}" "${only[@]}" --device "$device" --correctness-only --json \
    --quiet > "$out/smoke/$task-$name.json" 2> "$out/smoke/$task-$name.log"
  echo "exit $?" >> "$out/smoke/$task-$name.log"
  tail -n 2 "$out/smoke/$task-$name.log"
done

# 2. cuBLAS through torch, per workload, in this call.
say "torch: bench/torch_baselines.py (eager only: cuBLAS, cuBLAS then the add, torch._scaled_mm)"
timeout "$torch_limit" "$python" bench/torch_baselines.py "$out/torch" gemm_bf16 gemm_bf16_residual gemm_fp8_rowwise --no-compile --iterations 30 --warmup 5 \
  > "$out/torch.log" 2>&1 || echo "torch baselines: exit $? (see torch.log)"
tail -n 3 "$out/torch.log"

# 3. Timing: the sweep over the grid (screening: a correctness round and a few timed calls per configuration and
# workload), then the residual task's default.
# sweep_until END TASK TEMPLATE KNOB_ARGS...: one sweep, bounded to END (seconds since the script began), skipped with less than 20
# left; its JSON is sweep-TASK.json for wgmma_cuda, sweep-TASK.TEMPLATE.json for another (what gemm_table.py reads).
sweep_until() {
  local end=$1 task=$2 template=$3 left name
  shift 3
  left=$((began + end - $(date +%s)))
  name=$task
  [[ $template == wgmma_cuda ]] || name=$task.$template
  if ((left <= 20)); then
    say "sweep $name: skipped (the step's time is spent)"
    return
  fi
  say "sweep: kernelarc sweep $task --template $template $* --device $device"
  # --time-limit keeps what was screened; the outer timeout only guards a configuration that outlasts the last third.
  timeout "$left" "$kernelarc" sweep "$task" --template "$template" "$@" --time-limit $((left * 2 / 3)) --device "$device" --json --quiet \
    > "$out/sweep-$name.json" 2> "$out/sweep-$name.log" || echo "sweep $name: exit $? (see sweep-$name.log)"
}
# Each sweep's end is a share of SWEEP_LIMIT counted from here, so a long smoke step shortens none of them.
sweeps_began=$(($(date +%s) - began))
sweep_until $((sweeps_began + sweep_limit * 30 / 100)) gemm_bf16 wgmma_cuda "${sweep_knobs[@]}"
sweep_until $((sweeps_began + sweep_limit * 60 / 100)) gemm_bf16 tma_cuda "${tma_sweep_knobs[@]}"
sweep_until $((sweeps_began + sweep_limit * 75 / 100)) gemm_fp8_rowwise wgmma_cuda "${fp8_sweep_knobs[@]}"
sweep_until $((sweeps_began + sweep_limit * 90 / 100)) gemm_fp8_rowwise tma_cuda "${fp8_tma_sweep_knobs[@]}"
sweep_until $((sweeps_began + sweep_limit)) gemm_bf16_residual wgmma_cuda --knob EPILOGUE=1,0

# 4. The tables.
say "tables: $out/gemm.md"
"$python" bench/gemm_table.py "$out" > "$out/gemm.md" 2> "$out/gemm_table.log" || { echo "no tables (see gemm_table.log)"; cat "$out/gemm_table.log"; }
cat "$out/gemm.md" 2>/dev/null | head -n 80
rm -rf "$out/cache"  # cubins: rebuilt in a second; the carry back stays small
say "done"
