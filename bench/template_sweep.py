#!/usr/bin/env python3
"""Times configurations of a task's kernel-only CUDA template directly on a GPU, without the judge: which knob values matter per workload.

Each configuration is compiled once as the judge compiles a kernel-only candidate (src/judge/cuda/cuda_compiler.cpp
build_kernel: NVRTC, --gpu-architecture=sm_90a --std=c++17 -lineinfo, the toolkit's include and include/cccl, -DKNOB=VALUE
per knob), loaded through CuPy and launched as src/judge/cuda/gpu_worker.cpp launch_kernel does: a device pointer per
input (a scalar as a pointer to a device value of its dtype), one per output, then every var axis in definition order as
a long long; grid, block and dynamic shared memory are the template's "launch" expressions over the workload's axes,
the knobs, num_sms (the GPU's SM count) and the launch's "let" bindings, evaluated in doubles as src/task/expression_evaluator.cpp does (Python's parser and a checked walk of its tree, never
eval) and held to CUDA's limits as src/judge/judge.cpp launch_request holds them.

Per workload (inputs from bench/torch_baselines.make_inputs, seed 1) and configuration: one launch into outputs filled
with 0xFF bytes (NaN for floats: an unwritten element is a bad one), compared with the PyTorch reference as
src/judge/comparison.cpp compares (both in float32, |a - b| > atol + rtol * |b| is bad, NaN/inf bad, the workload's
"tolerance" or atol = rtol = 1e-2 and 99% matched); timed by kernelarc_oracle.device_times_ns (the span of the call's
kernels, each call after flushing twice the L2, median over --iterations); compared again (a kernel that depends on its
outputs' previous contents, or races, shows there). With --compile the reference is also timed eager and under
torch.compile(dynamic=False); "speedup" is torch.compile's time over the configuration's (> 1: faster).

    python3 bench/template_sweep.py TASK_DIR CONFIGS.json [--template NAME] [--workloads uuid,uuid|all] [--iterations 30]
        [--warmup 5] [--compile] [--out result.json]
    python3 bench/template_sweep.py --self-test [--tasks-dir tasks]      # the non-GPU logic only (no torch, no CuPy)

CONFIGS.json: a list of {"name": str, "knobs": {KNOB: value}}, or the word `default`. A knob not given takes its first
(default) value; a knob given a list expands into one configuration per combination (NAME[KNOB=v,...]). A configuration
that violates a template constraint over knobs only (src/engine/brain.cpp knobs_allowed) is reported and skipped. A
build, launch or comparison error of one configuration is recorded and the sweep goes on; one that leaves the CUDA
context unusable ends it with exit code 2. --out is rewritten after every workload.
"""
import argparse
import ast
import contextlib
import itertools
import json
import math
import operator
import os
import pathlib
import re
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


# ------------------------------------------------------------------------------------------------------------------
# Expressions (src/task/expression.h's grammar), evaluated in doubles as src/task/expression_evaluator.cpp evaluates them

class ExpressionError(ValueError):
    def __init__(self, text, problem):
        super().__init__(f'expression "{str(text)[:200]}{"..." if len(str(text)) > 200 else ""}": {problem}')


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: math.pow}  # float // and % floor, as the C++
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
            ast.GtE: operator.ge}
_FUNCTIONS = {"min": (min, 2, math.inf), "max": (max, 2, math.inf), "ceil_div": (lambda a, b: -(-a // b), 2, 2),
              "floor": (math.floor, 1, 1), "ceil": (math.ceil, 1, 1), "abs": (abs, 1, 1), "sqrt": (math.sqrt, 1, 1),
              "log2": (math.log2, 1, 1)}  # (function, fewest and most arguments)


class Expression:
    """Parsed by Python's parser once &&, ||, ! and true/false are spelt the Python way, then checked node by node: numbers,
    names, + - * / // % **, unary + - not, and/or, one comparison (not chained) and the _FUNCTIONS with positional
    arguments; anything else is an ExpressionError. Comparisons and and/or/not give 1.0 or 0.0; and/or short-circuit."""

    def __init__(self, text):
        self.text = text
        if not isinstance(text, str) or len(text) > 4096 or re.search(r"[^ -~\s]", text):
            raise ExpressionError(text, "expected a string of at most 4096 printable ASCII characters")
        python = re.sub(r"!(?!=)", " not ", text.replace("&&", " and ").replace("||", " or "))
        python = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", " ".join(python.split())))
        try:
            self.tree = ast.parse(python, mode="eval").body
        except (SyntaxError, RecursionError, MemoryError) as error:
            raise ExpressionError(text, f"syntax error: {getattr(error, 'msg', 'nested too deeply')}") from None
        self.variables = sorted(self._check(self.tree))

    def _check(self, node, depth=0):
        """The names under the node; raises on anything outside the grammar."""
        if depth > 200:  # the evaluation recurses as deep
            raise ExpressionError(self.text, "nested deeper than 200 levels")
        if isinstance(node, ast.Name):
            return {node.id}
        if isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
            if node.value > sys.float_info.max:  # never negative: -1 is a UnaryOp
                raise ExpressionError(self.text, "a number is out of range")
            return set()
        if isinstance(node, ast.BoolOp):
            children = node.values
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            children = [node.left, node.right]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub, ast.Not)):
            children = [node.operand]
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            children = [node.left] + node.comparators
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
              and not node.keywords and _FUNCTIONS[node.func.id][1] <= len(node.args) <= _FUNCTIONS[node.func.id][2]):
            children = node.args
        else:
            raise ExpressionError(self.text, f"'{ast.unparse(node)}' is outside the grammar (numbers, names, + - * / // % "
                                  f"**, one comparison, and/or/not, {', '.join(_FUNCTIONS)} with the right argument count)")
        return set().union(*(self._check(child, depth + 1) for child in children))

    def evaluate(self, names, node=None):
        node = self.tree if node is None else node
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ExpressionError(self.text, f"unknown variable '{node.id}'")
            value = float(names[node.id])
        elif isinstance(node, ast.BoolOp):  # all/any over a generator: short-circuits
            test = all if isinstance(node.op, ast.And) else any
            value = float(test(self.evaluate(names, child) != 0.0 for child in node.values))
        elif isinstance(node, ast.UnaryOp):
            value = self.evaluate(names, node.operand)
            if not isinstance(node.op, ast.UAdd):
                value = float(value == 0.0) if isinstance(node.op, ast.Not) else -value
        elif isinstance(node, ast.Compare):
            left, right = self.evaluate(names, node.left), self.evaluate(names, node.comparators[0])
            value = float(_COMPARE[type(node.ops[0])](left, right))
        else:
            binary = isinstance(node, ast.BinOp)
            function = _BINARY[type(node.op)] if binary else _FUNCTIONS[node.func.id][0]
            operands = [self.evaluate(names, child) for child in ([node.left, node.right] if binary else node.args)]
            try:
                value = float(function(*operands))
            except ZeroDivisionError:
                raise ExpressionError(self.text, f"division by zero in '{ast.unparse(node)}'") from None
            except (ArithmeticError, ValueError) as error:  # pow, sqrt, log2 outside their domain or range
                raise ExpressionError(self.text, f"'{ast.unparse(node)}': {error}") from None
        if not math.isfinite(value):
            raise ExpressionError(self.text, f"'{ast.unparse(node)}' is not a finite number")
        return value

    def evaluate_integer(self, names):
        """As evaluate, but the value must be an exact integer within int64 range (launch geometry, axes)."""
        value = self.evaluate(names)
        if not value.is_integer() or not -2.0 ** 63 <= value < 2.0 ** 63:
            raise ExpressionError(self.text, f"value {value!r} is not an integer in the 64-bit range")
        return int(value)

    def evaluate_condition(self, names):
        return self.evaluate(names) != 0.0


# ------------------------------------------------------------------------------------------------------------------
# The task model (pure: json and expressions only)

def read_task(directory):
    """(definition, workloads) from the task folder, json only (bench/torch_baselines.load_task also runs the reference)."""
    directory = pathlib.Path(directory)
    definition = json.loads((directory / "definition.json").read_text())
    workloads = [json.loads(line) for line in (directory / "workload.jsonl").read_text().splitlines() if line.strip()]
    return definition, workloads


def kernel_templates(definition):
    return [t for t in definition.get("kernelarc", {}).get("templates", [])
            if t.get("device", "cpu") == "cuda" and t.get("form", "full") == "kernel"]


def select_template(definition, name=None):
    templates = kernel_templates(definition)
    if name is not None:
        chosen = [t for t in templates if t.get("name") == name]
        if not chosen:
            raise ValueError(f"{definition['name']} has no kernel-only CUDA template \"{name}\" "
                             f"(it has: {', '.join(t['name'] for t in templates) or 'none'})")
        return chosen[0]
    if len(templates) != 1:
        raise ValueError(f"{definition['name']} has {len(templates)} kernel-only CUDA templates "
                         f"({', '.join(t['name'] for t in templates)}): pick one with --template")
    return templates[0]


def knob_value(value):
    """A knob's value as the judge reads it: an integer, true/false as 1/0."""
    if isinstance(value, (bool, int)) or (isinstance(value, float) and value.is_integer()):
        return int(value)
    raise ValueError(f"expected an integer, got {value!r}")


def default_knobs(template):
    return {knob["name"]: knob_value(knob["values"][0]) for knob in template.get("knobs", [])}


def resolve_axes(definition, workload):
    """Every axis's value for a workload, as src/task/workload_resolution.cpp resolve_workload: const, var, then expr axes (in doubles)."""
    axes = {}
    for name, axis in definition["axes"].items():
        if axis["type"] == "const":
            axes[name] = float(axis["value"])
        elif axis["type"] == "var":
            if name not in workload["axes"]:
                raise ValueError(f"workload {workload['uuid']}: no value for var axis {name}")
            axes[name] = float(workload["axes"][name])
    pending = {name: Expression(axis["expression"]) for name, axis in definition["axes"].items() if axis["type"] == "expr"}
    while pending:
        ready = [name for name, expression in pending.items() if all(v in axes for v in expression.variables)]
        if not ready:
            raise ValueError(f"axes.{next(iter(pending))}: expression axes refer to each other in a cycle")
        for name in ready:
            value = pending.pop(name).evaluate_integer(axes)
            if value < 0:
                raise ValueError(f"workload {workload['uuid']}: axis {name} is {value}, expected >= 0")
            axes[name] = float(value)
    for text in definition.get("constraints", []):
        if not Expression(text).evaluate_condition(axes):
            raise ValueError(f"workload {workload['uuid']}: constraint \"{text}\" does not hold")
    return axes


def violated_constraints(template, knobs):
    """The template's constraints that the knobs break; those naming anything but knobs are skipped (engine/brain.cpp)."""
    names = {name: float(value) for name, value in knobs.items()}
    expressions = [Expression(text) for text in template.get("constraints", [])]
    return [e.text for e in expressions if set(e.variables) <= set(names) and not e.evaluate_condition(names)]


def expand_configs(template, raw):
    """[{name, knobs (every knob, the template's order), error or None, notes}] from the CONFIGS.json list."""
    if raw == "default":
        raw = [{"name": "default", "knobs": {}}]
    if not isinstance(raw, list):
        raise ValueError("CONFIGS.json: expected a list of {\"name\": ..., \"knobs\": {...}}")
    specs = {knob["name"]: knob for knob in template.get("knobs", [])}
    configs, seen = [], set()
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            configs.append({"name": f"#{index}", "knobs": {}, "error": f"expected an object, got {entry!r}", "notes": []})
            continue
        given = entry.get("knobs", {}) or {}
        name = str(entry.get("name") or ",".join(f"{k}={v}" for k, v in given.items()) or "default")
        error = None
        if not isinstance(given, dict):
            error, given = "\"knobs\" is not an object", {}
        unknown = [k for k in given if k not in specs]
        if unknown:
            error = f"unknown knob(s) {', '.join(unknown)} (the template's: {', '.join(specs)})"
        swept = [k for k, v in given.items() if isinstance(v, list)]
        for combination in itertools.product(*(v if k in swept else [v] for k, v in given.items())) if not error else [()]:
            knobs, notes, this_error = default_knobs(template), [], error
            try:
                for knob, value in zip(given, combination):
                    knobs[knob] = knob_value(value)
            except ValueError as problem:
                this_error = f"knob value: {problem}"
            this_name = f"{name}[" + ",".join(f"{k}={knobs.get(k)}" for k in swept) + "]" if swept else name
            this_name = f"{this_name}#{index}" if this_name in seen else this_name
            seen.add(this_name)
            if not this_error:
                notes = [f"{k}={knobs[k]} is outside the template's values {specs[k]['values']}" for k in given
                         if knobs[k] not in [knob_value(v) for v in specs[k]["values"]]]
                broken = violated_constraints(template, knobs)
                if broken:
                    this_error = "violates " + "; ".join(f"\"{text}\"" for text in broken)
            configs.append({"name": this_name, "knobs": knobs, "error": this_error, "notes": notes})
    return configs


DEFAULT_NUM_SMS = 132  # src/task/task.h kDefaultNumSms: num_sms where no device says it


def launch_names(launch, axes, knobs, num_sms=DEFAULT_NUM_SMS):
    """The names a launch's expressions see (src/task/launch_rule.cpp launch_bindings): the axes, the knobs, num_sms, then the
    "let" bindings in order, each evaluated over the names before it. Raises ValueError for a name used before it is
    bound, a binding shadowing a name, or a binding that does not evaluate."""
    names = dict(axes, **{name: float(value) for name, value in knobs.items()})
    if "num_sms" in names:
        raise ValueError("an axis or knob is named \"num_sms\", the device's SM count in launch rules")
    names["num_sms"] = float(num_sms)
    for name, text in launch.get("let", {}).items():
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or name in names:
            raise ValueError(f"let: \"{name}\" is not an identifier or is already a name")
        expression = Expression(text)
        unknown = [v for v in expression.variables if v not in names]
        if unknown:
            raise ValueError(f"let {name}: unknown name or one bound later: {', '.join(unknown)}")
        try:
            names[name] = expression.evaluate(names)
        except ExpressionError as error:
            raise ValueError(f"launch binding \"{name}\": {error}") from error
    return names


def launch_geometry(template, definition, axes, knobs, num_sms=DEFAULT_NUM_SMS):
    """The judge's launch for a workload (src/judge/judge.cpp launch_request): grid, block, shared bytes, the long long
    arguments (every var axis, in definition order) and the kernel's name. Raises ValueError as the judge refuses."""
    launch = template["launch"]
    names = launch_names(launch, axes, knobs, num_sms)

    def dimensions(texts, limits, what):
        if not 1 <= len(texts) <= 3:
            raise ValueError(f"launch.{what}: expected 1 to 3 expressions")
        values = []
        for text, limit in zip(texts, limits):
            value = Expression(text).evaluate_integer(names)
            if value < 1 or value > limit:
                raise ValueError(f"\"{text}\" is {value} (expected 1 to {limit})")
            values.append(value)
        return values

    block = dimensions(launch["block"], (1024, 1024, 64), "block")
    threads = math.prod(block)
    if threads > 1024:
        raise ValueError(f"the block has {threads} threads (at most 1024)")
    grid = dimensions(launch["grid"], (2147483647, 65535, 65535), "grid")
    shared = Expression(launch["shared_bytes"]).evaluate_integer(names) if "shared_bytes" in launch else 0
    if shared < 0 or shared > 0xFFFFFFFF:
        raise ValueError(f"shared_bytes is {shared}")
    arguments = [int(axes[name]) for name, axis in definition["axes"].items() if axis["type"] == "var"]
    return {"kernel": launch.get("kernel", ""), "grid": grid, "block": block, "shared_bytes": shared, "arguments": arguments}


def tolerance_of(workload):
    """The workload's tolerance with the judge's defaults (src/task/task.h Tolerance)."""
    given = workload.get("tolerance") or {}
    return {"max_atol": float(given.get("max_atol", 1e-2)), "max_rtol": float(given.get("max_rtol", 1e-2)),
            "required_matched_ratio": float(given.get("required_matched_ratio", 0.99)),
            "max_error_cap": None if given.get("max_error_cap") is None else float(given["max_error_cap"]),
            "allow_negative_inf": bool(given.get("allow_negative_inf", False))}


def toolkit_includes(cuda_home=None):
    """-I flags as the judge's (the toolkit's include and include/cccl), for the first toolkit found that has them (the
    pip-installed toolkit's headers last); none: NVRTC's built-in headers only."""
    homes = [cuda_home] if cuda_home else [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    wheels = []
    with contextlib.suppress(Exception):
        import cupy  # its own idea of the toolkit
        homes += [] if cuda_home else [cupy.cuda.get_cuda_path()]
    with contextlib.suppress(Exception):  # nvidia-cuda-runtime wheels
        import nvidia
        wheels = [h.parent for base in nvidia.__path__ for h in sorted(pathlib.Path(base).glob("*/include/cuda_runtime.h"))]
    for include in [pathlib.Path(home) / "include" for home in homes if home] + wheels:
        if (include / "cuda_runtime.h").exists():
            return [f"-I{include}"] + ([f"-I{include / 'cccl'}"] if (include / "cccl").is_dir() else [])
    return []


def compile_flags(knobs, arch, includes, extra=()):
    """NVRTC options, in the judge's order (cuda_compiler.cpp build_kernel); the -D defines sorted by name, as its std::map."""
    # The repository's include/ stands for the judge's folder of embedded headers (kernelarc/device.cuh).
    return ([f"--gpu-architecture={arch}", "--std=c++17", "-lineinfo", "--ptxas-options=-v"] + list(includes)
            + [f"-I{ROOT / 'include'}"] + list(extra)
            + [f"-D{name}={value}" for name, value in sorted(knobs.items())])


def ptxas_resources(log):
    """Registers, spills and static shared memory from the ptxas -v report in NVRTC's log (the last kernel's)."""
    patterns = {"registers": r"Used (\d+) registers", "spill_store_bytes": r"(\d+) bytes spill stores",
                "spill_load_bytes": r"(\d+) bytes spill loads", "static_shared_bytes": r"Used .*?(\d+) bytes smem"}
    return {key: int(re.findall(pattern, log or "")[-1]) for key, pattern in patterns.items()
            if re.search(pattern, log or "")}


def geomean(values):
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# ------------------------------------------------------------------------------------------------------------------
# The GPU side (torch, CuPy): imported only here

def torch_dtype(torch, name):
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"this torch has no dtype {name}")
    return dtype


class Built:
    """One configuration's compiled kernel (or why it has none); shared_set: the dynamic shared memory the function is
    allowed (cuFuncSetAttribute), past 48 KiB."""

    def __init__(self, error=None):
        self.function = self.module = None
        self.error, self.log, self.seconds, self.resources, self.shared_set = error, "", 0.0, {}, 0


def nvrtc_module():
    try:
        from cupy_backends.cuda.libs import nvrtc
    except ImportError:
        from cupy.cuda import nvrtc
    return nvrtc


def build_kernel(source, flags, kernel, file_name):
    """NVRTC to a cubin with exactly these flags (not cupy.RawModule: CuPy adds its own -arch and -ftz=true), loaded by CuPy."""
    from cupy.cuda import driver
    from cupy.cuda import function as cupy_function
    nvrtc = nvrtc_module()
    built = Built()
    began = time.time()
    program = nvrtc.createProgram(source, file_name, [], [])
    try:
        try:
            nvrtc.compileProgram(program, flags)
        except Exception as error:
            with contextlib.suppress(Exception):
                built.log = nvrtc.getProgramLog(program)
            built.error = f"NVRTC: {error}\n{built.log}".strip()
            return built
        built.log = nvrtc.getProgramLog(program)
        cubin = nvrtc.getCUBIN(program)
    finally:
        nvrtc.destroyProgram(program)
    built.seconds = time.time() - began
    built.resources = ptxas_resources(built.log)
    try:
        built.module = cupy_function.Module()
        built.module.load(bytes(cubin))
        built.function = built.module.get_function(kernel)
    except Exception as error:
        built.error = f"load: {type(error).__name__}: {error}"
        built.function = None
        return built
    for key, attribute, number in (("registers", "CU_FUNC_ATTRIBUTE_NUM_REGS", 4),
                                   ("local_bytes", "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES", 3)):
        with contextlib.suppress(Exception):
            built.resources.setdefault(key, driver.funcGetAttribute(getattr(driver, attribute, number), built.function.ptr))
    return built


def allow_shared(built, shared_bytes):
    """As the judge's bind: past 48 KiB of dynamic shared memory the function must be allowed it."""
    if shared_bytes > 48 * 1024 and shared_bytes > built.shared_set:
        from cupy.cuda import driver
        attribute = getattr(driver, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 8)
        driver.funcSetAttribute(built.function.ptr, attribute, int(shared_bytes))
        built.shared_set = shared_bytes


def kernel_parameters(torch, definition, args, outputs):
    """The launch's pointers, as gpu_worker.cpp launch_kernel: every input (a scalar as a pointer to a device value of its
    dtype), then every output. Returns (pointers as numpy.uint64, the tensors they point into, kept alive)."""
    import numpy
    keep, pointers = [], []
    for (name, spec), value in zip(definition["inputs"].items(), args):
        if not isinstance(value, torch.Tensor):
            value = torch.tensor([value], dtype=torch_dtype(torch, spec["dtype"]), device="cuda")
        if not value.is_contiguous():
            raise ValueError(f"input {name} is not contiguous")
        keep.append(value)
        pointers.append(numpy.uint64(value.data_ptr()))
    for tensor in outputs:
        keep.append(tensor)
        pointers.append(numpy.uint64(tensor.data_ptr()))
    return pointers, keep


def compare(torch, name, got, want, tolerance, chunk=1 << 24):
    """As src/judge/comparison.cpp compare_output: both decoded to float32, the error taken in double, chunk by chunk."""
    result = {"output": name, "values": got.numel(), "bad": 0, "max_abs_error": 0.0, "max_rel_error": 0.0}
    if tuple(got.shape) != tuple(want.shape):
        result.update(ok=False, reason=f"output {name}: shape {tuple(want.shape)} from the reference, {tuple(got.shape)} here")
        return result
    a_all, b_all = got.reshape(-1), want.reshape(-1)
    atol, rtol = tolerance["max_atol"], tolerance["max_rtol"]
    all_zero, reference_all_zero, non_finite = True, True, 0
    for begin in range(0, a_all.numel(), chunk):
        x = a_all[begin:begin + chunk].float().double()
        y = b_all[begin:begin + chunk].float().double()
        all_zero = all_zero and bool((x == 0).all())
        reference_all_zero = reference_all_zero and bool((y == 0).all())
        x_bad = ~torch.isfinite(x)
        if tolerance["allow_negative_inf"]:
            x_bad = x_bad & ~((x == -math.inf) & (y == x))
        y_inf = torch.isinf(y) & ~x_bad & torch.isfinite(x)
        finite = torch.isfinite(x) & ~torch.isinf(y)
        error = torch.where(finite, (x - y).abs(), torch.zeros_like(x))
        bad = x_bad | y_inf | (finite & (error > atol + rtol * y.abs()))
        result["bad"] += int(bad.sum())
        non_finite += int(x_bad.sum())
        if bool(finite.any()):
            result["max_abs_error"] = max(result["max_abs_error"], float(error.max()))
            relative = torch.where(finite & (y != 0), error / y.abs().clamp_min(1e-300), torch.zeros_like(x))
            result["max_rel_error"] = max(result["max_rel_error"], float(relative.max()))
    values = result["values"]
    result["bad_fraction"] = result["bad"] / values if values else 0.0
    matched = (values - result["bad"]) / values if values else 1.0
    reason = None
    if non_finite:
        reason = f"output {name}: {non_finite} NaN/inf values (unwritten elements read as NaN)"
    elif all_zero and not reference_all_zero:
        reason = f"output {name}: every value is zero but the reference is not"
    elif matched < tolerance["required_matched_ratio"]:
        reason = (f"output {name}: {result['bad']} of {values} values outside atol {atol:g} + rtol {rtol:g} "
                  f"(need {100 * tolerance['required_matched_ratio']:.2f}% matched)")
    elif tolerance["max_error_cap"] is not None and result["max_abs_error"] > tolerance["max_error_cap"]:
        reason = f"output {name}: max abs error {result['max_abs_error']:.4g} is over the cap {tolerance['max_error_cap']:g}"
    result["ok"] = reason is None
    if reason:
        result["reason"] = reason
    return result


def check_outputs(torch, definition, outputs, expected, tolerance):
    """(ok, worst max abs error, worst bad fraction, [per output])."""
    rows = [compare(torch, name, got, want, tolerance) for name, got, want in zip(definition["outputs"], outputs, expected)]
    return (all(row["ok"] for row in rows), max((row["max_abs_error"] for row in rows), default=0.0),
            max((row.get("bad_fraction", 1.0) for row in rows), default=0.0), rows)


def context_alive(torch):
    try:
        torch.cuda.synchronize()
        probe = torch.ones(16, device="cuda")
        return float(probe.sum()) == 16.0
    except Exception:
        return False


def first_line(text):
    text = str(text).strip()
    return text.splitlines()[0][:160] if text else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task_dir", nargs="?", help="the task's folder, e.g. tasks/layernorm")
    parser.add_argument("configs", nargs="?", help="CONFIGS.json, or the word default")
    parser.add_argument("--template", help="the kernel-only CUDA template (needed when the task has several)")
    parser.add_argument("--workloads", default="all", help="uuid,uuid,... or all (default)")
    parser.add_argument("--iterations", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="also time the reference under torch.compile (and eager)")
    parser.add_argument("--out", help="write everything here as JSON (rewritten after every workload)")
    parser.add_argument("--arch", default="auto", help="NVRTC --gpu-architecture (auto: sm_90a on 9.0, as the judge; else sm_XY)")
    parser.add_argument("--cuda-home", help="the toolkit whose include (and include/cccl) NVRTC gets, as the judge's -I")
    parser.add_argument("--nvrtc-flag", action="append", default=[], help="one more NVRTC option (repeatable)")
    parser.add_argument("--self-test", action="store_true", help="check the non-GPU logic over every task; no GPU needed")
    parser.add_argument("--tasks-dir", default=str(ROOT / "tasks"), help="for --self-test and --dump-geometry")
    parser.add_argument("--dump-geometry", metavar="OUT.json",
                        help="write the launch of every kernel-only CUDA template on every workload, default knobs and each "
                             "single-knob change the constraints allow, as JSON lines (no GPU); - for stdout")
    parser.add_argument("--num-sms", type=int, default=DEFAULT_NUM_SMS, help="num_sms for --dump-geometry (default 132)")
    options = parser.parse_args()
    if options.self_test:
        return self_test(pathlib.Path(options.tasks_dir))
    if options.dump_geometry:
        return dump_geometry(pathlib.Path(options.tasks_dir), options.dump_geometry, options.num_sms)
    if not options.task_dir or not options.configs:
        parser.error("TASK_DIR and CONFIGS.json are needed (or --self-test)")
    return sweep(options)


def sweep(options):
    task_dir = pathlib.Path(options.task_dir)
    definition, workloads = read_task(task_dir)
    template = select_template(definition, options.template)
    raw = "default" if options.configs == "default" else json.loads(pathlib.Path(options.configs).read_text())
    configs = expand_configs(template, raw)
    if "arguments" in template["launch"]:
        print("note: the template's launch has \"arguments\"; the judge ignores them (every var axis, in definition order, "
              "is passed) and so does this sweep", flush=True)
    if options.workloads != "all":
        wanted = [uuid.strip() for uuid in options.workloads.split(",") if uuid.strip()]
        missing = [uuid for uuid in wanted if uuid not in {w["uuid"] for w in workloads}]
        if missing:
            raise SystemExit(f"no such workload(s) in {task_dir}/workload.jsonl: {', '.join(missing)}")
        workloads = [w for uuid in wanted for w in workloads if w["uuid"] == uuid]
    for config in configs:
        for note in config["notes"]:
            print(f"note: {config['name']}: {note}", flush=True)
        if config["error"]:
            print(f"skipped: {config['name']}: {config['error']}", flush=True)
    runnable = [config for config in configs if not config["error"]]
    if not runnable:
        raise SystemExit("no configuration to run")

    import numpy
    import torch
    import cupy
    sys.path[:0] = [str(ROOT / "python"), str(HERE)]
    from torch_baselines import load_task, make_inputs
    from kernelarc_oracle import device_times_ns, pin_precision

    precision = pin_precision()
    _, _, reference = load_task(task_dir)
    device = torch.cuda.current_device()
    cupy.cuda.Device(device).use()
    properties = torch.cuda.get_device_properties(device)
    num_sms = properties.multi_processor_count or DEFAULT_NUM_SMS  # launch rules' num_sms, as the judge reads it
    arch = options.arch if options.arch != "auto" else (
        "sm_90a" if (properties.major, properties.minor) == (9, 0) else f"sm_{properties.major}{properties.minor}")
    includes = toolkit_includes(options.cuda_home)
    flush = torch.empty(2 * properties.L2_cache_size // 4 + 1, dtype=torch.float32, device="cuda")
    stream_pointer = torch.cuda.current_stream().cuda_stream
    stream = cupy.cuda.ExternalStream(stream_pointer) if hasattr(cupy.cuda, "ExternalStream") else None
    if stream is None and stream_pointer != 0:
        raise SystemExit("torch's current stream is not the null stream and this CuPy has no ExternalStream")
    kernel = template["launch"].get("kernel", "")
    if not kernel:
        raise SystemExit(f"template {template['name']} names no kernel (launch.kernel); this sweep needs the name")
    source = (task_dir / template["source"]).read_text()
    nvrtc_version = None
    with contextlib.suppress(Exception):
        nvrtc_version = ".".join(str(v) for v in nvrtc_module().getVersion())

    record = {"task": definition["name"], "template": template["name"], "source": template["source"], "kernel": kernel,
              "device": properties.name, "torch": torch.__version__, "cupy": cupy.__version__, "nvrtc": nvrtc_version,
              "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "iterations": options.iterations,
              "warmup": options.warmup, "l2_flush_bytes": flush.numel() * 4, "precision": precision,
              "nvrtc_flags": compile_flags({}, arch, includes, options.nvrtc_flag) + ["-DKNOB=VALUE ..."],
              "configs": [{"name": c["name"], "knobs": c["knobs"], "skipped": c["error"], "notes": c["notes"]}
                          for c in configs], "workloads": [], "summary": []}
    by_name = {entry["name"]: entry for entry in record["configs"]}

    def write():
        if options.out:
            pathlib.Path(options.out).write_text(json.dumps(record, indent=1) + "\n")

    builds = {}

    def built_for(config):
        key = tuple(sorted(config["knobs"].items()))
        if key not in builds:
            try:
                built = build_kernel(source, compile_flags(config["knobs"], arch, includes, options.nvrtc_flag), kernel,
                                     template["source"])
            except Exception as error:
                built = Built(f"{type(error).__name__}: {error}")
            builds[key] = built
            if built.error:
                print(f"build failed: {config['name']}: {first_line(built.error)}", flush=True)
                for line in (built.log or built.error).splitlines()[:12]:
                    print(f"    {line}", flush=True)
        built = builds[key]
        by_name[config["name"]].setdefault("build", {
            "ok": built.error is None, "seconds": round(built.seconds, 2), "resources": built.resources, "error": built.error,
            "log": built.log[-4000:] if built.log else ""})
        return built

    width = max(12, max(len(c["name"]) for c in runnable))
    lost = None
    for workload in workloads:
        if lost:
            break
        uuid = workload["uuid"]
        row = {"uuid": uuid, "axes": workload["axes"], "tolerance": tolerance_of(workload), "results": []}
        record["workloads"].append(row)
        try:
            axes = resolve_axes(definition, workload)
            args = make_inputs(definition, workload, torch.Generator(device="cuda").manual_seed(1))
        except (Exception, SystemExit) as error:
            row["error"] = f"inputs: {error}"
            print(f"== {uuid}: skipped ({first_line(error)})", flush=True)
            write()
            continue
        with torch.inference_mode():
            try:
                expected = reference(*args)
                expected = tuple(expected) if isinstance(expected, (tuple, list)) else (expected,)
                torch.cuda.synchronize()
            except Exception as error:
                expected, row["error"] = None, f"reference: {type(error).__name__}: {error}"
            if expected is not None and len(expected) != len(definition["outputs"]):
                row["error"] = f"the reference returns {len(expected)} outputs, the definition has {len(definition['outputs'])}"
            if row.get("error"):
                print(f"== {uuid}: skipped ({row['error']})", flush=True)
                write()
                continue
            eager_us = compile_us = None
            if options.compile:
                try:
                    samples, timer = device_times_ns(reference, args, flush, options.iterations, options.warmup)
                    eager_us = statistics.median(samples) / 1e3
                    torch._dynamo.reset()  # past its recompile limit torch.compile silently falls back to eager
                    compiled = torch.compile(reference, dynamic=False)
                    began = time.time()
                    compiled(*args)
                    row["compile_seconds"] = round(time.time() - began, 1)
                    samples, timer = device_times_ns(compiled, args, flush, options.iterations, options.warmup)
                    compile_us = statistics.median(samples) / 1e3
                    row["baseline_timer"] = timer
                except Exception as error:
                    row["baseline_error"] = f"{type(error).__name__}: {error}"
            row["eager_us"], row["compile_us"] = eager_us, compile_us
            shown_axes = ", ".join(f"{k}={v}" for k, v in workload["axes"].items())
            baseline = (f"eager {eager_us:.2f} us, torch.compile {compile_us:.2f} us" if compile_us
                        else ("torch.compile failed: " + first_line(row.get("baseline_error", "")) if options.compile else "no --compile"))
            print(f"\n== {uuid} ({shown_axes}): {baseline}", flush=True)
            print(f"  {'config':<{width}} {'us':>9} {'speedup':>8} {'max err':>9} {'bad':>8}  {'regs':>4}  grid x block", flush=True)
            outputs = [torch.empty([int(axes[a]) for a in (spec["shape"] or [])], dtype=torch_dtype(torch, spec["dtype"]),
                                   device="cuda") for spec in definition["outputs"].values()]
            for config in runnable:
                result = {"config": config["name"]}
                row["results"].append(result)
                built = built_for(config)
                if built.error:
                    result["error"] = "build failed"
                    print(f"  {config['name']:<{width}} build failed", flush=True)
                    continue
                try:
                    geometry = launch_geometry(template, definition, axes, config["knobs"], num_sms)
                except ValueError as error:
                    result["error"] = f"launch geometry: {error}"
                    print(f"  {config['name']:<{width}} {result['error']}", flush=True)
                    continue
                result.update({k: geometry[k] for k in ("grid", "block", "shared_bytes", "arguments")})
                result["registers"] = built.resources.get("registers")
                grid, block, shared = tuple(geometry["grid"]), tuple(geometry["block"]), geometry["shared_bytes"]
                shape = f"{list(grid)} x {list(block)}" + (f" +{shared} B" if shared else "")
                stage, keep = "arguments", None
                try:
                    pointers, keep = kernel_parameters(torch, definition, args, outputs)
                    parameters = tuple(pointers) + tuple(numpy.int64(a) for a in geometry["arguments"])

                    def launch(function=built.function, grid=grid, block=block, parameters=parameters, shared=shared):
                        function(grid, block, parameters, shared_mem=shared, stream=stream)

                    stage = "launch"
                    allow_shared(built, shared)
                    for tensor in outputs:
                        tensor.reshape(-1).view(torch.uint8).fill_(0xFF)  # unwritten elements read as NaN (or -1)
                    torch.cuda.synchronize()
                    launch()
                    torch.cuda.synchronize()
                    stage = "check"
                    ok, max_error, bad_fraction, detail = check_outputs(torch, definition, outputs, expected, row["tolerance"])
                    result.update({"ok": ok, "max_abs_error": max_error, "bad_fraction": bad_fraction, "outputs": detail})
                    stage = "timing"
                    samples, timer = device_times_ns(launch, (), flush, options.iterations, options.warmup)
                    result.update({"us": statistics.median(samples) / 1e3, "min_us": min(samples) / 1e3, "timer": timer,
                                   "samples": len(samples)})
                    stage = "recheck"
                    torch.cuda.synchronize()
                    if ok and not check_outputs(torch, definition, outputs, expected, row["tolerance"])[0]:
                        result["ok"] = False
                        result["unstable"] = f"correct after one launch, wrong after {options.warmup + options.iterations} more"
                except Exception as error:
                    result["error"] = f"{stage}: {type(error).__name__}: {error}"
                    print(f"  {config['name']:<{width}} {stage} error: {first_line(f'{type(error).__name__}: {error}')}", flush=True)
                    if not context_alive(torch):
                        lost = f"{config['name']} on {uuid}: {result['error']}"
                        break
                    continue
                finally:
                    del keep
                us = result["us"]
                speedup = f"{compile_us / us:7.2f}x" if compile_us else f"{'-':>8}"
                flag = "" if result["ok"] else ("  UNSTABLE" if "unstable" in result else "  WRONG: " + first_line(
                    next((d["reason"] for d in result["outputs"] if not d["ok"]), "")))
                if not result["timer"].startswith("kernel span"):
                    flag += f"  [{result['timer']}]"
                regs = result["registers"] if result["registers"] is not None else "-"
                print(f"  {config['name']:<{width}} {us:9.2f} {speedup} {result['max_abs_error']:9.2e} "
                      f"{100 * result['bad_fraction']:7.3f}%  {regs:>4}  {shape}{flag}", flush=True)
            timed = [r for r in row["results"] if r.get("ok") and r.get("us")]
            if timed:
                best = min(timed, key=lambda r: r["us"])
                row["best"] = best["config"]
                print(f"  best: {best['config']} {best['us']:.2f} us", flush=True)
        write()

    summarise(record, runnable, options.compile, width)
    if lost:
        record["context_lost"] = lost
        print(f"\nstopped: the CUDA context is unusable after {lost}; rerun without that configuration", flush=True)
    write()
    return 2 if lost else 0
def summarise(record, runnable, with_compile, width=12):
    """Per configuration, over the workloads where it ran and was correct: the geometric mean of its time and of
    torch.compile's time over it."""
    print(f"\n== summary over {len(record['workloads'])} workloads (correct runs only)", flush=True)
    print(f"  {'config':<{width}} {'geomean us':>10} {'vs compile':>10} {'correct':>9} {'best on':>8}", flush=True)
    for config in runnable:
        times, ratios, correct, tried, best = [], [], 0, 0, 0
        for row in record["workloads"]:
            result = next((r for r in row["results"] if r["config"] == config["name"]), None)
            if result is None:
                continue
            tried += 1
            if row.get("best") == config["name"]:
                best += 1
            if result.get("ok") and result.get("us"):
                correct += 1
                times.append(result["us"])
                if row.get("compile_us"):
                    ratios.append(row["compile_us"] / result["us"])
        mean_us, mean_ratio = geomean(times), geomean(ratios)
        record["summary"].append({"config": config["name"], "geomean_us": mean_us, "geomean_speedup_vs_compile": mean_ratio,
                                  "workloads_correct": correct, "workloads_tried": tried, "best_on": best,
                                  "speedup_workloads": len(ratios)})
        shown_ratio = f"{mean_ratio:9.3f}x" if mean_ratio else f"{'-':>10}"
        shown_us = f"{mean_us:10.2f}" if mean_us else f"{'-':>10}"
        print(f"  {config['name']:<{width}} {shown_us} {shown_ratio} {correct:>4}/{tried:<4} {best:>8}", flush=True)
    if with_compile:
        print("  (vs compile: geometric mean of torch.compile's time over the configuration's; > 1 is faster; the geomean "
              "us is over different workload sets when the correct counts differ)", flush=True)




# ------------------------------------------------------------------------------------------------------------------
# Every template's launch, for comparing launch rules before and after an edit (and with the C++ evaluator)

def dump_geometry(tasks_dir, out, num_sms):
    """One JSON object a line, sorted: task, template, workload, knobs (the default, or one changed), then the grid,
    block and shared bytes, or the error the judge would refuse the launch with."""
    lines = []
    for definition_file in sorted(tasks_dir.glob("*/definition.json")):
        definition, workloads = read_task(definition_file.parent)
        for template in kernel_templates(definition):
            default = default_knobs(template)
            configs = [default]
            for knob in template.get("knobs", []):
                for value in knob["values"][1:]:
                    changed = dict(default, **{knob["name"]: knob_value(value)})
                    if not violated_constraints(template, changed):
                        configs.append(changed)
            for workload in workloads:
                axes = resolve_axes(definition, workload)
                for knobs in configs:
                    row = {"task": definition["name"], "template": template["name"], "workload": workload["uuid"],
                           "knobs": {name: int(value) for name, value in sorted(knobs.items())}}
                    try:
                        geometry = launch_geometry(template, definition, axes, knobs, num_sms)
                        row.update(grid=geometry["grid"], block=geometry["block"], shared_bytes=geometry["shared_bytes"])
                    except (ValueError, ExpressionError) as error:
                        row["error"] = str(error)
                    lines.append(json.dumps(row, sort_keys=True))
    text = "\n".join(lines) + "\n"
    if out == "-":
        sys.stdout.write(text)
    else:
        pathlib.Path(out).write_text(text)
    return 0


# ------------------------------------------------------------------------------------------------------------------
# Self-test (no GPU): the evaluator on a few cases, then every kernel-only CUDA template of every task

def self_test(tasks_dir):
    failures = []
    names = {"a": 7.0, "b": 2.0, "n": -7.0, "z": 0.0}

    def outcome(text, integer=False):  # the value, or the ExpressionError; any other exception is a bug
        try:
            return Expression(text).evaluate_integer(names) if integer else Expression(text).evaluate(names)
        except ExpressionError as error:
            return error
        except Exception as error:
            return f"{type(error).__name__} instead of ExpressionError: {error}"

    cases = {"1 + 2 * 3 - 4 / 8": 6.5, "(1 + 2) * 3": 9.0, "-2**2 + 2**3**2 + 2**-1": 508.5, "n // b + a // b": -1.0,
             "n % b + a % -b": 0.0, "-7.5 // 2 + -7.5 % 2": -3.5, "ceil_div(a, b) * 10 + ceil_div(n, b)": 37.0,
             "a > b && !(b > 1) || not z": 1.0, "z or a == 7 and b < 0": 0.0, "(!(a != 7)) + true + False": 2.0,
             "min(a, b, 1) + max(floor(a / b), ceil(a / b)) + abs(n) + sqrt(16) + log2(8)": 19.0, "z and 1 // z": 0.0}
    failures += [f"{text}: got {outcome(text)!r}, expected {want!r}" for text, want in cases.items()
                 if outcome(text) != want]
    refused = ("a / z", "a // z", "a % z", "ceil_div(a, z)", "1 < 2 < 3", "q + 1", "a = b", "a & b", "foo(1)", "min(1)",
               "min(a, b, key=a)", "a.real", "'a'", "a if b else z", "", "(1 + 2", "sqrt(n)", "10 ** 400",
               "__import__('os')")
    failures += [f"{text}: got {outcome(text)!r}, expected an ExpressionError" for text in refused
                 if not isinstance(outcome(text), ExpressionError)]
    if outcome("a // b", True) != 3 or not isinstance(outcome("a / b", True), ExpressionError):
        failures.append("evaluate_integer: a // b must be 3, a / b an error")
    if Expression("min(x, y) + x * z // 2").variables != ["x", "y", "z"]:
        failures.append("variables of min(x, y) + x * z // 2")

    # "let" bindings and num_sms (src/task/launch_rule.cpp launch_bindings): in order, each over the names before it
    launch = {"let": {"per": "ceil_div(n, B)", "waves": "num_sms * per"}, "grid": ["waves"], "block": ["B"]}
    got = launch_names(launch, {"n": 10.0}, {"B": 4}, 100)
    if (got["per"], got["waves"], launch_names(launch, {"n": 10.0}, {"B": 4})["waves"]) != (3.0, 300.0, 3.0 * DEFAULT_NUM_SMS):
        failures.append(f"launch_names: got {got}")
    for bad_let, axes_given, knobs_given in (({"a": "b", "b": "1"}, {}, {}), ({"a": "a + 1"}, {}, {}), ({"a": "q"}, {}, {}),
                                              ({"n": "1"}, {"n": 1.0}, {}), ({"num_sms": "1"}, {}, {}), ({"1a": "1"}, {}, {}),
                                              ({"a": "1 / 0"}, {}, {}), ({}, {}, {"num_sms": 1})):
        try:
            launch_names({"let": bad_let}, axes_given, knobs_given)
            failures.append(f"launch_names accepted let {bad_let}, axes {axes_given}, knobs {knobs_given}")
        except ValueError:
            pass

    print(f"kernel-only CUDA templates under {tasks_dir}:")
    for definition_file in sorted(tasks_dir.glob("*/definition.json")):
        task_dir = definition_file.parent
        definition, workloads = read_task(task_dir)
        for template in kernel_templates(definition):
            label = f"{definition['name']}/{template['name']}"
            try:
                knobs = default_knobs(template)
                broken = violated_constraints(template, knobs)
                launch = template["launch"]
                texts = launch["grid"] + launch["block"] + ([launch["shared_bytes"]] if "shared_bytes" in launch else [])
                known = set(knobs) | set(definition["axes"]) | {"num_sms"} | set(launch.get("let", {}))
                unknown = sorted({v for t in texts for v in Expression(t).variables} - known)
                geometry = launch_geometry(template, definition, resolve_axes(definition, workloads[0]), knobs)
                tolerance = tolerance_of(workloads[0])
                source = task_dir / template["source"]
                declaration = rf'extern\s+"C"\s+__global__[^;{{]*?\b{re.escape(geometry["kernel"])}\s*\('
                declared = source.exists() and re.search(declaration, source.read_text())
                pointers = len(definition["inputs"]) + len(definition["outputs"])
                print(f"  {label}: {workloads[0]['uuid']} {geometry['kernel']} grid {geometry['grid']} block "
                      f"{geometry['block']} shared {geometry['shared_bytes']} args {pointers} pointers + "
                      f"{geometry['arguments']} atol {tolerance['max_atol']:g} rtol {tolerance['max_rtol']:g}"
                      + (f"  DEFAULT KNOBS VIOLATE {broken}" if broken else ""))
                if broken:
                    failures.append(f"{label}: default knobs violate {broken}")
                if unknown:
                    failures.append(f"{label}: launch names unknown variables {unknown}")
                if not declared:
                    failures.append(f"{label}: no extern \"C\" __global__ {geometry['kernel']}( in {source.name}")
                for workload in workloads:  # every workload, default knobs: within the judge's limits
                    launch_geometry(template, definition, resolve_axes(definition, workload), knobs)
                variants = 0  # every single-knob change from the default that the constraints allow, on every workload
                for knob in template.get("knobs", []):
                    for value in knob["values"][1:]:
                        changed = dict(knobs, **{knob["name"]: knob_value(value)})
                        if violated_constraints(template, changed):
                            continue
                        variants += 1
                        for workload in workloads:
                            try:
                                launch_geometry(template, definition, resolve_axes(definition, workload), changed)
                            except ValueError as error:
                                print(f"    note: {knob['name']}={value} on {workload['uuid']}: {error}")
                print(f"    {len(workloads)} workloads x ({variants} single-knob variants + default): geometry evaluated")
            except (ValueError, KeyError) as error:
                failures.append(f"{label}: {type(error).__name__}: {error}")
    if failures:
        print("\nFAILED:\n" + "\n".join(f"  {failure}" for failure in failures))
        return 1
    print("\nself-test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
