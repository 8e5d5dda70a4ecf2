"""`explain` agrees with the allocator on random small clusters (hypothesis).

* its verdict per node is exactly `Allocator.allocate(node, [claim])`;
* every device the allocator picks was reported usable for that request;
* a device reported usable is one the allocator can use: a one-device probe request gets the first
  device explain calls usable (or fails with the CEL error explain reports first);
* what explain proves impossible (too few usable devices, an unsatisfiable constraint) is not allocated.
"""

from __future__ import annotations

import copy
from typing import Any

from explain_helpers import DRIVER, state_of
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.allocator import AllocationError, Allocator, Features
from drasim.api.claims import claim_ref
from drasim.api.decode import decode_documents
from drasim.api.defaults import apply_claim_defaults
from drasim.api.resource import ResourceClaim
from drasim.cluster import ClusterState, Key
from drasim.explain import device_outcomes, explain_claim
from hypothesis_budget import examples

MODELS = ["a100", "h100"]
NODES = ["n1", "n2", "n3"]
SAFE = {"cel": {"expression": f'device.driver == "{DRIVER}"'}}
# Reads `model` without a guard: devices published without it make it a CEL runtime error.
UNSAFE = {"cel": {"expression": f'device.driver == "{DRIVER}" && device.attributes["{DRIVER}"].model != "x"'}}


@st.composite
def devices(draw: st.DrawFn, node: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    devs: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 4))):
        attrs: dict[str, Any] = {"numa": {"int": draw(st.integers(0, 1))}}
        if draw(st.integers(0, 7)):
            attrs["model"] = {"string": draw(st.sampled_from(MODELS))}
        dev: dict[str, Any] = {"name": f"g{i}", "attributes": attrs}
        if draw(st.integers(0, 2)) == 0:
            slots = str(draw(st.integers(1, 2)))
            dev["consumesCounters"] = [{"counterSet": "cs", "counters": {"slots": {"value": slots}}}]
        if draw(st.integers(0, 4)) == 0:
            dev["taints"] = [{"key": "maint", "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"]))}]
        if draw(st.integers(0, 9)) == 0:
            dev["bindingConditions"] = ["ready"]
            dev["bindingFailureConditions"] = ["failed"]
        if draw(st.integers(0, 3)) == 0:
            dev["capacity"] = {"memory": {"value": draw(st.sampled_from(["40Gi", "80Gi"]))}}
            if draw(st.booleans()):
                dev["allowMultipleAllocations"] = True
        devs.append(dev)
    count = 2
    if draw(st.integers(0, 9)) == 0:
        count = 3  # an incomplete pool
    slices = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-dev"},
               "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1,
                                                                    "resourceSliceCount": count},
                        "devices": devs}},
              {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{node}-ctr"},
               "spec": {"driver": DRIVER, "nodeName": node, "pool": {"name": node, "generation": 1,
                                                                    "resourceSliceCount": count},
                        "sharedCounters": [{"name": "cs", "counters": {
                            "slots": {"value": str(draw(st.integers(0, 4)))}}}]}}]
    return devs, slices


@st.composite
def request(draw: st.DrawFn, name: str) -> dict[str, Any]:
    def exact() -> dict[str, Any]:
        body: dict[str, Any] = {"deviceClassName": draw(st.sampled_from(["gpu", "strict"]))}
        if draw(st.integers(0, 7)) == 0:
            body["allocationMode"] = "All"
        else:
            body["count"] = draw(st.integers(1, 2))
        if draw(st.booleans()):
            model = draw(st.sampled_from(MODELS))
            expression = f'device.attributes["{DRIVER}"].?model.orValue("") == "{model}"'
            body["selectors"] = [{"cel": {"expression": expression}}]
        if draw(st.booleans()):
            body["tolerations"] = [{"key": "maint", "operator": "Exists"}]
        if draw(st.integers(0, 3)) == 0:
            body["capacity"] = {"requests": {"memory": draw(st.sampled_from(["10Gi", "50Gi"]))}}
        return body

    if draw(st.integers(0, 2)) == 0:
        return {"name": name, "firstAvailable": [{"name": "one", **exact()}, {"name": "two", **exact()}]}
    body = exact()
    if draw(st.integers(0, 9)) == 0:
        body["adminAccess"] = True
    return {"name": name, "exactly": body}


@st.composite
def cluster(draw: st.DrawFn) -> ClusterState:
    docs: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [SAFE]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "strict"},
         "spec": {"selectors": [UNSAFE]}}]
    placed: list[tuple[str, dict[str, Any]]] = []
    for n in NODES[: draw(st.integers(1, 3))]:
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}})
        devs, slices = draw(devices(n))
        docs += slices
        placed += [(n, d) for d in devs]
    # Other claims hold some devices (exclusively, or a share of a multi-allocatable one).
    held = draw(st.lists(st.sampled_from(placed), max_size=3, unique_by=lambda p: (p[0], p[1]["name"]))) \
        if placed else []
    for i, (n, dev) in enumerate(held):
        result: dict[str, Any] = {"request": "r", "driver": DRIVER, "pool": n, "device": dev["name"]}
        if dev.get("allowMultipleAllocations"):
            result["shareID"] = f"00000000-0000-0000-0000-00000000000{i}"
            result["consumedCapacity"] = {"memory": "30Gi"}
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": f"holder-{i}", "namespace": "other"},
                     "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
                     "status": {"allocation": {"devices": {"results": [result]}}}})
    requests = [draw(request(f"r{i}")) for i in range(draw(st.integers(1, 2)))]
    spec: dict[str, Any] = {"requests": requests}
    kind = draw(st.integers(0, 5))
    if kind == 0:
        spec["constraints"] = [{"matchAttribute": f"{DRIVER}/numa"}]
    elif kind == 1:
        spec["constraints"] = [{"matchAttribute": f"{DRIVER}/model", "requests": [requests[0]["name"]]}]
    elif kind == 2:
        spec["constraints"] = [{"distinctAttribute": f"{DRIVER}/numa"}]
    docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": "target", "namespace": "default"}, "spec": {"devices": spec}})
    features = draw(st.sampled_from([Features(), Features(), Features(device_taints=False),
                                     Features(partitionable_devices=False), Features(consumable_capacity=False),
                                     Features(device_binding_and_status=False)]))
    return state_of(docs, features)


KEY: Key = ("default", "target")
SETTINGS = settings(max_examples=examples(200))


def _direct(state: ClusterState, node: str, claims: list[ResourceClaim]) -> tuple[str, Any]:
    allocator = Allocator(state.features, state.in_use, state.classes, state.slice_cache())
    try:
        res = allocator.allocate(state.nodes[node], claims)
    except AllocationError as err:
        return ("error", err.message)
    if res is None:
        return ("unsatisfiable", None)
    return ("allocated", [(claim_ref(c), r.request, f"{r.driver}/{r.pool}/{r.device}")
                          for c, a in zip(claims, res, strict=True) for r in a.devices.results])


def _as_tuple(verdict: Any) -> tuple[str, Any]:
    if verdict.status == "error":
        return ("error", verdict.error)
    if verdict.status == "unsatisfiable":
        return ("unsatisfiable", None)
    return ("allocated", [(d.claim, d.request, d.device) for d in verdict.devices])


@SETTINGS
@given(cluster())
def test_verdict_per_node_is_the_allocators(state: ClusterState) -> None:
    target = state.claims[KEY]
    full = explain_claim(state, KEY)
    seen = [n for g in full.groups for n in g.nodes]
    assert sorted(seen) == sorted(state.nodes)
    for group in full.groups:
        for n in group.nodes:
            direct = _direct(state, n, [target])
            assert group.verdict.status == direct[0]
            one = explain_claim(state, KEY, [n])
            assert _as_tuple(one.groups[0].verdict) == direct


@SETTINGS
@given(cluster())
def test_allocated_devices_were_reported_usable(state: ClusterState) -> None:
    for n in state.nodes:
        status, devices = _direct(state, n, [state.claims[KEY]])
        if status != "allocated":
            continue
        outcomes = device_outcomes(state, KEY, n)
        for _, request, device in devices:
            reasons = {str(o.device): o.reason for o in outcomes[f"default/target:{request}"]}
            assert reasons[device] is None, (request, device, reasons)


@SETTINGS
@given(cluster())
def test_proven_impossible_is_not_allocated(state: ClusterState) -> None:
    ex = explain_claim(state, KEY)
    for group in ex.groups:
        claim_report = group.claims[0] if group.claims else None
        if claim_report is None:
            continue
        impossible = any(c.satisfiable is False for c in claim_report.constraints)
        for req in claim_report.requests:
            if all(a.problem is None and a.needed is not None and a.usable < a.needed for a in req.alternatives):
                impossible = True
        if impossible:
            assert group.verdict.status != "allocated", group


def _probe(state: ClusterState, body: dict[str, Any]) -> Key:
    """A claim with one request for one device, built like the target's request (no constraints)."""
    body = {k: v for k, v in body.items() if k not in ("allocationMode", "count")}
    doc = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
           "metadata": {"name": "probe", "namespace": "default"},
           "spec": {"devices": {"requests": [{"name": "p", "exactly": {**body, "count": 1}}]}}}
    [claim] = decode_documents([doc], source="probe").objects
    assert isinstance(claim, ResourceClaim)
    state.add(apply_claim_defaults(claim))
    return ("default", "probe")


def _bodies(claim: ResourceClaim) -> list[dict[str, Any]]:
    import msgspec

    from drasim.api.quantity import quantity_enc_hook
    out = []
    for req in claim.spec.devices.requests:
        for part in req.first_available or [req.exactly]:
            if part is None or part.allocation_mode == "All":
                continue
            data = msgspec.to_builtins(part, enc_hook=quantity_enc_hook)
            data.pop("name", None)
            out.append(data)
    return out


@SETTINGS
@given(cluster())
def test_usable_means_the_allocator_can_use_it(state: ClusterState) -> None:
    for body in _bodies(state.claims[KEY]):
        probe_state = copy.deepcopy(state)
        key = _probe(probe_state, body)
        problem = explain_claim(probe_state, key).groups[0].claims[0].requests[0].alternatives[0].problem
        for n in probe_state.nodes:
            if problem is not None:
                # A request the allocator cannot even prepare: the whole call fails.
                assert _direct(probe_state, n, [probe_state.claims[key]])[0] == "error"
                continue
            outcomes = device_outcomes(probe_state, key, n)["default/probe:p"]
            decisive = next((o for o in outcomes if o.reason in (None, "cel-error")), None)
            status, devices = _direct(probe_state, n, [probe_state.claims[key]])
            if decisive is None:
                assert status == "unsatisfiable", (status, devices, outcomes)
            elif decisive.reason is None:
                assert (status, devices) == ("allocated", [("default/probe", "p", str(decisive.device))])
            else:
                assert (status, devices) == ("error", decisive.detail)
