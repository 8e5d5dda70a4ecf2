"""Explanations of claims and pods: the nodes considered, their answers grouped, the hints about replicas."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from drasim.allocator import AllocatedState
from drasim.api.claims import claim_ref
from drasim.api.core import Node, Pod
from drasim.api.defaults import apply_claim_defaults
from drasim.api.meta import NodeSelector, ObjectMeta, OwnerReference
from drasim.api.nodeaffinity import NodeSelectorError, selector_matches
from drasim.api.resource import ResourceClaim, ResourceClaimStatus
from drasim.api.scheduling import min_count
from drasim.cluster.podgroups import group_claim_name, pod_group_of
from drasim.cluster.state import ClusterState, Key
from drasim.errors import InputError
from drasim.explain.charges import held_by_claims, insufficient_by_claims
from drasim.explain.context import Context, allocated_devices, without
from drasim.explain.hints import POD_CLAIM_ANNOTATION, replica_hints, unbacked_hints
from drasim.explain.model import (
    MAX_EXAMPLES,
    ClaimExplanation,
    DeviceOutcome,
    ExcludedNode,
    Explanation,
    NodeGroup,
    PodClaim,
    PodExplanation,
)
from drasim.explain.node import analyse_node
from drasim.scheduler import Scheduler
from drasim.scheduler.gang import group_pods
from drasim.sim.report import EXTENDED_POD_CLAIM, extended_labels

__all__ = ["device_outcomes", "explain_claim", "explain_claims", "explain_pod"]


# --- grouping ----------------------------------------------------------------------------------


def _group_key(g: NodeGroup) -> bytes:
    """The group's answer without what names its node: nodes, device names, examples, hint subjects."""
    d = msgspec.to_builtins(g)  # the dataclasses as dicts and lists, at C speed (asdict walks in Python)
    d.pop("nodes")
    for h in d["hints"]:
        h.pop("subjects")
    for dev in d["verdict"]["devices"]:
        dev.pop("device")  # device names carry node-specific pool names
    for c in d["claims"]:
        for r in c["requests"]:
            for a in r["alternatives"]:
                for e in a["excluded"]:
                    e.pop("examples")
    return msgspec.json.encode(d, order="sorted")


def _merge(groups: list[NodeGroup]) -> list[NodeGroup]:
    by_key: dict[bytes, NodeGroup] = {}
    out: list[NodeGroup] = []
    for g in groups:
        key = _group_key(g)
        have = by_key.get(key)
        if have is None:
            by_key[key] = g
            out.append(g)
            continue
        have.nodes.extend(g.nodes)
        for hh, gh in zip(have.hints, g.hints, strict=True):
            hh.subjects.extend(x for x in gh.subjects if x not in hh.subjects)
        for hc, gc in zip(have.claims, g.claims, strict=True):
            for hr, gr in zip(hc.requests, gc.requests, strict=True):
                for ha, ga in zip(hr.alternatives, gr.alternatives, strict=True):
                    for he, ge in zip(ha.excluded, ga.excluded, strict=True):
                        room = MAX_EXAMPLES - len(he.examples)
                        if room > 0:
                            he.examples.extend(ge.examples[:room])
    return out


# --- node selection ----------------------------------------------------------------------------


def _all_nodes(state: ClusterState) -> dict[str, Node]:
    """The cluster's nodes; without Node objects, bare nodes named by the slices (label-less)."""
    if state.nodes:
        return dict(state.nodes)
    names: list[str] = []
    for slc in state.slices.values():
        for n in [slc.spec.node_name, *(d.node_name for d in slc.spec.devices)]:
            if n and n not in names:
                names.append(n)
    return {n: Node(metadata=ObjectMeta(name=n)) for n in sorted(names)}


def _pick_nodes(state: ClusterState, names: Sequence[str] | None) -> list[Node]:
    nodes = _all_nodes(state)
    if names is None:
        return list(nodes.values())
    out = []
    for n in names:
        node = nodes.get(n)
        if node is None:
            if state.nodes:
                raise InputError(f"node {n} not found", obj=f"Node/{n}")
            node = Node(metadata=ObjectMeta(name=n))  # no Node objects at all: a bare node by name
        out.append(node)
    return out


def _selector_excludes(selector: NodeSelector | None, node: Node) -> bool:
    if selector is None:
        return False
    try:
        return not selector_matches(selector, node)
    except NodeSelectorError:
        return True


def _node_filters(state: ClusterState, pod: Pod) -> dict[str, str]:
    """Nodes the scheduler's filters before DynamicResources reject for the pod (node -> plugin: reason).
    A pod already bound keeps only its node."""
    if pod.spec.node_name:
        return {n: f"the pod is bound to node {pod.spec.node_name}" for n in state.nodes if n != pod.spec.node_name}
    statuses = Scheduler().filters_before_dra(state, pod)
    return {n: f"{st.plugin}: {st.message}" for n, st in statuses.items() if st is not None}


# --- the public entry points -------------------------------------------------------------------


def _run(ex: Explanation, state: ClusterState, claims: list[ResourceClaim], in_use: AllocatedState,
         nodes: list[Node], variant: str | None, share: bool) -> Context:
    ctx = Context(state, in_use, claims, variant, share)
    ctx.prepare(nodes)
    merged = _merge([analyse_node(ctx, node)[0] for node in nodes])
    ex.groups += merged  # a pod whose nodes need different extended-resource claims runs once per claim
    for g in merged:
        for c in g.claims:
            for r in c.requests:
                for a in r.alternatives:
                    if a.forced is not None:
                        lst = ex.alternatives.setdefault(a.name, [])
                        if a.forced == "allocated":
                            lst.extend(g.nodes)
    return ctx


def _key_text(key: Key) -> str:
    return f"{key[0]}/{key[1]}"


def explain_claim(state: ClusterState, claim_key: Key, nodes: Sequence[str] | None = None, *,
                  variant: str | None = None, share: bool = True) -> ClaimExplanation:
    """Explain one claim on each node (default: all nodes; an allocated claim: the nodes it is available on).

    An allocated claim is replayed as if it were not allocated, so the answer shows why it got what it got.
    Raises InputError when the claim or a named node does not exist. Nodes whose answer must be the same
    share one search; `share=False` searches every node (the same explanation, slower: what tests compare).
    """
    claim = state.claims.get(claim_key)
    if claim is None:
        raise InputError(f"resourceclaim {_key_text(claim_key)} not found", obj=f"ResourceClaim/{_key_text(claim_key)}")
    allocation = claim.status.allocation if claim.status is not None else None
    ex = ClaimExplanation(subject=f"claim {claim_ref(claim)}", features=state.features.enabled(),
                          claim=claim_ref(claim), allocated=allocation is not None)
    in_use = state.in_use
    picked = _pick_nodes(state, nodes)
    if allocation is not None:
        ex.allocation = allocated_devices([claim], [allocation])
        in_use = without(state, [claim])
        keep = []
        for node in picked:
            if _selector_excludes(allocation.node_selector, node):
                ex.excluded_nodes.append(ExcludedNode(node.metadata.name, "the claim is allocated for other nodes"))
            else:
                keep.append(node)
        picked = keep
    _run(ex, state, [claim], in_use, picked, variant, share)
    ex.hints.extend(replica_hints(state, [claim]))
    return ex


def explain_claims(state: ClusterState, claim_keys: Sequence[Key], nodes: Sequence[str] | None = None, *,
                   variant: str | None = None, subject: str | None = None, share: bool = True) -> PodExplanation:
    """Explain one Allocate call with these claims, in this order (a scenario step)."""
    claims = []
    for key in claim_keys:
        claim = state.claims.get(key)
        if claim is None:
            raise InputError(f"resourceclaim {_key_text(key)} not found", obj=f"ResourceClaim/{_key_text(key)}")
        claims.append(claim)
    ex = PodExplanation(subject=subject or "claims " + ", ".join(claim_ref(c) for c in claims),
                        features=state.features.enabled(),
                        claims=[PodClaim(c.metadata.name, claim_ref(c), _claim_state(c)) for c in claims])
    _run(ex, state, claims, state.in_use, _pick_nodes(state, nodes), variant, share)
    ex.hints.extend(replica_hints(state, claims))
    return ex


def _claim_state(claim: ResourceClaim) -> str:
    return "allocated" if claim.status is not None and claim.status.allocation is not None else "pending"


def _from_template(state: ClusterState, pod: Pod, pod_claim: str, template_name: str) -> ResourceClaim | None:
    ns = pod.metadata.namespace or "default"
    template = state.templates.get((ns, template_name))
    if template is None:
        return None
    meta = template.spec.metadata or ObjectMeta()
    # What the claim controller would create (the API server adds a random suffix; we do not).
    claim = ResourceClaim(
        metadata=msgspec.structs.replace(
            meta, name=f"{pod.metadata.name}-{pod_claim}", namespace=ns,
            annotations={**meta.annotations, POD_CLAIM_ANNOTATION: pod_claim},
            owner_references=[OwnerReference(api_version="v1", kind="Pod", name=pod.metadata.name,
                                             uid=pod.metadata.uid or "", controller=True,
                                             block_owner_deletion=True)]),
        spec=template.spec.spec, status=ResourceClaimStatus())
    return apply_claim_defaults(claim)


def _extended_claim(state: ClusterState, pod: Pod) -> tuple[PodClaim, ResourceClaim] | None:
    """The claim the scheduler made for the pod's extended resources served by DRA (pod status names it),
    with what the pod asked for (`nvidia.com/gpu: 2`, from its allocated devices or its requests)."""
    ext = pod.status.extended_resource_claim_status if pod.status is not None else None
    if ext is None or not ext.resource_claim_name:
        return None
    claim = state.claims.get((pod.metadata.namespace or "default", ext.resource_claim_name))
    if claim is None:
        return None
    allocation = claim.status.allocation if claim.status is not None else None
    names = [res.request for res in allocation.devices.results] if allocation is not None else _count_names(claim)
    return (PodClaim(EXTENDED_POD_CLAIM, claim_ref(claim), _claim_state(claim), extended_labels(ext, names)),
            claim)


def _count_names(claim: ResourceClaim) -> list[str]:
    """Each request's name once per device it asks for."""
    return [req.name for req in claim.spec.devices.requests
            for _ in range(req.exactly.count if req.exactly is not None and req.exactly.count else 1)]


def _by_claims(pending: list[ResourceClaim], extended: dict[str, ResourceClaim], nodes: list[Node]
               ) -> list[tuple[list[ResourceClaim], list[Node]]]:
    """The claims of each node's Allocate call (the pending ones, plus the node's extended-resource claim)
    and the nodes sharing them, in node order."""
    out: dict[int, tuple[list[ResourceClaim], list[Node]]] = {}
    for node in nodes:
        extra = extended.get(node.metadata.name)
        claims = [*pending, extra] if extra is not None else pending
        if claims:
            out.setdefault(id(extra), (claims, []))[1].append(node)
    return list(out.values())


def explain_pod(state: ClusterState, pod_key: Key, nodes: Sequence[str] | None = None, *,
                variant: str | None = None, share: bool = True) -> PodExplanation:
    """Explain a pod: its unallocated claims in one Allocate call per node, as the scheduler's filter does.

    Claims not created yet are built from their templates; the claim the scheduler made for the pod's
    DRA-backed extended resources is one of them. When every claim is already allocated, they
    are replayed as if unallocated on the nodes they are available on. Raises InputError when the pod
    or a named node does not exist.
    """
    pod = state.pods.get(pod_key)
    if pod is None:
        raise InputError(f"pod {_key_text(pod_key)} not found", obj=f"Pod/{_key_text(pod_key)}")
    ref = _key_text(pod_key)
    ex = PodExplanation(subject=f"pod {ref}", features=state.features.enabled(), pod=ref,
                        pod_group=_pod_group_text(state, pod))
    pending: list[ResourceClaim] = []
    allocated: list[ResourceClaim] = []
    entries = {e.name: e for e in pod.spec.resource_claims}
    for name, claim in state.pod_claims(pod):
        if claim is not None:
            ex.claims.append(PodClaim(name, claim_ref(claim), _claim_state(claim)))
            (allocated if _claim_state(claim) == "allocated" else pending).append(claim)
            continue
        entry = entries[name]
        if entry.resource_claim_template_name:
            made = _from_template(state, pod, name, entry.resource_claim_template_name)
            if made is None:
                ex.problems.append(f"pod claim {name}: resourceclaimtemplate "
                                   f"{entry.resource_claim_template_name} not found")
                ex.claims.append(PodClaim(name, None, "missing"))
            else:
                ex.claims.append(PodClaim(name, claim_ref(made), "from-template"))
                pending.append(made)
        else:
            wanted = entry.resource_claim_name or "(no claim name or template)"
            ex.problems.append(f"pod claim {name}: resourceclaim {wanted} not found; "
                               "the scheduler waits for it to be created")
            ex.claims.append(PodClaim(name, None, "missing"))
    extended = _extended_claim(state, pod)
    if extended is not None:
        ex.claims.append(extended[0])
        (allocated if extended[0].state == "allocated" else pending).append(extended[1])
    in_use = state.in_use
    fixed = allocated
    if not pending and allocated:
        pending, fixed = allocated, []
        in_use = without(state, allocated)
    picked: list[Node] = []
    rejected = _node_filters(state, pod)
    rejected = held_by_claims(state, rejected) | insufficient_by_claims(
        state, pod, [n for n in state.nodes if n not in rejected])
    for node in _pick_nodes(state, nodes):
        why = rejected.get(node.metadata.name)
        if why is None and pod.spec.node_name and not state.nodes and node.metadata.name != pod.spec.node_name:
            why = f"the pod is bound to node {pod.spec.node_name}"
        if why is None:
            for c in fixed:
                alloc = c.status.allocation if c.status is not None else None
                if alloc is not None and _selector_excludes(alloc.node_selector, node):
                    why = f"claim {claim_ref(c)} is already allocated for other nodes"
                    break
        if why is None:
            picked.append(node)
        else:
            ex.excluded_nodes.append(ExcludedNode(node.metadata.name, why))
    per_node = Scheduler().extended_claims(state, pod) if extended is None and not pod.spec.node_name else {}
    for claims, at in _by_claims(pending, {n: c for n, (c, _) in per_node.items()}, picked):
        _run(ex, state, claims, in_use, at, variant, share)
    if per_node and not pending:
        ex.excluded_nodes += [ExcludedNode(n.metadata.name, "its device plugin serves the pod's extended resources: "
                                           "no claim is made there") for n in picked if n.metadata.name not in per_node]
    if per_node:  # what the pod asks for; per node only the resources no device plugin there serves
        claim, status = next(iter(per_node.values()))
        ex.claims.append(PodClaim(EXTENDED_POD_CLAIM, None, "made-by-scheduler",
                                  extended_labels(status, _count_names(claim))))
    ex.hints.extend(replica_hints(state, [*pending, *fixed], pod=pod))
    ex.hints.extend(unbacked_hints(state, pod))
    return ex


def _pod_group_text(state: ClusterState, pod: Pod) -> str | None:
    """The pod's PodGroup: its policy, its pods bound so far, the claims the pod shares with the group."""
    ref = pod.spec.scheduling_group
    if ref is None or not ref.pod_group_name:
        return None
    ns = pod.metadata.namespace or "default"
    group = pod_group_of(state, pod)
    if group is None:
        return (f"PodGroup {ns}/{ref.pod_group_name} does not exist: with GangScheduling the scheduler keeps the "
                "pod out of its queue until it does")
    members = group_pods(state, ns, ref.pod_group_name)
    bound = sum(1 for k in members if state.pods[k].spec.node_name)
    policy = f"gang, minCount {min_count(group)}" if group.spec.scheduling_policy.gang is not None else "basic"
    shared = [e.name for e in pod.spec.resource_claims if group_claim_name(state, pod, e) is not None]
    text = f"PodGroup {ns}/{ref.pod_group_name} ({policy}): {bound} of its {len(members)} pods bound"
    return text + (f"; claims shared with the group: {', '.join(shared)}" if shared else "")


def device_outcomes(state: ClusterState, claim_key: Key, node: str) -> dict[str, list[DeviceOutcome]]:
    """Per alternative (`ns/claim:req[/sub]`), every device of the node in search order with the first
    reason the allocator would skip it when nothing else is being allocated (None = usable)."""
    claim = state.claims.get(claim_key)
    if claim is None:
        raise InputError(f"resourceclaim {_key_text(claim_key)} not found")
    ctx = Context(state, state.in_use, [claim], None)
    return analyse_node(ctx, _pick_nodes(state, [node])[0], keep=True)[1]

