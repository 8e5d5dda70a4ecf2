"""The report types of an explanation (per node group, claim, request and alternative) and the reason codes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drasim.allocator import DeviceID
from drasim.allocator.checks import REASON_ORDER

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
    "Placement",
    "PodClaim",
    "PodExplanation",
    "PoolReport",
    "ReasonCount",
    "RequestReport",
    "Verdict",
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
class Hint:
    """A named trap, with what to do about it. `code` is stable (JSON), `message` is for people."""

    code: str
    message: str
    # Objects the hint is about that differ from node to node (e.g. the claims holding devices): kept
    # out of node grouping and merged over a group's nodes.
    subjects: list[str] = field(default_factory=list)


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

    def to_dict(self) -> dict[str, Any]:
        """`drasim explain -o json`'s data (explain.render.to_dict)."""
        from drasim.explain.render import to_dict  # render reads this module

        return to_dict(self)

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
    """One `pod.spec.resourceClaims` entry, or the claim the scheduler made for the pod's DRA-backed extended
    resources: `state` is allocated, pending, from-template, made-by-scheduler (not created yet: the scheduler
    makes it per node) or missing."""

    name: str
    claim: str | None
    state: str
    # The extended-resource claim (no spec.resourceClaims entry): what the pod asked for, `nvidia.com/gpu: 2`.
    extended: list[str] = field(default_factory=list)


@dataclass
class Placement:
    """Where the simulation scheduled a pod: its node, the alternatives its claims got, the node's weighted
    per-plugin scores in that cycle, and the best feasible node that offered a higher `firstAvailable`
    alternative (None: no node did) with its scores."""

    node: str
    alternatives: list[str]
    scores: dict[str, int]
    higher_node: str | None = None
    higher_scores: dict[str, int] = field(default_factory=dict)


@dataclass(kw_only=True)
class PodExplanation(Explanation):
    """`explain_pod` / `explain_claims`: the claims of one Allocate call."""

    pod: str | None = None
    claims: list[PodClaim] = field(default_factory=list)
    placement: Placement | None = None
    # The pod's PodGroup in words (policy, how many of its pods are bound, the claims it shares); None: no group.
    pod_group: str | None = None


@dataclass
class DeviceOutcome:
    """One device for one alternative, in search order: `reason` None means usable on its own."""

    device: DeviceID
    reason: str | None
    detail: str = ""

