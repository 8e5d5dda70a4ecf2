"""The DynamicResources plugin (dra-semantics §5): claims, extended resources, grouped Filter, PostFilter, PreBind."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from drasim import releases
from drasim.allocator import AllocatedState, AllocationError, Allocator, DeviceID, NodeLocalError
from drasim.allocator.budget import FILTER_BUDGET_STEPS
from drasim.allocator.cache import NodeView, SliceCache
from drasim.allocator.errors import DeadlineExceeded
from drasim.allocator.pools import Pool
from drasim.api.claims import claim_ref
from drasim.api.core import ContainerExtendedResourceRequest, Node, Pod
from drasim.api.meta import NodeSelector, ObjectMeta, OwnerReference
from drasim.api.nodeaffinity import NodeSelectorError, selector_matches
from drasim.api.quantity import Quantity
from drasim.api.resource import (
    AllocationResult,
    DeviceClaim,
    DeviceClass,
    DeviceRequest,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
)
from drasim.cluster.clock import later, seconds
from drasim.cluster.state import ClusterState
from drasim.scheduler.filters import UNRESOLVABLE, Status
from drasim.scheduler.grouping import Shape, dynamic_signature, shape_key, static_signature
from drasim.scheduler.resources import DEVICE_CLASS_PREFIX, Vector, is_dra_extended

PLUGIN = "DynamicResources"
FINALIZER = "resource.kubernetes.io/delete-protection"
EXTENDED_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SPECIAL_NAME = "<extended-resources>"
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery's random name suffix characters
MAX_GENERATED_NAME = 58  # 63 minus the 5 random characters

REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
REASON_CANNOT_FIT = "cannot fit resource"
REASON_STALE_EXTENDED = "cannot schedule extended resource claim"
REASON_TIMEOUT = "timed out trying to allocate devices"


class CycleError(Exception):
    """A Filter/Score/PreBind error: the scheduling attempt ends with status Error and this message."""


# --- extended resources backed by DRA (§5.7) --------------------------------------------------------

def resolve_class(classes: dict[str, DeviceClass], resource: str) -> DeviceClass | None:
    """The DeviceClass serving an extended resource: newest explicit `extendedResourceName` (ties: smaller
    name), else the class named by the implicit `deviceclass.resource.kubernetes.io/<class>`."""
    best: DeviceClass | None = None
    for cls in classes.values():
        if cls.spec.extended_resource_name != resource:
            continue
        if best is None:
            best = cls
            continue
        a, b = cls.metadata.creation_timestamp, best.metadata.creation_timestamp
        if (a is not None and (b is None or a > b)) or (a == b and cls.metadata.name < best.metadata.name):
            best = cls
    if best is not None:
        return best
    if resource.startswith(DEVICE_CLASS_PREFIX):
        return classes.get(resource[len(DEVICE_CLASS_PREFIX):])
    return None


def _request(index: int, requests: dict[str, Quantity], resource: str, class_name: str,
             reusable: list[DeviceRequest | None], container: str
             ) -> tuple[DeviceRequest | None, list[ContainerExtendedResourceRequest]]:
    """One container's device request for `resource` (None: none needed) and its mappings.

    `reusable` are requests of long-lived containers at this index and later: a short-lived init container
    maps onto them first and only asks for what their counts do not cover (upstream
    createResourceRequestAndMappings)."""
    q = requests.get(resource)
    if q is None or not q.is_integer() or q.as_integer() == 0:
        return None, []
    want = q.as_integer()
    mappings = []
    covered = 0
    for r in reusable:
        if r is None or r.exactly is None:
            continue
        covered += r.exactly.count or 0
        mappings.append(ContainerExtendedResourceRequest(container_name=container, resource_name=resource,
                                                         request_name=r.name))
        if covered >= want:
            return None, mappings
    name = f"container-{index}-request-{sorted(requests).index(resource)}"
    mappings.append(ContainerExtendedResourceRequest(container_name=container, resource_name=resource,
                                                     request_name=name))
    return DeviceRequest(name=name, exactly=ExactDeviceRequest(
        device_class_name=class_name, allocation_mode="ExactCount", count=want - covered)), mappings


def extended_requests(pod: Pod, needs: tuple[str, ...], classes: dict[str, DeviceClass], release: str
                      ) -> tuple[list[DeviceRequest], list[ContainerExtendedResourceRequest]]:
    """The special claim's requests for the resources in `needs` and the pod's request mappings (§5.7,
    upstream createRequestsAndMappings).

    Requests are named `container-<i>-request-<j>` (i over initContainers+containers, j the resource's index
    in the container's sorted request names) and sorted by name. Long-lived containers (regular ones and
    sidecars) get one request each; since 1.35 (PR #134882) a short-lived init container first reuses
    requests of long-lived containers at later indices, and what remains of all short-lived ones folds into
    one request for their maximum. Mappings: per resource (sorted), long-lived ones, then short-lived ones.
    """
    containers = pod.spec.init_containers + pod.spec.containers
    n_init = len(pod.spec.init_containers)
    fold = releases.folds_init_container_requests(release)
    short = [i for i, c in enumerate(containers) if fold and i < n_init and c.restart_policy != "Always"]
    long = [i for i in range(len(containers)) if i not in short]
    out: list[DeviceRequest] = []
    mappings: list[ContainerExtendedResourceRequest] = []
    for resource in sorted(needs):
        cls = resolve_class(classes, resource)
        if cls is None:
            continue
        cname = cls.metadata.name
        long_reqs: list[DeviceRequest | None] = [None] * len(containers)
        long_maps: list[ContainerExtendedResourceRequest] = []
        for i in long:
            c = containers[i]
            long_reqs[i], got = _request(i, dict(c.resources.requests), resource, cname, [], c.name)
            long_maps += got
        biggest: DeviceRequest | None = None
        most = 0
        short_names: set[str] = set()
        short_maps: list[ContainerExtendedResourceRequest] = []
        for i in short:
            c = containers[i]
            req, got = _request(i, dict(c.resources.requests), resource, cname, long_reqs[i:], c.name)
            if req is not None and req.exactly is not None:
                short_names.add(req.name)
                count = req.exactly.count or 0
                if biggest is None or most < count:
                    biggest, most = req, count
            short_maps += got
        if biggest is not None and len(short_names) > 1:
            for m in short_maps:
                if m.request_name in short_names:
                    m.request_name = biggest.name
        if biggest is not None:
            out.append(biggest)
        out += [r for r in long_reqs if r is not None]
        mappings += long_maps + short_maps
    out.sort(key=lambda r: r.name)
    return out, mappings


def generated_name(state: ClusterState, namespace: str, base: str, seed: int, salt: str) -> str:
    """generateName + 5 characters: apimachinery's alphabet, drawn from SHA-256(seed, namespace, base, salt,
    attempt); the attempt counter moves on while the name is taken."""
    base = base[:MAX_GENERATED_NAME]
    attempt = 0
    while True:
        value = int.from_bytes(hashlib.sha256(f"{seed}\x00{namespace}\x00{base}\x00{salt}\x00{attempt}".encode())
                               .digest(), "big")
        chars = []
        for _ in range(5):
            value, digit = divmod(value, len(NAME_ALPHABET))
            chars.append(NAME_ALPHABET[digit])
        name = base + "".join(chars)
        if (namespace, name) not in state.claims:
            return name
        attempt += 1


def _owned_by(claim: ResourceClaim, pod: Pod) -> bool:
    """metav1.IsControlledBy: a controller ownerRef with the pod's UID."""
    uid = pod.metadata.uid or ""
    return any(ref.controller and (ref.uid or "") == uid for ref in claim.metadata.owner_references)


def reserved_for_pod(claim: ResourceClaim, pod: Pod) -> bool:
    """IsReservedForPod: a reservedFor entry with the pod's UID (by name when the pod has no UID)."""
    if claim.status is None:
        return False
    uid = pod.metadata.uid
    for ref in claim.status.reserved_for:
        if uid and ref.uid == uid:
            return True
        if not uid and ref.resource == "pods" and ref.name == pod.metadata.name:
            return True
    return False


OK = "ok"
FAIL = "fail"
LOCAL = "local"
ERROR = "error"
# (kind, chosen subrequests per claim, node-local error text)
Outcome = tuple[str, tuple[frozenset[str], ...], str]


# --- PreBind: binding conditions (§5.6) -----------------------------------------------------------------

BINDING_POLL_SECONDS = 5  # PreBind re-checks the claims' device conditions this often
BINDING_READY = "ready"
BINDING_WAITING = "waiting"
BINDING_FAILED = "failed"


def needs_binding_conditions(allocation: AllocationResult | None) -> bool:
    """Whether PreBind must wait for devices' binding conditions before binding the pod."""
    return allocation is not None and any(r.binding_conditions for r in allocation.devices.results)


def binding_outcome(claims: list[ResourceClaim], now: datetime, timeout: int) -> tuple[str, str, datetime | None]:
    """PreBind's check of the claims: ready when every device with binding conditions reports them all True;
    failed (with upstream's error) when one of its failure conditions is True or when `timeout` seconds
    passed since the claim's allocationTimestamp; else waiting (what for, and until when)."""
    waiting: list[str] = []
    deadline: datetime | None = None
    for claim in claims:
        status = claim.status
        if status is None or status.allocation is None:
            continue
        for result in status.allocation.devices.results:
            if not result.binding_conditions:
                continue
            device = next((d for d in status.devices
                           if (d.driver, d.pool, d.device) == (result.driver, result.pool, result.device)), None)
            conditions = {c.type: c for c in device.conditions} if device is not None else {}
            for name in result.binding_failure_conditions:
                cond = conditions.get(name)
                if cond is not None and cond.status == "True":
                    return BINDING_FAILED, (f"claim {claim.metadata.name} binding failed: reason={cond.reason or ''}, "
                                            f'message="{cond.message or ""}"'), None
            missing = [c for c in result.binding_conditions
                       if conditions.get(c) is None or conditions[c].status != "True"]
            if not missing:
                continue
            stamp = status.allocation.allocation_timestamp
            if stamp is not None:
                until = later(stamp, seconds(timeout))
                if now >= until:
                    return BINDING_FAILED, f"claim {claim.metadata.name} binding timeout", None
                deadline = until if deadline is None or until < deadline else deadline
            waiting.append(f"{', '.join(missing)} of device {result.driver}/{result.pool}/{result.device} "
                           f"(claim {claim.metadata.namespace or 'default'}/{claim.metadata.name})")
    if waiting:
        return BINDING_WAITING, "; ".join(waiting), deadline
    return BINDING_READY, "", None


# --- caches shared by cycles ------------------------------------------------------------------------

class NodeDevices:
    """A node's view of the slices and, per claim shape, its last signature with the pool epochs it saw."""

    __slots__ = ("node", "pools", "sigs", "view")

    def __init__(self, node: Node, view: NodeView) -> None:
        self.node = node
        self.view = view
        self.pools = tuple((p.driver, p.name) for p in view.pools)
        self.sigs: dict[int, tuple[object, tuple[object, ...]]] = {}


def pool_devices(pool: Pool) -> set[DeviceID]:
    """Every device of the pool an Allocate call can look up: its devices and its counter consumers."""
    ids = {DeviceID(pool.driver, pool.name, d.name) for s in pool.slices for d in s.spec.devices}
    ids.update(dev for dev, _c in pool.consumers)
    return ids


def restrict(in_use: AllocatedState, ids: set[DeviceID]) -> AllocatedState:
    """The part of an in-use state about these devices (all an Allocate call on their node reads)."""
    return AllocatedState(
        devices=in_use.devices & ids if len(ids) < len(in_use.devices) else {d for d in in_use.devices if d in ids},
        shared={s for s in in_use.shared if s[0] in ids},
        aggregated_capacity={d: c for d, c in in_use.aggregated_capacity.items() if d in ids})


class DraCaches:
    """Node views, shapes, signatures and group outcomes; valid while slices, classes and features stay."""

    def __init__(self) -> None:
        self._slices: SliceCache | None = None
        self._features: object = None
        self._classes: tuple[DeviceClass, ...] = ()
        self._extended: tuple[int, dict[str, list[tuple[str, str]]]] = (-1, {})
        self.generation = 0
        self.reset()

    def reset(self) -> None:
        self.generation += 1
        self.nodes: dict[str, NodeDevices] = {}
        self.pool_nodes: dict[tuple[str, str], set[str]] = {}
        self.shapes: dict[tuple[bytes, ...], Shape] = {}
        self.statics: dict[tuple[object, ...], int] = {}
        self.static_of: dict[tuple[int, str], tuple[Node, int]] = {}
        self.outcomes: dict[tuple[object, ...], Outcome] = {}
        self.pool_ids: dict[tuple[str, str], set[DeviceID]] = {}
        self.pool_use: dict[tuple[str, str], tuple[int, AllocatedState]] = {}

    def in_use_for(self, rec: NodeDevices, state: ClusterState) -> AllocatedState:
        """The cluster's in-use state restricted to the node's pools, cached per pool until it changes."""
        parts = []
        epochs = state.device_epoch
        for key in rec.pools:
            epoch = epochs.get(key, 0)
            hit = self.pool_use.get(key)
            if hit is None or hit[0] != epoch:
                hit = self.pool_use[key] = (epoch, restrict(state.in_use, self.pool_ids[key]))
            parts.append(hit[1])
        if len(parts) == 1:
            return parts[0]
        out = AllocatedState()
        for part in parts:
            out.devices |= part.devices
            out.shared |= part.shared
            out.aggregated_capacity.update(part.aggregated_capacity)
        return out

    def sync(self, state: ClusterState) -> SliceCache:
        """Drop everything when slices (or taint rules), classes or features changed."""
        cache = state.slice_cache()
        classes = tuple(state.classes.values())
        if cache is not self._slices or state.features != self._features or len(classes) != len(self._classes) \
                or any(a is not b for a, b in zip(classes, self._classes, strict=True)):
            self.reset()
            self._slices, self._features, self._classes = cache, state.features, classes
        return cache

    def extended_claims(self, state: ClusterState) -> dict[str, list[tuple[str, str]]]:
        """Claims annotated as extended-resource claims, by controller UID (rebuilt when the claim count moves)."""
        if self._extended[0] != len(state.claims):
            index: dict[str, list[tuple[str, str]]] = {}
            for key, claim in state.claims.items():
                if claim.metadata.annotations.get(EXTENDED_ANNOTATION) == "true":
                    for ref in claim.metadata.owner_references:
                        if ref.controller:
                            index.setdefault(ref.uid or "", []).append(key)
            self._extended = (len(state.claims), index)
        return self._extended[1]

    def devices(self, cache: SliceCache, node: Node, state: ClusterState) -> NodeDevices:
        name = node.metadata.name
        rec = self.nodes.get(name)
        if rec is None or rec.node is not node:
            rec = self.nodes[name] = NodeDevices(node, cache.view(node, state.features))
            for key, pool in zip(rec.pools, rec.view.pools, strict=True):
                self.pool_nodes.setdefault(key, set()).add(name)
                self.pool_ids.setdefault(key, set()).update(pool_devices(pool))
                self.pool_use.pop(key, None)
        return rec

    def shape(self, claims: list[ResourceClaim], classes: dict[str, DeviceClass]) -> Shape:
        key = shape_key(claims)
        found = self.shapes.get(key)
        if found is None:
            found = Shape(claims, classes, len(self.shapes))
            self.shapes[key] = found
        return found


# --- one scheduling cycle ---------------------------------------------------------------------------

@dataclass
class NodeAllocation:
    """Filter's answer on a feasible node: which claims got allocated and the subrequests chosen."""

    claims: list[ResourceClaim]
    chosen: tuple[frozenset[str], ...]  # per claim allocated in this cycle (the special claim last)


@dataclass
class PreFilterOutcome:
    """PreFilter verdict: skip the plugin, reject the pod, or an error."""

    skip: bool = False
    reject: str | None = None
    error: str | None = None


@dataclass
class DraCycle:
    """The plugin's state for one pod's scheduling cycle (upstream stateData)."""

    state: ClusterState
    pod: Pod
    caches: DraCaches
    extended_enabled: bool = True
    binding_timeout: int = 600
    in_use: AllocatedState | None = None  # what-if in-use state (default: the cluster's)
    max_steps: int | None = FILTER_BUDGET_STEPS  # the filter timeout as a search step budget
    namespace: str = ""
    user: list[tuple[str, ResourceClaim]] = field(default_factory=list)  # (pod claim name, claim)
    special: ResourceClaim | None = None
    special_template: bool = False
    ext: Vector = field(default_factory=dict)  # DRA-extended resources the pod requests (> 0)
    claims: list[ResourceClaim] = field(default_factory=list)  # upstream state.claims (empty: inactive)
    to_allocate: list[int] = field(default_factory=list)
    allocated: list[int] = field(default_factory=list)
    selectors: dict[int, NodeSelector] = field(default_factory=dict)
    binding_unavailable: set[int] = field(default_factory=set)
    unavailable: set[int] = field(default_factory=set)
    nodes: dict[str, NodeAllocation] = field(default_factory=dict)
    results: dict[str, list[AllocationResult]] = field(default_factory=dict)
    variants: dict[tuple[str, ...], ResourceClaim] = field(default_factory=dict)
    mappings: dict[int, list[ContainerExtendedResourceRequest]] = field(default_factory=dict)  # by id(variant)
    batches: dict[tuple[str, ...], tuple[list[ResourceClaim], Shape | None]] = field(default_factory=dict)
    _allocators: dict[str, Allocator] = field(default_factory=dict)
    _cache: SliceCache | None = None

    # --- PreEnqueue / PreFilter ----------------------------------------------------------------

    def pre_enqueue(self) -> str | None:
        """foreachPodResourceClaim: every claim exists, is not being deleted and (if generated) is the pod's."""
        pod = self.pod
        self.namespace = ns = pod.metadata.namespace or "default"
        ref = f"{ns}/{pod.metadata.name}"
        statuses = pod.status.resource_claim_statuses if pod.status is not None else []
        for entry in pod.spec.resource_claims:
            if entry.resource_claim_name:
                name: str | None = entry.resource_claim_name
                check_owner = False
            elif entry.resource_claim_template_name:
                found = [s for s in statuses if s.name == entry.name]
                if not found:
                    return releases.claim_not_created(self.state.features.release, ref)
                name, check_owner = found[0].resource_claim_name, True
            else:
                return releases.unsupported_pod_claim(self.state.features.release, ref, entry.name)
            if name is None:
                continue  # a claim that was deliberately not created
            claim = self.state.claims.get((ns, name))
            if claim is None:
                return f'could not find ResourceClaim "{ns}/{name}"'
            if claim.metadata.deletion_timestamp is not None:
                return f'resourceclaim "{name}" is being deleted'
            if check_owner and ((claim.metadata.namespace or "default") != ns or not _owned_by(claim, pod)):
                return releases.not_owner(self.state.features.release, f"{ns}/{name}", ref)
            self.user.append((entry.name, claim))
        return None

    def pre_filter(self, requests: Vector) -> PreFilterOutcome:
        """Upstream PreFilter after PreEnqueue passed: extended resources, allocated claims, classes."""
        state = self.state
        if self.extended_enabled:
            for name, value in requests.items():
                if value > 0 and is_dra_extended(name) and resolve_class(state.classes, name) is not None:
                    self.ext = {k: v for k, v in requests.items() if v > 0 and is_dra_extended(k)}
                    self.special = self._find_special()
                    break
        claims = [c for _, c in self.user] + ([self.special] if self.special is not None else [])
        if not claims:
            return PreFilterOutcome(skip=True)
        for index, claim in enumerate(claims):
            status = claim.status
            if status is not None and status.allocation is not None:
                self.allocated.append(index)
                selector = status.allocation.node_selector
                if selector is not None:
                    try:
                        selector_matches(selector, Node())  # NewNodeSelector: reject malformed selectors
                    except NodeSelectorError as err:
                        return PreFilterOutcome(error=str(err))
                    self.selectors[index] = selector
                if state.features.device_binding_and_status and not self._ready_for_binding(claim):
                    self.binding_unavailable.add(index)
                continue
            self.to_allocate.append(index)
            if claim is self.special:
                continue
            cref = claim_ref(claim)
            for request in claim.spec.devices.requests:
                if request.exactly is not None:
                    bad = self._validate_class(request.exactly.device_class_name, request.name)
                elif request.first_available:
                    if not state.features.prioritized_list:
                        return PreFilterOutcome(reject=f"resource claim {cref}, request {request.name}: has "
                                                       "subrequests, but the DRAPrioritizedList feature is disabled")
                    bad = None
                    for sub in request.first_available:
                        bad = self._validate_class(sub.device_class_name, f"{request.name}/{sub.name}")
                        if bad is not None:
                            break
                else:
                    return PreFilterOutcome(reject=f"resource claim {cref}, request {request.name}: unknown "
                                                   "request type")
                if bad is not None:
                    return bad
        self.claims = claims
        self._cache = self.caches.sync(state)
        return PreFilterOutcome()

    def _validate_class(self, class_name: str, request: str) -> PreFilterOutcome | None:
        if not class_name:
            return PreFilterOutcome(error=f"request {request}: unsupported request type")
        if class_name not in self.state.classes:
            return PreFilterOutcome(reject=f"request {request}: device class {class_name} does not exist")
        return None

    def _find_special(self) -> ResourceClaim:
        """A leftover special claim owned by the pod, else the in-memory template (§5.7 PreFilter)."""
        pod = self.pod
        for key in self.caches.extended_claims(self.state).get(pod.metadata.uid or "", ()):
            claim = self.state.claims.get(key)
            if claim is not None and key[0] == self.namespace and \
                    claim.metadata.annotations.get(EXTENDED_ANNOTATION) == "true" and any(
                    ref.name == pod.metadata.name and ref.controller and (ref.uid or "") == (pod.metadata.uid or "")
                    for ref in claim.metadata.owner_references):
                return claim
        self.special_template = True
        return ResourceClaim(metadata=ObjectMeta(
            name=SPECIAL_NAME, namespace=self.namespace, generate_name=f"{pod.metadata.name}-extended-resources-",
            annotations={EXTENDED_ANNOTATION: "true"},
            owner_references=[OwnerReference(api_version="v1", kind="Pod", name=pod.metadata.name,
                                             uid=pod.metadata.uid or "", controller=True)]))

    def _ready_for_binding(self, claim: ResourceClaim) -> bool:
        """False when a binding failure condition is True, or when the binding timeout passed unready."""
        status = claim.status
        assert status is not None and status.allocation is not None
        allocation = status.allocation
        ready = True
        for result in allocation.devices.results:
            if not result.binding_conditions:
                continue
            device = next((d for d in status.devices if (d.driver, d.pool, d.device) ==
                           (result.driver, result.pool, result.device)), None)
            if device is None:
                ready = False
                continue
            conditions = {c.type: c.status for c in device.conditions}
            if any(conditions.get(c) == "True" for c in result.binding_failure_conditions):
                return False
            if not all(conditions.get(c) == "True" for c in result.binding_conditions):
                ready = False
        if ready:
            return True
        stamp = allocation.allocation_timestamp
        timed_out = stamp is not None and any(r.binding_conditions for r in allocation.devices.results) and \
            later(stamp, seconds(self.binding_timeout)) < self.state.now
        return not timed_out

    @property
    def active(self) -> bool:
        return bool(self.claims)

    # --- Filter --------------------------------------------------------------------------------

    def allocator(self, node: Node) -> Allocator:
        """An allocator for calls on this node: the in-use state restricted to the node's pools.

        Every lookup an Allocate call makes is about devices of the node's pools (candidates and their
        pools' counter consumers), so the restriction changes no answer; it avoids copying the whole
        cluster's in-use set per call. One allocator per node and cycle (upstream: one per cycle, whose
        counter cache, keyed by pool name, is then shared across nodes).
        """
        name = node.metadata.name
        found = self._allocators.get(name)
        if found is None:
            assert self._cache is not None
            rec = self.caches.devices(self._cache, node, self.state)
            if self.in_use is not None:
                ids: set[DeviceID] = set()
                for key in rec.pools:
                    ids |= self.caches.pool_ids[key]
                in_use = restrict(self.in_use, ids)
            else:
                in_use = self.caches.in_use_for(rec, self.state)
            found = self._allocators[name] = Allocator(self.state.features, in_use, self.state.classes, self._cache,
                                                        max_steps=self.max_steps)
        return found

    def _variant(self, needs: tuple[str, ...]) -> ResourceClaim:
        found = self.variants.get(needs)
        if found is None:
            assert self.special is not None
            requests, mappings = extended_requests(self.pod, needs, self.state.classes, self.state.features.release)
            found = ResourceClaim(metadata=self.special.metadata, spec=ResourceClaimSpec(devices=DeviceClaim(
                requests=requests)))
            self.variants[needs] = found
            self.mappings[id(found)] = mappings
        return found

    def request_mappings(self, variant: ResourceClaim) -> list[ContainerExtendedResourceRequest]:
        """pod.status.extendedResourceClaimStatus.requestMappings for the node-specific special claim."""
        return list(self.mappings.get(id(variant), ()))

    def batch(self, needs: tuple[str, ...]) -> tuple[list[ResourceClaim], Shape | None]:
        """The claims one Allocate call gets on nodes needing `needs` through DRA, and their shape."""
        found = self.batches.get(needs)
        if found is None:
            special = self.special
            batch = [self.claims[i] for i in self.to_allocate if self.claims[i] is not special]
            if needs:
                batch.append(self._variant(needs))
            found = (batch, self.caches.shape(batch, self.state.classes) if batch else None)
            self.batches[needs] = found
        return found

    def filter(self, node: Node, allocatable: Vector) -> Status | None:
        """Filter on one node; raises CycleError for allocator errors (the attempt aborts)."""
        if not self.claims:
            return None
        special = self.special
        needs: tuple[str, ...] = ()
        if special is not None:
            if special.spec.devices.requests:
                return Status(UNRESOLVABLE, (REASON_STALE_EXTENDED,), PLUGIN)
            wanted = []
            for resource in sorted(self.ext):
                served = resolve_class(self.state.classes, resource) is not None
                if served and allocatable.get(resource, 0) == 0:
                    wanted.append(resource)
                elif resource not in allocatable:
                    return Status(UNRESOLVABLE, (REASON_CANNOT_FIT,), PLUGIN)
            if not wanted and not self.user:
                return None
            needs = tuple(wanted)
        unavailable = [i for i in self.allocated if i in self.binding_unavailable
                       or (i in self.selectors and not selector_matches(self.selectors[i], node))]
        name = node.metadata.name
        if self.to_allocate:
            batch, shape = self.batch(needs)
            chosen: tuple[frozenset[str], ...] = ()
            if shape is not None:
                got = self._grouped(node, batch, shape)
                if isinstance(got, Status):
                    return got
                chosen = got
            if special is not None and not needs and special.status is None:
                chosen = (*chosen, frozenset())  # upstream allocates the empty template: an empty result
            self.nodes[name] = NodeAllocation(batch, chosen)
        if unavailable:
            self.unavailable.update(unavailable)
            self.nodes.pop(name, None)
            return Status(UNRESOLVABLE, (REASON_NOT_AVAILABLE,), PLUGIN)
        return None

    def _grouped(self, node: Node, batch: list[ResourceClaim], shape: Shape) -> tuple[frozenset[str], ...] | Status:
        """The allocator's answer for the node, shared by every node with the same signature."""
        caches = self.caches
        assert self._cache is not None
        rec = caches.devices(self._cache, node, self.state)
        pools = rec.pools
        epochs = self.state.device_epoch
        epoch: object = epochs.get(pools[0], 0) if len(pools) == 1 else tuple(epochs.get(k, 0) for k in pools)
        hit = rec.sigs.get(shape.id)
        if hit is not None and hit[0] == epoch:
            sig = hit[1]
        else:
            sig = self.signature(shape, node, rec.view)
            rec.sigs[shape.id] = (epoch, sig)
        outcome = caches.outcomes.get(sig)
        if outcome is None:
            outcome = caches.outcomes[sig] = self._run(node, batch)
        kind, chosen, message = outcome
        if kind == OK:
            return chosen
        if kind == FAIL:
            return Status(UNRESOLVABLE, (REASON_CANNOT_ALLOCATE,), PLUGIN)
        if kind == LOCAL:
            return Status(UNRESOLVABLE, (message,), PLUGIN)
        # A fatal error: its text may name this node's devices or pools, so take it from this very node.
        kind, _, message = self._run(node, batch)
        raise CycleError(message if kind == ERROR else f'running "{PLUGIN}" filter plugin: inconsistent result')

    def signature(self, shape: Shape, node: Node, view: NodeView) -> tuple[object, ...]:
        """(shape, static signature id, dynamic signature) of the node for these claims."""
        caches = self.caches
        name = node.metadata.name
        st = caches.static_of.get((shape.id, name))
        if st is None or st[0] is not node:
            assert self._cache is not None
            static = static_signature(shape, view, node, self._cache.memo, self.state.features)
            sid = caches.statics.setdefault(static, len(caches.statics))
            caches.static_of[(shape.id, name)] = (node, sid)
        else:
            sid = st[1]
        def available(pool: Pool) -> dict[str, dict[str, object]]:
            # Only pools with counters ask, so nodes without any need no allocator here.
            return self.allocator(node).available_counters(pool)  # type: ignore[return-value]

        in_use = self.in_use if self.in_use is not None else self.state.in_use
        dynamic = dynamic_signature(view, in_use, self.state.features.consumable_capacity, available)
        return (shape.id, sid, dynamic)

    def _run(self, node: Node, batch: list[ResourceClaim]) -> Outcome:
        """A direct allocator call on the node."""
        try:
            results = self.allocator(node).allocate(node, batch)
        except DeadlineExceeded:
            return (LOCAL, (), REASON_TIMEOUT)
        except NodeLocalError as err:
            return (LOCAL, (), err.message)
        except AllocationError as err:
            return (ERROR, (), f'running "{PLUGIN}" filter plugin: {err.message}')
        if results is None or len(results) != len(batch):
            return (FAIL, (), "")
        self.results[node.metadata.name] = results
        return (OK, tuple(frozenset(r.request for r in res.devices.results if "/" in r.request) for res in results),
                "")

    def chosen_for_score(self, name: str) -> tuple[frozenset[str], ...] | None:
        found = self.nodes.get(name)
        return found.chosen if found is not None else None

    # --- Reserve / PreBind --------------------------------------------------------------------------

    def allocate(self, node: Node, allocatable: Vector) -> list[tuple[ResourceClaim, AllocationResult]]:
        """The claims allocated on the chosen node and their results, from a direct allocator call."""
        name = node.metadata.name
        if self.claims and name not in self.nodes:
            self.filter(node, allocatable)  # Filter's answer came from an earlier cycle's cache
        found = self.nodes.get(name)
        if found is None or not found.claims:
            return []
        results = self.results.get(name)
        if results is None:
            kind, _, message = self._run(node, found.claims)
            results = self.results.get(name)
            if kind != OK or results is None:
                raise CycleError(message or "claim allocation not found for node")
        return list(zip(found.claims, results, strict=True))
