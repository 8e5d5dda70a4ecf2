"""What the allocator answers for one node (verdicts, every device's checks) and the node's facts beside it."""

from __future__ import annotations

from dataclasses import dataclass

from drasim.allocator import AllocatedState, Allocator
from drasim.allocator.cache import Candidate, NodeView
from drasim.allocator.checks import Rejection, untolerated_taint
from drasim.allocator.constraints import Constraint, DistinctAttribute, MatchAttribute
from drasim.api.core import Node
from drasim.api.resource import ResourceClaim
from drasim.explain.context import Alternative, Context, DeviceChecks, Outcomes, force
from drasim.explain.model import Verdict

__all__ = ["ConstraintView", "NodeFacts", "Outcomes", "Probe", "Why", "probe"]


@dataclass
class ConstraintView:
    """A claim constraint as the allocator prepared it, beside its spec."""

    kind: str
    attribute: str
    requests: list[str]
    rule: Constraint


def _constraint_views(prepared: list[Constraint], claim: ResourceClaim) -> list[ConstraintView]:
    """The allocator's prepared constraints of a claim beside their spec (the allocator may skip some)."""
    out = []
    left = list(prepared)
    for spec in claim.spec.devices.constraints:
        if not left:
            break
        con = left[0]
        if spec.match_attribute is not None and isinstance(con, MatchAttribute):
            out.append(ConstraintView("matchAttribute", con.attribute, list(spec.requests), left.pop(0)))
        elif spec.distinct_attribute is not None and isinstance(con, DistinctAttribute) \
                and con.attribute == spec.distinct_attribute:
            out.append(ConstraintView("distinctAttribute", con.attribute, list(spec.requests), left.pop(0)))
    return out


# --- what the allocator says about each device ---------------------------------------------------

# Rejections whose words come from the claims or from what the signature records (taints, in use): the same
# on every node with the signature. CEL errors name the device, counter and capacity texts carry amounts
# in the slice's own spelling, node-selection errors the selector: nodes with those check their own devices.
_SAME_WORDS = frozenset({"in-use", "binding-conditions", "class-selector", "request-selector",
                         "counters-unsupported", "taint", "constraint"})


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
class Probe:
    """What the allocator answers for one node: the verdicts of its searches and every device's checks."""

    verdict: Verdict
    forced: dict[tuple[int, int, int], Verdict]
    outcomes: Outcomes
    problems: dict[tuple[int, str], str]
    constraints: list[list[ConstraintView]]
    fits_when_free: bool | None = None  # with nothing allocated (the preemption hint); None: not asked


def probe(ctx: Context, node: Node, view: NodeView) -> Probe:
    """The node's verdict, each `firstAvailable` alternative alone, every device's checks and, when the claims
    do not fit, whether they would with nothing allocated. The searches' answers come from an earlier node
    with the same signature when there is one (`Context.run`); the device checks are this node's own."""
    sig = ctx.signature(node, view)
    verdict = ctx.run(ctx.allocator, node, ctx.claims, view, None if sig is None else (sig, "verdict"))
    forced: dict[tuple[int, int, int], Verdict] = {}
    for ci, claim in enumerate(ctx.claims):
        for ri, request in enumerate(claim.spec.devices.requests):
            for si in range(len(request.first_available or ())):
                # The signature covers every alternative's selectors, so it decides the forced calls too.
                forced[(ci, ri, si)] = ctx.run(ctx.allocator, node, force(ctx.claims, ci, ri, si), view,
                                               None if sig is None else (sig, ci, ri, si))
    outcomes, problems, prepared = _device_checks(ctx, node, view, sig)
    cons = [_constraint_views(p, c) for p, c in zip(prepared, ctx.claims, strict=True)]
    found = Probe(verdict, forced, outcomes, problems, cons)
    if verdict.status == "unsatisfiable":
        free = Allocator(ctx.features, AllocatedState(), ctx.state.classes, ctx.cache, variant=ctx.variant)
        key = None if sig is None else (sig[0], ctx.dynamic(view, free.state, free), "free")
        found.fits_when_free = ctx.run(free, node, ctx.claims, view, key).status == "allocated"
    return found


def _device_checks(ctx: Context, node: Node, view: NodeView, sig: tuple[object, ...] | None) -> DeviceChecks:
    """Every device's checks per alternative (`Allocator.probe`), by position: an earlier node's with the same
    signature when their words are the same on every such node (no preparation problem either)."""
    if sig is not None:
        found = ctx.device_checks.get(sig)
        if found is not None:
            return found
    listener = _Listener(view)
    prepared = ctx.allocator.probe(node, ctx.claims, listener)
    checks = (listener.outcomes, listener.problems, prepared)
    if sig is not None and not listener.problems and all(
            why is None or why.reason in _SAME_WORDS for outs in listener.outcomes.values() for _, why in outs):
        ctx.device_checks[sig] = checks
    return checks


Why = tuple[str, str, str]  # (reason, detail, example)


class NodeFacts:
    """One node's view while its answer is put into words: its devices, holders and usable devices."""

    def __init__(self, ctx: Context, node: Node, view: NodeView, probe: Probe) -> None:
        self.ctx = ctx
        self.node = node
        self.view = view
        self.probe = probe
        self.holders_seen: set[str] = set()
        # Usable devices per (claim index, alternative name), for the constraint analysis and the hints.
        self.usable_by_alt: dict[tuple[int, str], list[Candidate]] = {}

    def words(self, alt: Alternative, cand: Candidate, why: Rejection) -> Why:
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
