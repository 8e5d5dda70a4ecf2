"""resource.k8s.io/v1: ResourceSlice, DeviceClass, ResourceClaim(Template), DeviceTaintRule."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

import msgspec

from drasim.api.meta import Condition, Int64, NodeSelector, ObjectMeta, RawJSON, Strict
from drasim.api.quantity import Quantity

GROUP = "resource.k8s.io"
API_VERSION = "resource.k8s.io/v1"


# --- ResourceSlice -------------------------------------------------------------------------------

class ResourcePool(Strict):
    name: str = ""
    generation: Int64 = 0
    resource_slice_count: Int64 = 0


class DeviceAttribute(Strict):
    """Exactly one value is set (API validation); the allocator sees whatever was written."""

    int_: Int64 | None = msgspec.field(default=None, name="int")
    bool_: bool | None = msgspec.field(default=None, name="bool")
    string: str | None = None
    version: str | None = None
    ints: list[Int64] | None = None
    bools: list[bool] | None = None
    strings: list[str] | None = None
    versions: list[str] | None = None

    def value(self) -> int | bool | str | list[int] | list[bool] | list[str] | None:
        """The one value set (a version as its string), or None when nothing is set."""
        for v in (self.int_, self.bool_, self.string, self.version,
                  self.ints, self.bools, self.strings, self.versions):
            if v is not None:
                return v
        return None

    def kind(self) -> str | None:
        """Which field is set: `int`, `bool`, `string`, `version`, `ints`, ... (first set), or None."""
        for name, v in (("int", self.int_), ("bool", self.bool_), ("string", self.string),
                        ("version", self.version), ("ints", self.ints), ("bools", self.bools),
                        ("strings", self.strings), ("versions", self.versions)):
            if v is not None:
                return name
        return None


class CapacityRequestPolicyRange(Strict):
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None


class CapacityRequestPolicy(Strict):
    default: Quantity | None = None
    valid_values: list[Quantity] | None = None
    valid_range: CapacityRequestPolicyRange | None = None


class DeviceCapacity(Strict):
    value: Quantity
    request_policy: CapacityRequestPolicy | None = None


class Counter(Strict):
    value: Quantity


class CounterSet(Strict):
    name: str = ""
    counters: dict[str, Counter] = {}


class DeviceCounterConsumption(Strict):
    counter_set: str = ""
    counters: dict[str, Counter] = {}


class DeviceTaint(Strict):
    key: str = ""
    value: str | None = None
    effect: str = ""
    time_added: datetime | None = None

    def __str__(self) -> str:
        kv = f"{self.key}={self.value}" if self.value else self.key
        return f"{kv}:{self.effect}" if self.effect else kv


# Node-allocatable resources (KEP-5517, DRANodeAllocatableResources): scheduler accounting only, never part
# of the allocation search. Each release serves one shape (kubernetes/api resource/v1/types.go): 1.36
# (v0.36.0 .. v0.37.0-beta.0) `nodeAllocatableResourceMappings` {capacityKey, allocationMultiplier}; 1.37
# (master 66d2a54e, "feat(api): Update API fields", 2026-07-09) tombstoned it for `nodeAllocatableResources`
# {mapping {capacityKey, capacityMultiplier, deviceMultiplier}, overhead {perPod, perContainer}}.

class NodeAllocatableResourceMapping(Strict):
    """1.36: `consumedCapacity[capacityKey]` (or the device count) times `allocationMultiplier` (default 1)."""

    capacity_key: str | None = None
    allocation_multiplier: Quantity | None = None


class NodeAllocatableMapping(Strict):
    """1.37: the device is the resource: consumed capacity x capacityMultiplier, or devices x deviceMultiplier."""

    capacity_key: str | None = None
    capacity_multiplier: Quantity | None = None
    device_multiplier: Quantity | None = None


class NodeAllocatableOverhead(Strict):
    """1.37: what using the device costs the node per pod and per container referencing the claim."""

    per_pod: Quantity | None = None
    per_container: Quantity | None = None


class NodeAllocatableResource(Strict):
    mapping: NodeAllocatableMapping | None = None
    overhead: NodeAllocatableOverhead | None = None


class Device(Strict):
    name: str = ""
    attributes: dict[str, DeviceAttribute] = {}
    capacity: dict[str, DeviceCapacity] = {}
    consumes_counters: list[DeviceCounterConsumption] = []
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[DeviceTaint] = []
    binds_to_node: bool | None = None
    binding_conditions: list[str] = []
    binding_failure_conditions: list[str] = []
    allow_multiple_allocations: bool | None = None
    # 1.36 alpha (DRANodeAllocatableResources) and its 1.37 replacement: scheduler accounting only.
    node_allocatable_resource_mappings: dict[str, NodeAllocatableResourceMapping] | None = None
    node_allocatable_resources: dict[str, NodeAllocatableResource] | None = None


class ResourceSliceSpec(Strict):
    driver: str = ""
    pool: ResourcePool = msgspec.field(default_factory=ResourcePool)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    per_device_node_selection: bool | None = None
    devices: list[Device] = []
    shared_counters: list[CounterSet] = []
    partition_type_attribute: str | None = None
    skip_node_operations: list[str] | None = None


class ResourceSlice(Strict):
    KIND: ClassVar[str] = "ResourceSlice"
    NAMESPACED: ClassVar[bool] = False
    api_version: str = API_VERSION
    kind: str = "ResourceSlice"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceSliceSpec = msgspec.field(default_factory=ResourceSliceSpec)


# --- DeviceClass ---------------------------------------------------------------------------------

class CELDeviceSelector(Strict):
    expression: str = ""


class DeviceSelector(Strict):
    cel: CELDeviceSelector | None = None


class OpaqueDeviceConfiguration(Strict):
    driver: str = ""
    parameters: RawJSON = None


class DeviceClassConfiguration(Strict):
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClassSpec(Strict):
    selectors: list[DeviceSelector] = []
    config: list[DeviceClassConfiguration] = []
    extended_resource_name: str | None = None


class DeviceClass(Strict):
    KIND: ClassVar[str] = "DeviceClass"
    NAMESPACED: ClassVar[bool] = False
    api_version: str = API_VERSION
    kind: str = "DeviceClass"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: DeviceClassSpec = msgspec.field(default_factory=DeviceClassSpec)


# --- ResourceClaim -------------------------------------------------------------------------------

class DeviceToleration(Strict):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: Int64 | None = None


class CapacityRequirements(Strict):
    requests: dict[str, Quantity] = {}


class DeviceSubRequest(Strict):
    name: str = ""
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str | None = None
    count: Int64 | None = None
    tolerations: list[DeviceToleration] = []
    capacity: CapacityRequirements | None = None


class ExactDeviceRequest(Strict):
    device_class_name: str = ""
    selectors: list[DeviceSelector] = []
    allocation_mode: str | None = None
    count: Int64 | None = None
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = []
    capacity: CapacityRequirements | None = None


class DeviceRequest(Strict):
    name: str = ""
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] | None = None


class DeviceConstraint(Strict):
    requests: list[str] = []
    match_attribute: str | None = None
    distinct_attribute: str | None = None


class DeviceClaimConfiguration(Strict):
    requests: list[str] = []
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceClaim(Strict):
    requests: list[DeviceRequest] = []
    constraints: list[DeviceConstraint] = []
    config: list[DeviceClaimConfiguration] = []


class ResourceClaimSpec(Strict):
    devices: DeviceClaim = msgspec.field(default_factory=DeviceClaim)


class DeviceRequestAllocationResult(Strict):
    request: str = ""
    driver: str = ""
    pool: str = ""
    device: str = ""
    admin_access: bool | None = None
    tolerations: list[DeviceToleration] = []
    binding_conditions: list[str] = []
    binding_failure_conditions: list[str] = []
    share_id: str | None = msgspec.field(default=None, name="shareID")
    consumed_capacity: dict[str, Quantity] | None = None
    skip_node_operations: list[str] | None = None


class DeviceAllocationConfiguration(Strict):
    source: str = ""
    requests: list[str] = []
    opaque: OpaqueDeviceConfiguration | None = None


class DeviceAllocationResult(Strict):
    results: list[DeviceRequestAllocationResult] = []
    config: list[DeviceAllocationConfiguration] = []


class AllocationResult(Strict):
    devices: DeviceAllocationResult = msgspec.field(default_factory=DeviceAllocationResult)
    node_selector: NodeSelector | None = None
    allocation_timestamp: datetime | None = None


class ResourceClaimConsumerReference(Strict):
    api_group: str | None = None
    resource: str = ""
    name: str = ""
    uid: str = ""


class NetworkDeviceData(Strict):
    interface_name: str | None = None
    ips: list[str] = []
    hardware_address: str | None = None


class AllocatedDeviceStatus(Strict):
    driver: str = ""
    pool: str = ""
    device: str = ""
    share_id: str | None = msgspec.field(default=None, name="shareID")
    conditions: list[Condition] = []
    data: RawJSON = None
    network_data: NetworkDeviceData | None = None


class ResourceClaimStatus(Strict):
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = []
    devices: list[AllocatedDeviceStatus] = []


class ResourceClaim(Strict):
    KIND: ClassVar[str] = "ResourceClaim"
    NAMESPACED: ClassVar[bool] = True
    api_version: str = API_VERSION
    kind: str = "ResourceClaim"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)
    status: ResourceClaimStatus | None = None


class ResourceClaimTemplateSpec(Strict):
    metadata: ObjectMeta | None = None
    spec: ResourceClaimSpec = msgspec.field(default_factory=ResourceClaimSpec)


class ResourceClaimTemplate(Strict):
    KIND: ClassVar[str] = "ResourceClaimTemplate"
    NAMESPACED: ClassVar[bool] = True
    api_version: str = API_VERSION
    kind: str = "ResourceClaimTemplate"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ResourceClaimTemplateSpec = msgspec.field(default_factory=ResourceClaimTemplateSpec)


# --- DeviceTaintRule -----------------------------------------------------------------------------

class DeviceTaintSelector(Strict):
    driver: str | None = None
    pool: str | None = None
    device: str | None = None


class DeviceTaintRuleSpec(Strict):
    device_selector: DeviceTaintSelector | None = None
    taint: DeviceTaint = msgspec.field(default_factory=DeviceTaint)


class DeviceTaintRuleStatus(Strict):
    conditions: list[Condition] = []


class DeviceTaintRule(Strict):
    KIND: ClassVar[str] = "DeviceTaintRule"
    NAMESPACED: ClassVar[bool] = False
    api_version: str = API_VERSION
    kind: str = "DeviceTaintRule"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: DeviceTaintRuleSpec = msgspec.field(default_factory=DeviceTaintRuleSpec)
    status: DeviceTaintRuleStatus | None = None
