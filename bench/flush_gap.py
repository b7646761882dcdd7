#!/usr/bin/env python3
"""Does the time between the L2 flush and the kernel, or a fresh address per call, change a kernel's measured time?

  PYTHONPATH=.sol-execbench/src:/tmp/site bench/flush_gap.py [--iterations 200]

The benchmark's harness zeroes a 2x-L2 buffer and launches the kernel right behind it on the same stream; KernelArc's
GPU worker synchronises after its flush, then launches. Same PyTorch kernels, timed by the harness's own CUPTI function
(bench_gpu_time_with_cupti), once as the harness does it and once with a synchronise after each flush. Prints one row
per kernel: the median of each and their ratio. A ratio well above 1 says the harness's numbers include the flush's
dirty lines being written back while the kernel runs. A second table: the harness's time_runnable (each call's inputs
at fresh addresses, from its ShiftingMemoryPoolAllocator) against the same inputs at the same addresses every call
(KernelArc's worker keeps a few input slots): a ratio above 1 says fresh addresses (cold TLBs) cost time. A third: the
harness's zero flush, a synchronise, then 0, 20 or 200 us idle before the call: a time falling with the idle gap says the
L2 writes the flush's dirty lines back while the next kernel runs (small kernels' 5-13% gap to KernelArc, 2026-12-07);
one rising with it says the clocks fall while the GPU idles (softmax's one-block rows, where KernelArc was 14% slower).
"""
import argparse
import statistics
import time

import torch
from sol_execbench.core.bench import timing


def kernels():
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(4096, 4096, **bf16)
    y = torch.randn(2048, 2048, **bf16)
    a, b = torch.randn(1024, 12288, **bf16), torch.randn(1024, 12288, **bf16)
    q = torch.randn(1024, 64, 8, 128, **bf16)
    small = torch.randn(16, 4096, **bf16)
    gate, up = torch.randn(32, 14336, **bf16), torch.randn(32, 14336, **bf16)
    long_row = torch.randn(1, 131072, device="cuda")
    softmax, mul, neg = (lambda t: torch.softmax(t, -1)), (lambda s, t: s * t), (lambda t: -t)
    return [  # (name, function of the inputs, inputs)
        ("softmax bf16 4096x4096 (32 MiB)", softmax, [x]),
        ("softmax bf16 2048x2048 (8 MiB)", softmax, [y]),
        ("mul bf16 1024x12288 (24 MiB in, 24 out)", mul, [a, b]),
        ("neg bf16 1024x64x8x128 (128 MiB in, 128 out)", neg, [q]),
        ("softmax bf16 16x4096 (128 KiB)", softmax, [small]),
        ("silu(gate) * up bf16 32x14336 (swiglu's small row: two kernels)", lambda g, u: torch.nn.functional.silu(g) * u, [gate, up]),
        ("softmax fp32 1x131072 (one block: one SM's clock and latency)", softmax, [long_row]),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    args = parser.parse_args()
    as_harness = timing._clear_cache

    def synchronised(cache):
        as_harness(cache)
        torch.cuda.synchronize()

    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, {args.iterations} timed calls each")
    print("| kernel | harness's protocol | with a synchronise after the flush | ratio |\n|---|---|---|---|")
    for name, fn, inputs in kernels():
        medians = []
        for clear in (as_harness, synchronised):
            timing._clear_cache = clear
            medians.append(statistics.median(timing.bench_gpu_time_with_cupti(lambda: fn(*inputs), warmup=20, rep=args.iterations)) * 1e3)
        timing._clear_cache = as_harness
        print(f"| {name} | {medians[0]:.2f} us | {medians[1]:.2f} us | {medians[0] / medians[1]:.3f} |", flush=True)
    # Table 2: one factor at a time between the harness's time_runnable and KernelArc's worker.
    print("\n| kernel | harness (time_runnable) | same addresses | copied in place each call | shifted, no copy "
          "| same, nonzero flush + sync + 200 us idle | harness / same |\n|---|---|---|---|---|---|---|")
    for name, fn, inputs in kernels():
        total = 20 + args.iterations
        fresh = timing.time_runnable(fn, inputs, [], "cuda:0", warmup=20, rep=args.iterations) * 1e3
        same = median_us(lambda: fn(*inputs), args.iterations)
        copies = [t.clone() for t in inputs]

        def copy_in_place():
            for target, source in zip(inputs, copies):
                target.copy_(source)
            return inputs
        in_place = median_us(lambda a: fn(*a), args.iterations, setup=copy_in_place)
        pools = [torch.empty(t.numel() + total * 128, dtype=t.dtype, device=t.device) for t in inputs]
        calls = iter(range(total))

        def shifted():
            k = next(calls)
            return [pool.narrow(0, k * 128, t.numel()).view(t.shape) for pool, t in zip(pools, inputs)]
        shifted_us = median_us(lambda a: fn(*a), args.iterations, setup=shifted)
        values = iter(range(1, 1 << 30))

        def like_kernelarc(cache):
            cache.fill_(next(values) % 251 + 1)
            torch.cuda.synchronize()
            time.sleep(200e-6)
        timing._clear_cache = like_kernelarc
        kernelarc_like = median_us(lambda: fn(*inputs), args.iterations)
        timing._clear_cache = as_harness
        print(f"| {name} | {fresh:.2f} us | {same:.2f} us | {in_place:.2f} us | {shifted_us:.2f} us | {kernelarc_like:.2f} us "
              f"| {fresh / same:.3f} |", flush=True)
    # Table 3: the harness's zero flush, then a synchronise and an idle gap before the call.
    gaps_us = (0, 20, 200)
    print("\n| kernel | " + " | ".join(f"zero flush + sync + {gap} us idle" for gap in gaps_us) + " | no gap / longest gap |\n"
          "|---|" + "---|" * (len(gaps_us) + 1))
    for name, fn, inputs in kernels():
        medians = []
        for gap in gaps_us:
            def flush_then_idle(cache, gap=gap):
                as_harness(cache)
                torch.cuda.synchronize()
                time.sleep(gap * 1e-6)
            timing._clear_cache = flush_then_idle
            medians.append(median_us(lambda: fn(*inputs), args.iterations))
        timing._clear_cache = as_harness
        print(f"| {name} | " + " | ".join(f"{m:.2f} us" for m in medians) + f" | {medians[0] / medians[-1]:.3f} |", flush=True)


def median_us(fn, iterations, setup=None):
    return statistics.median(timing.bench_gpu_time_with_cupti(fn, warmup=20, rep=iterations, setup=setup)) * 1e3

if __name__ == "__main__":
    main()
