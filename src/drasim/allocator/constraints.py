"""Claim constraints: `matchAttribute` and `distinctAttribute`, with upstream's bookkeeping quirks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from drasim.api.resource import Device, DeviceAttribute

T = TypeVar("T")


def lookup_qualified(by_name: Mapping[str, T], driver: str, name: str) -> T | None:
    """Upstream LookupByQualifiedName: a fully qualified `dom/id` finds `dom/id`, or the bare `id` when `dom`
    is the device's driver."""
    found = by_name.get(name)
    if found is not None:
        return found
    domain, sep, ident = name.partition("/")
    if not sep or domain != driver:
        return None
    return by_name.get(ident)


def lookup_attribute(device: Device, driver: str, name: str) -> DeviceAttribute | None:
    """The device's attribute `name` (lookup_qualified)."""
    return lookup_qualified(device.attributes, driver, name)


def _scalar(attr: DeviceAttribute) -> tuple[str, object] | None:
    """(type, value) for the scalar kinds a constraint can compare; None for anything else."""
    if attr.string is not None:
        return ("string", attr.string)
    if attr.int_ is not None:
        return ("int", attr.int_)
    if attr.bool_ is not None:
        return ("bool", attr.bool_)
    if attr.version is not None:
        # Semver strings are canonical, so string equality is semantic equality.
        return ("version", attr.version)
    return None


def scalar_value(device: Device, driver: str, name: str) -> tuple[str, object] | None:
    """The (type, value) a plain matchAttribute compares for the device; None when it has none."""
    attr = lookup_attribute(device, driver, name)
    return _scalar(attr) if attr is not None else None


def _as_set(attr: DeviceAttribute) -> tuple[str, frozenset[object]] | None:
    """List-type-attributes view: every attribute is a typed set (a scalar is a one-element set)."""
    for kind, scalar, many in (("string", attr.string, attr.strings), ("int", attr.int_, attr.ints),
                               ("bool", attr.bool_, attr.bools), ("version", attr.version, attr.versions)):
        if scalar is not None:
            return (kind, frozenset([scalar]))
        if many is not None:
            return (kind, frozenset(many))
    return None


class Constraint:
    """Base: which requests a constraint applies to (empty list = all requests of the claim)."""

    def __init__(self, requests: list[str], attribute: str) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute

    def applies(self, base: str, sub: str) -> bool:
        if not self.requests:
            return True
        if not sub:
            return base in self.requests
        return base in self.requests or f"{base}/{sub}" in self.requests

    def add(self, base: str, sub: str, device: Device, driver: str) -> bool:
        raise NotImplementedError

    def remove(self, base: str, sub: str, device: Device, driver: str) -> None:
        raise NotImplementedError


class MatchAttribute(Constraint):
    """All affected devices carry the same value; only a count is kept (the first device fixes it)."""

    def __init__(self, requests: list[str], attribute: str, list_types: bool) -> None:
        super().__init__(requests, attribute)
        self.list_types = list_types
        self.reference: tuple[str, object] | None = None
        self.count = 0
        self._values: dict[int, tuple[str, object] | None] = {}

    def rejects(self, device: Device, driver: str) -> bool:
        """Whether `add` would refuse the device now (a plain, not list-typed, constraint that already
        holds a device): its scalar value is missing or differs. Memoised per device for this constraint,
        which lives for one Allocate call, while every device it sees is alive."""
        if not self.count:
            return False
        key = id(device)
        values = self._values
        if key in values:
            value = values[key]
        else:
            value = values[key] = scalar_value(device, driver, self.attribute)
        return value is None or value != self.reference

    def add(self, base: str, sub: str, device: Device, driver: str) -> bool:
        if not self.applies(base, sub):
            return True
        attr = lookup_attribute(device, driver, self.attribute)
        if attr is None:
            return False
        if self.list_types:
            return self._add_set(attr)
        value = _scalar(attr)
        if self.count == 0:
            # QUIRK: the first device is accepted whatever its value type (even a list).
            self.reference = value if value is not None else ("?", id(attr))
            self.count = 1
            return True
        if value is None or value != self.reference:
            return False
        self.count += 1
        return True

    def _add_set(self, attr: DeviceAttribute) -> bool:
        value = _as_set(attr)
        if value is None:
            return False
        if self.count == 0:
            self.reference = value
            self.count = 1
            return True
        ref = self.reference
        assert ref is not None
        kind, values = value
        ref_kind, ref_values = ref
        common = values & ref_values  # type: ignore[operator]
        if kind != ref_kind or not common:
            return False
        # QUIRK: the narrowed intersection is not restored on removal.
        self.reference = (kind, common)
        self.count += 1
        return True

    def remove(self, base: str, sub: str, device: Device, driver: str) -> None:
        if not self.applies(base, sub):
            return
        self.count -= 1


class DistinctAttribute(Constraint):
    """Affected devices carry pairwise different values.

    QUIRK: values are remembered per base request name, so only the last device of a request is
    compared against, and removing one device of a request forgets the request's value.
    """

    def __init__(self, requests: list[str], attribute: str, list_types: bool) -> None:
        super().__init__(requests, attribute)
        self.list_types = list_types
        self.values: dict[str, DeviceAttribute] = {}
        self.count = 0

    def _distinct(self, attr: DeviceAttribute) -> bool:
        """Upstream matchesAttribute: a value of no known type never passes (with the gate on, or off when
        another value is held: a list attribute with the gate off, which 1.37's selectors let through)."""
        if self.list_types:
            new = _as_set(attr)
            if new is None:
                return False
            olds = (_as_set(other) for other in self.values.values())
            return not any(old is not None and new[0] == old[0] and new[1] & old[1] for old in olds)
        value = _scalar(attr)
        if value is None:
            return not self.values
        return all(value != _scalar(other) for other in self.values.values())

    def add(self, base: str, sub: str, device: Device, driver: str) -> bool:
        if not self.applies(base, sub):
            return True
        attr = lookup_attribute(device, driver, self.attribute)
        if attr is None:
            return False
        # The first device is accepted whatever its value (upstream counts devices, not values).
        if self.count and not self._distinct(attr):
            return False
        self.values[base] = attr
        self.count += 1
        return True

    def remove(self, base: str, sub: str, device: Device, driver: str) -> None:
        if not self.applies(base, sub):
            return
        self.values.pop(base, None)
        self.count -= 1
