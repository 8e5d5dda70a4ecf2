"""Invariants of the allocator on generated clusters and claims (hypothesis)."""

from __future__ import annotations

import copy
from collections import Counter

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.allocator import AllocatedState, Allocator, DeviceID, Features
from drasim.allocator.checks import tolerates
from drasim.api.core import Node
from drasim.api.meta import ObjectMeta
from drasim.api.quantity import quantity_dec_hook, quantity_enc_hook
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from hypothesis_budget import examples

DRIVER = "gpu.example.com"
MODELS = ["a100", "h100", "l40s"]
NODE = Node(metadata=ObjectMeta(name="node-1", labels={"rack": "r1"}))


def _build(type_: type, data: dict) -> object:
    return msgspec.convert(data, type=type_, dec_hook=quantity_dec_hook)


@st.composite
def devices(draw: st.DrawFn) -> list[dict]:
    n = draw(st.integers(min_value=0, max_value=7))
    out = []
    for i in range(n):
        dev: dict = {
            "name": f"dev-{i}",
            "attributes": {"model": {"string": draw(st.sampled_from(MODELS))},
                           "numa": {"int": draw(st.integers(0, 1))}},
            "capacity": {"memory": {"value": draw(st.sampled_from(["40Gi", "80Gi"]))}},
        }
        if draw(st.booleans()):
            dev["consumesCounters"] = [{"counterSet": "set-0",
                                        "counters": {"slots": {"value": str(draw(st.integers(1, 3)))}}}]
        if draw(st.integers(0, 4)) == 0:
            dev["taints"] = [{"key": "maint", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"]))}]
        out.append(dev)
    return out


@st.composite
def scenario(draw: st.DrawFn) -> tuple[list[ResourceSlice], dict[str, DeviceClass], list[ResourceClaim], set]:
    devs = draw(devices())
    slices = [_build(ResourceSlice, {
        "metadata": {"name": "s-devices"},
        "spec": {"driver": DRIVER, "nodeName": "node-1", "pool": {"name": "p", "generation": 1,
                                                                "resourceSliceCount": 2},
                 "devices": devs}}),
        _build(ResourceSlice, {
            "metadata": {"name": "s-counters"},
            "spec": {"driver": DRIVER, "nodeName": "node-1",
                     "pool": {"name": "p", "generation": 1, "resourceSliceCount": 2},
                     "sharedCounters": [{"name": "set-0", "counters": {
                         "slots": {"value": str(draw(st.integers(0, 6)))}}}]}})]
    classes = {"gpu": _build(DeviceClass, {"metadata": {"name": "gpu"}, "spec": {"selectors": [
        {"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})}
    claims = []
    for c in range(draw(st.integers(1, 2))):
        requests = []
        for r in range(draw(st.integers(1, 2))):
            exactly: dict = {"deviceClassName": "gpu", "allocationMode": "ExactCount",
                             "count": draw(st.integers(1, 2))}
            if draw(st.booleans()):
                model = draw(st.sampled_from(MODELS))
                exactly["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}]
            if draw(st.booleans()):
                exactly["tolerations"] = [{"key": "maint", "operator": "Exists"}]
            if draw(st.integers(0, 3)) == 0:
                requests.append({"name": f"r{r}", "firstAvailable": [
                    {"name": "one", **{k: v for k, v in exactly.items()}},
                    {"name": "other", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}]})
            else:
                requests.append({"name": f"r{r}", "exactly": exactly})
        spec: dict = {"requests": requests}
        if draw(st.booleans()):
            spec["constraints"] = [{"matchAttribute": f"{DRIVER}/model"}]
        claims.append(_build(ResourceClaim, {"metadata": {"name": f"c{c}", "namespace": "default"},
                                             "spec": {"devices": spec}}))
    names = [d["name"] for d in devs]
    in_use = set(draw(st.sets(st.sampled_from(names), max_size=2))) if names else set()
    return slices, classes, claims, in_use


def _state(in_use: set) -> AllocatedState:
    return AllocatedState(devices={DeviceID(DRIVER, "p", name) for name in in_use})


def _wire(objs: list) -> bytes:
    return msgspec.json.encode(objs, enc_hook=quantity_enc_hook)


SETTINGS = settings(max_examples=examples(150))


@SETTINGS
@given(scenario())
def test_allocation_invariants(sc: tuple) -> None:
    slices, classes, claims, in_use = sc
    before = _wire([*slices, *classes.values(), *claims])
    allocator = Allocator(Features(), _state(in_use), classes, slices)
    results = allocator.allocate(NODE, claims)
    # The allocator never modifies its inputs.
    assert _wire([*slices, *classes.values(), *claims]) == before
    if results is None:
        return
    assert len(results) == len(claims)
    by_name = {d.name: d for d in slices[0].spec.devices}
    used = Counter()
    slots = 0
    for claim, res in zip(claims, results, strict=True):
        models = []
        requests = {r.name: r for r in claim.spec.devices.requests}
        for r in res.devices.results:
            assert (r.driver, r.pool) == (DRIVER, "p")
            dev = by_name[r.device]
            used[r.device] += 1
            assert r.device not in in_use
            base, _, sub = r.request.partition("/")
            request = requests[base]
            chosen = request.exactly if not sub else next(s for s in request.first_available if s.name == sub)
            for sel in chosen.selectors:
                want = sel.cel.expression.rsplit('"', 2)[1]
                assert dev.attributes["model"].string == want
            for taint in dev.taints:
                if taint.effect in ("NoSchedule", "NoExecute"):
                    assert any(tolerates(t, taint) for t in chosen.tolerations)
            models.append(dev.attributes["model"].string)
            slots += sum(int(str(c.value)) for cc in dev.consumes_counters for c in cc.counters.values())
        if claim.spec.devices.constraints:
            assert len(set(models)) <= 1
        # Counts per request are exact.
        per_request = Counter(r.request.split("/")[0] for r in res.devices.results)
        for name, request in requests.items():
            if request.exactly is not None:
                assert per_request[name] == request.exactly.count
    assert all(n == 1 for n in used.values()), used
    assert slots <= int(str(slices[1].spec.shared_counters[0].counters["slots"].value))


@SETTINGS
@given(scenario(), st.data())
def test_unsatisfiable_stays_unsatisfiable_when_devices_are_removed(sc: tuple, data: st.DataObject) -> None:
    slices, classes, claims, in_use = sc
    if Allocator(Features(), _state(in_use), classes, slices).allocate(NODE, claims) is not None:
        return
    devs = slices[0].spec.devices
    if not devs:
        return
    keep = data.draw(st.lists(st.booleans(), min_size=len(devs), max_size=len(devs)))
    fewer = copy.deepcopy(slices)
    # In-use devices stay: their counter consumption is part of the state, not of the choice.
    fewer[0].spec.devices = [d for d, k in zip(devs, keep, strict=True) if k or d.name in in_use]
    assert Allocator(Features(), _state(in_use), classes, fewer).allocate(NODE, claims) is None


@SETTINGS
@given(scenario())
def test_same_inputs_same_answer(sc: tuple) -> None:
    slices, classes, claims, in_use = sc
    first = Allocator(Features(), _state(in_use), classes, slices).allocate(NODE, claims)
    second = Allocator(Features(), _state(in_use), classes, copy.deepcopy(slices)).allocate(NODE, claims)
    assert _wire(first or []) == _wire(second or [])
