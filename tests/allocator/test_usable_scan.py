"""The scan over each request's usable devices (`_Run._usable`) and the check of a device's own counters
(`_Run._plain_pools`) change nothing the search does (hypothesis).

The same calls run with the usable lists from the first step and with the full scan only; results, errors,
share IDs, consumed capacity, step counts and the counting proof's verdict must be identical, on one call
and on a second call that reuses the node view (and its memoised verdicts and usable lists) after the
first call's devices are committed.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.allocator import AllocatedState, AllocationError, Allocator, DeviceID, Features
from drasim.allocator import search as search_mod
from drasim.allocator.cache import SliceCache
from drasim.api.core import Node
from drasim.api.meta import ObjectMeta
from drasim.api.quantity import quantity_dec_hook, quantity_enc_hook
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from hypothesis_budget import examples

DRIVER = "gpu.example.com"
NODE = Node(metadata=ObjectMeta(name="node-1"))


def _build(type_: type, data: dict[str, Any]) -> Any:
    return msgspec.convert(data, type=type_, dec_hook=quantity_dec_hook)


@st.composite
def _device(draw: st.DrawFn, i: int) -> dict[str, Any]:
    dev: dict[str, Any] = {"name": f"d{i}", "attributes": {
        "model": {"string": draw(st.sampled_from("ab"))}, "root": {"int": draw(st.integers(0, 2))}}}
    if draw(st.integers(0, 4)):
        dev["attributes"]["bad"] = {"string": "x"}  # the others fail the selector reading it (no such key)
    if draw(st.integers(0, 2)):
        sets = {"cs": ["slot", "mem"], "cs2": ["slot"]}
        if draw(st.integers(0, 30)) == 0:
            sets["nowhere"] = ["slot"]  # makes the pool invalid
        dev["consumesCounters"] = [
            {"counterSet": cs, "counters": {name: {"value": str(draw(st.integers(0, 2)))}
                                            for name in draw(st.sets(st.sampled_from(sets[cs]), min_size=1))}}
            for cs in sorted(draw(st.sets(st.sampled_from(sorted(sets)), min_size=1, max_size=2)))]
    if draw(st.integers(0, 3)) == 0:
        dev["taints"] = [{"key": "k", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"]))}]
    if draw(st.integers(0, 3)):
        dev["capacity"] = {"mem": {"value": draw(st.sampled_from(["4", "8"]))}}
        if draw(st.integers(0, 2)):
            dev["allowMultipleAllocations"] = True
    return dev


@st.composite
def _request(draw: st.DrawFn, name: str, sub: bool) -> dict[str, Any]:
    r: dict[str, Any] = {"name": name, "deviceClassName": "gpu",
                         "allocationMode": draw(st.sampled_from(["ExactCount"] * 5 + ["All"])),
                         "count": draw(st.integers(0, 3))}
    sel = draw(st.sampled_from([None, None, "a", "bad"]))
    if sel == "a":
        r["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a"'}}]
    elif sel == "bad":
        r["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].bad == "x"'}}]
    if not sub and draw(st.integers(0, 4)) == 0:
        r["adminAccess"] = True
    if draw(st.booleans()):
        r["tolerations"] = [{"key": "k", "operator": "Exists"}]
    if draw(st.integers(0, 2)):
        r["capacity"] = {"requests": {"mem": draw(st.sampled_from(["2", "4", "6"]))}}
    return r


@st.composite
def _claims(draw: st.DrawFn, prefix: str) -> list[ResourceClaim]:
    claims = []
    for c in range(draw(st.integers(1, 3))):
        reqs: list[dict[str, Any]] = []
        for q in range(draw(st.integers(1, 2))):
            if draw(st.booleans()):
                subs = [draw(_request(f"s{k}", True)) for k in range(draw(st.integers(1, 2)))]
                reqs.append({"name": f"r{q}", "firstAvailable": subs})
            else:
                exact = draw(_request("x", False))
                del exact["name"]
                reqs.append({"name": f"r{q}", "exactly": exact})
        spec: dict[str, Any] = {"requests": reqs}
        constraints = []
        for _ in range(draw(st.integers(0, 2))):
            con: dict[str, Any] = {draw(st.sampled_from(["matchAttribute", "distinctAttribute"])):
                                   f"{DRIVER}/{draw(st.sampled_from(['model', 'root']))}"}
            if draw(st.booleans()):  # some requests only; a subrequest by its full name
                con["requests"] = draw(st.lists(st.sampled_from(["r0", "r1", "r0/s0", "r1/s1"]), max_size=2))
            constraints.append(con)
        if constraints:
            spec["constraints"] = constraints
        claims.append(_build(ResourceClaim, {"metadata": {"name": f"{prefix}{c}", "namespace": "ns"},
                                             "spec": {"devices": spec}}))
    return claims


@st.composite
def _calls(draw: st.DrawFn) -> tuple[Any, ...]:
    devs = [draw(_device(i)) for i in range(draw(st.integers(0, 8)))]
    pool = {"name": "p", "generation": 1, "resourceSliceCount": 2}
    slices = [_build(ResourceSlice, {"metadata": {"name": "s"}, "spec": {
                  "driver": DRIVER, "nodeName": "node-1", "pool": pool, "devices": devs}}),
              _build(ResourceSlice, {"metadata": {"name": "c"}, "spec": {
                  "driver": DRIVER, "nodeName": "node-1", "pool": pool, "sharedCounters": [
                      {"name": "cs", "counters": {"slot": {"value": str(draw(st.integers(0, 4)))},
                                                  "mem": {"value": str(draw(st.integers(0, 4)))}}},
                      {"name": "cs2", "counters": {"slot": {"value": str(draw(st.integers(0, 3)))}}}]}})]
    classes = {"gpu": _build(DeviceClass, {"metadata": {"name": "gpu"}, "spec": {}})}
    in_use = draw(st.sets(st.sampled_from([d["name"] for d in devs]), max_size=2)) if devs else set()
    features = Features(device_taints=draw(st.booleans()), partitionable_devices=draw(st.integers(0, 3)) > 0,
                        consumable_capacity=draw(st.booleans()), list_type_attributes=draw(st.booleans()))
    # A deadline some searches reach: the usable scan takes the same steps, so it fires at the same point.
    max_steps = draw(st.sampled_from([None, None, 2, 5, 20]))
    return slices, classes, draw(_claims("c")), draw(_claims("later")), in_use, features, max_steps


def _outcome(alloc: Allocator, claims: list[ResourceClaim]) -> tuple[Any, ...]:
    try:
        results = alloc.allocate(NODE, claims)
    except AllocationError as err:  # a deadline too (DeadlineExceeded)
        return ("error", type(err).__name__, err.message, alloc.stats.steps), None
    if results is None:
        return ("unsatisfiable", alloc.stats.steps, alloc.stats.proven), None
    encoded = [msgspec.json.encode(r, enc_hook=quantity_enc_hook) for r in results]
    return ("allocated", encoded, alloc.stats.steps), results


def _run(call: tuple[Any, ...], optimised: bool) -> list[tuple[Any, ...]]:
    """Both calls, with the usable scan from the first step and the own-counter check (`optimised`), or
    with neither."""
    slices, classes, first, second, in_use, features, max_steps = call
    saved = search_mod.SKIP_AFTER_STEPS, search_mod.OWN_COUNTERS_ONLY
    search_mod.SKIP_AFTER_STEPS, search_mod.OWN_COUNTERS_ONLY = (0, True) if optimised else (1 << 62, False)
    try:
        cache = SliceCache(slices)
        state = AllocatedState(devices={DeviceID(DRIVER, "p", d) for d in in_use})
        one, results = _outcome(Allocator(features, state, classes, cache, max_steps=max_steps), first)
        for res in results or ():
            state.add_allocation(res, consumable_capacity=features.consumable_capacity)
        two, _ = _outcome(Allocator(features, state, classes, cache, max_steps=max_steps), second)
    finally:
        search_mod.SKIP_AFTER_STEPS, search_mod.OWN_COUNTERS_ONLY = saved
    return [one, two]


@settings(max_examples=examples(300))
@given(_calls())
def test_usable_scan_changes_nothing(call: tuple[Any, ...]) -> None:
    assert _run(call, True) == _run(call, False)


_FAILING_SELECTOR = [{"cel": {"expression": f'device.attributes["{DRIVER}"].bad == "x"'}}]


def _one_pool(devs: list[dict[str, Any]], count: int, constraints: list[dict[str, Any]] | None = None
              ) -> tuple[list[ResourceSlice], dict[str, DeviceClass], ResourceClaim]:
    """One slice of `devs` on node-1, a class taking all, and a claim of `count` whose selector reads `bad`."""
    pool = {"name": "p", "generation": 1, "resourceSliceCount": 1}
    slices = [_build(ResourceSlice, {"metadata": {"name": "s"}, "spec": {
        "driver": DRIVER, "nodeName": "node-1", "pool": pool, "devices": devs}})]
    classes = {"gpu": _build(DeviceClass, {"metadata": {"name": "gpu"}, "spec": {}})}
    spec: dict[str, Any] = {"requests": [{"name": "r", "exactly": {
        "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": count, "selectors": _FAILING_SELECTOR}}]}
    if constraints:
        spec["constraints"] = constraints
    claim = _build(ResourceClaim, {"metadata": {"name": "c", "namespace": "ns"}, "spec": {"devices": spec}})
    return slices, classes, claim


@pytest.mark.parametrize("skip_after", [0, 1 << 62])
def test_a_selector_error_is_raised_where_the_search_meets_it(skip_after: int) -> None:
    """An erring device after the device the search takes never ends the call; one before it does."""
    devs = [{"name": "d0", "attributes": {"bad": {"string": "x"}}},
            {"name": "d1", "attributes": {"other": {"int": 1}}}]  # no such key: bad
    slices, classes, claim = _one_pool(devs, 1)
    saved = search_mod.SKIP_AFTER_STEPS
    search_mod.SKIP_AFTER_STEPS = skip_after
    try:
        cache = SliceCache(slices)
        got = Allocator(Features(), AllocatedState(), classes, cache).allocate(NODE, [claim])
        assert got is not None and got[0].devices.results[0].device == "d0"  # d1 is never looked at
        d0, d1 = DeviceID(DRIVER, "p", "d0"), DeviceID(DRIVER, "p", "d1")
        with pytest.raises(AllocationError, match="claim ns/c: selector #0: CEL runtime error"):
            Allocator(Features(), AllocatedState(devices={d0}), classes, cache).allocate(NODE, [claim])
        assert Allocator(Features(), AllocatedState(devices={d0, d1}), classes, cache).allocate(NODE, [claim]) is None
    finally:
        search_mod.SKIP_AFTER_STEPS = saved


@pytest.mark.parametrize("skip_after", [0, 1 << 62])
def test_a_selector_error_ends_the_call_even_on_a_device_the_constraint_rejects(skip_after: int) -> None:
    """matchAttribute holds d0's model when the scan meets d1, whose selector fails: the error comes first."""
    devs = [{"name": "d0", "attributes": {"bad": {"string": "x"}, "model": {"string": "a"}}},
            {"name": "d1", "attributes": {"model": {"string": "b"}}},
            {"name": "d2", "attributes": {"bad": {"string": "x"}, "model": {"string": "a"}}}]
    slices, classes, claim = _one_pool(devs, 2, [{"matchAttribute": f"{DRIVER}/model"}])
    saved = search_mod.SKIP_AFTER_STEPS
    search_mod.SKIP_AFTER_STEPS = skip_after
    try:
        with pytest.raises(AllocationError, match="claim ns/c: selector #0: CEL runtime error"):
            Allocator(Features(), AllocatedState(), classes, SliceCache(slices)).allocate(NODE, [claim])
    finally:
        search_mod.SKIP_AFTER_STEPS = saved
