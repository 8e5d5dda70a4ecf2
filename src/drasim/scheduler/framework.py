"""One kube-scheduler cycle per pod: PreEnqueue, PreFilter, sampled Filter, Score, tie-break, PostFilter, bind."""

# Determinism. Where kube-scheduler is random, drasim follows documented rules:
# * Tie-break: the feasible nodes are listed in the order the filter scan found them; among those with
#   the highest total score drasim picks top[rng.randrange(len(top))], rng = random.Random(config.seed)
#   owned by the Scheduler and advanced by exactly one draw per scored decision (one feasible node: no
#   scoring, no draw). Upstream 1.36 pops a max-heap whose order among equal totals depends on parallel
#   filtering.
# * Node order: the node tree (scheduler-core §3): nodes grouped by zone key (region and zone labels,
#   zones in order of first appearance), zones interleaved round-robin, insertion order within a zone;
#   without zone labels this is ClusterState.nodes insertion order. The scan is sequential from
#   nextStartNodeIndex (upstream: 16 workers, roughly in order).
# * PostFilter deallocates the first eligible claim in claim order (upstream iterates a Go map).
# * The special extended-resource claim is named <pod>-extended-resources- plus 5 characters of
#   apimachinery's alphabet drawn from SHA-256(seed, namespace, generateName, pod UID, attempt).
#
# Not modelled: InterPodAffinity (no pod (anti-)affinity is evaluated), NodePorts, the volume plugins,
# ImageLocality (nodes carry no image lists, so it would score 0 everywhere), Services in the default
# spread selector, pod-level resources, preemptionPolicy, nominated pods of other cycles, DefaultPreemption's
# evictions (its dry run is evaluated for the message only, see Scheduler._preemption) and the filter
# timeout. The PreBind wait for binding conditions is polled by the simulation engine (binding_check).
#
# Speed. Per node and "plan" (the pods that read nodes the same way: same static filters, requests, claim
# shapes and spread selector, i.e. replicas) the Filter verdict and raw scores are cached until the node
# changes (its pods, or allocations in its pools), in a Plan (plan.py) whose sampled scan works on sorted
# positions; scores are computed per class of equal inputs (ranking.py).
# DynamicResources groups nodes by signature (grouping.py).

from __future__ import annotations

import random
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from drasim import releases
from drasim.allocator import AllocatedState
from drasim.api.core import Node, Pod, PodExtendedResourceClaimStatus, PodStatus
from drasim.api.limits import RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE as MAX_RESERVED_FOR
from drasim.api.meta import ObjectMeta
from drasim.api.resource import (
    AllocationResult,
    ResourceClaim,
    ResourceClaimConsumerReference,
)
from drasim.cluster.podstatus import (
    POD_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    update_pod_condition,
)
from drasim.cluster.state import ClusterState, Key, key_of
from drasim.scheduler import scores as sc
from drasim.scheduler.config import SchedulerConfig
from drasim.scheduler.dra import (
    EXTENDED_ANNOTATION,
    FINALIZER,
    PLUGIN,
    REASON_CANNOT_ALLOCATE,
    REASON_CANNOT_FIT,
    REASON_NOT_AVAILABLE,
    REASON_STALE_EXTENDED,
    REASON_TIMEOUT,
    CycleError,
    DraCaches,
    DraCycle,
    _owned_by,
    binding_outcome,
    generated_name,
    needs_binding_conditions,
    reserved_for_pod,
    resolve_class,
)
from drasim.scheduler.filters import (
    HOSTNAME,
    REASON_AFFINITY,
    REASON_AFFINITY_CONFLICT,
    REASON_SPREAD,
    REASON_SPREAD_LABEL,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    PodStatic,
    Selector,
    Status,
    counts_for_spread,
    fit,
    node_name_restriction,
    parse_selector,
    preferred_score,
    selector_matches,
    untolerated_prefer_no_schedule,
)
from drasim.scheduler.plan import MAX_PLANS, Entry, Plan, SpreadKey
from drasim.scheduler.ranking import NodeScore, Ranking
from drasim.scheduler.resources import (
    CPU,
    MEMORY,
    NodeAccount,
    Vector,
    counts_on_node,
    node_allocatable,
    pod_nonzero,
    pod_requests,
)

SCHEDULED = "Scheduled"
GATED = "Gated"
ERROR = "Error"
NO_NODES = "no nodes available to schedule pods"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
MIN_FEASIBLE = 100
BASE_PERCENTAGE = 50
MIN_PERCENTAGE = 5
_MISSING = object()
# DynamicResources Filter reasons that name nothing of the pod (node-local allocator errors may).
_CONSTANT_DRA_REASONS = frozenset({REASON_CANNOT_ALLOCATE, REASON_NOT_AVAILABLE, REASON_CANNOT_FIT,
                                   REASON_STALE_EXTENDED, REASON_TIMEOUT})
MAX_FAILURES = 8


@dataclass
class ScheduleResult:
    """What one scheduling cycle decided; `Scheduler.apply` writes it into the cluster state."""

    pod: Key
    node: str | None = None
    status: str = UNSCHEDULABLE  # Scheduled | Unschedulable | UnschedulableAndUnresolvable | Error | Gated
    message: str = ""
    allocations: dict[Key, AllocationResult] = field(default_factory=dict)
    extended_claim: ResourceClaim | None = None
    ranking: Ranking | None = None  # the scored feasible nodes (None: no scoring ran)
    # The nodes the scan rejected (also when scheduled), with why; may be shared between results: read only.
    node_statuses: dict[str, Status] = field(default_factory=dict)
    deallocate: list[Key] = field(default_factory=list)
    no_preemption: bool = False
    chosen_subrequests: dict[Key, list[str]] = field(default_factory=dict)
    delete_claims: list[Key] = field(default_factory=list)  # PostFilter: a stale extended-resource claim
    extended_status: PodExtendedResourceClaimStatus | None = None
    binding_wait: bool = False  # PreBind waits for devices' binding conditions: apply does not bind yet
    pod_object: Pod | None = field(default=None, repr=False, compare=False)

    @property
    def scores(self) -> list[NodeScore]:
        """The feasible nodes' scores, best first (equal totals in scan order); [] when no scoring ran."""
        return self.ranking.nodes() if self.ranking is not None else []

    def top_scores(self, k: int) -> list[NodeScore]:
        """The first `k` of `scores`."""
        return self.ranking.top(k) if self.ranking is not None else []

    @property
    def node_reasons(self) -> dict[str, str]:
        """Per rejected node, its reasons as the FitError lists them."""
        return {n: st.message for n, st in self.node_statuses.items()}

    def compact(self, scores_kept: int) -> None:
        """Keep what a finished cycle is still asked for: the top `scores_kept` scores and, when the pod
        stays unscheduled, the rejected nodes (a simulation keeps one result per pod)."""
        if self.ranking is not None:
            self.ranking = self.ranking.truncated(scores_kept)
        if self.node is not None:
            self.node_statuses = {}


def num_feasible_nodes_to_find(num_nodes: int, percentage: int = 0) -> int:
    """numFeasibleNodesToFind (scheduler-core §6)."""
    if num_nodes < MIN_FEASIBLE or percentage >= 100:
        return num_nodes
    pct = percentage
    if pct <= 0:
        pct = max(BASE_PERCENTAGE - num_nodes // 125, MIN_PERCENTAGE)
    return max(num_nodes * pct // 100, MIN_FEASIBLE)


def zone_key(node: Node) -> str:
    """utilnode.GetZoneKey: region and zone labels (stable, else the beta ones)."""
    labels = node.metadata.labels
    zone = labels.get("topology.kubernetes.io/zone", labels.get("failure-domain.beta.kubernetes.io/zone", ""))
    region = labels.get("topology.kubernetes.io/region",
                        labels.get("failure-domain.beta.kubernetes.io/region", ""))
    return "" if not region and not zone else f"{region}:\x00:{zone}"


def node_tree_order(nodes: dict[str, Node]) -> list[str]:
    """The snapshot order: zones in order of first appearance, interleaved round-robin."""
    zones: dict[str, list[str]] = {}
    for name, node in nodes.items():
        zones.setdefault(zone_key(node), []).append(name)
    if len(zones) <= 1:
        return list(nodes)
    lists = list(zones.values())
    out: list[str] = []
    for i in range(max(len(z) for z in lists)):
        out.extend(z[i] for z in lists if i < len(z))
    return out


def priority(pod: Pod) -> int:
    return pod.spec.priority or 0


def _fit_error(num_all: int, statuses: dict[str, Status], absent: tuple[str, ...], prefilter: str,
               postfilter: str) -> str:
    """FitError.Error(): "0/N nodes are available: <histogram>. <PostFilter messages>"."""
    msg = f"0/{num_all} nodes are available:"
    if prefilter:
        msg += f" {prefilter}."
    else:
        counts: dict[str, int] = {}
        for st in statuses.values():
            for reason in st.reasons:
                counts[reason] = counts.get(reason, 0) + 1
        if len(statuses) < num_all:
            for reason in absent:
                counts[reason] = counts.get(reason, 0) + num_all - len(statuses)
        hist = sorted(f"{v} {k}" for k, v in counts.items())
        if hist:
            msg += f" {', '.join(hist)}."
    if postfilter:
        msg += f" {postfilter}"
    return msg


class SelectorIndex:
    """Matching pods per node (and per topology domain) for one (namespace, selector), kept incrementally."""

    def __init__(self, namespace: str, selector: Selector) -> None:
        self.namespace = namespace
        self.selector = selector
        self.by_node: dict[str, int] = {}
        self.domains: dict[str, dict[str, int]] = {}  # topology key -> label value ("" if absent) -> count

    def matches(self, pod: Pod) -> bool:
        return counts_for_spread(pod, self.namespace, self.selector)

    def add(self, node_name: str, node: Node | None, sign: int) -> None:
        self.by_node[node_name] = self.by_node.get(node_name, 0) + sign
        if node is not None:
            labels = node.metadata.labels
            for key, counts in self.domains.items():
                value = labels.get(key, "")
                counts[value] = counts.get(value, 0) + sign


@dataclass
class _Spread:
    """PodTopologySpread for one cycle: filter constraints (DoNotSchedule) and score constraints."""

    filter: list[tuple[str, int, Selector, SelectorIndex]] = field(default_factory=list)
    pair_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    min_match: dict[str, int] = field(default_factory=dict)
    score: list[tuple[str, int, SelectorIndex]] = field(default_factory=list)
    require_all: bool = False


@dataclass
class _Ctx:
    """Per-pod facts for one cycle (upstream CycleState)."""

    pod: Pod
    key: Key
    namespace: str
    static: PodStatic
    req: Vector
    nz: tuple[int, int]
    dra: DraCycle
    dra_backed: frozenset[str]
    static_cache: dict[str, tuple[Node, Status | None, int, int]]
    spread: _Spread
    fit_cache: dict[int, Status | None] = field(default_factory=dict)


class Scheduler:
    """The default kube-scheduler profile (v1.36), one pod at a time, with incremental node caches.

    `schedule_one` does not change the cluster state (only this object's scan position, random draws and
    caches); `apply` writes a result. Keep one Scheduler per ClusterState: its caches follow the state's
    change feeds (`pod_log`, `device_epoch`, `node_version`, the slice cache).
    """

    def __init__(self, config: SchedulerConfig | None = None) -> None:
        self.config = config or SchedulerConfig()
        self._rng = random.Random(self.config.seed)
        self.next_start_node_index = 0
        self._state: ClusterState | None = None
        self._dra = DraCaches()
        # Failed cycles to reuse for identical pods (see reuse_failures); None: off.
        self._failures: list[tuple[tuple[object, ...], ScheduleResult]] | None = None
        self._failures_state: ClusterState | None = None
        # Pods in PreBind (waiting for binding conditions): assumed on their node, as the scheduler cache does.
        self._assumed: dict[Key, str] = {}
        self._reset()

    # --- repeated failures ----------------------------------------------------------------------

    def reuse_failures(self, state: ClusterState | None) -> None:
        """Remember failed cycles while the caller guarantees that `state` changes only through `apply`
        (None: stop, and forget them).

        A pod that reads the cluster exactly as an earlier failed one (same namespace, labels, owners, spec,
        status and unallocated claim specs: replicas) fails the same way while nothing was applied in
        between, so its result is copied instead of computed. Only failures whose text names nothing of
        the pod are remembered (a full Filter scan, no PostFilter effect, no DRA-extended resources).
        """
        self._failures = [] if state is not None else None
        self._failures_state = state

    def _failure_shape(self, state: ClusterState, pod: Pod) -> tuple[object, ...] | None:
        """Everything the cycle reads of the pod and its claims except its name, UID and claim names."""
        meta = pod.metadata
        ns = meta.namespace or "default"
        claims: list[object] = []
        for entry in pod.spec.resource_claims:
            name = state.pod_claim_name(pod, entry.name)
            if name is None:
                claims.append(None)
                continue
            claim = state.claims.get((ns, name))
            if claim is None or claim.metadata.deletion_timestamp is not None:
                return None
            cstatus = claim.status
            if cstatus is not None and (cstatus.allocation is not None or cstatus.reserved_for or cstatus.devices):
                return None
            claims.append((claim.metadata.namespace or "default", _owned_by(claim, pod), claim.spec, cstatus))
        status = pod.status
        rstatus: object = None
        if status is not None:
            rstatus = (msgspec.structs.replace(status, resource_claim_statuses=[], conditions=[]),
                       tuple((c.name, c.resource_claim_name is None) for c in status.resource_claim_statuses))
        return (ns, meta.generate_name, meta.generation, meta.deletion_timestamp, meta.labels, meta.annotations,
                meta.owner_references, meta.finalizers, pod.spec, rstatus, tuple(claims))

    def _remember_failure(self, shape: tuple[object, ...] | None, ctx: _Ctx, result: ScheduleResult,
                          statuses: dict[str, Status]) -> None:
        failures = self._failures
        if failures is None or shape is None:
            return
        dra = ctx.dra
        if dra.ext or dra.special is not None or dra.allocated or result.deallocate or result.delete_claims \
                or result.allocations or result.ranking is not None or result.extended_claim is not None \
                or result.status not in (UNSCHEDULABLE, UNRESOLVABLE):
            return
        for st in statuses.values():
            if st.plugin == PLUGIN and (len(st.reasons) != 1 or st.reasons[0] not in _CONSTANT_DRA_REASONS):
                return
        if len(failures) >= MAX_FAILURES:
            failures.pop(0)
        failures.append((shape, result))

    # --- caches ---------------------------------------------------------------------------------

    def _reset(self) -> None:
        self._node_version = -1
        self._node_ids: list[int] = []
        self._names: list[str] = []
        self._pos: dict[str, int] = {}  # node name -> position in _names (the scan order)
        self._alloc: dict[str, Vector] = {}
        self._alloc_id: dict[str, int] = {}
        self._interned: dict[tuple[object, ...], int] = {}
        self._accounts: dict[str, NodeAccount] = {}
        self._contrib: dict[Key, tuple[str, Vector, tuple[int, int], Pod]] = {}
        self._node_pods: dict[str, set[Key]] = {}
        self._priorities: dict[int, int] = {}  # bound pods per priority
        self._log_pos = 0
        self._pods_len = -1
        self._static: dict[tuple[object, ...], dict[str, tuple[Node, Status | None, int, int]]] = {}
        self._indexes: dict[tuple[str, Selector], SelectorIndex] = {}
        self._owners: tuple[int, dict[tuple[str, str, str], Any]] = (-1, {})
        self._plans: dict[tuple[object, ...], Plan] = {}
        self._dirty: list[str] = []
        self._device_pos = 0

    def _intern(self, value: tuple[object, ...]) -> int:
        found = self._interned.get(value)
        if found is None:
            found = self._interned[value] = len(self._interned)
        return found

    def _rekey(self, name: str) -> None:
        acct = self._accounts.get(name)
        if acct is None:
            acct = self._accounts[name] = NodeAccount()
        acct.key = self._intern((self._alloc_id.get(name, -1), acct.state()))

    def _sync(self, state: ClusterState) -> None:
        if state is not self._state:
            self._state = state
            self._assumed.clear()
            self._reset()
        if state.node_version != self._node_version or len(state.nodes) != len(self._names):
            self._node_version = state.node_version
            self._names = node_tree_order(state.nodes)
            self._pos = {name: i for i, name in enumerate(self._names)}
            self._alloc = {n: node_allocatable(node) for n, node in state.nodes.items()}
            self._alloc_id = {n: self._intern(("alloc", tuple(sorted(a.items())))) for n, a in self._alloc.items()}
            self._static.clear()
            for idx in self._indexes.values():
                self._fill_domains(idx, list(idx.domains))
            for name in set(self._accounts) | set(state.nodes):
                self._rekey(name)
            self._plans.clear()
        log = state.pod_log
        if self._pods_len < 0 or (self._log_pos == len(log) and len(state.pods) != self._pods_len):
            self._rebuild_pods(state)
        else:
            touched: set[str] = set()
            for key in log[self._log_pos:]:
                touched |= self._update_pod(state, key)
            for name in touched:
                self._rekey(name)
            self._dirty.extend(touched)
        self._log_pos = len(log)
        self._pods_len = len(state.pods)
        devices = state.device_log
        if self._device_pos < len(devices):
            pool_nodes = self._dra.pool_nodes
            for pool in set(devices[self._device_pos:]):
                self._dirty.extend(pool_nodes.get(pool, ()))
            self._device_pos = len(devices)

    def _rebuild_pods(self, state: ClusterState) -> None:
        self._accounts = {}
        self._contrib = {}
        self._node_pods = {}
        self._priorities = {}
        for idx in self._indexes.values():
            idx.by_node.clear()
            for counts in idx.domains.values():
                counts.clear()
        for key in state.pods:
            self._update_pod(state, key)
        for name in set(self._accounts) | set(state.nodes):
            self._rekey(name)
        self._plans.clear()

    def _update_pod(self, state: ClusterState, key: Key) -> set[str]:
        touched: set[str] = set()
        old = self._contrib.pop(key, None)
        if old is not None:
            node_name, req, nz, old_pod = old
            self._accounts[node_name].add(req, nz, -1)
            self._priorities[priority(old_pod)] -= 1
            self._node_pods[node_name].discard(key)
            touched.add(node_name)
            for idx in self._indexes.values():
                if idx.matches(old_pod):
                    idx.add(node_name, state.nodes.get(node_name), -1)
        pod = state.pods.get(key)
        assumed = self._assumed.get(key) if self._assumed else None
        if pod is not None and (counts_on_node(pod) or assumed):
            node_name = pod.spec.node_name or assumed or ""
            req, nz = pod_requests(pod), pod_nonzero(pod)
            acct = self._accounts.get(node_name)
            if acct is None:
                acct = self._accounts[node_name] = NodeAccount()
            acct.add(req, nz, +1)
            self._node_pods.setdefault(node_name, set()).add(key)
            prio = priority(pod)
            self._priorities[prio] = self._priorities.get(prio, 0) + 1
            # A snapshot of what the indexes counted, so a later in-place edit can be undone exactly.
            snap = Pod(metadata=ObjectMeta(name=pod.metadata.name, namespace=pod.metadata.namespace,
                                           labels=dict(pod.metadata.labels),
                                           deletion_timestamp=pod.metadata.deletion_timestamp),
                       spec=msgspec.structs.replace(pod.spec), status=pod.status)
            self._contrib[key] = (node_name, req, nz, snap)
            touched.add(node_name)
            for idx in self._indexes.values():
                if idx.matches(pod):
                    idx.add(node_name, state.nodes.get(node_name), +1)
        return touched

    def _index(self, namespace: str, selector: Selector) -> SelectorIndex:
        found = self._indexes.get((namespace, selector))
        if found is None:
            state = self._state
            assert state is not None
            found = self._indexes[(namespace, selector)] = SelectorIndex(namespace, selector)
            for node_name, _req, _nz, snap in self._contrib.values():
                if found.matches(snap):
                    found.add(node_name, None, +1)
        return found

    def _fill_domains(self, idx: SelectorIndex, keys: list[str]) -> None:
        state = self._state
        assert state is not None
        for key in keys:
            counts: dict[str, int] = {}
            for node_name, n in idx.by_node.items():
                node = state.nodes.get(node_name)
                if node is not None and n:
                    value = node.metadata.labels.get(key, "")
                    counts[value] = counts.get(value, 0) + n
            idx.domains[key] = counts

    # --- queue ----------------------------------------------------------------------------------

    @staticmethod
    def queue_order(state: ClusterState, pods: list[Pod]) -> list[Pod]:
        """PrioritySort: higher `spec.priority` first, then earlier arrival (`state.arrival`)."""
        def order(p: Pod) -> tuple[int, int]:
            return (-priority(p), state.arrival.get(key_of(p), 1 << 62))
        return sorted(pods, key=order)

    # --- one cycle ------------------------------------------------------------------------------

    def schedule_one(self, state: ClusterState, pod: Pod) -> ScheduleResult:
        """Run one scheduling cycle for the pod against the current state."""
        key = key_of(pod)
        if self._failures and state is self._failures_state:
            shape = self._failure_shape(state, pod)
            if shape is not None:
                for seen, failed in self._failures:
                    if seen == shape:
                        # The cycle scanned every node: the scan position moves by the node count.
                        self.next_start_node_index = (self.next_start_node_index + len(self._names)) % len(
                            self._names)
                        return ScheduleResult(pod=key, status=failed.status, message=failed.message,
                                              node_statuses=failed.node_statuses,
                                              no_preemption=failed.no_preemption, pod_object=pod)
        self._sync(state)
        result = ScheduleResult(pod=key, pod_object=pod)
        dra = DraCycle(state, pod, self._dra, self.config.extended_resources, self.config.binding_timeout_seconds,
                       max_steps=self.config.filter_budget_steps)
        gated = dra.pre_enqueue()
        if gated is not None:
            result.status, result.message = GATED, gated
            return result
        names = self._names
        if not names:
            result.status, result.message = UNRESOLVABLE, NO_NODES
            return result
        ctx = self._context(state, pod, key, dra)

        # PreFilter, in plugin order: NodeAffinity, NodeResourcesFit, PodTopologySpread, DynamicResources.
        restricted = node_name_restriction(ctx.static.required)
        if restricted is not None and not restricted:
            return self._unschedulable(result, ctx, {}, (), prefilter=REASON_AFFINITY_CONFLICT)
        self._spread_prefilter(ctx)
        pre = dra.pre_filter(ctx.req)
        if pre.error is not None:
            result.status = ERROR
            result.message = f'running PreFilter plugin "{PLUGIN}": {pre.error}'
            return result
        if pre.reject is not None:
            return self._unschedulable(result, ctx, {}, (), prefilter=pre.reject)
        ctx.dra_backed = frozenset(n for n in dra.ext if resolve_class(state.classes, n) is not None)

        try:
            nominated = pod.status.nominated_node_name if pod.status is not None else None
            if nominated and nominated in state.nodes and self._filter(ctx, nominated) is None:
                return self._bind(result, ctx, nominated)
            candidates: list[int] | None = None
            absent: tuple[str, ...] = ()
            if restricted is not None:
                candidates = [i for i, n in enumerate(names) if n in restricted]
                absent = ("node(s) didn't satisfy plugin(s) [NodeAffinity]",)
            plan = self._plan(ctx)
            feasible, classes, statuses = self._scan(ctx, plan, candidates, len(names))
            result.node_statuses = statuses
            if not feasible:
                self._unschedulable(result, ctx, statuses, absent)
                if self._failures is not None and state is self._failures_state and restricted is None \
                        and len(statuses) == len(names):
                    self._remember_failure(self._failure_shape(state, pod), ctx, result, statuses)
                return result
            if len(feasible) == 1:
                return self._bind(result, ctx, feasible[0])
            ranking = result.ranking = self._score(ctx, plan, feasible, classes)
            ties = ranking.best()  # in scan order
            chosen = feasible[ties[self._rng.randrange(len(ties))]]
            return self._bind(result, ctx, chosen)
        except CycleError as err:
            result.status, result.message = ERROR, str(err)
            result.node, result.allocations, result.extended_claim = None, {}, None
            result.ranking = None
            return result

    def filters_before_dra(self, state: ClusterState, pod: Pod) -> dict[str, Status | None]:
        """Per node, the first rejection by the filters that run before DynamicResources (NodeUnschedulable,
        NodeName, TaintToleration, NodeAffinity, NodeResourcesFit, PodTopologySpread), with the pod's
        PreFilter facts as `schedule_one` computes them; None: the node passes them. Changes nothing."""
        key = key_of(pod)
        self._sync(state)
        dra = DraCycle(state, pod, self._dra, self.config.extended_resources, self.config.binding_timeout_seconds)
        dra.pre_enqueue()
        ctx = self._context(state, pod, key, dra)
        restricted = node_name_restriction(ctx.static.required)
        self._spread_prefilter(ctx)
        if dra.pre_filter(ctx.req).error is None:
            ctx.dra_backed = frozenset(n for n in dra.ext if resolve_class(state.classes, n) is not None)
        out: dict[str, Status | None] = {}
        for name in self._names:
            if restricted is not None and name not in restricted:
                out[name] = Status(UNRESOLVABLE, (REASON_AFFINITY,), "NodeAffinity")
            else:
                out[name] = self._filter(ctx, name, dra=False)
        return out

    def _context(self, state: ClusterState, pod: Pod, key: Key, dra: DraCycle) -> _Ctx:
        static = PodStatic(pod)
        cache = self._static.get(static.key)
        if cache is None:
            cache = self._static[static.key] = {}
        return _Ctx(pod=pod, key=key, namespace=key[0], static=static, req=pod_requests(pod), nz=pod_nonzero(pod),
                    dra=dra, dra_backed=frozenset(), static_cache=cache, spread=_Spread())

    def _plan(self, ctx: _Ctx) -> Plan:
        """The plan for pods that read nodes as this one does (a fresh one when it cannot be shared)."""
        dra = ctx.dra
        generation = self._dra.generation
        cursor = len(self._dirty)
        if dra.allocated or ctx.spread.filter or (dra.special is not None and not dra.special_template):
            return Plan(cursor, generation, len(self._names))  # per-pod inputs (allocated claims, global spread counts)
        dra_key: tuple[object, ...] = ()
        if dra.active:
            shape = dra.batch(())[1]
            containers: tuple[object, ...] = ()
            if dra.special is not None:  # the special claim's requests follow the containers' own requests
                containers = tuple(tuple(sorted((k, str(q)) for k, q in c.resources.requests.items() if k in dra.ext))
                                   for c in ctx.pod.spec.init_containers + ctx.pod.spec.containers)
            dra_key = (shape.id if shape is not None else -1, dra.special is not None,
                       tuple(sorted(dra.ext.items())), containers)
        key = (ctx.static.key, tuple(sorted(ctx.req.items())), ctx.nz, ctx.dra_backed, dra_key,
               tuple((k, skew, id(idx)) for k, skew, idx in ctx.spread.score))
        plan = self._plans.get(key)
        if plan is None or plan.generation != generation:
            if len(self._plans) >= MAX_PLANS:
                self._plans.pop(next(iter(self._plans)))
            plan = self._plans[key] = Plan(cursor, generation, len(self._names))
            return plan
        pos = self._pos
        for name in self._dirty[plan.cursor:]:
            p = pos.get(name)
            if p is not None:
                plan.forget(p)
        plan.cursor = cursor
        return plan

    def _entry(self, ctx: _Ctx, plan: Plan, name: str) -> Entry:
        """Filter one node and, if it passes, its score class (cached in the plan until the node changes)."""
        st = self._filter(ctx, name)
        if st is not None:
            return (st, -1)
        labels = self._state.nodes[name].metadata.labels  # type: ignore[union-attr]
        spread = tuple(None if k not in labels else idx.by_node.get(name, 0) if k == HOSTNAME else labels[k]
                       for k, _s, idx in ctx.spread.score)
        sv = ctx.static_cache[name]
        acct = self._accounts[name]
        fm = plan.fit_memo.get(acct.key)
        if fm is None:
            alloc = self._alloc[name]
            ac, am = alloc.get(CPU, 0), alloc.get(MEMORY, 0)
            real_cpu, real_mem = ctx.req.get(CPU, 0), ctx.req.get(MEMORY, 0)
            fm = plan.fit_memo[acct.key] = (
                sc.least_allocated(ac, am, acct.nz_cpu + ctx.nz[0], acct.nz_mem + ctx.nz[1]),
                sc.balanced_allocation(ac, am, acct.requested.get(CPU, 0), acct.requested.get(MEMORY, 0),
                                       real_cpu, real_mem))
        dra_raw = 0
        chosen = ctx.dra.chosen_for_score(name)
        if chosen is not None:
            found = plan.dra_memo.get(chosen)
            if found is None:
                features = self._state.features  # type: ignore[union-attr]
                if releases.scores_stored_allocations(features.release):
                    found = sc.dra_raw_stored(ctx.dra.claims, chosen, features.prioritized_list)
                else:
                    try:
                        found = sc.dra_raw(ctx.dra.claims, chosen)
                    except sc.ScoreError:
                        found = -1  # raised when scoring happens (upstream fails the Score plugin)
                plan.dra_memo[chosen] = found
            dra_raw = found
        return (None, plan.score_class((sv[2], sv[3], fm[0], fm[1], dra_raw), spread))

    def _scan(self, ctx: _Ctx, plan: Plan, candidates: list[int] | None, num_all: int
              ) -> tuple[list[str], list[int], dict[str, Status]]:
        """findNodesThatPassFilters: from nextStartNodeIndex until enough feasible nodes were found
        (`candidates`: positions of the only nodes to consider, None: every node)."""
        n = num_all if candidates is None else len(candidates)
        want = n if self.config.score_all_nodes else num_feasible_nodes_to_find(
            n, self.config.percentage_of_nodes_to_score)
        start = self.next_start_node_index % n

        def evaluate(name: str) -> Entry:
            return self._entry(ctx, plan, name)

        if candidates is None:
            feasible, classes, statuses = plan.scan(self._names, want, start, evaluate)
        else:
            feasible, classes, statuses = plan.scan_subset(self._names, candidates, want, start, evaluate)
        self.next_start_node_index = (self.next_start_node_index + len(feasible) + len(statuses)) % num_all
        return feasible, classes, statuses

    def _filter(self, ctx: _Ctx, name: str, acct: NodeAccount | None = None,
                victims: list[Key] | None = None, dra: bool = True) -> Status | None:
        """The filter chain on one node, stopping at the first rejection (`acct`/`victims`: a preemption
        dry run with those pods removed from the node)."""
        state = self._state
        assert state is not None
        node = state.nodes[name]
        sv = ctx.static_cache.get(name)
        if sv is None or sv[0] is not node:
            sv = (node, ctx.static.verdict(node),
                  untolerated_prefer_no_schedule(ctx.static.tolerations, node.spec.taints),
                  preferred_score(ctx.static.preferred, node) if ctx.static.preferred else 0)
            ctx.static_cache[name] = sv
        if sv[1] is not None:
            return sv[1]
        alloc = self._alloc[name]
        if acct is None:
            acct = self._accounts.get(name)
            if acct is None:
                self._rekey(name)
                acct = self._accounts[name]
            fv = ctx.fit_cache.get(acct.key, _MISSING)
            if fv is _MISSING:
                fv = ctx.fit_cache[acct.key] = fit(ctx.req, alloc, acct, ctx.dra_backed)
        else:
            fv = fit(ctx.req, alloc, acct, ctx.dra_backed)
        if fv is not None:
            return fv  # type: ignore[return-value]
        if ctx.spread.filter:
            minus: dict[SelectorIndex, int] = {}
            for _k, _skew, _sel, idx in ctx.spread.filter:
                minus[idx] = sum(1 for v in victims or () if idx.matches(self._contrib[v][3]))
            st = self._spread_filter(ctx, node, minus)
            if st is not None:
                return st
        if dra and ctx.dra.active:
            return ctx.dra.filter(node, alloc)
        return None

    # --- PodTopologySpread ----------------------------------------------------------------------

    def _owner_selector(self, state: ClusterState, pod: Pod) -> tuple[tuple[str, str, frozenset[str]], ...]:
        """helper.DefaultSelector without Services: the controller ReplicaSet/StatefulSet/RC's selector."""
        owner = next((r for r in pod.metadata.owner_references if r.controller), None)
        if owner is None:
            return ()
        kinds = {("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"), ("v1", "ReplicationController")}
        if (owner.api_version, owner.kind) not in kinds:
            return ()
        if self._owners[0] != len(state.workloads):
            self._owners = (len(state.workloads), {
                (w.KIND, w.metadata.namespace or "default", w.metadata.name): w for w in state.workloads})
        workload = self._owners[1].get((owner.kind, pod.metadata.namespace or "default", owner.name))
        if workload is None:
            return ()
        selector = workload.spec.selector
        if owner.kind == "ReplicationController" and isinstance(selector, dict) and "matchLabels" not in selector \
                and "matchExpressions" not in selector:
            selector = {"matchLabels": selector}  # an RC's selector is a plain label map
        return parse_selector(selector) or ()

    def _spread_prefilter(self, ctx: _Ctx) -> None:
        state = self._state
        assert state is not None
        pod = ctx.pod
        spread = ctx.spread
        own = pod.spec.topology_spread_constraints
        for c in own:
            if c.when_unsatisfiable == "DoNotSchedule":
                sel = parse_selector(c.label_selector)
                spread.filter.append((c.topology_key, c.max_skew, sel, self._index(ctx.namespace, sel)))
        if own:
            spread.require_all = True
            for c in own:
                if c.when_unsatisfiable == "ScheduleAnyway":
                    sel = parse_selector(c.label_selector)
                    spread.score.append((c.topology_key, c.max_skew, self._index(ctx.namespace, sel)))
        else:
            sel = self._owner_selector(state, pod)
            if sel:
                idx = self._index(ctx.namespace, sel)
                spread.score = [(HOSTNAME, 3, idx), ("topology.kubernetes.io/zone", 5, idx)]
        if not spread.filter:
            return
        keys = [c[0] for c in spread.filter]
        domains: dict[str, set[str]] = {k: set() for k in keys}
        for name, node in state.nodes.items():
            labels = node.metadata.labels
            if any(k not in labels for k in keys) or not ctx.static.affinity_matches(node):
                continue
            for key, _skew, _sel, idx in spread.filter:
                pair = (key, labels[key])
                domains[key].add(labels[key])
                spread.pair_counts[pair] = spread.pair_counts.get(pair, 0) + idx.by_node.get(name, 0)
        for key in keys:
            counts = [spread.pair_counts[(key, v)] for v in domains[key]]
            spread.min_match[key] = min(counts) if counts else 0  # minDomains is 1

    def _spread_filter(self, ctx: _Ctx, node: Node, minus: dict[SelectorIndex, int] | None = None) -> Status | None:
        labels = node.metadata.labels
        for key, max_skew, sel, idx in ctx.spread.filter:
            if key not in labels:
                return Status(UNRESOLVABLE, (REASON_SPREAD_LABEL,), "PodTopologySpread")
            self_match = 1 if selector_matches(sel, ctx.pod.metadata.labels) else 0
            count = ctx.spread.pair_counts.get((key, labels[key]), 0) - (minus or {}).get(idx, 0)
            if count + self_match - ctx.spread.min_match.get(key, 0) > max_skew:
                return Status(UNSCHEDULABLE, (REASON_SPREAD,), "PodTopologySpread")
        return None

    def _spread_raw(self, ctx: _Ctx, keys: list[SpreadKey], sizes: list[int]) -> tuple[list[int], list[bool]]:
        """PodTopologySpread PreScore + Score, per distinct spread key of the feasible nodes (`sizes`: how
        many feasible nodes have each key)."""
        state = self._state
        assert state is not None
        spread = ctx.spread
        ignored = [spread.require_all and None in k for k in keys]
        kept = sum(n for n, ign in zip(sizes, ignored, strict=True) if not ign)
        weights = []
        domain: list[dict[str, int]] = []
        plain = not spread.require_all and not ctx.static.node_selector and ctx.static.required is None
        topo = [c[0] for c in spread.score]
        for c, (key, _skew, idx) in enumerate(spread.score):
            if key == HOSTNAME:
                weights.append(sc.spread_weight(kept))
                domain.append({})
                continue
            # A feasible node without the label still opens the "" domain (upstream reads a missing label as "").
            values = {str(k[c]) if k[c] is not None else "" for k, ign in zip(keys, ignored, strict=True)
                      if not ign}
            weights.append(sc.spread_weight(len(values)))
            if plain:
                if key not in idx.domains:
                    self._fill_domains(idx, [key])
                counts = idx.domains[key]
                domain.append({v: counts.get(v, 0) for v in values})
                continue
            acc = dict.fromkeys(values, 0)
            for node_name, cnt in idx.by_node.items():
                node = state.nodes.get(node_name)
                if node is None or not cnt:
                    continue
                node_labels = node.metadata.labels
                if spread.require_all and any(k not in node_labels for k in topo):
                    continue
                if not ctx.static.affinity_matches(node):
                    continue
                value = node_labels.get(key, "")
                if value in acc:
                    acc[value] += cnt
            domain.append(acc)
        skews = [c[1] for c in spread.score]
        raws = []
        for k, ign in zip(keys, ignored, strict=True):
            if ign:
                raws.append(0)
                continue
            terms = []
            for c, v in enumerate(k):
                if v is None:
                    continue
                cnt = v if isinstance(v, int) else domain[c][v]
                terms.append((cnt, skews[c], weights[c]))
            raws.append(sc.spread_raw(terms))
        return raws, ignored

    # --- scoring --------------------------------------------------------------------------------

    def _score(self, ctx: _Ctx, plan: Plan, feasible: list[str], classes: list[int]) -> Ranking:
        """Run the score plugins on the feasible nodes, normalise, weight and sort (best first).

        Work is per score class (nodes with the same raw scores and spread inputs); normalising over the
        classes present is normalising over the feasible nodes.
        """
        sizes = Counter(classes)  # nodes per class, classes in order of first appearance
        present = list(sizes)
        keys = [plan.classes[c] for c in present]
        raws = [plan.raws[rid] for rid, _k in keys]
        for c, raw in zip(present, raws, strict=True):
            if raw[4] < 0:  # the positional pairing failed (scores.dra_raw): the Score plugin errs
                name = feasible[classes.index(c)]
                node = self._state.nodes[name]  # type: ignore[union-attr]
                ctx.dra.filter(node, self._alloc[name])
                try:
                    sc.dra_raw(ctx.dra.claims, ctx.dra.chosen_for_score(name) or ())
                except sc.ScoreError as err:
                    raise CycleError(f'running Score plugins: plugin "{PLUGIN}" failed with: {err}') from None
        spread = bool(ctx.spread.score)
        if spread:
            spread_raw, ignored = self._spread_raw(ctx, [k for _r, k in keys], [sizes[c] for c in present])
            spread_n = sc.spread_normalize(spread_raw, ignored)
        taint_n = sc.default_normalize([r[0] for r in raws], reverse=True)
        aff_n = sc.default_normalize([r[1] for r in raws]) if ctx.static.preferred else None
        dra_n = sc.default_normalize([r[4] for r in raws])
        balanced = bool(ctx.req.get(CPU, 0) or ctx.req.get(MEMORY, 0))
        w = sc.WEIGHTS
        totals: dict[int, int] = {}
        by_class: dict[int, dict[str, int]] = {}
        for j, c in enumerate(present):
            raw = raws[j]
            plugins = {sc.TAINT: w[sc.TAINT] * taint_n[j]}
            if aff_n is not None:
                plugins[sc.AFFINITY] = w[sc.AFFINITY] * aff_n[j]
            plugins[sc.FIT] = w[sc.FIT] * raw[2]
            if spread:
                plugins[sc.SPREAD] = w[sc.SPREAD] * spread_n[j]
            plugins[sc.DRA] = w[sc.DRA] * dra_n[j]
            if balanced:
                plugins[sc.BALANCED] = w[sc.BALANCED] * raw[3]
            by_class[c] = plugins
            totals[c] = sum(plugins.values())
        return Ranking(feasible, classes, totals, by_class)

    # --- outcomes -------------------------------------------------------------------------------

    def _bind(self, result: ScheduleResult, ctx: _Ctx, name: str) -> ScheduleResult:
        """Reserve + PreBind checks on the chosen node (no state changes: `apply` writes them)."""
        state = self._state
        assert state is not None
        dra = ctx.dra
        pod = ctx.pod
        node = state.nodes[name]
        for claim, allocation in dra.allocate(node, self._alloc[name]):
            if claim.metadata.name == "<extended-resources>":
                final = self._extended_claim(state, ctx, claim)
                result.extended_claim = final
                ckey = (ctx.namespace, final.metadata.name)
                result.extended_status = PodExtendedResourceClaimStatus(
                    resource_claim_name=final.metadata.name, request_mappings=dra.request_mappings(claim))
            else:
                ckey = key_of(claim)
            result.allocations[ckey] = allocation
            picked: list[str] = []
            for r in allocation.devices.results:
                if "/" in r.request and r.request not in picked:
                    picked.append(r.request)
            if picked:
                result.chosen_subrequests[ckey] = picked
        for claim in dra.claims:
            if claim.metadata.name == "<extended-resources>" or reserved_for_pod(claim, pod):
                continue
            status = claim.status
            have = len(status.reserved_for) if status is not None else 0
            if have + 1 > MAX_RESERVED_FOR:
                verb = "add allocation and reservation" if key_of(claim) in result.allocations else "add reservation"
                result.status = ERROR
                result.message = (
                    f'running PreBind plugin "{PLUGIN}": {verb} to claim {ctx.namespace}/{claim.metadata.name}: '
                    f'ResourceClaim.resource.k8s.io "{claim.metadata.name}" is invalid: status.reservedFor: '
                    f"Too many: {have + 1}: must have at most {MAX_RESERVED_FOR} items")
                result.allocations, result.extended_claim, result.extended_status = {}, None, None
                result.chosen_subrequests = {}
                return result
        result.node = name
        result.status = SCHEDULED
        result.message = f"Successfully assigned {ctx.key[0]}/{ctx.key[1]} to {name}"
        if state.features.device_binding_and_status:
            allocations = [*result.allocations.values(),
                           *(c.status.allocation for c in dra.claims if c.status is not None)]
            result.binding_wait = any(needs_binding_conditions(a) for a in allocations)
        return result

    def _extended_claim(self, state: ClusterState, ctx: _Ctx, variant: ResourceClaim) -> ResourceClaim:
        meta = variant.metadata
        base = meta.generate_name or f"{ctx.pod.metadata.name}-extended-resources-"
        name = generated_name(state, ctx.namespace, base, self.config.seed, ctx.pod.metadata.uid or "")
        uid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"drasim:{self.config.seed}:claim:{ctx.namespace}/{name}"))
        return ResourceClaim(
            metadata=ObjectMeta(name=name, namespace=ctx.namespace, generate_name=base, uid=uid,
                                annotations={EXTENDED_ANNOTATION: "true"},
                                owner_references=list(meta.owner_references), finalizers=[FINALIZER]),
            spec=variant.spec)

    def _unschedulable(self, result: ScheduleResult, ctx: _Ctx, statuses: dict[str, Status],
                       absent: tuple[str, ...], prefilter: str = "") -> ScheduleResult:
        """PostFilter (DynamicResources, then DefaultPreemption) and the FitError message."""
        state = self._state
        assert state is not None
        num_all = len(self._names)
        dra = ctx.dra
        post = [self._dra_postfilter(result, ctx)]
        # Nodes without a status (PreFilter rejected the pod, or excluded them) count as unresolvable.
        preemption = self._preemption(ctx, {} if prefilter else statuses, UNRESOLVABLE)
        if preemption is not None:
            post.append(preemption)
            result.message = _fit_error(num_all, statuses, absent, prefilter, ", ".join(post))
        else:
            # DefaultPreemption found victims: upstream nominates a node and the PostFilter message is empty.
            result.message = _fit_error(num_all, statuses, absent, prefilter, "")
        resolvable = not prefilter and any(st.code == UNSCHEDULABLE for st in statuses.values())
        result.status = UNSCHEDULABLE if resolvable else UNRESOLVABLE
        if dra.active and self._blocked_by_lower_priority(ctx, statuses):
            result.no_preemption = True
            result.message += (" (drasim: a higher priority does not help: the devices this pod needs are held by "
                               "lower-priority pods, and DynamicResources does not preempt)")
        return result

    def _dra_postfilter(self, result: ScheduleResult, ctx: _Ctx) -> str:
        dra = ctx.dra
        if not dra.active:
            return "no new claims to deallocate"
        pod = ctx.pod
        special_real = dra.special is not None and not dra.special_template
        for index in sorted(dra.unavailable):
            claim = dra.claims[index]
            if claim is dra.special:
                if special_real:
                    break
                continue
            reserved = claim.status.reserved_for if claim.status is not None else []
            if not reserved or (len(reserved) == 1 and reserved_for_pod(claim, pod)):
                result.deallocate.append(key_of(claim))
                return "deallocation of ResourceClaim completed"
        if special_real and dra.special is not None:
            result.delete_claims.append(key_of(dra.special))
            return "deletion of ResourceClaim completed"
        return "still not schedulable"

    def _preemption(self, ctx: _Ctx, statuses: dict[str, Status], absent_code: str) -> str | None:
        """DefaultPreemption's dry run (scheduler-core §11): the message, or None when victims exist.

        Nodes rejected as UnschedulableAndUnresolvable (every DynamicResources rejection) are never
        candidates; on the others every lower-priority pod is removed and the filters run again (claims
        stay allocated: removing pods frees no devices).
        """
        state = self._state
        assert state is not None
        prio = priority(ctx.pod)
        counts: dict[str, int] = {}
        candidate = False
        for name in self._names:
            st = statuses.get(name)
            code = st.code if st is not None else absent_code
            if code != UNSCHEDULABLE:
                reasons: tuple[str, ...] = (NOT_HELPFUL,)
            else:
                victims = [k for k in self._node_pods.get(name, ()) if priority(state.pods[k]) < prio]
                if not victims:
                    reasons = (NO_VICTIMS,)
                else:
                    after = self._without(name, victims)
                    st2 = self._filter(ctx, name, acct=after, victims=victims)
                    if st2 is None:
                        candidate = True
                        break
                    reasons = st2.reasons
            for r in reasons:
                counts[r] = counts.get(r, 0) + 1
        if candidate:
            return None
        hist = sorted(f"{v} {k}" for k, v in counts.items())
        return f"preemption: 0/{len(self._names)} nodes are available: {', '.join(hist)}."

    def _without(self, name: str, victims: list[Key]) -> NodeAccount:
        acct = NodeAccount()
        base = self._accounts[name]
        acct.requested = dict(base.requested)
        acct.nz_cpu, acct.nz_mem, acct.npods = base.nz_cpu, base.nz_mem, base.npods
        for k in victims:
            _node, req, nz, _snap = self._contrib[k]
            acct.add(req, nz, -1)
        return acct

    def _blocked_by_lower_priority(self, ctx: _Ctx, statuses: dict[str, Status]) -> bool:
        """Would some node rejected by DynamicResources fit if lower-priority pods released their claims?"""
        state = self._state
        assert state is not None
        dra_nodes = [n for n, st in statuses.items() if st.plugin == PLUGIN]
        if not dra_nodes:
            return False
        prio = priority(ctx.pod)
        if not any(n and p < prio for p, n in self._priorities.items()):
            return False  # no bound pod has a lower priority
        held: set[Key] = set()
        for ckey, claim in state.claims.items():
            status = claim.status
            if status is None or status.allocation is None or not status.reserved_for:
                continue
            consumers = [state.pods.get((ckey[0], r.name)) for r in status.reserved_for if r.resource == "pods"]
            if consumers and all(p is not None and priority(p) < prio for p in consumers):
                held.add(ckey)
        if not held:
            return False
        held_pools = {(r.driver, r.pool) for k in held
                      for r in state.claims[k].status.allocation.devices.results}  # type: ignore[union-attr]
        cache = state.slice_cache()
        dra_nodes = [n for n in dra_nodes
                     if held_pools.intersection(self._dra.devices(cache, state.nodes[n], state).pools)]
        if not dra_nodes:
            return False
        freed = AllocatedState()
        for ckey, claim in state.claims.items():
            if ckey in held or claim.status is None or claim.status.allocation is None:
                continue
            freed.add_allocation(claim.status.allocation,
                                 consumable_capacity=state.features.consumable_capacity)
        probe = DraCycle(state, ctx.pod, DraCaches(), self.config.extended_resources,
                         self.config.binding_timeout_seconds, in_use=freed,
                         max_steps=self.config.filter_budget_steps)
        if probe.pre_enqueue() is not None or probe.pre_filter(ctx.req).reject is not None:
            return False
        for name in dra_nodes:
            try:
                if probe.filter(state.nodes[name], self._alloc[name]) is None:
                    return True
            except CycleError:
                return False
        return False

    # --- apply ----------------------------------------------------------------------------------

    def apply(self, state: ClusterState, result: ScheduleResult) -> None:
        """Reserve + PreBind + Bind for a scheduled pod, or the PostFilter effects for an unscheduled one."""
        if self._failures and (result.status == SCHEDULED or result.deallocate or result.delete_claims):
            self._failures.clear()  # the state changes: remembered failures may no longer hold
        if result.status != SCHEDULED:
            for key in result.deallocate:
                if key in state.claims:
                    state.set_allocation(key, None)
            for key in result.delete_claims:
                state.delete_claim(key)
            failed = state.pods.get(result.pod)
            if failed is not None and result.status != GATED:  # handleSchedulingFailure's condition
                reason = REASON_SCHEDULER_ERROR if result.status == ERROR else REASON_UNSCHEDULABLE
                update_pod_condition(failed, POD_SCHEDULED, "False", state.now, reason=reason,
                                     message=result.message)
            return
        pod = state.pods.get(result.pod) or result.pod_object
        assert pod is not None and result.node is not None
        binding = state.features.device_binding_and_status
        if result.extended_claim is not None:
            state.add(result.extended_claim)
        uid = pod.metadata.uid or ""
        consumer = ResourceClaimConsumerReference(resource="pods", name=pod.metadata.name, uid=uid)
        keys = [k for k in (self._pod_claim_keys(state, pod)) if k in state.claims]
        if result.extended_claim is not None:
            keys.append(key_of(result.extended_claim))
        for ckey in keys:
            claim = state.claims[ckey]
            if reserved_for_pod(claim, pod):
                continue
            allocation = result.allocations.get(ckey)
            if allocation is not None:
                if FINALIZER not in claim.metadata.finalizers:
                    claim.metadata.finalizers = [*claim.metadata.finalizers, FINALIZER]
                state.set_allocation(ckey, allocation)
            status = claim.status
            if status is None or status.allocation is None:
                continue
            if binding and status.allocation.allocation_timestamp is None:
                status.allocation.allocation_timestamp = state.now
            status.reserved_for = [*status.reserved_for, consumer]
        if result.extended_status is not None:
            if pod.status is None:
                pod.status = PodStatus()
            pod.status.extended_resource_claim_status = result.extended_status
        key = key_of(pod)
        if state.pods.get(key) is not pod:
            state.add(pod)
        if result.binding_wait:
            # PreBind waits for binding conditions (the engine polls: binding_check, bind, unreserve); the
            # pod stays assumed on the node meanwhile.
            self._assumed[key] = result.node
            state.pod_changed(key)
            return
        self.bind(state, pod, result.node)

    def bind(self, state: ClusterState, pod: Pod, node: str) -> None:
        """The Binding: spec.nodeName and PodScheduled=True, as the API server's pods/binding writes them."""
        self._assumed.pop(key_of(pod), None)
        pod.spec.node_name = node
        update_pod_condition(pod, POD_SCHEDULED, "True", state.now)
        state.pod_changed(key_of(pod))

    def forget(self, state: ClusterState, key: Key) -> None:
        """ForgetPod: a pod that was assumed on a node (in PreBind) no longer is."""
        if self._assumed.pop(key, None) is not None:
            state.pod_changed(key)

    def pod_claims(self, state: ClusterState, pod: Pod) -> list[ResourceClaim]:
        """The pod's claims, including the one behind its extended resources."""
        keys = self._pod_claim_keys(state, pod)
        ext = pod.status.extended_resource_claim_status if pod.status is not None else None
        if ext is not None:
            keys.append((pod.metadata.namespace or "default", ext.resource_claim_name))
        return [state.claims[k] for k in keys if k in state.claims]

    def binding_check(self, state: ClusterState, pod: Pod) -> tuple[str, str, datetime | None]:
        """PreBind's poll of the pod's claims now (dra.binding_outcome)."""
        return binding_outcome(self.pod_claims(state, pod), state.now, self.config.binding_timeout_seconds)

    def unreserve(self, state: ClusterState, pod: Pod) -> None:
        """Unreserve after a failed PreBind: the pod leaves reservedFor; the allocation stays (the next
        attempt finds it unavailable and PostFilter deallocates it)."""
        if self._failures:
            self._failures.clear()
        self.forget(state, key_of(pod))
        for claim in self.pod_claims(state, pod):
            if claim.status is not None and reserved_for_pod(claim, pod):
                claim.status.reserved_for = [r for r in claim.status.reserved_for if not (
                    r.uid == pod.metadata.uid if pod.metadata.uid else r.name == pod.metadata.name)]

    @staticmethod
    def _pod_claim_keys(state: ClusterState, pod: Pod) -> list[Key]:
        ns = pod.metadata.namespace or "default"
        out = []
        for entry in pod.spec.resource_claims:
            name = state.pod_claim_name(pod, entry.name)
            if name:
                out.append((ns, name))
        return out

