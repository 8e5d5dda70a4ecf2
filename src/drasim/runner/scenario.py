"""Run a scenario (the conformance-vector format): allocator calls in order, in the upstream output shape."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from drasim.allocator import AllocatedState, AllocationError, Allocator, DeviceID, Features, NodeLocalError
from drasim.allocator.cache import SliceCache
from drasim.allocator.celmatch import SelectorMemo
from drasim.api.claims import claim_ref
from drasim.api.core import Node
from drasim.api.defaults import apply_claim_defaults
from drasim.api.meta import ObjectMeta
from drasim.api.quantity import Quantity
from drasim.api.resource import (
    AllocationResult,
    DeviceClass,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceSlice,
)
from drasim.cel import stored_environment
from drasim.cluster.taintrules import apply_taint_rules

UPSTREAM = ("kubernetes v1.36.2 (k8s.io/dynamic-resource-allocation v0.36.2, "
            "commit b0162be5933a67898f582c979419d0b7dd9c75ee)")


@dataclass
class StepSpec:
    """One Allocate call of a scenario."""

    claims: list[str]
    node: str | None = None
    commit: bool = True


@dataclass
class ScenarioInput:
    """What a scenario needs to run: objects plus the call sequence (files map onto this)."""

    name: str
    objects: list[Any]
    steps: list[StepSpec]
    node: str | None = None
    features: Features = field(default_factory=Features)
    flags: dict[str, bool] = field(default_factory=dict)  # the file's own `features:` (they outrank a release)
    apply_defaults: bool = True
    variant: str | None = None  # force an upstream implementation variant (stable/incubating/experimental)
    allocated_devices: list[DeviceID] = field(default_factory=list)
    shared_devices: list[tuple[DeviceID, str]] = field(default_factory=list)
    consumed_capacity: list[tuple[DeviceID, dict[str, Quantity]]] = field(default_factory=list)


class ScenarioError(Exception):
    """A scenario that cannot run (unknown claim reference, claim already allocated, ...)."""


class _ShareNames:
    """Replaces share IDs by share-1, share-2, ... in order of first appearance (as the vectors do)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, share_id: str) -> str:
        if share_id not in self.names:
            self.names[share_id] = f"share-{len(self.names) + 1}"
        return self.names[share_id]


def _find_claim(claims: list[ResourceClaim], ref: str) -> int:
    if "/" in ref:
        ns, _, name = ref.partition("/")
        hits = [i for i, c in enumerate(claims) if c.metadata.name == name and (c.metadata.namespace or "") == ns]
    else:
        hits = [i for i, c in enumerate(claims) if c.metadata.name == ref]
        if len(hits) > 1:
            hits = [i for i in hits if c_ns(claims[i]) == "default"]
    if len(hits) != 1:
        raise ScenarioError(f"claim reference {ref!r} does not identify exactly one ResourceClaim")
    return hits[0]


def c_ns(claim: ResourceClaim) -> str:
    return claim.metadata.namespace or ""


def in_use_state(claims: Sequence[ResourceClaim], features: Features, extra: ScenarioInput | None = None
                 ) -> AllocatedState:
    """The allocator's in-use state derived from allocated claims (spec §4.1 bookkeeping)."""
    state = AllocatedState()
    for claim in claims:
        if claim.status is not None and claim.status.allocation is not None:
            state.add_allocation(claim.status.allocation, consumable_capacity=features.consumable_capacity)
    if extra is not None:
        state.devices.update(extra.allocated_devices)
        state.shared.update(extra.shared_devices)
        for dev, consumed in extra.consumed_capacity:
            state.add_consumed(dev, consumed)
    return state


def run_scenario(sc: ScenarioInput, *, with_stats: bool = False) -> dict[str, Any]:
    """Run every step; return the upstream-output-shaped dict (without `scenario`/`upstream`).

    `with_stats` adds `searchSteps` (upstream's NumAllocateOneInvocations) to every step.
    """
    classes: dict[str, DeviceClass] = {}
    slices: list[ResourceSlice] = []
    rules: list[DeviceTaintRule] = []
    nodes: dict[str, Node] = {}
    claims: list[ResourceClaim] = []
    for obj in sc.objects:
        if isinstance(obj, DeviceClass):
            classes[obj.metadata.name] = obj
        elif isinstance(obj, ResourceSlice):
            slices.append(obj)
        elif isinstance(obj, DeviceTaintRule):
            rules.append(obj)
        elif isinstance(obj, Node):
            nodes[obj.metadata.name] = obj
        elif isinstance(obj, ResourceClaim):
            claims.append(apply_claim_defaults(obj) if sc.apply_defaults else copy.deepcopy(obj))
    slices = apply_taint_rules(slices, rules)
    features = sc.features
    cache = SliceCache(slices, SelectorMemo(stored_environment(features.release, features.list_type_attributes)))
    share_names = _ShareNames()
    out_steps = []
    for step in sc.steps:
        node_name = step.node or sc.node or ""
        node = nodes.get(node_name) or Node(metadata=ObjectMeta(name=node_name))
        indices = [_find_claim(claims, ref) for ref in step.claims]
        for i in indices:
            status = claims[i].status
            if status is not None and status.allocation is not None:
                raise ScenarioError(f"claim {claim_ref(claims[i])} is already allocated")
        state = in_use_state(claims, features, sc)
        allocator = Allocator(features, state, classes, cache, variant=sc.variant)
        entry: dict[str, Any] = {"node": node_name, "claims": list(step.claims),
                                 "allocator": allocator.variant}
        try:
            results = allocator.allocate(node, [claims[i] for i in indices])
        except AllocationError as err:
            entry.update(status="error", error=err.message)
            if isinstance(err, NodeLocalError):
                entry["nodeLocalError"] = True
            results = None
        if with_stats:
            entry["searchSteps"] = allocator.stats.steps
        if entry.get("status") == "error":
            out_steps.append(entry)
            continue
        if results is None:
            entry["status"] = "unsatisfiable"
            out_steps.append(entry)
            continue
        entry["status"] = "allocated"
        entry["results"] = [
            _result_dict(claims[i], res, share_names, sort=allocator.variant == "stable")
            for i, res in zip(indices, results, strict=True)]
        if step.commit:
            for i, res in zip(indices, results, strict=True):
                claim = claims[i]
                if claim.status is None:
                    claim.status = ResourceClaimStatus()
                claim.status.allocation = res
        out_steps.append(entry)
    return {"name": sc.name, "features": features.enabled(), "steps": out_steps}


def _result_dict(claim: ResourceClaim, res: AllocationResult, share_names: _ShareNames, *,
                 sort: bool) -> dict[str, Any]:
    devices = []
    for r in res.devices.results:
        d: dict[str, Any] = {"request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device}
        if r.admin_access:
            d["adminAccess"] = True
        if r.share_id:
            d["shareID"] = share_names(r.share_id)
        if r.consumed_capacity:
            d["consumedCapacity"] = {k: str(v) for k, v in sorted(r.consumed_capacity.items())}
        if r.tolerations:
            d["tolerations"] = [_plain(t) for t in r.tolerations]
        if r.binding_conditions:
            d["bindingConditions"] = list(r.binding_conditions)
        if r.binding_failure_conditions:
            d["bindingFailureConditions"] = list(r.binding_failure_conditions)
        devices.append(d)
    if sort:
        devices.sort(key=lambda d: (d["request"], d["driver"], d["pool"], d["device"]))
    out: dict[str, Any] = {"claim": claim_ref(claim), "devices": devices}
    if res.devices.config:
        out["config"] = [_plain(c) for c in res.devices.config]
    if res.node_selector is not None:
        ns = _plain(res.node_selector)
        if sort:
            for term in ns.get("nodeSelectorTerms", []):
                for k in ("matchExpressions", "matchFields"):
                    if k in term:
                        term[k].sort(key=lambda r: (r["key"], r["operator"], r.get("values", [])))
        out["nodeSelector"] = ns
    return out


def _plain(obj: Any) -> Any:
    import msgspec

    from drasim.api.quantity import quantity_enc_hook
    return _sorted_maps(msgspec.to_builtins(obj, enc_hook=quantity_enc_hook))


def _sorted_maps(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted_maps(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sorted_maps(v) for v in value]
    return value
