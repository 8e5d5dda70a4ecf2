"""Allocator feature sets derived from the release profile (api.profile): kube-scheduler's gates -> Features."""

from __future__ import annotations

from drasim.allocator.features import Features
from drasim.api.profile import ReleaseProfile, profile_for
from drasim.errors import DrasimError

__all__ = ["allocator_features", "features_for_version"]

# Features flag -> the gates deciding it (binding conditions only work with device status).
_FLAG_GATES: dict[str, tuple[str, ...]] = {
    "admin_access": ("DRAAdminAccess",),
    "prioritized_list": ("DRAPrioritizedList",),
    "partitionable_devices": ("DRAPartitionableDevices",),
    "device_taints": ("DRADeviceTaints",),
    "consumable_capacity": ("DRAConsumableCapacity",),
    "device_binding_and_status": ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
    "list_type_attributes": ("DRAListTypeAttributes",),
}


def allocator_features(profile: ReleaseProfile) -> Features:
    """The allocator features kube-scheduler runs with under `profile` (and that release's code)."""
    flags = {flag: all(profile.gate(g) for g in gates) for flag, gates in _FLAG_GATES.items()}
    return Features(**flags, release=profile.version)


def features_for_version(version: str) -> Features:
    """The allocator features kube-scheduler enables by default in that release."""
    try:
        return allocator_features(profile_for(version))
    except DrasimError as err:
        raise ValueError(str(err)) from None
