"""scheduling.k8s.io/v1alpha2 PodGroup (gang policy and DRA workload claims), reduced to what DRA scheduling reads.

Read from kubernetes/kubernetes staging/src/k8s.io/api/scheduling/v1alpha2/types.go (1.37 development revisions
in the code index: PodGroupSpec.resourceClaims behind DRAWorkloadResourceClaims, at most 4, and
PodGroupStatus.resourceClaimStatuses); the example driver's manifests are written against this version.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from drasim.api.meta import Condition, Int32, Lenient, ObjectMeta

__all__ = [
    "GROUP", "POD_GROUPS", "PodGroup", "PodGroupResourceClaim", "PodGroupResourceClaimStatus", "PodGroupSpec",
    "PodGroupStatus", "min_count",
]

GROUP = "scheduling.k8s.io"
POD_GROUPS = "podgroups"  # the resource, as a claim's reservedFor names it


class GangSchedulingPolicy(Lenient):
    min_count: Int32 = 0


class PodGroupSchedulingPolicy(Lenient):
    basic: dict[str, Any] | None = None
    gang: GangSchedulingPolicy | None = None


class PodGroupResourceClaim(Lenient):
    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodGroupSpec(Lenient):
    scheduling_policy: PodGroupSchedulingPolicy = msgspec.field(default_factory=PodGroupSchedulingPolicy)
    resource_claims: list[PodGroupResourceClaim] = []


class PodGroupResourceClaimStatus(Lenient):
    name: str = ""
    resource_claim_name: str | None = None


class PodGroupStatus(Lenient):
    conditions: list[Condition] = []
    resource_claim_statuses: list[PodGroupResourceClaimStatus] = []


class PodGroup(Lenient):
    KIND: ClassVar[str] = "PodGroup"
    NAMESPACED: ClassVar[bool] = True
    api_version: str = "scheduling.k8s.io/v1alpha2"
    kind: str = "PodGroup"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodGroupSpec = msgspec.field(default_factory=PodGroupSpec)
    status: PodGroupStatus | None = None


def min_count(group: PodGroup) -> int:
    """The gang's minCount; 1 for a basic group (upstream's getMinCount)."""
    gang = group.spec.scheduling_policy.gang
    return gang.min_count if gang is not None else 1
