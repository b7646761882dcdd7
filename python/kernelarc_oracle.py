#!/usr/bin/python3
"""The reference oracle: runs a task's PyTorch reference for the judge.

It speaks the judge's worker protocol (src/judge/worker.cpp), one JSON object per line over its standard
streams, so the judge drives it as it drives `kernelarc worker`: "map" a shared-memory file, "bind" the
inputs' and outputs' dtypes and shapes, "load" the reference, "call" it on tensors at offsets of the mapped
file. Tensors never cross as text: they are views of the shared file. Timing, comparison and verdicts stay
in the C++ judge. Any error is a reply with the Python traceback; the judge makes it INVALID_REFERENCE.

On a GPU (--device cuda:N) the reference runs there, as the benchmark runs it: the inputs are copied from the
shared file to the device and the outputs back. bench/torch_baselines.py times torch with this module's functions.

Usage (by the judge): kernelarc_oracle.py worker --device cpu|cuda:N
"""

import json
import mmap
import os
import sys
import time
import traceback
import types

PROTOCOL = 1  # kWorkerProtocolVersion in src/judge/worker.h

DTYPE_NAMES = {
    "float64": "float64", "float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "int64": "int64", "int32": "int32", "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
}


FLUSH_KERNEL = "FillFunctor"  # the kernel of flush.fill_(): it separates one call's kernels from the next


class OracleError(Exception):
    """A problem with the reference or its use, described for the verdict."""


def pin_precision():
    """The reference computes in the task's own precision, as the candidate is judged: no TF32 behind an fp32 matmul or
    convolution (an asymmetric precision baseline is one of the judge's hack classes). Returns what was set, for the record."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    return {"cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32, "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
            "float32_matmul_precision": torch.get_float32_matmul_precision()}


def kernel_spans_ns(function, arguments, flush, iterations, warmup):
    """Each call's span on the device (its first kernel's start to its last kernel's end, from the profiler's CUPTI
    records), each call after flush.fill_(): as the judge times a candidate, host launch overhead not counted."""
    import torch
    for _ in range(warmup):
        function(*arguments)
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        for _ in range(iterations):
            flush.fill_(1.0)
            function(*arguments)
        torch.cuda.synchronize()
    kernels = sorted((event.time_range.start, event.time_range.end, event.name) for event in profile.events()
                     if event.device_type == torch.autograd.DeviceType.CUDA)
    spans, group = [], None
    for start, end, name in kernels:
        if FLUSH_KERNEL in name:
            if group:
                spans.append(group[1] - group[0])
            group = None
        elif group is None:
            group = [start, end]
        else:
            group[1] = max(group[1], end)
    if group:
        spans.append(group[1] - group[0])
    return [span * 1e3 for span in spans]  # us -> ns


def event_times_ns(function, arguments, flush, iterations, warmup):
    """Each call between two CUDA events, after flush.fill_(): launch overhead included."""
    import torch
    for _ in range(warmup):
        function(*arguments)
    times = []
    for _ in range(iterations):
        flush.fill_(1.0)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        function(*arguments)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e6)  # ms -> ns
    return times


def device_times_ns(function, arguments, flush, iterations, warmup):
    """(samples in ns, how they were taken): kernel spans where the profiler records them, CUDA events otherwise."""
    try:
        spans = kernel_spans_ns(function, arguments, flush, iterations, warmup)
    except (AttributeError, RuntimeError) as error:  # a torch whose profiler records differ: said, then events
        print(f"kernelarc_oracle: profiler: {error}", file=sys.stderr)
        spans = []
    if len(spans) >= max(iterations // 2, 1):
        return spans, "kernel span (profiler)"
    return event_times_ns(function, arguments, flush, iterations, warmup), "CUDA events (the profiler saw no kernels)"


def torch_dtype(torch, name):
    attribute = DTYPE_NAMES.get(name)
    dtype = getattr(torch, attribute, None) if attribute else None
    if dtype is None:
        raise OracleError(f"this torch ({torch.__version__}) has no dtype {name}")
    return dtype


class Oracle:
    def __init__(self, device):
        self.device = device
        self.mapped = None
        self.inputs = []   # [(dtype name, shape, scalar)]
        self.outputs = []
        self.run = None
        self.module = None
        try:
            import torch  # after the streams are private: an import that prints must not corrupt the protocol
        except ImportError as error:
            raise OracleError(f"PyTorch cannot be imported by {sys.executable} ({error}); on Debian: apt install "
                              "python3-torch, or set KERNELARC_PYTHON to an interpreter that has it") from None
        self.torch = torch
        self.gpu = device.startswith("cuda")
        if self.gpu:
            if not torch.cuda.is_available():
                raise OracleError(f"this torch ({torch.__version__}, CUDA {torch.version.cuda}) sees no CUDA device")
            torch.cuda.set_device(torch.device(device))
        pin_precision()

    def handle(self, op, request):
        if op == "hello":
            return {"ok": True, "pid": os.getpid(), "protocol": PROTOCOL, "device": self.device,
                    "torch": self.torch.__version__}
        if op in ("noop", "flush", "upload", "download"):
            return {"ok": True}  # the shared file is the reference's memory; nothing to flush for an untimed call
        if op == "map":
            return self.map(request["file"], int(request["bytes"]))
        if op == "bind":
            self.inputs = [self.layout(item) for item in request["inputs"]]
            self.outputs = [self.layout(item) for item in request["outputs"]]
            return {"ok": True}
        if op == "load":
            return self.load(request["python"], request.get("entry", "run"))
        if op == "call":
            return self.call(request)
        if op == "time":
            return self.time(request)
        if op == "inputs":
            return self.custom_inputs(request)
        raise OracleError(f'unknown op "{op}"')

    @staticmethod
    def layout(item):
        return (item["dtype"], [int(extent) for extent in item["shape"]], bool(item.get("scalar", False)))

    def map(self, path, size):
        if self.mapped is not None:
            try:
                self.mapped.close()
            except BufferError:  # a tensor still views it: the collector unmaps it later
                pass
        with open(path, "r+b") as file:
            self.mapped = mmap.mmap(file.fileno(), size)
        return {"ok": True}

    def load(self, path, entry):
        with open(path, encoding="utf-8") as file:
            source = file.read()
        # A module of its own, importable by name: torch.compile looks the reference's globals up through sys.modules.
        module = types.ModuleType("kernelarc_reference")
        module.__file__ = path
        sys.modules[module.__name__] = module
        exec(compile(source, path, "exec"), module.__dict__)
        function = getattr(module, entry, None)
        if not callable(function):
            raise OracleError(f"the reference defines no function {entry}(...)")
        self.run = function
        self.module = module
        return {"ok": True}

    def custom_inputs(self, request):
        """SOL-ExecBench's custom inputs: the reference's own function, given the workload's axes and scalar inputs and the
        device, seeded, returns a dict of tensors by input name; each asked for is checked and written to the shared file."""
        torch = self.torch
        if self.run is None or self.mapped is None:
            raise OracleError("custom inputs before load or map")
        entry = request["entry"]
        function = getattr(self.module, entry, None)
        if not callable(function):
            raise OracleError(f"the reference defines no function {entry}(axes_and_scalars, device) for the custom inputs")
        torch.manual_seed(int(request["seed"]))
        made = function(dict(request["axes_and_scalars"]), self.device)
        if not isinstance(made, dict):
            raise OracleError(f"{entry} returned {type(made).__name__}, not a dict of tensors by input name")
        for item in request["tensors"]:
            name, layout = item["name"], self.inputs[int(item["index"])]
            if name not in made:
                raise OracleError(f"{entry} made no input {name} (it made: {', '.join(sorted(made)) or 'nothing'})")
            value = torch.as_tensor(made[name])
            target = self.tensor(layout, int(item["offset"]))
            if list(value.shape) != list(target.shape) or value.dtype != target.dtype:
                raise OracleError(f"{entry} made {name} as {value.dtype} {list(value.shape)}; the definition says "
                                  f"{layout[0]} {list(target.shape)}")
            target.copy_(value.cpu())
        return {"ok": True}

    def tensor(self, layout, offset):
        torch = self.torch
        dtype_name, shape, _ = layout
        dtype = torch_dtype(torch, dtype_name)
        count = 1
        for extent in shape:
            count *= extent
        if count == 0:
            return torch.empty(shape, dtype=dtype)
        flat = torch.frombuffer(self.mapped, dtype=dtype, count=count, offset=offset)
        return flat.view(shape)

    def arguments(self, request):
        if self.run is None:
            raise OracleError("call before load")
        if self.mapped is None:
            raise OracleError("call before map")
        arguments = []
        for layout, offset in zip(self.inputs, request["inputs"]):
            tensor = self.tensor(layout, int(offset))
            # A plain scalar (shape null in the definition) is a Python number, as the reference expects.
            arguments.append(tensor.item() if layout[2] else tensor.to(self.device) if self.gpu else tensor)
        return arguments

    def time(self, request):
        """T_b as SOL-ExecBench defines it: the reference timed in eager mode and, where this torch has it, under
        torch.compile; each call after a write of flush_bytes (the judge's cache flush), timed in this process."""
        torch = self.torch
        arguments = self.arguments(request)
        flush_bytes = int(request.get("flush_bytes", 0))
        if self.gpu:  # as the GPU worker flushes: at least twice the device's L2
            flush_bytes = max(flush_bytes, 2 * torch.cuda.get_device_properties(self.device).L2_cache_size)
        flush = torch.zeros(max(flush_bytes // 4, 1), dtype=torch.float32, device=self.device if self.gpu else "cpu")
        warmup, iterations = int(request.get("warmup", 10)), int(request.get("iterations", 50))
        timer = "host clock"

        def host_times_ns(function):
            for _ in range(warmup):
                function(*arguments)
            taken = []
            for _ in range(iterations):
                flush.add_(1.0)
                start = time.perf_counter_ns()
                function(*arguments)
                taken.append(float(time.perf_counter_ns() - start))
            return taken

        def samples(function):
            nonlocal timer
            with torch.no_grad():
                if not self.gpu:
                    return host_times_ns(function)
                taken, timer = device_times_ns(function, arguments, flush, iterations, warmup)
                return taken

        # On the CPU, what calling any Python function with these arguments costs here, as the judge takes its own
        # per-call cost off a candidate's samples; torch's dispatch stays in, since that is what eager mode costs. Kernel
        # spans on a GPU hold no host time.
        reply = {"ok": True, "torch": torch.__version__, "eager_ns": samples(self.run), "compile_ns": None}
        reply["call_overhead_ns"] = min(samples(lambda *_: None)) if not self.gpu or timer.startswith("CUDA events") else 0.0
        reply["timer"] = timer
        if not hasattr(torch, "compile"):
            reply["compile_why"] = f"torch {torch.__version__} has no torch.compile"
        else:
            try:
                torch._dynamo.reset()  # past its recompile limit (8 shapes) torch.compile silently falls back to eager
                reply["compile_ns"] = samples(torch.compile(self.run, dynamic=False))
            except Exception as error:  # a reference torch.compile cannot trace: eager stands alone, and the reason is kept
                reply["compile_why"] = f"torch.compile failed: {type(error).__name__}: {str(error)[:200]}"
        return reply

    def call(self, request):
        torch = self.torch
        arguments = self.arguments(request)
        outputs = [self.tensor(layout, int(offset)) for layout, offset in zip(self.outputs, request["outputs"])]
        start = time.perf_counter_ns()
        with torch.no_grad():
            result = self.run(*arguments)
        if self.gpu:
            torch.cuda.synchronize()
        elapsed = time.perf_counter_ns() - start
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(results) != len(outputs):
            raise OracleError(f"the reference returned {len(results)} output(s); the definition has {len(outputs)}")
        for index, (value, output, layout) in enumerate(zip(results, outputs, self.outputs)):
            value = torch.as_tensor(value)
            if list(value.shape) != list(output.shape):
                raise OracleError(f"output {index}: the reference returned shape {list(value.shape)}, "
                                      f"the definition says {list(output.shape)}")
            if value.dtype != output.dtype:
                raise OracleError(f"output {index}: the reference returned {value.dtype}, the definition says "
                                      f"{layout[0]}")
            output.copy_(value.cpu() if self.gpu else value)
        return {"ok": True, "rc": 0, "ns": float(elapsed), "metadata": ""}


def open_protocol_streams():
    """The protocol moves to private descriptors; stdout then goes to stderr (the log), stdin reads nothing."""
    protocol_in = os.fdopen(os.dup(0), "rb", buffering=0)
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return protocol_in, protocol_out


def send(stream, reply):
    stream.write((json.dumps(reply) + "\n").encode())


def serve(device):
    protocol_in, protocol_out = open_protocol_streams()
    oracle = None
    for line in protocol_in:
        sequence = None
        try:
            request = json.loads(line)
            sequence = request.get("seq") if isinstance(request, dict) else None
            op = request["op"]
            if op == "quit":
                send(protocol_out, {"ok": True, "seq": sequence})
                return 0
            if oracle is None:
                oracle = Oracle(device)
            reply = oracle.handle(op, request)
        except OracleError as error:
            reply = {"ok": False, "error": str(error)}
        except Exception:  # the reference's own errors: the last lines of the traceback say what and where
            reply = {"ok": False, "error": traceback.format_exc(limit=-3).strip()}
        if sequence is not None:
            reply["seq"] = sequence
        send(protocol_out, reply)
    return 0


def main(argv):
    if len(argv) != 4 or argv[1] != "worker" or argv[2] != "--device":
        print("usage: kernelarc_oracle.py worker --device cpu|cuda:N", file=sys.stderr)
        return 2
    if argv[3] != "cpu" and not (argv[3].startswith("cuda:") and argv[3][5:].isdigit()):
        print(f"kernelarc_oracle.py: unknown device {argv[3]} (cpu or cuda:N)", file=sys.stderr)
        return 2
    return serve(argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
