"""The API server's defaulting of ResourceClaims (what `applyDefaults: true` means)."""

from __future__ import annotations

import copy

import msgspec

from drasim.api.resource import DeviceSubRequest, DeviceToleration, ExactDeviceRequest, ResourceClaim


def _tolerations(tols: list[DeviceToleration]) -> list[DeviceToleration]:
    return [t if t.operator else msgspec.structs.replace(t, operator="Equal") for t in tols]


def apply_claim_defaults(claim: ResourceClaim) -> ResourceClaim:
    """A defaulted copy: ExactCount for empty allocation modes, count 1 for ExactCount without a
    count, toleration operator Equal; also in the results of an existing allocation."""
    claim = copy.deepcopy(claim)
    for request in claim.spec.devices.requests:
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
    if claim.status is not None and claim.status.allocation is not None:
        for result in claim.status.allocation.devices.results:
            result.tolerations = _tolerations(result.tolerations)
    return claim
