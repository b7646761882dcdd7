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
