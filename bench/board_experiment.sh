#!/usr/bin/env bash
# Issue 25's board experiment at equal wall-clock time: does sharing conclusions on the board make the runs better?
#
#   bash bench/board_experiment.sh OUT_DIR
#
# Per task (TASKS, default the two family tasks with the largest knob spaces: softmax_bf16 and layernorm), torch eager and
# torch.compile re-measured first (bench/torch_baselines.py, T_b for the SOL score), then per setting and seed (SEEDS,
# "1 2 3 4 5") a `kernelarc run` with the time limit LIMIT (4m) and no candidate budget to stop it sooner:
#   one-agent        1 agent, the board unlimited (it reads its own conclusions)
#   no-board         4 agents, a board of 0 conclusions
#   board-16         4 agents, a board of the 16 latest conclusions
#   board-unlimited  4 agents, every conclusion
#   random           4 agents drawing configurations at random, no board (the control)
# The runs are spread over the machine's GPUs (GPUS; bench/device_environment.sh's each_on_gpus), each alone on its GPU,
# each with its own store. OUT_DIR/results.jsonl has a line a run; OUT_DIR/experiment.md the mean final SOL score per task
# and setting with its 95% interval (bench/run_table.py experiment). From the repository root with bundle/ carried.
# Settings (environment): TASKS, SEEDS, SETTINGS (the five above), LIMIT, GPUS, DEVICE (cuda:0: the run's GPU alone),
# KERNELARC (bundle/kernelarc).
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bash bench/board_experiment.sh OUT_DIR}
mkdir -p "$out/runs" "$out/stores" "$out/baselines" && out=$(cd "$out" && pwd)
kernelarc=${KERNELARC:-bundle/kernelarc}
read -r -a tasks <<< "${TASKS:-softmax_bf16 layernorm}"
read -r -a seeds <<< "${SEEDS:-1 2 3 4 5}"
read -r -a settings <<< "${SETTINGS:-one-agent no-board board-16 board-unlimited random}"
limit=${LIMIT:-4m} device=${DEVICE:-cuda:0}
source bench/device_environment.sh
bench_environment "$out"

# T_b of each task, one task a GPU.
baselines() {
  python3 bench/torch_baselines.py "$out/baselines" "$1" > "$out/baselines/$1.log" 2>&1 || echo "$1: no torch baselines (baselines/$1.log)"
}
each_on_gpus baselines "${tasks[@]}"

# One run: JOB is "TASK SETTING SEED".
run_setting() {
  local task setting seed name flags
  read -r task setting seed <<< "$1"
  name="$task-$setting-$seed"
  case "$setting" in
    one-agent) flags=(--agents 1 --board-capacity unlimited) ;;
    no-board) flags=(--agents 4 --board-capacity 0) ;;
    board-16) flags=(--agents 4 --board-capacity 16) ;;
    board-unlimited) flags=(--agents 4 --board-capacity unlimited) ;;
    random) flags=(--agents 4 --board-capacity 0 --brain random) ;;
    *) echo "$name: unknown setting $setting"; return 0 ;;
  esac
  [[ -s $out/baselines/$task-baseline.json ]] || { echo "$name: skipped, no T_b"; return 0; }
  echo "[$(date -u +%H:%M:%S)] $name on GPU $2"
  "$kernelarc" run "$task" --device "$device" "${flags[@]}" --time-limit "$limit" --budget 100000 --seed "$seed" \
    --baseline-file "$out/baselines/$task-baseline.json" --store "$out/stores/$name.db" --json \
    > "$out/runs/$name.json" 2> "$out/runs/$name.log" || { echo "$name: run failed"; tail -n 3 "$out/runs/$name.log"; return 0; }
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
r.update(task=sys.argv[2], setting=sys.argv[3], seed=int(sys.argv[4]))
print(json.dumps({k: r.get(k) for k in ("task", "setting", "seed", "judged", "screened", "best_ns", "sol_score", "speedup", "elapsed_s", "promotions", "plateaus")}))' \
    "$out/runs/$name.json" "$task" "$setting" "$seed" > "$out/runs/$name.result"
}
jobs=()
for seed in "${seeds[@]}"; do
  for task in "${tasks[@]}"; do
    for setting in "${settings[@]}"; do jobs+=("$task $setting $seed"); done
  done
done
each_on_gpus run_setting "${jobs[@]}"

cat "$out"/runs/*.result > "$out/results.jsonl" 2> /dev/null
{
  echo "# The board experiment: ${tasks[*]}, seeds ${seeds[*]}, $limit a run; $(tail -n +2 "$out/device.txt" | head -n 1); $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  python3 bench/run_table.py experiment "$out/results.jsonl"
} > "$out/experiment.md"
cat "$out/experiment.md"
rm -rf "$out/cache"
