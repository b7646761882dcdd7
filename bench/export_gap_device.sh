#!/usr/bin/env bash
# Issue 23's small-kernel gap on the GPU machine, in one call of at most 10 minutes:
#
#   bash bench/export_gap_device.sh OUT_DIR
#
# From the repository root with bundle/, .sol-execbench/ and .whl/ carried (scripts/device harness says what they are;
# leave bundle/kernelarc_judge_bench out of the carry to fit the 64 MiB). In order, each step bounded in time:
#   1. bench/harness_agreement.py on three tasks whose decode rows the harness times 0.1-0.5 us slower than KernelArc
#      (gelu_tanh_mul, swiglu, rotary), --through-oracle: KernelArc's time (the native worker), the harness's, and the
#      exported binding judged by KernelArc through its oracle; OUT_DIR/agreement.md;
#   2. bench/export_gap.py on four workloads of each, small to mid-size: the harness's protocol against the same call
#      with one factor changed at a time towards KernelArc's worker; OUT_DIR/gap.md (gap.log: its errors);
#   3. the oracle's cold-outputs GPU test, then the same test against the oracle before that fix (bundle/python/
#      old_oracle.py when present: `git show 96e3686^:python/kernelarc_oracle.py`), which should fail it;
#      OUT_DIR/gpu-tests*.txt;
#   4. OUT_DIR/details.tgz: every case's logs, traces and solution.json.
# Settings (environment): HARNESS_LIMIT, GAP_LIMIT, TEST_LIMIT (seconds: 250, 65 per task, 80).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

out=${1:?usage: bash bench/export_gap_device.sh OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/export-gap-XXXXXX)
source bench/device_environment.sh
bench_environment "$work" > "$out/device.txt"
export KERNELARC_TEST_BINARY=$PWD/bundle/kernelarc KERNELARC_SOURCE_ROOT=$PWD
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site

echo "== $(date -u +%H:%M:%S) the harness against KernelArc, the oracle beside"
timeout "${HARNESS_LIMIT:-250}" python3 bench/harness_agreement.py "$work" --sol-execbench .sol-execbench --kernelarc bundle/kernelarc \
  --jobs 3 --no-examples --through-oracle --deadline-s 150 --tasks gelu_tanh_mul swiglu rotary > "$work/harness.log" 2>&1
cp "$work/agreement.md" "$out/" 2>/dev/null || tail -n 20 "$work/harness.log"

echo "== $(date -u +%H:%M:%S) one factor at a time (bench/export_gap.py)"
declare -A workloads=(
  [gelu_tanh_mul]="gelu_tanh_mul-1x16384 gelu_tanh_mul-32x15360 gelu_tanh_mul-16x10240 gelu_tanh_mul-1024x24576"
  [swiglu]="swiglu-1x14336 swiglu-32x14336 swiglu-16x8192 swiglu-1024x8192"
  [rotary]="rotary-1x32x8x128 rotary-777x14x2x64 rotary-512x28x4x128 rotary-2048x24x8x128")
for task in gelu_tanh_mul swiglu rotary; do
  [[ -f "$work/$task/solution.json" ]] || { echo "$task: no exported solution (see $task/ in details.tgz)" >> "$out/gap.log"; continue; }
  # shellcheck disable=SC2086  # the workload names are separate arguments
  PYTHONPATH=.sol-execbench/src:/tmp/site timeout "${GAP_LIMIT:-65}" python3 bench/export_gap.py "$work/$task/problem" "$work/$task/solution.json" \
    --workloads ${workloads[$task]} >> "$out/gap.md" 2>> "$out/gap.log"
  echo >> "$out/gap.md"
done
cat "$out/gap.md" 2>/dev/null

echo "== $(date -u +%H:%M:%S) the oracle's cold outputs"
timeout "${TEST_LIMIT:-80}" bundle/kernelarc_gpu_tests \
  --gtest_filter='*ThroughTheOracleStarts:*APythonSolution*:*OutputsAreColdWhenATimedCallStarts' > "$out/gpu-tests.txt" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |us;|tests? ran" "$out/gpu-tests.txt"
if [[ -f bundle/python/old_oracle.py ]]; then
  cp bundle/python/kernelarc_oracle.py "$work/oracle.py"
  cp bundle/python/old_oracle.py bundle/python/kernelarc_oracle.py
  timeout 50 bundle/kernelarc_gpu_tests --gtest_filter='*ThroughTheOracleStarts' > "$out/gpu-tests-old-oracle.txt" 2>&1
  grep -E "^\[  (PASSED|FAILED) |us;" "$out/gpu-tests-old-oracle.txt"
  cp "$work/oracle.py" bundle/python/kernelarc_oracle.py
fi
(cd "$work" && tar czf "$out/details.tgz" --exclude=cache --exclude='*.so' --exclude='*.o' .)
echo "== $(date -u +%H:%M:%S) done"
