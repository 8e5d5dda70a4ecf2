"""CEL runtime values in Python: uint, type values, optionals, errors, equality and ordering."""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

from drasim.api.quantity import Quantity
from drasim.api.semver import Semver


class UInt(int):
    """A CEL `uint` (Python ints are CEL `int`; bools are `bool`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class EvalError(Exception):
    """A CEL runtime error. Raised while evaluating; also stored as a value in comprehension
    accumulators (errors are values in CEL until something observes them)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TypeValue:
    """A CEL type used as a value (`type(x)`, `int`, `string`...)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeValue) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class OptionalValue:
    """A CEL optional: `optional.of(x)` or `optional.none()` (`present` False)."""

    __slots__ = ("present", "value")

    def __init__(self, present: bool, value: Any = None) -> None:
        self.present = present
        self.value = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OptionalValue):
            return False
        if self.present != other.present:
            return False
        return not self.present or cel_equal(self.value, other.value)

    def __hash__(self) -> int:
        return hash(("optional", self.present))

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


OPTIONAL_NONE = OptionalValue(False)


class Duration:
    """A CEL duration with nanosecond resolution."""

    __slots__ = ("nanos",)

    def __init__(self, nanos: int) -> None:
        self.nanos = nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Duration) and other.nanos == self.nanos

    def __lt__(self, other: Duration) -> bool:
        return self.nanos < other.nanos

    def __hash__(self) -> int:
        return hash(("duration", self.nanos))

    def __repr__(self) -> str:
        return f"duration({format_duration(self)!r})"


class Timestamp:
    """A CEL timestamp: nanoseconds since the Unix epoch (UTC)."""

    __slots__ = ("nanos",)

    def __init__(self, nanos: int) -> None:
        self.nanos = nanos

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timestamp) and other.nanos == self.nanos

    def __lt__(self, other: Timestamp) -> bool:
        return self.nanos < other.nanos

    def __hash__(self) -> int:
        return hash(("timestamp", self.nanos))

    def datetime(self) -> _dt.datetime:
        secs, ns = divmod(self.nanos, 1_000_000_000)
        return _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC) + _dt.timedelta(seconds=secs, microseconds=ns // 1000)

    def __repr__(self) -> str:
        return f"timestamp({format_timestamp(self)!r})"


def format_duration(d: Duration) -> str:
    """Duration as cel-go prints it: seconds with up to 9 fractional digits and an `s` suffix."""
    sign = "-" if d.nanos < 0 else ""
    secs, ns = divmod(abs(d.nanos), 1_000_000_000)
    if ns == 0:
        return f"{sign}{secs}s"
    frac = f"{ns:09d}".rstrip("0")
    return f"{sign}{secs}.{frac}s"


def format_timestamp(t: Timestamp) -> str:
    """RFC 3339 with the minimal fractional part, `Z` for UTC."""
    secs, ns = divmod(t.nanos, 1_000_000_000)
    when = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC) + _dt.timedelta(seconds=secs)
    base = when.strftime("%Y-%m-%dT%H:%M:%S")
    if ns:
        base += "." + f"{ns:09d}".rstrip("0")
    return base + "Z"


class DefaultingMap(dict):
    """`device.attributes` / `device.capacity`: looking up a missing domain yields an empty map
    (upstream wraps these two maps so); `in`, size and iteration see only the real domains."""

    __slots__ = ()


class DeviceValue:
    """The `device` variable used as a whole value (rare: `device == device`, `type(device)`)."""

    __slots__ = ("lists", "view")

    def __init__(self, view: Any, lists: bool) -> None:
        self.view = view
        self.lists = lists

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeviceValue) and other.view is self.view

    def __hash__(self) -> int:
        return id(self.view)


# --- type names ----------------------------------------------------------------------------------

QUANTITY_TYPE = "kubernetes.Quantity"
SEMVER_TYPE = "kubernetes.Semver"
DEVICE_TYPE = "kubernetes.DRADevice"

_TYPE_NAMES: dict[type, str] = {
    bool: "bool", int: "int", UInt: "uint", float: "double", str: "string", bytes: "bytes",
    type(None): "null_type", list: "list", tuple: "list", dict: "map", DefaultingMap: "map",
    TypeValue: "type",
    OptionalValue: "optional_type", Duration: "google.protobuf.Duration",
    Timestamp: "google.protobuf.Timestamp", Quantity: QUANTITY_TYPE, Semver: SEMVER_TYPE,
    DeviceValue: DEVICE_TYPE,
}

# Go %T of the value as cel-go/apiserver see it (used in "got '%T', expected iterable type").
_GO_TYPE_NAMES: dict[type, str] = {
    bool: "types.Bool", int: "types.Int", UInt: "types.Uint", float: "types.Double",
    str: "types.String", bytes: "types.Bytes", type(None): "types.Null", TypeValue: "*types.Type",
    OptionalValue: "*types.Optional", Duration: "types.Duration", Timestamp: "types.Timestamp",
    Quantity: "cel.Quantity", Semver: "cel.Semver", DeviceValue: "*types.baseMap",
}


def type_name(v: object) -> str:
    """The runtime type name of a value (cel-go `Type().TypeName()`)."""
    name = _TYPE_NAMES.get(type(v))
    if name is None:
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, UInt):
            return "uint"
        if isinstance(v, int):
            return "int"
        if isinstance(v, str):
            return "string"
        return type(v).__name__
    return name


def go_type_name(v: object) -> str:
    """The Go type name of a value, as cel-go formats it with %T."""
    return _GO_TYPE_NAMES.get(type(v), "types." + type(v).__name__)


# --- equality and ordering -----------------------------------------------------------------------

_NUMERIC = (int, UInt, float)


def _is_number(v: object) -> bool:
    t = type(v)
    return t is int or t is float or t is UInt


def cel_equal(a: object, b: object) -> bool:
    """CEL equality: heterogeneous (false across types) except numbers, which compare by value."""
    ta = type(a)
    tb = type(b)
    if ta is tb:
        if ta is list or ta is tuple:
            return _list_equal(a, b)  # type: ignore[arg-type]
        if ta is dict or ta is DefaultingMap:
            return _map_equal(a, b)  # type: ignore[arg-type]
        if ta is Quantity:
            return a.cmp(b) == 0  # type: ignore[attr-defined]
        if ta is Semver:
            return a.compare(b) == 0  # type: ignore[attr-defined]
        return a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return _map_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return _list_equal(a, b)
    return False


def _list_equal(a: list[Any] | tuple[Any, ...], b: list[Any] | tuple[Any, ...]) -> bool:
    if len(a) != len(b):
        return False
    return all(cel_equal(x, y) for x, y in zip(a, b, strict=True))


def map_key(k: object) -> object:
    """Normalise a map key so that numerically equal int/uint/double keys collide."""
    if type(k) is float and k.is_integer():
        return int(k)
    if type(k) is UInt:
        return int(k)
    return k


def map_lookup(m: dict[Any, Any], k: object) -> tuple[bool, Any]:
    """Look a key up in a CEL map, honouring numeric key equivalence and bool/int separation."""
    tk = type(k)
    if tk is str:
        if k in m:
            return True, m[k]
        return False, None
    if tk is bool:
        for mk, mv in m.items():
            if type(mk) is bool and mk == k:
                return True, mv
        return False, None
    if _is_number(k):
        if tk is float and not float(k).is_integer():  # type: ignore[arg-type]
            return False, None
        for mk, mv in m.items():
            if _is_number(mk) and mk == k:
                return True, mv
        return False, None
    if k in m:
        return True, m[k]
    return False, None


def _map_equal(a: dict[Any, Any], b: dict[Any, Any]) -> bool:
    if len(a) != len(b):
        return False
    for k, v in a.items():
        found, w = map_lookup(b, k)
        if not found or not cel_equal(v, w):
            return False
    return True


def cel_compare(a: object, b: object) -> int:
    """Three-way ordering for CEL `<`, `<=`, `>`, `>=`; numbers compare across int/uint/double.
    Raises EvalError("no such overload") for values that are not mutually ordered."""
    ta = type(a)
    tb = type(b)
    if ta is tb:
        if ta is str or ta is int or ta is float or ta is UInt or ta is bytes or ta is bool:
            if a < b:  # type: ignore[operator]
                return -1
            if a > b:  # type: ignore[operator]
                return 1
            if ta is float and (math.isnan(a) or math.isnan(b)):  # type: ignore[arg-type]
                return 2  # unordered
            return 0
        if ta is Duration or ta is Timestamp:
            return (a.nanos > b.nanos) - (a.nanos < b.nanos)  # type: ignore[attr-defined]
        raise EvalError("no such overload")
    if _is_number(a) and _is_number(b):
        if (ta is float and math.isnan(a)) or (tb is float and math.isnan(b)):  # type: ignore[arg-type]
            return 2
        return (a > b) - (a < b)  # type: ignore[operator]
    raise EvalError("no such overload")


def is_error(v: object) -> bool:
    return type(v) is EvalError
