"""core/v1, apps/v1 and batch/v1 objects, reduced to the fields DRA scheduling touches."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

import msgspec

from drasim.api.meta import Int32, Int64, Lenient, NodeSelector, NodeSelectorTerm, ObjectMeta
from drasim.api.quantity import Quantity

# Real clusters fill Nodes and Pods with fields drasim does not model: these structs are Lenient.


class Taint(Lenient):
    key: str = ""
    value: str | None = None
    effect: str = ""
    time_added: str | None = None


class Toleration(Lenient):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: Int64 | None = None


class NodeSpec(Lenient):
    unschedulable: bool | None = None
    taints: list[Taint] = []


class NodeStatus(Lenient):
    capacity: dict[str, Quantity] = {}
    allocatable: dict[str, Quantity] = {}


class Node(Lenient):
    KIND: ClassVar[str] = "Node"
    NAMESPACED: ClassVar[bool] = False
    api_version: str = "v1"
    kind: str = "Node"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeSpec = msgspec.field(default_factory=NodeSpec)
    status: NodeStatus = msgspec.field(default_factory=NodeStatus)


class Namespace(Lenient):
    KIND: ClassVar[str] = "Namespace"
    NAMESPACED: ClassVar[bool] = False
    api_version: str = "v1"
    kind: str = "Namespace"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)


class ResourceClaimRef(Lenient):
    """An entry of `containers[].resources.claims`."""

    name: str = ""
    request: str | None = None


class ResourceRequirements(Lenient):
    requests: dict[str, Quantity] = {}
    limits: dict[str, Quantity] = {}
    claims: list[ResourceClaimRef] = []


class Container(Lenient):
    name: str = ""
    image: str | None = None
    resources: ResourceRequirements = msgspec.field(default_factory=ResourceRequirements)
    restart_policy: str | None = None


class PodResourceClaim(Lenient):
    name: str = ""
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None
    # Removed in 1.31 (held the two names above); kept only so validation can say so. Never encoded.
    source: Any = msgspec.field(default=None)


class PreferredSchedulingTerm(Lenient):
    weight: Int32 = 0
    preference: NodeSelectorTerm = msgspec.field(default_factory=NodeSelectorTerm)


class NodeAffinity(Lenient):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None
    preferred_during_scheduling_ignored_during_execution: list[PreferredSchedulingTerm] = []


class Affinity(Lenient):
    node_affinity: NodeAffinity | None = None
    pod_affinity: Any = None
    pod_anti_affinity: Any = None


class LabelSelectorRequirement(Lenient):
    key: str = ""
    operator: str = ""
    values: list[str] = []


class LabelSelector(Lenient):
    """metav1.LabelSelector, typed so that a malformed one is refused at decode as the API server refuses it."""

    match_labels: dict[str, str] = {}
    match_expressions: list[LabelSelectorRequirement] = []


class TopologySpreadConstraint(Lenient):
    max_skew: Int32 = 1
    topology_key: str = ""
    when_unsatisfiable: str = "DoNotSchedule"
    label_selector: LabelSelector | None = None


class PodSchedulingGroup(Lenient):
    """`spec.schedulingGroup` (GenericWorkload): the PodGroup the pod belongs to."""

    pod_group_name: str | None = None


class PodSpec(Lenient):
    node_name: str | None = None
    node_selector: dict[str, str] = {}
    affinity: Affinity | None = None
    tolerations: list[Toleration] = []
    priority: Int32 | None = None
    priority_class_name: str | None = None
    scheduler_name: str | None = None
    resource_claims: list[PodResourceClaim] = []
    containers: list[Container] = []
    init_containers: list[Container] = []
    overhead: dict[str, Quantity] = {}
    topology_spread_constraints: list[TopologySpreadConstraint] = []
    scheduling_group: PodSchedulingGroup | None = None


class PodResourceClaimStatus(Lenient):
    name: str = ""
    resource_claim_name: str | None = None


class ContainerExtendedResourceRequest(Lenient):
    container_name: str = ""
    resource_name: str = ""
    request_name: str = ""


class PodExtendedResourceClaimStatus(Lenient):
    resource_claim_name: str = ""
    request_mappings: list[ContainerExtendedResourceRequest] = []


class NodeAllocatableMappedResources(Lenient):
    name: str = ""
    quantity: Quantity | None = None


class NodeAllocatableOverheadResources(Lenient):
    name: str = ""
    per_pod: Quantity | None = None
    per_container: Quantity | None = None


class NodeAllocatableResourceClaimStatus(Lenient):
    """`status.nodeAllocatableResourceClaimStatuses[]` (DRANodeAllocatableResources): 1.36 writes `resources`,
    1.37 `mapping` and `overhead` (kubernetes/api core/v1/types.go, v0.36.0 and master 66d2a54e)."""

    resource_claim_name: str = ""
    containers: list[str] = []
    resources: dict[str, Quantity] | None = None
    mapping: list[NodeAllocatableMappedResources] | None = None
    overhead: list[NodeAllocatableOverheadResources] | None = None


class PodCondition(Lenient):
    """Pod conditions carry fields (lastProbeTime, ...) that DRA conditions do not: lenient."""

    type: str = ""
    status: str = ""
    last_transition_time: datetime | None = None
    reason: str | None = None
    message: str | None = None


class PodStatus(Lenient):
    phase: str | None = None
    conditions: list[PodCondition] = []
    nominated_node_name: str | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] = []
    extended_resource_claim_status: PodExtendedResourceClaimStatus | None = None
    node_allocatable_resource_claim_statuses: list[NodeAllocatableResourceClaimStatus] = []


class Pod(Lenient):
    KIND: ClassVar[str] = "Pod"
    NAMESPACED: ClassVar[bool] = True
    api_version: str = "v1"
    kind: str = "Pod"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)
    status: PodStatus | None = None


class PodTemplateSpec(Lenient):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec = msgspec.field(default_factory=PodSpec)


class WorkloadSpec(Lenient):
    """The spec fields shared by Deployment, ReplicaSet, StatefulSet and Job that drasim reads."""

    replicas: Int32 | None = None
    parallelism: Int32 | None = None
    completions: Int32 | None = None
    selector: LabelSelector | None = None
    service_name: str | None = None
    template: PodTemplateSpec = msgspec.field(default_factory=PodTemplateSpec)


class _Workload(Lenient):
    """Shared shape of the workload kinds: their pods come from `spec.template`."""

    NAMESPACED: ClassVar[bool] = True
    api_version: str = "apps/v1"
    kind: str = ""
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec = msgspec.field(default_factory=WorkloadSpec)


class Deployment(_Workload):
    KIND: ClassVar[str] = "Deployment"
    kind: str = "Deployment"


class ReplicaSet(_Workload):
    KIND: ClassVar[str] = "ReplicaSet"
    kind: str = "ReplicaSet"


class StatefulSet(_Workload):
    KIND: ClassVar[str] = "StatefulSet"
    kind: str = "StatefulSet"


class Job(_Workload):
    KIND: ClassVar[str] = "Job"
    api_version: str = "batch/v1"
    kind: str = "Job"
