"""Why DynamicResources finds "Insufficient cpu": the node-allocatable resources a pod's claims charge a node."""

from __future__ import annotations

import weakref

from drasim.allocator.cache import SliceCache
from drasim.api.core import Pod
from drasim.api.quantity import Quantity
from drasim.cluster.state import ClusterState
from drasim.scheduler import Scheduler
from drasim.scheduler.framework import Charge
from drasim.scheduler.nodealloc import charges
from drasim.scheduler.resources import CPU, claim_status_requests

__all__ = ["insufficient_by_claims"]


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
