"""CEL optionals: optional.of/ofNonZeroValue/none, value(), hasValue(); `or`/`orValue` are in evaluate."""

from __future__ import annotations

from typing import Any

from drasim.cel.library import Impl
from drasim.cel.library.standard import no_overload
from drasim.cel.values import OPTIONAL_NONE, Duration, EvalError, OptionalValue, Timestamp, UInt


def _is_zero(v: Any) -> bool:
    t = type(v)
    if v is None:
        return True
    if t is bool:
        return v is False
    if t is int or t is UInt or t is float:
        return bool(v == 0)
    if t in (str, bytes, list, tuple, dict) or isinstance(v, dict):
        return len(v) == 0
    if t is Duration or t is Timestamp:
        return bool(v.nanos == 0)
    return False


def of(v: Any) -> OptionalValue:
    return OptionalValue(True, v)


def of_non_zero(v: Any) -> OptionalValue:
    return OPTIONAL_NONE if _is_zero(v) else OptionalValue(True, v)


def none() -> OptionalValue:
    return OPTIONAL_NONE


def value(o: Any) -> Any:
    if type(o) is not OptionalValue:
        raise no_overload()
    if not o.present:
        raise EvalError("optional.none() dereference")
    return o.value


def has_value(o: Any) -> bool:
    if type(o) is not OptionalValue:
        raise no_overload()
    return bool(o.present)


IMPLS: dict[str, Impl] = {
    "optional.of": of, "optional.ofNonZeroValue": of_non_zero, "optional.none": none,
    "value": value, "hasValue": has_value,
}
