#!/usr/bin/env python3
"""Where do an exported kernel's 0.1-0.5 us go between KernelArc's judge and the benchmark's harness? (issue 23)

  PYTHONPATH=.sol-execbench/src:/tmp/site bench/export_gap.py PROBLEM_DIR SOLUTION_JSON [--workloads NAME ...] [--iterations 200]

PROBLEM_DIR holds the benchmark's definition.json and workload.jsonl (bench/harness_agreement.py writes one per task),
SOLUTION_JSON a `kernelarc export --format solution-json`. The solution is built as the harness builds it (torch's
extension loader, the solution's own flags), then each workload's call is timed by the harness's own CUPTI function in
one process, changing one factor at a time from the harness's protocol towards KernelArc's GPU worker:
  harness        time_runnable: inputs copied to a new address each call (256 bytes on), outputs zeroed, 2x-L2 zero flush
  same address   the same inputs and outputs every call, the same flush
  synchronised   the same, with a synchronise after the flush
  poisoned       as KernelArc's worker: outputs filled with a poison, the flush written again, a synchronise, 30 us idle
  oracle         KernelArc's Python oracle's protocol (kernel_spans_ns: torch's profiler, a fill flush, a synchronise)
  busy before    the harness's protocol right after 200 ms of other kernels (clocks already up)
A row per workload with the median of each (100+ calls) and the SM clock nvidia-smi saw after the row.
bench/export_gap_device.sh runs it on three tasks in one device call.
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.utils.cpp_extension as extension
from sol_execbench.core import Definition, Solution, Workload
from sol_execbench.core.bench import timing
from sol_execbench.core.bench.io import allocate_outputs, gen_inputs

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
import kernelarc_oracle  # noqa: E402  (the oracle's own timing function)


def build(solution, into):
    """The solution's extension, built as the harness's build_ext.py builds it."""
    for source in solution.sources:
        (into / source.path).parent.mkdir(parents=True, exist_ok=True)
        (into / source.path).write_text(source.content)
    options = solution.spec.compile_options
    sources = [str(into / s.path) for s in solution.sources if pathlib.Path(s.path).suffix in (".cu", ".cpp", ".cc", ".cxx", ".c")]
    return extension.load(name="exported_kernel", sources=sources, extra_cuda_cflags=options.cuda_cflags if options else [],
                          extra_cflags=options.cflags if options else [], extra_ldflags=options.ld_flags if options else [],
                          extra_include_paths=[str(into)], build_directory=str(into), verbose=False)


def sm_clock_mhz():
    found = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"], capture_output=True, text=True)
    return found.stdout.strip().splitlines()[0] if found.returncode == 0 and found.stdout.strip() else "?"


def median_us(samples_ms):
    return statistics.median(samples_ms) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", type=pathlib.Path)
    parser.add_argument("solution", type=pathlib.Path)
    parser.add_argument("--workloads", nargs="*", default=None, help="workload names or uuids (default: every one)")
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    definition = Definition(**json.loads((args.problem / "definition.json").read_text()))
    workloads = [Workload(**json.loads(line)) for line in (args.problem / "workload.jsonl").read_text().splitlines() if line.strip()]
    if args.workloads:
        workloads = [w for w in workloads if w.uuid in args.workloads or any(name in w.uuid for name in args.workloads)]
    solution = Solution(**json.loads(args.solution.read_text()))
    module = build(solution, pathlib.Path(tempfile.mkdtemp(prefix="export-gap-")))
    run = getattr(module, solution.spec.entry_point.split("::")[-1])
    device, n = "cuda:0", args.iterations
    as_harness = timing._clear_cache
    flush = torch.zeros(2 * timing.get_l2_cache_size(device) // 4, dtype=torch.float32, device=device)
    busy = torch.randn(4096, 4096, device=device)

    print(f"# {definition.name}: {torch.cuda.get_device_name()}, torch {torch.__version__}, {n} timed calls each, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| workload | harness | same address | synchronised | poisoned, flushed again, synchronised, 30 us idle | oracle "
          "| busy before | harness / poisoned | SM MHz |\n|---|---|---|---|---|---|---|---|---|")
    for workload in workloads:
        axes = definition.get_resolved_axes_values(workload.axes)
        inputs = gen_inputs(definition, workload, device=device)
        outputs = allocate_outputs(definition, axes, device)
        arguments = [*inputs, *outputs]
        harness = median_us(timing.time_runnable(run, inputs, outputs, device, warmup=20, rep=n, return_mode="all"))
        same = median_us(timing.bench_gpu_time_with_cupti(lambda: run(*arguments), warmup=20, rep=n))

        def synchronise(cache):
            as_harness(cache)
            torch.cuda.synchronize()
        timing._clear_cache = synchronise
        synchronised = median_us(timing.bench_gpu_time_with_cupti(lambda: run(*arguments), warmup=20, rep=n))
        values = iter(range(1, 1 << 30))

        def like_kernelarc(cache):
            for output in outputs:
                output.view(torch.uint8).fill_(0xFF)
            cache.fill_(next(values) % 251 + 1)
            torch.cuda.synchronize()
            time.sleep(30e-6)
        timing._clear_cache = like_kernelarc
        poisoned = median_us(timing.bench_gpu_time_with_cupti(lambda: run(*arguments), warmup=20, rep=n))
        timing._clear_cache = as_harness
        oracle = statistics.median(kernelarc_oracle.kernel_spans_ns(run, arguments, flush, n, 20)) / 1e3
        for _ in range(50):
            busy @ busy
        warm = median_us(timing.time_runnable(run, inputs, outputs, device, warmup=20, rep=n, return_mode="all"))
        print(f"| {workload.uuid} | {harness:.2f} us | {same:.2f} us | {synchronised:.2f} us | {poisoned:.2f} us | {oracle:.2f} us | {warm:.2f} us "
              f"| {harness / poisoned:.3f} | {sm_clock_mhz()} |", flush=True)


if __name__ == "__main__":
    main()
