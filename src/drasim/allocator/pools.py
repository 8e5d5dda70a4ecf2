"""Gathering the resource pools visible from a node (upstream `GatherPools`, v1.36 semantics)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drasim import releases
from drasim.allocator.errors import AllocationError
from drasim.allocator.features import Features
from drasim.api.core import Node
from drasim.api.nodeaffinity import NodeSelectorError, node_matches
from drasim.api.resource import CounterSet, ResourceSlice


@dataclass
class Pool:
    """One (driver, pool) as seen from a node. `slices` hold devices and are sorted by name."""

    driver: str
    name: str
    slices: list[ResourceSlice] = field(default_factory=list)
    # Slices of the pool's current generation that do not target the node: their allocated
    # devices still draw from the pool's shared counters.
    other_slices: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    binding_conditions: bool = False
    # Filled in by the slice cache: exact counter totals per set, and every device of the pool's
    # current generation that consumes counters (with its consumption).
    counter_totals: dict[str, dict[str, Any]] = field(default_factory=dict)
    consumers: list[tuple[Any, Any]] = field(default_factory=list)
    # Whether no consumer draws a negative amount (set with `consumers`; see `allocator.search`).
    draws_nonnegative: bool = True

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def slice_relevant(slc: ResourceSlice, node: Node, features: Features) -> bool:
    spec = slc.spec
    # Up to 1.36 counter slices are relevant wherever they are published; 1.37 selects them like any slice
    # (one for another node then joins the pool through the completeness check, as a slice not targeting it).
    if spec.shared_counters and features.partitionable_devices and \
            not releases.counter_slices_follow_node_selection(features.release):
        return True
    try:
        if spec.node_name or spec.all_nodes or spec.node_selector is not None:
            return node_matches(node, spec.node_name, spec.all_nodes, spec.node_selector)
        if spec.per_device_node_selection:
            return any(node_matches(node, d.node_name, d.all_nodes, d.node_selector) for d in spec.devices)
    except NodeSelectorError as err:
        raise AllocationError(f"gather pool information: failed to perform node selection for slice "
                              f"{slc.metadata.name}: {err}") from None
    # Some future, unknown mode of node selection: ignore the slice.
    return False


def gather_pools(slices: list[ResourceSlice], node: Node, features: Features,
                 by_pool: dict[tuple[str, str], list[ResourceSlice]]) -> list[Pool]:
    """Pools with devices reachable from `node`, in search order.

    `slices` are the candidate slices (on the node or not node-bound), `by_pool` indexes every
    slice of the cluster by (driver, pool) for the completeness check.
    """
    kept: dict[tuple[str, str], list[ResourceSlice]] = {}
    for slc in slices:
        spec = slc.spec
        if not features.partitionable_devices and (
                spec.per_device_node_selection is not None or spec.shared_counters):
            continue
        if not slice_relevant(slc, node, features):
            continue
        key = (spec.driver, spec.pool.name)
        have = kept.get(key)
        if have is None:
            kept[key] = [slc]
            continue
        generation = have[0].spec.pool.generation
        if spec.pool.generation < generation:
            continue  # out-dated
        if spec.pool.generation > generation:
            have.clear()  # newer generation replaces everything kept so far
        have.append(slc)

    pools: list[Pool] = []
    for (driver, name), relevant in kept.items():
        first = relevant[0].spec.pool
        other: list[ResourceSlice] = []
        complete = len(relevant) == first.resource_slice_count
        if not complete:
            obsolete = False
            same_generation: list[ResourceSlice] = []
            for slc in by_pool.get((driver, name), ()):
                gen = slc.spec.pool.generation
                if gen > first.generation:
                    obsolete = True
                    break
                if gen == first.generation:
                    same_generation.append(slc)
            if obsolete:
                continue  # the driver is replacing this generation: ignore the pool
            complete = len(same_generation) == first.resource_slice_count
            relevant_ids = {id(s) for s in relevant}
            other = [s for s in same_generation if id(s) not in relevant_ids]
        pool = Pool(driver=driver, name=name, incomplete=not complete)
        device_slices: list[ResourceSlice] = []
        counter_slices: list[ResourceSlice] = []
        for slc in sorted(relevant, key=lambda s: s.metadata.name):
            if slc.spec.shared_counters and features.partitionable_devices:
                counter_slices.append(slc)
            else:
                device_slices.append(slc)
        pool.slices = device_slices
        pool.other_slices = sorted(other, key=lambda s: s.metadata.name)
        _check_validity(pool, counter_slices, features)
        pool.binding_conditions = any(d.binding_conditions for s in device_slices for d in s.spec.devices)
        pools.append(pool)

    pools.sort(key=lambda p: (p.binding_conditions, p.driver, p.name))
    return pools


def _check_validity(pool: Pool, counter_slices: list[ResourceSlice], features: Features) -> None:
    seen: set[str] = set()
    for slc in pool.slices:
        for dev in slc.spec.devices:
            if dev.name in seen:
                pool.invalid, pool.invalid_reason = True, f"duplicate device name {dev.name}"
                return
            seen.add(dev.name)
    if not features.partitionable_devices:
        return
    for slc in counter_slices + [s for s in pool.other_slices if s.spec.shared_counters]:
        for cs in slc.spec.shared_counters:
            if cs.name in pool.counter_sets:
                pool.invalid, pool.invalid_reason = True, f"duplicate counter set name {cs.name}"
                return
            pool.counter_sets[cs.name] = cs
    for slc in pool.slices + pool.other_slices:
        for dev in slc.spec.devices:
            for consumption in dev.consumes_counters:
                target = pool.counter_sets.get(consumption.counter_set)
                if target is None:
                    pool.invalid = True
                    pool.invalid_reason = f"counter set {consumption.counter_set} not found"
                    return
                for counter in consumption.counters:
                    if counter not in target.counters:
                        pool.invalid = True
                        pool.invalid_reason = f"counter {counter} not found in counter set {target.name}"
                        return
