"""Physical device units per node (a GPU with the partitions allocated inside it) and the claims holding them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from drasim.allocator import DeviceID
from drasim.api.resource import Device
from drasim.cluster import ClusterState, Key

# Pools whose slices are not tied to one node (allNodes, a node selector, per-device node selection).
SHARED_POOLS = "(not node-local)"
# NVIDIA's partitionable GPUs publish one counter per memory slice; a partition's slices give its place.
_SLICE_COUNTER = re.compile(r"^memory-slice-(\d+)$")


@dataclass
class Part:
    """One allocated device inside a unit, with the claim and request that hold it."""

    device: str
    claim: Key
    request: str  # the result's request: `req` or `req/sub`
    slots: tuple[int, ...] = ()  # memory slices it occupies (partitionable GPUs), else empty


@dataclass
class Unit:
    """A physical device: a counter set (partitionable GPU), a parent of static partitions, or one device."""

    driver: str
    pool: str
    name: str
    label: str  # product name, MIG profile or device type
    devices: int  # published devices drawn from this unit
    parts: list[Part] = field(default_factory=list)
    slots: int = 0  # memory slices of a partitionable GPU (0: not known)
    counters: dict[str, tuple[Fraction, Fraction]] = field(default_factory=dict)  # name -> (used, total)

    @property
    def busy(self) -> bool:
        return bool(self.parts)

    def slot_use(self) -> tuple[int, int] | None:
        """(used, total) memory slices, when the unit publishes them as counters."""
        if not self.slots:
            return None
        used = sum(1 for name, (u, _t) in self.counters.items() if _SLICE_COUNTER.match(name) and u > 0)
        return used, self.slots


def _attr(dev: Device, name: str) -> str | None:
    for key, value in dev.attributes.items():
        if key == name or key.endswith("/" + name):
            v = value.value()
            return v if isinstance(v, str) else None
    return None


def _natural(text: str) -> tuple[object, ...]:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


def holders(state: ClusterState) -> dict[DeviceID, list[tuple[Key, str]]]:
    """Every allocated device -> the (claim, request) pairs whose allocation names it."""
    out: dict[DeviceID, list[tuple[Key, str]]] = {}
    for key, claim in state.claims.items():
        allocation = claim.status.allocation if claim.status else None
        if allocation is None:
            continue
        for r in allocation.devices.results:
            out.setdefault(DeviceID(r.driver, r.pool, r.device), []).append((key, r.request))
    return out


def node_units(state: ClusterState) -> dict[str, list[Unit]]:
    """Per node (in node order; `SHARED_POOLS` last when present), its physical units in pool and name order.

    Only the newest generation of each pool counts. A device consuming a counter set belongs to that set's
    unit (unallocated placements are not drawn: they are possibilities, not hardware); a device with a
    `parentUUID` attribute belongs to its parent; any other device is a unit of its own.
    """
    newest: dict[tuple[str, str], int] = {}
    for slc in state.slices.values():
        k = (slc.spec.driver, slc.spec.pool.name)
        newest[k] = max(newest.get(k, slc.spec.pool.generation), slc.spec.pool.generation)
    held = holders(state)
    units: dict[tuple[str, str, str], Unit] = {}
    owner: dict[tuple[str, str, str], str] = {}
    totals: dict[tuple[str, str, str], dict[str, Fraction]] = {}
    for slc in state.slices.values():
        spec = slc.spec
        k = (spec.driver, spec.pool.name)
        if spec.pool.generation != newest[k]:
            continue
        node = spec.node_name or SHARED_POOLS
        for cs in spec.shared_counters:
            totals.setdefault((*k, cs.name), {}).update({n: c.value.fraction for n, c in cs.counters.items()})
        for dev in spec.devices:
            parent = dev.consumes_counters[0].counter_set if dev.consumes_counters else _attr(dev, "parentUUID")
            uk = (*k, parent or dev.name)
            unit = units.get(uk)
            if unit is None:
                label = _attr(dev, "productName") or _attr(dev, "type") or dev.name
                unit = units[uk] = Unit(driver=k[0], pool=k[1], name=parent or dev.name, label=label, devices=0)
                owner[uk] = node
            elif dev.consumes_counters and _attr(dev, "type") == "gpu":
                unit.label = _attr(dev, "productName") or unit.label  # the full GPU names the unit
            unit.devices += 1
            dev_id = DeviceID(k[0], k[1], dev.name)
            slots = tuple(sorted(int(m.group(1)) for c in dev.consumes_counters for n in c.counters
                                 if (m := _SLICE_COUNTER.match(n))))
            for claim, request in held.get(dev_id, ()):
                unit.parts.append(Part(device=dev.name, claim=claim, request=request, slots=slots))
            if dev_id in held:
                for consumption in dev.consumes_counters:
                    if consumption.counter_set != unit.name:
                        continue
                    for n, c in consumption.counters.items():
                        used, total = unit.counters.get(n, (Fraction(0), Fraction(0)))
                        unit.counters[n] = (used + c.value.fraction, total)
    for uk, unit in units.items():
        for n, total in totals.get(uk, {}).items():
            used, _ = unit.counters.get(n, (Fraction(0), Fraction(0)))
            unit.counters[n] = (used, total)
        unit.slots = sum(1 for n in unit.counters if _SLICE_COUNTER.match(n))
    by_node: dict[str, list[Unit]] = {}
    for uk in sorted(units, key=lambda k: (k[0], _natural(k[1]), _natural(k[2]))):
        by_node.setdefault(owner[uk], []).append(units[uk])
    order = [n for n in state.nodes if n in by_node] + sorted(n for n in by_node if n not in state.nodes)
    return {n: by_node[n] for n in order}


def idle_units(state: ClusterState) -> tuple[int, int]:
    """(idle, total) physical units over the cluster."""
    all_units = [u for units in node_units(state).values() for u in units]
    return sum(1 for u in all_units if not u.busy), len(all_units)
