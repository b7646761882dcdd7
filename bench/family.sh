#!/usr/bin/env bash
# The task family's benchmark (issue 7), rerunnable on any machine with an NVIDIA GPU, PyTorch and a built kernelarc:
#
#   bench/family.sh OUT_DIR [TASK...]
#
# For each task (default: the whole family), in one go: torch eager and torch.compile re-measured per workload
# (bench/torch_baselines.py: kernel spans after an L2 flush), then a `kernelarc run` with the built-in search brain
# scored against the faster of the two, then OUT_DIR/TASK.json (bench/family_table.py summarize). Last, the tables of
# every TASK.json in OUT_DIR: OUT_DIR/family.md, and docs/BENCHMARKS.md's family section when WRITE_DOCS=1. A task
# whose results are already in OUT_DIR is measured again; tasks measured in separate calls land in one table.
#
# With several GPUs the tasks are dealt to them (GPUS, default every GPU nvidia-smi lists; one task a GPU at a time, the
# GPU the only one its torch and its run see), so 8 GPUs measure the family in one task's time.
#
# Settings (environment): KERNELARC (build/kernelarc), GPUS (indices, e.g. "0 1"), AGENTS (4), BUDGET (48 candidates),
# TIME_LIMIT (8m per task's run), SEED (1), TEMPLATE (the run's; default the task's first for the GPU), NO_COMPILE (1: T_b
# from eager alone, where torch.compile is known slower and its compiles would take the call's time, as for a GEMM),
# PYTHON (python3, with torch and CUDA).
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bench/family.sh OUT_DIR [TASK...]}
shift
tasks=("$@")
[[ ${#tasks[@]} -gt 0 ]] || tasks=(softmax_bf16 fused_add_rmsnorm post_rmsnorm layernorm swiglu gelu_tanh_mul rotary qk_rmsnorm)
kernelarc=${KERNELARC:-build/kernelarc}
agents=${AGENTS:-4} budget=${BUDGET:-48} time_limit=${TIME_LIMIT:-8m} seed=${SEED:-1}
python=${PYTHON:-python3}
mkdir -p "$out" && out=$(cd "$out" && pwd) && mkdir -p "$out/baselines" "$out/runs" "$out/stores"
source bench/device_environment.sh  # each_on_gpus

# The GPU, its driver and its clocks now: each task's line says what the run saw.
device_line() {
  local gpu
  gpu=$(nvidia-smi -i "$1" --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu --format=csv,noheader 2>/dev/null | head -n 1) ||
    gpu="no nvidia-smi"
  echo "$(date -u +%Y-%m-%dT%H:%MZ), GPU $1: $gpu (name, driver, SM clock, max SM clock, memory clock, temperature)"
}

# One task on GPU $2, which alone its torch and its run see (as cuda:0: each_on_gpus).
measure_task() {
  local task=$1 gpu=$2 before command
  echo "== $task (GPU $gpu): torch eager and torch.compile per workload"
  local torch_options=() run_options=()
  [[ ${NO_COMPILE:-0} == 1 ]] && torch_options=(--no-compile)
  [[ -n ${TEMPLATE:-} ]] && run_options=(--template "$TEMPLATE")
  "$python" bench/torch_baselines.py "$out/baselines" "$task" "${torch_options[@]}" > "$out/baselines/$task.log" 2>&1 || {
    tail -n 20 "$out/baselines/$task.log"
    echo "$task: no torch baselines, skipped"
    return 0
  }
  tail -n 2 "$out/baselines/$task.log"
  before=$(device_line "$gpu")
  command="kernelarc run $task ${run_options[*]} --device cuda:0 --agents $agents --budget $budget --time-limit $time_limit --seed $seed --baseline-file $task-baseline.json"
  echo "== $task (GPU $gpu): $command"
  rm -f "$out/stores/$task.db"
  "$kernelarc" run "$task" "${run_options[@]}" --device cuda:0 --agents "$agents" --budget "$budget" --time-limit "$time_limit" --seed "$seed" \
    --baseline-file "$out/baselines/$task-baseline.json" --store "$out/stores/$task.db" --json \
    > "$out/runs/$task.json" 2> "$out/runs/$task.log" || true
  tail -n 3 "$out/runs/$task.log"
  echo "before the run: $before; after: $(device_line "$gpu")" > "$out/runs/$task-device.txt"
  "$python" bench/family_table.py summarize "$out/stores/$task.db" "$out/runs/$task.json" "$out/baselines/$task-torch.json" \
    "$out/runs/$task-device.txt" "$command" > "$out/$task.json" || { echo "$task: no summary (see runs/$task.log)"; rm -f "$out/$task.json"; }
}

each_on_gpus measure_task "${tasks[@]}"

summaries=()
for summary in "$out"/*.json; do [[ -e $summary ]] && summaries+=("$summary"); done
if [[ ${#summaries[@]} -gt 0 ]]; then
  write=()
  [[ ${WRITE_DOCS:-0} == 1 ]] && write=(--write docs/BENCHMARKS.md)
  "$python" bench/family_table.py tables "${write[@]}" "${summaries[@]}" > "$out/family.md"
  cat "$out/family.md"
fi
