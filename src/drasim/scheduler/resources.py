"""Pod request vectors (sidecar-aware, scheduler-core §4) and per-node accounting over bound pods."""

from __future__ import annotations

from collections.abc import Iterable

from drasim.api.core import Container, Node, NodeAllocatableResourceClaimStatus, Pod
from drasim.api.quantity import Quantity

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL = "ephemeral-storage"
PODS = "pods"
# Upstream DefaultMilliCPURequest / DefaultMemoryRequest (used for scoring only, §4.3).
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024
DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
_TERMINAL = ("Succeeded", "Failed")

Vector = dict[str, int]


def is_prefixed_native(name: str) -> bool:
    """`kubernetes.io/`-qualified names (upstream IsPrefixedNativeResource)."""
    return "kubernetes.io/" in name


def is_extended(name: str) -> bool:
    """Domain-qualified, non-native names such as `nvidia.com/gpu` (upstream IsExtendedResourceName)."""
    return "/" in name and not is_prefixed_native(name) and not name.startswith("requests.")


def is_scalar(name: str) -> bool:
    """Resources the scheduler tracks besides cpu, memory, ephemeral-storage and pods."""
    return (is_extended(name) or name.startswith("hugepages-") or is_prefixed_native(name)
            or name.startswith("attachable-volumes-"))


def is_dra_extended(name: str) -> bool:
    """Names a DeviceClass may serve (explicit extended names and the implicit class prefix)."""
    return is_extended(name) or name.startswith(DEVICE_CLASS_PREFIX)


def _tracked(name: str) -> bool:
    return name in (CPU, MEMORY, EPHEMERAL) or is_scalar(name)


def _amount(name: str, q: Quantity) -> int:
    # Integers throughout, as upstream's int64 NodeInfo: cpu in millicores, the rest in units.
    return q.milli_value() if name == CPU else q.value()


def _add(into: Vector, other: Vector) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: Vector, other: Vector) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def _aggregate(containers: list[Container], init: list[Container], per: list[Vector], per_init: list[Vector],
               overhead: Vector) -> Vector:
    """§4.1: regular containers summed, restartable init containers (sidecars) running alongside."""
    total: Vector = {}
    for v in per:
        _add(total, v)
    sidecars: Vector = {}
    init_max: Vector = {}
    for c, v in zip(init, per_init, strict=True):
        if c.restart_policy == "Always":
            _add(total, v)
            _add(sidecars, v)
            candidate = dict(sidecars)
        else:
            candidate = dict(v)
            _add(candidate, sidecars)
        _max(init_max, candidate)
    _max(total, init_max)
    _add(total, overhead)
    return total


def _vector(c: Container) -> Vector:
    return {k: _amount(k, q) for k, q in c.resources.requests.items() if _tracked(k)}


def claim_status_requests(statuses: Iterable[NodeAllocatableResourceClaimStatus]) -> Vector:
    """What `status.nodeAllocatableResourceClaimStatuses` adds to the pod's requests (component-helpers
    resource/helpers.go addDRANodeAllocatableClaimResources, kubernetes 0085214e): per claim its mapped
    quantities, and per overhead perPod + perContainer x the containers referencing the claim; 1.36's
    `resources` once per claim."""
    total: Vector = {}
    for st in statuses:
        for name, q in (st.resources or {}).items():
            if _tracked(name):
                total[name] = total.get(name, 0) + _amount(name, q)
        for m in st.mapping or ():
            if m.quantity is not None and _tracked(m.name):
                total[m.name] = total.get(m.name, 0) + _amount(m.name, m.quantity)
        for o in st.overhead or ():
            if not _tracked(o.name):
                continue
            amount = _amount(o.name, o.per_pod) if o.per_pod is not None else 0
            if o.per_container is not None and st.containers:
                amount += _amount(o.name, o.per_container) * len(st.containers)
            total[o.name] = total.get(o.name, 0) + amount
    return total


def _with_claims(pod: Pod, v: Vector) -> Vector:
    # UseDRANodeAllocatableResourceClaimStatus: what the scheduler wrote at binding counts as requested.
    statuses = pod.status.node_allocatable_resource_claim_statuses if pod.status is not None else None
    if statuses:
        _add(v, claim_status_requests(statuses))
    return v


def pod_requests(pod: Pod) -> Vector:
    """Upstream PodRequests: cpu (milli), memory, ephemeral-storage and scalar resources; zeros kept; with
    what DRA claims took of the node (claim_status_requests).

    Pod-level `spec.resources` is not modelled (drasim's PodSpec does not carry it).
    """
    spec = pod.spec
    overhead = {k: _amount(k, q) for k, q in spec.overhead.items() if _tracked(k)}
    return _with_claims(pod, _aggregate(spec.containers, spec.init_containers, [_vector(c) for c in spec.containers],
                                        [_vector(c) for c in spec.init_containers], overhead))


def _nonzero_vector(c: Container) -> Vector:
    req = c.resources.requests
    cpu = req.get(CPU)
    mem = req.get(MEMORY)
    return {CPU: cpu.milli_value() if cpu is not None else DEFAULT_MILLI_CPU,
            MEMORY: mem.value() if mem is not None else DEFAULT_MEMORY}


def pod_nonzero(pod: Pod) -> tuple[int, int]:
    """§4.3: cpu and memory with 100m / 200Mi for every container that names no request for them."""
    spec = pod.spec
    overhead = {k: _amount(k, q) for k, q in spec.overhead.items() if k in (CPU, MEMORY)}
    v = _with_claims(pod, _aggregate(spec.containers, spec.init_containers,
                                     [_nonzero_vector(c) for c in spec.containers],
                                     [_nonzero_vector(c) for c in spec.init_containers], overhead))
    return v.get(CPU, 0), v.get(MEMORY, 0)


def node_allocatable(node: Node) -> Vector:
    """`status.allocatable` as integers (pods, cpu milli, memory, ephemeral-storage, scalars)."""
    out: Vector = {}
    for k, q in node.status.allocatable.items():
        if k == PODS or _tracked(k):
            out[k] = _amount(k, q)
    return out


def counts_on_node(pod: Pod) -> bool:
    """Terminal pods leave the scheduler's snapshot (their resources are free again)."""
    return bool(pod.spec.node_name) and not (pod.status is not None and pod.status.phase in _TERMINAL)


class NodeAccount:
    """What the bound pods of one node request: real requests, non-zero cpu/memory, pod count."""

    __slots__ = ("key", "npods", "nz_cpu", "nz_mem", "requested")

    def __init__(self) -> None:
        self.requested: Vector = {}
        self.nz_cpu = 0
        self.nz_mem = 0
        self.npods = 0
        self.key = 0  # interned (allocatable, accounting) identity, set by the tracker

    def add(self, req: Vector, nz: tuple[int, int], sign: int) -> None:
        for k, v in req.items():
            if v:
                left = self.requested.get(k, 0) + sign * v
                if left:
                    self.requested[k] = left
                else:
                    self.requested.pop(k, None)
        self.nz_cpu += sign * nz[0]
        self.nz_mem += sign * nz[1]
        self.npods += sign

    def state(self) -> tuple[object, ...]:
        return (self.npods, self.nz_cpu, self.nz_mem, tuple(sorted(self.requested.items())))


def accounts(nodes: Iterable[str], pods: Iterable[Pod]) -> dict[str, NodeAccount]:
    """Fresh accounting of every node from the pods bound to it (used for rebuilds and tests)."""
    out = {n: NodeAccount() for n in nodes}
    for pod in pods:
        if counts_on_node(pod):
            acct = out.get(pod.spec.node_name or "")
            if acct is not None:
                acct.add(pod_requests(pod), pod_nonzero(pod), +1)
    return out
