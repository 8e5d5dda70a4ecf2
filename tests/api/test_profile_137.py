"""The 1.37 column of the gate table against the newest 1.37 sources read (kube-scheduler's versioned table)."""

from __future__ import annotations

import pytest

from drasim.api.profile import GATES, profile_for
from drasim.errors import DrasimError

# staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go (kubernetes commit ead35706): the spec a
# 1.37 binary picks with the default --min-compatibility-version (1.36), as (stage, on by default, locked).
UPSTREAM_137 = {
    "DynamicResourceAllocation": ("GA", True, True),
    "DRAAdminAccess": ("GA", True, True),
    "DRAConsumableCapacity": ("Beta", True, False),
    "DRADerivedAttributes": ("Alpha", False, False),
    "DRADeviceBindingConditions": ("Beta", True, False),
    "DRADeviceCompatibilityGroups": ("Alpha", False, False),
    "DRADeviceTaintRules": ("GA", True, False),
    "DRADeviceTaints": ("GA", True, False),
    "DRAExtendedResource": ("GA", True, True),
    # {1.37 Beta false} and {1.37 Beta true, MinCompatibilityVersion 1.37}: the second needs min-compat 1.37.
    "DRAFractionalCapacityRange": ("Beta", False, False),
    "DRAListTypeAttributes": ("Alpha", False, False),
    "DRANodeAllocatableResources": ("Alpha", False, False),
    "DRAOptionalNodeOperations": ("Alpha", False, False),
    "DRAPartitionableDevices": ("Beta", True, False),
    "DRAPrioritizedList": ("GA", True, True),
    "DRAResourceClaimDeviceStatus": ("GA", True, True),
    "DRASchedulerFilterTimeout": ("Beta", True, False),
    "DRAWorkloadResourceClaims": ("Beta", False, False),
}
_STAGES = {"A": ("Alpha", False, False), "B-": ("Beta", False, False), "B+": ("Beta", True, False),
           "GA": ("GA", True, False), "GA*": ("GA", True, True)}


@pytest.mark.parametrize("name", sorted(UPSTREAM_137))
def test_137_gate_as_released(name: str) -> None:
    assert _STAGES[GATES[name].stage("1.37")] == UPSTREAM_137[name]


def test_fractional_capacity_range_is_off_by_default_in_137() -> None:
    assert not profile_for("1.37").validation_features().fractional_capacity_range
    assert profile_for("1.37", "DRAFractionalCapacityRange=true").validation_features().fractional_capacity_range
    with pytest.raises(DrasimError, match="unrecognized feature gate: DRAFractionalCapacityRange"):
        profile_for("1.36", "DRAFractionalCapacityRange=true")
