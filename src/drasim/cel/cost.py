"""CEL cost: the runtime limit (metered per loop iteration and sized call) and a compile-time estimate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drasim.cel.ast import Call as CallExpr
from drasim.cel.ast import (
    CheckedAst,
    Comprehension,
    Const,
    CreateList,
    CreateStruct,
    Expr,
    Ident,
    Select,
    walk,
)

# resourceapi.CELSelectorExpressionMaxCost: both the runtime limit per evaluation and the limit
# on the estimated worst case for new expressions.
RUNTIME_COST_LIMIT = 1_000_000
ESTIMATED_COST_LIMIT = 1_000_000

# resource.k8s.io limits that bound the sizes of the `device` variable.
_MAX_ATTRIBUTES = 32          # ResourceSliceMaxAttributesAndCapacitiesPerDevice
_MAX_VALUE_LENGTH = 64        # DeviceAttributeMaxValueLength
_MAX_LIST_VALUES = 64         # max(DeviceAttributeMaxValueLength, ResourceSliceMaxAttributeValuesPerDevice)
_MAX_DRIVER = 63              # DriverNameMaxLength
_MAX_ID = 32                  # DeviceMaxIDLength
_MAX_DOMAIN = 63              # DeviceMaxDomainLength
UNBOUNDED = 1 << 32           # a size the estimator cannot bound


class CostLimitExceeded(Exception):
    """The runtime cost limit was reached; the evaluation is abandoned (never absorbed)."""


def iteration_cost(e: Comprehension) -> int:
    """Cost charged for one iteration: one unit per node of the loop condition and step."""
    n = sum(1 for x in walk(e.loop_condition) if type(x) is not Const)
    n += sum(1 for x in walk(e.loop_step) if type(x) is not Const)
    return max(n, 1)


def _len(v: Any) -> int:
    try:
        return len(v)
    except TypeError:
        return 0


def _tenth(*vals: Any) -> int:
    return sum(_len(v) for v in vals if isinstance(v, (str, bytes, list, tuple, dict))) // 10


def _add_cost(a: Any, b: Any) -> int:
    ta = type(a)
    if ta is str or ta is list or ta is bytes:
        return (len(a) + len(b)) // 10
    return 0


def _regex_cost(s: Any, pattern: Any, *_: Any) -> int:
    return _len(s) * max(_len(pattern), 1) // 10


def _range_cost(n: Any) -> int:
    return n if type(n) is int and n > 0 else 0


_CALL_COSTS: dict[str, Callable[..., int]] = {
    "_+_": _add_cost, "matches": _regex_cost, "find": _regex_cost, "findAll": _regex_cost,
    "split": _tenth, "join": _tenth, "replace": _tenth, "format": _tenth, "flatten": _tenth,
    "sort": _tenth, "distinct": _tenth, "lists.range": _range_cost, "sets.contains": _tenth,
    "sets.equivalent": _tenth, "sets.intersects": _tenth,
}


def call_cost(function: str) -> Callable[..., int] | None:
    """The runtime cost function of a call (arguments in, cost units out), or None when free."""
    return _CALL_COSTS.get(function)


# --- compile-time estimate -----------------------------------------------------------------------

# Calls whose result is no larger than their receiver.
_SAME_SIZE = frozenset({"split", "findAll", "lowerAscii", "upperAscii", "trim", "substring", "slice",
                        "distinct", "sort", "reverse", "find", "charAt"})
_SIZED_KINDS = frozenset({"string", "bytes", "list", "map", "dyn", "any"})


class _Estimator:
    """Worst-case cost in the spirit of cel-go's estimator, with coarser sizes: strings/lists of
    unknown origin are UNBOUNDED, so any comprehension over them exceeds the limit."""

    def __init__(self, ast: CheckedAst) -> None:
        self.ast = ast
        self.var_sizes: dict[str, int] = {}

    def size(self, e: Expr) -> int:
        if type(e) is Const:
            return _len(e.value)
        if type(e) is CreateList:
            return len(e.elements)
        if type(e) is CreateStruct:
            return len(e.entries)
        if type(e) is Ident:
            ref = self.ast.refs.get(e.id)
            name = ref.name if ref is not None and ref.name else e.name
            if name in self.var_sizes:
                return self.var_sizes[name]
            return {"device.driver": _MAX_DRIVER, "device.attributes": _MAX_ATTRIBUTES,
                    "device.capacity": _MAX_ATTRIBUTES}.get(name, UNBOUNDED)
        if type(e) is Select:
            if self._is_device_domain(e.operand):
                return _MAX_LIST_VALUES
            return UNBOUNDED
        if type(e) is CallExpr:
            f = e.function
            if f == "_[_]":
                if self._is_device_map(e.args[0]):
                    return _MAX_ATTRIBUTES
                if self._is_device_domain(e.args[0]):
                    return _MAX_LIST_VALUES
            if f == "lists.range" and type(e.args[0]) is Const and type(e.args[0].value) is int:
                return max(e.args[0].value, 0)
            if f in ("size", "int", "uint", "double", "bool"):
                return 1
            if f in _SAME_SIZE and e.target is not None:
                return self.size(e.target)
            if f == "_+_":
                return min(sum(self.size(a) for a in e.args), UNBOUNDED)
            if f == "replace" and e.target is not None:
                return min(self.size(e.target) * max(self.size(e.args[1]), 1), UNBOUNDED)
            return UNBOUNDED
        if type(e) is Comprehension:
            # map/filter produce at most one element per iteration.
            return self.size(e.iter_range)
        return UNBOUNDED

    def _is_device_map(self, e: Expr) -> bool:
        if type(e) is not Ident:
            return False
        ref = self.ast.refs.get(e.id)
        name = ref.name if ref is not None and ref.name else e.name
        return name in ("device.attributes", "device.capacity")

    def _is_device_domain(self, e: Expr) -> bool:
        return (type(e) is CallExpr and e.function == "_[_]" and bool(e.args)
                and self._is_device_map(e.args[0]))

    def cost(self, e: Expr) -> int:
        if type(e) is Const:
            return 0
        if type(e) is Ident:
            return 1
        if type(e) is Select:
            return 1 + self.cost(e.operand)
        if type(e) is CreateList:
            return 10 + sum(self.cost(x) for x in e.elements)
        if type(e) is CreateStruct:
            return 30 + sum(self.cost(x) for x in e.children())
        if type(e) is CallExpr:
            args = ([e.target] if e.target is not None else []) + list(e.args)
            total = 1 + sum(self.cost(a) for a in args)
            if e.function in _CALL_COSTS:
                sized = [a for a in args if self.ast.type_of(a).kind in _SIZED_KINDS]
                sizes = [self.size(a) for a in sized]
                total += min(sum(min(s, UNBOUNDED) for s in sizes), UNBOUNDED) // 10 + 1
            return total
        if type(e) is Comprehension:
            n = self.size(e.iter_range)
            base = self.cost(e.iter_range) + self.cost(e.accu_init) + self.cost(e.result)
            elem = _MAX_VALUE_LENGTH if n != UNBOUNDED else UNBOUNDED
            saved = {k: self.var_sizes.get(k) for k in (e.iter_var, e.iter_var2, e.accu_var) if k}
            self.var_sizes[e.iter_var] = elem
            if e.iter_var2:
                self.var_sizes[e.iter_var2] = elem
            self.var_sizes[e.accu_var] = n  # map/filter accumulate at most one element per iteration
            per = self.cost(e.loop_condition) + self.cost(e.loop_step)
            for k, v in saved.items():
                if v is None:
                    self.var_sizes.pop(k, None)
                else:
                    self.var_sizes[k] = v
            return base + n * per
        return 1


def estimate(ast: CheckedAst) -> int:
    """Worst-case cost estimate of a checked expression (see `_Estimator`)."""
    return _Estimator(ast).cost(ast.expr)
