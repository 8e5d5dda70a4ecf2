"""Reserve replays the allocator's path from a node with the same signature: the same allocation as a search.

It first rebuilds that search's choices on the chosen node's devices (results.rebuild); the rebuild equals the
replay wherever both answer, and the replay equals a direct call.

`DraCycle.allocate` (Reserve) takes the devices at the positions the allocator chose on the node whose search
answered the chosen node's signature (Allocator.replay) instead of searching again. On generated clusters
(the grouping properties' scenarios: subrequests, constraints, counters, capacity, taints, CEL errors), the
allocation Reserve writes on every feasible node is the one a direct allocator call there returns.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from helpers import build, node, pod
from hypothesis import event, given, settings
from test_grouping_properties import CLASS, _slices, scenario

from drasim.allocator import AllocationError, Allocator, NodeLocalError
from drasim.allocator.results import rebuild
from drasim.api.defaults import apply_claim_defaults
from drasim.api.resource import DeviceClass, ResourceClaim
from drasim.cluster import ClusterState
from drasim.scheduler import dra
from drasim.scheduler.dra import CycleError, DraCaches, DraCycle
from drasim.scheduler.resources import node_allocatable
from hypothesis_budget import examples


def _direct(state: ClusterState, node: Any, claims: list[ResourceClaim]) -> Any:
    try:
        return Allocator(state.features, copy.deepcopy(state.in_use), state.classes, state.slice_cache()
                         ).allocate(node, claims)
    except (AllocationError, NodeLocalError):
        return None


@settings(max_examples=examples(300))
@given(scenario())
def test_reserve_on_every_feasible_node_equals_a_direct_allocator_call(data: tuple[list[Any], list[Any]]) -> None:
    objs, pods = data
    state = ClusterState.from_objects(objs)
    caches = DraCaches()  # shared: paths recorded on one node are replayed on others with its signature
    replays = {"n": 0, "rebuilt": 0}
    original = DraCycle._replayed

    def counting(self: DraCycle, node: Any, claims: list[ResourceClaim]) -> Any:
        # Also without the rebuild (results.rebuild): where both answer, the rebuild is the replay.
        with pytest.MonkeyPatch.context() as inner:
            inner.setattr(dra, "REBUILD", False)
            replayed = original(self, node, claims)
        got = original(self, node, claims)
        sig = self.sigs.get(node.metadata.name)
        if replayed is not None and sig in caches.recipes:
            assert got == replayed
            replays["rebuilt"] += 1
        replays["n"] += got is not None
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DraCycle, "_replayed", counting)
        for n, specs in enumerate(pods):
            claims = [apply_claim_defaults(build(ResourceClaim, {
                "metadata": {"name": f"p{n}-c{i}", "namespace": "ns"}, "spec": spec})) for i, spec in enumerate(specs)]
            for c in claims:
                state.add(c)
            p = pod(f"p{n}", [c.metadata.name for c in claims], namespace="ns")
            last = None
            for name, nd in state.nodes.items():
                # A cycle of its own per node: Reserve on a node Filter did not search (its signature's
                # answer came from another node or an earlier cycle).
                cycle = DraCycle(state, p, caches)
                assert cycle.pre_enqueue() is None
                assert cycle.pre_filter({}).reject is None
                try:
                    if cycle.filter(nd, node_allocatable(nd)) is not None:
                        continue
                except CycleError:
                    continue
                direct = _direct(state, nd, claims)
                assert direct is not None, name
                reserved = cycle.allocate(nd, node_allocatable(nd))
                assert [r for _c, r in reserved] == direct, name
                last = reserved
            if last is not None:  # allocate on the last feasible node: later pods see other in-use states
                for c, r in last:
                    state.set_allocation(("ns", c.metadata.name), r)
    event(f"replayed: {replays['n'] > 0}")
    event(f"rebuilt: {replays['rebuilt'] > 0}")


def test_reserve_rebuilds_on_an_equal_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reserve on a node whose signature another node's search answered takes the rebuild, not the replay."""
    state, claim = _one_claim()
    caches = DraCaches()
    p = pod("p", ["c"], namespace="ns")
    first = DraCycle(state, p, caches)
    assert first.pre_enqueue() is None and first.pre_filter({}).reject is None
    assert first.filter(state.nodes["node-0"], node_allocatable(state.nodes["node-0"])) is None
    monkeypatch.setattr(Allocator, "replay", None)  # any replay would fail the test
    cycle = DraCycle(state, p, caches)
    assert cycle.pre_enqueue() is None and cycle.pre_filter({}).reject is None
    nd = state.nodes["node-1"]
    reserved = cycle.allocate(nd, node_allocatable(nd))
    assert [r for _c, r in reserved] == _direct(state, nd, [claim])


def test_replay_and_rebuild_refuse_a_path_that_does_not_fit() -> None:
    """A path (or recipe) taken on a node whose devices are now in use is refused: Reserve then replays
    through the checks, and a refused replay searches."""
    state, claim = _one_claim()
    nd = state.nodes["node-0"]
    alloc = Allocator(state.features, copy.deepcopy(state.in_use), state.classes, state.slice_cache())
    results = alloc.allocate(nd, [claim])
    path, recipe = alloc.last_path(), alloc.last_recipe()
    assert results is not None and path is not None and recipe is not None
    assert alloc.replay(nd, [claim], path) == results
    view = state.slice_cache().view(nd, state.features)
    assert rebuild(state.features, nd, view, [claim], recipe, set()) == results
    state.set_allocation(("ns", "c"), results[0])
    assert rebuild(state.features, nd, view, [claim], recipe, state.in_use.devices) is None
    assert rebuild(state.features, nd, view, [], recipe, set()) is None  # a recipe for other claims
    used = Allocator(state.features, copy.deepcopy(state.in_use), state.classes, state.slice_cache())
    assert used.replay(nd, [claim], path) is None
    assert used.replay(nd, [claim], ()) is None  # a path for other claims


def test_reserve_without_replay_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """REPLAY off: Reserve searches; the allocation is the same."""
    out = []
    for replay in (True, False):
        monkeypatch.setattr(dra, "REPLAY", replay)
        objs, spec = _two_nodes()
        state = ClusterState.from_objects(objs)
        caches = DraCaches()
        got = []
        for n in range(3):
            claim = apply_claim_defaults(build(ResourceClaim, {"metadata": {"name": f"c{n}", "namespace": "ns"},
                                                               "spec": spec}))
            state.add(claim)
            p = pod(f"p{n}", [f"c{n}"], namespace="ns")
            for name in ("node-0", "node-1"):
                cycle = DraCycle(state, p, caches)
                assert cycle.pre_enqueue() is None and cycle.pre_filter({}).reject is None
                nd = state.nodes[name]
                if cycle.filter(nd, node_allocatable(nd)) is None:
                    reserved = cycle.allocate(nd, node_allocatable(nd))
                    got.append((name, reserved[0][1]))
            state.set_allocation(("ns", f"c{n}"), got[-1][1])
        out.append(got)
    assert out[0] == out[1] and len(out[0]) >= 3


def _one_claim() -> tuple[ClusterState, ResourceClaim]:
    """The two nodes' cluster with one claim of the spec, unallocated."""
    objs, spec = _two_nodes()
    state = ClusterState.from_objects(objs)
    claim = apply_claim_defaults(build(ResourceClaim, {"metadata": {"name": "c", "namespace": "ns"},
                                                       "spec": spec}))
    state.add(claim)
    return state, claim


def _two_nodes() -> tuple[list[Any], dict[str, Any]]:
    """Two nodes with two GPUs each, and a claim spec for one GPU of a model (a firstAvailable)."""
    objs: list[Any] = [build(DeviceClass, CLASS)]
    for i in range(2):
        objs.append(node(f"node-{i}"))
        objs.extend(_slices(f"node-{i}", [{"model": "h100", "numa": 0, "mem": "80Gi"},
                                           {"model": "a100", "numa": 1, "mem": "40Gi"}], 4))
    sel = "device.attributes['gpu.example.com'].model == '{}'"
    spec = {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu", "selectors": [{"cel": {"expression": sel.format("h100")}}]},
        {"name": "small", "deviceClassName": "gpu", "selectors": [{"cel": {"expression": sel.format("a100")}}]},
    ]}]}}
    return objs, spec


def test_reserve_with_admin_access_on_devices_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Admin access takes devices other claims hold: the rebuild refuses those (they are in use), and Reserve's
    allocation on a node whose signature another node's search answered is still a direct call's."""
    objs, spec = _two_nodes()
    state = ClusterState.from_objects(objs)
    for name in ("node-0", "node-1"):  # every GPU of both nodes taken by ordinary claims
        for i in range(64):
            claim = apply_claim_defaults(build(ResourceClaim, {"metadata": {"name": f"{name}-{i}", "namespace": "ns"},
                                                               "spec": spec}))
            state.add(claim)
            got = _direct(state, state.nodes[name], [claim])
            if got is None:
                break
            state.set_allocation(("ns", claim.metadata.name), got[0])
        assert i > 1
    exact = spec["devices"]["requests"][0]["firstAvailable"][0]  # the H100 alternative, for admin access
    admin = {"devices": {"requests": [{"name": "gpu", "exactly": {
        "deviceClassName": exact["deviceClassName"], "selectors": exact["selectors"], "adminAccess": True}}]}}
    claim = apply_claim_defaults(build(ResourceClaim, {"metadata": {"name": "admin", "namespace": "ns"},
                                                       "spec": admin}))
    state.add(claim)
    caches = DraCaches()
    p = pod("p", ["admin"], namespace="ns")
    first = DraCycle(state, p, caches)
    assert first.pre_enqueue() is None and first.pre_filter({}).reject is None
    assert first.filter(state.nodes["node-0"], node_allocatable(state.nodes["node-0"])) is None
    rebuilt: list[Any] = []
    monkeypatch.setattr(dra, "rebuild", lambda *a: rebuilt.append(rebuild(*a)))  # records, answers None
    cycle = DraCycle(state, p, caches)
    assert cycle.pre_enqueue() is None and cycle.pre_filter({}).reject is None
    nd = state.nodes["node-1"]
    reserved = cycle.allocate(nd, node_allocatable(nd))
    assert rebuilt == [None]  # refused: the device is in use
    direct = _direct(state, nd, [claim])
    assert direct is not None and direct[0].devices.results[0].admin_access
    assert [r for _c, r in reserved] == direct
