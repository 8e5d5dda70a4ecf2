"""What can be derived once from a fixed set of ResourceSlices and reused by every Allocate call."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from drasim.allocator.celmatch import SelectorMemo
from drasim.allocator.features import Features
from drasim.allocator.pools import Pool, gather_pools
from drasim.allocator.state import DeviceID
from drasim.api.core import Node
from drasim.api.quantity import Quantity
from drasim.api.resource import Device, ResourceSlice

Number = int | Fraction
# One device's counter consumption: [(counter set, [(counter, amount), ...]), ...]
Consumption = list[tuple[str, list[tuple[str, Number]]]]


def exact(q: Quantity) -> Number:
    """A quantity as an exact Python number (int when integral: fast arithmetic in the search)."""
    f = q.fraction
    return f.numerator if f.denominator == 1 else f


class Candidate:
    """A device at a fixed position of a node's search order."""

    __slots__ = ("consumption", "device", "id", "pool", "slice")

    def __init__(self, dev_id: DeviceID, device: Device, slc: ResourceSlice, pool: Pool,
                 consumption: Consumption) -> None:
        self.id = dev_id
        self.device = device
        self.slice = slc
        self.pool = pool
        self.consumption = consumption


class NodeView:
    """The pools a node sees and the flat candidate list of its usable (complete, valid) pools.

    What the search learns about the candidates that cannot change while the slices do not is kept
    here for every later call on this node: `verdicts` (per selector set, each position's
    `checks.selectable` outcome, filled as the search meets them) and `usable` (per request shape,
    the positions a device could ever be taken at; `allocator.search` says what that means).
    """

    __slots__ = ("by_value", "candidates", "counted", "ids", "pools", "usable", "verdicts")

    def __init__(self, pools: list[Pool], candidates: list[Candidate]) -> None:
        self.pools = pools
        # The pools with shared counters (their totals are set before the view is made, never after): most
        # nodes have none, and grouping asks per pod on a node it changed.
        self.counted = tuple(p for p in pools if p.counter_totals)
        self.candidates = candidates
        self.ids = tuple(c.id for c in candidates)  # the candidates' IDs, for lookups at C speed (grouping)
        self.verdicts: dict[tuple[object, ...], list[Any]] = {}
        self.usable: dict[tuple[object, ...], list[int]] = {}
        # Per request shape and attribute: the usable positions grouped by the attribute's plain value.
        self.by_value: dict[tuple[object, ...], dict[object, list[int]]] = {}


# (features, class, request, verdict key, shape key): the objects first, to check identity.
RequestShapes = tuple[object, object, object, tuple[object, ...], tuple[object, ...]]


class SliceCache:
    """Indexes slices by node and pool; memoises pool gathering per node and CEL results per device.

    Valid for as long as the slices do not change: build a new one when they do.
    """

    def __init__(self, slices: Sequence[ResourceSlice], memo: SelectorMemo | None = None) -> None:
        self.slices = list(slices)
        self.memo = memo if memo is not None else SelectorMemo()
        self.by_node: dict[str, list[ResourceSlice]] = {}
        self.unbound: list[ResourceSlice] = []
        self.by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
        for slc in self.slices:
            if slc.spec.node_name:
                self.by_node.setdefault(slc.spec.node_name, []).append(slc)
            else:
                self.unbound.append(slc)
            self.by_pool.setdefault((slc.spec.driver, slc.spec.pool.name), []).append(slc)
        self._views: dict[tuple[object, ...], NodeView] = {}
        self._consumption: dict[int, Consumption] = {}
        # allocator.search `_Run._know`: a request's verdict and shape keys by (features, class, request) ids.
        self.request_shapes: dict[tuple[int, int, int], RequestShapes] = {}

    def consumption(self, device: Device) -> Consumption:
        found = self._consumption.get(id(device))
        if found is None:
            found = [(c.counter_set, [(n, exact(v.value)) for n, v in c.counters.items()])
                     for c in device.consumes_counters]
            self._consumption[id(device)] = found
        return found

    def view(self, node: Node, features: Features) -> NodeView:
        """Pools and candidates for a node (node name, labels and the partitionable flag are the key)."""
        key = (node.metadata.name, tuple(sorted(node.metadata.labels.items())), features.partitionable_devices,
               features.release)
        found = self._views.get(key)
        if found is not None:
            return found
        candidates = self.by_node.get(node.metadata.name, []) + self.unbound
        pools = gather_pools(candidates, node, features, self.by_pool)
        cands: list[Candidate] = []
        for pool in pools:
            pool.counter_totals = {cs.name: {n: exact(c.value) for n, c in cs.counters.items()}
                                   for cs in pool.counter_sets.values()}
            pool.consumers = [
                (DeviceID(s.spec.driver, s.spec.pool.name, d.name), self.consumption(d))
                for s in pool.slices + pool.other_slices for d in s.spec.devices if d.consumes_counters]
            pool.draws_nonnegative = all(amount >= 0 for _, consumption in pool.consumers
                                         for _, counters in consumption for _, amount in counters)
            if pool.incomplete or pool.invalid:
                continue
            for slc in pool.slices:
                for dev in slc.spec.devices:
                    cands.append(Candidate(DeviceID(pool.driver, pool.name, dev.name), dev, slc, pool,
                                           self.consumption(dev)))
        view = NodeView(pools, cands)
        self._views[key] = view
        return view
