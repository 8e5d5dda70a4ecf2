"""What several scheduler parts read of a pod: its priority and whether it owns a claim."""

from __future__ import annotations

from drasim.api.core import Pod
from drasim.api.resource import ResourceClaim


def priority(pod: Pod) -> int:
    """The pod's priority (0 when unset)."""
    return pod.spec.priority or 0


def owned_by(claim: ResourceClaim, pod: Pod) -> bool:
    """metav1.IsControlledBy: a controller ownerRef with the pod's UID."""
    uid = pod.metadata.uid or ""
    return any(ref.controller and (ref.uid or "") == uid for ref in claim.metadata.owner_references)
