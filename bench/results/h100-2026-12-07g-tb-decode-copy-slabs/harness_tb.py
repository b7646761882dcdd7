"""Temporary (session 36): the residual reference timed by the benchmark's own CUPTI function, per workload."""
import json, pathlib, statistics, sys
import torch
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "bench"))
import torch_baselines as tb
from sol_execbench.core.bench.timing import bench_gpu_time_with_cupti
out = pathlib.Path(sys.argv[1])
definition, workloads, reference = tb.load_task(pathlib.Path("tasks") / sys.argv[2])
tb.pin_precision()
rows = {}
for workload in workloads:
    args = tb.make_inputs(definition, workload, torch.Generator(device="cuda").manual_seed(1))
    with torch.inference_mode():
        times = bench_gpu_time_with_cupti(lambda: reference(*args), warmup=3, rep=20)
    rows[workload["uuid"]] = statistics.median(times)
    print(workload["uuid"], f"{rows[workload['uuid']] * 1e3:.2f} us", flush=True)
out.write_text(json.dumps(rows, indent=1))
