"""Grouped DynamicResources Filter == a direct allocator call, on every node (hypothesis)."""

from __future__ import annotations

import copy
from typing import Any

from helpers import build, node, pod
from hypothesis import event, given, settings
from hypothesis import strategies as st

from drasim.allocator import AllocationError, Allocator, NodeLocalError
from drasim.api.defaults import apply_claim_defaults
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from drasim.cluster import ClusterState
from drasim.scheduler.dra import CycleError, DraCaches, DraCycle
from drasim.scheduler.resources import node_allocatable
from hypothesis_budget import examples

DRIVER = "gpu.example.com"
MODELS = ["a100", "h100"]
CLASS = {"metadata": {"name": "gpu"}, "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]}}


@st.composite
def layout(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A node's devices, without the parts that differ between nodes (names of pools, UUIDs)."""
    out = []
    for _ in range(draw(st.integers(0, 6))):
        dev: dict[str, Any] = {"model": draw(st.sampled_from(MODELS)), "numa": draw(st.integers(0, 1)),
                               "mem": draw(st.sampled_from(["40Gi", "80Gi"]))}
        if draw(st.integers(0, 3)) == 0:
            dev["taint"] = draw(st.sampled_from(["NoSchedule", "NoExecute", "None"]))
        if draw(st.integers(0, 2)) == 0:
            dev["slots"] = draw(st.integers(1, 3))
        if draw(st.integers(0, 4)) == 0:
            dev["extra"] = True  # only some devices have the attribute: a selector on it errs elsewhere
        if draw(st.integers(0, 3)) == 0:
            dev["shared"] = draw(st.booleans())  # multi-allocatable; True: with a request policy
        out.append(dev)
    return out


def _slices(name: str, devices: list[dict[str, Any]], counters: int) -> list[ResourceSlice]:
    devs = []
    for i, d in enumerate(devices):
        dev: dict[str, Any] = {"name": f"dev-{i}", "attributes": {
            "model": {"string": d["model"]}, "numa": {"int": d["numa"]},
            "uuid": {"string": f"GPU-{name}-{i}"}}, "capacity": {"memory": {"value": d["mem"]}}}
        if d.get("extra"):
            dev["attributes"]["extra"] = {"string": "x"}
        if "shared" in d:
            dev["allowMultipleAllocations"] = True
            if d["shared"]:
                dev["capacity"]["memory"]["requestPolicy"] = {"default": "10Gi", "validRange": {
                    "min": "10Gi", "step": "10Gi"}}
        if "taint" in d:
            dev["taints"] = [{"key": "maint", "effect": d["taint"]}]
        if "slots" in d:
            dev["consumesCounters"] = [{"counterSet": "set", "counters": {"slots": {"value": str(d["slots"])}}}]
        devs.append(dev)
    pool = {"name": name, "generation": 1, "resourceSliceCount": 2}
    return [build(ResourceSlice, {"metadata": {"name": f"{name}-devices"}, "spec": {
                "driver": DRIVER, "nodeName": name, "pool": pool, "devices": devs}}),
            build(ResourceSlice, {"metadata": {"name": f"{name}-counters"}, "spec": {
                "driver": DRIVER, "nodeName": name, "pool": pool,
                "sharedCounters": [{"name": "set", "counters": {"slots": {"value": str(counters)}}}]}})]


def _request(draw: st.DrawFn, name: str) -> dict[str, Any]:
    tolerations = [{"key": "maint", "operator": "Exists"}] if draw(st.booleans()) else []

    def sel(model: str) -> list[dict[str, Any]]:
        return [{"cel": {"expression": f"device.attributes['{DRIVER}'].model == '{model}'"}}]

    if draw(st.booleans()):
        return {"name": name, "firstAvailable": [
            {"name": "big", "deviceClassName": "gpu", "count": draw(st.integers(1, 2)), "selectors": sel("h100"),
             "tolerations": tolerations},
            {"name": "small", "deviceClassName": "gpu", "count": draw(st.integers(1, 3)), "selectors": sel("a100")}]}
    exact: dict[str, Any] = {"deviceClassName": "gpu", "count": draw(st.integers(1, 2)), "tolerations": tolerations}
    if draw(st.integers(0, 3)) == 0:
        exact["capacity"] = {"requests": {"memory": draw(st.sampled_from(["10Gi", "15Gi", "30Gi"]))}}
    if draw(st.integers(0, 5)) == 0:
        exact = {"deviceClassName": "gpu", "allocationMode": "All", "tolerations": tolerations}
    choice = draw(st.integers(0, 9))
    if choice < 5:
        exact["selectors"] = sel(draw(st.sampled_from(MODELS)))
    elif choice == 5:  # a CEL runtime error on devices without the attribute
        exact["selectors"] = [{"cel": {"expression": f"device.attributes['{DRIVER}'].extra == 'x'"}}]
    return {"name": name, "exactly": exact}


@st.composite
def claim_spec(draw: st.DrawFn) -> dict[str, Any]:
    requests = [_request(draw, f"r{i}") for i in range(draw(st.integers(1, 2)))]
    constraints = []
    if draw(st.integers(0, 2)) == 0:
        constraints.append({"matchAttribute": f"{DRIVER}/numa"})
    if draw(st.integers(0, 3)) == 0:
        constraints.append({"distinctAttribute": f"{DRIVER}/uuid"})
    return {"devices": {"requests": requests, "constraints": constraints}}


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[Any], list[list[dict[str, Any]]]]:
    layouts = draw(st.lists(layout(), min_size=1, max_size=3))
    objs: list[Any] = [build(DeviceClass, CLASS)]
    for i in range(draw(st.integers(2, 7))):
        name = f"node-{i}"
        objs.append(node(name))
        objs.extend(_slices(name, draw(st.sampled_from(layouts)), draw(st.integers(2, 8))))
    shapes = draw(st.lists(claim_spec(), min_size=1, max_size=3))
    pods = [[draw(st.sampled_from(shapes)) for _ in range(draw(st.integers(1, 2)))]
            for _ in range(draw(st.integers(1, 6)))]
    return objs, pods


def _chosen(results: list[Any]) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(r.request for r in res.devices.results if "/" in r.request) for res in results)


@settings(max_examples=examples(300))
@given(scenario())
def test_grouped_filter_equals_a_direct_allocator_call_on_every_node(data: tuple[list[Any], list[Any]]) -> None:
    objs, pods = data
    state = ClusterState.from_objects(objs)
    caches = DraCaches()  # shared by every cycle: signatures and outcomes are reused across pods
    for n, specs in enumerate(pods):
        claims = [apply_claim_defaults(build(ResourceClaim, {"metadata": {"name": f"p{n}-c{i}", "namespace": "ns"},
                                                             "spec": spec})) for i, spec in enumerate(specs)]
        for c in claims:
            state.add(c)
        p = pod(f"p{n}", [c.metadata.name for c in claims], namespace="ns")
        cycle = DraCycle(state, p, caches)
        assert cycle.pre_enqueue() is None
        assert cycle.pre_filter({}).reject is None
        placed = None
        for name, nd in state.nodes.items():
            try:
                grouped: Any = cycle.filter(nd, node_allocatable(nd))
            except CycleError as err:
                grouped = ("error", str(err))
            direct_alloc = Allocator(state.features, copy.deepcopy(state.in_use), state.classes, state.slice_cache())
            try:
                results = direct_alloc.allocate(nd, claims)
            except NodeLocalError as err:
                assert grouped is not None and grouped.reasons == (err.message,)
                event("node: node-local error")
                continue
            except AllocationError as err:
                assert grouped == ("error", f'running "DynamicResources" filter plugin: {err.message}')
                event("node: error")
                continue
            if results is None:
                assert grouped is not None and grouped.reasons == ("cannot allocate all claims",), name
                event("node: cannot allocate")
                continue
            assert grouped is None, (name, grouped)
            event("node: allocated" + (" with subrequests" if any(_chosen(results)) else ""))
            assert cycle.chosen_for_score(name) == _chosen(results)
            if placed is None:
                placed = (name, results)
        event(f"signatures shared: {len(state.nodes) > len(caches.outcomes)}")
        if placed is not None:
            # The allocation the scheduler would write is the direct call's on that node.
            allocated = cycle.allocate(state.nodes[placed[0]], node_allocatable(state.nodes[placed[0]]))
            assert [r.devices for _c, r in allocated] == [r.devices for r in placed[1]]
            for c, r in allocated:
                state.set_allocation(("ns", c.metadata.name), r)
