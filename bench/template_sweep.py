#!/usr/bin/env python3
"""Times configurations of a task's kernel-only CUDA template directly on a GPU, without the judge: which knob values matter per workload.

Each configuration is compiled once, as the judge compiles a kernel-only candidate (src/judge/cuda/cuda_compiler.cpp
build_kernel: NVRTC, --gpu-architecture=sm_90a --std=c++17 -lineinfo, the toolkit's include and include/cccl, -DKNOB=VALUE
for every knob), loaded through CuPy and launched as the judge launches it (src/judge/cuda/gpu_worker.cpp launch_kernel: a
device pointer per input, a scalar input as a pointer to a device value of its dtype, a device pointer per output, then
every var axis of the definition, in definition order, as a long long; grid, block and dynamic shared memory evaluated
from the template's "launch" over the workload's axes and the knobs, within CUDA's limits as src/judge/judge.cpp
launch_request checks them). The expressions are evaluated by a port of src/task/expression.cpp (doubles, Python-like
floor division and modulo), not by Python's eval.

For each workload (inputs made once by bench/torch_baselines.make_inputs, seed 1), for each configuration: one launch into
outputs filled with 0xFF bytes (NaN for floats: an unwritten element is a bad one), compared with the PyTorch reference
as the judge compares (src/judge/comparison.cpp: both in float32, |a - b| > atol + rtol * |b| is bad, NaN/inf bad, the
workload's "tolerance" or atol = rtol = 1e-2 and 99% matched), then timed with kernelarc_oracle's device timer: the span
of the call's kernels from the profiler's records, each call after flush.fill_ of twice the L2 (as the judge and
bench/torch_baselines.py time), median over --iterations; then compared again (a kernel that depends on its outputs'
previous contents, or races, shows there). With --compile the reference is also timed under torch.compile(dynamic=False)
(and eager), per workload, as torch_baselines does; "speedup" is torch.compile's time over the configuration's (> 1:
faster than torch.compile).

    python3 bench/template_sweep.py TASK_DIR CONFIGS.json [--template NAME] [--workloads uuid,uuid|all] [--iterations 30]
        [--warmup 5] [--compile] [--out result.json]
    python3 bench/template_sweep.py --self-test [--tasks-dir tasks]      # the non-GPU logic only (no torch, no CuPy)

CONFIGS.json: a list of {"name": str, "knobs": {KNOB: value}}. A knob not given takes its first (default) value; a knob
given a list of values expands into one configuration per combination (named NAME[KNOB=v,...]). A configuration that
violates one of the template's constraints (those over knobs only, as src/engine/brain.cpp knobs_allowed) is reported
and skipped. CONFIGS.json may also be the word `default`: the default knobs only. A build, launch or comparison error of
one configuration is recorded and the sweep goes on; an error that leaves the CUDA context unusable (an illegal address)
ends the sweep, with what was measured so far written to --out.
"""
import argparse
import itertools
import json
import math
import os
import pathlib
import re
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


# ------------------------------------------------------------------------------------------------------------------
# Expressions: a port of src/task/expression.cpp (same grammar, same errors, evaluated in doubles).

class ExpressionError(ValueError):
    """A syntax or evaluation problem, named with its 0-based column and the expression's text."""

    def __init__(self, text, column, problem):
        shown = text if len(text) <= 200 else text[:200] + "..."
        super().__init__(f'expression "{shown}", column {column}: {problem}')
        self.column = column


_MAX_TEXT = 4096
_MAX_DEPTH = 64
_TWO_CHAR = ("**", "//", "==", "!=", "<=", ">=", "&&", "||")
_ONE_CHAR = "+-*/%<>!(),"
_SPACE = " \t\n\r\f\v"
_FUNCTIONS = {"min": (2, None), "max": (2, None), "ceil_div": (2, 2), "floor": (1, 1), "ceil": (1, 1), "abs": (1, 1),
              "sqrt": (1, 1), "log2": (1, 1)}
_KEYWORDS = ("and", "or", "not", "True", "False", "true", "false")
_COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def _digit(c):
    return "0" <= c <= "9"


def _identifier_start(c):
    return ("A" <= c <= "Z") or ("a" <= c <= "z") or c == "_"


def _tokenize(text):
    """[(kind, lexeme, column, number)], kind one of number, identifier, symbol, end."""
    tokens, i, n = [], 0, len(text)

    def fail(column, problem):
        raise ExpressionError(text, column, problem)

    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
        elif _digit(c) or (c == "." and i + 1 < n and _digit(text[i + 1])):
            start = i
            while i < n and _digit(text[i]):
                i += 1
            if i < n and text[i] == ".":
                i += 1
                while i < n and _digit(text[i]):
                    i += 1
            if i < n and text[i] in "eE":
                i += 1
                if i < n and text[i] in "+-":
                    i += 1
                if i >= n or not _digit(text[i]):
                    fail(start, f"malformed number '{text[start:i]}': exponent needs digits")
                while i < n and _digit(text[i]):
                    i += 1
            lexeme = text[start:i]
            value = float(lexeme)
            mantissa = re.split("[eE]", lexeme)[0]
            if math.isinf(value) or (value == 0.0 and any(d in "123456789" for d in mantissa)):
                fail(start, f"number '{lexeme}' is out of range")  # std::from_chars: result_out_of_range
            tokens.append(("number", lexeme, start, value))
        elif _identifier_start(c):
            start = i
            while i < n and (_identifier_start(text[i]) or _digit(text[i])):
                i += 1
            tokens.append(("identifier", text[start:i], start, 0.0))
        else:
            rest = text[i:]
            two = next((s for s in _TWO_CHAR if rest.startswith(s)), None)
            if two:
                tokens.append(("symbol", two, i, 0.0))
                i += 2
            elif c in _ONE_CHAR:
                tokens.append(("symbol", c, i, 0.0))
                i += 1
            elif c == "=":
                fail(i, "unexpected '='; use '==' to compare")
            elif c == "&":
                fail(i, "unexpected '&'; use '&&' or 'and'")
            elif c == "|":
                fail(i, "unexpected '|'; use '||' or 'or'")
            else:
                code = ord(c)
                fail(i, f"unexpected character '{c}'" if 0x20 <= code < 0x7F else f"unexpected byte {code}")
    tokens.append(("end", "", n, 0.0))
    return tokens


class _Parser:
    # Nodes: ("num", value, column) ("var", name, column) ("un", op, operand, column) ("bin", op, left, right, column)
    # ("call", name, [operands], column)
    def __init__(self, text):
        self.text = text
        self.tokens = _tokenize(text)
        self.index = 0
        self.depth = 0
        self.variables = set()

    def fail(self, column, problem):
        raise ExpressionError(self.text, column, problem)

    def peek(self):
        return self.tokens[self.index]

    def advance(self):
        token = self.tokens[self.index]
        if token[0] != "end":
            self.index += 1
        return token

    def at_symbol(self, symbol):
        token = self.peek()
        return token[0] == "symbol" and token[1] == symbol

    def at_keyword(self, keyword):
        token = self.peek()
        return token[0] == "identifier" and token[1] == keyword

    @staticmethod
    def describe(token):
        return "end of expression" if token[0] == "end" else f"'{token[1]}'"

    def enter(self, column):
        if self.depth >= _MAX_DEPTH:
            self.fail(column, f"expression nests deeper than {_MAX_DEPTH} levels")
        self.depth += 1

    def leave(self):
        self.depth -= 1

    def parse_whole(self):
        if self.peek()[0] == "end":
            self.fail(0, "expression is empty")
        root = self.parse_or()
        if self.peek()[0] != "end":
            self.fail(self.peek()[2], f"unexpected {self.describe(self.peek())} after a complete expression")
        return root

    def parse_or(self):
        left = self.parse_and()
        while self.at_symbol("||") or self.at_keyword("or"):
            column = self.advance()[2]
            left = ("bin", "or", left, self.parse_and(), column)
        return left

    def parse_and(self):
        left = self.parse_not()
        while self.at_symbol("&&") or self.at_keyword("and"):
            column = self.advance()[2]
            left = ("bin", "and", left, self.parse_not(), column)
        return left

    def parse_not(self):
        if self.at_symbol("!") or self.at_keyword("not"):
            column = self.peek()[2]
            self.enter(column)
            self.advance()
            node = ("un", "not", self.parse_not(), column)
            self.leave()
            return node
        return self.parse_comparison()

    def comparison_at_cursor(self):
        token = self.peek()
        return token[1] if token[0] == "symbol" and token[1] in _COMPARISONS else None

    def parse_comparison(self):
        left = self.parse_additive()
        op = self.comparison_at_cursor()
        if op is None:
            return left
        column = self.advance()[2]
        node = ("bin", op, left, self.parse_additive(), column)
        if self.comparison_at_cursor():
            self.fail(self.peek()[2], "chained comparisons are not supported; combine them with 'and'")
        return node

    def parse_additive(self):
        left = self.parse_multiplicative()
        while self.at_symbol("+") or self.at_symbol("-"):
            token = self.advance()
            left = ("bin", token[1], left, self.parse_multiplicative(), token[2])
        return left

    def parse_multiplicative(self):
        left = self.parse_unary()
        while self.at_symbol("*") or self.at_symbol("/") or self.at_symbol("//") or self.at_symbol("%"):
            token = self.advance()
            left = ("bin", token[1], left, self.parse_unary(), token[2])
        return left

    def parse_unary(self):
        if self.at_symbol("-") or self.at_symbol("+"):
            token = self.peek()
            self.enter(token[2])
            self.advance()
            node = ("un", token[1], self.parse_unary(), token[2])
            self.leave()
            return node
        return self.parse_power()

    def parse_power(self):  # Python: power ::= primary ["**" u_expr]
        base = self.parse_primary()
        if not self.at_symbol("**"):
            return base
        column = self.peek()[2]
        self.enter(column)
        self.advance()
        node = ("bin", "**", base, self.parse_unary(), column)
        self.leave()
        return node

    def parse_primary(self):
        token = self.peek()
        if token[0] == "number":
            self.advance()
            return ("num", token[3], token[2])
        if token[0] == "identifier":
            return self.parse_identifier()
        if token[0] == "symbol" and token[1] == "(":
            open_column = token[2]
            self.enter(open_column)
            self.advance()
            inner = self.parse_or()
            self.expect_closing(open_column)
            self.leave()
            return inner
        self.fail(token[2], f"unexpected {self.describe(token)}; expected a number, name or '('")

    def expect_closing(self, open_column):
        if self.at_symbol(")"):
            self.advance()
            return
        self.fail(self.peek()[2], f"expected ')' to close '(' at column {open_column} but found {self.describe(self.peek())}")

    def parse_identifier(self):
        token = self.advance()
        name = token[1]
        if name in ("True", "true"):
            return ("num", 1.0, token[2])
        if name in ("False", "false"):
            return ("num", 0.0, token[2])
        if name in _KEYWORDS:
            self.fail(token[2], f"unexpected keyword '{name}'")
        if self.at_symbol("("):
            return self.parse_call(token)
        self.variables.add(name)
        return ("var", name, token[2])

    def parse_call(self, name_token):
        name = name_token[1]
        if name not in _FUNCTIONS:
            self.fail(name_token[2], f"unknown function '{name}'")
        open_column = self.peek()[2]
        self.enter(open_column)
        self.advance()
        operands = []
        if not self.at_symbol(")"):
            operands.append(self.parse_or())
            while self.at_symbol(","):
                self.advance()
                operands.append(self.parse_or())
        self.expect_closing(open_column)
        self.leave()
        low, high = _FUNCTIONS[name]
        if len(operands) < low or (high is not None and len(operands) > high):
            plural = lambda count: f"{count} argument" + ("" if count == 1 else "s")  # noqa: E731
            expected = f"at least {plural(low)}" if high is None else plural(low)
            self.fail(name_token[2], f"function '{name}' expects {expected}, got {len(operands)}")
        return ("call", name, operands, name_token[2])


def _floor_divide(dividend, divisor):
    """Python's divmod for floats, as src/task/expression.cpp floor_divide: (quotient, remainder)."""
    remainder = math.fmod(dividend, divisor)
    quotient = (dividend - remainder) / divisor
    if remainder != 0.0 and ((divisor < 0.0) != (remainder < 0.0)):
        remainder += divisor
        quotient -= 1.0
    floored = _c_floor(quotient)
    if quotient - floored > 0.5:
        floored += 1.0
    return floored, remainder


def _c_floor(value):
    """std::floor: a float, the sign of a zero kept (math.floor returns an int, and -0.0 becomes 0)."""
    if not math.isfinite(value):
        return value
    result = float(math.floor(value))
    return math.copysign(0.0, value) if result == 0.0 else result


def _c_ceil(value):
    if not math.isfinite(value):
        return value
    result = float(math.ceil(value))
    return math.copysign(0.0, value) if result == 0.0 else result


def _format_number(value):
    """std::to_chars(double) with no format: the shortest round-trip digits, fixed or scientific, whichever is shorter
    (fixed on a tie), as the C++ messages show numbers."""
    value = float(value)
    if value == 0.0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("-inf" if value < 0 else "inf")
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    fraction = fraction.rstrip("0") if fraction != "0" else ""
    digits = (whole + fraction).lstrip("0")  # value = digits * 10**shift
    shift = int(exponent or 0) - len(fraction)
    stripped = digits.rstrip("0")
    shift += len(digits) - len(stripped)
    digits = stripped
    scientific_exponent = shift + len(digits) - 1
    scientific = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + \
        ("e-" if scientific_exponent < 0 else "e+") + f"{abs(scientific_exponent):02d}"
    if shift >= 0:
        fixed = digits + "0" * shift
    elif len(digits) + shift > 0:
        fixed = digits[:len(digits) + shift] + "." + digits[len(digits) + shift:]
    else:
        fixed = "0." + "0" * (-(len(digits) + shift)) + digits
    return sign + (fixed if len(fixed) <= len(scientific) else scientific)


class Expression:
    """Parsed once, evaluated many times over {name: number} bindings."""

    def __init__(self, text):
        if not isinstance(text, str):
            raise ExpressionError(str(text), 0, "expected a string")
        if len(text) > _MAX_TEXT:
            raise ExpressionError(text, _MAX_TEXT, f"expression is longer than {_MAX_TEXT} characters")
        parser = _Parser(text)
        self.text = text
        self.root = parser.parse_whole()
        self.variables = sorted(parser.variables)

    def fail(self, node, problem):
        raise ExpressionError(self.text, node[-1], problem)

    def finite(self, value, node, operation):
        if not math.isfinite(value):
            self.fail(node, f"result of '{operation}' is not a finite number")
        return value

    def evaluate(self, bindings):
        return self._eval(self.root, bindings)

    def evaluate_integer(self, bindings):
        value = self.evaluate(bindings)
        if math.trunc(value) != value:
            raise ExpressionError(self.text, 0, f"value {_format_number(value)} is not an integer")
        if value < -9223372036854775808.0 or value >= 9223372036854775808.0:
            raise ExpressionError(self.text, 0, f"value {_format_number(value)} is outside the 64-bit integer range")
        return int(value)

    def evaluate_condition(self, bindings):
        return self.evaluate(bindings) != 0.0

    def _eval(self, node, bindings):
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "var":
            if node[1] not in bindings:
                self.fail(node, f"unknown variable '{node[1]}'")
            value = float(bindings[node[1]])
            if not math.isfinite(value):
                self.fail(node, f"variable '{node[1]}' is bound to a non-finite value")
            return value
        if kind == "un":
            operand = self._eval(node[2], bindings)
            if node[1] == "-":
                return -operand
            if node[1] == "+":
                return operand
            return 1.0 if operand == 0.0 else 0.0  # not
        if kind == "bin":
            return self._binary(node, bindings)
        return self._call(node, bindings)

    def _binary(self, node, bindings):
        op, left_node, right_node = node[1], node[2], node[3]
        if op == "or":
            return 1.0 if (self._eval(left_node, bindings) != 0.0 or self._eval(right_node, bindings) != 0.0) else 0.0
        if op == "and":
            return 1.0 if (self._eval(left_node, bindings) != 0.0 and self._eval(right_node, bindings) != 0.0) else 0.0
        left = self._eval(left_node, bindings)
        right = self._eval(right_node, bindings)
        if op in _COMPARISONS:
            result = {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right, ">": left > right,
                      ">=": left >= right}[op]
            return 1.0 if result else 0.0
        if op == "+":
            return self.finite(left + right, node, op)
        if op == "-":
            return self.finite(left - right, node, op)
        if op == "*":
            return self.finite(left * right, node, op)
        if op == "/":
            if right == 0.0:
                self.fail(node, "division by zero")
            return self.finite(left / right, node, op)
        if op == "//":
            if right == 0.0:
                self.fail(node, "floor division by zero")
            return self.finite(_floor_divide(left, right)[0], node, op)
        if op == "%":
            if right == 0.0:
                self.fail(node, "modulo by zero")
            return self.finite(_floor_divide(left, right)[1], node, op)
        # **
        if left == 0.0 and right < 0.0:
            self.fail(node, "zero raised to a negative power")
        try:
            value = math.pow(left, right)
        except (OverflowError, ValueError):
            value = math.nan  # std::pow: inf or NaN, refused below
        return self.finite(value, node, op)

    def _call(self, node, bindings):
        name = node[1]
        arguments = [self._eval(operand, bindings) for operand in node[2]]
        if name == "min":
            return min(arguments)
        if name == "max":
            return max(arguments)
        if name == "ceil_div":
            if arguments[1] == 0.0:
                self.fail(node, "division by zero in ceil_div")
            return self.finite(-_floor_divide(-arguments[0], arguments[1])[0], node, name)
        if name == "floor":
            return _c_floor(arguments[0])
        if name == "ceil":
            return _c_ceil(arguments[0])
        if name == "abs":
            return abs(arguments[0])
        if name == "sqrt":
            if arguments[0] < 0.0:
                self.fail(node, f"sqrt of a negative number ({_format_number(arguments[0])})")
            return math.sqrt(arguments[0])
        if arguments[0] <= 0.0:  # log2
            self.fail(node, f"log2 of a non-positive number ({_format_number(arguments[0])})")
        return math.log2(arguments[0])


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
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ValueError(f"expected an integer, got {value!r}")


def default_knobs(template):
    return {knob["name"]: knob_value(knob["values"][0]) for knob in template.get("knobs", [])}


def resolve_axes(definition, workload):
    """Every axis's value for a workload, as src/task/task.cpp resolve_workload: const, var, then expr axes (in doubles)."""
    axes = {}
    for name, axis in definition["axes"].items():
        if axis["type"] == "const":
            axes[name] = float(axis["value"])
        elif axis["type"] == "var":
            if name not in workload["axes"]:
                raise ValueError(f"workload {workload['uuid']}: no value for var axis {name}")
            axes[name] = float(workload["axes"][name])
    pending = [(name, Expression(axis["expression"])) for name, axis in definition["axes"].items() if axis["type"] == "expr"]
    while pending:
        before = len(pending)
        for item in list(pending):
            name, expression = item
            if all(v in axes for v in expression.variables):
                value = expression.evaluate_integer(axes)
                if value < 0:
                    raise ValueError(f"workload {workload['uuid']}: axis {name} is {value}, expected >= 0")
                axes[name] = float(value)
                pending.remove(item)
        if len(pending) == before:
            raise ValueError(f"axes.{pending[0][0]}: expression axes refer to each other in a cycle")
    for text in definition.get("constraints", []):
        if not Expression(text).evaluate_condition(axes):
            raise ValueError(f"workload {workload['uuid']}: constraint \"{text}\" does not hold")
    return axes


def violated_constraints(template, knobs):
    """The template's constraints that the knobs break; those naming anything but knobs are skipped (engine/brain.cpp)."""
    names = {name: float(value) for name, value in knobs.items()}
    broken = []
    for text in template.get("constraints", []):
        expression = Expression(text)
        if not all(v in names for v in expression.variables):
            continue
        if not expression.evaluate_condition(names):
            broken.append(text)
    return broken


def expand_configs(template, raw):
    """[{name, knobs (every knob, the template's order), error or None, notes}] from the CONFIGS.json list."""
    if raw == "default":
        raw = [{"name": "default", "knobs": {}}]
    if not isinstance(raw, list):
        raise ValueError("CONFIGS.json: expected a list of {\"name\": ..., \"knobs\": {...}}")
    specs = {knob["name"]: knob for knob in template.get("knobs", [])}
    defaults = default_knobs(template)
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
        choices = [given[k] if k in swept else [given[k]] for k in given]
        for combination in itertools.product(*choices) if not error else [()]:
            knobs, notes, this_error = dict(defaults), [], error
            this_name = name
            if not this_error:
                try:
                    for knob, value in zip(given, combination):
                        knobs[knob] = knob_value(value)
                except ValueError as problem:
                    this_error = f"knob value: {problem}"
            if swept:
                this_name = f"{name}[" + ",".join(f"{k}={knobs[k]}" for k in swept) + "]"
            if this_name in seen:
                this_name = f"{this_name}#{index}"
            seen.add(this_name)
            if not this_error:
                for knob in given:
                    if knobs[knob] not in [knob_value(v) for v in specs[knob]["values"]]:
                        notes.append(f"{knob}={knobs[knob]} is outside the template's values {specs[knob]['values']}")
                broken = violated_constraints(template, knobs)
                if broken:
                    this_error = "violates " + "; ".join(f"\"{text}\"" for text in broken)
            configs.append({"name": this_name, "knobs": knobs, "error": this_error, "notes": notes})
    return configs


def launch_geometry(template, definition, axes, knobs):
    """The judge's launch for a workload (src/judge/judge.cpp launch_request): grid, block, shared bytes, the long long
    arguments (every var axis, in definition order) and the kernel's name. Raises ValueError as the judge refuses."""
    launch = template["launch"]
    names = dict(axes)
    names.update({name: float(value) for name, value in knobs.items()})

    def dimensions(texts, limits, what):
        if not 1 <= len(texts) <= 3:
            raise ValueError(f"launch.{what}: expected 1 to 3 expressions")
        values = []
        for text in texts:
            limit = limits[min(len(values), 2)]
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
    """-I flags as the judge's (the toolkit's include and include/cccl), for the first toolkit found that has them."""
    homes = [cuda_home] if cuda_home else [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    if not cuda_home:
        try:
            import cupy  # noqa: F401  (its own idea of the toolkit)
            homes.append(cupy.cuda.get_cuda_path())
        except Exception:  # no CuPy here, or no toolkit found by it
            pass
    for home in homes:
        if home and (pathlib.Path(home) / "include" / "cuda_runtime.h").exists():
            include = pathlib.Path(home) / "include"
            return [f"-I{include}"] + ([f"-I{include / 'cccl'}"] if (include / "cccl").is_dir() else [])
    # A pip-installed toolkit (nvidia-cuda-runtime / nvidia-cuda-nvrtc wheels): their headers, if any.
    try:
        import nvidia
        for base in nvidia.__path__:
            for header in sorted(pathlib.Path(base).glob("*/include/cuda_runtime.h")):
                include = header.parent
                return [f"-I{include}"] + ([f"-I{include / 'cccl'}"] if (include / "cccl").is_dir() else [])
    except Exception:
        pass
    return []  # NVRTC's built-in headers (cuda_fp16.h, cuda_bf16.h, ...) only


def compile_flags(knobs, arch, includes, extra=()):
    """NVRTC options, in the judge's order (cuda_compiler.cpp build_kernel); the -D defines sorted by name, as its std::map."""
    return ([f"--gpu-architecture={arch}", "--std=c++17", "-lineinfo", "--ptxas-options=-v"] + list(includes) + list(extra)
            + [f"-D{name}={value}" for name, value in sorted(knobs.items())])


def ptxas_resources(log):
    """Registers, spills and static shared memory from the ptxas -v report in NVRTC's log (the last kernel's)."""
    found = {}
    for pattern, key in ((r"Used (\d+) registers", "registers"), (r"(\d+) bytes spill stores", "spill_store_bytes"),
                         (r"(\d+) bytes spill loads", "spill_load_bytes"), (r"Used .*?(\d+) bytes smem", "static_shared_bytes")):
        matches = re.findall(pattern, log or "")
        if matches:
            found[key] = int(matches[-1])
    return found


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
    """One configuration's compiled kernel (or why it has none)."""

    def __init__(self):
        self.function = None
        self.module = None
        self.error = None
        self.log = ""
        self.seconds = 0.0
        self.resources = {}
        self.shared_set = 0  # the dynamic shared memory the function is allowed (cuFuncSetAttribute), past 48 KiB


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
            try:
                built.log = nvrtc.getProgramLog(program)
            except Exception:
                pass
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
        try:
            built.resources.setdefault(key, driver.funcGetAttribute(getattr(driver, attribute, number), built.function.ptr))
        except Exception:
            pass
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
    parser.add_argument("--tasks-dir", default=str(ROOT / "tasks"), help="for --self-test")
    options = parser.parse_args()
    if options.self_test:
        return self_test(pathlib.Path(options.tasks_dir))
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
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT / "python"))
    from torch_baselines import load_task, make_inputs
    from kernelarc_oracle import device_times_ns, pin_precision

    precision = pin_precision()
    _, _, reference = load_task(task_dir)
    device = torch.cuda.current_device()
    cupy.cuda.Device(device).use()
    properties = torch.cuda.get_device_properties(device)
    arch = options.arch
    if arch == "auto":
        arch = "sm_90a" if (properties.major, properties.minor) == (9, 0) else f"sm_{properties.major}{properties.minor}"
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
    try:
        nvrtc_version = ".".join(str(v) for v in nvrtc_module().getVersion())
    except Exception:
        nvrtc_version = None

    record = {"task": definition["name"], "template": template["name"], "source": template["source"], "kernel": kernel,
              "device": properties.name, "torch": torch.__version__, "cupy": cupy.__version__, "nvrtc": nvrtc_version,
              "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "iterations": options.iterations,
              "warmup": options.warmup, "l2_flush_bytes": flush.numel() * 4, "precision": precision,
              "nvrtc_flags": compile_flags({}, arch, includes, options.nvrtc_flag) + ["-DKNOB=VALUE ..."],
              "configs": [], "workloads": [], "summary": []}
    by_name = {}
    for config in configs:
        entry = {"name": config["name"], "knobs": config["knobs"], "skipped": config["error"], "notes": config["notes"]}
        record["configs"].append(entry)
        by_name[config["name"]] = entry

    def write():
        if options.out:
            pathlib.Path(options.out).write_text(json.dumps(record, indent=1) + "\n")

    builds = {}

    def built_for(config):
        key = tuple(sorted(config["knobs"].items()))
        if key not in builds:
            flags = compile_flags(config["knobs"], arch, includes, options.nvrtc_flag)
            try:
                built = build_kernel(source, flags, kernel, template["source"])
            except Exception as error:
                built = Built()
                built.error = f"{type(error).__name__}: {error}"
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
            generator = torch.Generator(device="cuda").manual_seed(1)
            args = make_inputs(definition, workload, generator)
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
                    geometry = launch_geometry(template, definition, axes, config["knobs"])
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
                    again = check_outputs(torch, definition, outputs, expected, row["tolerance"])[0]
                    if ok and not again:
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
# Self-test of the pure logic (no GPU)

def self_test(tasks_dir):
    failures = []

    def expect(label, got, want):
        same = (got == want) if not (isinstance(want, float) and isinstance(got, float)) else (
            got == want or abs(got - want) <= 1e-12 * max(1.0, abs(want)))
        if not same:
            failures.append(f"{label}: got {got!r}, expected {want!r}")

    def expect_error(label, text, bindings, fragment):
        try:
            Expression(text).evaluate(bindings)
        except ExpressionError as error:
            if fragment not in str(error):
                failures.append(f"{label}: error {error} lacks {fragment!r}")
            return
        failures.append(f"{label}: no error")

    b = {"a": 7.0, "b": 2.0, "n": -7.0, "z": 0.0}
    cases = [("1 + 2 * 3", 7.0), ("-2**2", -4.0), ("2**-1", 0.5), ("2**3**2", 512.0), ("a // b", 3.0), ("n // b", -4.0),
             ("a % b", 1.0), ("n % b", 1.0), ("a % -b", -1.0), ("a / b", 3.5), ("ceil_div(a, b)", 4.0),
             ("ceil_div(n, b)", -3.0), ("ceil_div(8, 2)", 4.0), ("min(a, b, 1)", 1.0), ("max(a, b)", 7.0),
             ("a > b && b > 1", 1.0), ("a > b and not b > 1", 0.0), ("!z", 1.0), ("not a == 7", 0.0), ("z || b", 1.0),
             ("(a == 7) * 3", 3.0), ("True + true + False", 2.0), ("floor(a / b)", 3.0), ("ceil(a / b)", 4.0),
             ("abs(n)", 7.0), ("sqrt(16)", 4.0), ("log2(1024)", 10.0), ("1e3 + .5", 1000.5), ("7.5 // 2", 3.0),
             ("-7.5 // 2", -4.0), ("-7.5 % 2", 0.5), ("z or (1 // z)", None), ("b and z and (1 // z)", 0.0),
             ("a >= 7 or 1 // z", 1.0), ("132 * 0 // 8 + (0 == 0) * ceil_div(5, 2)", 3.0)]
    for text, want in cases:
        if want is None:
            continue
        expect(text, Expression(text).evaluate(b), want)
    expect_error("chained", "1 < 2 < 3", b, "chained comparisons")
    expect_error("unknown var", "q + 1", b, "unknown variable 'q'")
    expect_error("div0", "a / z", b, "division by zero")
    expect_error("fdiv0", "a // z", b, "floor division by zero")
    expect_error("mod0", "a % z", b, "modulo by zero")
    expect_error("or evaluates right", "z or (1 // z)", b, "floor division by zero")
    expect_error("single =", "a = b", b, "use '=='")
    expect_error("single &", "a & b", b, "use '&&'")
    expect_error("function", "foo(1)", b, "unknown function 'foo'")
    expect_error("arity", "min(1)", b, "expects at least 2 arguments, got 1")
    expect_error("arity2", "ceil_div(1, 2, 3)", b, "expects 2 arguments, got 3")
    expect_error("empty", "   ", b, "expression is empty")
    expect_error("trailing", "1 2", b, "unexpected '2' after a complete expression")
    expect_error("paren", "(1 + 2", b, "expected ')' to close '(' at column 0")
    expect_error("keyword", "and", b, "unexpected keyword 'and'")
    expect_error("exponent", "1e+", b, "exponent needs digits")
    expect_error("overflow", "10 ** 400", b, "is not a finite number")
    expect_error("sqrt", "sqrt(n)", b, "sqrt of a negative number (-7)")
    expect_error("log2", "log2(z)", b, "log2 of a non-positive number (0)")
    expect_error("zero power", "z ** -1", b, "zero raised to a negative power")
    expect_error("depth", "-" * 70 + "1", b, "nests deeper than 64")
    try:
        Expression("a / b").evaluate_integer(b)
        failures.append("evaluate_integer 3.5: no error")
    except ExpressionError as error:
        expect("evaluate_integer message", "is not an integer" in str(error), True)
    expect("variables", Expression("min(x, y) + x * z // 2").variables, ["x", "y", "z"])

    # Config expansion over a made-up template.
    template = {"name": "t", "knobs": [{"name": "A", "values": [4, 1, 2, 8]}, {"name": "B", "values": [True, False]},
                                       {"name": "C", "values": [0, 1]}],
                "constraints": ["A * (1 + C) <= 8", "A <= num_tokens"],
                "launch": {"kernel": "k", "grid": ["ceil_div(num_tokens, A)"], "block": ["32 * A", "1 + C"],
                           "shared_bytes": "C * 1024"}}
    configs = expand_configs(template, [{"name": "d", "knobs": {}}, {"name": "s", "knobs": {"A": [1, 8], "C": [0, 1]}},
                                        {"name": "bad", "knobs": {"Q": 1}}, {"name": "f", "knobs": {"A": 2.5}},
                                        {"knobs": {"A": 3}}])
    expect("expanded names", [c["name"] for c in configs],
           ["d", "s[A=1,C=0]", "s[A=1,C=1]", "s[A=8,C=0]", "s[A=8,C=1]", "bad", "f", "A=3"])
    expect("defaults", configs[0]["knobs"], {"A": 4, "B": 1, "C": 0})
    expect("constraint skip", [bool(c["error"]) for c in configs], [False, False, False, False, True, True, True, False])
    expect("axis constraint ignored", configs[0]["error"], None)
    expect("outside values noted", len(configs[-1]["notes"]), 1)
    expect("default word", [c["name"] for c in expand_configs(template, "default")], ["default"])
    definition = {"name": "t", "axes": {"num_tokens": {"type": "var"}, "c": {"type": "const", "value": 3},
                                        "twice": {"type": "expr", "expression": "2 * hidden"}, "hidden": {"type": "var"}},
                  "constraints": ["hidden >= 1"]}
    axes = resolve_axes(definition, {"uuid": "w", "axes": {"num_tokens": 5, "hidden": 64}})
    expect("axes", axes, {"num_tokens": 5.0, "c": 3.0, "hidden": 64.0, "twice": 128.0})
    geometry = launch_geometry(template, definition, axes, configs[2]["knobs"])
    expect("geometry", geometry, {"kernel": "k", "grid": [5], "block": [32, 2], "shared_bytes": 1024, "arguments": [5, 64]})
    try:
        launch_geometry(template, definition, axes, {"A": 64, "B": 1, "C": 0})
        failures.append("block limit: no error")
    except ValueError as error:
        expect("block limit", "expected 1 to 1024" in str(error), True)
    expect("flags", compile_flags({"B": 1, "A": 2}, "sm_90a", ["-I/x"]),
           ["--gpu-architecture=sm_90a", "--std=c++17", "-lineinfo", "--ptxas-options=-v", "-I/x", "-DA=2", "-DB=1"])
    expect("ptxas", ptxas_resources("ptxas info    : Used 40 registers, used 1 barriers, 16 bytes smem, 400 bytes cmem[0]\n"
                                    "   0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads"),
           {"registers": 40, "spill_store_bytes": 8, "spill_load_bytes": 4, "static_shared_bytes": 16})
    expect("geomean", round(geomean([1.0, 4.0, None]), 12), 2.0)
    expect("tolerance default", tolerance_of({}), {"max_atol": 1e-2, "max_rtol": 1e-2, "required_matched_ratio": 0.99,
                                                   "max_error_cap": None, "allow_negative_inf": False})

    # Every kernel-only CUDA template of every task: its first workload with the default knobs.
    print(f"kernel-only CUDA templates under {tasks_dir}:")
    for definition_file in sorted(tasks_dir.glob("*/definition.json")):
        task_dir = definition_file.parent
        definition, workloads = read_task(task_dir)
        for template in kernel_templates(definition):
            label = f"{definition['name']}/{template['name']}"
            try:
                knobs = default_knobs(template)
                broken = violated_constraints(template, knobs)
                for text in template.get("constraints", []):
                    Expression(text)  # every constraint parses, even those naming axes
                texts = list(template["launch"]["grid"]) + list(template["launch"]["block"]) + (
                    [template["launch"]["shared_bytes"]] if "shared_bytes" in template["launch"] else [])
                unknown = sorted({v for t in texts for v in Expression(t).variables} - set(knobs) - set(definition["axes"]))
                axes = resolve_axes(definition, workloads[0])
                geometry = launch_geometry(template, definition, axes, knobs)
                tolerance = tolerance_of(workloads[0])
                source = task_dir / template["source"]
                declared = re.search(r'extern\s+"C"\s+__global__[^;{]*?\b' + re.escape(geometry["kernel"]) + r"\s*\(",
                                     source.read_text()) if source.exists() else None
                pointer_count = len(definition["inputs"]) + len(definition["outputs"])
                print(f"  {label}: {workloads[0]['uuid']} {geometry['kernel']} grid {geometry['grid']} block {geometry['block']}"
                      f" shared {geometry['shared_bytes']} args {pointer_count} pointers + {geometry['arguments']}"
                      f" atol {tolerance['max_atol']:g} rtol {tolerance['max_rtol']:g}"
                      + (f"  DEFAULT KNOBS VIOLATE {broken}" if broken else ""))
                if broken:
                    failures.append(f"{label}: default knobs violate {broken}")
                if unknown:
                    failures.append(f"{label}: launch names unknown variables {unknown}")
                if not declared:
                    failures.append(f"{label}: no extern \"C\" __global__ {geometry['kernel']}( in {source.name}")
                # Every workload, default knobs: the geometry must evaluate within the judge's limits.
                for workload in workloads:
                    launch_geometry(template, definition, resolve_axes(definition, workload), knobs)
                # And every single-knob change from the default that the constraints allow, on every workload.
                variants = 0
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
        print("\nFAILED:")
        for failure in failures:
            print(f"  {failure}")
        return 1
    print("\nself-test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
