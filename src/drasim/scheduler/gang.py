"""The GangScheduling plugin (PodGroups with a gang policy): PreEnqueue's quorum of pods and Permit's quorum.

Read from kubernetes/kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go (the
Permit-based revisions of the 1.36/1.37 line): PreEnqueue keeps a pod out of the queue until its PodGroup exists
and the group has at least minCount pods; Permit makes each pod wait (5 minutes) until minCount pods of the group
are assumed or bound, then lets them all bind; a pod whose wait times out is rejected by the framework
(pkg/scheduler/framework/runtime waiting pods: "rejected due to timeout after waiting %v at plugin %v").
"""

from __future__ import annotations

from datetime import timedelta

from drasim.api.core import Pod
from drasim.api.scheduling import PodGroup, min_count
from drasim.cluster.podgroups import pod_group_of
from drasim.cluster.state import ClusterState, Key, key_of

__all__ = [
    "PERMIT_TIMEOUT", "PLUGIN", "WAITING_FOR_QUORUM", "MemberCache", "gang_of", "group_pods", "pre_enqueue",
    "timeout_message",
]

PLUGIN = "GangScheduling"
PERMIT_TIMEOUT = timedelta(minutes=5)  # permitTimeoutDuration
WAITING_FOR_QUORUM = "waiting for minCount pods from a gang to be scheduled"
_WAITING_FOR_PODS = "waiting for minCount pods from a gang to appear in scheduling queue"


def timeout_message() -> str:
    """The framework's rejection of a pod whose Permit wait ran out (Go's %v of 5 minutes is `5m0s`)."""
    return f"rejected due to timeout after waiting 5m0s at plugin {PLUGIN}"


def gang_of(state: ClusterState, pod: Pod) -> PodGroup | None:
    """The pod's PodGroup when it has a gang policy (else None: basic groups and other pods are not gated)."""
    group = pod_group_of(state, pod)
    return group if group is not None and group.spec.scheduling_policy.gang is not None else None


def _alive(pod: Pod) -> bool:
    phase = pod.status.phase if pod.status is not None else None
    return pod.metadata.deletion_timestamp is None and phase not in ("Succeeded", "Failed")


# Members per PodGroup, kept for one scheduling pass (the engine's fast path): within a pass pods are only
# bound, never added, removed or finished, so a group's members stay the same.
MemberCache = dict[Key, list[Key]]


def group_pods(state: ClusterState, namespace: str, name: str, cache: MemberCache | None = None) -> list[Key]:
    """The live pods (not finished, not being deleted) whose schedulingGroup names the PodGroup."""
    if cache is not None:
        found = cache.get((namespace, name))
        if found is None:
            found = cache[(namespace, name)] = group_pods(state, namespace, name)
        return found
    out = []
    for pod in state.pods.values():
        ref = pod.spec.scheduling_group
        if ref is not None and ref.pod_group_name == name and (pod.metadata.namespace or "default") == namespace \
                and _alive(pod):
            out.append((namespace, pod.metadata.name))
    return out


def pre_enqueue(state: ClusterState, pod: Pod, cache: MemberCache | None = None) -> str | None:
    """PreEnqueue: why the pod may not enter the queue yet (UnschedulableAndUnresolvable), or None."""
    ref = pod.spec.scheduling_group
    if ref is None or not ref.pod_group_name:
        return None
    group = pod_group_of(state, pod)
    if group is None:
        return f'waiting for pod\'s pod group "{ref.pod_group_name}" to appear in scheduling queue'
    if group.spec.scheduling_policy.gang is None:
        return None
    if len(group_pods(state, *key_of(group), cache)) < min_count(group):
        return _WAITING_FOR_PODS
    return None
