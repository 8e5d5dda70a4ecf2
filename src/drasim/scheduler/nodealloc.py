"""DRA node-allocatable resources (DRANodeAllocatableResources): what a pod's devices charge the node.

The DynamicResources plugin's part of KEP-5517, read from kubernetes master 0411cc70
(pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources.go): after allocating on a
node, Filter works out per claim what its devices map to node resources, adds that to the pod's own
requests and checks the sum against the node's free allocatable; PreBind writes the per-claim amounts to
`status.nodeAllocatableResourceClaimStatuses`, which the node's accounting then counts as requested
(resources.claim_status_requests). 1.36 devices carry `nodeAllocatableResourceMappings` and the status a
`resources` map; 1.37 devices `nodeAllocatableResources` (mapping, overhead) and the status `mapping` and
`overhead` lists. The 1.36 computation follows the v0.36.0 API documentation of those fields (the 1.36
scheduler source could not be read). Later kubernetes revisions (the plugin's tests at 0c29b313) write the
same amounts as `status.additionalNodeAllocatableResources` with a `source` reference instead; kubernetes/api
at 10b39a39 (2026-07-24, the newest 1.37-cycle revision readable) does not have that rename yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from drasim.allocator.constraints import lookup_qualified
from drasim.allocator.pools import Pool
from drasim.api.core import (
    NodeAllocatableMappedResources,
    NodeAllocatableOverheadResources,
    NodeAllocatableResourceClaimStatus,
    Pod,
)
from drasim.api.quantity import Quantity
from drasim.api.resource import AllocationResult, Device, DeviceRequestAllocationResult, ResourceClaim
from drasim.scheduler.filters import UNRESOLVABLE, UNSCHEDULABLE, Status
from drasim.scheduler.resources import CPU, EPHEMERAL, MEMORY, Vector

PLUGIN = "DynamicResources"
_ONE = Quantity.from_int(1)

# (pod claim name or None for the extended-resource claim, the claim, its allocation)
ClaimAllocation = tuple[str | None, ResourceClaim, AllocationResult]


class ChargeError(Exception):
    """A device's mapping cannot be applied to its allocation: the Filter plugin errs (statusError)."""


def charges(device: Device) -> bool:
    """Whether allocating the device charges node-allocatable resources (either release's field)."""
    return bool(device.node_allocatable_resources or device.node_allocatable_resource_mappings)


def pools_charge(pools: Iterable[Pool]) -> bool:
    """Whether some device of these pools charges node-allocatable resources."""
    return any(charges(d) for p in pools for s in p.slices for d in s.spec.devices)


def _device(pools: Sequence[Pool], r: DeviceRequestAllocationResult) -> Device | None:
    """getDeviceFromSlices among the node's pools (None: not there, which upstream logs and skips)."""
    for pool in pools:
        if pool.driver == r.driver and pool.name == r.pool:
            for s in pool.slices:
                for d in s.spec.devices:
                    if d.name == r.device:
                        return d
    return None


def _add(into: dict[str, Quantity], name: str, q: Quantity) -> None:
    have = into.get(name)
    into[name] = q if have is None else have + q


def _mapped(name: str, key: str | None, multiplier: Quantity | None, per_device: Quantity | None,
            r: DeviceRequestAllocationResult, claim: ResourceClaim, into: dict[str, Quantity]) -> None:
    """addDeviceMapping: consumed capacity x multiplier, else (no capacity key) the per-device amount."""
    if key:
        if r.consumed_capacity is None:
            raise ChargeError(f"claim {claim.metadata.namespace or ''}/{claim.metadata.name}, device {r.device}: "
                              f"ConsumedCapacity is nil, but Capacity key '{key}' is set in "
                              f"NodeAllocatableResources for resource {name}")
        consumed = lookup_qualified(r.consumed_capacity, r.driver, key)
        if consumed is not None:  # a capacity this allocation did not consume maps to nothing
            _add(into, name, consumed if multiplier is None or multiplier == _ONE else consumed.mul(multiplier))
    elif per_device is not None:
        _add(into, name, per_device)


def _claim_status(claim: ResourceClaim, allocation: AllocationResult, pools: Sequence[Pool],
                  v136: bool) -> NodeAllocatableResourceClaimStatus | None:
    devices = [_device(pools, r) for r in allocation.devices.results]
    if not any(d is not None and charges(d) for d in devices):
        return None  # not a node-allocatable claim (calculateAndCheckNodeAllocatableResources skips it)
    mapped: dict[str, Quantity] = {}
    per_pod: dict[str, Quantity] = {}
    per_container: dict[str, Quantity] = {}
    overheads: list[str] = []
    for r, device in zip(allocation.devices.results, devices, strict=True):
        if device is None:
            ns = claim.metadata.namespace or ""
            raise ChargeError(f"claim {ns}/{claim.metadata.name}, device {r.device}, driver {r.driver}: device "
                              f"{r.device} not found in pool {r.pool} for driver {r.driver}")
        if v136:
            for name, m in (device.node_allocatable_resource_mappings or {}).items():
                # allocationMultiplier defaults to 1 (v0.36.0 types.go): per device, or per consumed unit.
                _mapped(name, m.capacity_key, m.allocation_multiplier, m.allocation_multiplier or _ONE, r, claim,
                        mapped)
            continue
        for name, res in (device.node_allocatable_resources or {}).items():
            if res.mapping is not None:
                m2 = res.mapping
                _mapped(name, m2.capacity_key, m2.capacity_multiplier, m2.device_multiplier, r, claim, mapped)
            o = res.overhead
            if o is not None and (o.per_pod is not None or o.per_container is not None):
                if name not in overheads:
                    overheads.append(name)
                if o.per_pod is not None:
                    _add(per_pod, name, o.per_pod)
                if o.per_container is not None:
                    _add(per_container, name, o.per_container)
    if not mapped and not overheads:
        return None
    name = claim.metadata.name
    if v136:
        return NodeAllocatableResourceClaimStatus(resource_claim_name=name, resources=dict(sorted(mapped.items())))
    return NodeAllocatableResourceClaimStatus(
        resource_claim_name=name,
        # Empty lists are omitted, as upstream's omitempty JSON leaves them out.
        mapping=[NodeAllocatableMappedResources(name=k, quantity=q) for k, q in sorted(mapped.items())] or None,
        overhead=[NodeAllocatableOverheadResources(name=k, per_pod=per_pod.get(k), per_container=per_container.get(k))
                  for k in sorted(overheads)] or None)


def claim_statuses(pod: Pod, claims: Sequence[ClaimAllocation], pools: Sequence[Pool], v136: bool
                   ) -> list[NodeAllocatableResourceClaimStatus]:
    """buildNodeAllocatableDRAInfo: one status per claim whose devices charge the node, sorted by claim
    name, each naming the containers (init containers first) that reference its pod claim."""
    out: list[NodeAllocatableResourceClaimStatus] = []
    spec = pod.spec
    for pod_claim, claim, allocation in claims:
        st = _claim_status(claim, allocation, pools, v136)
        if st is None:
            continue
        if pod_claim is not None:
            st.containers = [c.name for c in (*spec.init_containers, *spec.containers)
                             for ref in c.resources.claims if ref.name == pod_claim]
        out.append(st)
    out.sort(key=lambda st: st.resource_claim_name)
    return out


def mapped_claim(claim: ResourceClaim, pools: Sequence[Pool]) -> bool:
    """Whether some device allocated to the claim has a 1.37 `mapping` (claimHasNodeAllocatableMappedDevice)."""
    allocation = claim.status.allocation if claim.status is not None else None
    if allocation is None:
        return False
    for r in allocation.devices.results:
        device = _device(pools, r)
        if device is not None and any(res.mapping is not None
                                      for res in (device.node_allocatable_resources or {}).values()):
            return True
    return False


def not_shareable(claim: ResourceClaim) -> Status:
    """validateNodeAllocatableDRAClaimSharing: a mapped claim another pod holds (1.37)."""
    return Status(UNRESOLVABLE, (f"node allocatable resource claim {claim.metadata.name} has a mapped device and "
                                 "cannot be shared across pods",), PLUGIN)


def fits(demand: Vector, allocatable: Vector, requested: Vector) -> Status | None:
    """nodeFitsResources: the pod's requests plus its claims' charges against what the node has left, for
    cpu, memory, ephemeral-storage and hugepages (the DynamicResources plugin's own check)."""
    reasons: list[str] = []
    unresolvable = False
    names = [CPU, MEMORY, EPHEMERAL, *sorted(k for k in demand if k.startswith("hugepages-"))]
    for name in names:
        want = demand.get(name, 0)
        have = allocatable.get(name, 0)
        if want > 0 and want > have - requested.get(name, 0):
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or want > have
    if not reasons:
        return None
    return Status(UNRESOLVABLE if unresolvable else UNSCHEDULABLE, tuple(reasons), PLUGIN)
