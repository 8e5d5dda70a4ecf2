"""The allocator proper: per-claim preparation and the depth-first search over the node's devices.

The search reproduces upstream's `allocateOne` step for step (see spec §4.7): claims in call
order, requests in spec order, `firstAvailable` alternatives in list order, devices in
(pool, slice, device) order combined by increasing position; the first complete solution wins.
Around it: `request` (the data of one request alternative), `proof` (the counting proof),
`results` (the AllocationResult). The steps, the scans and `_try_add` with its rollback share one
call's state and stay together here, past 700 lines, as upstream keeps them in one allocator type.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from drasim.allocator import budget, checks
from drasim.allocator import capacity as cap
from drasim.allocator.budget import FILTER_BUDGET_STEPS, deadline_message
from drasim.allocator.cache import Candidate, NodeView, Number, SliceCache
from drasim.allocator.checks import Rejection, untolerated_taint
from drasim.allocator.constraints import (
    Constraint,
    DistinctAttribute,
    MatchAttribute,
    lookup_attribute,
    scalar_value,
)
from drasim.allocator.errors import AllocationError, DeadlineExceeded, NodeLocalError
from drasim.allocator.features import Features
from drasim.allocator.pools import Pool
from drasim.allocator.proof import cannot_fit
from drasim.allocator.request import UNKNOWN, Chosen, RequestData, alternatives, check_request
from drasim.allocator.results import Recipe, build_result, deterministic_share_id
from drasim.allocator.state import AllocatedState, DeviceID
from drasim.api.claims import claim_ref
from drasim.api.core import Node
from drasim.api.limits import ALLOCATION_RESULTS_MAX_SIZE
from drasim.api.quantity import Quantity
from drasim.api.resource import (
    AllocationResult,
    DeviceClass,
    ResourceClaim,
    ResourceSlice,
)


class _MaxExceeded(Exception):
    """Upstream's errAllocationResultMaxSizeExceeded: unwinds to the nearest firstAvailable."""


class _Unsatisfiable(Exception):
    """The counting proof holds: no branch of the search can succeed, so it stops at once."""


@dataclass
class AllocateStats:
    """What the last `allocate` call did; `steps` equals upstream's NumAllocateOneInvocations.

    `proven` is set when the search stopped early because it provably could not succeed.
    """

    steps: int = 0
    proven: bool = False


__all__ = ["AllocateStats", "Allocator", "SearchPath", "SearchReporter"]

# Where a successful search took its devices: per claim, the alternative each request settled on
# (`RequestData.selected`) and each device taken, in the order taken, as (request, alternative, position
# in the node's candidate list). See `Allocator.replay`.
SearchPath = tuple[tuple[tuple[int, ...], tuple[tuple[int, int, int], ...]], ...]


class SearchReporter(Protocol):
    """Hears what the search decides about each device (`Allocator(reporter=...)`; absent: no cost).

    `claim` is the claim's index in the call, `request` the request name (`req` or `req/sub`).
    """

    def rejected(self, claim: int, request: str, cand: Candidate, why: Rejection) -> None:
        """The search skipped the device for this request."""

    def usable(self, claim: int, request: str, cand: Candidate) -> None:
        """`Allocator.probe` only: the device passed every check for this request."""

    def problem(self, claim: int, request: str, message: str) -> None:
        """`Allocator.probe` only: preparing this request fails the whole call with `message`."""


# A search that has run this many steps scans each request's usable devices only (`_Run._usable`):
# smaller calls keep looking at devices one by one, so a call that stops at its first device never
# evaluates the selectors of the rest.
SKIP_AFTER_STEPS = 16
# Whether `_Run._take_counters` may check only the counters the device draws on (`_Run._plain_pools`);
# tests switch it off to compare with the check of every counter.
OWN_COUNTERS_ONLY = True
# How many (features, class, request) entries `_Run._know` keeps before starting over.
REQUEST_SHAPES_MAX = 4096

class Allocator:
    """Upstream `NewAllocator` + `Allocate`: one instance per scheduling cycle (fixed in-use state).

    `classes` maps class names to DeviceClasses. `memo` carries CEL results across calls for as
    long as the slices do not change. `max_steps` is a deterministic deadline (default: the budget
    that stands for the scheduler's filter timeout; None: none): past it a call fails with
    `filter operation aborted: ...` as upstream does when its filter timeout expires.
    `reporter` hears every device the search skips and why (upstream logs these at high verbosity).
    """

    def __init__(self, features: Features, state: AllocatedState, classes: Mapping[str, DeviceClass],
                 slices: Sequence[ResourceSlice] | SliceCache, *, max_steps: int | None = FILTER_BUDGET_STEPS,
                 new_share_id: Callable[[str, str, DeviceID, int], str] | None = None,
                 variant: str | None = None, reporter: SearchReporter | None = None) -> None:
        self.features = features
        self.reporter = reporter
        self.state = state
        self.classes = classes
        self.cache = slices if isinstance(slices, SliceCache) else SliceCache(slices)
        self.memo = self.cache.memo
        self.max_steps = max_steps
        self.new_share_id = new_share_id or deterministic_share_id
        # Which upstream implementation to mimic (stable lacks distinctAttribute); default: as upstream picks.
        self.variant = variant or features.variant()
        self.stats = AllocateStats()
        # Devices holding counters: exclusively allocated, shared, or with consumed capacity (built when a
        # pool with counters first needs it: most calls never do).
        self._in_use_any: set[DeviceID] | None = None
        # QUIRK: cached by pool name only, shared by every Allocate call of this allocator.
        self._available: dict[str, dict[str, dict[str, Number]]] = {}
        self._last: _Run | None = None  # the last successful call (last_path)

    def allocate(self, node: Node, claims: Sequence[ResourceClaim]) -> list[AllocationResult] | None:
        """One AllocationResult per claim, None when the claims do not fit on this node.

        Raises AllocationError (upstream's fatal errors) or NodeLocalError.
        """
        self.stats = AllocateStats()
        view = self.cache.view(node, self.features)
        run = _Run(self, node, list(claims), view)
        results = run.run()
        self._last = run if results is not None else None
        return results

    def last_path(self) -> SearchPath | None:
        """Where the last `allocate` call took its devices (None: it found no allocation)."""
        return self._last.path() if self._last is not None else None

    def last_recipe(self) -> Recipe | None:
        """The last `allocate` call's choices for `results.rebuild` on another node (None: it found no
        allocation, or took a shared device: share IDs and consumed capacity are the device's own)."""
        return self._last.recipe() if self._last is not None else None

    def replay(self, node: Node, claims: Sequence[ResourceClaim], path: SearchPath, view: NodeView | None = None
               ) -> list[AllocationResult] | None:
        """The claims' results from taking the devices of `path` (another node's search) on this node, one
        by one through the search's own checks; None when one of them refuses a device (`view`: the node's
        view of this allocator's slice cache, when the caller holds it).

        The search reads a node only through what grouping's signatures record (scheduler.grouping), so on a
        node with the same signature it takes the same steps and the devices at the same positions: Reserve
        replays the path of the node Filter ran the allocator on instead of searching again (upstream's
        Reserve likewise uses Filter's result for the node). The checks make a path that does not fit this
        node fail rather than allocate wrongly; the caller then searches.
        """
        self.stats = AllocateStats()
        view = view if view is not None else self.cache.view(node, self.features)
        return _Run(self, node, list(claims), view).replay(path)

    def probe(self, node: Node, claims: Sequence[ResourceClaim], reporter: SearchReporter) -> list[list[Constraint]]:
        """Each request alternative on its own, with nothing else being allocated: every device of the node
        goes through the search's own checks in search order and `reporter` hears `usable` or `rejected`
        (for `All`, devices are added cumulatively, as the search adds them). A request whose preparation
        fails is reported as a `problem`. Returns each claim's prepared constraints.

        Raises AllocationError when the node's pools cannot be gathered.
        """
        self.stats = AllocateStats()
        view = self.cache.view(node, self.features)
        return _Run(self, node, list(claims), view, reporter).probe()

    def available_counters(self, pool: Pool) -> dict[str, dict[str, Number]]:
        """Counters of the pool minus what allocated devices (on any node) consume."""
        found = self._available.get(pool.name)
        if found is not None:
            return found
        avail = {name: dict(counters) for name, counters in pool.counter_totals.items()}
        in_use = self._in_use_any
        if in_use is None and pool.consumers:
            state = self.state
            in_use = self._in_use_any = set(state.devices) | {d for d, _ in state.shared} | set(
                state.aggregated_capacity)
        for dev_id, consumption in pool.consumers:
            assert in_use is not None
            if dev_id not in in_use:
                continue
            for set_name, counters in consumption:
                have = avail.get(set_name)
                if have is None:
                    continue
                for name, amount in counters:
                    if name in have:
                        have[name] -= amount
        self._available[pool.name] = avail
        return avail


class _Run:
    """The state of one Allocate call (upstream's lower-case `allocator`)."""

    def __init__(self, alloc: Allocator, node: Node, claims: list[ResourceClaim], view: NodeView,
                 probing: SearchReporter | None = None) -> None:
        self.a = alloc
        self.rep = probing if probing is not None else alloc.reporter
        # Probing: scan every device of one request (nothing else allocating) instead of searching.
        self.probing = probing is not None
        self.why: Rejection | None = None  # why the last `_try_add` refused, when someone listens
        self.f = alloc.features
        self.node = node
        self.claims = claims
        self.view = view
        self.pools = view.pools
        self.requests: dict[tuple[int, int, int], RequestData] = {}
        self.constraints: list[list[Constraint]] = []
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Quantity]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Number]]] = {}
        self._plain: dict[str, Pool] | None = None
        self.results: list[list[Chosen]] = [[] for _ in claims]
        self.cands = view.candidates
        self._where: dict[int, int] | None = None  # `_positions`, built once for `path` and `recipe`
        # The step at which `_checkpoint` runs next: the proof, then the deadline.
        self.checkpoint = min(budget.PROOF_AFTER_STEPS, alloc.max_steps) if alloc.max_steps is not None \
            else budget.PROOF_AFTER_STEPS

    # --- preparation ------------------------------------------------------------------------

    def run(self) -> list[AllocationResult] | None:
        for ci, claim in enumerate(self.claims):
            self._prepare_claim(ci, claim)
        try:
            done = self._step(0, 0, 0, 0, False, 0)
        except _MaxExceeded:
            done = False
        except _Unsatisfiable:
            self.a.stats.proven = True
            done = False
        if not done:
            for pool in self.pools:
                if pool.invalid:
                    raise NodeLocalError("invalid resource pools were encountered")
            return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def _positions(self) -> dict[int, int]:
        """Each candidate's position by `id`, built once: the scheduler asks `path` and `recipe` in turn."""
        if self._where is None:
            self._where = {id(cand): pos for pos, cand in enumerate(self.cands)}
        return self._where

    def path(self) -> SearchPath:
        """`SearchPath` of this call's solution (after `run` found one)."""
        where = self._positions()
        keys = {id(data): key for key, data in self.requests.items()}
        out = []
        for ci, claim in enumerate(self.claims):
            selected = tuple(self.requests[(ci, ri, 0)].selected for ri in range(len(claim.spec.devices.requests)))
            taken = tuple((keys[id(r.req)][1], keys[id(r.req)][2], where[id(r.cand)]) for r in self.results[ci])
            out.append((selected, taken))
        return tuple(out)

    def recipe(self) -> Recipe | None:
        """`Allocator.last_recipe` of this call's solution (after `run` found one)."""
        where = self._positions()
        out = []
        for ci, claim in enumerate(self.claims):
            chosen = self.results[ci]
            if any(r.share_id is not None or r.consumed is not None for r in chosen):
                return None
            n = len(claim.spec.devices.requests)
            out.append((tuple((r.req, where[id(r.cand)]) for r in chosen),
                        tuple(self.requests[(ci, ri, 0)] for ri in range(n)),
                        tuple(self._chosen(ci, ri) for ri in range(n))))
        return tuple(out)

    def replay(self, path: SearchPath) -> list[AllocationResult] | None:
        """`Allocator.replay`: the claims prepared as `run` prepares them, then the path's devices added."""
        for ci, claim in enumerate(self.claims):
            self._prepare_claim(ci, claim)
        if len(path) != len(self.claims):
            return None
        for ci, (selected, taken) in enumerate(path):
            for ri, si in enumerate(selected):
                self.requests[(ci, ri, 0)].selected = si
            for ri, si, pos in taken:
                data = self.requests.get((ci, ri, si))
                if data is None or pos >= len(self.cands) or self._selectable((ci, ri, si), data, pos) is not None \
                        or self._try_add(ci, data, self.cands[pos], must=False) is None:
                    return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def probe(self) -> list[list[Constraint]]:
        """`Allocator.probe`: each alternative prepared and scanned on its own."""
        rep = self.rep
        assert rep is not None
        for claim in self.claims:
            try:
                self.constraints.append(self._claim_constraints(claim))
            except AllocationError:
                self.constraints.append([])  # the verdict reports it; the devices still get their reasons
        for ci, claim in enumerate(self.claims):
            ref = claim_ref(claim)
            for ri, request in enumerate(claim.spec.devices.requests):
                try:
                    check_request(self.f, ref, request)
                    request_problem = None
                except AllocationError as err:
                    request_problem = err.message
                for si, data in enumerate(alternatives(request)):
                    problem = request_problem
                    if problem is None:
                        try:
                            self.requests[(ci, ri, si)] = self._prepare_request(ci, ri, si, claim, data)
                        except AllocationError as err:
                            problem = err.message
                    if problem is not None:
                        rep.problem(ci, data.name, problem)
                        continue
                    self._probe_one(ci, ri, si, data)
        return self.constraints

    def _fresh(self) -> None:
        """Forget the attempt (undo keeps some counters, as upstream's backtracking does)."""
        self.allocating.clear()
        self.allocating_capacity.clear()
        self.consumed_counters.clear()

    def _probe_one(self, ci: int, ri: int, si: int, data: RequestData) -> None:
        rep = self.rep
        assert rep is not None
        self._fresh()
        if data.mode != "All":
            self._scan(ci, ri, si, 0, True, 0, data)  # reports every device; nothing is kept
            return
        undos = []
        for cand in data.all_devices or ():
            undo = self._try_add(ci, data, cand, must=False)
            if undo is None:
                rep.rejected(ci, data.name, cand, self.why or checks.IN_USE)
            else:
                rep.usable(ci, data.name, cand)
                undos.append(undo)
        for undo in reversed(undos):
            undo()

    def _prepare_claim(self, ci: int, claim: ResourceClaim) -> None:
        ref = claim_ref(claim)
        min_devices = 0
        for ri, request in enumerate(claim.spec.devices.requests):
            check_request(self.f, ref, request)
            fewest = None
            for si, data in enumerate(alternatives(request)):
                self.requests[(ci, ri, si)] = self._prepare_request(ci, ri, si, claim, data)
                fewest = data.num if fewest is None else min(fewest, data.num)
            min_devices += fewest or 0
        if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(
                f"claim {ref}: number of requested devices {min_devices} exceeds the claim limit of "
                f"{ALLOCATION_RESULTS_MAX_SIZE}")
        self.constraints.append(self._claim_constraints(claim))

    def _claim_constraints(self, claim: ResourceClaim) -> list[Constraint]:
        constraints: list[Constraint] = []
        list_types = self.f.list_type_attributes
        for i, con in enumerate(claim.spec.devices.constraints):
            if con.match_attribute is not None:
                constraints.append(MatchAttribute(con.requests, con.match_attribute, list_types))
            elif con.distinct_attribute is not None and self.a.variant != "stable":
                constraints.append(DistinctAttribute(con.requests, con.distinct_attribute, list_types))
            else:
                raise AllocationError(
                    f"claim {claim_ref(claim)}, constraint #{i}: empty constraint (unsupported constraint type?)")
        return constraints

    def _prepare_request(self, ci: int, ri: int, si: int, claim: ResourceClaim, data: RequestData) -> RequestData:
        ref = claim_ref(claim)
        for i, sel in enumerate(data.selectors):
            if sel.cel is None:
                raise AllocationError(f"claim {ref}, request {data.sub or data.base}, selector #{i}: "
                                      "CEL expression empty (unsupported selector type?)")
        name = data.sub or data.base
        if not self.f.admin_access and getattr(data.request, "admin_access", None) is not None:
            raise AllocationError(f"claim {ref}, request {name}: admin access is requested, but the feature "
                                  "is disabled")
        class_name = data.request.device_class_name
        if not class_name:
            raise AllocationError(f"claim {ref}, request {name}: missing device class name (unsupported "
                                  "request type?)")
        cls = self.a.classes.get(class_name)
        if cls is None:
            raise AllocationError(
                f"claim {ref}, request {name}: could not retrieve device class {class_name}: "
                f'deviceclass.resource.k8s.io "{class_name}" not found')
        data.cls = cls
        self._know(data)
        if data.mode == "ExactCount":
            data.num = data.request.count or 0
        elif data.mode == "All":
            data.all_devices = []
            rep = self.rep
            key = (ci, ri, si)
            # Probing reports incomplete and invalid pools itself: it looks at the devices of the others.
            if not self.probing:
                self._check_all_pools(ref, name)
            for pos, cand in enumerate(self.cands):
                why = self._selectable(key, data, pos)
                if why is None and self.f.consumable_capacity and not self._capacity_fits(data, cand):
                    why = self._capacity_why(data, cand)
                if why is None:
                    data.all_devices.append(cand)
                elif rep is not None:
                    rep.rejected(ci, data.name, cand, why)
            data.num = len(data.all_devices)
        else:
            raise AllocationError(f"claim {ref}, request {name}: unsupported count mode {data.mode}")
        return data

    def _check_all_pools(self, ref: str, name: str) -> None:
        """allocationMode All fails on incomplete or invalid pools; else its devices are the node's candidates."""
        for pool in self.pools:
            if pool.incomplete:
                raise AllocationError(f"claim {ref}, request {name}: asks for all devices, but resource "
                                      f"pool {pool.pool_id} is currently being updated")
            if pool.invalid:
                raise AllocationError(f"claim {ref}, request {name}: asks for all devices, but resource "
                                      f"pool {pool.pool_id} is currently invalid")

    # --- selection ----------------------------------------------------------------------------

    def _know(self, data: RequestData) -> None:
        """Attach what the node view already knows about the request's devices (upstream keeps a
        per-call match cache; drasim keeps it for as long as the slices do not change)."""
        f = self.f
        cls = data.cls
        # Replicas of one template share their request objects (controllers.resourceclaim.template_copy), so
        # the keys are worked out once per (features, class, request) and reused; the entry holds the three
        # objects and is used only while each is the very same one, so a reused id() never matches.
        shapes = self.a.cache.request_shapes
        memo_key = (id(f), id(cls), id(data.request))
        found = shapes.get(memo_key)
        if found is not None and found[0] is f and found[1] is cls and found[2] is data.request:
            selectors, shape = found[3], found[4]
        else:
            selectors = (
                f.device_binding_and_status,
                tuple(sel.cel.expression if sel.cel is not None else None for sel in cls.spec.selectors)
                if cls else (),
                tuple(sel.cel.expression if sel.cel is not None else None for sel in data.selectors))
            capacity = tuple(sorted((k, str(q)) for k, q in data.capacity.items())) if data.capacity else None
            tolerations = tuple((t.key, t.operator, t.value, t.effect) for t in data.tolerations)
            shape = (selectors, f.consumable_capacity, capacity, f.partitionable_devices, f.device_taints,
                     tolerations)
            if len(shapes) >= REQUEST_SHAPES_MAX:
                shapes.clear()  # claims made one by one (no template) would otherwise pin every request
            shapes[memo_key] = (f, cls, data.request, selectors, shape)
        verdicts = self.view.verdicts.get(selectors)
        if verdicts is None:
            verdicts = self.view.verdicts[selectors] = [UNKNOWN] * len(self.cands)
        data.verdicts = verdicts
        data.shape = shape
        data.usable = self.view.usable.get(shape)

    def _selectable(self, key: tuple[int, int, int], data: RequestData, pos: int) -> Rejection | None:
        """None when the device is selectable for the request; raises the fatal ones unless probing."""
        why = data.verdicts[pos]
        if why is UNKNOWN:
            # The cached verdict names no claim: only fatal ones carry words that do, and those are
            # worded again below for the claim at hand.
            why = data.verdicts[pos] = checks.selectable(
                self.a.memo, self.f, self.node, data.cls, data.selectors, "", self.cands[pos])
        if why is not None and why.fatal:
            why = checks.selectable(self.a.memo, self.f, self.node, data.cls, data.selectors,
                                    f"claim {claim_ref(self.claims[key[0]])}", self.cands[pos])
            assert why is not None
            if not self.probing:
                raise AllocationError(why.detail)
        return why

    def _usable(self, key: tuple[int, int, int], data: RequestData) -> list[int]:
        """The positions of the devices the request could ever take, in search order (memoised per node
        view and request shape).

        Left out is every device the scan would pass over whatever the search has chosen so far, and
        without a trace: a selector that is false; a capacity request that does not fit the device even
        unused (what others hold only adds to it); shared counters while partitionable devices are off;
        a taint the request does not tolerate (`_try_add` takes the counters first, but gives them back
        on a taint: no trace either). Devices whose selector fails stay in: the search raises that error
        when, and only when, it meets them. So a scan over these positions tries the same devices in the
        same order, with the same effects, as the scan over all of them; only the reporter, which hears
        every device, needs the full scan.
        """
        found = self.view.usable.get(data.shape)
        if found is None:
            f = self.f
            found = []
            for pos, cand in enumerate(self.cands):
                why = data.verdicts[pos]
                if why is UNKNOWN:
                    why = data.verdicts[pos] = checks.selectable(
                        self.a.memo, f, self.node, data.cls, data.selectors, "", cand)
                if why is not None:
                    if why.fatal:
                        found.append(pos)
                    continue
                dev = cand.device
                if f.consumable_capacity and not cap.fits(data.capacity, dev, None, None):
                    continue
                if not f.partitionable_devices and dev.consumes_counters:
                    continue
                if f.device_taints and dev.taints and untolerated_taint(dev, data.tolerations) is not None:
                    continue
                found.append(pos)
            self.view.usable[data.shape] = found
        data.usable = found
        return found

    def _capacity_fits(self, data: RequestData, cand: Candidate) -> bool:
        return cap.fits(data.capacity, cand.device, self.a.state.aggregated_capacity.get(cand.id),
                        self.allocating_capacity.get(cand.id))

    def _capacity_why(self, data: RequestData, cand: Candidate) -> Rejection:
        if self.rep is None:
            return checks.CAPACITY
        why = checks.capacity_rejection(data.capacity, cand.device, self.a.state.aggregated_capacity.get(cand.id),
                                        self.allocating_capacity.get(cand.id))
        return why or checks.CAPACITY

    def _in_use(self, dev_id: DeviceID) -> bool:
        return dev_id in self.a.state.devices or bool(self.allocating.get(dev_id))

    def _in_use_why(self, key: tuple[int, int, int], data: RequestData, pos: int) -> Rejection:
        """For a reporter: whether an in-use device would have mattered (the search never looks further)."""
        if self.probing:
            why = self._selectable(key, data, pos)
            if why is not None and not why.fatal:
                return checks.IN_USE_UNMATCHED
        return checks.IN_USE

    # --- the search ---------------------------------------------------------------------------

    def _step(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int) -> bool:
        a = self.a
        a.stats.steps += 1
        if a.stats.steps >= self.checkpoint:
            self._checkpoint()
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        if ri >= len(claim.spec.devices.requests):
            try:
                return self._step(ci + 1, 0, 0, 0, False, 0)
            except _MaxExceeded:
                return False  # swallowed at the claim boundary
        data = self.requests[(ci, ri, si)]
        if data.parent is not None and not in_sub:
            all_exceeded = True
            for sub_index in range(len(data.parent.first_available or [])):
                try:
                    ok = self._step(ci, ri, sub_index, di, True, 0)
                except _MaxExceeded:
                    continue
                all_exceeded = False
                if ok:
                    data.selected = sub_index
                    return True
            if all_exceeded:
                raise _MaxExceeded
            return False
        if data.mode == "All" and not data.all_devices:
            return False
        if di >= data.num:
            return self._step(ci, ri + 1, 0, 0, False, 0)
        if len(self.results[ci]) + data.num - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxExceeded
        if data.mode == "All":
            assert data.all_devices is not None
            undo = self._try_add(ci, data, data.all_devices[di], must=True)
            if undo is None:
                return False
            try:
                ok = self._step(ci, ri, si, di + 1, in_sub, 0)
            except BaseException:
                undo()
                raise
            if not ok:
                undo()
            return ok
        return self._scan(ci, ri, si, di, in_sub, start, data)

    def _scan(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int, data: RequestData) -> bool:
        """The devices from `start` on for device `di` of an ExactCount request, through the checks in order."""
        key = (ci, ri, si)
        cands = self.cands
        allocated = self.a.state.devices
        allocating = self.allocating
        admin = data.admin
        check_capacity = self.f.consumable_capacity
        rep = self.rep
        if rep is None:
            usable = data.usable
            if usable is None and self.a.stats.steps >= SKIP_AFTER_STEPS:
                usable = self._usable(key, data)
            if usable is not None:
                return self._scan_usable(ci, ri, si, di, in_sub, start, data, usable)
        for pos in range(start, len(cands)):
            cand = cands[pos]
            dev_id = cand.id
            # Checking "in use" is cheap, so it comes first (as upstream).
            if admin:
                if ci in allocating.get(dev_id, ()):
                    if rep is not None:
                        rep.rejected(ci, data.name, cand, checks.IN_USE)
                    continue
            elif dev_id in allocated or allocating.get(dev_id):
                if rep is not None:
                    rep.rejected(ci, data.name, cand, self._in_use_why(key, data, pos))
                continue
            why = self._selectable(key, data, pos)
            if why is None and check_capacity and not self._capacity_fits(data, cand):
                why = self._capacity_why(data, cand)
            if why is not None:
                if rep is not None:
                    rep.rejected(ci, data.name, cand, why)
                continue
            undo = self._try_add(ci, data, cand, must=False)
            if undo is None:
                if rep is not None:
                    rep.rejected(ci, data.name, cand, self.why or checks.IN_USE)
                continue
            if self.probing:
                assert rep is not None
                rep.usable(ci, data.name, cand)
                undo()
                self._fresh()
                continue
            try:
                ok = self._step(ci, ri, si, di + 1, in_sub, pos + 1)
            except BaseException:
                undo()
                raise
            if ok:
                return True
            undo()
        return False

    def _scan_usable(self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int, data: RequestData,
                     usable: list[int]) -> bool:
        """`_scan` over the request's usable positions (`_usable`), with no one listening."""
        key = (ci, ri, si)
        cands = self.cands
        allocated = self.a.state.devices
        allocating = self.allocating
        admin = data.admin
        verdicts = data.verdicts
        check_capacity = self.f.consumable_capacity
        aggregated = self.a.state.aggregated_capacity
        allocating_capacity = self.allocating_capacity
        match = self._first_match(ci, data)
        if match is not None and match.count:
            # The constraint holds a device, so its value is fixed for this whole scan (a device added
            # below is removed again before the next): only devices with that value can pass it.
            groups = self._with_value(data, match.attribute)
            if groups is not None:
                usable = groups.get(match.reference, [])
                match = None
        for i in range(bisect_left(usable, start), len(usable)):
            pos = usable[i]
            cand = cands[pos]
            dev_id = cand.id
            if admin:
                if ci in allocating.get(dev_id, ()):
                    continue
            elif dev_id in allocated or allocating.get(dev_id):
                continue
            if verdicts[pos] is not None:
                self._selectable(key, data, pos)  # a selector that fails: its error ends the call here
            if match is not None and match.rejects(cand.device, dev_id.driver):
                continue  # `_try_add` would refuse it at that constraint, leaving no trace (`_first_match`)
            # Unused, the device fits the request (`_usable`); only what others hold can change that.
            if check_capacity and (dev_id in aggregated or dev_id in allocating_capacity) \
                    and not self._capacity_fits(data, cand):
                continue
            undo = self._try_add(ci, data, cand, must=False)
            if undo is None:
                continue
            try:
                ok = self._step(ci, ri, si, di + 1, in_sub, pos + 1)
            except BaseException:
                undo()
                raise
            if ok:
                return True
            undo()
        return False

    def _with_value(self, data: RequestData, attribute: str) -> dict[object, list[int]] | None:
        """The request's usable positions grouped by the attribute's plain value (devices without one are
        left out: a matchAttribute that holds a device rejects them); memoised per node view.

        None when a usable device's selector fails: the scan must meet that error wherever the device
        is, whatever its value.
        """
        key = (data.shape, attribute)
        found = self.view.by_value.get(key)
        if found is None:
            assert data.usable is not None
            if any(data.verdicts[pos] is not None for pos in data.usable):
                return None
            found = self.view.by_value[key] = {}
            for pos in data.usable:
                cand = self.cands[pos]
                value = scalar_value(cand.device, cand.id.driver, attribute)
                if value is not None:
                    found.setdefault(value, []).append(pos)
        return found

    def _first_match(self, ci: int, data: RequestData) -> MatchAttribute | None:
        """The claim's first constraint that applies to the request, when it is a plain matchAttribute.

        `_try_add` refuses a device whose value that constraint rejects, after the checks that
        `_usable` settles and the counters, which it gives back. A device refused at the first applying
        constraint leaves no trace: constraints before it do not apply (their add and remove do
        nothing), while a later refusal would make earlier constraints forget (distinctAttribute) or
        narrow (list-typed matchAttribute) what they hold. So the scan may pass such a device over
        without calling `_try_add`, and the search stays the same.
        """
        for con in self.constraints[ci]:
            if con.applies(data.base, data.sub):
                return con if isinstance(con, MatchAttribute) and not con.list_types else None
        return None

    def _checkpoint(self) -> None:
        """The proof once the search has run `budget.PROOF_AFTER_STEPS` steps; the deadline past `max_steps`."""
        steps, limit = self.a.stats.steps, self.a.max_steps
        if limit is not None and steps > limit:
            raise DeadlineExceeded(deadline_message(limit))
        if steps == budget.PROOF_AFTER_STEPS and cannot_fit(
                self.f, self.claims, self.requests, self.cands, self.a.state.devices, self._selectable,
                self.a.available_counters):
            raise _Unsatisfiable
        self.checkpoint = limit + 1 if limit is not None else 1 << 62

    def _try_add(self, ci: int, data: RequestData, cand: Candidate, must: bool) -> Callable[[], None] | None:
        """Upstream `allocateDevice`: None when the device cannot be used (`self.why` says why when someone
        listens), else a rollback."""
        f = self.f
        dev, dev_id = cand.device, cand.id
        listening = self.rep is not None
        multi = f.consumable_capacity and bool(dev.allow_multiple_allocations)
        if not multi and data.admin and ci in self.allocating.get(dev_id, ()):
            self.why = checks.IN_USE
            return None
        if not data.admin and self._in_use(dev_id):
            self.why = checks.IN_USE
            return None
        if not f.partitionable_devices and dev.consumes_counters:
            self.why = checks.COUNTERS_UNSUPPORTED
            return None
        capacity_in_use = dev_id in self.a.state.aggregated_capacity or dev_id in self.allocating_capacity
        counters_taken = False
        if dev.consumes_counters and not (multi and capacity_in_use):
            if not self._take_counters(cand):
                return None
            counters_taken = True
        if f.device_taints and dev.taints:
            taint = untolerated_taint(dev, data.tolerations)
            if taint is not None:
                # Fix for kubernetes/kubernetes#140436: release the counters reserved above.
                if counters_taken:
                    self._release_counters(cand)
                self.why = checks.taint_rejection(taint) if listening else checks.TAINT
                return None
        constraints = self.constraints[ci]
        for i, con in enumerate(constraints):
            if not con.add(data.base, data.sub, dev, dev_id.driver):
                if must:
                    raise AllocationError(
                        f"claim {claim_ref(self.claims[ci])}, request {data.sub or data.base}: cannot add "
                        f"device {dev_id} because a claim constraint would not be satisfied")
                for earlier in constraints[:i]:
                    earlier.remove(data.base, data.sub, dev, dev_id.driver)
                if counters_taken:
                    self._release_counters(cand)  # the #140436 fix again
                if listening:
                    kind = "matchAttribute" if isinstance(con, MatchAttribute) else "distinctAttribute"
                    self.why = checks.constraint_rejection(
                        kind, con.attribute, lookup_attribute(dev, dev_id.driver, con.attribute) is not None)
                return None
        self.allocating.setdefault(dev_id, set())
        if not multi:
            self.allocating[dev_id].add(ci)
        consumed: dict[str, Quantity] | None = None
        share_id = None
        if f.consumable_capacity:
            if not self._capacity_fits(data, cand):
                # QUIRK: nothing above is rolled back on this path (upstream does the same).
                self.why = checks.CAPACITY
                return None
            if multi:
                consumed = cap.consumed_capacity(data.capacity, dev)
                nth = sum(1 for r in self.results[ci] if r.cand.id == dev_id)
                share_id = self.a.new_share_id(claim_ref(self.claims[ci]), data.name, dev_id, nth)
                cap.add_into(self.allocating_capacity.setdefault(dev_id, {}), consumed)
        results = self.results[ci]
        results.append(Chosen(data, cand, share_id, consumed or None))
        n = len(results) - 1

        def undo() -> None:
            for con in constraints:
                con.remove(data.base, data.sub, dev, dev_id.driver)
            self.allocating[dev_id].discard(ci)
            if multi:
                if consumed:
                    tally = self.allocating_capacity[dev_id]
                    cap.add_into(tally, consumed, -1)
                    if all(q.is_zero() for q in tally.values()):
                        del self.allocating_capacity[dev_id]
            elif f.partitionable_devices and dev.consumes_counters:
                # QUIRK: counters of a multi-allocatable device are not released on backtracking.
                self._release_counters(cand)
            del results[n:]

        return undo

    def _take_counters(self, cand: Candidate) -> bool:
        available = self.a.available_counters(cand.pool)
        if self.rep is None and self._plain_pools().get(cand.pool.name) is cand.pool:
            return self._take_own_counters(cand, available)
        consumed = self._tally(cand, 1)
        exceeded = checks.counters_exceeded(available, consumed)
        if exceeded is None:
            return True
        self.why = checks.counters_rejection(cand, available, consumed, *exceeded) if self.rep is not None \
            else checks.COUNTERS
        self._tally(cand, -1)
        return False

    def _plain_pools(self) -> dict[str, Pool]:
        """Pools whose counter check may look at the device's own counters only.

        `_take_counters` refuses a device when some counter's tally of this attempt would pass what is
        available. Every tally change keeps "no tally passes its counter" true, once it holds: a take
        that passes the check of every counter, a refused take undone, and releases, which only lower
        tallies when amounts are not negative. It holds when the attempt starts (empty tallies) if no
        counter is already overdrawn. Then only the counters the device adds to can pass theirs, and
        checking those answers the same. Tallies are kept by pool name (upstream's quirk), so a name two
        of the node's pools share is left to the full check.
        """
        found = self._plain
        if found is None:
            found = self._plain = {}
            if OWN_COUNTERS_ONLY:
                names = [pool.name for pool in self.pools]
                for pool in self.pools:
                    if names.count(pool.name) != 1 or not pool.consumers:
                        continue
                    available = self.a.available_counters(pool)
                    if pool.draws_nonnegative and all(
                            v >= 0 for counters in available.values() for v in counters.values()):
                        found[pool.name] = pool
        return found

    def _take_own_counters(self, cand: Candidate, available: dict[str, dict[str, Number]]) -> bool:
        """`_take_counters` for a pool of `_plain_pools`: the device's own counters are checked."""
        consumed = self._tally(cand, 1)
        for set_name, counters in cand.consumption:
            have = available.get(set_name)
            if have is None:
                continue  # not a counter set of the pool: never checked (as `counters_exceeded`)
            tally = consumed[set_name]
            for name, _ in counters:
                limit = have.get(name)
                if limit is not None and tally[name] > limit:
                    self.why = checks.COUNTERS
                    self._tally(cand, -1)
                    return False
        return True

    def _release_counters(self, cand: Candidate) -> None:
        self._tally(cand, -1)

    def _tally(self, cand: Candidate, sign: int) -> dict[str, dict[str, Number]]:
        """Add (or remove) the device's counter consumption to the pool's tally of this attempt."""
        consumed = self.consumed_counters.setdefault(cand.pool.name, {})
        for set_name, counters in cand.consumption:
            tally = consumed.setdefault(set_name, {})
            for name, amount in counters:
                tally[name] = tally.get(name, 0) + sign * amount
        return consumed

    # --- results ------------------------------------------------------------------------------

    def _chosen(self, ci: int, ri: int) -> RequestData:
        data = self.requests[(ci, ri, 0)]
        if data.parent is not None:
            data = self.requests[(ci, ri, data.selected)]
        return data

    def _result(self, ci: int, claim: ResourceClaim) -> AllocationResult:
        n = len(claim.spec.devices.requests)
        return build_result(self.f, self.node, claim, self.results[ci],
                            [self.requests[(ci, ri, 0)] for ri in range(n)],
                            [self._chosen(ci, ri) for ri in range(n)])
