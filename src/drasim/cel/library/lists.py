"""Kubernetes Lists (isSorted, sum, min, max), cel-go ext.Lists v3 and ext.Sets implementations."""

from __future__ import annotations

from functools import cmp_to_key
from itertools import pairwise
from typing import Any

from drasim.cel.library import Function, Impl, member
from drasim.cel.library.standard import add, no_overload
from drasim.cel.values import (
    OPTIONAL_NONE,
    Duration,
    EvalError,
    OptionalValue,
    Timestamp,
    UInt,
    cel_compare,
    cel_equal,
)


def _list(v: Any) -> list[Any] | tuple[Any, ...]:
    if not isinstance(v, (list, tuple)):
        raise no_overload()
    return v


def is_sorted(lst: Any) -> bool:
    return all(cel_compare(a, b) != 1 for a, b in pairwise(_list(lst)))


_ZERO: dict[str, Any] = {"int": 0, "uint": UInt(0), "double": 0.0, "duration": Duration(0)}


def _sum_impl(zero: Any) -> Impl:
    def sum_(lst: Any) -> Any:
        items = _list(lst)
        if not items:
            return zero
        acc = items[0]
        for x in items[1:]:
            acc = add(acc, x)
        return acc
    return sum_


def _extreme(name: str, prefer: int) -> Impl:
    def f(lst: Any) -> Any:
        items = _list(lst)
        if not items:
            raise EvalError(f"{name} called on empty list")
        result = items[0]
        for x in items[1:]:
            if cel_compare(result, x) == prefer:
                result = x
        return result
    return f


_COMPARABLE = ("int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes")
_CEL_NAMES = {"duration": "google.protobuf.Duration", "timestamp": "google.protobuf.Timestamp"}


def _templated(fmt: str, names: tuple[str, ...], result_is_elem: bool) -> tuple[Any, ...]:
    out = []
    for n in names:
        t = _CEL_NAMES.get(n, n)
        out.append(member(fmt.format(n=n), (f"list({t})",), t if result_is_elem else "bool"))
    return tuple(out)


def _sum_dispatch(lst: Any) -> Any:
    items = _list(lst)
    if not items:
        return 0
    return _sum_impl(0)(items)


# --- ext.Lists (declared by cel-cpp) -------------------------------------------------------------

def slice_(lst: Any, start: Any, end: Any) -> list[Any]:
    items = _list(lst)
    if type(start) is not int or type(end) is not int:
        raise no_overload()
    if start < 0 or end < 0:
        raise EvalError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise EvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(items) < end:
        raise EvalError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


def _flatten(items: Any, depth: int) -> list[Any]:
    out: list[Any] = []
    for x in items:
        if isinstance(x, (list, tuple)) and depth > 0:
            out.extend(_flatten(x, depth - 1))
        else:
            out.append(x)
    return out


def flatten(lst: Any, depth: Any = 1) -> list[Any]:
    items = _list(lst)
    if type(depth) is not int:
        raise no_overload()
    if depth < 0:
        raise EvalError("level must be non-negative")
    return _flatten(items, depth)


def _sort_by_keys(items: Any, keys: Any) -> list[Any]:
    items, keys = _list(items), _list(keys)
    if len(items) != len(keys):
        raise EvalError("@sortByAssociatedKeys() expected a list of the same size as the associated keys "
                        f"list, but got {len(items)} and {len(keys)} elements respectively")
    if not items:
        return []
    first = type(keys[0])
    if first not in (int, UInt, float, bool, str, bytes, Duration, Timestamp):
        raise EvalError("list elements must be comparable")
    for k in keys:
        if type(k) is not first:
            raise EvalError("list elements must have the same type")
    order = sorted(range(len(items)), key=cmp_to_key(lambda i, j: cel_compare(keys[i], keys[j])))
    return [items[i] for i in order]


def sort(lst: Any) -> list[Any]:
    return _sort_by_keys(lst, lst)


def distinct(lst: Any) -> list[Any]:
    out: list[Any] = []
    for x in _list(lst):
        if not any(cel_equal(x, y) for y in out):
            out.append(x)
    return out


def reverse(lst: Any) -> list[Any]:
    return list(reversed(_list(lst)))


def lists_range(n: Any) -> list[int]:
    if type(n) is not int:
        raise no_overload()
    return list(range(n)) if n > 0 else []


def first(lst: Any) -> Any:
    items = _list(lst)
    return OptionalValue(True, items[0]) if items else OPTIONAL_NONE


def last(lst: Any) -> Any:
    items = _list(lst)
    return OptionalValue(True, items[-1]) if items else OPTIONAL_NONE


# --- ext.Sets (declared by cel-cpp) --------------------------------------------------------------

def _contains_all(a: Any, b: Any) -> bool:
    return all(any(cel_equal(y, x) for x in a) for y in b)


def sets_contains(a: Any, b: Any) -> bool:
    return _contains_all(_list(a), _list(b))


def sets_equivalent(a: Any, b: Any) -> bool:
    a, b = _list(a), _list(b)
    return _contains_all(a, b) and _contains_all(b, a)


def sets_intersects(a: Any, b: Any) -> bool:
    a, b = _list(a), _list(b)
    return any(any(cel_equal(x, y) for y in b) for x in a)


# Implementations of functions cel-cpp's extensions declare, by function name.
EXT_IMPLS: dict[str, Impl] = {
    "slice": slice_, "flatten": flatten, "sort": sort, "@sortByAssociatedKeys": _sort_by_keys,
    "distinct": distinct, "reverse": reverse, "lists.range": lists_range, "first": first, "last": last,
    "sets.contains": sets_contains, "sets.equivalent": sets_equivalent, "sets.intersects": sets_intersects,
}


def _sum_function() -> Function:
    by_overload = {f"list_{n}_sum_{n}": _sum_impl(z) for n, z in _ZERO.items()}
    return Function("sum", _templated("list_{n}_sum_{n}", ("int", "uint", "double", "duration"), True),
                    _sum_dispatch, by_overload)


FUNCTIONS: list[Function] = [
    Function("isSorted", _templated("list_{n}_is_sorted_bool", _COMPARABLE, False), is_sorted),
    _sum_function(),
    Function("max", _templated("list_{n}_max_{n}", _COMPARABLE, True), _extreme("max", -1)),
    Function("min", _templated("list_{n}_min_{n}", _COMPARABLE, True), _extreme("min", 1)),
]
