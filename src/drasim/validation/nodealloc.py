"""ResourceSlice `devices[].nodeAllocatableResources` (1.37, DRANodeAllocatableResources): upstream's checks.

Read from kubernetes 009801d9 pkg/apis/resource/validation/validation.go (validateNodeAllocatableResources,
validateNodeAllocatableMapping, validateNodeAllocatableOverheadMapping). The names allowed as keys follow the
API's documentation (kubernetes/api master 66d2a54e, KEP-5517): cpu, memory and hugepages-<size>
(core helper IsNodeAllocatableResourceName, which could not be read). 1.36's `nodeAllocatableResourceMappings`
has no checks here: its validation source was not readable.
"""

from __future__ import annotations

from drasim.api import resource as r
from drasim.validation.checker import Checker
from drasim.validation.paths import child, map_key


def _allowed(name: str) -> bool:
    return name in ("cpu", "memory") or (name.startswith("hugepages-") and len(name) > len("hugepages-"))


def node_allocatable_resources(c: Checker, d: r.Device, path: str) -> None:
    """Every entry of the device's `nodeAllocatableResources` (at `path`), keys in sorted order."""
    for name, res in sorted((d.node_allocatable_resources or {}).items()):
        key_path = map_key(path, name)
        if not _allowed(name):
            c.invalid(key_path, name, "must be a node allocatable resource name")
        if res.mapping is None and res.overhead is None:
            c.required(key_path, "at least one of mapping or overhead must be set")
        if res.mapping is not None:
            _mapping(c, res.mapping, d, child(key_path, "mapping"))
        if res.overhead is not None:
            _overhead(c, res.overhead, child(key_path, "overhead"))


def _mapping(c: Checker, m: r.NodeAllocatableMapping, d: r.Device, path: str) -> None:
    if m.capacity_key is not None:
        if m.capacity_key == "":
            c.invalid(child(path, "capacityKey"), "", "capacityKey must not be an empty string")
        elif m.capacity_key not in d.capacity:
            c.add(child(path, "capacityKey"), "NotFound", "", m.capacity_key)
        if m.capacity_multiplier is None:
            c.required(child(path, "capacityMultiplier"), "capacityMultiplier is required when capacityKey is set")
        elif m.capacity_multiplier.sign() <= 0:
            c.invalid(child(path, "capacityMultiplier"), str(m.capacity_multiplier), "must be positive")
    if m.device_multiplier is not None and m.device_multiplier.sign() <= 0:
        c.invalid(child(path, "deviceMultiplier"), str(m.device_multiplier), "must be positive")
    if m.capacity_multiplier is not None and m.capacity_key is None:
        c.required(child(path, "capacityKey"), "capacityKey is required when capacityMultiplier is set")


def _overhead(c: Checker, o: r.NodeAllocatableOverhead, path: str) -> None:
    if o.per_pod is None and o.per_container is None:
        c.invalid(path, "", "at least one of perPod or perContainer must be set")
        return
    for field, q in (("perPod", o.per_pod), ("perContainer", o.per_container)):
        if q is not None and q.sign() < 0:
            c.invalid(child(path, field), str(q), "must be non-negative")
