"""PodTopologySpread: PreFilter (domain counts), Filter (maxSkew), PreScore + Score (raw per spread key)."""

from __future__ import annotations

from dataclasses import dataclass, field

from drasim.api.core import Node, Pod
from drasim.cluster.state import ClusterState
from drasim.scheduler import scores as sc
from drasim.scheduler.cache import NodeCache, SelectorIndex
from drasim.scheduler.filters import (
    HOSTNAME,
    REASON_SPREAD,
    REASON_SPREAD_LABEL,
    UNRESOLVABLE,
    UNSCHEDULABLE,
    PodStatic,
    Selector,
    Status,
    parse_selector,
    selector_matches,
)
from drasim.scheduler.plan import Plan, SpreadKey

PLUGIN = "PodTopologySpread"
BY_POSITION = True  # False: count_on_hosts maps every feasible node (tests/scheduler/test_score_memo.py compares)


@dataclass
class Spread:
    """PodTopologySpread for one cycle: filter constraints (DoNotSchedule) and score constraints."""

    filter: list[tuple[str, int, Selector, SelectorIndex]] = field(default_factory=list)
    pair_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    min_match: dict[str, int] = field(default_factory=dict)
    score: list[tuple[str, int, SelectorIndex]] = field(default_factory=list)
    require_all: bool = False


_SELECTOR_OWNERS = frozenset({("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"), ("v1", "ReplicationController")})


def owner_selector(cache: NodeCache, state: ClusterState, pod: Pod) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """helper.DefaultSelector without Services: the controller ReplicaSet/StatefulSet/RC's selector."""
    owner = next((r for r in pod.metadata.owner_references if r.controller), None)
    if owner is None:
        return ()
    if (owner.api_version, owner.kind) not in _SELECTOR_OWNERS:
        return ()
    if cache.owners[0] != len(state.workloads):
        cache.owners = (len(state.workloads), {
            (w.KIND, w.metadata.namespace or "default", w.metadata.name): w for w in state.workloads})
        cache.owner_selectors = {}
    workload = cache.owners[1].get((owner.kind, pod.metadata.namespace or "default", owner.name))
    if workload is None:
        return ()
    # Parsed once per selector object, not per replica: nothing edits a selector in place (an edit is a new
    # object), and the entry keeps its object, so a reused id() never matches.
    raw = workload.spec.selector
    hit = cache.owner_selectors.get(id(raw))
    if hit is None or hit[0] is not raw:
        hit = cache.owner_selectors[id(raw)] = (raw, parse_selector(raw))
    return hit[1] or ()


def prefilter(cache: NodeCache, state: ClusterState, pod: Pod, namespace: str, static: PodStatic) -> Spread:
    """The pod's constraints (its own, else the default ones from its owner's selector) and, for the
    DoNotSchedule ones, the matching pods per domain and the minimum over domains."""
    spread = Spread()
    own = pod.spec.topology_spread_constraints
    for c in own:
        if c.when_unsatisfiable == "DoNotSchedule":
            sel = parse_selector(c.label_selector)
            spread.filter.append((c.topology_key, c.max_skew, sel, cache.index(namespace, sel)))
    if own:
        spread.require_all = True
        for c in own:
            if c.when_unsatisfiable == "ScheduleAnyway":
                sel = parse_selector(c.label_selector)
                spread.score.append((c.topology_key, c.max_skew, cache.index(namespace, sel)))
    else:
        sel = owner_selector(cache, state, pod)
        if sel:
            idx = cache.index(namespace, sel)
            spread.score = [(HOSTNAME, 3, idx), ("topology.kubernetes.io/zone", 5, idx)]
    if not spread.filter:
        return spread
    keys = [c[0] for c in spread.filter]
    domains: dict[str, set[str]] = {k: set() for k in keys}
    for name, node in state.nodes.items():
        labels = node.metadata.labels
        if any(k not in labels for k in keys) or not static.affinity_matches(node):
            continue
        for key, _skew, _sel, idx in spread.filter:
            pair = (key, labels[key])
            domains[key].add(labels[key])
            spread.pair_counts[pair] = spread.pair_counts.get(pair, 0) + idx.by_node.get(name, 0)
    for key in keys:
        counts = [spread.pair_counts[(key, v)] for v in domains[key]]
        spread.min_match[key] = min(counts) if counts else 0  # minDomains is 1
    return spread


def count_on_hosts(spread: Spread, plan: Plan, feasible: list[str], classes: list[int],
                   positions: dict[str, int] | None = None) -> None:
    """Put the pod's own matching-pod counts of hostname score constraints into the score classes of the
    feasible nodes that have such pods (the shared plan's entries hold 0 there). `positions` (node name ->
    position) when `feasible` came from the plan's full scan just now: a node is found by bisection then,
    instead of a map of every feasible node built per cycle for a small workload's few nodes."""
    if not feasible:
        return
    where: dict[str, int] | None = None
    span: tuple[int, int] | None = None
    if not BY_POSITION:
        positions = None
    for c, (key, _skew, idx) in enumerate(spread.score):
        if key != HOSTNAME:
            continue
        for name, count in idx.by_node.items():
            if not count:
                continue
            if positions is not None:
                p = positions.get(name)
                if span is None:
                    span = (positions[feasible[0]], positions[feasible[-1]])
                j = -1 if p is None else plan.scanned_index(p, *span)
            else:
                if where is None:
                    where = dict(zip(feasible, range(len(feasible)), strict=True))
                j = where.get(name, -1)
            if j < 0:
                continue
            rid, skey = plan.classes[classes[j]]
            if skey[c] is not None:  # None: the node has no hostname label
                classes[j] = plan.class_of(rid, (*skey[:c], count, *skey[c + 1:]))


def filter_node(spread: Spread, pod: Pod, node: Node, minus: dict[SelectorIndex, int] | None = None
                ) -> Status | None:
    """Filter: the skew the node's domain would reach (`minus`: matching pods a preemption dry run removes)."""
    labels = node.metadata.labels
    for key, max_skew, sel, idx in spread.filter:
        if key not in labels:
            return Status(UNRESOLVABLE, (REASON_SPREAD_LABEL,), PLUGIN)
        self_match = 1 if selector_matches(sel, pod.metadata.labels) else 0
        count = spread.pair_counts.get((key, labels[key]), 0) - (minus or {}).get(idx, 0)
        if count + self_match - spread.min_match.get(key, 0) > max_skew:
            return Status(UNSCHEDULABLE, (REASON_SPREAD,), PLUGIN)
    return None


def raw_scores(cache: NodeCache, spread: Spread, static: PodStatic, keys: list[SpreadKey], sizes: list[int]
               ) -> tuple[list[int], list[bool]]:
    """PreScore + Score, per distinct spread key of the feasible nodes (`sizes`: how many feasible nodes
    have each key); also which keys are ignored (a node without every topology key)."""
    state = cache.state
    assert state is not None
    ignored = [spread.require_all and None in k for k in keys]
    kept = sum(n for n, ign in zip(sizes, ignored, strict=True) if not ign)
    weights = []
    domain: list[dict[str, int]] = []
    plain = not spread.require_all and not static.node_selector and static.required is None
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
                cache.fill_domains(idx, [key])
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
            if not static.affinity_matches(node):
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
