"""One node's answer in words: per alternative the reasons devices were excluded, unused pools, constraints."""

from __future__ import annotations

import json

from drasim.allocator import AllocationError
from drasim.allocator.cache import Candidate, NodeView
from drasim.allocator.constraints import lookup_attribute
from drasim.allocator.pools import slice_relevant
from drasim.api.claims import claim_ref
from drasim.api.core import Node
from drasim.api.resource import DeviceAttribute, ResourceSlice
from drasim.explain.context import Alternative, Context
from drasim.explain.hints import node_hints
from drasim.explain.model import (
    MAX_EXAMPLES,
    REASONS,
    AlternativeReport,
    ClaimReport,
    ConstraintReport,
    DeviceOutcome,
    NodeGroup,
    PoolReport,
    ReasonCount,
    RequestReport,
)
from drasim.explain.probe import NodeFacts, Why, probe

__all__ = ["analyse_node"]


class _Tally:
    """Reason counts of one alternative, in first-seen order."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], ReasonCount] = {}

    def add(self, why: Why, n: int = 1) -> None:
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


def _unusable_pools(ctx: Context, node: Node, view: NodeView) -> list[tuple[PoolReport, int]]:
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


def _analyse_alt(nd: NodeFacts, alt: Alternative, unusable: list[tuple[PoolReport, int]], keep: bool
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


def _constraint_reports(nd: NodeFacts, ci: int) -> list[ConstraintReport]:
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


def analyse_node(ctx: Context, node: Node, keep: bool = False) -> tuple[NodeGroup, dict[str, list[DeviceOutcome]]]:
    """One node's answer: the allocator's (`probe.probe`) put into words with this node's devices; with `keep`,
    every device's outcome per alternative too."""
    outcomes: dict[str, list[DeviceOutcome]] = {}
    try:
        view = ctx.cache.view(node, ctx.features)
    except AllocationError as err:
        group = NodeGroup(nodes=[node.metadata.name], verdict=ctx.run(ctx.allocator, node, ctx.claims))
        group.problem = err.message
        return group, outcomes
    found = probe(ctx, node, view)
    group = NodeGroup(nodes=[node.metadata.name], verdict=found.verdict)
    nd = NodeFacts(ctx, node, view, found)
    unusable = _unusable_pools(ctx, node, view)
    group.pools = [p for p, _ in unusable]
    chosen = {(d.claim, d.request) for d in found.verdict.devices}
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
                    v = found.forced[(ci, ri, si)]
                    ar.forced, ar.forced_error = v.status, v.error
                rr.alternatives.append(ar)
            report.requests.append(rr)
        report.constraints = _constraint_reports(nd, ci)
        group.claims.append(report)
    group.hints = node_hints(ctx, nd, group)
    return group, outcomes
