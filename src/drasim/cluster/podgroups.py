"""PodGroup claims (DRAWorkloadResourceClaims): which claim a pod of a group uses, who owns it, whom it is reserved for.

Read from the DRA workload claims KEP (kubernetes/enhancements keps/sig-scheduling, "ResourceClaim Lifecycle")
and kubernetes/kubernetes staging/src/k8s.io/api/scheduling/v1alpha2/types.go (PodGroupResourceClaim,
PodGroupStatus.resourceClaimStatuses) at 1.37 development revisions:

* a PodGroup's `resourceClaimTemplateName` entry becomes one ResourceClaim, owned (controller) by the PodGroup,
  annotated `resource.kubernetes.io/podgroup-claim-name`, named from `<podgroup>-<claim>-` as pod claims are,
  and recorded in the PodGroup's `status.resourceClaimStatuses`;
* a pod of the group whose `spec.resourceClaims` entry matches a PodGroup entry exactly (same name, same claim or
  template) gets the PodGroup's claim recorded in its own `status.resourceClaimStatuses`: no claim of its own;
* the scheduler reserves such a claim for the PodGroup (`reservedFor` `scheduling.k8s.io/podgroups`), not per pod.
"""

from __future__ import annotations

from drasim.api.core import Pod, PodResourceClaim
from drasim.api.resource import ResourceClaim, ResourceClaimConsumerReference
from drasim.api.scheduling import GROUP, POD_GROUPS, PodGroup, PodGroupResourceClaimStatus, PodGroupStatus
from drasim.cluster.state import ClusterState

__all__ = [
    "PENDING", "POD_GROUP_CLAIM_NAME_ANNOTATION", "group_claim_name", "group_consumer", "group_for_claim",
    "owned_by_group", "owned_by_pods_group", "pod_group_of", "record_group_claim", "reserved_for_group",
    "reserved_for_pods_group",
]

POD_GROUP_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/podgroup-claim-name"
PENDING = ""  # group_claim_name: the entry is the group's, but its claim is not created yet


def pod_group_of(state: ClusterState, pod: Pod) -> PodGroup | None:
    """The PodGroup named by the pod's `spec.schedulingGroup`, when it exists."""
    group = pod.spec.scheduling_group
    if group is None or not group.pod_group_name:
        return None
    return state.pod_groups.get((pod.metadata.namespace or "default", group.pod_group_name))


def group_claim_name(state: ClusterState, pod: Pod, entry: PodResourceClaim) -> str | None:
    """The PodGroup claim behind the pod's claim entry: its name, PENDING while the group's claim is not
    created yet, or None when the entry is the pod's own (no group, or no exactly matching group entry)."""
    group = pod_group_of(state, pod)
    if group is None:
        return None
    for claim in group.spec.resource_claims:
        if claim.name != entry.name or claim.resource_claim_name != entry.resource_claim_name or \
                claim.resource_claim_template_name != entry.resource_claim_template_name:
            continue
        if claim.resource_claim_name:
            return claim.resource_claim_name
        for status in group.status.resource_claim_statuses if group.status is not None else []:
            if status.name == claim.name and status.resource_claim_name:
                return status.resource_claim_name
        return PENDING
    return None


def owned_by_group(claim: ResourceClaim, group: PodGroup) -> bool:
    """Whether the claim's controller owner is this PodGroup (by UID)."""
    return any(o.controller and o.kind == "PodGroup" and o.api_version.startswith(GROUP + "/")
               and o.uid == group.metadata.uid for o in claim.metadata.owner_references)


def group_consumer(group: PodGroup) -> ResourceClaimConsumerReference:
    """The `reservedFor` entry of a claim reserved for the PodGroup."""
    return ResourceClaimConsumerReference(api_group=GROUP, resource=POD_GROUPS, name=group.metadata.name,
                                          uid=group.metadata.uid or "")


def reserved_for_group(claim: ResourceClaim, group: PodGroup) -> bool:
    """Whether `reservedFor` names the PodGroup (by name: a PodGroup outlives its pods, see the KEP)."""
    return claim.status is not None and any(
        r.api_group == GROUP and r.resource == POD_GROUPS and r.name == group.metadata.name
        for r in claim.status.reserved_for)


def record_group_claim(status: PodGroupStatus, name: str, claim: str) -> None:
    """Set `status.resourceClaimStatuses[name]` (a list map keyed by name: new keys go to the end)."""
    for entry in status.resource_claim_statuses:
        if entry.name == name:
            entry.resource_claim_name = claim
            return
    status.resource_claim_statuses.append(PodGroupResourceClaimStatus(name=name, resource_claim_name=claim))



def owned_by_pods_group(state: ClusterState, claim: ResourceClaim, pod: Pod) -> bool:
    """IsForPod's PodGroup case: a generated claim the pod uses is its PodGroup's (controller owner)."""
    group = pod_group_of(state, pod) if state.pod_groups else None
    return group is not None and owned_by_group(claim, group)


def group_for_claim(state: ClusterState, pod: Pod, claim_name: str) -> PodGroup | None:
    """The pod's PodGroup when the pod uses `claim_name` as that group's claim (reserved for the group)."""
    group = pod_group_of(state, pod) if state.pod_groups else None
    if group is None:
        return None
    for entry in pod.spec.resource_claims:
        if group_claim_name(state, pod, entry) == claim_name:
            return group
    return None


def reserved_for_pods_group(state: ClusterState, claim: ResourceClaim, pod: Pod) -> bool:
    """Whether the claim is the pod's through its PodGroup's reservation (the KEP: consumers of a claim
    reserved for a PodGroup are the group's pods, e.g. for device-taint eviction)."""
    group = group_for_claim(state, pod, claim.metadata.name)
    return group is not None and reserved_for_group(claim, group)
