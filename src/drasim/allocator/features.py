"""Allocator feature flags (upstream `Features`) and the implementation variant they select."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from drasim.releases import DEFAULT_RELEASE

# Scenario-file flag name -> upstream feature name, in the order upstream prints enabled features.
FLAG_NAMES: dict[str, str] = {
    "adminAccess": "AdminAccess",
    "consumableCapacity": "ConsumableCapacity",
    "deviceBindingAndStatus": "DeviceBindingAndStatus",
    "deviceTaints": "DeviceTaints",
    "listTypeAttributes": "ListTypeAttributes",
    "partitionableDevices": "PartitionableDevices",
    "prioritizedList": "PrioritizedList",
}

_STABLE = {"admin_access", "prioritized_list", "partitionable_devices", "device_taints"}
_INCUBATING = _STABLE | {"consumable_capacity", "device_binding_and_status"}


@dataclass(frozen=True, slots=True)
class Features:
    """Which DRA features the allocator honours. Defaults: kube-scheduler v1.36's gate defaults."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    consumable_capacity: bool = True
    device_binding_and_status: bool = True
    list_type_attributes: bool = False
    # Which release's code runs (drasim.releases): not a flag; fixes and texts that changed between releases.
    release: str = DEFAULT_RELEASE

    @classmethod
    def from_flags(cls, flags: dict[str, bool]) -> Features:
        """Build from scenario-file flags (`adminAccess: false`, ...); unlisted flags keep defaults."""
        kwargs: dict[str, Any] = {}
        by_camel = {f.name.replace("_", ""): f.name for f in _flag_fields(cls)}
        for key, value in flags.items():
            attr = by_camel.get(key.lower())
            if attr is None:
                raise ValueError(f"unknown feature flag {key!r}; known: {', '.join(FLAG_NAMES)}")
            kwargs[attr] = bool(value)
        return cls(**kwargs)

    @classmethod
    def none(cls) -> Features:
        """Every optional feature off (the core of DRA only)."""
        off: dict[str, Any] = {f.name: False for f in _flag_fields(cls)}
        return cls(**off)

    def enabled(self) -> list[str]:
        """Upstream names of the enabled features, in upstream's fixed print order."""
        out = []
        for camel, upstream in FLAG_NAMES.items():
            attr = "".join("_" + c.lower() if c.isupper() else c for c in camel)
            if getattr(self, attr):
                out.append(upstream)
        return out

    def variant(self) -> str:
        """The upstream implementation that runs: the first whose supported set covers the enabled set."""
        return _variant(self)


@functools.cache
def _variant(features: Features) -> str:
    on = {f.name for f in _flag_fields(Features) if getattr(features, f.name)}
    if on <= _STABLE:
        return "stable"
    if on <= _INCUBATING:
        return "incubating"
    return "experimental"


def _flag_fields(cls: type[Features]) -> list[dataclasses.Field[bool]]:
    return [f for f in dataclasses.fields(cls) if f.name != "release"]
