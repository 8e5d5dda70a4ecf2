"""One explanation's context: claims' alternatives, device holders, allocator calls in one step budget."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import msgspec

from drasim.allocator import AllocatedState, AllocationError, Allocator, DeviceID, NodeLocalError
from drasim.allocator.budget import FILTER_BUDGET_STEPS
from drasim.allocator.cache import NodeView, SliceCache
from drasim.allocator.checks import Rejection
from drasim.allocator.constraints import Constraint
from drasim.allocator.pools import Pool
from drasim.api.claims import claim_ref
from drasim.api.core import Node
from drasim.api.resource import (
    AllocationResult,
    DeviceClass,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    ExactDeviceRequest,
    ResourceClaim,
)
from drasim.cluster.state import ClusterState
from drasim.explain.model import AllocatedDevice, Verdict
from drasim.scheduler.grouping import Shape, dynamic_signature, static_signature

__all__ = [
    "EXPLAIN_BUDGET_STEPS",
    "Alternative",
    "Context",
    "DeviceChecks",
    "Outcomes",
    "allocated_devices",
    "alternatives",
    "force",
    "without",
]

EXPLAIN_BUDGET_STEPS = 2 * FILTER_BUDGET_STEPS

# Per (claim index, alternative name): (position in the node's search order, rejection or None = usable).
Outcomes = dict[tuple[int, str], list[tuple[int, Rejection | None]]]
# What `Allocator.probe` answers for a node: every device's outcome, preparation problems, prepared constraints.
DeviceChecks = tuple[Outcomes, dict[tuple[int, str], str], list[list[Constraint]]]


# --- one alternative, as the allocator prepares it -----------------------------------------------


@dataclass
class Alternative:
    """One request (`exactly`) or one `firstAvailable` subrequest of claim number `ci`."""

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


def alternatives(claim: ResourceClaim, ci: int, classes: dict[str, DeviceClass]) -> list[list[Alternative]]:
    """Each request's alternatives (the request itself for `exactly`), in spec order."""
    out: list[list[Alternative]] = []
    for request in claim.spec.devices.requests:
        subs = request.first_available or []
        targets: list[tuple[str, ExactDeviceRequest | DeviceSubRequest]] = (
            [(s.name, s) for s in subs] if subs
            else [("", request.exactly if request.exactly is not None else ExactDeviceRequest())])
        out.append([Alternative(ci, claim, request.name, sub, req,
                                classes.get(req.device_class_name) if req.device_class_name else None)
                    for sub, req in targets])
    return out


# --- allocator answers shared by nodes with the same signature -----------------------------------


@dataclass
class _Answer:
    """An allocator call's verdict with its devices as positions in the node's search order, and its steps."""

    verdict: Verdict
    positions: list[int]
    steps: int

    def on(self, view: NodeView) -> Verdict:
        """The verdict for a node with the same signature: the devices at the same positions of its view."""
        v = self.verdict
        cands = view.candidates
        return Verdict(v.status, v.error, v.node_local,
                       [AllocatedDevice(d.claim, d.request, _device_text(cands[p].id))
                        for d, p in zip(v.devices, self.positions, strict=True)])


def _device_text(dev: DeviceID) -> str:
    return f"{dev.driver}/{dev.pool}/{dev.device}"


def _counter_pools(view: NodeView) -> list[str]:
    """Names of the pools whose counters an Allocate call on the node may look up."""
    return [p.name for p in view.pools if p.counter_totals or p.consumers]


# --- the context of one explanation ------------------------------------------------------------


class Context:
    """Everything one explanation's nodes share: claims, alternatives, holders, the allocator and its budget.

    With `share`, nodes whose answer must be the same (the scheduler's signature, `scheduler.grouping`) get
    one search: the others take its answer and are charged its steps, so the budget runs out where it
    would if every node were searched.
    """

    def __init__(self, state: ClusterState, in_use: AllocatedState, claims: list[ResourceClaim],
                 variant: str | None, share: bool = True) -> None:
        self.state = state
        self.features = state.features
        self.in_use = in_use
        self.claims = claims
        self.cache: SliceCache = state.slice_cache()
        self.allocator = Allocator(self.features, in_use, state.classes, self.cache, variant=variant)
        self.variant = self.allocator.variant
        self.holders = holders(state, in_use)
        self.in_use_any = set(in_use.devices) | {d for d, _ in in_use.shared} | set(in_use.aggregated_capacity)
        self.alts = [alternatives(c, ci, state.classes) for ci, c in enumerate(claims)]
        self._counter_holders: dict[tuple[str, str, str], list[str]] = {}
        # Search steps left for this explanation's allocator calls (one per node, one per forced
        # alternative, the preemption hint): each call gets at most the scheduler's budget, all of
        # them together twice that, so an explanation ends however many calls it makes.
        self.spare = EXPLAIN_BUDGET_STEPS
        self.share = share
        self._shape = Shape(claims, state.classes, 0)
        self._answers: dict[object, _Answer] = {}
        # The device checks of a node, by signature, where their words name nothing of the node (probe.py).
        self.device_checks: dict[object, DeviceChecks] = {}
        self._counter_pool_uses: dict[str, int] | None = None

    def prepare(self, nodes: Sequence[Node]) -> None:
        """Note the counter pools of the nodes to be explained (which nodes may share answers)."""
        uses: dict[str, int] = {}
        for node in nodes:
            try:
                view = self.cache.view(node, self.features)
            except AllocationError:
                continue
            for name in _counter_pools(view):
                uses[name] = uses.get(name, 0) + 1
        self._counter_pool_uses = uses

    def signature(self, node: Node, view: NodeView) -> tuple[object, ...] | None:
        """The scheduler's signature of the node for these claims; None when the node is searched alone.

        Not shared: nodes whose devices are not unique (positions would not name one device), and nodes
        with a counter pool whose name another pool of the explanation also has (the allocator caches
        available counters by pool name across calls: an answer could then depend on the nodes before).
        """
        uses = self._counter_pool_uses
        if not self.share or uses is None:
            return None
        if any(uses.get(name, 0) != 1 for name in _counter_pools(view)):
            return None
        cands = view.candidates
        if len({c.id for c in cands}) != len(cands):
            return None
        static = static_signature(self._shape, view, node, self.cache.memo, self.features)
        return (static, self.dynamic(view, self.in_use, self.allocator))

    def dynamic(self, view: NodeView, in_use: AllocatedState, allocator: Allocator) -> tuple[object, ...]:
        """The signature's part that existing allocations decide (in use, consumed capacity, free counters)."""
        return dynamic_signature(view, in_use, self.features.consumable_capacity,
                                 allocator.available_counters)  # type: ignore[arg-type]

    def run(self, allocator: Allocator, node: Node, claims: list[ResourceClaim],
            view: NodeView | None = None, key: object = None) -> Verdict:
        """An allocator call within what is left of the explanation's step budget.

        With a `key` (the node's signature and which call this is), the answer of an earlier node with the
        same key is taken when that search would end the same here: it ended by itself, in no more steps
        than this call may take.
        """
        if self.spare <= 0:
            return Verdict("error", f"not searched: this explanation's allocator calls used up their "
                                    f"{EXPLAIN_BUDGET_STEPS} steps")
        limit = min(FILTER_BUDGET_STEPS, self.spare)
        if key is not None and view is not None:
            found = self._answers.get(key)
            if found is not None and found.steps <= limit:
                self.spare -= found.steps
                return found.on(view)
        allocator.max_steps = limit
        try:
            verdict, ids = _verdict(allocator, node, claims)
        finally:
            self.spare -= allocator.stats.steps
        if key is not None and view is not None and key not in self._answers \
                and (verdict.status != "error" or verdict.node_local):
            # Fatal errors (and the deadline) are not shared: their text may name this node's devices.
            pos = {c.id: i for i, c in enumerate(view.candidates)} if ids else {}
            if all(d in pos for d in ids):
                self._answers[key] = _Answer(verdict, [pos[d] for d in ids], allocator.stats.steps)
        return verdict

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


def _held(claim: ResourceClaim) -> Iterator[tuple[DeviceRequestAllocationResult, DeviceID]]:
    """The devices an allocated claim holds (admin access holds nothing), with their results."""
    if claim.status is None or claim.status.allocation is None:
        return
    for r in claim.status.allocation.devices.results:
        if not r.admin_access:
            yield r, DeviceID(r.driver, r.pool, r.device)


def holders(state: ClusterState, in_use: AllocatedState) -> dict[DeviceID, list[str]]:
    """Which claims hold each device (exclusively or by a share)."""
    out: dict[DeviceID, list[str]] = {}
    for claim in state.claims.values():
        for _r, dev in _held(claim):
            if dev not in in_use.devices and dev not in in_use.aggregated_capacity and not any(
                    d == dev for d, _ in in_use.shared):
                continue  # the claim being replayed
            ref = claim_ref(claim)
            lst = out.setdefault(dev, [])
            if ref not in lst:
                lst.append(ref)
    return out


def without(state: ClusterState, claims: Iterable[ResourceClaim]) -> AllocatedState:
    """The in-use state as if these claims were not allocated."""
    s = state.in_use.copy()
    for claim in claims:
        for r, dev in _held(claim):
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


# --- one allocator call ------------------------------------------------------------------------


def _verdict(allocator: Allocator, node: Node, claims: list[ResourceClaim]) -> tuple[Verdict, list[DeviceID]]:
    try:
        results = allocator.allocate(node, claims)
    except AllocationError as err:
        return Verdict("error", err.message, isinstance(err, NodeLocalError)), []
    if results is None:
        return Verdict("unsatisfiable"), []
    ids = [DeviceID(r.driver, r.pool, r.device) for res in results for r in res.devices.results]
    return Verdict("allocated", devices=allocated_devices(claims, results)), ids


def allocated_devices(claims: Sequence[ResourceClaim], results: Sequence[AllocationResult]
                      ) -> list[AllocatedDevice]:
    """Each result of the claims' allocations, as explain lists it."""
    return [AllocatedDevice(claim_ref(c), r.request, f"{r.driver}/{r.pool}/{r.device}")
            for c, res in zip(claims, results, strict=True) for r in res.devices.results]


def force(claims: list[ResourceClaim], ci: int, ri: int, si: int) -> list[ResourceClaim]:
    """The claims with request `ri` of claim `ci` reduced to its alternative `si` (same `req/sub` name)."""
    claim = claims[ci]
    requests = list(claim.spec.devices.requests)
    req = requests[ri]
    assert req.first_available
    requests[ri] = msgspec.structs.replace(req, first_available=[req.first_available[si]])
    devices = msgspec.structs.replace(claim.spec.devices, requests=requests)
    forced = msgspec.structs.replace(claim, spec=msgspec.structs.replace(claim.spec, devices=devices))
    return [forced if i == ci else c for i, c in enumerate(claims)]
