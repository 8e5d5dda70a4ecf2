"""Why a claim or pod got what it got, or nothing: per node, request and reason, beside the allocator's verdict."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import msgspec

from drasim.allocator import AllocatedState, AllocationError, Allocator, DeviceID, NodeLocalError
from drasim.allocator.budget import FILTER_BUDGET_STEPS
from drasim.allocator.cache import Candidate, NodeView, SliceCache
from drasim.allocator.checks import REASON_ORDER, Rejection, untolerated_taint
from drasim.allocator.constraints import Constraint, DistinctAttribute, MatchAttribute, lookup_attribute
from drasim.allocator.pools import Pool, slice_relevant
from drasim.api.claims import claim_ref
from drasim.api.core import Node, Pod
from drasim.api.defaults import apply_claim_defaults
from drasim.api.meta import NodeSelector, ObjectMeta, OwnerReference
from drasim.api.nodeaffinity import NodeSelectorError, selector_matches
from drasim.api.resource import (
    AllocationResult,
    DeviceAttribute,
    DeviceClass,
    DeviceSubRequest,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimStatus,
    ResourceSlice,
)
from drasim.cluster.state import ClusterState, Key
from drasim.errors import InputError
from drasim.explain import hints as H
from drasim.explain.hints import POD_CLAIM_ANNOTATION, Hint
from drasim.scheduler import Scheduler

__all__ = [
    "MAX_EXAMPLES",
    "REASONS",
    "AllocatedDevice",
    "AlternativeReport",
    "ClaimExplanation",
    "ClaimReport",
    "ConstraintReport",
    "DeviceOutcome",
    "ExcludedNode",
    "Explanation",
    "Hint",
    "NodeGroup",
    "PodClaim",
    "PodExplanation",
    "PoolReport",
    "ReasonCount",
    "RequestReport",
    "Verdict",
    "device_outcomes",
    "explain_claim",
    "explain_claims",
    "explain_pod",
]

# Reason codes (stable, used in JSON) and their labels, in the order the allocator checks them.
_LABELS = {
    "in-use": "already allocated",
    "binding-conditions": "binding conditions (feature off)",
    "class-selector": "class selector false",
    "request-selector": "request selector false",
    "cel-error": "CEL error",
    "node-selection": "not available on this node",
    "capacity": "consumable capacity",
    "counters-unsupported": "consumes counters (partitionable devices off)",
    "counters": "shared counter exhausted",
    "taint": "taint not tolerated",
    "constraint": "constraint not satisfiable",
}
REASONS: dict[str, str] = {
    "pool-incomplete": "pool incomplete (being updated)",
    "pool-obsolete": "pool obsolete (newer generation exists)",
    "pool-invalid": "pool invalid",
    **{code: _LABELS[code] for code in REASON_ORDER},  # the allocator's checks, in its order
}

MAX_EXAMPLES = 5


# --- the structured answer ----------------------------------------------------------------------


@dataclass
class ReasonCount:
    """How many devices one reason excluded; `detail` never names a node, `examples` may."""

    reason: str
    label: str
    detail: str
    count: int
    examples: list[str] = field(default_factory=list)


@dataclass
class AlternativeReport:
    """One request (`exactly`) or one `firstAvailable` alternative (`req/sub`) on one node (group)."""

    name: str
    device_class: str
    mode: str
    needed: int | None  # ExactCount: count; All: None (every matching device)
    admin_access: bool
    considered: int  # devices of the pools the node sees, usable or not
    usable: int  # devices that pass every check when nothing else is being allocated
    excluded: list[ReasonCount] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str | None = None  # a preparation error: the allocator fails the whole call
    # Only for firstAvailable: the allocator's answer when this alternative is the only one.
    forced: str | None = None  # "allocated" | "unsatisfiable" | "error"
    forced_error: str | None = None
    chosen: bool = False


@dataclass
class RequestReport:
    """A request of a claim with its alternatives (one for an `exactly` request)."""

    name: str
    first_available: bool
    alternatives: list[AlternativeReport] = field(default_factory=list)


@dataclass
class ConstraintReport:
    """A claim constraint: which attribute values the usable devices of each affected request carry."""

    kind: str  # matchAttribute | distinctAttribute
    attribute: str
    requests: list[str]  # as written; empty = every request
    values: dict[str, list[str]] = field(default_factory=dict)  # alternative -> "value (n)"
    satisfiable: bool | None = None  # None: not decided here (the verdict decides)
    note: str = ""


@dataclass
class ClaimReport:
    """One claim's requests and constraints on one node (group)."""

    claim: str
    requests: list[RequestReport] = field(default_factory=list)
    constraints: list[ConstraintReport] = field(default_factory=list)


@dataclass
class PoolReport:
    """A pool the node sees but the allocator does not use."""

    pool: str
    state: str  # incomplete | obsolete | invalid
    detail: str
    devices: int
    slice_count: int | None = None  # resourceSliceCount of the generation the node sees
    slices_present: int | None = None  # slices of that generation in the cluster
    generation: int | None = None
    newest_generation: int | None = None


@dataclass
class AllocatedDevice:
    """One result of an allocation: `request` is `req` or `req/sub`."""

    claim: str
    request: str
    device: str


@dataclass
class Verdict:
    """What `Allocator.allocate(node, claims)` returned."""

    status: str  # allocated | unsatisfiable | error
    error: str | None = None
    node_local: bool = False
    devices: list[AllocatedDevice] = field(default_factory=list)


@dataclass
class NodeGroup:
    """Nodes that got the same answer (same verdict, counts, reasons and hints)."""

    nodes: list[str]
    verdict: Verdict
    claims: list[ClaimReport] = field(default_factory=list)
    pools: list[PoolReport] = field(default_factory=list)
    hints: list[Hint] = field(default_factory=list)
    problem: str | None = None  # the node's pools could not be gathered


@dataclass
class ExcludedNode:
    """A node not analysed, and why (the pod's node selection, an allocated claim's node selector)."""

    node: str
    reason: str


@dataclass(kw_only=True)
class Explanation:
    """What is common to claim and pod explanations."""

    subject: str
    features: list[str]
    groups: list[NodeGroup] = field(default_factory=list)
    excluded_nodes: list[ExcludedNode] = field(default_factory=list)
    # firstAvailable alternative (`req/sub`) -> nodes where it alone would be allocated.
    alternatives: dict[str, list[str]] = field(default_factory=dict)
    hints: list[Hint] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def allocatable_nodes(self) -> list[str]:
        return [n for g in self.groups if g.verdict.status == "allocated" for n in g.nodes]


@dataclass(kw_only=True)
class ClaimExplanation(Explanation):
    """`explain_claim`: one claim; for an allocated claim, its allocation replayed without itself."""

    claim: str
    allocated: bool = False
    allocation: list[AllocatedDevice] = field(default_factory=list)


@dataclass
class PodClaim:
    """One `pod.spec.resourceClaims` entry: `state` is allocated, pending, from-template or missing."""

    name: str
    claim: str | None
    state: str


@dataclass(kw_only=True)
class PodExplanation(Explanation):
    """`explain_pod` / `explain_claims`: the claims of one Allocate call."""

    pod: str | None = None
    claims: list[PodClaim] = field(default_factory=list)


@dataclass
class DeviceOutcome:
    """One device for one alternative, in search order: `reason` None means usable on its own."""

    device: DeviceID
    reason: str | None
    detail: str = ""


# --- one alternative, as the allocator prepares it -----------------------------------------------


@dataclass
class _Alt:
    ci: int
    claim: ResourceClaim
    base: str
    sub: str
    request: ExactDeviceRequest | DeviceSubRequest
    cls: DeviceClass | None
    problem: str | None = None  # the allocator's preparation error (from its probe)

    @property
    def name(self) -> str:
        return f"{self.base}/{self.sub}" if self.sub else self.base

    @property
    def admin(self) -> bool:
        return bool(getattr(self.request, "admin_access", None))

    @property
    def mode(self) -> str:
        return self.request.allocation_mode or ""


def _alternatives(claim: ResourceClaim, ci: int, classes: dict[str, DeviceClass]) -> list[list[_Alt]]:
    """Each request's alternatives (the request itself for `exactly`), in spec order."""
    out: list[list[_Alt]] = []
    for request in claim.spec.devices.requests:
        subs = request.first_available or []
        targets: list[tuple[str, ExactDeviceRequest | DeviceSubRequest]] = (
            [(s.name, s) for s in subs] if subs
            else [("", request.exactly if request.exactly is not None else ExactDeviceRequest())])
        out.append([_Alt(ci, claim, request.name, sub, req,
                         classes.get(req.device_class_name) if req.device_class_name else None)
                    for sub, req in targets])
    return out


@dataclass
class _Con:
    kind: str
    attribute: str
    requests: list[str]
    rule: Constraint


def _constraint_views(prepared: list[Constraint], claim: ResourceClaim) -> list[_Con]:
    """The allocator's prepared constraints of a claim beside their spec (the allocator may skip some)."""
    out = []
    left = list(prepared)
    for spec in claim.spec.devices.constraints:
        if not left:
            break
        con = left[0]
        if spec.match_attribute is not None and isinstance(con, MatchAttribute):
            out.append(_Con("matchAttribute", con.attribute, list(spec.requests), left.pop(0)))
        elif spec.distinct_attribute is not None and isinstance(con, DistinctAttribute) \
                and con.attribute == spec.distinct_attribute:
            out.append(_Con("distinctAttribute", con.attribute, list(spec.requests), left.pop(0)))
    return out


# --- what the allocator says about each device ---------------------------------------------------

# Per (claim index, alternative name): (position in the node's search order, rejection or None = usable).
Outcomes = dict[tuple[int, str], list[tuple[int, Rejection | None]]]


class _Listener:
    """The allocator's reporter during a probe: every device's verdict per alternative, by position."""

    def __init__(self, view: NodeView) -> None:
        self.pos = {c.id: i for i, c in enumerate(view.candidates)}
        self.outcomes: Outcomes = {}
        self.problems: dict[tuple[int, str], str] = {}

    def rejected(self, claim: int, request: str, cand: Candidate, why: Rejection) -> None:
        self.outcomes.setdefault((claim, request), []).append((self.pos[cand.id], why))

    def usable(self, claim: int, request: str, cand: Candidate) -> None:
        self.outcomes.setdefault((claim, request), []).append((self.pos[cand.id], None))

    def problem(self, claim: int, request: str, message: str) -> None:
        self.problems[(claim, request)] = message


@dataclass
class _Probe:
    """What the allocator answers for one node: shared by every node with the same search signature."""

    verdict: Verdict
    forced: dict[tuple[int, int, int], Verdict]
    outcomes: Outcomes
    problems: dict[tuple[int, str], str]
    constraints: list[list[_Con]]
    fits_when_free: bool | None = None  # with nothing allocated (the preemption hint); None: not asked


def _probe(ctx: _Ctx, node: Node, view: NodeView) -> _Probe:
    verdict = ctx.run(ctx.allocator, node, ctx.claims)
    forced: dict[tuple[int, int, int], Verdict] = {}
    for ci, claim in enumerate(ctx.claims):
        for ri, request in enumerate(claim.spec.devices.requests):
            for si in range(len(request.first_available or ())):
                forced[(ci, ri, si)] = ctx.run(ctx.allocator, node, _force(ctx.claims, ci, ri, si))
    listener = _Listener(view)
    prepared = ctx.allocator.probe(node, ctx.claims, listener)
    cons = [_constraint_views(p, c) for p, c in zip(prepared, ctx.claims, strict=True)]
    probe = _Probe(verdict, forced, listener.outcomes, listener.problems, cons)
    if verdict.status == "unsatisfiable":
        free = Allocator(ctx.features, AllocatedState(), ctx.state.classes, ctx.cache, variant=ctx.variant)
        probe.fits_when_free = ctx.run(free, node, ctx.claims).status == "allocated"
    return probe


_Why = tuple[str, str, str]  # (reason, detail, example)


class _Node:
    """One node's view while its answer is put into words: its devices, holders and usable devices."""

    def __init__(self, ctx: _Ctx, node: Node, view: NodeView, probe: _Probe) -> None:
        self.ctx = ctx
        self.node = node
        self.view = view
        self.probe = probe
        self.holders_seen: set[str] = set()
        # Usable devices per (claim index, alternative name), for the constraint analysis and the hints.
        self.usable_by_alt: dict[tuple[int, str], list[Candidate]] = {}

    def words(self, alt: _Alt, cand: Candidate, why: Rejection) -> _Why:
        """The allocator's rejection with this node's example (device, holders, the taint's rule)."""
        ctx = self.ctx
        if why.reason == "in-use":
            holders = ctx.holders.get(cand.id)
            who = ", ".join(holders) if holders else "in use, no claim in the input holds it"
            if not why.detail:
                self.holders_seen.update(holders or ())
            return ("in-use", why.detail, f"{cand.id} ({who})")
        if why.reason == "counters":
            holders = ctx.counter_holders(cand.pool, why.subject)
            self.holders_seen.update(holders)
            return ("counters", why.detail, str(cand.id) + (f" (counters held by {', '.join(holders)})"
                                                            if holders else ""))
        if why.reason == "taint":
            taint = untolerated_taint(cand.device, alt.request.tolerations)
            rule = ctx.taint_rule_of(cand.id, taint.key, taint.value, taint.effect) if taint is not None else None
            return ("taint", why.detail + (f" (from DeviceTaintRule {rule})" if rule else ""), str(cand.id))
        return (why.reason, why.detail, str(cand.id))


# --- the context of one explanation ------------------------------------------------------------


class _Ctx:
    def __init__(self, state: ClusterState, in_use: AllocatedState, claims: list[ResourceClaim],
                 variant: str | None) -> None:
        self.state = state
        self.features = state.features
        self.in_use = in_use
        self.claims = claims
        self.cache: SliceCache = state.slice_cache()
        self.allocator = Allocator(self.features, in_use, state.classes, self.cache, variant=variant)
        self.variant = self.allocator.variant
        self.holders = _holders(state, in_use)
        self.in_use_any = set(in_use.devices) | {d for d, _ in in_use.shared} | set(in_use.aggregated_capacity)
        self.alts = [_alternatives(c, ci, state.classes) for ci, c in enumerate(claims)]
        self._counter_holders: dict[tuple[str, str, str], list[str]] = {}
        # Search steps left for this explanation's allocator calls (one per node, one per forced
        # alternative, the preemption hint): each call gets at most the scheduler's budget, all of
        # them together twice that, so an explanation ends however many calls it makes.
        self.spare = EXPLAIN_BUDGET_STEPS

    def run(self, allocator: Allocator, node: Node, claims: list[ResourceClaim]) -> Verdict:
        """An allocator call within what is left of the explanation's step budget."""
        if self.spare <= 0:
            return Verdict("error", f"not searched: this explanation's allocator calls used up their "
                                    f"{EXPLAIN_BUDGET_STEPS} steps")
        allocator.max_steps = min(FILTER_BUDGET_STEPS, self.spare)
        try:
            return _verdict(allocator, node, claims)
        finally:
            self.spare -= allocator.stats.steps

    def counter_holders(self, pool: Pool, set_name: str) -> list[str]:
        key = (pool.driver, pool.name, set_name)
        found = self._counter_holders.get(key)
        if found is None:
            found = []
            for dev_id, consumption in pool.consumers:
                if dev_id in self.in_use_any and any(s == set_name for s, _ in consumption):
                    for h in self.holders.get(dev_id, []):
                        if h not in found:
                            found.append(h)
            self._counter_holders[key] = found
        return found

    def taint_rule_of(self, dev: DeviceID, key: str, value: str | None, effect: str) -> str | None:
        for name, rule in self.state.taint_rules.items():
            t = rule.spec.taint
            sel = rule.spec.device_selector
            if (t.key, t.value, t.effect) != (key, value, effect):
                continue
            if sel is None or ((sel.driver is None or sel.driver == dev.driver) and
                               (sel.pool is None or sel.pool == dev.pool) and
                               (sel.device is None or sel.device == dev.device)):
                return name
        return None


def _holders(state: ClusterState, in_use: AllocatedState) -> dict[DeviceID, list[str]]:
    """Which claims hold each device (exclusively or by a share)."""
    out: dict[DeviceID, list[str]] = {}
    for claim in state.claims.values():
        if claim.status is None or claim.status.allocation is None:
            continue
        for r in claim.status.allocation.devices.results:
            if r.admin_access:
                continue
            dev = DeviceID(r.driver, r.pool, r.device)
            if dev not in in_use.devices and dev not in in_use.aggregated_capacity and not any(
                    d == dev for d, _ in in_use.shared):
                continue  # the claim being replayed
            ref = claim_ref(claim)
            lst = out.setdefault(dev, [])
            if ref not in lst:
                lst.append(ref)
    return out


def _without(state: ClusterState, claims: Iterable[ResourceClaim]) -> AllocatedState:
    """The in-use state as if these claims were not allocated."""
    s = state.in_use.copy()
    for claim in claims:
        if claim.status is None or claim.status.allocation is None:
            continue
        for r in claim.status.allocation.devices.results:
            if r.admin_access:
                continue
            dev = DeviceID(r.driver, r.pool, r.device)
            if state.features.consumable_capacity and r.share_id:
                s.shared.discard((dev, r.share_id))
                total = s.aggregated_capacity.get(dev)
                if total is not None and r.consumed_capacity:
                    for name, q in r.consumed_capacity.items():
                        if name in total:
                            total[name] = total[name] - q
                    if all(v.is_zero() for v in total.values()):
                        del s.aggregated_capacity[dev]
            else:
                s.devices.discard(dev)
    return s


# --- one node ----------------------------------------------------------------------------------


class _Tally:
    """Reason counts of one alternative, in first-seen order."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], ReasonCount] = {}

    def add(self, why: _Why, n: int = 1) -> None:
        reason, detail, example = why
        rc = self.counts.get((reason, detail))
        if rc is None:
            rc = self.counts[(reason, detail)] = ReasonCount(reason, REASONS[reason], detail, 0)
        rc.count += n
        if example and len(rc.examples) < MAX_EXAMPLES:
            rc.examples.append(example)

    def sorted(self) -> list[ReasonCount]:
        order = list(REASONS)
        return sorted(self.counts.values(), key=lambda r: (order.index(r.reason), -r.count, r.detail))


def _unusable_pools(ctx: _Ctx, node: Node, view: NodeView) -> list[tuple[PoolReport, int]]:
    """Pools the node sees that the allocator does not search, with their device counts."""
    out: list[tuple[PoolReport, int]] = []
    for pool in view.pools:
        n = sum(len(s.spec.devices) for s in pool.slices)
        if pool.incomplete:
            some = pool.slices or pool.other_slices
            rp = some[0].spec.pool if some else None
            gen = rp.generation if rp is not None else None
            present = sum(1 for s in ctx.cache.by_pool.get((pool.driver, pool.name), ())
                          if s.spec.pool.generation == gen)
            count = rp.resource_slice_count if rp is not None else None
            detail = f"resourceSliceCount {count}, {present} slice(s) of generation {gen} present"
            out.append((PoolReport(pool.pool_id, "incomplete", detail, n, count, present, gen, gen), n))
        elif pool.invalid:
            out.append((PoolReport(pool.pool_id, "invalid", pool.invalid_reason, n), n))
    # Obsolete pools: relevant slices whose pool gather_pools dropped (a newer generation exists).
    seen = {(p.driver, p.name) for p in view.pools}
    f = ctx.features
    kept: dict[tuple[str, str], list[ResourceSlice]] = {}
    for slc in ctx.cache.by_node.get(node.metadata.name, []) + ctx.cache.unbound:
        key = (slc.spec.driver, slc.spec.pool.name)
        if key in seen:
            continue
        if not f.partitionable_devices and (slc.spec.per_device_node_selection is not None
                                            or slc.spec.shared_counters):
            continue
        try:
            if not slice_relevant(slc, node, f):
                continue
        except AllocationError:
            continue
        kept.setdefault(key, []).append(slc)
    for (driver, name), slices in sorted(kept.items()):
        top = max(s.spec.pool.generation for s in slices)
        newest = max(s.spec.pool.generation for s in ctx.cache.by_pool.get((driver, name), slices))
        n = sum(len(s.spec.devices) for s in slices if s.spec.pool.generation == top)
        detail = f"this node sees generation {top}, generation {newest} exists"
        out.append((PoolReport(f"{driver}/{name}", "obsolete", detail, n, generation=top,
                               newest_generation=newest), n))
    return out


def _analyse_alt(nd: _Node, alt: _Alt, unusable: list[tuple[PoolReport, int]], keep: bool
                 ) -> tuple[AlternativeReport, list[DeviceOutcome]]:
    req = alt.request
    all_mode = alt.mode == "All"
    alt.problem = nd.probe.problems.get((alt.ci, alt.name))
    rep = AlternativeReport(
        name=alt.name, device_class=req.device_class_name, mode=alt.mode or "(unset)",
        needed=None if all_mode else (req.count or 0), admin_access=alt.admin,
        considered=len(nd.view.candidates) + sum(n for _, n in unusable), usable=0, problem=alt.problem)
    tally = _Tally()
    for pool, n in unusable:
        if n:
            tally.add((f"pool-{pool.state}", "", pool.pool), n)
    outcomes: list[DeviceOutcome] = []
    if alt.problem is not None:
        rep.excluded = tally.sorted()
        return rep, outcomes
    cands = nd.view.candidates
    usable: list[Candidate] = []
    for pos, rejection in nd.probe.outcomes.get((alt.ci, alt.name), ()):
        cand = cands[pos]
        why = None if rejection is None else nd.words(alt, cand, rejection)
        if why is None:
            usable.append(cand)
        else:
            tally.add(why)
        if keep:
            outcomes.append(DeviceOutcome(cand.id, why[0] if why else None, why[1] if why else ""))
    rep.usable = len(usable)
    rep.excluded = tally.sorted()
    if all_mode:
        matching = rep.usable + sum(r.count for r in rep.excluded if r.reason in _AFTER_MATCH)
        blocked = [p.pool for p, _ in unusable if p.state in ("incomplete", "invalid")]
        if blocked:
            rep.notes.append(f"allocationMode All fails while a pool is incomplete or invalid: {', '.join(blocked)}")
        if matching == 0:
            rep.notes.append("allocationMode All needs at least one matching device; none matches")
        elif rep.usable < matching:
            rep.notes.append(f"allocationMode All needs every matching device: {matching} match, "
                             f"{matching - rep.usable} of them cannot be allocated")
    elif rep.needed is not None and rep.usable < rep.needed:
        rep.notes.append(f"needs {rep.needed} device(s), {rep.usable} usable")
    nd.usable_by_alt[(alt.ci, alt.name)] = usable
    return rep, outcomes


# Reasons found only after a device matched the selectors (for All: the device is required).
_AFTER_MATCH = {"in-use", "counters-unsupported", "counters", "taint", "constraint"}


def _attr_text(attr: DeviceAttribute) -> str | None:
    """A scalar attribute as text (strings quoted); None for lists and empty attributes."""
    if attr.string is not None:
        return json.dumps(attr.string)
    if attr.bool_ is not None:
        return "true" if attr.bool_ else "false"
    if attr.int_ is not None:
        return str(attr.int_)
    if attr.version is not None:
        return attr.version
    return None


def _constraint_reports(nd: _Node, ci: int) -> list[ConstraintReport]:
    """Values of each constraint's attribute among the usable devices of each affected alternative.

    For matchAttribute (scalar semantics) this can prove the constraint unsatisfiable: every affected
    device of a solution carries one common scalar value (when a solution has two or more of them),
    and devices usable on their own are a superset of those usable in any combination.
    """
    ctx = nd.ctx
    out: list[ConstraintReport] = []
    for con in nd.probe.constraints[ci]:
        rep = ConstraintReport(con.kind, con.attribute, con.requests)
        decidable = con.kind == "matchAttribute" and not ctx.features.list_type_attributes
        ok_sets: list[set[str]] = []
        needed = 0
        for alts in ctx.alts[ci]:
            affected = [a for a in alts if con.rule.applies(a.base, a.sub)]
            if not affected:
                continue
            request_ok: set[str] = set()
            for alt in affected:
                counts: dict[str, int] = {}
                for cand in nd.usable_by_alt.get((ci, alt.name), []):
                    attr = lookup_attribute(cand.device, cand.id.driver, con.attribute)
                    text = _attr_text(attr) if attr is not None else None
                    key = text if text is not None else _LIST_VALUE
                    counts[key] = counts.get(key, 0) + 1
                rep.values[alt.name] = [f"{v} ({n})" for v, n in sorted(counts.items())][:12]
                if alt.mode != "ExactCount" or alt.problem is not None:
                    decidable = False
                request_ok |= {v for v, n in counts.items() if n >= (alt.request.count or 0) and v != _LIST_VALUE}
            if len(affected) < len(alts):
                continue  # an unconstrained alternative exists: this request narrows nothing
            if not any(nd.usable_by_alt.get((ci, a.name)) for a in affected):
                decidable = False  # nothing usable at all: the cause lies elsewhere, not in the constraint
            ok_sets.append(request_ok)
            needed += min(a.request.count or 0 for a in affected)
        if decidable and ok_sets and needed >= 2:
            common = set.intersection(*ok_sets)
            rep.satisfiable = bool(common)
            if not common:
                rep.note = (f"no single value of {con.attribute} is carried by enough usable devices "
                            "of every affected request")
        out.append(rep)
    return out


_LIST_VALUE = "(list value)"
EXPLAIN_BUDGET_STEPS = 2 * FILTER_BUDGET_STEPS


def _verdict(allocator: Allocator, node: Node, claims: list[ResourceClaim]) -> Verdict:
    try:
        results = allocator.allocate(node, claims)
    except AllocationError as err:
        return Verdict("error", err.message, isinstance(err, NodeLocalError))
    if results is None:
        return Verdict("unsatisfiable")
    return Verdict("allocated", devices=_devices(claims, results))


def _devices(claims: Sequence[ResourceClaim], results: Sequence[AllocationResult]) -> list[AllocatedDevice]:
    return [AllocatedDevice(claim_ref(c), r.request, f"{r.driver}/{r.pool}/{r.device}")
            for c, res in zip(claims, results, strict=True) for r in res.devices.results]


def _force(claims: list[ResourceClaim], ci: int, ri: int, si: int) -> list[ResourceClaim]:
    """The claims with request `ri` of claim `ci` reduced to its alternative `si` (same `req/sub` name)."""
    claim = claims[ci]
    requests = list(claim.spec.devices.requests)
    req = requests[ri]
    assert req.first_available
    requests[ri] = msgspec.structs.replace(req, first_available=[req.first_available[si]])
    devices = msgspec.structs.replace(claim.spec.devices, requests=requests)
    forced = msgspec.structs.replace(claim, spec=msgspec.structs.replace(claim.spec, devices=devices))
    return [forced if i == ci else c for i, c in enumerate(claims)]


def _analyse_node(ctx: _Ctx, node: Node, keep: bool = False, probe: _Probe | None = None
                  ) -> tuple[NodeGroup, dict[str, list[DeviceOutcome]]]:
    """One node's answer: the allocator's (`probe`, when a node with the same search signature gave it)
    put into words with this node's devices."""
    outcomes: dict[str, list[DeviceOutcome]] = {}
    try:
        view = ctx.cache.view(node, ctx.features)
    except AllocationError as err:
        group = NodeGroup(nodes=[node.metadata.name], verdict=ctx.run(ctx.allocator, node, ctx.claims))
        group.problem = err.message
        return group, outcomes
    if probe is None:
        probe = _probe(ctx, node, view)
    group = NodeGroup(nodes=[node.metadata.name], verdict=probe.verdict)
    nd = _Node(ctx, node, view, probe)
    unusable = _unusable_pools(ctx, node, view)
    group.pools = [p for p, _ in unusable]
    chosen = {(d.claim, d.request) for d in probe.verdict.devices}
    for ci, claim in enumerate(ctx.claims):
        report = ClaimReport(claim_ref(claim))
        for ri, alts in enumerate(ctx.alts[ci]):
            request = claim.spec.devices.requests[ri]
            rr = RequestReport(request.name, bool(request.first_available))
            for si, alt in enumerate(alts):
                ar, outs = _analyse_alt(nd, alt, unusable, keep)
                if keep:
                    outcomes[f"{claim_ref(claim)}:{alt.name}"] = outs
                ar.chosen = (report.claim, alt.name) in chosen
                if rr.first_available:
                    v = probe.forced[(ci, ri, si)]
                    ar.forced, ar.forced_error = v.status, v.error
                rr.alternatives.append(ar)
            report.requests.append(rr)
        report.constraints = _constraint_reports(nd, ci)
        group.claims.append(report)
    group.hints = H.node_hints(ctx, nd, group)
    return group, outcomes


# --- grouping ----------------------------------------------------------------------------------


def _group_key(g: NodeGroup) -> str:
    d = asdict(g)
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
    return json.dumps(d, sort_keys=True, default=str)


def _merge(groups: list[NodeGroup]) -> list[NodeGroup]:
    by_key: dict[str, NodeGroup] = {}
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
         nodes: list[Node], variant: str | None) -> _Ctx:
    ctx = _Ctx(state, in_use, claims, variant)
    groups = [_analyse_node(ctx, node)[0] for node in nodes]
    ex.groups = _merge(groups)
    for g in ex.groups:
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
                  variant: str | None = None) -> ClaimExplanation:
    """Explain one claim on each node (default: all nodes; an allocated claim: the nodes it is available on).

    An allocated claim is replayed as if it were not allocated, so the answer shows why it got what it got.
    Raises InputError when the claim or a named node does not exist.
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
        ex.allocation = _devices([claim], [allocation])
        in_use = _without(state, [claim])
        keep = []
        for node in picked:
            if _selector_excludes(allocation.node_selector, node):
                ex.excluded_nodes.append(ExcludedNode(node.metadata.name, "the claim is allocated for other nodes"))
            else:
                keep.append(node)
        picked = keep
    _run(ex, state, [claim], in_use, picked, variant)
    ex.hints.extend(H.replica_hints(state, [claim]))
    return ex


def explain_claims(state: ClusterState, claim_keys: Sequence[Key], nodes: Sequence[str] | None = None, *,
                   variant: str | None = None, subject: str | None = None) -> PodExplanation:
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
    _run(ex, state, claims, state.in_use, _pick_nodes(state, nodes), variant)
    ex.hints.extend(H.replica_hints(state, claims))
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


def explain_pod(state: ClusterState, pod_key: Key, nodes: Sequence[str] | None = None, *,
                variant: str | None = None) -> PodExplanation:
    """Explain a pod: its unallocated claims in one Allocate call per node, as the scheduler's filter does.

    Claims not created yet are built from their templates. When every claim is already allocated, they
    are replayed as if unallocated on the nodes they are available on. Raises InputError when the pod
    or a named node does not exist.
    """
    pod = state.pods.get(pod_key)
    if pod is None:
        raise InputError(f"pod {_key_text(pod_key)} not found", obj=f"Pod/{_key_text(pod_key)}")
    ref = _key_text(pod_key)
    ex = PodExplanation(subject=f"pod {ref}", features=state.features.enabled(), pod=ref)
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
    in_use = state.in_use
    fixed = allocated
    if not pending and allocated:
        pending, fixed = allocated, []
        in_use = _without(state, allocated)
    picked: list[Node] = []
    rejected = _node_filters(state, pod)
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
    if pending:
        _run(ex, state, pending, in_use, picked, variant)
    ex.hints.extend(H.replica_hints(state, [*pending, *fixed], pod=pod))
    return ex


def device_outcomes(state: ClusterState, claim_key: Key, node: str) -> dict[str, list[DeviceOutcome]]:
    """Per alternative (`ns/claim:req[/sub]`), every device of the node in search order with the first
    reason the allocator would skip it when nothing else is being allocated (None = usable)."""
    claim = state.claims.get(claim_key)
    if claim is None:
        raise InputError(f"resourceclaim {_key_text(claim_key)} not found")
    ctx = _Ctx(state, state.in_use, [claim], None)
    return _analyse_node(ctx, _pick_nodes(state, [node])[0], keep=True)[1]

