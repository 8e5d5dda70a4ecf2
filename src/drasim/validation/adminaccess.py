"""Admin access across objects: `adminAccess: true` needs the admin-access label on the claim's Namespace."""

from __future__ import annotations

from drasim.api import resource as r
from drasim.api.core import Namespace
from drasim.api.meta import object_ref
from drasim.validation.findings import Finding

__all__ = ["ADMIN_NAMESPACE_LABEL_KEY", "check_admin_access"]

ADMIN_NAMESPACE_LABEL_KEY = "resource.kubernetes.io/admin-access"


def check_admin_access(
    obj: r.ResourceClaim | r.ResourceClaimTemplate, namespaces: dict[str, Namespace], *, strict: bool = False
) -> list[Finding]:
    """`adminAccess: true` needs the admin-access label on the object's Namespace. A Namespace not in
    `namespaces` is skipped, or with `strict` taken as one without labels (as `default` is)."""
    if isinstance(obj, r.ResourceClaim):
        kind, spec, path = "ResourceClaim", obj.spec, "spec"
    else:
        kind, spec, path = "ResourceClaimTemplate", obj.spec.spec, "spec.spec"
    ns_name = obj.metadata.namespace or "default"
    ns = namespaces.get(ns_name)
    if ns is None and not strict:
        return []
    for i, req in enumerate(spec.devices.requests):
        if req.exactly is not None and req.exactly.admin_access:
            if ns is not None and ns.metadata.labels.get(ADMIN_NAMESPACE_LABEL_KEY) == "true":
                return []
            where = "" if ns is not None else (
                f" (Namespace {ns_name} is not among the inputs: taken as one without that label)")
            return [
                Finding(
                    object_ref(kind, obj.metadata),
                    f"{path}.devices.requests[{i}].exactly.adminAccess",
                    "Forbidden",
                    "admin access to devices requires the "
                    f"`{ADMIN_NAMESPACE_LABEL_KEY}: true` label on the containing namespace{where}",
                )
            ]
    return []
