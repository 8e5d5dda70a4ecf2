"""The `device` variable: one device's attributes and capacity as CEL values (DeviceInput)."""

# Upstream converts every attribute before evaluating, so one attribute without a value (or an
# unparsable version) fails every selector on that device. DeviceInput checks the same once per
# device and feature set, then answers lookups straight from the published attributes, building the
# nested maps only when an expression iterates over them or tests membership.

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from drasim.api.resource import Device, DeviceAttribute, DeviceCapacity
from drasim.api.semver import Semver
from drasim.cel.cost import RUNTIME_COST_LIMIT
from drasim.cel.errors import CelRuntimeError
from drasim.cel.values import OPTIONAL_NONE, DefaultingMap, EvalError, OptionalValue
from drasim.errors import SemverError

if TYPE_CHECKING:  # cel.reads imports cel.evaluate, which imports this module
    from drasim.cel.reads import Read

# The value of an unknown domain. Shared and never mutated.
EMPTY_MAP: dict[str, Any] = {}

_SEMVER_CACHE: dict[str, Semver | str] = {}
_SEMVER_CACHE_MAX = 65536
# The version strings of _SEMVER_CACHE that parse (`_converts` asks only this).
_VALID_VERSIONS: set[str | None] = set()


def _semver(text: str) -> Semver | str:
    """Parse a version attribute strictly (cached): the Semver, or the error message."""
    hit = _SEMVER_CACHE.get(text)
    if hit is None:
        try:
            hit = Semver.parse(text)
        except SemverError as e:
            hit = f"parse semantic version: {e}"
        if len(_SEMVER_CACHE) >= _SEMVER_CACHE_MAX:
            _SEMVER_CACHE.clear()
            _VALID_VERSIONS.clear()
        _SEMVER_CACHE[text] = hit
        if type(hit) is not str:
            _VALID_VERSIONS.add(text)
    return hit


def _value(a: DeviceAttribute, lists: bool) -> Any:
    """The CEL value of an attribute already known to be valid (see `_check`)."""
    if lists:
        if a.ints is not None:
            return a.ints
        if a.bools is not None:
            return a.bools
        if a.strings is not None:
            return a.strings
        if a.versions is not None:
            return [_semver(t) for t in a.versions]
    if a.int_ is not None:
        return a.int_
    if a.bool_ is not None:
        return a.bool_
    if a.string is not None:
        return a.string
    return _SEMVER_CACHE.get(a.version) or _semver(a.version)  # type: ignore[arg-type]


def _version_error(name: str, text: str | None) -> CelRuntimeError | None:
    if text is None:
        return CelRuntimeError(f"attribute {name}: unsupported attribute value")
    v = _SEMVER_CACHE.get(text) or _semver(text)
    return CelRuntimeError(f"attribute {name}: {v}") if type(v) is str else None


def _check(attrs: dict[str, DeviceAttribute], lists: bool) -> CelRuntimeError | None:
    """The error upstream's eager conversion of all attributes would report, if any."""
    for name, a in attrs.items():
        if lists:
            if a.ints is not None or a.bools is not None or a.strings is not None:
                continue
            if a.versions is not None:
                for version in a.versions:
                    err = _version_error(name, version)
                    if err is not None:
                        return err
                continue
        if a.string is not None or a.int_ is not None or a.bool_ is not None:
            continue
        err = _version_error(name, a.version)
        if err is not None:
            return err
    return None


def _converts(attrs: dict[str, DeviceAttribute], lists: bool) -> bool:
    """True when `_check` would find nothing (a fleet has ~1M attributes: this loop is the lean one); False
    means "ask `_check`", which names the first failing attribute (or finds none: this test is stricter)."""
    valid = _VALID_VERSIONS
    if lists:
        for a in attrs.values():
            if a.versions is not None or (a.string is None and a.int_ is None and a.bool_ is None and a.ints is None
                                          and a.bools is None and a.strings is None and a.version not in valid):
                return False
        return True
    for a in attrs.values():
        if a.string is None and a.int_ is None and a.bool_ is None and a.version not in valid:
            return False
    return True


def _attribute_token(a: DeviceAttribute) -> tuple[object, ...]:
    # Every field in its own position: 1 and True (equal in Python) never meet in one slot. Scalars alone
    # (the common case) give a shorter tuple, which never equals a full one.
    if a.ints is None and a.bools is None and a.strings is None and a.versions is None:
        return (a.int_, a.bool_, a.string, a.version)
    return (a.int_, a.bool_, a.string, a.version,
            None if a.ints is None else tuple(a.ints), None if a.bools is None else tuple(a.bools),
            None if a.strings is None else tuple(a.strings), None if a.versions is None else tuple(a.versions))


def _find(flat: dict[str, Any], driver: str, dom: str, name: str, qualified: str) -> Any:
    """The entry for `dom`/`name`: unqualified names belong to the driver's domain."""
    if dom == driver and "/" not in name:
        v = flat.get(name)
        if v is not None:
            return v
    return flat.get(qualified)


class DeviceInput:
    """A device as seen by selectors: build once per device and reuse across expressions and
    environments. It is also the activation of programs that keep no per-evaluation state."""

    __slots__ = ("_maps", "_ok", "_ok_lists", "attrs", "caps", "device", "driver")

    def __init__(self, driver: str, device: Device) -> None:
        self.driver = driver
        self.device = device
        self.attrs: dict[str, DeviceAttribute] = device.attributes
        self.caps: dict[str, DeviceCapacity] = device.capacity
        self._ok: CelRuntimeError | bool | None = None
        self._ok_lists: CelRuntimeError | bool | None = None
        self._maps: dict[str, DefaultingMap] | None = None

    def check(self, lists: bool) -> CelRuntimeError | bool:
        """True, or the attribute conversion error every selector on this device fails with."""
        ok = self._ok_lists if lists else self._ok
        if ok is None:
            attrs = self.attrs
            ok = True if not attrs or _converts(attrs, lists) else _check(attrs, lists) or True
            if lists:
                self._ok_lists = ok
            else:
                self._ok = ok
        return ok

    # --- single entries (called by compiled selectors) --------------------------------------

    def attr(self, dom: str, name: str, qualified: str, lists: bool) -> Any:
        a = _find(self.attrs, self.driver, dom, name, qualified)
        if a is None:
            raise EvalError("no such key: " + name)
        return _value(a, lists)

    def cap(self, dom: str, name: str, qualified: str) -> Any:
        c = _find(self.caps, self.driver, dom, name, qualified)
        if c is None:
            raise EvalError("no such key: " + name)
        return c.value

    def has_attr(self, dom: str, name: str, qualified: str) -> bool:
        return _find(self.attrs, self.driver, dom, name, qualified) is not None

    def has_cap(self, dom: str, name: str, qualified: str) -> bool:
        return _find(self.caps, self.driver, dom, name, qualified) is not None

    def attr_opt(self, dom: str, name: str, qualified: str, lists: bool) -> OptionalValue:
        a = _find(self.attrs, self.driver, dom, name, qualified)
        return OPTIONAL_NONE if a is None else OptionalValue(True, _value(a, lists))

    def cap_opt(self, dom: str, name: str, qualified: str) -> OptionalValue:
        c = _find(self.caps, self.driver, dom, name, qualified)
        return OPTIONAL_NONE if c is None else OptionalValue(True, c.value)

    @property
    def allow_multi(self) -> bool:
        return bool(self.device.allow_multiple_allocations)

    def content_key(self, reads: Sequence[Read], lists: bool) -> tuple[object, ...] | None:
        """Everything a program that reads only these entries (cel.reads) can see of the device: equal keys,
        equal outcomes. None when the device fails conversion (the error names an attribute of its own)."""
        if self.check(lists) is not True:
            return None
        driver = self.driver
        key: list[object] = [driver, self.device.allow_multiple_allocations is True]
        for kind, dom, name, qualified in reads:
            if kind == "attributes":
                a = _find(self.attrs, driver, dom, name, qualified)
                key.append(None if a is None else _attribute_token(a))
            else:
                c = _find(self.caps, driver, dom, name, qualified)
                # The quantity's whole state (its spelling and format too: string() and friends read them).
                key.append(None if c is None else c.value.__reduce__()[1])
        return tuple(key)

    # --- whole maps -------------------------------------------------------------------------

    def _nest(self, key: str) -> DefaultingMap:
        maps = self._maps
        if maps is None:
            maps = self._maps = {}
        m = maps.get(key)
        if m is None:
            m = DefaultingMap()
            flat: dict[str, Any] = self.caps if key == "c" else self.attrs
            for name, raw in flat.items():
                sep = name.find("/")
                if sep < 0:
                    dom, ident = self.driver, name
                else:
                    dom, ident = name[:sep], name[sep + 1:]
                inner = m.get(dom)
                if inner is None:
                    inner = m[dom] = {}
                inner[ident] = raw.value if key == "c" else _value(raw, key == "l")
            maps[key] = m
        return m

    def attributes_map(self, lists: bool) -> DefaultingMap:
        return self._nest("l" if lists else "a")

    def capacity_map(self) -> DefaultingMap:
        return self._nest("c")

    def attr_domain(self, dom: str, lists: bool) -> dict[str, Any]:
        return self._nest("l" if lists else "a").get(dom, EMPTY_MAP)

    def cap_domain(self, dom: str) -> dict[str, Any]:
        return self._nest("c").get(dom, EMPTY_MAP)


class Activation(DeviceInput):
    """Per-evaluation state for programs with comprehensions or metered calls: the device input
    (shared), comprehension/bind variables and the cost spent."""

    __slots__ = ("cost", "limit", "vars")

    def __init__(self, di: DeviceInput, limit: int = RUNTIME_COST_LIMIT) -> None:
        # DeviceInput's fields copied one by one, the maps shared (test_cel_device checks every slot is set).
        self.driver = di.driver
        self.device = di.device
        self.attrs = di.attrs
        self.caps = di.caps
        self._ok = di._ok
        self._ok_lists = di._ok_lists
        if di._maps is None:
            di._maps = {}
        self._maps = di._maps
        self.vars: dict[str, Any] = {}
        self.cost = 0
        self.limit = limit


def device_input(driver: str, device: Device) -> DeviceInput:
    """The CEL view of a device published by `driver` (the slice's driver)."""
    return DeviceInput(driver, device)
