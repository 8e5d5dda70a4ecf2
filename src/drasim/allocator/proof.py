"""The counting proof that a search cannot succeed (Hall's condition on devices, then on shared counters)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from drasim.allocator.cache import Candidate, Number
from drasim.allocator.checks import Rejection, untolerated_taint
from drasim.allocator.errors import AllocationError
from drasim.allocator.features import Features
from drasim.allocator.pools import Pool
from drasim.allocator.request import RequestData
from drasim.allocator.state import DeviceID
from drasim.api.resource import ResourceClaim

# (claim, request, alternative) -> whether the device at a position is selectable; raises its error.
Selectable = Callable[[tuple[int, int, int], RequestData, int], Rejection | None]


def cannot_fit(features: Features, claims: Sequence[ResourceClaim],
               requests: Mapping[tuple[int, int, int], RequestData], candidates: Sequence[Candidate],
               allocated: set[DeviceID], selectable: Selectable,
               available_counters: Callable[[Pool], dict[str, dict[str, Number]]]) -> bool:
    """Whether no allocation exists, by counting.

    Each request needs at least its smallest alternative's count of distinct devices, drawn from
    the devices any of its alternatives could ever use (free, selected, not blocked by a taint).
    If for some such set T the requests confined to T need more than |T| devices, or if the
    requests whose every usable device draws on one shared counter need more of it than is left,
    the search cannot succeed: it would end with "no allocation", which is what this answers.
    The proof is only attempted where that is certain to be the search's outcome: no `All`
    request (those can fail with an error), no multi-allocatable device (shared between
    requests), and no selector error on any device (the search might have met it first).
    """
    f = features
    needs: list[tuple[int, dict[DeviceID, Candidate]]] = []
    for ci, claim in enumerate(claims):
        for ri, request in enumerate(claim.spec.devices.requests):
            fewest: int | None = None
            usable: dict[DeviceID, Candidate] = {}
            for si in range(max(1, len(request.first_available or []))):
                data = requests[(ci, ri, si)]
                if data.mode != "ExactCount":
                    return False
                # An admin alternative needs no exclusive device, but its selectors still run.
                fewest = 0 if data.admin else data.num if fewest is None else min(fewest, data.num)
                for pos, cand in enumerate(candidates):
                    if cand.id in allocated and not data.admin:
                        continue  # the search never looks at these for this request
                    try:
                        if selectable((ci, ri, si), data, pos) is not None:
                            continue
                    except AllocationError:
                        return False
                    dev = cand.device
                    if f.consumable_capacity and dev.allow_multiple_allocations:
                        return False
                    if (not f.partitionable_devices and dev.consumes_counters) or \
                            (f.device_taints and untolerated_taint(dev, data.tolerations) is not None):
                        continue
                    usable[cand.id] = cand
            if fewest:
                needs.append((fewest, usable))
    sets = [(n, frozenset(usable)) for n, usable in needs]
    for _, pool in sets:
        if sum(n for n, devices in sets if devices <= pool) > len(pool):
            return True
    return _counters_short(needs, available_counters)


def _counters_short(needs: list[tuple[int, dict[DeviceID, Candidate]]],
                    available_counters: Callable[[Pool], dict[str, dict[str, Number]]]) -> bool:
    """Whether the requests drawing on one shared counter with every usable device need more than is left."""
    wanted: dict[tuple[str, str, str], Number] = {}
    pools: dict[str, Pool] = {}
    for n, usable in needs:
        least: dict[tuple[str, str, str], Number] | None = None
        for cand in usable.values():
            here: dict[tuple[str, str, str], Number] = {}
            for set_name, counters in cand.consumption:
                for name, amount in counters:
                    key = (cand.pool.name, set_name, name)  # counters are tallied by pool name
                    here[key] = here.get(key, 0) + amount
            pools.setdefault(cand.pool.name, cand.pool)
            least = here if least is None else {k: min(v, here[k]) for k, v in least.items() if k in here}
            if not least:
                break
        for key, amount in (least or {}).items():
            wanted[key] = wanted.get(key, 0) + n * amount
    for (pool_name, set_name, name), amount in wanted.items():
        left = available_counters(pools[pool_name]).get(set_name, {}).get(name)
        if left is not None and amount > left:
            return True
    return False
