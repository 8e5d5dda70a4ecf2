"""The CEL standard library: arithmetic with overflow errors, comparisons, conversions, strings."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from drasim.cel.library import Function, Impl, glob
from drasim.cel.library.timeutil import (
    add_time,
    duration_from_string,
    sub_time,
    timestamp_from_int,
    timestamp_from_string,
)
from drasim.cel.values import (
    Duration,
    EvalError,
    Timestamp,
    TypeValue,
    UInt,
    cel_compare,
    cel_equal,
    format_duration,
    format_timestamp,
    map_lookup,
    type_name,
)

INT_MIN = -(1 << 63)
INT_MAX = (1 << 63) - 1
UINT_MAX = (1 << 64) - 1


def no_overload() -> EvalError:
    return EvalError("no such overload")


def _int_result(v: int) -> int:
    if v < INT_MIN or v > INT_MAX:
        raise EvalError("integer overflow")
    return v


def _uint_result(v: int) -> UInt:
    if v < 0 or v > UINT_MAX:
        raise EvalError("unsigned integer overflow")
    return UInt(v)


# --- arithmetic ----------------------------------------------------------------------------------

def add(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is not type(b):
        if ta is Timestamp and type(b) is Duration:
            return add_time(a, b)
        if ta is Duration and type(b) is Timestamp:
            return add_time(b, a)
        raise no_overload()
    if ta is int:
        return _int_result(a + b)
    if ta is str or ta is list or ta is bytes:
        return a + b
    if ta is float:
        return a + b
    if ta is UInt:
        return _uint_result(a + b)
    if ta is Duration:
        return Duration(_int_result(a.nanos + b.nanos))
    raise no_overload()


def subtract(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is not type(b):
        if ta is Timestamp and type(b) is Duration:
            return sub_time(a, b)
        raise no_overload()
    if ta is int:
        return _int_result(a - b)
    if ta is float:
        return a - b
    if ta is UInt:
        return _uint_result(a - b)
    if ta is Duration:
        return Duration(_int_result(a.nanos - b.nanos))
    if ta is Timestamp:
        return Duration(_int_result(a.nanos - b.nanos))
    raise no_overload()


def multiply(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is not type(b):
        raise no_overload()
    if ta is int:
        return _int_result(a * b)
    if ta is float:
        return a * b
    if ta is UInt:
        return _uint_result(a * b)
    raise no_overload()


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def divide(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is not type(b):
        raise no_overload()
    if ta is int:
        if b == 0:
            raise EvalError("division by zero")
        return _int_result(_trunc_div(a, b))
    if ta is float:
        if b == 0.0:
            if a == 0.0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    if ta is UInt:
        if b == 0:
            raise EvalError("division by zero")
        return UInt(a // b)
    raise no_overload()


def modulo(a: Any, b: Any) -> Any:
    ta = type(a)
    if ta is not type(b):
        raise no_overload()
    if ta is int:
        if b == 0:
            raise EvalError("modulus by zero")
        if a == INT_MIN and b == -1:
            raise EvalError("integer overflow")
        return a - b * _trunc_div(a, b)
    if ta is UInt:
        if b == 0:
            raise EvalError("modulus by zero")
        return UInt(a % b)
    raise no_overload()


def negate(a: Any) -> Any:
    ta = type(a)
    if ta is int:
        return _int_result(-a)
    if ta is float:
        return -a
    if ta is Duration:
        return Duration(_int_result(-a.nanos))
    raise no_overload()


def logical_not(a: Any) -> bool:
    if a is True:
        return False
    if a is False:
        return True
    raise no_overload()


# --- equality / ordering -------------------------------------------------------------------------

def equals(a: Any, b: Any) -> bool:
    return cel_equal(a, b)


def not_equals(a: Any, b: Any) -> bool:
    return not cel_equal(a, b)


def less(a: Any, b: Any) -> bool:
    return cel_compare(a, b) == -1


def less_equals(a: Any, b: Any) -> bool:
    return cel_compare(a, b) in (-1, 0)


def greater(a: Any, b: Any) -> bool:
    return cel_compare(a, b) == 1


def greater_equals(a: Any, b: Any) -> bool:
    return cel_compare(a, b) in (0, 1)


def in_(elem: Any, container: Any) -> bool:
    tc = type(container)
    if tc is list or tc is tuple:
        te = type(elem)
        if te is str:
            return any(type(x) is str and x == elem for x in container)
        return any(cel_equal(elem, x) for x in container)
    if isinstance(container, dict):
        return map_lookup(container, elem)[0]
    raise no_overload()


# --- size / strings ------------------------------------------------------------------------------

def size(v: Any) -> int:
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v)
    raise no_overload()


def contains(s: Any, sub: Any) -> bool:
    if type(s) is str and type(sub) is str:
        return sub in s
    raise no_overload()


def starts_with(s: Any, prefix: Any) -> bool:
    if type(s) is str and type(prefix) is str:
        return s.startswith(prefix)
    raise no_overload()


def ends_with(s: Any, suffix: Any) -> bool:
    if type(s) is str and type(suffix) is str:
        return s.endswith(suffix)
    raise no_overload()


# --- conversions ---------------------------------------------------------------------------------

def _go_parse_int(s: str, name: str) -> int:
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not body.isascii() or not body.isdigit():
        raise EvalError(f'strconv.{name}: parsing "{s}": invalid syntax')
    return int(s)


def to_int(v: Any) -> int:
    t = type(v)
    if t is int:
        return v
    if t is UInt:
        if v > INT_MAX:
            raise EvalError("integer overflow")
        return int(v)
    if t is float:
        if math.isnan(v) or math.isinf(v) or v <= float(INT_MIN) or v >= float(INT_MAX):
            raise EvalError("integer overflow")
        return int(v)
    if t is str:
        n = _go_parse_int(v, "ParseInt")
        if n < INT_MIN or n > INT_MAX:
            raise EvalError(f'strconv.ParseInt: parsing "{v}": value out of range')
        return n
    if t is Timestamp:
        return v.nanos // 1_000_000_000
    if t is Duration:
        return v.nanos
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'int'")


def to_uint(v: Any) -> UInt:
    t = type(v)
    if t is UInt:
        return v
    if t is int:
        if v < 0:
            raise EvalError("unsigned integer overflow")
        return UInt(v)
    if t is float:
        if math.isnan(v) or math.isinf(v) or v < 0 or v >= 18446744073709551616.0:
            raise EvalError("unsigned integer overflow")
        return UInt(int(v))
    if t is str:
        if v.startswith(("+", "-")):
            raise EvalError(f'strconv.ParseUint: parsing "{v}": invalid syntax')
        n = _go_parse_int(v, "ParseUint")
        if n > UINT_MAX:
            raise EvalError(f'strconv.ParseUint: parsing "{v}": value out of range')
        return UInt(n)
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'uint'")


def to_double(v: Any) -> float:
    t = type(v)
    if t is float:
        return v
    if t is int or t is UInt:
        return float(v)
    if t is str:
        s = v
        if s != s.strip() or not s or "_" in s:
            raise EvalError(f'strconv.ParseFloat: parsing "{v}": invalid syntax')
        try:
            return float(s)
        except ValueError:
            raise EvalError(f'strconv.ParseFloat: parsing "{v}": invalid syntax') from None
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'double'")


def format_double(d: float) -> str:
    """strconv.FormatFloat(d, 'g', -1, 64): Go's shortest `%g` representation."""
    if math.isnan(d):
        return "NaN"
    if math.isinf(d):
        return "+Inf" if d > 0 else "-Inf"
    if d == 0.0:
        return "-0" if math.copysign(1.0, d) < 0 else "0"
    sign, digits_t, exp = Decimal(repr(d)).as_tuple()
    digits = "".join(str(x) for x in digits_t).rstrip("0") or "0"
    assert isinstance(exp, int)
    nd = len(digits)
    # value = 0.digits * 10**dp
    dp = len("".join(str(x) for x in digits_t)) + exp
    eprec = 6
    if eprec > nd and nd >= dp:
        eprec = nd
    x = dp - 1
    prefix = "-" if sign else ""
    if x < -4 or x >= eprec:
        mant = digits[0] + ("." + digits[1:] if nd > 1 else "")
        esign = "-" if x < 0 else "+"
        return f"{prefix}{mant}e{esign}{abs(x):02d}"
    if dp <= 0:
        return f"{prefix}0.{'0' * (-dp)}{digits}"
    if dp >= nd:
        return f"{prefix}{digits}{'0' * (dp - nd)}"
    return f"{prefix}{digits[:dp]}.{digits[dp:]}"


def to_string(v: Any) -> str:
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return format_double(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if t is Timestamp:
        return format_timestamp(v)
    if t is Duration:
        return format_duration(v)
    if t is TypeValue:
        return v.name
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'string'")


_BOOL_STRINGS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
                 "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def to_bool(v: Any) -> bool:
    if type(v) is bool:
        return v
    if type(v) is str:
        b = _BOOL_STRINGS.get(v)
        if b is None:
            raise EvalError(f'strconv.ParseBool: parsing "{v}": invalid syntax')
        return b
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'bool'")


def to_bytes(v: Any) -> bytes:
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8", errors="surrogatepass")
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'bytes'")


def to_dyn(v: Any) -> Any:
    return v


def type_of(v: Any) -> TypeValue:
    return TypeValue(type_name(v))


def to_timestamp(v: Any) -> Timestamp:
    if type(v) is Timestamp:
        return v
    if type(v) is str:
        return timestamp_from_string(v)
    if type(v) is int:
        return timestamp_from_int(v)
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'google.protobuf.Timestamp'")


def to_duration(v: Any) -> Duration:
    if type(v) is Duration:
        return v
    if type(v) is str:
        return duration_from_string(v)
    if type(v) is int:
        return Duration(v)
    raise EvalError(f"type conversion error from '{type_name(v)}' to 'google.protobuf.Duration'")


# Implementations of the functions cel-cpp declares itself, by function name.
STANDARD_IMPLS: dict[str, Impl] = {
    "_+_": add, "_-_": subtract, "_*_": multiply, "_/_": divide, "_%_": modulo, "-_": negate,
    "!_": logical_not, "_==_": equals, "_!=_": not_equals, "@in": in_, "size": size,
    "contains": contains, "startsWith": starts_with, "endsWith": ends_with,
    "int": to_int, "uint": to_uint, "double": to_double, "string": to_string, "bool": to_bool,
    "bytes": to_bytes, "dyn": to_dyn, "type": type_of, "timestamp": to_timestamp,
    "duration": to_duration,
}


def _comparison(name: str, prefix: str, impl: Impl) -> Function:
    numeric = {"int64": "int", "uint64": "uint", "double": "double"}
    overloads = []
    for a, ta in numeric.items():
        for b, tb in numeric.items():
            oid = f"{prefix}_{a}" if a == b else f"{prefix}_{a}_{b}"
            overloads.append(glob(oid, (ta, tb), "bool"))
    for n, t in (("bool", "bool"), ("string", "string"), ("bytes", "bytes"),
                 ("timestamp", "google.protobuf.Timestamp"), ("duration", "google.protobuf.Duration")):
        overloads.append(glob(f"{prefix}_{n}", (t, t), "bool"))
    return Function(name, tuple(overloads), impl)


# The ordering operators are re-declared (the stdlib ones are excluded) to add Kubernetes'
# cross-type numeric comparisons (`1 < 2.0`, `1u < 2`).
FUNCTIONS: list[Function] = [
    _comparison("_<_", "less", less),
    _comparison("_<=_", "less_equals", less_equals),
    _comparison("_>_", "greater", greater),
    _comparison("_>=_", "greater_equals", greater_equals),
]
