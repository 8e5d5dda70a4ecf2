"""The DRA feature gates the simulated API server has on, as validation reads them."""

from __future__ import annotations

from dataclasses import dataclass

from drasim.releases import NODE_ALLOCATABLE_MAPPINGS


@dataclass(frozen=True, slots=True)
class ValidationFeatures:
    """Which DRA feature gates the simulated API server has on. Defaults: Kubernetes 1.36's gate defaults."""

    prioritized_list: bool = True  # DRAPrioritizedList
    partitionable_devices: bool = True  # DRAPartitionableDevices
    device_taints: bool = True  # DRADeviceTaints
    consumable_capacity: bool = True  # DRAConsumableCapacity
    admin_access: bool = True  # DRAAdminAccess
    device_binding_and_status: bool = True  # DRADeviceBindingConditions (+ DRAResourceClaimDeviceStatus)
    list_type_attributes: bool = False  # DRAListTypeAttributes
    extended_resource: bool = True  # DRAExtendedResource
    # Gates beyond the allocator's feature set that decide what the API server accepts:
    device_taint_rules: bool = False  # DRADeviceTaintRules (beta, off by default in 1.36; on in 1.37)
    fractional_capacity_range: bool = False  # DRAFractionalCapacityRange (1.37 beta, off by default)
    node_allocatable_resources: bool = False  # DRANodeAllocatableResources (alpha)
    partitionable_devices_type: bool = False  # DRAPartitionableDevicesType (alpha, 1.37)
    optional_node_operations: bool = False  # DRAOptionalNodeOperations (alpha, 1.37)
    # The Device field the release serves for node-allocatable resources (releases.node_allocatable_field).
    node_allocatable_field: str | None = NODE_ALLOCATABLE_MAPPINGS
    generic_workload: bool = False  # GenericWorkload: pod.spec.schedulingGroup (alpha 1.36, beta off 1.37)
    workload_resource_claims: bool = False  # DRAWorkloadResourceClaims (+ GenericWorkload): PodGroup claims


GATE_NAMES: dict[str, str] = {
    "prioritized_list": "DRAPrioritizedList",
    "partitionable_devices": "DRAPartitionableDevices",
    "device_taints": "DRADeviceTaints",
    "consumable_capacity": "DRAConsumableCapacity",
    "admin_access": "DRAAdminAccess",
    "device_binding_and_status": "DRADeviceBindingConditions",
    "list_type_attributes": "DRAListTypeAttributes",
    "extended_resource": "DRAExtendedResource",
    "device_taint_rules": "DRADeviceTaintRules",
    "fractional_capacity_range": "DRAFractionalCapacityRange",
    "node_allocatable_resources": "DRANodeAllocatableResources",
    "partitionable_devices_type": "DRAPartitionableDevicesType",
    "optional_node_operations": "DRAOptionalNodeOperations",
    "generic_workload": "GenericWorkload",
    "workload_resource_claims": "DRAWorkloadResourceClaims",
}
