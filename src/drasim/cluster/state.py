"""The state a scheduler and the controllers see: objects by key, in-use devices indexed, a clock."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from drasim.allocator import AllocatedState, DeviceID, Features
from drasim.allocator.cache import SliceCache
from drasim.allocator.celmatch import SelectorMemo
from drasim.api.core import Deployment, Job, Namespace, Node, Pod, ReplicaSet, StatefulSet
from drasim.api.defaults import default_claim, default_claim_spec, default_pod
from drasim.api.resource import (
    AllocationResult,
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceClaimTemplate,
    ResourceSlice,
)
from drasim.api.scheduling import PodGroup
from drasim.cel import stored_environment
from drasim.cluster.taintrules import apply_taint_rules

Key = tuple[str, str]  # (namespace, name)
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def key_of(obj: Any) -> Key:
    """(namespace, name) of a namespaced object ("" namespace -> "default")."""
    return (obj.metadata.namespace or "default", obj.metadata.name)


@dataclass
class ClusterState:
    """Objects of one simulated cluster. Mutated only by the scheduler's bind step and controllers.

    Nodes keep insertion order (the scheduler's node-tree order). `now` is the simulated clock.
    The in-use device index (`in_use`) is maintained incrementally through `set_allocation`.
    """

    features: Features = field(default_factory=Features)
    now: datetime = EPOCH
    nodes: dict[str, Node] = field(default_factory=dict)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    classes: dict[str, DeviceClass] = field(default_factory=dict)
    slices: dict[str, ResourceSlice] = field(default_factory=dict)
    taint_rules: dict[str, DeviceTaintRule] = field(default_factory=dict)
    claims: dict[Key, ResourceClaim] = field(default_factory=dict)
    templates: dict[Key, ResourceClaimTemplate] = field(default_factory=dict)
    pods: dict[Key, Pod] = field(default_factory=dict)
    pod_groups: dict[Key, PodGroup] = field(default_factory=dict)  # scheduling.k8s.io PodGroups (gangs)
    workloads: list[Deployment | ReplicaSet | StatefulSet | Job] = field(default_factory=list)
    # Order in which pods entered the cluster (the queue's tie-break after priority).
    arrival: dict[Key, int] = field(default_factory=dict)
    in_use: AllocatedState = field(default_factory=AllocatedState)
    # Change feeds for incremental readers (the scheduler's caches). `device_epoch` counts the changes
    # to allocations on each (driver, pool) and `device_log` lists the pools in the order they changed;
    # `pod_log` lists pods that were added or changed (see pod_changed); `node_version` counts node
    # additions (see nodes_changed).
    device_epoch: dict[tuple[str, str], int] = field(default_factory=dict)
    device_log: list[tuple[str, str]] = field(default_factory=list)
    pod_log: list[Key] = field(default_factory=list)
    node_version: int = 0
    _shares: dict[tuple[DeviceID, str], int] = field(default_factory=dict)
    _slice_version: int = 0
    _cache: tuple[int, list[ResourceSlice], SliceCache] | None = None
    _memo: SelectorMemo | None = None

    # --- loading --------------------------------------------------------------------------------

    @classmethod
    def from_objects(cls, objects: Iterable[Any], *, features: Features | None = None,
                     now: datetime = EPOCH) -> ClusterState:
        """Index decoded objects (unknown kinds are ignored)."""
        state = cls(features=features or Features(), now=now)
        for obj in objects:
            state.add(obj)
        return state

    def add(self, obj: Any, *, defaulted: bool = False) -> None:
        """Add or replace one object (claims with an allocation are indexed as in use). Objects reach the
        cluster through the API server, which defaults them (in place: the state owns the objects it is
        given); `defaulted` says the caller made a pod or claim as defaulting leaves it (its spec a shared
        copy already defaulted once, see the controllers), so the walk over it is skipped."""
        # Pods and claims by exact type first (no API type is subclassed): a controller adds 50,000 of each,
        # and an isinstance chain would cost a test per kind before them.
        cls = type(obj)
        if cls is Pod:
            self._add_pod(obj, defaulted)
        elif cls is ResourceClaim:
            self._add_claim(obj, defaulted)
        elif isinstance(obj, Node):
            self.nodes[obj.metadata.name] = obj
            self.node_version += 1
        elif isinstance(obj, Namespace):
            self.namespaces[obj.metadata.name] = obj
        elif isinstance(obj, DeviceClass):
            self.classes[obj.metadata.name] = obj
        elif isinstance(obj, ResourceSlice):
            self.slices[obj.metadata.name] = obj
            self.slices_changed()
        elif isinstance(obj, DeviceTaintRule):
            self.taint_rules[obj.metadata.name] = obj
            self.slices_changed()
        elif isinstance(obj, ResourceClaimTemplate):
            default_claim_spec(obj.spec.spec)
            self.templates[key_of(obj)] = obj
        elif isinstance(obj, Deployment | ReplicaSet | StatefulSet | Job):
            self.workloads.append(obj)
        elif isinstance(obj, PodGroup):
            self.pod_groups[key_of(obj)] = obj

    def _add_claim(self, claim: ResourceClaim, defaulted: bool) -> None:
        if not defaulted:
            default_claim(claim)
        key = key_of(claim)
        old = self.claims.get(key)
        if old is not None:
            self._index(old, -1)
        self.claims[key] = claim
        self._index(claim, +1)

    def _add_pod(self, pod: Pod, defaulted: bool) -> None:
        if not defaulted:
            default_pod(pod)  # pods a workload creates go through the API server's defaulting too
        key = key_of(pod)
        self.pods[key] = pod
        self.arrival.setdefault(key, len(self.arrival))
        self.pod_log.append(key)

    def delete_claim(self, key: Key) -> None:
        claim = self.claims.pop(key, None)
        if claim is not None:
            self._index(claim, -1)

    def delete_pod(self, key: Key) -> None:
        """Remove a pod (its node frees the pod's resources)."""
        if self.pods.pop(key, None) is not None:
            self.pod_log.append(key)

    def pod_changed(self, key: Key) -> None:
        """Call after editing a pod in place (bound, finished, labels changed): node accounting re-reads it."""
        self.pod_log.append(key)

    def nodes_changed(self) -> None:
        """Call after editing nodes in place (labels, taints, allocatable)."""
        self.node_version += 1

    # --- slices as the scheduler sees them --------------------------------------------------------

    def slices_changed(self) -> None:
        """Call after changing slices or DeviceTaintRules in place."""
        self._slice_version += 1

    def effective_slices(self) -> list[ResourceSlice]:
        """Published slices with every DeviceTaintRule's taint merged in (the scheduler's view)."""
        return self.slice_cache_entry()[1]

    def slice_cache(self) -> SliceCache:
        """Pools per node and CEL results, valid until slices or rules change."""
        return self.slice_cache_entry()[2]

    def slice_cache_entry(self) -> tuple[int, list[ResourceSlice], SliceCache]:
        if self._cache is None or self._cache[0] != self._slice_version:
            if self._memo is None:
                self._memo = SelectorMemo(stored_environment(self.features.release,
                                                             self.features.list_type_attributes))
            merged = apply_taint_rules(list(self.slices.values()), list(self.taint_rules.values()))
            self._cache = (self._slice_version, merged, SliceCache(merged, self._memo))
        return self._cache

    # --- allocations --------------------------------------------------------------------------

    def set_allocation(self, key: Key, allocation: AllocationResult | None) -> None:
        """Write (or clear, with None) a claim's `status.allocation`, keeping the in-use index exact."""
        claim = self.claims[key]
        self._index(claim, -1)
        if claim.status is None:
            claim.status = ResourceClaimStatus()
        claim.status.allocation = allocation
        if allocation is None:
            claim.status.reserved_for = []
            claim.status.devices = []
        self._index(claim, +1)

    def _index(self, claim: ResourceClaim, sign: int) -> None:
        if claim.status is None or claim.status.allocation is None:
            return
        state = self.in_use
        for r in claim.status.allocation.devices.results:
            if r.admin_access:
                continue  # admin access never makes a device in use
            dev = DeviceID(r.driver, r.pool, r.device)
            pool_key = (r.driver, r.pool)
            self.device_epoch[pool_key] = self.device_epoch.get(pool_key, 0) + 1
            self.device_log.append(pool_key)
            if self.features.consumable_capacity and r.share_id:
                share = (dev, r.share_id)
                count = self._shares.get(share, 0) + sign
                if count > 0:
                    self._shares[share] = count
                    state.shared.add(share)
                else:
                    self._shares.pop(share, None)
                    state.shared.discard(share)
                if r.consumed_capacity:
                    total = state.aggregated_capacity.setdefault(dev, {})
                    for name, q in r.consumed_capacity.items():
                        total[name] = total[name] + q if sign > 0 and name in total else (
                            q if sign > 0 else total[name] - q)
                    if sign < 0 and all(v.is_zero() for v in total.values()):
                        del state.aggregated_capacity[dev]
            elif sign > 0:
                state.devices.add(dev)
            else:
                state.devices.discard(dev)

    def allocated_state(self, in_flight: Iterable[AllocationResult] = ()) -> AllocatedState:
        """The allocator's in-use state: indexed allocations plus in-flight ones (not yet written)."""
        extra = list(in_flight)
        if not extra:
            return self.in_use
        state = self.in_use.copy()
        for allocation in extra:
            state.add_allocation(allocation, consumable_capacity=self.features.consumable_capacity)
        return state

    # --- pods and their claims ----------------------------------------------------------------

    def pod_claim_name(self, pod: Pod, pod_claim: str) -> str | None:
        """The ResourceClaim name behind `pod.spec.resourceClaims[name=pod_claim]` (None if not known yet)."""
        for entry in pod.spec.resource_claims:
            if entry.name != pod_claim:
                continue
            if entry.resource_claim_name:
                return entry.resource_claim_name
            for status in (pod.status.resource_claim_statuses if pod.status else []):
                if status.name == pod_claim:
                    return status.resource_claim_name
        return None

    def pod_claim_keys(self, pod: Pod) -> list[Key]:
        """The keys of the claims the pod's `spec.resourceClaims` entries name (those known yet), in order."""
        ns = pod.metadata.namespace or "default"
        entries = pod.spec.resource_claims
        if len(entries) == 1:
            # One entry (the common case): `pod_claim_name` without finding the entry by its name again.
            entry = entries[0]
            one = entry.resource_claim_name
            if not one and pod.status is not None:
                for status in pod.status.resource_claim_statuses:
                    if status.name == entry.name:
                        one = status.resource_claim_name
                        break
            return [(ns, one)] if one else []
        out: list[Key] = []
        for entry in entries:
            name = self.pod_claim_name(pod, entry.name)
            if name:
                out.append((ns, name))
        return out

    def in_arrival_order(self, keys: Iterable[Key]) -> list[Key]:
        """Pod keys sorted by `arrival` (pods it does not know last), then by key."""
        arrival = self.arrival
        return sorted(keys, key=lambda k: (arrival.get(k, 1 << 62), k))

    def pod_claims(self, pod: Pod) -> list[tuple[str, ResourceClaim | None]]:
        """(pod claim name, claim or None when missing) for each `spec.resourceClaims` entry."""
        ns = pod.metadata.namespace or "default"
        out: list[tuple[str, ResourceClaim | None]] = []
        for entry in pod.spec.resource_claims:
            name = self.pod_claim_name(pod, entry.name)
            out.append((entry.name, self.claims.get((ns, name)) if name else None))
        return out
