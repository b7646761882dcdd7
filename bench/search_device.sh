#!/usr/bin/env bash
# `kernelarc run` with screening on the GPU machine (issue 25): for each task, seed and start (the template's default, a
# random one), a run with a time limit; then a table of what each run did (screened, judged, promotions, the speed-up
# timed side by side, screenings per minute) from the runs' --json summaries and stores; then each run's best and the
# template's default judged in full twice each, alternately, on the run's GPU right after it, and the ratio of their
# geometric means (issue 25's comparison with the hand-chosen default; COMPARE=0 skips it).
#
#   bash bench/search_device.sh OUT_DIR
#
# The runs are spread over the machine's GPUs, one run a GPU at a time (a GPU's runs one after another): on 8 GPUs the
# issue's 8 tasks take one run's time per seed. Each run has its own store, OUT_DIR/stores/NAME.db.
# From the repository root with bundle/ carried (scripts/device bundle). Settings (environment): TASKS (softmax_bf16),
# LIMIT (the time limit of each run, 150s), STARTS (default random), SEEDS (1; SEED is one seed), GPUS (every GPU
# nvidia-smi lists; bench/device_environment.sh's each_on_gpus), DEVICE (what each run is given, cuda:0: its GPU alone),
# KERNELARC (bundle/kernelarc).
set -uo pipefail
cd "$(dirname "$0")/.."

out=${1:?usage: bash bench/search_device.sh OUT_DIR}
mkdir -p "$out/stores" && out=$(cd "$out" && pwd)
kernelarc=${KERNELARC:-bundle/kernelarc}
read -r -a tasks <<< "${TASKS:-softmax_bf16}"
read -r -a starts <<< "${STARTS:-default random}"
read -r -a seeds <<< "${SEEDS:-${SEED:-1}}"
limit=${LIMIT:-150s} device=${DEVICE:-cuda:0}
source bench/device_environment.sh
bench_environment "$out"

# One run and, unless COMPARE=0, the default and the run's best judged twice each, alternately, on the same GPU.
run_one() {
  local task start seed name round
  read -r task start seed <<< "$1"
  name="$task-$start-seed$seed"
  echo "[$(date -u +%H:%M:%S)] $name on GPU $2: kernelarc run $task --time-limit $limit --start $start --seed $seed"
  "$kernelarc" run "$task" --device "$device" --time-limit "$limit" --start "$start" --seed "$seed" --budget 1000 \
    --store "$out/stores/$name.db" --json > "$out/$name.json" 2> "$out/$name.log"
  echo "[$(date -u +%H:%M:%S)] $name: exit $?; $(tail -n 1 "$out/$name.log")"
  [[ ${COMPARE:-1} != 0 && -s $out/$name.json ]] || return 0
  local best=()
  read -r -a best < <(python3 -c 'import json, sys; print(" ".join(f"--knob {k}={v}" for k, v in json.load(open(sys.argv[1])).get("best_knobs", {}).items()))' "$out/$name.json")
  for round in 1 2; do
    "$kernelarc" eval "$task" --device "$device" --json --quiet > "$out/$name-default-$round.eval.json" 2> /dev/null
    "$kernelarc" eval "$task" --device "$device" --json --quiet "${best[@]}" > "$out/$name-best-$round.eval.json" 2> /dev/null
  done
}

jobs=()
for seed in "${seeds[@]}"; do
  for task in "${tasks[@]}"; do
    for start in "${starts[@]}"; do jobs+=("$task $start $seed"); done
  done
done
each_on_gpus run_one "${jobs[@]}"

python3 - "$out" <<'EOF'
import json, math, pathlib, sqlite3, sys
out = pathlib.Path(sys.argv[1])
print("\n| run | screened | judged | promotions | screenings per minute | speed-up (side by side) | best knobs |")
print("|---|---|---|---|---|---|---|")
for path in sorted(out.glob("*-seed*.json")):
    if path.name.endswith(".eval.json"):
        continue
    try:
        s = json.loads(path.read_text())
    except ValueError:
        print(f"| {path.stem} | no summary (see {path.stem}.log) | | | | | |")
        continue
    rate = 60 * s.get("screened", 0) / s["elapsed_s"] if s.get("elapsed_s") else 0
    speed = s.get("speedup")
    print(f"| {path.stem} | {s.get('screened', 0)} | {s['judged']} | {s['promotions']} | {rate:.0f} | "
          f"{'%.3fx' % speed if speed else '-'}{' (paired)' if s.get('paired_speedup') else ''} | {json.dumps(s.get('best_knobs'))} |")
    # Where the screening time went: the journal's screened events, their seconds, by fidelity.
    db = sqlite3.connect(out / "stores" / f"{path.stem}.db")
    rows = db.execute("select payload_json from events where run_id = ? and kind = 'screened'", (s["run_id"],)).fetchall()
    by, phases = {}, {}
    for (payload,) in rows:
        p = json.loads(payload)
        by.setdefault(p.get("fidelity", 0), []).append(p.get("seconds", 0))
        for phase, seconds in p.get("phase_seconds", {}).items():
            phases.setdefault(p.get("fidelity", 0), {}).setdefault(phase, []).append(seconds)
    for fidelity, seconds in sorted(by.items()):
        seconds.sort()
        where = ", ".join(f"{name} {sorted(v)[len(v) // 2]:.2f}" for name, v in sorted(phases.get(fidelity, {}).items()))
        print(f"|   fidelity {fidelity}: {len(seconds)} screenings, median {seconds[len(seconds) // 2]:.2f} s ({where}) | | | | | | |")


def geomean_us(path):
    try:
        rows = [r for r in json.loads(path.read_text())["workloads"] if not r["held_out"]]
    except (OSError, ValueError, KeyError):
        return None
    if not rows or any(r["status"] != "PASSED" for r in rows):
        return None
    return math.exp(sum(math.log(r["timing"]["median_ns"]) for r in rows) / len(rows)) / 1e3


print("\n| run | the default, judged twice (us) | the run's best, judged twice (us) | best against the default |")
print("|---|---|---|---|")
for path in sorted(out.glob("*-seed*.json")):
    if path.name.endswith(".eval.json"):
        continue
    default = [geomean_us(out / f"{path.stem}-default-{r}.eval.json") for r in (1, 2)]
    best = [geomean_us(out / f"{path.stem}-best-{r}.eval.json") for r in (1, 2)]
    if None in default or None in best:
        print(f"| {path.stem} | {default} | {best} | not compared (a judgement failed or is missing) |")
        continue
    ratio = (default[0] * default[1]) ** 0.5 / (best[0] * best[1]) ** 0.5
    print(f"| {path.stem} | {default[0]:.3f}, {default[1]:.3f} | {best[0]:.3f}, {best[1]:.3f} | {ratio:.3f}x (above 1: the run beat the default) |")
EOF
