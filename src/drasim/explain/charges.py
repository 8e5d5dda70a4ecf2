"""Why DynamicResources finds "Insufficient cpu": the node-allocatable resources a pod's claims charge a node."""

from __future__ import annotations

import weakref

from drasim.allocator.cache import SliceCache
from drasim.api.core import NodeAllocatableResourceClaimStatus, Pod
from drasim.api.quantity import Quantity
from drasim.cluster.state import ClusterState
from drasim.scheduler import Scheduler
from drasim.scheduler.framework import Charge
from drasim.scheduler.nodealloc import charges
from drasim.scheduler.resources import CPU, claim_status_requests

__all__ = ["held_by_claims", "insufficient_by_claims"]


def _amount(name: str, n: int) -> str:
    """A request vector's integer (cpu in millicores) as the quantity kubectl would print."""
    return Quantity.parse(f"{n}m").canonical() if name == CPU else Quantity.from_int(n).canonical()


def _trace(charge: Charge) -> str:
    """`Insufficient cpu` with what makes it up: the claims' charges, the containers' requests, what is left."""
    assert charge.verdict is not None
    parts: list[str] = []
    for reason in charge.verdict.reasons:
        name = reason.removeprefix("Insufficient ")
        by_claim = [(st.resource_claim_name, claim_status_requests([st]).get(name, 0)) for st in charge.statuses]
        taken = sum(v for _c, v in by_claim)
        have = charge.allocatable.get(name, 0)
        left = have - charge.requested.get(name, 0)
        claims = ", ".join(f"claim {c}: {_amount(name, v)}" for c, v in by_claim if v)
        parts.append(f"{reason}: the pod's claims take {_amount(name, taken)} {name} ({claims}) on top of its "
                     f"containers' {_amount(name, charge.requests.get(name, 0))}; the node has "
                     f"{_amount(name, max(left, 0))} of {_amount(name, have)} left")
    return f"{charge.verdict.plugin}: " + "; ".join(parts)


# Per slice cache (one per set of slices): whether any device charges its node, so that `explain pods -A`
# looks at the devices once, not once per pod.
_CHARGING: weakref.WeakKeyDictionary[SliceCache, bool] = weakref.WeakKeyDictionary()


def _any_charging(state: ClusterState) -> bool:
    cache = state.slice_cache()
    found = _CHARGING.get(cache)
    if found is None:
        found = _CHARGING[cache] = any(charges(d) for s in cache.slices for d in s.spec.devices)
    return found


def insufficient_by_claims(state: ClusterState, pod: Pod, names: list[str]) -> dict[str, str]:
    """Nodes of `names` where the pod's devices could be allocated but what they charge the node's
    allocatable (DRANodeAllocatableResources) does not fit, traced to the claims, or where a claim with a
    mapped device is another pod's: node -> why."""
    if pod.spec.node_name or not _any_charging(state):
        return {}
    found = Scheduler().node_charges(state, pod, names)
    out: dict[str, str] = {}
    for name, charge in found.items():
        verdict = charge.verdict
        if verdict is None:
            continue
        insufficient = all(r.startswith("Insufficient ") for r in verdict.reasons)
        out[name] = _trace(charge) if insufficient else f"{verdict.plugin}: {verdict.message}"
    return out


Held = dict[str, list[tuple[str, NodeAllocatableResourceClaimStatus]]]
# The last state asked about, while its pod log does not grow (`explain pods -A` asks once per pod): the
# node-allocatable claim statuses of the pods on each node.
_last_held: list[tuple[weakref.ref[ClusterState], int, Held]] = []


def _held(state: ClusterState) -> Held:
    if _last_held and _last_held[0][0]() is state and _last_held[0][1] == len(state.pod_log):
        return _last_held[0][2]
    by_node: Held = {}
    for pod in state.pods.values():
        statuses = pod.status.node_allocatable_resource_claim_statuses if pod.status is not None else None
        if statuses and pod.spec.node_name:
            ref = f"{pod.metadata.namespace or 'default'}/{pod.metadata.name}"
            by_node.setdefault(pod.spec.node_name, []).extend((ref, st) for st in statuses)
    _last_held[:] = [(weakref.ref(state), len(state.pod_log), by_node)]
    return by_node


def held_by_claims(state: ClusterState, rejected: dict[str, str]) -> dict[str, str]:
    """`rejected` with every NodeResourcesFit `Insufficient cpu` (memory, ...) traced to what the claims of
    the node's pods take of it (their `status.nodeAllocatableResourceClaimStatuses`), where they take some."""
    out = dict(rejected)
    held = _held(state)
    for name, why in rejected.items():
        if name not in held or not why.startswith("NodeResourcesFit: "):
            continue
        parts = []
        for resource in sorted({r for _p, st in held[name] for r in claim_status_requests([st])}):
            if f"Insufficient {resource}" not in why:
                continue
            items = [(ref, st.resource_claim_name, claim_status_requests([st]).get(resource, 0))
                     for ref, st in held[name]]
            items = [i for i in items if i[2]]
            total = sum(v for _r, _c, v in items)
            parts.append(f"claims of its pods take {_amount(resource, total)} {resource} of the node ("
                         + ", ".join(f"{ref} claim {c}: {_amount(resource, v)}" for ref, c, v in items) + ")")
        if parts:
            out[name] = f"{why}: " + "; ".join(parts)
    return out
