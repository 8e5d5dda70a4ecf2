"""Validation entry points: one object as the API server would store it, or several with cross-object checks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from drasim.api import resource as r
from drasim.api.core import Deployment, Job, Namespace, Pod, ReplicaSet, StatefulSet
from drasim.api.gates import ValidationFeatures
from drasim.api.meta import object_ref
from drasim.api.scheduling import PodGroup
from drasim.validation.adminaccess import check_admin_access
from drasim.validation.celcheck import default_cel_checker
from drasim.validation.checker import CelChecker, struct_replace
from drasim.validation.claimstatus import ClaimStatusChecker
from drasim.validation.deviceclass import store_device_class
from drasim.validation.devicetaintrule import validate_device_taint_rule
from drasim.validation.findings import Finding
from drasim.validation.pod import PodChecker
from drasim.validation.podgroup import PodGroupChecker
from drasim.validation.pools import check_pools
from drasim.validation.resourceclaim import ClaimChecker
from drasim.validation.resourceslice import SliceChecker

__all__ = ["store_object", "validate_object", "validate_objects"]

T = TypeVar("T")


def validate_object(
    obj: object, *, features: ValidationFeatures | None = None, cel_checker: CelChecker | None = None
) -> list[Finding]:
    """The field errors the API server would report when the object is created (plus a few warnings).

    Objects of kinds other than the five DRA kinds, Pods and workloads yield no findings. Feature-gated
    fields used while their gate is off yield a Forbidden warning: the API server drops such a field
    (no error) and validates the rest of the object without it.
    """
    return store_object(obj, features=features, cel_checker=cel_checker)[1]


def store_object(
    obj: T, *, features: ValidationFeatures | None = None, cel_checker: CelChecker | None = None
) -> tuple[T, list[Finding]]:
    """`validate_object`'s findings and the object as the API server would store it: fields of disabled
    feature gates dropped (the input is not modified)."""
    features = features or ValidationFeatures()
    cel_checker = cel_checker or default_cel_checker
    stored: Any = obj
    if isinstance(obj, r.ResourceSlice):
        sc = SliceChecker(object_ref("ResourceSlice", obj.metadata), features, cel_checker)
        stored = sc.resource_slice(obj)
        return stored, sc.findings
    if isinstance(obj, r.DeviceClass):
        stored, findings = store_device_class(obj, features, cel_checker)
        return stored, findings
    if isinstance(obj, r.ResourceClaim):
        cc = ClaimStatusChecker(object_ref("ResourceClaim", obj.metadata), features, cel_checker)
        cc.metadata(obj.metadata, namespaced=True)
        spec = cc.claim_spec(obj.spec, "spec")
        # A real API server drops `status` on create; drasim keeps and validates it (as the status subresource
        # write that set it): every input is cluster state, and nothing in a `-f` file tells a `kubectl get -o
        # yaml` export or a hand-written running claim (allocation, reservedFor) from an apply payload.
        if obj.status is not None:
            cc.claim_status(obj.status, spec, "status")
        if spec != obj.spec:
            stored = struct_replace(obj, spec=spec)
        return stored, cc.findings
    if isinstance(obj, r.ResourceClaimTemplate):
        tc = ClaimChecker(object_ref("ResourceClaimTemplate", obj.metadata), features, cel_checker)
        tc.metadata(obj.metadata, namespaced=True)
        spec = tc.claim_spec(obj.spec.spec, "spec.spec")
        if spec != obj.spec.spec:
            stored = struct_replace(obj, spec=struct_replace(obj.spec, spec=spec))
        return stored, tc.findings
    if isinstance(obj, r.DeviceTaintRule):
        return stored, validate_device_taint_rule(obj, features, cel_checker)
    if isinstance(obj, Pod):
        pc = PodChecker(object_ref("Pod", obj.metadata), features, cel_checker)
        pc.metadata(obj.metadata, namespaced=True)
        pod_spec = pc.pod_spec(obj.spec, "spec")
        if pod_spec is not obj.spec:
            stored = struct_replace(obj, spec=pod_spec)
        return stored, pc.findings
    if isinstance(obj, Deployment | ReplicaSet | StatefulSet | Job):
        wc = PodChecker(object_ref(obj.KIND, obj.metadata), features, cel_checker)
        wc.metadata(obj.metadata, namespaced=True)
        template = obj.spec.template
        pod_spec = wc.pod_spec(template.spec, "spec.template.spec")
        if pod_spec is not template.spec:
            template = struct_replace(template, spec=pod_spec)
            stored = struct_replace(obj, spec=struct_replace(obj.spec, template=template))
        return stored, wc.findings
    if isinstance(obj, PodGroup):
        gcheck = PodGroupChecker(object_ref("PodGroup", obj.metadata), features, cel_checker)
        stored = gcheck.pod_group(obj)
        return stored, gcheck.findings
    return stored, []


def validate_objects(
    objs: Iterable[object],
    *,
    features: ValidationFeatures | None = None,
    cel_checker: CelChecker | None = None,
) -> list[Finding]:
    """validate_object for each object, then the checks that need several objects together:

    * `consumesCounters` must name a counter set (and counters) declared by a ResourceSlice of the same
      pool (same driver and pool name, newest generation); duplicate device or counter set names across
      the slices of one pool (the allocator treats such a pool as invalid); pools whose slice count does
      not match `resourceSliceCount` (the allocator treats the pool as incomplete): all warnings
      (`check_pools`: the API server validates each slice alone);
    * `adminAccess: true` in a claim or template needs the `resource.kubernetes.io/admin-access: "true"`
      label on its Namespace, when that Namespace is among the objects.
    """
    features = features or ValidationFeatures()
    objs = list(objs)
    findings: list[Finding] = []
    for obj in objs:
        findings.extend(validate_object(obj, features=features, cel_checker=cel_checker))
    slices = [o for o in objs if isinstance(o, r.ResourceSlice)]
    findings.extend(check_pools(slices, features))
    namespaces = {o.metadata.name: o for o in objs if isinstance(o, Namespace)}
    if features.admin_access and namespaces:
        for o in objs:
            if isinstance(o, r.ResourceClaim | r.ResourceClaimTemplate):
                findings.extend(check_admin_access(o, namespaces))
    return findings
