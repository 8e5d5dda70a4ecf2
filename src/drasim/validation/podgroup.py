"""scheduling.k8s.io/v1alpha2 PodGroup validation: the scheduling policy and the DRA workload claims.

Rules read from kubernetes/kubernetes staging/src/k8s.io/api/scheduling/v1alpha2/types.go (declarative tags:
`+k8s:minimum=1` on gang.minCount, the policy and each claim a union, `+k8s:maxItems=4` and a list map keyed
by name on resourceClaims, DNS label/subdomain formats) at 1.37 development revisions in the code index.
"""

from __future__ import annotations

from drasim.api.scheduling import PodGroup, PodGroupResourceClaim
from drasim.validation.checker import Checker, struct_replace
from drasim.validation.paths import child, index

__all__ = ["MAX_POD_GROUP_CLAIMS", "PodGroupChecker"]

MAX_POD_GROUP_CLAIMS = 4


class PodGroupChecker(Checker):
    """One PodGroup as the API server validates and stores it."""

    def pod_group(self, group: PodGroup) -> PodGroup:
        """Findings for `group`; returns it as stored (resourceClaims dropped while their gate is off)."""
        self.metadata(group.metadata, namespaced=True)
        policy = group.spec.scheduling_policy
        path = "spec.schedulingPolicy"
        if policy.basic is None and policy.gang is None:
            self.invalid(path, "", "must specify one of: `basic`, `gang`")
        elif policy.basic is not None and policy.gang is not None:
            self.invalid(path, "", "must specify exactly one of: `basic`, `gang`")
        if policy.gang is not None and policy.gang.min_count < 1:
            self.invalid(child(child(path, "gang"), "minCount"), policy.gang.min_count,
                         "must be greater than or equal to 1")
        claims = group.spec.resource_claims
        if not claims:
            return group
        cpath = "spec.resourceClaims"
        if not self.gate("workload_resource_claims", cpath):
            return struct_replace(group, spec=struct_replace(group.spec, resource_claims=[]))
        if len(claims) > MAX_POD_GROUP_CLAIMS:
            self.too_many(cpath, len(claims), MAX_POD_GROUP_CLAIMS)
        names: set[str] = set()
        for i, claim in enumerate(claims):
            self._claim(claim, index(cpath, i), names)
        return group

    def _claim(self, claim: PodGroupResourceClaim, path: str, names: set[str]) -> None:
        self.list_map_name(claim.name, child(path, "name"), names)
        if claim.resource_claim_name is None and claim.resource_claim_template_name is None:
            self.invalid(path, "", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
        elif claim.resource_claim_name is not None and claim.resource_claim_template_name is not None:
            self.invalid(path, "", "must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`")
        if claim.resource_claim_name is not None:
            self.dns_subdomain(claim.resource_claim_name, child(path, "resourceClaimName"))
        if claim.resource_claim_template_name is not None:
            self.dns_subdomain(claim.resource_claim_template_name, child(path, "resourceClaimTemplateName"))
