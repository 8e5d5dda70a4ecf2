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
# evictions (its dry run is evaluated for the message only, see preemption.py) and the filter
# timeout. The PreBind wait for binding conditions is polled by the simulation engine (binding_check).
#
# Speed. Per node and "plan" (the pods that read nodes the same way: same static filters, requests, claim
# shapes and spread constraints, whatever workload owns them) the Filter verdict and raw scores are cached
# until the node changes (its pods, or allocations in its pools), in a Plan (plan.py) whose sampled scan
# works on sorted positions; scores are computed per class of equal inputs (ranking.py). A hostname spread
# selector with pods on few nodes has its counts put into those nodes' classes per cycle (spread.py), so
# small workloads share one plan; the failure memory (queue.py) is shared alike.
# DynamicResources groups nodes by signature (grouping.py).
#
# Layout (upstream's seams): this module is the scheduling cycle (schedule_one.go) and Reserve/Bind;
# result.py what a cycle decided, pods.py the pod facts several parts read (priority, claim ownership);
# cache.py the scheduler cache, nodetree.py the scan order and sampling, queue.py the queue's order and the
# failure memory, spread.py PodTopologySpread, preemption.py the PostFilter messages, dra.py the
# DynamicResources plugin, which the cycle reaches only through its PreEnqueue/PreFilter/Filter/Score/
# Reserve/PostFilter methods (and its caches' `generation` and `pool_nodes`, which say what to forget).

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from drasim.api.core import Node, NodeAllocatableResourceClaimStatus, Pod, PodExtendedResourceClaimStatus, PodStatus
from drasim.api.resource import ResourceClaim, ResourceClaimConsumerReference
from drasim.cluster.podgroups import group_consumer, group_for_claim, reserved_for_group
from drasim.cluster.podstatus import (
    POD_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    update_pod_condition,
)
from drasim.cluster.state import ClusterState, Key, key_of
from drasim.scheduler import gang, preemption
from drasim.scheduler import scores as sc
from drasim.scheduler import spread as ts
from drasim.scheduler.cache import NodeCache, SelectorIndex
from drasim.scheduler.config import SchedulerConfig
from drasim.scheduler.dra import FINALIZER, PLUGIN, CycleError, DraCaches, DraCycle, reserved_for_pod
from drasim.scheduler.filters import (
    HOSTNAME,
    REASON_AFFINITY,
    REASON_AFFINITY_CONFLICT,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    PodStatic,
    Status,
    fit,
    node_name_restriction,
    preferred_score,
    untolerated_prefer_no_schedule,
)
from drasim.scheduler.nodetree import node_tree_order, num_feasible_nodes_to_find
from drasim.scheduler.plan import MAX_PLANS, Entry, Plan, RawScores, SpreadKey
from drasim.scheduler.pods import priority
from drasim.scheduler.prebind import binding_outcome
from drasim.scheduler.queue import FailureMemory, queue_order
from drasim.scheduler.ranking import NodeScore, Ranking
from drasim.scheduler.resources import CPU, MEMORY, NodeAccount, Vector
from drasim.scheduler.result import ERROR, GATED, SCHEDULED, ScheduleResult

__all__ = ["GATED", "NodeScore", "ScheduleResult", "Scheduler", "node_tree_order", "num_feasible_nodes_to_find",
           "priority"]

NO_NODES = "no nodes available to schedule pods"
_MISSING = object()
# A hostname spread selector whose pods sit on at most this many nodes shares its plan with other workloads
# (correcting those nodes' score classes per cycle costs about what they are; more: a plan of its own).
SHARED_SPREAD_NODES = 32
SCORE_MEMO_MAX = 1024  # entries of a Plan's score_memo before it starts again
SCORE_MEMO = True  # False: score every cycle afresh (tests/scheduler/test_score_memo.py compares both)


@dataclass(frozen=True)
class Charge:
    """What a pod's claims charge one node (Scheduler.node_charges): the statuses PreBind would write, the
    DynamicResources verdict with them (None: fits), the pod's own requests, the node's allocatable and
    what its pods request."""

    statuses: list[NodeAllocatableResourceClaimStatus]
    verdict: Status | None
    requests: Vector
    allocatable: Vector
    requested: Vector


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
    spread: ts.Spread
    fit_cache: dict[int, Status | None] = field(default_factory=dict)
    # Whether the plan's entries hold this pod's matching-pod counts of hostname spread constraints
    # (else they hold 0 and `_scan` puts the counts of the few nodes with matching pods in).
    own_counts: bool = True


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
        self._cache = NodeCache()
        self._dra = DraCaches()
        self._failures: FailureMemory | None = None  # see reuse_failures
        self.gang_members: gang.MemberCache | None = None  # PodGroup members, kept for one pass (reuse_failures)

    # --- repeated failures ----------------------------------------------------------------------

    def reuse_failures(self, state: ClusterState | None) -> None:
        """Remember failed cycles while the caller guarantees that `state` changes only through `apply`
        (None: stop, and forget them); see queue.FailureMemory."""
        self._failures = FailureMemory(state) if state is not None else None
        self.gang_members = {} if state is not None else None

    # --- queue ----------------------------------------------------------------------------------

    @staticmethod
    def queue_order(state: ClusterState, pods: list[Pod]) -> list[Pod]:
        """PrioritySort: higher `spec.priority` first, then earlier arrival (`state.arrival`)."""
        return queue_order(state, pods)

    # --- one cycle ------------------------------------------------------------------------------

    def schedule_one(self, state: ClusterState, pod: Pod) -> ScheduleResult:
        """Run one scheduling cycle for the pod against the current state."""
        key = key_of(pod)
        if self._failures is not None:
            failed = self._failures.find(state, pod)
            if failed is not None:
                # The cycle scanned every node: the scan position moves by the node count.
                count = len(self._cache.names)
                self.next_start_node_index = (self.next_start_node_index + count) % count
                return ScheduleResult(pod=key, status=failed.status, message=failed.message,
                                      node_statuses=failed.node_statuses, no_preemption=failed.no_preemption,
                                      pod_object=pod)
        self._cache.sync(state, self._dra.pool_nodes)
        result = ScheduleResult(pod=key, pod_object=pod)
        dra = DraCycle(state, pod, self._dra, self.config.extended_resources, self.config.binding_timeout_seconds,
                       max_steps=self.config.filter_budget_steps)
        gated = gang.pre_enqueue(state, pod, self.gang_members) if self.config.gang_scheduling else None
        gated = gated or dra.pre_enqueue()
        if gated is not None:
            result.status, result.message = GATED, gated
            return result
        names = self._cache.names
        if not names:
            result.status, result.message = UNRESOLVABLE, NO_NODES
            return result
        ctx = self._context(state, pod, key, dra)

        # PreFilter, in plugin order: NodeAffinity, NodeResourcesFit, PodTopologySpread, DynamicResources.
        restricted = node_name_restriction(ctx.static.required)
        if restricted is not None and not restricted:
            return self._unschedulable(result, ctx, {}, (), prefilter=REASON_AFFINITY_CONFLICT)
        ctx.spread = ts.prefilter(self._cache, state, pod, ctx.namespace, ctx.static)
        pre = dra.pre_filter(ctx.req)
        if pre.error is not None:
            result.status = ERROR
            result.message = f'running PreFilter plugin "{PLUGIN}": {pre.error}'
            return result
        if pre.reject is not None:
            return self._unschedulable(result, ctx, {}, (), prefilter=pre.reject)
        ctx.dra_backed = dra.backed_resources()

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
                if self._failures is not None and state is self._failures.state and restricted is None \
                        and len(statuses) == len(names):
                    self._remember_failure(ctx, result, statuses)
                return result
            if len(feasible) == 1:
                return self._bind(result, ctx, feasible[0])
            ranking = result.ranking = self._score(ctx, plan, feasible, classes)
            at = ranking.chosen = ranking.pick_best(self._rng.randrange)  # a random one of the top ties, in scan order
            return self._bind(result, ctx, feasible[at])
        except CycleError as err:
            result.status, result.message = ERROR, str(err)
            result.node, result.allocations, result.extended_claim = None, {}, None
            result.ranking = None
            return result

    def _remember_failure(self, ctx: _Ctx, result: ScheduleResult, statuses: Mapping[str, Status]) -> None:
        assert self._failures is not None
        if result.deallocate or result.delete_claims or result.allocations or result.ranking is not None \
                or result.extended_claim is not None or result.status not in (UNSCHEDULABLE, UNRESOLVABLE):
            return
        if ctx.dra.failure_names_nothing_of_pod(statuses.values()):
            self._failures.remember(ctx.pod, result)

    def extended_claims(self, state: ClusterState, pod: Pod
                        ) -> dict[str, tuple[ResourceClaim, PodExtendedResourceClaimStatus]]:
        """Per node, the claim DynamicResources would allocate there for the pod's DRA-backed extended
        resources, before the scheduler has created it, with the pod status naming it (request mappings; no
        claim name yet). Nodes that need none, or where nothing serves one, are left out; empty once the
        claim exists. Changes nothing."""
        self._cache.sync(state, self._dra.pool_nodes)
        dra = DraCycle(state, pod, self._dra, self.config.extended_resources, self.config.binding_timeout_seconds)
        if dra.pre_enqueue() is not None:
            return {}
        req, _ = self._cache.requests(pod)
        if dra.pre_filter(req).error is not None or dra.special is None or not dra.special_template:
            return {}
        out: dict[str, tuple[ResourceClaim, PodExtendedResourceClaimStatus]] = {}
        for name in self._cache.names:
            needs = dra.extended_needs(self._cache.alloc[name])
            if needs:
                claim = dra.variant(needs)
                out[name] = claim, PodExtendedResourceClaimStatus(request_mappings=dra.request_mappings(claim))
        return out

    def filters_before_dra(self, state: ClusterState, pod: Pod) -> dict[str, Status | None]:
        """Per node, the first rejection by the filters that run before DynamicResources (NodeUnschedulable,
        NodeName, TaintToleration, NodeAffinity, NodeResourcesFit, PodTopologySpread), with the pod's
        PreFilter facts as `schedule_one` computes them; None: the node passes them. Changes nothing."""
        key = key_of(pod)
        self._cache.sync(state, self._dra.pool_nodes)
        dra = DraCycle(state, pod, self._dra, self.config.extended_resources, self.config.binding_timeout_seconds)
        dra.pre_enqueue()
        ctx = self._context(state, pod, key, dra)
        restricted = node_name_restriction(ctx.static.required)
        ctx.spread = ts.prefilter(self._cache, state, pod, ctx.namespace, ctx.static)
        if dra.pre_filter(ctx.req).error is None:
            ctx.dra_backed = dra.backed_resources()
        out: dict[str, Status | None] = {}
        for name in self._cache.names:
            if restricted is not None and name not in restricted:
                out[name] = Status(UNRESOLVABLE, (REASON_AFFINITY,), "NodeAffinity")
            else:
                out[name] = self._filter(ctx, name, dra=False)
        return out

    def node_charges(self, state: ClusterState, pod: Pod, names: list[str]) -> dict[str, Charge]:
        """Per node of `names` DynamicResources allocates on: what the pod's claims would charge the node's
        allocatable (nodealloc) and the plugin's verdict on it, for explain. Changes nothing."""
        self._cache.sync(state, self._dra.pool_nodes)
        dra = DraCycle(state, pod, self._dra, self.config.extended_resources, self.config.binding_timeout_seconds,
                       max_steps=self.config.filter_budget_steps)
        if dra.pre_enqueue() is not None:
            return {}
        ctx = self._context(state, pod, key_of(pod), dra)
        pre = dra.pre_filter(ctx.req)
        if pre.error is not None or pre.reject is not None or not dra.active:
            return {}
        out: dict[str, Charge] = {}
        for name in names:
            node = state.nodes.get(name)
            if node is None:
                continue
            requested = self._cache.account(name).requested
            try:
                verdict = dra.filter(node, self._cache.alloc[name], requested)
            except CycleError:
                continue
            if name in dra.charged:
                out[name] = Charge(dra.charged[name], verdict, dict(ctx.req), self._cache.alloc[name], dict(requested))
        return out

    def _context(self, state: ClusterState, pod: Pod, key: Key, dra: DraCycle) -> _Ctx:
        static = PodStatic(pod)
        cache = self._cache.static.get(static.key)
        if cache is None:
            cache = self._cache.static[static.key] = {}
        req, nz = self._cache.requests(pod)
        return _Ctx(pod=pod, key=key, namespace=key[0], static=static, req=req, nz=nz, dra=dra,
                    dra_backed=frozenset(), static_cache=cache, spread=ts.Spread())

    def _plan(self, ctx: _Ctx) -> Plan:
        """The plan for pods that read nodes as this one does (a fresh one when it cannot be shared)."""
        nc = self._cache
        generation = self._dra.generation
        cursor = len(nc.dirty)
        dra_key = ctx.dra.plan_key()
        if dra_key is None or ctx.spread.filter:
            return Plan(cursor, generation, len(nc.names))  # per-pod inputs (allocated claims, global spread counts)
        # Workloads whose pods are alike but for their spread selector share a plan while their pods sit on
        # few nodes; a selector matching pods on many nodes keeps its own plan with its counts in the entries.
        hosts = [idx for k, _skew, idx in ctx.spread.score if k == HOSTNAME]
        ctx.own_counts = any(len(idx.by_node) > SHARED_SPREAD_NODES for idx in hosts)
        key = (ctx.static.key, tuple(sorted(ctx.req.items())), ctx.nz, ctx.dra_backed, dra_key,
               tuple((k, skew) for k, skew, _idx in ctx.spread.score),
               tuple(id(idx) for idx in hosts) if ctx.own_counts else ())
        plan = nc.plans.get(key)
        if plan is None or plan.generation != generation:
            if len(nc.plans) >= MAX_PLANS:
                nc.plans.pop(next(iter(nc.plans)))
            plan = nc.plans[key] = Plan(cursor, generation, len(nc.names))
            return plan
        pos = nc.pos
        for name in nc.dirty[plan.cursor:]:
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
        nc = self._cache
        labels = nc.state.nodes[name].metadata.labels  # type: ignore[union-attr]
        own = ctx.own_counts
        spread = tuple(None if k not in labels else (idx.by_node.get(name, 0) if own else 0) if k == HOSTNAME
                       else labels[k] for k, _s, idx in ctx.spread.score)
        sv = ctx.static_cache[name]
        acct = nc.accounts[name]
        fm = plan.fit_memo.get(acct.key)
        if fm is None:
            alloc = nc.alloc[name]
            ac, am = alloc.get(CPU, 0), alloc.get(MEMORY, 0)
            real_cpu, real_mem = ctx.req.get(CPU, 0), ctx.req.get(MEMORY, 0)
            fm = plan.fit_memo[acct.key] = (
                sc.least_allocated(ac, am, acct.nz_cpu + ctx.nz[0], acct.nz_mem + ctx.nz[1]),
                sc.balanced_allocation(ac, am, acct.requested.get(CPU, 0), acct.requested.get(MEMORY, 0),
                                       real_cpu, real_mem))
        dra_raw = ctx.dra.score_raw(name, plan.dra_memo)
        return (None, plan.score_class((sv[2], sv[3], fm[0], fm[1], dra_raw), spread))

    def _scan(self, ctx: _Ctx, plan: Plan, candidates: list[int] | None, num_all: int
              ) -> tuple[list[str], list[int], Mapping[str, Status]]:
        """findNodesThatPassFilters: from nextStartNodeIndex until enough feasible nodes were found
        (`candidates`: positions of the only nodes to consider, None: every node)."""
        n = num_all if candidates is None else len(candidates)
        want = n if self.config.score_all_nodes else num_feasible_nodes_to_find(
            n, self.config.percentage_of_nodes_to_score)
        start = self.next_start_node_index % n

        def evaluate(name: str) -> Entry:
            return self._entry(ctx, plan, name)

        names = self._cache.names
        statuses: Mapping[str, Status]
        if candidates is None:
            feasible, classes, statuses = plan.scan(names, want, start, evaluate)
        else:
            feasible, classes, statuses = plan.scan_subset(names, candidates, want, start, evaluate)
        if not ctx.own_counts:
            ts.count_on_hosts(ctx.spread, plan, feasible, classes, self._cache.pos if candidates is None else None)
        self.next_start_node_index = (self.next_start_node_index + len(feasible) + len(statuses)) % num_all
        return feasible, classes, statuses

    def _filter(self, ctx: _Ctx, name: str, acct: NodeAccount | None = None,
                victims: list[Key] | None = None, dra: bool = True) -> Status | None:
        """The filter chain on one node, stopping at the first rejection (`acct`/`victims`: a preemption
        dry run with those pods removed from the node)."""
        nc = self._cache
        node = nc.state.nodes[name]  # type: ignore[union-attr]
        sv = ctx.static_cache.get(name)
        if sv is None or sv[0] is not node:
            sv = (node, ctx.static.verdict(node),
                  untolerated_prefer_no_schedule(ctx.static.tolerations, node.spec.taints),
                  preferred_score(ctx.static.preferred, node) if ctx.static.preferred else 0)
            ctx.static_cache[name] = sv
        if sv[1] is not None:
            return sv[1]
        alloc = nc.alloc[name]
        if acct is None:
            acct = nc.account(name)
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
                minus[idx] = sum(1 for v in victims or () if idx.matches(nc.contrib[v][3]))
            st = ts.filter_node(ctx.spread, ctx.pod, node, minus)
            if st is not None:
                return st
        if dra and ctx.dra.active:
            return ctx.dra.filter(node, alloc, acct.requested)
        return None

    # --- scoring --------------------------------------------------------------------------------

    def _score(self, ctx: _Ctx, plan: Plan, feasible: list[str], classes: list[int]) -> Ranking:
        """Run the score plugins on the feasible nodes, normalise, weight and sort (best first).

        Work is per score class (nodes with the same raw scores and spread inputs); normalising over the
        classes present is normalising over the feasible nodes. Nothing depends on the order of the classes
        (normalising takes maxima and minima; the ranking orders by total, then scan order), so they are
        taken as a set: cheaper than listing them in order of appearance, and one memo entry per mix.
        """
        nc = self._cache
        present = sorted(set(classes))
        keys = [plan.classes[c] for c in present]
        raws = [plan.raws[rid] for rid, _k in keys]
        if any(raw[4] < 0 for raw in raws):  # the positional pairing failed (scores.dra_raw)
            # The first such node in scan order names the error (score_error raises).
            name = feasible[next(i for i, c in enumerate(classes) if plan.raws[plan.classes[c][0]][4] < 0)]
            ctx.dra.score_error(nc.state.nodes[name], nc.alloc[name])  # type: ignore[union-attr]
        memo_key = _score_memo_key(ctx, present, keys, len(classes)) if SCORE_MEMO else None
        if memo_key is not None:
            hit = plan.score_memo.get(memo_key)
            if hit is not None:
                return Ranking(feasible, classes, hit[0], hit[1])
        totals, by_class = self._class_scores(ctx, plan, classes, present, keys, raws)
        if memo_key is not None:
            if len(plan.score_memo) >= SCORE_MEMO_MAX:
                plan.score_memo.clear()
            plan.score_memo[memo_key] = (totals, by_class)
        return Ranking(feasible, classes, totals, by_class)

    def _class_scores(self, ctx: _Ctx, plan: Plan, classes: list[int], present: list[int],
                      keys: list[tuple[int, SpreadKey]], raws: list[RawScores]
                      ) -> tuple[dict[int, int], dict[int, dict[str, int]]]:
        """Per present score class, its total and weighted plugin scores."""
        nc = self._cache
        spread = bool(ctx.spread.score)
        if spread:
            sizes = Counter(classes)  # nodes per class
            spread_raw, ignored = ts.raw_scores(nc, ctx.spread, ctx.static, [k for _r, k in keys],
                                                [sizes[c] for c in present])
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
        return totals, by_class

    # --- outcomes -------------------------------------------------------------------------------

    def _bind(self, result: ScheduleResult, ctx: _Ctx, name: str) -> ScheduleResult:
        """Reserve + PreBind checks on the chosen node (no state changes: `apply` writes them)."""
        nc = self._cache
        reservation = ctx.dra.reserve(nc.state.nodes[name], nc.alloc[name], self.config.seed)  # type: ignore[union-attr]
        if reservation.error is not None:
            result.status, result.message = ERROR, reservation.error
            return result
        result.allocations = reservation.allocations
        result.chosen_subrequests = reservation.chosen_subrequests
        result.extended_claim = reservation.extended_claim
        result.extended_status = reservation.extended_status
        result.binding_wait = reservation.binding_wait
        result.node_allocatable = reservation.node_allocatable
        result.node = name
        result.status = SCHEDULED
        result.message = f"Successfully assigned {ctx.key[0]}/{ctx.key[1]} to {name}"
        return result

    def _unschedulable(self, result: ScheduleResult, ctx: _Ctx, statuses: Mapping[str, Status],
                       absent: tuple[str, ...], prefilter: str = "") -> ScheduleResult:
        """PostFilter (DynamicResources, then DefaultPreemption) and the FitError message."""
        nc = self._cache
        num_all = len(nc.names)
        dra = ctx.dra
        message, result.deallocate, result.delete_claims = dra.post_filter()
        post = [message]

        def refilter(name: str, acct: NodeAccount, victims: list[Key]) -> Status | None:
            return self._filter(ctx, name, acct=acct, victims=victims)

        # Nodes without a status (PreFilter rejected the pod, or excluded them) count as unresolvable.
        dry = preemption.dry_run(nc, priority(ctx.pod), {} if prefilter else statuses, UNRESOLVABLE, refilter)
        if dry is not None:
            post.append(dry)
            result.message = preemption.fit_error(num_all, statuses, absent, prefilter, ", ".join(post))
        else:
            # DefaultPreemption found victims: upstream nominates a node and the PostFilter message is empty.
            result.message = preemption.fit_error(num_all, statuses, absent, prefilter, "")
        resolvable = not prefilter and any(st.code == UNSCHEDULABLE for st in statuses.values())
        result.status = UNSCHEDULABLE if resolvable else UNRESOLVABLE
        if dra.active and preemption.blocked_by_lower_priority(nc, dra, ctx.req, statuses):
            result.no_preemption = True
            result.message += (" (drasim: a higher priority does not help: the devices this pod needs are held by "
                               "lower-priority pods, and DynamicResources does not preempt)")
        return result

    # --- apply ----------------------------------------------------------------------------------

    def apply(self, state: ClusterState, result: ScheduleResult) -> None:
        """Reserve + PreBind + Bind for a scheduled pod, or the PostFilter effects for an unscheduled one."""
        if self._failures is not None and (result.status == SCHEDULED or result.deallocate or result.delete_claims):
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
        keys = [k for k in state.pod_claim_keys(pod) if k in state.claims]
        if result.extended_claim is not None:
            keys.append(key_of(result.extended_claim))
        for ckey in keys:
            claim = state.claims[ckey]
            if reserved_for_pod(claim, pod):
                continue
            group = group_for_claim(state, pod, ckey[1]) if state.pod_groups else None
            if group is not None and reserved_for_group(claim, group):
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
            status.reserved_for = [*status.reserved_for, consumer if group is None else group_consumer(group)]
        if result.extended_status is not None:
            if pod.status is None:
                pod.status = PodStatus()
            pod.status.extended_resource_claim_status = result.extended_status
        if result.node_allocatable:  # PreBind's patch (patchNodeAllocatableResourceClaimStatus)
            if pod.status is None:
                pod.status = PodStatus()
            pod.status.node_allocatable_resource_claim_statuses = result.node_allocatable
        key = key_of(pod)
        if state.pods.get(key) is not pod:
            state.add(pod)
        if result.binding_wait or result.permit_wait:
            # PreBind waits for binding conditions (the engine polls: binding_check, bind, unreserve), or
            # Permit for the gang (sim.gang); the pod stays assumed on the node meanwhile.
            self._cache.assumed[key] = result.node
            state.pod_changed(key)
            return
        self.bind(state, pod, result.node)

    def bind(self, state: ClusterState, pod: Pod, node: str) -> None:
        """The Binding: spec.nodeName and PodScheduled=True, as the API server's pods/binding writes them."""
        self._cache.assumed.pop(key_of(pod), None)
        pod.spec.node_name = node
        update_pod_condition(pod, POD_SCHEDULED, "True", state.now)
        state.pod_changed(key_of(pod))

    def forget(self, state: ClusterState, key: Key) -> None:
        """ForgetPod: a pod that was assumed on a node (in PreBind) no longer is."""
        if self._cache.assumed.pop(key, None) is not None:
            state.pod_changed(key)

    def pod_claims(self, state: ClusterState, pod: Pod) -> list[ResourceClaim]:
        """The pod's claims, including the one behind its extended resources."""
        keys = state.pod_claim_keys(pod)
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
        if self._failures is not None:
            self._failures.clear()
        self.forget(state, key_of(pod))
        if pod.status is not None and pod.status.node_allocatable_resource_claim_statuses:
            pod.status.node_allocatable_resource_claim_statuses = []  # clearNodeAllocatableResourceClaimStatus
            state.pod_changed(key_of(pod))
        for claim in self.pod_claims(state, pod):
            if claim.status is not None and reserved_for_pod(claim, pod):
                claim.status.reserved_for = [r for r in claim.status.reserved_for if not (
                    r.uid == pod.metadata.uid if pod.metadata.uid else r.name == pod.metadata.name)]


def _score_memo_key(ctx: _Ctx, present: list[int], keys: list[tuple[int, SpreadKey]], count: int
                    ) -> tuple[object, ...] | None:
    """What a cycle's per-class scores depend on beyond its plan, when that is all (None: they also read
    counts that binding changes).

    A class fixes its raw scores and spread key (plan.classes), so the totals of the classes present follow
    from which classes are present (not their order: see Scheduler._score), the feasible count (the hostname
    constraint's weight), the pod's score constraints and its preferred affinity. Not so for a constraint on
    another label that some present node has (its domain count is read from the selector index), nor when
    the pod's own constraints leave out nodes without one of their keys (`require_all`: the count depends
    on the sizes). Replicas scanning windows of mostly the same few classes then score once per class mix
    instead of once per pod.
    """
    spread = ctx.spread
    if spread.require_all and any(None in skey for _rid, skey in keys):
        return None
    for c, (topology, _skew, _idx) in enumerate(spread.score):
        if topology != HOSTNAME and any(skey[c] is not None for _rid, skey in keys):
            return None
    # The selector indexes stay out: with the checks above no domain count is read from them (the hostname
    # counts are in the spread keys), so workloads sharing a plan share its memo too.
    return (tuple(present), count, tuple((k, skew) for k, skew, _idx in spread.score), spread.require_all,
            bool(ctx.static.preferred))
