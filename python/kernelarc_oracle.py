#!/usr/bin/python3
"""The reference oracle: runs a task's PyTorch reference for the judge.

It speaks the judge's worker protocol (docs/WORKER_PROTOCOL.md), one JSON object per line over its standard
streams, so the judge drives it as it drives `kernelarc worker`: "map" a shared-memory file, "bind" the
inputs' and outputs' dtypes and shapes, "load" the reference, "call" it on tensors at offsets of the mapped
file. Tensors never cross as text: they are views of the shared file. Timing, comparison and verdicts stay
in the C++ judge. Any error is a reply with the Python traceback; the judge makes it INVALID_REFERENCE.

On a GPU (--device cuda:N) the reference runs there, as the benchmark runs it: the inputs are copied from the
shared file to the device and the outputs back. bench/torch_baselines.py times torch with this module's functions.

With --role candidate the same process judges a SOL-ExecBench solution instead (class Candidate below): a Python
solution imported from the candidate's private folder, or C++/CUDA sources built there by torch's extension loader,
called as the benchmark's harness calls it (destination-passing style or returned outputs), behind the judge's sandbox
(raised through libkernelarc_sandbox.so before the solution is loaded), answering the native worker's protocol: the
judge's poison, guard bytes, rounds, re-checks and timing apply unchanged.

Usage (by the judge): kernelarc_oracle.py [--role reference|candidate] worker --device cpu|cuda:N
"""

import ctypes
import importlib
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


def call_spans(kernels):
    """Each call's span from (start, end, name) kernel records sorted by start: a call's kernels are those after a flush
    kernel up to the next one; kernels before the first flush belong to no call."""
    spans, group, flushed = [], None, False
    for start, end, name in kernels:
        if FLUSH_KERNEL in name:
            if group:
                spans.append(group[1] - group[0])
            group, flushed = None, True
        elif not flushed:
            continue
        elif group is None:
            group = [start, end]
        else:
            group[1] = max(group[1], end)
    if group:
        spans.append(group[1] - group[0])
    return spans


def kernel_spans_ns(function, arguments, flush, iterations, warmup):
    """Each call's span on the device (its first kernel's start to its last kernel's end, from the profiler's CUPTI
    records), each call after flush.fill_() and followed by a synchronise, as the benchmark's harness times T_b: the host
    launches a call's kernels while the flush runs, and a launch gap inside a call counts only where the host is slower
    than the call's own kernels. Without the synchronise a host slower than flush and call together (the profiler's CPU
    records make it so for small products) fell further behind each call, and the gaps grew with the host's load."""
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
    return [span * 1e3 for span in call_spans(kernels)]  # us -> ns


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


# The benchmark's language families (NVIDIA/SOL-ExecBench core/data/solution.py); the judge has checked the spec.
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def interpreter_paths():
    """What this interpreter reads to import anything: every folder on sys.path that exists (its standard library and
    site-packages), its headers and its library folder; not its whole prefix, which is /usr for Debian's python3."""
    import sysconfig
    installed = [sysconfig.get_paths().get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib", "include", "platinclude")]
    # the headers and the library a JIT's launcher compiles against (Triton builds one with the system's C compiler)
    installed.append(sysconfig.get_config_var("LIBDIR"))
    paths = []
    for path in [*sys.path, *installed]:
        if path and os.path.isdir(path):
            path = os.path.realpath(path)
            if path not in paths:
                paths.append(path)
    return paths


def solution_error(error):
    """What the solution raised, said first, then where: the last frames of its traceback outside this file."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename != __file__][-3:]
    where = "; ".join(f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}" for frame in frames)
    return OracleError(f"the solution raised {type(error).__name__}: {error}" + (f" (at {where})" if where else ""))


class Candidate(Oracle):
    """The candidate role: a solution's entry point judged like a native candidate's.

    Inputs and outputs are views of the shared file on the CPU; on a GPU they are views of one device copy of it, which
    upload, download and copy move ranges of, and the outputs are poisoned there before a call that asks for it. The
    function is called as the benchmark's harness calls it: fn(*inputs, *outputs) in destination-passing style, else
    fn(*inputs) returning a tensor, a number, a tuple or list, or a dict by output name, copied into the outputs after
    the call (outside its time), with a wrong shape or dtype reported as the native worker reports a changed tensor.
    A call that follows a flush is a timed one: on a GPU its sample is the span of the device work the profiler saw
    (the first record's start to the last one's end, the device synchronised inside), as the oracle times T_b."""

    def __init__(self, device):
        super().__init__(device)
        self.function = None
        self.dps = True
        self.names = []
        self.device_buffer = None   # GPU: the shared file's copy on the device
        self.flush_buffer = None
        self.flushes = 0
        self.timed_next = False     # the last request was a flush: the next call is a timed one
        self.profiler_works = False
        self.sandbox_library = None  # libkernelarc_sandbox.so once the walls are up
        self.load_failure = None     # why the solution did not load, said again to every later load
        # Imported before the walls: finding CUDA_HOME at import runs `which nvcc` in a child process.
        import torch.utils.cpp_extension  # noqa: F401
        if self.gpu:
            torch = self.torch
            torch.zeros(1, device=self.device).add_(1)  # the context, before the walls (as the native GPU worker)
            # The profiler's first start loads CUPTI: done here, outside the walls; it must see a kernel to be trusted.
            try:
                _, records, kernels = self.profiled(lambda: torch.ones(1024, device=self.device).mul_(2))
                self.profiler_works = records > 0 and kernels > 0
            except Exception as error:  # said in the log; the calls are then timed with events
                print(f"kernelarc_oracle: the profiler does not work here: {error}", file=sys.stderr)

    def handle(self, op, request):
        if op == "hello":
            return {"ok": True, "pid": os.getpid(), "protocol": PROTOCOL, "device": self.device, "role": "candidate",
                    "torch": self.torch.__version__}
        if op == "noop":
            return {"ok": True}
        if op == "sandbox":
            return self.sandbox(request)
        if op == "map":
            reply = self.map(request["file"], int(request["bytes"]))
            if self.gpu:
                self.device_buffer = None
                self.torch.cuda.empty_cache()
                self.device_buffer = self.torch.empty(int(request["bytes"]), dtype=self.torch.uint8, device=self.device)
            return reply
        if op == "bind":
            self.inputs = [self.layout(item) for item in request["inputs"]]
            self.outputs = [self.layout(item) for item in request["outputs"]]
            self.names = [item.get("name", f"output{index}") for index, item in enumerate(request["outputs"])]
            return {"ok": True}
        if op == "load":
            if self.load_failure is not None:  # loaded again after a failure (the next workload): the same failure, not a second build
                raise OracleError(self.load_failure)
            try:
                return self.load_solution(request["solution"])
            except OracleError as error:
                self.load_failure = str(error)
                raise
            except Exception as error:  # an import that raises: said as the solution's error
                self.load_failure = str(solution_error(error))
                raise OracleError(self.load_failure) from None
        if op in ("upload", "download", "copy"):
            return self.move(op, request["ranges"])
        if op == "flush":
            return self.flush(int(request.get("bytes", 0)))
        if op == "call":
            return self.call_candidate(request)
        raise OracleError(f'unknown op "{op}" for a candidate')

    def sandbox(self, request):
        """The judge's walls (src/judge/sandbox.cpp), raised by its own code through ctypes, before the solution loads.
        The policy gains the interpreter's own folders, read-only (the standard library, site-packages)."""
        policy = dict(request["policy"])
        added = [path for path in interpreter_paths() if path not in policy.get("read_only", [])]
        policy["read_only"] = list(policy.get("read_only", [])) + added
        threads = len(os.listdir("/proc/self/task"))
        library = ctypes.CDLL(request["library"])
        library.kernelarc_enter_sandbox.restype = ctypes.c_void_p
        library.kernelarc_enter_sandbox.argtypes = [ctypes.c_char_p]
        library.kernelarc_free_report.argtypes = [ctypes.c_void_p]
        raw = library.kernelarc_enter_sandbox(json.dumps(policy).encode())
        report = json.loads(ctypes.string_at(raw).decode())
        library.kernelarc_free_report(raw)
        self.sandbox_library = library
        report["active"].append(f"python: {len(added)} folders of the interpreter read-only ({', '.join(added)})")
        if threads > 1:  # Landlock and seccomp hold for the calling thread and what it starts later
            report["unavailable"].append(f"{threads - 1} thread(s) started before the walls (the CUDA driver's) are outside Landlock "
                                         "and seccomp, as in the native GPU worker; the solution's code never runs on them")
        return {"ok": True, "sandbox": report}

    def load_solution(self, solution):
        """Imports the entry module from the candidate's folder (a Python solution), or builds the C++ and CUDA sources
        there into a torch extension (torch.utils.cpp_extension.load, as the benchmark's build_ext.py does) and imports
        that; keeps the entry function."""
        torch = self.torch
        folder = solution["folder"]
        self.dps = bool(solution.get("destination_passing_style", True))
        if solution["kind"] == "torch_extension":
            import torch.utils.cpp_extension as extension
            sources = sorted(os.path.join(folder, name) for name in os.listdir(folder)
                             if name.endswith(SOURCE_SUFFIXES) and os.path.isfile(os.path.join(folder, name)))
            cuda_cflags = list(solution.get("cuda_cflags", []))
            if self.gpu and not any("-gencode" in flag or "-arch" in flag for flag in cuda_cflags):
                # As the benchmark's packager: sm_100a for a B200 target, this GPU's own for LOCAL.
                targets = {target.upper() for target in solution.get("target_hardware", [])}
                major, minor = torch.cuda.get_device_capability(self.device)
                chosen = (["sm_100a"] if "B200" in targets else []) + ([f"sm_{major}{minor}"] if "LOCAL" in targets else [])
                chosen = list(dict.fromkeys(chosen))
                cuda_cflags = [f"-gencode=arch=compute_{sm[3:]},code={sm}" for sm in chosen] + cuda_cflags
            cutlass = os.environ.get("CUTLASS_DIR", "/usr/local/cutlass")
            try:
                module = extension.load(name="benchmark_kernel", sources=sources, extra_cflags=list(solution.get("cflags", [])),
                                        extra_cuda_cflags=cuda_cflags, extra_ldflags=list(solution.get("ld_flags", [])),
                                        extra_include_paths=[folder, f"{cutlass}/include", f"{cutlass}/tools/util/include"],
                                        build_directory=folder, verbose=False)
            except Exception as error:  # the compiler's output: a COMPILE_ERROR with it
                raise OracleError(f"building the torch extension failed: {str(error)[-4000:]}") from None
            if self.sandbox_library is not None:  # built: no new process from here on, as for a native candidate
                error = self.sandbox_library.kernelarc_forbid_child_processes()
                if error:
                    raise OracleError(f"the sandbox could not forbid child processes after the build: {os.strerror(error)}")
        else:
            # As the benchmark's driver: a Python solution may not build C++ at run time (that is a C++ language's build).
            import torch.utils.cpp_extension as extension

            def refused(*_, **__):
                raise RuntimeError("torch.utils.cpp_extension.load() and load_inline() are not permitted in a Python solution; "
                                   "use a C++ language (cuda_cpp, say) in the solution's spec")
            extension.load = extension.load_inline = refused
            sys.path.insert(0, folder)
            importlib.invalidate_caches()
            entry = solution["entry_file"]
            module = importlib.import_module(entry[:-len(".py")].replace("/", ".").replace(os.sep, "."))
        function = getattr(module, solution["entry_function"], None)
        if not callable(function):
            raise OracleError(f"{solution['entry_file']} defines no function {solution['entry_function']}")
        self.function = function
        self.module = module
        return {"ok": True}

    def view(self, layout, offset):
        """A tensor at a byte offset of the shared file (CPU) or of its device copy (GPU)."""
        if not self.gpu:
            return self.tensor(layout, offset)
        torch = self.torch
        dtype_name, shape, _ = layout
        dtype = torch_dtype(torch, dtype_name)
        count = 1
        for extent in shape:
            count *= extent
        if count == 0:
            return torch.empty(shape, dtype=dtype, device=self.device)
        size = count * torch.empty((), dtype=dtype).element_size()
        return self.device_buffer[offset:offset + size].view(dtype).view(shape)

    def move(self, op, ranges):
        if not self.gpu:  # the shared file is the candidate's memory: only a copy moves anything
            if op == "copy":
                for source, target, size in ranges:
                    self.mapped.move(int(target), int(source), int(size))
            return {"ok": True}
        torch = self.torch
        if self.device_buffer is None:
            raise OracleError(f"{op} before map")
        host = torch.frombuffer(self.mapped, dtype=torch.uint8)
        for item in ranges:
            if op == "copy":
                source, target, size = (int(value) for value in item)
                self.device_buffer[target:target + size].copy_(self.device_buffer[source:source + size])
            else:
                offset, size = int(item[0]), int(item[1])
                if op == "upload":
                    self.device_buffer[offset:offset + size].copy_(host[offset:offset + size])
                else:
                    host[offset:offset + size].copy_(self.device_buffer[offset:offset + size])
        torch.cuda.synchronize()
        return {"ok": True}

    def flush(self, size):
        """Evicts the candidate's data before a timed call: ordinary stores over `size` bytes (at least twice the L2 on a
        GPU), a new value each time. The next call is then a timed one."""
        torch = self.torch
        if self.gpu:
            size = max(size, 2 * torch.cuda.get_device_properties(self.device).L2_cache_size)
        words = max(size // 4, 1)
        if self.flush_buffer is None or self.flush_buffer.numel() != words:
            self.flush_buffer = torch.zeros(words, dtype=torch.float32, device=self.device if self.gpu else "cpu")
        self.flushes += 1
        if self.gpu:
            self.flush_buffer.fill_(float(self.flushes))
            torch.cuda.synchronize()
        else:
            self.flush_buffer.add_(1.0)
        self.timed_next = True
        return {"ok": True}

    def profiled(self, run):
        """run() under the profiler, the device synchronised inside: (its result, [(start_us, end_us, name)], kernels)."""
        torch = self.torch
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=activities) as profile:
            result = run()
            torch.cuda.synchronize()
        records = [(event.time_range.start, event.time_range.end, event.name) for event in profile.events()
                   if event.device_type == torch.autograd.DeviceType.CUDA]
        kernels = sum(1 for _, _, name in records if not name.startswith(("Memcpy", "Memset")))
        self.last_records = records
        return result, len(records), kernels

    def place(self, result):
        """Returned outputs (the benchmark's normalize_outputs) copied into the judge's outputs; a wrong count, shape or
        dtype is said as the native worker says a changed tensor ("shape: ...", "dtype: ...")."""
        torch = self.torch
        outputs = self.output_views
        if isinstance(result, dict):
            missing = [name for name in self.names if name not in result]
            if missing:
                return f"shape: returned no output {', '.join(missing)} (the dict has {', '.join(map(str, result)) or 'nothing'})"
            values = [result[name] for name in self.names]
        elif isinstance(result, (tuple, list)):
            values = list(result)
        else:
            values = [result]
        if len(values) != len(outputs):
            return f"shape: returned {len(values)} output(s); the definition has {len(outputs)}"
        for index, (value, output, layout) in enumerate(zip(values, outputs, self.outputs)):
            name = self.names[index]
            if not isinstance(value, torch.Tensor):
                try:
                    value = torch.tensor(value, dtype=output.dtype)
                except (TypeError, ValueError, RuntimeError) as error:
                    return f"dtype: output '{name}' is a {type(value).__name__}, not a tensor ({error})"
            if list(value.shape) != list(output.shape):
                return f"shape: output '{name}' has shape {list(value.shape)}, the definition says {list(output.shape)}"
            if value.dtype != output.dtype:
                return f"dtype: output '{name}' is {str(value.dtype).replace('torch.', '')}, the definition says {layout[0]}"
            output.copy_(value)
        return ""

    def call_candidate(self, request):
        torch = self.torch
        if self.mapped is None:
            raise OracleError("call before map")
        timed, self.timed_next = self.timed_next, False
        arguments = []
        for layout, offset in zip(self.inputs, request["inputs"]):
            tensor = self.view(layout, int(offset))
            arguments.append(tensor.item() if layout[2] else tensor)  # a plain scalar is a Python number
        self.output_views = [self.view(layout, int(offset)) for layout, offset in zip(self.outputs, request["outputs"])]
        if "poison" in request and self.gpu:
            for output in self.output_views:
                if output.numel():
                    output.view(-1).view(torch.uint8).fill_(int(request["poison"]))
            if timed and self.flush_buffer is not None:  # the poison's writes left the outputs in L2: flushed again, as the native worker does
                self.flushes += 1
                self.flush_buffer.fill_(float(self.flushes))
            torch.cuda.synchronize()
        if request.get("null"):
            return {"ok": True, "rc": 0, "ns": 0.0, "metadata": ""}
        if self.function is None:
            raise OracleError("call before load")
        function, outputs = self.function, self.output_views

        def run():
            if self.dps:
                function(*arguments, *outputs)
                return None
            return function(*arguments)

        try:
            return self.timed_or_plain(run, timed)
        except OracleError:
            raise
        except Exception as error:  # the solution's own error: a RUNTIME_ERROR that says it
            raise solution_error(error) from None

    def timed_or_plain(self, run, timed):
        torch = self.torch
        reply = {"ok": True, "rc": 0, "metadata": ""}
        if self.gpu and timed:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            if self.profiler_works:
                def between_events():
                    start.record()
                    value = run()
                    end.record()
                    return value
                result, records, kernels = self.profiled(between_events)
                spans = self.last_records
                reply["ns"] = (max(e for _, e, _ in spans) - min(s for s, _, _ in spans)) * 1e3 if spans else 0.0
                reply["records"], reply["kernels"], reply["timer"] = records, kernels, "kernel span (profiler)"
            else:
                torch.cuda.synchronize()
                start.record()
                result = run()
                end.record()
                reply["timer"] = "CUDA events"
            torch.cuda.synchronize()
            reply["events_ns"] = start.elapsed_time(end) * 1e6
            if not self.profiler_works:
                reply["ns"] = reply["events_ns"]
        else:
            began = time.perf_counter_ns()
            result = run()
            if self.gpu:
                torch.cuda.synchronize()
            reply["ns"] = float(time.perf_counter_ns() - began)
        if not self.dps:
            reply["metadata"] = self.place(result)
        if self.gpu:
            torch.cuda.synchronize()
        return reply


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


def serve(device, role="reference"):
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
                oracle = Candidate(device) if role == "candidate" else Oracle(device)
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
    role = "reference"
    if len(argv) > 2 and argv[1] == "--role":
        role = argv[2]
        argv = argv[:1] + argv[3:]
    if len(argv) != 4 or argv[1] != "worker" or argv[2] != "--device" or role not in ("reference", "candidate"):
        print("usage: kernelarc_oracle.py [--role reference|candidate] worker --device cpu|cuda:N", file=sys.stderr)
        return 2
    if argv[3] != "cpu" and not (argv[3].startswith("cuda:") and argv[3][5:].isdigit()):
        print(f"kernelarc_oracle.py: unknown device {argv[3]} (cpu or cuda:N)", file=sys.stderr)
        return 2
    return serve(argv[3], role)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
