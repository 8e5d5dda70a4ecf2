"""compile_selector: cel-cpp parse and check, Kubernetes validators, upstream's compile error texts."""

from __future__ import annotations

import re
import threading
from typing import Any

from drasim.cel import cost
from drasim.cel.ast import (
    DYN,
    CelType,
    CheckedAst,
    Const,
    CreateList,
    CreateStruct,
    Expr,
    Select,
    decode_checked,
    decode_parsed,
    walk,
)
from drasim.cel.ast import Call as CallExpr
from drasim.cel.cost import CostLimitExceeded
from drasim.cel.device import Activation, DeviceInput
from drasim.cel.env import DEFAULT_ENV, CelEnvironment, cel_env
from drasim.cel.errors import CelCompileError, CelRuntimeError
from drasim.cel.evaluate import CompileError, compile_program, has_comprehension
from drasim.cel.library.regex import regex_error
from drasim.cel.library.timeutil import duration_from_string, timestamp_from_string
from drasim.cel.reads import Read, device_reads
from drasim.cel.values import DEVICE_TYPE, EvalError, type_name

# resourceapi.CELSelectorExpressionMaxLength (bytes).
MAX_EXPRESSION_LENGTH = 10 * 1024

_COST_ERROR = "operation cancelled: actual cost limit exceeded"


# --- error rendering -----------------------------------------------------------------------------

def _location(source: str, offset: int) -> tuple[int, int, str]:
    """(line, 0-based column, line text) of a code-point offset."""
    line_start = 0
    line = 1
    for i, ch in enumerate(source):
        if i >= offset:
            break
        if ch == "\n":
            line += 1
            line_start = i + 1
    end = source.find("\n", line_start)
    text = source[line_start:] if end < 0 else source[line_start:end]
    return line, offset - line_start, text


def render_error(source: str, offset: int, message: str) -> str:
    """One issue the way cel-go prints it: header, source line, caret line."""
    line, col, text = _location(source, offset)
    snippet = text.replace("\t", " ")
    return f"ERROR: <input>:{line}:{col + 1}: {message}\n | {snippet}\n | {'.' * col}^"


_ISSUE = re.compile(r"^ERROR: <input>:(\d+):(\d+): (.*)$")


def _split_issues(text: str) -> list[tuple[int, int, str, str]]:
    """cel-cpp's error text as (line, column, message, full text) issues."""
    issues: list[tuple[int, int, str, str]] = []
    chunks = re.split(r"\n(?=ERROR: <input>:)", text)
    for chunk in chunks:
        first, _, _rest = chunk.partition("\n")
        m = _ISSUE.match(first)
        if not m:
            issues.append((0, 0, chunk, chunk))
            continue
        issues.append((int(m.group(1)), int(m.group(2)), m.group(3), chunk))
    return issues


def _offset_of(source: str, line: int, col1: int) -> int:
    lines = source.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + col1 - 1


_TYPE_IN_QUOTES = re.compile(r"'([^']*)'")


def _go_type_names(msg: str) -> str:
    """cel-cpp prints google.protobuf.Any as `any`; cel-go by its full name."""
    def fix(m: re.Match[str]) -> str:
        return "'" + re.sub(r"(?<![\w.])any(?![\w.])", "google.protobuf.Any", m.group(1)) + "'"
    return _TYPE_IN_QUOTES.sub(fix, msg)


def _translate_checker_errors(source: str, text: str, parsed: tuple[Expr, dict[int, int]] | None) -> str:
    """Rewrite cel-cpp checker messages that differ from cel-go's."""
    by_offset: dict[int, Expr] = {}
    if parsed is not None:
        root, positions = parsed
        for n in walk(root):
            pos = positions.get(n.id)
            if pos is not None and (type(n) is Select or type(n) is CallExpr):
                by_offset.setdefault(pos, n)
    out = []
    for line, col, msg, full in _split_issues(text):
        if "'*error*'" in msg:
            continue  # cel-go does not report follow-on errors on error-typed operands
        if line == 0:
            out.append(full)
            continue
        offset = _offset_of(source, line, col)
        node = by_offset.get(offset)
        new = msg
        m = re.match(r"expression of type '([^']*)' cannot be the operand of a select operation$", msg)
        if m:
            if m.group(1) == DEVICE_TYPE and type(node) is Select:
                new = f"undefined field '{node.field}'"
            else:
                new = f"type '{m.group(1)}' does not support field selection"
        m = re.match(r"found no matching overload for '([^']*)' applied to '\((.*)\)'$", msg)
        if m and type(node) is CallExpr and node.target is not None:
            args = m.group(2)
            depth = 0
            split_at = len(args)
            for i, ch in enumerate(args):
                depth += ch == "("
                depth -= ch == ")"
                if ch == "," and depth == 0:
                    split_at = i
                    break
            recv, rest = args[:split_at], args[split_at + 1:].strip()
            new = f"found no matching overload for '{m.group(1)}' applied to '{recv}.({rest})'"
        new = _go_type_names(new)
        if new == msg:
            out.append(full)
        else:
            out.append(render_error(source, offset, new))
    return "\n".join(out)


def _cel_cpp_message(e: Exception) -> str:
    """cel-cpp's status text without the `INVALID_ARGUMENT: ` prefix and ` [INVALID_ARGUMENT]` suffix."""
    text = str(e)
    m = re.match(r"^([A-Z_]+): ", text)
    if m:
        text = text[m.end():]
        text = text.removesuffix(f" [{m.group(1)}]")
    return text


# --- validators (cel.ASTValidators of the Kubernetes base environment) --------------------------

def _exempt(parents: dict[int, Expr], e: Expr) -> bool:
    """Literals nested (through other literals) directly inside a `format` call are exempt."""
    p = parents.get(e.id)
    while p is not None:
        if type(p) is CallExpr:
            return p.function == "format"
        if type(p) not in (CreateList, CreateStruct):
            return False
        p = parents.get(p.id)
    return False


def _is_empty_literal(e: Expr) -> bool:
    return (type(e) is CreateList and not e.elements) or (type(e) is CreateStruct and not e.entries)


def _validate(ast: CheckedAst, source: str) -> list[tuple[int, str]]:
    issues: list[tuple[int, str]] = []
    parents: dict[int, Expr] = {}
    nodes = list(walk(ast.expr))
    for n in nodes:
        for ch in n.children():
            parents[ch.id] = n

    def pos(e: Expr) -> int:
        return ast.positions.get(e.id, 0)

    def mismatch(e: Expr, expected: CelType, actual: CelType) -> None:
        issues.append((pos(e), f"expected type '{expected}' but found '{actual}'"))

    def elem_type(e: Expr, optional: bool) -> CelType:
        t = ast.type_of(e)
        if optional and t.kind == "abstract" and t.name == "optional_type" and t.params:
            return t.params[0]
        return t

    for n in nodes:
        if type(n) is CreateList and not _exempt(parents, n):
            first: CelType | None = None
            first_empty = False
            for i, el in enumerate(n.elements):
                t = elem_type(el, i in n.optional_indices)
                if first is None:
                    first, first_empty = t, _is_empty_literal(el)
                    continue
                if t != first and not (first_empty or _is_empty_literal(el)):
                    mismatch(el, first, t)
                    break
        elif type(n) is CreateStruct and not n.message_name and not _exempt(parents, n):
            kt: CelType | None = None
            vt: CelType | None = None
            v_empty = False
            for ent in n.entries:
                if ent.key is None:
                    continue
                k, v = ast.type_of(ent.key), elem_type(ent.value, ent.optional)
                if kt is None or vt is None:
                    kt, vt, v_empty = k, v, _is_empty_literal(ent.value)
                    continue
                if k != kt:
                    mismatch(ent.key, kt, k)
                if v != vt and not (v_empty or _is_empty_literal(ent.value)):
                    mismatch(ent.value, vt, v)
        elif type(n) is CallExpr and n.args and type(n.args[0]) is Const:
            lit = n.args[0]
            if n.function == "matches" and type(lit.value) is str and regex_error(lit.value) is not None:
                issues.append((pos(lit), "invalid matches argument"))
            elif n.function in ("duration", "timestamp") and n.target is None and type(lit.value) is str:
                try:
                    (duration_from_string if n.function == "duration" else timestamp_from_string)(lit.value)
                except EvalError:
                    issues.append((pos(lit), f"invalid {n.function} argument"))
    issues.sort(key=lambda x: x[0])
    return issues


# --- programs ------------------------------------------------------------------------------------

def _conversion_error(v: Any) -> str:
    """cel-go's ConvertToNative(bool) error for a non-bool result."""
    t = type_name(v)
    if t == "string":
        return "unsupported native conversion from string to 'bool'"
    if t in ("int", "uint", "double"):
        return f"unsupported type conversion from '{t}' to bool"
    if t in ("list", "map"):
        return f"type conversion error from {t} to 'bool'"
    if t == "kubernetes.Quantity":
        return "type conversion error from 'Quantity' to 'bool'"
    if t == "kubernetes.Semver":
        return "type conversion error from 'Semver' to 'bool'"
    return f"type conversion error from '{t}' to 'bool'"


class Program:
    """A compiled selector. `evaluate` returns True/False or a CelRuntimeError (never raises)."""

    __slots__ = ("_fn", "_fresh", "_lists", "env", "expression", "max_cost", "reads")

    def __init__(self, expression: str, env: CelEnvironment, fn: Any, fresh_activation: bool,
                 max_cost: int | None, reads: tuple[Read, ...] | None = None) -> None:
        self.expression = expression
        self.env = env
        self._fn = fn
        self._fresh = fresh_activation
        self._lists = env.list_type_attributes
        self.max_cost = max_cost
        self.reads = reads  # the device entries the result depends on (cel.reads), None: unknown

    def __repr__(self) -> str:
        return f"Program({self.expression!r})"

    def evaluate(self, device: DeviceInput) -> bool | CelRuntimeError:
        ok = device._ok_lists if self._lists else device._ok
        if ok is not True:
            if ok is None:
                ok = device.check(self._lists)
            if ok is not True:
                return ok
        act = Activation(device) if self._fresh else device
        try:
            r = self._fn(act)
        except EvalError as e:
            return CelRuntimeError(e.message)
        except CostLimitExceeded:
            return CelRuntimeError(_COST_ERROR)
        except RecursionError:
            return CelRuntimeError("max recursion depth exceeded")
        if r is True or r is False:
            return r
        return CelRuntimeError(f"CEL result of type {type_name(r)} could not be converted to bool: "
                               f"{_conversion_error(r)}")


def _result_type_ok(t: CelType, env: CelEnvironment) -> bool:
    if t.kind == "bool":
        return True
    if env.list_type_attributes:
        return t.kind in ("dyn", "any")
    return t.kind == "any"


def _compile(expression: str, env: CelEnvironment) -> Program:
    if not env.stored and len(expression.encode("utf-8", "surrogatepass")) > MAX_EXPRESSION_LENGTH:
        raise CelCompileError(f"Too long: may not be more than {MAX_EXPRESSION_LENGTH} bytes")
    cenv = cel_env(env)
    try:
        checked = cenv.compile(expression)
    except Exception as e:  # cel-cpp reports every compile error as RuntimeError
        text = _cel_cpp_message(e)
        parsed = None
        if "Syntax error" not in text:
            try:
                parsed = decode_parsed(cenv.compile(expression, disable_check=True).serialize())
            except Exception:
                parsed = None
            text = _translate_checker_errors(expression, text, parsed)
        raise CelCompileError("compilation failed: " + text) from None
    ast = decode_checked(checked.serialize())
    issues = _validate(ast, expression)
    if issues:
        raise CelCompileError("compilation failed: " + "\n".join(
            render_error(expression, off, msg) for off, msg in issues))
    out_type = ast.types.get(ast.expr.id, DYN)
    if not _result_type_ok(out_type, env):
        raise CelCompileError(f"must evaluate to bool or the unknown type, not {out_type}")
    max_cost = None
    if not env.stored:
        max_cost = cost.estimate(ast)
        if max_cost > cost.ESTIMATED_COST_LIMIT:
            raise CelCompileError("too complex, exceeds cost limit")
    try:
        fn = compile_program(ast, env)
    except CompileError as e:
        raise CelCompileError(f"compilation failed: {e}") from None
    fresh = has_comprehension(ast) or any(
        type(n) is CallExpr and cost.call_cost(n.function) is not None for n in walk(ast.expr))
    return Program(expression, env, fn, fresh, max_cost, device_reads(ast))


_cache: dict[tuple[str, CelEnvironment], Program] = {}
_cache_lock = threading.Lock()


def compile_selector(expression: str, env: CelEnvironment = DEFAULT_ENV) -> Program:
    """Compile a device selector (cached per expression and environment for the process).
    Raises CelCompileError; compile errors are not cached, like upstream."""
    key = (expression, env)
    prog = _cache.get(key)
    if prog is not None:
        return prog
    prog = _compile(expression, env)
    with _cache_lock:
        return _cache.setdefault(key, prog)
