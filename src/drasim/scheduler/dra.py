"""The DynamicResources plugin (dra-semantics §5): claims, extended resources, grouped Filter, PostFilter, PreBind.

`extended`, `prebind` and `nodealloc` hold the DRA-backed extended resources, the binding conditions and what
devices charge the node's allocatable; the extension
points of one pod's cycle share its state in `DraCycle` and stay together here, past 700 lines, as upstream
keeps them in one plugin type (dynamicresources.go).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import is_not

from drasim import releases
from drasim.allocator import AllocatedState, AllocationError, Allocator, DeviceID, NodeLocalError
from drasim.allocator.budget import FILTER_BUDGET_STEPS
from drasim.allocator.cache import NodeView, SliceCache
from drasim.allocator.errors import DeadlineExceeded
from drasim.allocator.pools import Pool
from drasim.allocator.results import Recipe, rebuild
from drasim.allocator.search import SearchPath
from drasim.api.claims import claim_ref
from drasim.api.core import (
    ContainerExtendedResourceRequest,
    Node,
    NodeAllocatableResourceClaimStatus,
    Pod,
    PodExtendedResourceClaimStatus,
)
from drasim.api.limits import RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE as MAX_RESERVED_FOR
from drasim.api.meta import NodeSelector, ObjectMeta, OwnerReference
from drasim.api.nodeaffinity import NodeSelectorError, selector_matches
from drasim.api.resource import AllocationResult, DeviceClaim, DeviceClass, ResourceClaim, ResourceClaimSpec
from drasim.cluster.clock import later, seconds
from drasim.cluster.podgroups import group_for_claim, owned_by_pods_group, reserved_for_group
from drasim.cluster.state import ClusterState, Key, key_of
from drasim.scheduler import nodealloc as na
from drasim.scheduler import scores as sc
from drasim.scheduler.extended import extended_requests, generated_name, resolve_class
from drasim.scheduler.filters import UNRESOLVABLE, Status
from drasim.scheduler.grouping import Shape, dynamic_signature, spec_key, static_signature
from drasim.scheduler.pods import owned_by
from drasim.scheduler.prebind import needs_binding_conditions
from drasim.scheduler.resources import Vector, claim_status_requests, is_dra_extended

__all__ = ["CycleError", "DraCaches", "DraCycle", "extended_requests", "resolve_class"]

PLUGIN = "DynamicResources"
SPEC_KEYS_MAX = 4096  # entries of DraCaches.spec_keys before it starts again
FINALIZER = "resource.kubernetes.io/delete-protection"
EXTENDED_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
SPECIAL_NAME = "<extended-resources>"

REASON_CANNOT_ALLOCATE = "cannot allocate all claims"
REASON_NOT_AVAILABLE = "resourceclaim not available on the node"
REASON_CANNOT_FIT = "cannot fit resource"
REASON_STALE_EXTENDED = "cannot schedule extended resource claim"
REASON_TIMEOUT = "timed out trying to allocate devices"
# Reserve replays the allocator's path from a node with the same signature instead of searching again
# (DraCycle._replayed); off only to prove that it changes no result (tests/scheduler/test_reserve_replay.py).
REPLAY = True
# Before replaying, Reserve rebuilds the allocation from the choices of that node's search (DraCycle._replayed);
# off only to prove that it changes no result (tests/scheduler/test_reserve_replay.py).
REBUILD = True
# Filter reasons that name nothing of the pod (node-local allocator errors may).
CONSTANT_REASONS = frozenset({REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE, REASON_CANNOT_FIT,
                              REASON_STALE_EXTENDED, REASON_TIMEOUT})


class CycleError(Exception):
    """A Filter/Score/PreBind error: the scheduling attempt ends with status Error and this message."""


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


# --- caches shared by cycles ------------------------------------------------------------------------

class NodeDevices:
    """A node's view of the slices and, per claim shape, its last signature with the pool epochs it saw."""

    __slots__ = ("charging", "node", "pools", "sigs", "view")

    def __init__(self, node: Node, view: NodeView) -> None:
        self.node = node
        self.view = view
        self.pools = tuple((p.driver, p.name) for p in view.pools)
        self.sigs: dict[int, tuple[object, tuple[object, ...]]] = {}
        self.charging: bool | None = None  # some device charges node-allocatable resources (asked lazily)


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
        # Each claim spec's encoded key, by the spec's identity (with the spec, so a reused id cannot match):
        # claim specs never change in place (the API server refuses it), and the replicas of one template
        # share theirs (controllers.resourceclaim.template_copy), so a cycle no longer encodes its claims.
        self.spec_keys: dict[int, tuple[ResourceClaimSpec, bytes]] = {}
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
        # Per signature with an allocation, where the allocator took the devices (Reserve replays it).
        self.paths: dict[tuple[object, ...], SearchPath] = {}
        self.recipes: dict[tuple[object, ...], Recipe] = {}  # the same, as Reserve rebuilds it (rebuild)
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
        features = state.features
        # Asked once per pod: identity first (the usual case: nothing changed), the dataclass's == only when
        # the features object was replaced; the classes by identity at C speed.
        if cache is not self._slices or (features is not self._features and features != self._features) \
                or len(classes) != len(self._classes) or any(map(is_not, classes, self._classes)):
            self.reset()
            self._slices, self._features, self._classes = cache, features, classes
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
        parts = []
        memo = self.spec_keys
        for claim in claims:
            spec = claim.spec
            hit = memo.get(id(spec))
            if hit is None or hit[0] is not spec:
                if len(memo) >= SPEC_KEYS_MAX:
                    memo.clear()  # claims made one by one (no template) would otherwise pin every spec
                hit = memo[id(spec)] = (spec, spec_key(spec))
            parts.append(hit[1])
        key = tuple(parts)  # the claims' spec_keys, in order
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
class Reservation:
    """Reserve's outcome on the chosen node (see DraCycle.reserve)."""

    allocations: dict[Key, AllocationResult] = field(default_factory=dict)
    chosen_subrequests: dict[Key, list[str]] = field(default_factory=dict)
    extended_claim: ResourceClaim | None = None
    extended_status: PodExtendedResourceClaimStatus | None = None
    binding_wait: bool = False  # PreBind waits for devices' binding conditions
    error: str | None = None
    node_allocatable: list[NodeAllocatableResourceClaimStatus] = field(default_factory=list)


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
    sigs: dict[str, tuple[object, ...]] = field(default_factory=dict)  # each node's signature in this cycle
    _cache: SliceCache | None = None
    _backed: frozenset[str] | None = None  # backed_resources, found once: classes do not change in a cycle
    requests: Vector = field(default_factory=dict)  # the pod's own requests (PreFilter's)
    charged: dict[str, list[NodeAllocatableResourceClaimStatus]] = field(default_factory=dict)  # per node

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
            if check_owner and ((claim.metadata.namespace or "default") != ns or not (
                    owned_by(claim, pod) or owned_by_pods_group(self.state, claim, pod))):
                return releases.not_owner(self.state.features.release, f"{ns}/{name}", ref)
            self.user.append((entry.name, claim))
        return None

    def pre_filter(self, requests: Vector) -> PreFilterOutcome:
        """Upstream PreFilter after PreEnqueue passed: extended resources, allocated claims, classes."""
        state = self.state
        self.requests = requests
        if self.extended_enabled:
            for name, value in requests.items():
                if value > 0 and is_dra_extended(name) and resolve_class(state.classes, name) is not None:
                    self.ext = {k: v for k, v in requests.items() if v > 0 and is_dra_extended(k)}
                    self._backed = None
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
        """Whether the plugin takes part in this cycle (PreFilter found claims to handle)."""
        return bool(self.claims)

    def backed_resources(self) -> frozenset[str]:
        """The pod's extended resources a DeviceClass serves: NodeResourcesFit leaves them to this plugin."""
        if self._backed is None:
            classes = self.state.classes
            self._backed = frozenset(n for n in self.ext if resolve_class(classes, n) is not None)
        return self._backed

    def plan_key(self) -> tuple[object, ...] | None:
        """What pods must share of this plugin's inputs to share Filter verdicts and raw scores per node
        (None: per-pod inputs, i.e. allocated claims or a leftover special claim)."""
        if self.allocated or (self.special is not None and not self.special_template):
            return None
        if not self.claims:
            return ()
        shape = self.batch(())[1]
        containers: tuple[object, ...] = ()
        if self.special is not None:  # the special claim's requests follow the containers' own requests
            spec = self.pod.spec
            containers = tuple(tuple(sorted((k, str(q)) for k, q in c.resources.requests.items() if k in self.ext))
                               for c in spec.init_containers + spec.containers)
        return (shape.id if shape is not None else -1, self.special is not None, tuple(sorted(self.ext.items())),
                containers)

    def failure_names_nothing_of_pod(self, statuses: Iterable[Status]) -> bool:
        """Whether a failed cycle's outcome would be the same for any pod with the same claim specs: no
        extended resources, no allocated claims, and only Filter reasons that name nothing of the pod."""
        if self.ext or self.special is not None or self.allocated:
            return False
        return all(st.plugin != PLUGIN or (len(st.reasons) == 1 and st.reasons[0] in CONSTANT_REASONS)
                   for st in statuses)

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

    def _view(self, node: Node) -> NodeView:
        """The node's view of the slices, as kept with the node's devices (SliceCache.view builds its key from
        every node label: ~30 on a GPU node, sorted per call)."""
        assert self._cache is not None
        return self.caches.devices(self._cache, node, self.state).view

    def extended_needs(self, allocatable: Vector) -> tuple[str, ...] | None:
        """The pod's extended resources a node with `allocatable` gets through DRA: those a DeviceClass serves
        and the node does not advertise (a device plugin's count wins). None: one nothing serves there."""
        wanted = []
        backed = self.backed_resources()  # per node: the class lookup is the cycle's, not the node's
        for resource in sorted(self.ext):
            served = resource in backed
            if served and allocatable.get(resource, 0) == 0:
                wanted.append(resource)
            elif resource not in allocatable:
                return None
        return tuple(wanted)

    def variant(self, needs: tuple[str, ...]) -> ResourceClaim:
        """The node-specific special claim for the extended resources in `needs` (built once per `needs`)."""
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
                batch.append(self.variant(needs))
            found = (batch, self.caches.shape(batch, self.state.classes) if batch else None)
            self.batches[needs] = found
        return found

    def filter(self, node: Node, allocatable: Vector, requested: Vector | None = None) -> Status | None:
        """Filter on one node; raises CycleError for allocator errors (the attempt aborts). With the node's
        `requested`, also what the claims' devices charge its allocatable (nodealloc)."""
        if not self.claims:
            return None
        special = self.special
        needs: tuple[str, ...] = ()
        if special is not None:
            if special.spec.devices.requests:
                return Status(UNRESOLVABLE, (REASON_STALE_EXTENDED,), PLUGIN)
            wanted = self.extended_needs(allocatable)
            if wanted is None:
                return Status(UNRESOLVABLE, (REASON_CANNOT_FIT,), PLUGIN)
            if not wanted and not self.user:
                return None
            needs = wanted
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
        return self.charge(node, allocatable, requested)

    def charge(self, node: Node, allocatable: Vector, requested: Vector | None) -> Status | None:
        """calculateAndCheckNodeAllocatableResources on a node Filter allocated on: the claims' statuses
        (kept for PreBind) and, given the node's `requested`, whether the pod still fits with them."""
        assert self._cache is not None
        name = node.metadata.name
        rec = self.caches.devices(self._cache, node, self.state)
        if rec.charging is None:
            rec.charging = na.pools_charge(rec.view.pools)
        if not rec.charging:
            return None
        pools = rec.view.pools
        # The 1.36 API's status (`resources`) or 1.37's (`mapping`, `overhead`): the release's device field says.
        v136 = releases.node_allocatable_field(self.state.features.release) == releases.NODE_ALLOCATABLE_MAPPINGS
        pod_claim = {id(c): n for n, c in self.user}
        pairs: list[na.ClaimAllocation] = []
        for index in self.allocated:
            claim = self.claims[index]
            if not v136 and claim.status is not None and claim.status.reserved_for \
                    and not reserved_for_pod(claim, self.pod) and na.mapped_claim(claim, pools):
                self.charged[name] = []
                return na.not_shareable(claim)
            allocation = claim.status.allocation if claim.status is not None else None
            if allocation is not None:
                pairs.append((pod_claim.get(id(claim)), claim, allocation))
        pairs += [(pod_claim.get(id(c)), c, a) for c, a in self._allocated_on(node)]
        try:
            statuses = na.claim_statuses(self.pod, pairs, pools, v136)
        except na.ChargeError as err:
            raise CycleError(f'running "{PLUGIN}" filter plugin: {err}') from None
        self.charged[name] = statuses
        if not statuses or requested is None:
            return None
        demand = dict(self.requests)
        for k, v in claim_status_requests(statuses).items():
            demand[k] = demand.get(k, 0) + v
        return na.fits(demand, allocatable, requested)

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
        self.sigs[node.metadata.name] = sig
        outcome = caches.outcomes.get(sig)
        if outcome is None:
            outcome = caches.outcomes[sig] = self._run(node, batch)
            if outcome[0] == OK:
                allocator = self.allocator(node)
                path = allocator.last_path()
                if path is not None:
                    caches.paths[sig] = path
                recipe = allocator.last_recipe()
                if recipe is not None:
                    caches.recipes[sig] = recipe
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

    # --- Score ---------------------------------------------------------------------------------------

    def score_raw(self, name: str, memo: dict[object, int]) -> int:
        """Score's raw value on a node Filter passed (-1: the Score plugin fails there, see score_error),
        memoised per chosen subrequests in `memo`."""
        chosen = self.chosen_for_score(name)
        if chosen is None:
            return 0
        found = memo.get(chosen)
        if found is None:
            features = self.state.features
            if releases.scores_stored_allocations(features.release):
                found = sc.dra_raw_stored(self.claims, chosen, features.prioritized_list)
            else:
                try:
                    found = sc.dra_raw(self.claims, chosen)
                except sc.ScoreError:
                    found = -1  # raised when scoring happens (upstream fails the Score plugin)
            memo[chosen] = found
        return found

    def score_error(self, node: Node, allocatable: Vector) -> None:
        """Raise the Score plugin's error (CycleError) for a node whose raw score was -1."""
        self.filter(node, allocatable)
        try:
            sc.dra_raw(self.claims, self.chosen_for_score(node.metadata.name) or ())
        except sc.ScoreError as err:
            raise CycleError(f'running Score plugins: plugin "{PLUGIN}" failed with: {err}') from None

    # --- PostFilter ----------------------------------------------------------------------------------

    def post_filter(self) -> tuple[str, list[Key], list[Key]]:
        """(message, claims to deallocate, claims to delete): the first unavailable claim reserved by no
        other pod is deallocated; else a leftover special claim is deleted."""
        if not self.claims:
            return "no new claims to deallocate", [], []
        pod = self.pod
        special_real = self.special is not None and not self.special_template
        for index in sorted(self.unavailable):
            claim = self.claims[index]
            if claim is self.special:
                if special_real:
                    break
                continue
            reserved = claim.status.reserved_for if claim.status is not None else []
            if not reserved or (len(reserved) == 1 and reserved_for_pod(claim, pod)):
                return "deallocation of ResourceClaim completed", [key_of(claim)], []
        if special_real and self.special is not None:
            return "deletion of ResourceClaim completed", [], [key_of(self.special)]
        return "still not schedulable", [], []

    def helped_by_freeing(self, held: set[Key], nodes: list[str], requests: Vector,
                          allocatable: dict[str, Vector]) -> bool:
        """Would one of `nodes` (rejected by this plugin) pass Filter if the claims in `held` were
        deallocated? (drasim's hint that priority does not help: DynamicResources does not preempt.)"""
        state = self.state
        held_pools = {(r.driver, r.pool) for k in held
                      for r in state.claims[k].status.allocation.devices.results}  # type: ignore[union-attr]
        cache = state.slice_cache()
        nodes = [n for n in nodes if held_pools.intersection(self.caches.devices(cache, state.nodes[n], state).pools)]
        if not nodes:
            return False
        freed = AllocatedState()
        for ckey, claim in state.claims.items():
            if ckey in held or claim.status is None or claim.status.allocation is None:
                continue
            freed.add_allocation(claim.status.allocation, consumable_capacity=state.features.consumable_capacity)
        probe = DraCycle(state, self.pod, DraCaches(), self.extended_enabled, self.binding_timeout, in_use=freed,
                         max_steps=self.max_steps)
        if probe.pre_enqueue() is not None or probe.pre_filter(requests).reject is not None:
            return False
        for name in nodes:
            try:
                if probe.filter(state.nodes[name], allocatable[name]) is None:
                    return True
            except CycleError:
                return False
        return False

    # --- Reserve / PreBind --------------------------------------------------------------------------

    def reserve(self, node: Node, allocatable: Vector, seed: int) -> Reservation:
        """Reserve + PreBind's checks on the chosen node: the allocations to write, the special claim to
        create (named from `seed`), or the error (reservedFor full); changes nothing."""
        out = Reservation()
        pod, ns = self.pod, self.namespace
        pairs = self.allocate(node, allocatable)
        if self.claims and node.metadata.name not in self.charged:
            self.charge(node, allocatable, None)  # Filter's verdict came from an earlier cycle's plan
        out.node_allocatable = self.charged.get(node.metadata.name, [])
        for claim, allocation in pairs:
            if claim.metadata.name == SPECIAL_NAME:
                final = self._extended_claim(claim, seed)
                out.extended_claim = final
                for st in out.node_allocatable:  # replaceSpecialClaimNameInStatus
                    if st.resource_claim_name == SPECIAL_NAME:
                        st.resource_claim_name = final.metadata.name
                ckey = (ns, final.metadata.name)
                out.extended_status = PodExtendedResourceClaimStatus(
                    resource_claim_name=final.metadata.name, request_mappings=self.request_mappings(claim))
            else:
                ckey = key_of(claim)
            out.allocations[ckey] = allocation
            picked: list[str] = []
            for r in allocation.devices.results:
                if "/" in r.request and r.request not in picked:
                    picked.append(r.request)
            if picked:
                out.chosen_subrequests[ckey] = picked
        for claim in self.claims:
            if claim.metadata.name == SPECIAL_NAME or reserved_for_pod(claim, pod):
                continue
            group = group_for_claim(self.state, pod, claim.metadata.name) if self.state.pod_groups else None
            if group is not None and reserved_for_group(claim, group):
                continue  # one reservation serves every pod of the group
            status = claim.status
            have = len(status.reserved_for) if status is not None else 0
            if have + 1 > MAX_RESERVED_FOR:
                verb = "add allocation and reservation" if key_of(claim) in out.allocations else "add reservation"
                return Reservation(error=(
                    f'running PreBind plugin "{PLUGIN}": {verb} to claim {ns}/{claim.metadata.name}: '
                    f'ResourceClaim.resource.k8s.io "{claim.metadata.name}" is invalid: status.reservedFor: '
                    f"Too many: {have + 1}: must have at most {MAX_RESERVED_FOR} items"))
        if self.state.features.device_binding_and_status:
            allocations = [*out.allocations.values(),
                           *(c.status.allocation for c in self.claims if c.status is not None)]
            out.binding_wait = any(needs_binding_conditions(a) for a in allocations)
        return out

    def _extended_claim(self, variant: ResourceClaim, seed: int) -> ResourceClaim:
        meta = variant.metadata
        ns = self.namespace
        base = meta.generate_name or f"{self.pod.metadata.name}-extended-resources-"
        name = generated_name(self.state, ns, base, seed, self.pod.metadata.uid or "")
        uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"drasim:{seed}:claim:{ns}/{name}"))
        return ResourceClaim(
            metadata=ObjectMeta(name=name, namespace=ns, generate_name=base, uid=uid,
                                annotations={EXTENDED_ANNOTATION: "true"},
                                owner_references=list(meta.owner_references), finalizers=[FINALIZER]),
            spec=variant.spec)

    def allocate(self, node: Node, allocatable: Vector) -> list[tuple[ResourceClaim, AllocationResult]]:
        """The claims allocated on the chosen node and their results, from a direct allocator call."""
        name = node.metadata.name
        if self.claims and name not in self.nodes:
            self.filter(node, allocatable)  # Filter's answer came from an earlier cycle's cache
        return self._allocated_on(node)

    def _allocated_on(self, node: Node) -> list[tuple[ResourceClaim, AllocationResult]]:
        """The claims Filter allocated on the node and their results (a direct allocator call when its answer
        came from another node of the group)."""
        name = node.metadata.name
        found = self.nodes.get(name)
        if found is None or not found.claims:
            return []
        results = self.results.get(name)
        if results is None:
            results = self._replayed(node, found.claims)
        if results is None:
            kind, _, message = self._run(node, found.claims)
            results = self.results.get(name)
            if kind != OK or results is None:
                raise CycleError(message or "claim allocation not found for node")
        return list(zip(found.claims, results, strict=True))

    def _replayed(self, node: Node, claims: list[ResourceClaim]) -> list[AllocationResult] | None:
        """The node's allocation from the choices of the node whose search answered its signature (Filter's
        answer): rebuilt on this node's devices (results.rebuild), else replayed along its path (Allocator.replay);
        None: no path, or the replay refused (the caller searches)."""
        sig = self.sigs.get(node.metadata.name)
        if sig is None or not REPLAY:
            return None
        recipe = self.caches.recipes.get(sig) if REBUILD else None
        if recipe is not None:
            # Equal signatures make the search take the same steps and the devices at the same positions
            # (Allocator.replay), so its choices rebuilt on this node's devices are the replay's result without
            # an allocator for the node nor a pass through the checks (tests/scheduler/test_reserve_replay.py);
            # a device in use (one an admin-access request may take; the signature records in-use devices, so
            # else never) falls back to the replay's checks.
            in_use = self.in_use if self.in_use is not None else self.state.in_use
            got = rebuild(self.state.features, node, self._view(node), claims, recipe, in_use.devices)
            if got is not None:
                return got
        path = self.caches.paths.get(sig)
        if path is None:
            return None
        try:
            return self.allocator(node).replay(node, claims, path, self._view(node))
        except (AllocationError, NodeLocalError):
            return None  # the search meets the same error and reports it
