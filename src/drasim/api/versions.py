"""Kubernetes releases drasim simulates and the DRA feature gates each one has on by default."""

from __future__ import annotations

import re

from drasim.api.validate import ValidationFeatures
from drasim.errors import DrasimError

__all__ = ["FEATURES_BY_VERSION", "SUPPORTED_VERSIONS", "normalize_version", "validation_features"]

# Default gate settings per release (spec §8). 1.34/1.35: DRAPrioritizedList and DRAAdminAccess are beta
# and on; partitionable devices, taints, consumable capacity, binding conditions and extended resources
# are alpha (off). 1.36 turns those on (beta); DRADeviceTaintRules is beta but off there. 1.37 keeps
# 1.36's set, turns DRADeviceTaintRules on (GA) and adds DRAFractionalCapacityRange (beta, on).
_ALPHA_OFF = ValidationFeatures(
    prioritized_list=True,
    admin_access=True,
    partitionable_devices=False,
    device_taints=False,
    consumable_capacity=False,
    device_binding_and_status=False,
    extended_resource=False,
    list_type_attributes=False,
    device_taint_rules=False,
)
_V136 = ValidationFeatures()

FEATURES_BY_VERSION: dict[str, ValidationFeatures] = {
    "1.34": _ALPHA_OFF,
    "1.35": _ALPHA_OFF,
    "1.36": _V136,
    "1.37": ValidationFeatures(device_taint_rules=True, fractional_capacity_range=True),
}

SUPPORTED_VERSIONS: tuple[str, ...] = tuple(FEATURES_BY_VERSION)

_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?")


def normalize_version(version: str) -> str:
    """`v1.36.2`, `1.36.0-beta.0` or `1.36` -> `1.36`; raises DrasimError for anything unsupported."""
    m = _VERSION_RE.fullmatch(version.strip())
    minor = f"{m.group(1)}.{m.group(2)}" if m else ""
    if minor not in FEATURES_BY_VERSION:
        raise DrasimError(
            f"unsupported Kubernetes version {version!r}; supported: {', '.join(SUPPORTED_VERSIONS)}"
        )
    return minor


def validation_features(version: str) -> ValidationFeatures:
    """The feature gates the API server of that release has on by default."""
    return FEATURES_BY_VERSION[normalize_version(version)]
