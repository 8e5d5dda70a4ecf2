"""DRA feature gates by Kubernetes release (spec §8), as lint needs them: stage, default, first release."""

from __future__ import annotations

import re

from drasim.api.validate import ValidationFeatures
from drasim.api.versions import FEATURES_BY_VERSION
from drasim.errors import DrasimError

__all__ = [
    "LINT_VERSIONS",
    "gate_available",
    "gate_history",
    "gate_on",
    "gate_stage",
    "lint_features",
    "normalize_lint_version",
]

# Releases lint knows. Before 1.34 there is no resource.k8s.io/v1; objects are linted as if converted.
LINT_VERSIONS: tuple[str, ...] = ("1.32", "1.33", "1.34", "1.35", "1.36", "1.37")

# Stage of each gate in LINT_VERSIONS order: "" = not in that release, "A" = alpha (off by default),
# "B-" = beta off by default, "B+" = beta on by default, "GA" = on.
_GATES: dict[str, tuple[str, ...]] = {
    "DRAPrioritizedList": ("", "A", "B+", "B+", "GA", "GA"),
    "DRAAdminAccess": ("A", "A", "B+", "B+", "GA", "GA"),
    "DRAResourceClaimDeviceStatus": ("A", "B+", "B+", "B+", "B+", "GA"),
    "DRAPartitionableDevices": ("", "A", "A", "A", "B+", "B+"),
    "DRADeviceTaints": ("", "A", "A", "A", "B+", "GA"),
    # 1.33/1.34 served DeviceTaintRule under the DRADeviceTaints alpha gate; its own gate came in 1.35.
    "DRADeviceTaintRules": ("", "A", "A", "A", "B-", "GA"),
    "DRAExtendedResource": ("", "", "A", "A", "B+", "GA"),
    "DRAConsumableCapacity": ("", "", "A", "A", "B+", "B+"),
    "DRADeviceBindingConditions": ("", "", "A", "A", "B+", "B+"),
    "DRAListTypeAttributes": ("", "", "", "", "A", "A"),
    "DRANodeAllocatableResources": ("", "", "", "", "A", "A"),
    "DRAPartitionableDevicesType": ("", "", "", "", "", "A"),
    "DRAOptionalNodeOperations": ("", "", "", "", "", "A"),
    "DRAFractionalCapacityRange": ("", "", "", "", "", "B+"),
}

_STAGE_WORDS = {"A": "alpha", "B-": "beta (off by default)", "B+": "beta", "GA": "GA"}


def gate_stage(gate: str, version: str) -> str:
    """The gate's stage in that release (see `_GATES`); "" when the release does not have it."""
    return _GATES[gate][LINT_VERSIONS.index(version)]


def gate_on(gate: str, version: str) -> bool:
    """Whether the gate is on by default in that release."""
    return gate_stage(gate, version) in ("B+", "GA")


def gate_available(gate: str, version: str) -> bool:
    """Whether the release has the gate at all (possibly off by default)."""
    return gate_stage(gate, version) != ""


def gate_history(gate: str) -> str:
    """`alpha in 1.33, on by default from 1.34` — where the gate came from, for messages."""
    stages = _GATES[gate]
    parts = []
    first = next((v for v, s in zip(LINT_VERSIONS, stages, strict=True) if s), None)
    on = next((v for v, s in zip(LINT_VERSIONS, stages, strict=True) if s in ("B+", "GA")), None)
    if first is not None and first != on:
        parts.append(f"{_STAGE_WORDS[stages[LINT_VERSIONS.index(first)]]} from {first}")
    parts.append(f"on by default from {on}" if on else "not on by default in any release up to "
                 f"{LINT_VERSIONS[-1]}")
    return ", ".join(parts)


# ValidationFeatures flag -> the gate deciding it (binding conditions also need device status).
_FLAG_GATES: dict[str, tuple[str, ...]] = {
    "prioritized_list": ("DRAPrioritizedList",),
    "partitionable_devices": ("DRAPartitionableDevices",),
    "device_taints": ("DRADeviceTaints",),
    "consumable_capacity": ("DRAConsumableCapacity",),
    "admin_access": ("DRAAdminAccess",),
    "device_binding_and_status": ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
    "list_type_attributes": ("DRAListTypeAttributes",),
    "extended_resource": ("DRAExtendedResource",),
    "device_taint_rules": ("DRADeviceTaintRules",),
    "fractional_capacity_range": ("DRAFractionalCapacityRange",),
    "node_allocatable_resources": ("DRANodeAllocatableResources",),
    "partitionable_devices_type": ("DRAPartitionableDevicesType",),
    "optional_node_operations": ("DRAOptionalNodeOperations",),
}


def lint_features(version: str) -> ValidationFeatures:
    """The API server's default gates for `version`: drasim's own profile where it has one (1.34+),
    else derived from the table above."""
    if version in FEATURES_BY_VERSION:
        return FEATURES_BY_VERSION[version]
    flags = {
        flag: bool(gates) and all(gate_on(g, version) for g in gates) for flag, gates in _FLAG_GATES.items()
    }
    return ValidationFeatures(**flags)


def normalize_lint_version(version: str) -> str:
    """`v1.36.2`, `1.36.0-rc.1` or `1.36` -> `1.36`; DrasimError for releases lint does not know."""
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?", version.strip())
    minor = f"{m.group(1)}.{m.group(2)}" if m else ""
    if minor not in LINT_VERSIONS:
        raise DrasimError(f"unsupported Kubernetes version {version!r}; lint knows {', '.join(LINT_VERSIONS)}")
    return minor
