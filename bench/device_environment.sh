# Sourced by bench's GPU-machine scripts (gemm_device.sh, gemm_decode_device.sh, search_device.sh), from the repository root.
# bench_environment OUT_DIR [PYTHON]: exports the bundle's environment as scripts/device's device_environment does (its
# libraries, the tasks, a cache and a store in OUT_DIR, PYTHON, python3 by default, for the PyTorch oracle) and writes
# OUT_DIR/device.txt: the date, the GPU (name, driver, SM clock and its maximum) and the commit.
bench_environment() {
  local out=$1 python=${2:-python3}
  if [[ -d bundle/lib ]]; then
    export LD_LIBRARY_PATH="$PWD/bundle/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  export KERNELARC_TASKS_DIR="$PWD/tasks" KERNELARC_CACHE_DIR="$out/cache" KERNELARC_STORE="$out/runs.db"
  KERNELARC_PYTHON=${KERNELARC_PYTHON:-$(command -v "$python")}
  export KERNELARC_PYTHON
  {
    date -u +%Y-%m-%dT%H:%MZ
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
    git log -1 --format='%H %s' 2>/dev/null || true
  } > "$out/device.txt"
  cat "$out/device.txt"
}

# each_on_gpus FUNCTION JOB...: the jobs dealt to the GPUs in turn (GPUS, e.g. "0 1"; default every GPU nvidia-smi
# lists), each GPU working through its share in the background, one job at a time, with CUDA_VISIBLE_DEVICES naming it
# alone (so it is cuda:0 there); `FUNCTION JOB GPU` runs each job. Returns when every GPU is done.
each_on_gpus() {
  local function=$1 gpus slot
  shift
  local jobs=("$@")
  if [[ -n ${GPUS:-} ]]; then
    read -r -a gpus <<< "$GPUS"
  else
    mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ')
    [[ ${#gpus[@]} -gt 0 ]] || gpus=(0)
  fi
  echo "${#jobs[@]} job(s) on ${#gpus[@]} GPU(s): ${gpus[*]}"
  for slot in "${!gpus[@]}"; do
    (
      export CUDA_VISIBLE_DEVICES=${gpus[slot]}
      for ((j = slot; j < ${#jobs[@]}; j += ${#gpus[@]})); do "$function" "${jobs[j]}" "${gpus[slot]}"; done
    ) &
  done
  wait
}
