#!/usr/bin/env bash
# README.md's "First run on the CPU" block, run exactly as written: the shell block after <!-- first-run-cpu -->, in a
# scratch folder whose build/ is the build folder (so build/kernelarc is the program just built and nothing is written
# into the source tree). Usage: readme_first_run.sh README.md BUILD_DIR SCRATCH_DIR
set -euo pipefail
readme=$1 build=$2 scratch=$3
block=$(awk '/<!-- first-run-cpu -->/ { marked = 1; next } marked && /^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' "$readme")
[[ -n $block ]] || { echo "README.md has no shell block after <!-- first-run-cpu -->"; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
ln -s "$build" build
export KERNELARC_CACHE_DIR=$scratch/cache
unset KERNELARC_STORE KERNELARC_CONFIG
printf '%s\n' "--- the block:" "$block" "---"
bash -euo pipefail -c "$block"
[[ -s softmax_best.cpp ]] || { echo "the block did not write softmax_best.cpp"; exit 1; }
grep -q 'KERNELARC_CANDIDATE' softmax_best.cpp || { echo "softmax_best.cpp has no entry point"; exit 1; }
echo "README first run: every command succeeded"
