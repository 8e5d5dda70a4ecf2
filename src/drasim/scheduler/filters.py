"""The default filters before DynamicResources: node flags, taints, node affinity, resources, topology spread."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import msgspec

from drasim.api.core import Node, Pod, PreferredSchedulingTerm, Taint, Toleration
from drasim.api.meta import NodeSelector, NodeSelectorTerm
from drasim.api.nodeaffinity import NodeSelectorError, term_matches
from drasim.scheduler.resources import CPU, EPHEMERAL, MEMORY, PODS, NodeAccount, Vector

UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"

REASON_NODE_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_NODE_NAME = "node(s) didn't match the requested node name"
REASON_TAINT = "node(s) had untolerated taint(s)"
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_AFFINITY_CONFLICT = "pod affinity terms conflict"
REASON_SPREAD = "node(s) didn't match pod topology spread constraints"
REASON_SPREAD_LABEL = REASON_SPREAD + " (missing required label)"
REASON_TOO_MANY_PODS = "Too many pods"

UNSCHEDULABLE_TAINT = Taint(key="node.kubernetes.io/unschedulable", effect="NoSchedule")
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


class Status(NamedTuple):
    """A plugin's rejection of a node: code, the reasons the FitError histogram counts, the plugin."""

    code: str
    reasons: tuple[str, ...]
    plugin: str

    @property
    def message(self) -> str:
        return self.reasons[0] if len(self.reasons) == 1 else ", ".join(self.reasons)


# --- taints and tolerations ------------------------------------------------------------------------

def tolerates(tol: Toleration, taint: Taint) -> bool:
    """core/v1 ToleratesTaint with TaintTolerationComparisonOperators off (Lt/Gt never match)."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    op = tol.operator or "Equal"
    if op == "Exists":
        return True
    if op == "Equal":
        return (tol.value or "") == (taint.value or "")
    return False


def untolerated_prefer_no_schedule(tolerations: Sequence[Toleration], taints: Sequence[Taint]) -> int:
    """TaintToleration score input: PreferNoSchedule taints tolerated by no effect-less/PreferNoSchedule toleration."""
    usable = [t for t in tolerations if not t.effect or t.effect == "PreferNoSchedule"]
    return sum(1 for taint in taints
               if taint.effect == "PreferNoSchedule" and not any(tolerates(t, taint) for t in usable))


# --- node selectors (lazy errors: an invalid term matches nothing, as upstream's lazy selector) ----

def _term_ok(term: NodeSelectorTerm, node: Node) -> bool:
    try:
        return term_matches(term, node)
    except NodeSelectorError:
        return False


def required_matches(selector: NodeSelector, node: Node) -> bool:
    """Terms ORed; empty or invalid terms match nothing."""
    return any(_term_ok(t, node) for t in selector.node_selector_terms)


def preferred_score(terms: Sequence[PreferredSchedulingTerm], node: Node) -> int:
    """NodeAffinity score input: the weights of the preferred terms the node matches."""
    return sum(t.weight for t in terms if t.weight and _term_ok(t.preference, node))


def node_name_restriction(selector: NodeSelector | None) -> set[str] | None:
    """NodeAffinity PreFilter (§5.4): node names every required term pins through `metadata.name In`.

    None when some term has no such requirement (every node stays a candidate); an empty set means the
    terms conflict.
    """
    if selector is None or not selector.node_selector_terms:
        return None
    names: set[str] = set()
    for term in selector.node_selector_terms:
        term_names: set[str] | None = None
        for req in term.match_fields:
            if req.key == "metadata.name" and req.operator == "In":
                values = set(req.values)
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        names |= term_names
    return names


# --- pod facts the static filters read --------------------------------------------------------------

class PodStatic:
    """What NodeUnschedulable, NodeName, TaintToleration and NodeAffinity read from a pod.

    `key` identifies the combination, so verdicts can be cached per node across pods (replicas share it).
    """

    __slots__ = ("key", "node_name", "node_selector", "preferred", "required", "tolerations")

    def __init__(self, pod: Pod) -> None:
        spec = pod.spec
        self.node_name = spec.node_name or ""
        self.tolerations = spec.tolerations
        self.node_selector = spec.node_selector
        na = spec.affinity.node_affinity if spec.affinity is not None else None
        self.required = na.required_during_scheduling_ignored_during_execution if na is not None else None
        self.preferred = na.preferred_during_scheduling_ignored_during_execution if na is not None else []
        self.key = (self.node_name, msgspec.json.encode(self.tolerations), tuple(sorted(self.node_selector.items())),
                    msgspec.json.encode(na) if na is not None else b"")

    def affinity_matches(self, node: Node) -> bool:
        labels = node.metadata.labels
        for k, v in self.node_selector.items():
            if labels.get(k) != v:
                return False
        return self.required is None or required_matches(self.required, node)

    def verdict(self, node: Node) -> Status | None:
        """The first of the four static filters that rejects the node (all UnschedulableAndUnresolvable)."""
        if node.spec.unschedulable and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in self.tolerations):
            return Status(UNRESOLVABLE, (REASON_NODE_UNSCHEDULABLE,), "NodeUnschedulable")
        if self.node_name and self.node_name != node.metadata.name:
            return Status(UNRESOLVABLE, (REASON_NODE_NAME,), "NodeName")
        for taint in node.spec.taints:
            if taint.effect in ("NoSchedule", "NoExecute") and not any(
                    tolerates(t, taint) for t in self.tolerations):
                return Status(UNRESOLVABLE, (REASON_TAINT,), "TaintToleration")
        if not self.affinity_matches(node):
            return Status(UNRESOLVABLE, (REASON_AFFINITY,), "NodeAffinity")
        return None


# --- NodeResourcesFit ------------------------------------------------------------------------------

def fit(req: Vector, alloc: Vector, acct: NodeAccount, dra_backed: frozenset[str]) -> Status | None:
    """§5.5: every insufficient resource is a reason; UnschedulableAndUnresolvable if one exceeds the node.

    `dra_backed` are the requested extended resources some DeviceClass serves: skipped on nodes that do
    not advertise them (DynamicResources allocates them there).
    """
    reasons: list[str] = []
    unresolvable = False
    if acct.npods + 1 > alloc.get(PODS, 0):
        reasons.append(REASON_TOO_MANY_PODS)
    scalars = [k for k in req if k not in (CPU, MEMORY, EPHEMERAL)]
    if not scalars and not req.get(CPU) and not req.get(MEMORY) and not req.get(EPHEMERAL):
        return Status(UNSCHEDULABLE, tuple(reasons), "NodeResourcesFit") if reasons else None
    used = acct.requested
    for name in (CPU, MEMORY, EPHEMERAL):
        r = req.get(name, 0)
        if r > 0:
            a = alloc.get(name, 0)
            if r > a - used.get(name, 0):
                reasons.append(f"Insufficient {name}")
                unresolvable = unresolvable or r > a
    for name in sorted(scalars):
        r = req[name]
        if r <= 0:
            continue
        a = alloc.get(name, 0)
        if name in dra_backed and a == 0:
            continue
        if r > a - used.get(name, 0):
            reasons.append(f"Insufficient {name}")
            unresolvable = unresolvable or r > a
    if not reasons:
        return None
    return Status(UNRESOLVABLE if unresolvable else UNSCHEDULABLE, tuple(reasons), "NodeResourcesFit")


# --- label selectors (metav1.LabelSelector) --------------------------------------------------------

Requirement = tuple[str, str, frozenset[str]]
Selector = tuple[Requirement, ...] | None  # None: matches nothing; (): matches everything


def _get(obj: Any, camel: str, snake: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(camel, obj.get(snake))
    return getattr(obj, snake, None)


def parse_selector(raw: Any) -> Selector:
    """A LabelSelector (decoded dict or struct) as sorted requirements; None for a nil selector."""
    if raw is None:
        return None
    reqs: list[Requirement] = []
    for k, v in (_get(raw, "matchLabels", "match_labels") or {}).items():
        reqs.append((str(k), "In", frozenset([str(v)])))
    for expr in _get(raw, "matchExpressions", "match_expressions") or []:
        key = _get(expr, "key", "key")
        op = _get(expr, "operator", "operator")
        values = _get(expr, "values", "values") or []
        reqs.append((str(key), str(op), frozenset(str(v) for v in values)))
    return tuple(sorted(reqs, key=lambda r: (r[0], r[1], sorted(r[2]))))


def selector_matches(selector: Selector, labels: Mapping[str, str]) -> bool:
    if selector is None:
        return False
    for key, op, values in selector:
        present = key in labels
        if op == "In":
            if not present or labels[key] not in values:
                return False
        elif op == "NotIn":
            if present and labels[key] in values:
                return False
        elif op == "Exists":
            if not present:
                return False
        elif op == "DoesNotExist":
            if present:
                return False
        else:
            return False
    return True


def counts_for_spread(pod: Pod, namespace: str, selector: Selector) -> bool:
    """countPodsMatchSelector for one pod: same namespace, not terminating, selector matches."""
    if not selector:  # nil matches nothing; an empty selector counts nothing (upstream Empty() check)
        return False
    return ((pod.metadata.namespace or "default") == namespace and pod.metadata.deletion_timestamp is None
            and selector_matches(selector, pod.metadata.labels))
