"""Kubernetes `Semver` library (version 1), and the comparison members it shares with Quantity."""

from __future__ import annotations

from typing import Any

from drasim.api.quantity import Quantity
from drasim.api.semver import Semver
from drasim.cel.library import Function, glob, member
from drasim.cel.library.standard import no_overload
from drasim.cel.values import QUANTITY_TYPE, SEMVER_TYPE, EvalError
from drasim.errors import SemverError

S = SEMVER_TYPE
Q = QUANTITY_TYPE


def parse_semver(s: Any, normalize: Any = False) -> Semver:
    if type(s) is not str or type(normalize) is not bool:
        raise no_overload()
    try:
        return Semver.parse_relaxed(s) if normalize else Semver.parse(s)
    except SemverError as e:
        raise EvalError(str(e)) from None


def is_semver(s: Any, normalize: Any = False) -> bool:
    try:
        parse_semver(s, normalize)
    except EvalError as e:
        if e.message == "no such overload":
            raise
        return False
    return True


def _v(x: Any) -> Semver:
    if type(x) is not Semver:
        raise no_overload()
    return x


def major(v: Any) -> int:
    return int(_v(v).major)


def minor(v: Any) -> int:
    return int(_v(v).minor)


def patch(v: Any) -> int:
    return int(_v(v).patch)


def compare_to(a: Any, b: Any) -> int:
    ta = type(a)
    if ta is not type(b):
        raise no_overload()
    if ta is Quantity:
        return int(a.cmp(b))
    if ta is Semver:
        return int(a.compare(b))
    raise no_overload()


def is_greater_than(a: Any, b: Any) -> bool:
    return compare_to(a, b) == 1


def is_less_than(a: Any, b: Any) -> bool:
    return compare_to(a, b) == -1


FUNCTIONS: list[Function] = [
    Function("semver", (glob("string_to_semver", ("string",), S),
                        glob("string_bool_to_semver", ("string", "bool"), S)), parse_semver),
    Function("isSemver", (glob("is_semver_string", ("string",), "bool"),
                          glob("is_semver_string_bool", ("string", "bool"), "bool")), is_semver),
    Function("major", (member("semver_major", (S,), "int"),), major),
    Function("minor", (member("semver_minor", (S,), "int"),), minor),
    Function("patch", (member("semver_patch", (S,), "int"),), patch),
    Function("isGreaterThan", (member("quantity_is_greater_than", (Q, Q), "bool"),
                               member("semver_is_greater_than", (S, S), "bool")), is_greater_than),
    Function("isLessThan", (member("quantity_is_less_than", (Q, Q), "bool"),
                            member("semver_is_less_than", (S, S), "bool")), is_less_than),
    Function("compareTo", (member("quantity_compare_to", (Q, Q), "int"),
                           member("semver_compare_to", (S, S), "int")), compare_to),
]
