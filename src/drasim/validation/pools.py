"""Checks across the slices of one pool (counter sets, names, missing slices): warnings, not rejections."""

from __future__ import annotations

from collections.abc import Sequence

from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.meta import object_ref
from drasim.validation.findings import Finding, render_value

__all__ = ["check_pools"]


def check_pools(slices: Sequence[r.ResourceSlice], features: ValidationFeatures) -> list[Finding]:
    """Checks across the slices of one pool (newest generation): duplicate device or counter set names in
    different slices, counters consumed but declared by no slice of the pool, slices missing. The API
    server validates each object alone, so none of these is a rejection: all are warnings (the allocator
    treats such a pool as invalid or incomplete, which the messages say)."""
    findings: list[Finding] = []
    pools: dict[tuple[str, str], list[r.ResourceSlice]] = {}
    for s in slices:
        pools.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    for (driver, pool), members in sorted(pools.items()):
        if len(members) == 1:  # most pools: one slice per node
            generation, current = members[0].spec.pool.generation, members
        else:
            generation = max(s.spec.pool.generation for s in members)
            current = sorted(
                (s for s in members if s.spec.pool.generation == generation), key=lambda s: s.metadata.name
            )
        pool_id = f"{driver}/{pool}"
        # Declared counter sets of the pool (the first declaration of a name wins, as a lookup would).
        counter_sets: dict[str, r.CounterSet] = {}
        declared_by: dict[str, str] = {}
        if features.partitionable_devices:
            for s in current:
                for i, cs in enumerate(s.spec.shared_counters):
                    if cs.name in counter_sets and declared_by[cs.name] == s.metadata.name:
                        continue  # twice in one slice: the API server's own (per-object) Duplicate error
                    if cs.name in counter_sets:
                        findings.append(
                            Finding(
                                object_ref("ResourceSlice", s.metadata),
                                f"spec.sharedCounters[{i}].name",
                                "Duplicate",
                                f"counter set also declared by ResourceSlice/{declared_by[cs.name]} in pool "
                                f"{pool_id}; the allocator treats the pool as invalid",
                                severity="warning",
                                value=render_value(cs.name),
                            )
                        )
                    else:
                        counter_sets[cs.name] = cs
                        declared_by[cs.name] = s.metadata.name
        if _names_may_repeat(current):
            _device_findings(current, counter_sets, pool_id, generation, features, findings)
        elif features.partitionable_devices:  # no name is used twice: only the counters can be wrong
            for s in current:
                _counter_findings(s, counter_sets, pool_id, generation, findings)
        want = current[0].spec.pool.resource_slice_count
        if want > 0 and len(current) != want:
            first = current[0]
            findings.append(
                Finding(
                    object_ref("ResourceSlice", first.metadata),
                    "spec.pool.resourceSliceCount",
                    "Invalid",
                    f"pool {pool_id} generation {generation} has {len(current)} ResourceSlice(s) among "
                    f"the given objects; the allocator treats the pool as incomplete until all {want} exist",
                    severity="warning",
                    value=render_value(want),
                )
            )
    return findings


def _names_may_repeat(current: list[r.ResourceSlice]) -> bool:
    """Whether two slices of the pool for one node scope may publish a device name twice (one slice alone
    cannot: a name twice within one object is the API server's own Duplicate error): a set per slice, not a
    dict entry per device."""
    if len(current) < 2:
        return False
    by_scope: dict[str | None, set[str]] = {}
    for s in current:
        names = {d.name for d in s.spec.devices}
        seen = by_scope.setdefault(s.spec.node_name, set())
        if not seen.isdisjoint(names):
            return True
        seen |= names
    return False


def _device_findings(current: list[r.ResourceSlice], counter_sets: dict[str, r.CounterSet], pool_id: str,
                     generation: int, features: ValidationFeatures, findings: list[Finding]) -> None:
    """Names used twice across slices and unknown counters, device by device, in the order of the devices."""
    seen_devices: dict[tuple[str | None, str], str] = {}
    for s in current:
        ref = object_ref("ResourceSlice", s.metadata)
        for i, d in enumerate(s.spec.devices):
            # Devices of slices for different nodes never meet in one allocation.
            scope = s.spec.node_name
            key = (scope, d.name)
            if key in seen_devices and seen_devices[key] != s.metadata.name:
                findings.append(
                    Finding(
                        ref,
                        f"spec.devices[{i}].name",
                        "Duplicate",
                        f"device name also used by ResourceSlice/{seen_devices[key]} in pool "
                        f"{pool_id}; the allocator treats the pool as invalid",
                        severity="warning",
                        value=render_value(d.name),
                    )
                )
            seen_devices.setdefault(key, s.metadata.name)
            if features.partitionable_devices and not _declared(d, counter_sets):
                _consumption_findings(ref, i, d, counter_sets, pool_id, generation, findings)


def _counter_findings(s: r.ResourceSlice, counter_sets: dict[str, r.CounterSet], pool_id: str, generation: int,
                      findings: list[Finding]) -> None:
    ref = ""  # named only once a device of the slice has a finding: most slices have none
    for i, d in enumerate(s.spec.devices):
        if d.consumes_counters and not _declared(d, counter_sets):
            ref = ref or object_ref("ResourceSlice", s.metadata)
            _consumption_findings(ref, i, d, counter_sets, pool_id, generation, findings)


def _declared(d: r.Device, counter_sets: dict[str, r.CounterSet]) -> bool:
    """Whether every counter the device consumes is declared (key views compare at C speed)."""
    for cc in d.consumes_counters:
        counter_set = counter_sets.get(cc.counter_set)
        if counter_set is None or not counter_set.counters.keys() >= cc.counters.keys():
            return False
    return True


def _consumption_findings(ref: str, i: int, d: r.Device, counter_sets: dict[str, r.CounterSet],
                          pool_id: str, generation: int, findings: list[Finding]) -> None:
    """Counter sets and counters one device of the slice `ref` consumes that no slice of its pool declares."""
    for j, cc in enumerate(d.consumes_counters):
        counter_set = counter_sets.get(cc.counter_set)
        cpath = f"spec.devices[{i}].consumesCounters[{j}]"
        if counter_set is None:
            findings.append(
                Finding(
                    ref,
                    cpath + ".counterSet",
                    "Invalid",
                    f"counter set not found: no ResourceSlice of pool {pool_id} "
                    f"(generation {generation}) declares it in sharedCounters; "
                    "the allocator treats the pool as invalid",
                    severity="warning",
                    value=render_value(cc.counter_set),
                )
            )
            continue
        for name in cc.counters:
            if name not in counter_set.counters:
                findings.append(
                    Finding(
                        ref,
                        f"{cpath}.counters[{name}]",
                        "Invalid",
                        f"counter not found in counter set {cc.counter_set} of pool "
                        f"{pool_id}; the allocator treats the pool as invalid",
                        severity="warning",
                        value=render_value(name),
                    )
                )
