"""The API server's defaulting of ResourceClaims, ResourceClaimTemplates (`applyDefaults: true`) and Pods."""

from __future__ import annotations

import copy

import msgspec

from drasim.api.core import Pod
from drasim.api.resource import (
    DeviceSubRequest,
    DeviceToleration,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
)


def _tolerations(tols: list[DeviceToleration]) -> list[DeviceToleration]:
    return [t if t.operator else msgspec.structs.replace(t, operator="Equal") for t in tols]


def default_claim_spec(spec: ResourceClaimSpec) -> None:
    """In place: ExactCount for empty allocation modes, count 1 for ExactCount without a count,
    toleration operator Equal."""
    for request in spec.devices.requests:
        targets: list[ExactDeviceRequest | DeviceSubRequest] = []
        if request.exactly is not None:
            targets.append(request.exactly)
        targets += request.first_available or []
        for target in targets:
            if not target.allocation_mode:
                target.allocation_mode = "ExactCount"
            if target.allocation_mode == "ExactCount" and not target.count:
                target.count = 1
            target.tolerations = _tolerations(target.tolerations)


def default_claim(claim: ResourceClaim) -> None:
    """In place: the spec as `default_claim_spec`, and the tolerations copied into the results of an
    existing allocation."""
    default_claim_spec(claim.spec)
    if claim.status is not None and claim.status.allocation is not None:
        for result in claim.status.allocation.devices.results:
            result.tolerations = _tolerations(result.tolerations)


def apply_claim_defaults(claim: ResourceClaim) -> ResourceClaim:
    """A defaulted copy of the claim (see `default_claim`)."""
    claim = copy.deepcopy(claim)
    default_claim(claim)
    return claim



def default_pod(pod: Pod) -> None:
    """In place: a container's limits fill in the requests it does not set (core/v1 SetDefaults_Pod; pods
    only, not pod templates), so `nvidia.com/gpu: 1` under `limits` alone is a request for one."""
    for container in (*pod.spec.init_containers, *pod.spec.containers):
        res = container.resources
        missing = {k: v for k, v in res.limits.items() if k not in res.requests}
        if missing:
            res.requests = {**res.requests, **missing}
