"""Function libraries of the DRA CEL environment: checker declarations plus Python implementations."""

# Each library module defines `FUNCTIONS`: a list of `Function` (name, overloads, generic
# implementation). Overload type signatures are strings (`int`, `list(A)`, `map(K, V)`,
# `kubernetes.Quantity`; single upper-case letters are type parameters). Functions that cel-cpp
# declares itself (standard library, ext.Lists, ext.Sets, optionals) only contribute implementations.

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Impl = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class Overload:
    """One overload as declared to the checker. `args` includes the receiver for member overloads."""

    id: str
    args: tuple[str, ...]
    result: str
    member: bool = False


@dataclass(slots=True)
class Function:
    """A function: its overloads and the Python implementation used for every overload.

    The implementation receives evaluated arguments (receiver first) and dispatches on the runtime
    types itself, raising `EvalError("no such overload")` for combinations it does not support.
    `by_overload` optionally maps overload ids to faster specialised implementations.
    """

    name: str
    overloads: tuple[Overload, ...]
    impl: Impl
    by_overload: dict[str, Impl] = field(default_factory=dict)


def member(oid: str, args: tuple[str, ...], result: str) -> Overload:
    """A receiver-style overload (`x.f(...)`)."""
    return Overload(oid, args, result, member=True)


def glob(oid: str, args: tuple[str, ...], result: str) -> Overload:
    """A global overload (`f(x, ...)`)."""
    return Overload(oid, args, result, member=False)
