#!/usr/bin/env python3
"""T_b for the SOL score: a task's PyTorch reference timed in eager mode and under torch.compile, per workload.

The time of one call is the span of its kernels on the device (first start to last end, from the profiler's CUPTI
records), as SOL-ExecBench times it, with the L2 flushed before every call: host launch gaps between a call's kernels
count, launch overhead before its first kernel does not. Writes, per task, OUT/TASK-torch.json (the times per workload
and how they were taken) and OUT/TASK-baseline.json (uuid -> T_b, the faster of eager and torch.compile, in ms:
`kernelarc run --baseline-file`).

torch.compile is timed a second time replayed from a CUDA graph (mode="reduce-overhead", the inputs marked static as a
server's fixed buffers are): no launch gaps at all. It is not part of T_b, which is the benchmark's; it is what a user who
serves with graphs compares against (bench/family_table.py's "with graphs" columns).

    python3 bench/torch_baselines.py OUT_DIR softmax add_rmsnorm matmul [--tasks-dir tasks] [--iterations 50]
        [--workloads uuid,uuid] [--no-compile] [--no-graphs]
"""
import argparse
import json
import math
import pathlib
import statistics
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from kernelarc_oracle import device_times_ns, pin_precision  # noqa: E402  the oracle's own timing, one implementation

DTYPES = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8, "bool": torch.bool}
DTYPES.update({name: getattr(torch, name) for name in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, name)})


def load_task(directory):
    definition = json.loads((directory / "definition.json").read_text())
    workloads = [json.loads(line) for line in (directory / "workload.jsonl").read_text().splitlines() if line.strip()]
    namespace = {}
    exec(compile(definition["reference"], f"{definition['name']}:reference", "exec"), namespace)
    return definition, workloads, namespace["run"]


def make_inputs(definition, workload, generator):
    axes = {name: axis["value"] for name, axis in definition["axes"].items() if axis["type"] == "const"}
    axes.update(workload["axes"])
    for name, axis in definition["axes"].items():
        if axis["type"] == "expr":
            axes[name] = int(eval(axis["expression"], {}, dict(axes)))
    args = []
    for name, spec in definition["inputs"].items():
        given = workload.get("inputs", {}).get(name, {"type": "random"})
        if given["type"] == "scalar":
            value = given["value"]
            args.append(value if spec["shape"] is None else torch.tensor(value, dtype=DTYPES[spec["dtype"]], device="cuda"))
            continue
        if given["type"] != "random":
            raise SystemExit(f"{definition['name']}/{workload['uuid']}: input kind {given['type']} is not supported here")
        shape = [axes[axis] for axis in (spec["shape"] or [])]
        dtype = DTYPES[spec["dtype"]]
        tensor = torch.randn(shape, generator=generator, device="cuda", dtype=torch.float32)
        if "scale" in name:  # dequantisation scales are positive, as the judge makes them
            tensor = tensor.abs() + 0.1
        args.append(tensor.to(dtype) if dtype.is_floating_point else tensor.abs().mul(16).to(dtype))
    return args


def measure(function, args, flush, iterations, warmup):
    samples, timer = device_times_ns(function, args, flush, iterations, warmup)
    return statistics.median(samples) / 1e6, timer  # ns -> ms


def compiled_with_graphs(reference, args):
    """torch.compile(mode="reduce-overhead") of the reference, and whether it fell back to no graph (a skip torch counts)."""
    torch._dynamo.reset()
    for arg in args:
        if isinstance(arg, torch.Tensor):
            torch._dynamo.mark_static_address(arg)  # no copy into the graph's own input buffers is timed
    compiled = torch.compile(reference, mode="reduce-overhead", dynamic=False)

    def step(*arguments):
        torch.compiler.cudagraph_mark_step_begin()  # each call a new replay: the last call's outputs are not kept
        return compiled(*arguments)

    counters = torch._dynamo.utils.counters["inductor"]
    skips = counters["cudagraph_skips"]
    for _ in range(3):  # compiled, warmed, then recorded: cudagraph trees record on a later call than the first
        step(*args)
    torch.cuda.synchronize()
    return step, counters["cudagraph_skips"] > skips


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("tasks", nargs="+")
    parser.add_argument("--tasks-dir", default="tasks")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--no-compile", action="store_true", help="eager only")
    parser.add_argument("--no-graphs", action="store_true", help="torch.compile not timed a second time from a CUDA graph")
    parser.add_argument("--workloads", help="only these workload uuids, comma-separated (default: every workload)")
    options = parser.parse_args()
    precision = pin_precision()
    out = pathlib.Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    properties = torch.cuda.get_device_properties(0)
    flush = torch.empty(2 * properties.L2_cache_size // 4 + 1, dtype=torch.float32, device="cuda")
    for name in options.tasks:
        definition, workloads, reference = load_task(pathlib.Path(options.tasks_dir) / name)
        if options.workloads:
            wanted = options.workloads.split(",")
            missing = sorted(set(wanted) - {w["uuid"] for w in workloads})
            if missing:
                parser.error(f"task {name} has no workload {', '.join(missing)}")
            workloads = [w for w in workloads if w["uuid"] in wanted]
        rows, baseline = [], {}
        for workload in workloads:
            generator = torch.Generator(device="cuda").manual_seed(1)
            args = make_inputs(definition, workload, generator)
            with torch.inference_mode():
                eager_ms, timer = measure(reference, args, flush, options.iterations, options.warmup)
                compiled_ms, compile_seconds = math.inf, 0.0
                if not options.no_compile:
                    torch._dynamo.reset()  # past its recompile limit torch.compile silently falls back to eager
                    compiled = torch.compile(reference, dynamic=False)
                    began = time.time()
                    compiled(*args)
                    compile_seconds = time.time() - began
                    compiled_ms, _ = measure(compiled, args, flush, options.iterations, options.warmup)
                graphs_ms, graphs_timer = None, None
                if not options.no_compile and not options.no_graphs:
                    try:  # T_b stands without it: a failure here is recorded, not fatal
                        graphed, skipped = compiled_with_graphs(reference, args)
                        graphs_ms, graphs_timer = measure(graphed, args, flush, options.iterations, options.warmup)
                        if skipped:  # torch ran it without a graph: the figure is torch.compile's again, said so
                            graphs_timer += "; cudagraphs skipped by torch"
                    except Exception as error:  # noqa: BLE001  any torch failure, said in the record
                        graphs_ms, graphs_timer = None, f"failed: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                    finally:
                        torch._dynamo.reset()  # the graphs' memory pool released before the next workload
            best = min(eager_ms, compiled_ms)
            baseline[workload["uuid"]] = best
            rows.append({"uuid": workload["uuid"], "axes": workload["axes"], "eager_ms": eager_ms,
                         "compile_ms": None if math.isinf(compiled_ms) else compiled_ms, "compile_graphs_ms": graphs_ms,
                         "baseline_ms": best, "timer": timer, "graphs_timer": graphs_timer,
                         "compile_seconds": round(compile_seconds, 1)})
            print(f"{name} {workload['uuid']}: eager {eager_ms * 1e3:.2f} us, compile "
                  f"{'-' if math.isinf(compiled_ms) else f'{compiled_ms * 1e3:.2f} us'}, with graphs "
                  f"{'-' if graphs_ms is None else f'{graphs_ms * 1e3:.2f} us ({graphs_timer})'} ({timer})", flush=True)
        record = {"task": name, "device": properties.name, "torch": torch.__version__, "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                  "iterations": options.iterations, "l2_flush_bytes": flush.numel() * 4, "precision": precision, "workloads": rows}
        (out / f"{name}-torch.json").write_text(json.dumps(record, indent=1) + "\n")
        (out / f"{name}-baseline.json").write_text(json.dumps(baseline, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
