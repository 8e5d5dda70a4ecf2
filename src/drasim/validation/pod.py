"""core/v1 validation of the pod spec fields DRA touches: resourceClaims, container claims, extended resources."""

from __future__ import annotations

from drasim.api.core import PodResourceClaim, PodSpec
from drasim.validation.checker import Checker, struct_replace
from drasim.validation.findings import Raw, go_quote
from drasim.validation.formats import is_extended_resource_name
from drasim.validation.paths import child, index


def _go_ptr(value: str | None) -> str:
    return "(*string)(nil)" if value is None else f"&{go_quote(value)}"


def _pod_claim_value(c: PodResourceClaim) -> Raw:
    """The entry as the API server prints it in these errors (Go's %#v of core.PodResourceClaim)."""
    return Raw(f"core.PodResourceClaim{{Name:{go_quote(c.name)}, ResourceClaimName:{_go_ptr(c.resource_claim_name)}, "
                f"ResourceClaimTemplateName:{_go_ptr(c.resource_claim_template_name)}}}")


class PodChecker(Checker):
    """The DRA fields of a pod spec (a Pod's or a workload's template)."""

    def pod_spec(self, spec: PodSpec, path: str) -> PodSpec:
        """Findings for `spec`; returns it as stored (`schedulingGroup` dropped while GenericWorkload is off)."""
        claims_path = child(path, "resourceClaims")
        names: set[str] = set()
        for i, c in enumerate(spec.resource_claims):
            p = index(claims_path, i)
            self.list_map_name(c.name, child(p, "name"), names)
            if c.source is not None:
                # `source` (1.26-1.30) was replaced by the two fields below in 1.31: a current API server does
                # not know it (kubectl's strict field validation rejects it; without it the entry names no claim).
                self.add(child(p, "source"), "Forbidden", "field was removed in Kubernetes 1.31: "
                         "resourceClaimName and resourceClaimTemplateName moved up one level")
            if c.resource_claim_name is not None and c.resource_claim_template_name is not None:
                self.add(p, "Invalid", "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                         "specified", _pod_claim_value(c))
            elif c.resource_claim_name is None and c.resource_claim_template_name is None:
                self.add(p, "Invalid", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                         _pod_claim_value(c))
            if c.resource_claim_name is not None:
                self.dns_subdomain(c.resource_claim_name, child(p, "resourceClaimName"))
            if c.resource_claim_template_name is not None:
                self.dns_subdomain(c.resource_claim_template_name, child(p, "resourceClaimTemplateName"))
        for field, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
            for i, container in enumerate(containers):
                rpath = child(index(child(path, field), i), "resources")
                res = container.resources
                for j, ref in enumerate(res.claims):
                    if ref.name not in names:
                        self.add(child(index(child(rpath, "claims"), j), "name"), "NotSupported",
                                 "must be one of the names in pod.spec.resourceClaims"
                                 + ("" if names else " which are empty"), ref.name)
                for key, request in res.requests.items():
                    if not is_extended_resource_name(key):
                        continue
                    limit = res.limits.get(key)
                    if limit is None:
                        self.required(child(rpath, "limits"), "Limit must be set for non overcommitable resources")
                    elif request.cmp(limit) != 0:
                        self.invalid(child(rpath, "requests"), str(request),
                                     f"must be equal to {key} limit of {limit}")
        group = spec.scheduling_group
        if group is None:
            return spec
        gpath = child(path, "schedulingGroup")
        if not self.gate("generic_workload", gpath):
            return struct_replace(spec, scheduling_group=None)
        if not group.pod_group_name:
            self.required(child(gpath, "podGroupName"))
        else:
            self.dns_subdomain(group.pod_group_name, child(gpath, "podGroupName"))
        return spec
