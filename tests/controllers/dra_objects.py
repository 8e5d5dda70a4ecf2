"""Small builders of pods, claims, slices and rules for the controller tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from drasim.api.core import Pod, PodResourceClaim, PodResourceClaimStatus, PodSpec, PodStatus
from drasim.api.meta import ObjectMeta, OwnerReference
from drasim.api.resource import (
    AllocationResult,
    Device,
    DeviceAllocationResult,
    DeviceRequestAllocationResult,
    DeviceTaint,
    DeviceTaintRule,
    DeviceTaintRuleSpec,
    DeviceTaintSelector,
    DeviceToleration,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimStatus,
    ResourcePool,
    ResourceSlice,
    ResourceSliceSpec,
)
from drasim.controllers.resourceclaim import FINALIZER, POD_CLAIM_NAME_ANNOTATION

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DRIVER = "gpu.example.com"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def pod(name: str, ns: str = "default", *, uid: str | None = None, node: str | None = "node-1",
        claims: dict[str, str] | None = None, templates: dict[str, str] | None = None,
        statuses: dict[str, str] | None = None, phase: str | None = None) -> Pod:
    """`claims`: pod claim -> ResourceClaim name; `templates`: pod claim -> template name."""
    entries = [PodResourceClaim(name=k, resource_claim_name=v) for k, v in (claims or {}).items()]
    entries += [PodResourceClaim(name=k, resource_claim_template_name=v) for k, v in (templates or {}).items()]
    status = None
    if statuses or phase:
        status = PodStatus(phase=phase, resource_claim_statuses=[
            PodResourceClaimStatus(name=k, resource_claim_name=v) for k, v in (statuses or {}).items()])
    return Pod(metadata=ObjectMeta(name=name, namespace=ns, uid=uid or f"uid-{ns}-{name}"),
               spec=PodSpec(node_name=node, resource_claims=entries), status=status)


def result(device: str, *, pool: str = "node-1", driver: str = DRIVER, request: str = "gpu",
           tolerations: Sequence[DeviceToleration] = ()) -> DeviceRequestAllocationResult:
    return DeviceRequestAllocationResult(request=request, driver=driver, pool=pool, device=device,
                                         tolerations=list(tolerations))


def claim(name: str, ns: str = "default", *, devices: Sequence[str | DeviceRequestAllocationResult] = ("gpu-0",),
          reserved: Sequence[Pod] = (), owner: Pod | None = None, pod_claim: str = "gpu",
          finalizer: bool = True, allocated: bool = True,
          tolerations: Sequence[DeviceToleration] = ()) -> ResourceClaim:
    meta = ObjectMeta(name=name, namespace=ns, finalizers=[FINALIZER] if finalizer and allocated else [])
    if owner is not None:
        meta.owner_references = [OwnerReference(api_version="v1", kind="Pod", name=owner.metadata.name,
                                                uid=owner.metadata.uid or "", controller=True,
                                                block_owner_deletion=True)]
        meta.annotations = {POD_CLAIM_NAME_ANNOTATION: pod_claim}
    status = None
    if allocated:
        results = [result(d, tolerations=tolerations) if isinstance(d, str) else d for d in devices]
        status = ResourceClaimStatus(
            allocation=AllocationResult(devices=DeviceAllocationResult(results=results)),
            reserved_for=[ResourceClaimConsumerReference(resource="pods", name=p.metadata.name,
                                                         uid=p.metadata.uid or "") for p in reserved])
    return ResourceClaim(metadata=meta, status=status)


def tol(key: str | None = "maintenance", *, effect: str | None = "NoExecute", seconds: int | None = None,
        operator: str = "Exists", value: str | None = None) -> DeviceToleration:
    return DeviceToleration(key=key, operator=operator, value=value, effect=effect, toleration_seconds=seconds)


def taint(key: str = "maintenance", effect: str = "NoExecute", added: datetime | None = T0,
          value: str | None = None) -> DeviceTaint:
    return DeviceTaint(key=key, value=value, effect=effect, time_added=added)


def slice_(name: str = "node-1-gpus", *, pool: str = "node-1", devices: Sequence[str] = ("gpu-0", "gpu-1"),
           taints: dict[str, list[DeviceTaint]] | None = None, generation: int = 0,
           driver: str = DRIVER) -> ResourceSlice:
    taints = taints or {}
    return ResourceSlice(metadata=ObjectMeta(name=name), spec=ResourceSliceSpec(
        driver=driver, node_name=pool, pool=ResourcePool(name=pool, generation=generation, resource_slice_count=1),
        devices=[Device(name=d, taints=list(taints.get(d, []))) for d in devices]))


def rule(name: str = "drain", *, effect: str = "NoExecute", driver: str | None = DRIVER, pool: str | None = None,
         device: str | None = None, selector: bool = True, added: datetime | None = T0, key: str = "maintenance",
         generation: int = 1) -> DeviceTaintRule:
    sel = DeviceTaintSelector(driver=driver, pool=pool, device=device) if selector else None
    return DeviceTaintRule(metadata=ObjectMeta(name=name, generation=generation),
                           spec=DeviceTaintRuleSpec(device_selector=sel,
                                                    taint=DeviceTaint(key=key, effect=effect, time_added=added)))
