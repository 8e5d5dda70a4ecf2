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
                if not features.partitionable_devices:
                    continue
                for j, cc in enumerate(d.consumes_counters):
                    cpath = f"spec.devices[{i}].consumesCounters[{j}]"
                    counter_set = counter_sets.get(cc.counter_set)
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
