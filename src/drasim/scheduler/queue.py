"""The scheduling queue's order (PrioritySort) and the memory of failed cycles that identical pods reuse."""

from __future__ import annotations

import msgspec

from drasim.api.core import Pod
from drasim.cluster.state import ClusterState, key_of
from drasim.scheduler.pods import owned_by, priority
from drasim.scheduler.result import ScheduleResult

MAX_FAILURES = 8


def queue_order(state: ClusterState, pods: list[Pod]) -> list[Pod]:
    """PrioritySort: higher `spec.priority` first, then earlier arrival (`state.arrival`)."""
    def order(p: Pod) -> tuple[int, int]:
        return (-priority(p), state.arrival.get(key_of(p), 1 << 62))
    return sorted(pods, key=order)


def failure_shape(state: ClusterState, pod: Pod) -> tuple[object, ...] | None:
    """Everything a failed cycle reads of the pod and its claims: not its name, UID, claim names, owner or
    generateName (None: a claim is missing, being deleted or already allocated or reserved: the cycle
    depends on it)."""
    meta = pod.metadata
    ns = meta.namespace or "default"
    claims: list[object] = []
    for entry in pod.spec.resource_claims:
        name = state.pod_claim_name(pod, entry.name)
        if name is None:
            claims.append(None)
            continue
        claim = state.claims.get((ns, name))
        if claim is None or claim.metadata.deletion_timestamp is not None:
            return None
        cstatus = claim.status
        if cstatus is not None and (cstatus.allocation is not None or cstatus.reserved_for or cstatus.devices):
            return None
        claims.append((claim.metadata.namespace or "default", owned_by(claim, pod),
                       claim.spec, cstatus))
    status = pod.status
    rstatus: object = None
    if status is not None:
        rstatus = (msgspec.structs.replace(status, resource_claim_statuses=[], conditions=[]),
                   tuple((c.name, c.resource_claim_name is None) for c in status.resource_claim_statuses))
    # A failed cycle reads the pod's labels only for its own spread constraints, and its owner and
    # generateName not at all (the owner's default spread selector only scores; the special claim's name
    # only on success): without them, pods alike from different workloads share the failure.
    labels = meta.labels if pod.spec.topology_spread_constraints else None
    return (ns, meta.generation, meta.deletion_timestamp, labels, meta.annotations, meta.finalizers, pod.spec,
            rstatus, tuple(claims))


class FailureMemory:
    """Failed cycles to reuse for identical pods while the state changes only through Scheduler.apply.

    A pod that reads the cluster exactly as an earlier failed one (same namespace, spec, status and
    unallocated claim specs: replicas, and pods alike of other workloads) fails the same way while
    nothing was applied in between, so its result is copied instead of computed. Only failures whose text
    names nothing of the pod are remembered (a full Filter scan, no PostFilter effect, no DRA-extended
    resources).
    """

    def __init__(self, state: ClusterState) -> None:
        self.state = state
        self.failures: list[tuple[tuple[object, ...], ScheduleResult]] = []

    def find(self, state: ClusterState, pod: Pod) -> ScheduleResult | None:
        """An earlier failure of a pod shaped like this one, if any."""
        if not self.failures or state is not self.state:
            return None
        shape = failure_shape(state, pod)
        if shape is None:
            return None
        for seen, failed in self.failures:
            if seen == shape:
                return failed
        return None

    def remember(self, pod: Pod, result: ScheduleResult) -> None:
        shape = failure_shape(self.state, pod)
        if shape is None:
            return
        if len(self.failures) >= MAX_FAILURES:
            self.failures.pop(0)
        self.failures.append((shape, result))

    def clear(self) -> None:
        self.failures.clear()
