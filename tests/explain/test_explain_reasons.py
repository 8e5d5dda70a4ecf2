"""Each exclusion reason of `explain`, on a scenario built for it, next to the allocator's own verdict."""

from __future__ import annotations

from explain_helpers import (
    DRIVER,
    alt,
    claim,
    device_class,
    exact,
    gpu,
    node,
    real_verdict,
    reason,
    scenario,
    slice_,
    state_of,
)

from drasim.allocator import Features
from drasim.cluster import ClusterState, Key
from drasim.explain import explain_claim, explain_claims, explain_pod


def test_class_selector_false_on_a_mig_disabled_node() -> None:
    state, keys, n = scenario("seed-08-mig-disabled-node")
    ex = explain_claims(state, keys, [n])
    [group] = ex.groups
    assert group.verdict.status == "unsatisfiable"
    for name in ("mig-1g", "mig-2g"):
        a = alt(ex, name)
        assert (a.usable, a.considered) == (0, 4)
        rc = reason(a, "class-selector")
        assert rc.count == 4 and "type == 'mig'" in rc.detail
        assert a.notes == ["needs 1 device(s), 0 usable"]


def test_request_selector_and_in_use_with_the_holding_claims() -> None:
    state, keys, n = scenario("seed-03-h100-else-a100-one-free-a100")
    ex = explain_claim(state, keys[0], [n])
    h100, pair = alt(ex, "gpu/h100"), alt(ex, "gpu/a100-pair")
    assert reason(h100, "request-selector").count == 1
    assert 'contains("H100")' in reason(h100, "request-selector").detail
    # In-use devices that would not match anyway are told apart from the ones that matter.
    assert reason(h100, "in-use").detail == "would not match the request either"
    held = reason(pair, "in-use")
    assert held.count == 3 and held.detail == ""
    assert any("ml-team/training-job-7" in e for e in held.examples)
    assert any("research/notebook-3" in e for e in held.examples)
    assert pair.usable == 1 and pair.notes == ["needs 2 device(s), 1 usable"]
    # Per firstAvailable alternative: what the allocator says when it is the only one.
    assert (h100.forced, pair.forced) == ("unsatisfiable", "unsatisfiable")
    assert ex.alternatives == {"gpu/h100": [], "gpu/a100-pair": []}


def test_cel_runtime_error_carries_the_allocators_text() -> None:
    state, keys, n = scenario("s1-0038-error")
    ex = explain_claims(state, keys, [n])
    verdict = ex.groups[0].verdict
    assert verdict.status == "error"
    assert verdict.error == real_verdict(state, n, keys)
    rc = reason(alt(ex, "gpu"), "cel-error")
    assert rc.count == 8
    assert rc.detail == verdict.error  # the allocator's message, byte for byte


def test_shared_counter_exhausted_names_set_counter_left_and_holder() -> None:
    state, keys, n = scenario("seed-11-full-gpu-blocked-by-mig-slices")
    ex = explain_claims(state, keys, [n])
    a = alt(ex, "gpu")
    counters = [r for r in a.excluded if r.reason == "counters"]
    assert {r.detail for r in counters} == {
        "counter set gpu-0-counter-set: multiprocessors needs 98, 84 left",
        "counter set gpu-1-counter-set: multiprocessors needs 98, 84 left"}
    assert "inference/small-0" in counters[0].examples[0]
    assert a.usable == 0 and ex.groups[0].verdict.status == "unsatisfiable"


def test_taint_not_tolerated_names_taint_and_rule() -> None:
    state, keys, n = scenario("seed-09-taint-rule-noschedule", step=3)
    ex = explain_claims(state, keys, [n])
    a = alt(ex, "gpu")
    rc = reason(a, "taint")
    assert rc.detail == ("taint example.com/maintenance=firmware-upgrade:NoSchedule "
                         "(from DeviceTaintRule drain-gpu-0-for-firmware)")
    assert (a.usable, a.needed) == (3, 4)
    # Step 4 tolerates it: no taint reason, allocated.
    state, keys, n = scenario("seed-09-taint-rule-noschedule", step=4)
    ex = explain_claims(state, keys, [n])
    assert not [r for r in alt(ex, "gpu").excluded if r.reason == "taint"]
    assert ex.groups[0].verdict.status == "allocated"


def _capacity_state(request_capacity: dict[str, str]) -> tuple[ClusterState, Key]:
    shared = gpu("shared-0", allowMultipleAllocations=True, capacity={"memory": {"value": "10Gi"}})
    docs = [node("n1"), device_class(), slice_("s1", "n1", [shared]),
            claim("holder", [exact("r", capacity={"requests": {"memory": "8Gi"}})]),
            claim("c", [exact("r", capacity={"requests": request_capacity})])]
    docs[3]["status"] = {"allocation": {"devices": {"results": [{
        "request": "r", "driver": DRIVER, "pool": "n1", "device": "shared-0",
        "shareID": "11111111-1111-1111-1111-111111111111", "consumedCapacity": {"memory": "8Gi"}}]}}}
    return state_of(docs), ("default", "c")


def test_consumable_capacity_left_and_missing_capacity() -> None:
    state, key = _capacity_state({"memory": "4Gi"})
    ex = explain_claim(state, key)
    rc = reason(alt(ex, "r"), "capacity")
    assert rc.detail == "memory: needs 4Gi, 2Gi of 10Gi left"
    assert ex.groups[0].verdict.status == "unsatisfiable"
    assert real_verdict(state, "n1", [key]) is None
    state, key = _capacity_state({"bandwidth": "1"})
    rc = reason(alt(explain_claim(state, key), "r"), "capacity")
    assert rc.detail == "requests capacity bandwidth, which the device does not have"
    state, key = _capacity_state({"memory": "2Gi"})
    ex = explain_claim(state, key)
    assert alt(ex, "r").usable == 1 and ex.groups[0].verdict.status == "allocated"


def test_constraint_missing_attribute_and_unsatisfiable_values() -> None:
    docs = [node("n1"), device_class(),
            slice_("s1", "n1", [gpu("g0", attrs={"numa": {"int": 0}}), gpu("g1", attrs={"numa": {"int": 1}}),
                                gpu("g2")]),
            claim("c", [exact("a", selectors=[{"cel": {"expression": f'device.attributes["{DRIVER}"].numa == 0'}}]),
                        exact("b", selectors=[{"cel": {"expression": f'device.attributes["{DRIVER}"].numa == 1'}}])],
                  constraints=[{"matchAttribute": f"{DRIVER}/numa"}])]
    # g2 has no numa: "no such key" - keep the selectors safe with has().
    for r in docs[-1]["spec"]["devices"]["requests"]:
        sel = r["exactly"]["selectors"][0]["cel"]
        sel["expression"] = f'has(device.attributes["{DRIVER}"].numa) && ' + sel["expression"]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"))
    [con] = ex.groups[0].claims[0].constraints
    assert con.satisfiable is False
    assert con.values == {"a": ["0 (1)"], "b": ["1 (1)"]}
    assert ex.groups[0].verdict.status == "unsatisfiable"
    # A device without the attribute is excluded by the constraint (it is checked last).
    docs[-1]["spec"]["devices"]["requests"] = [exact("a", count=1)]
    docs[-1]["spec"]["devices"]["constraints"] = [{"matchAttribute": f"{DRIVER}/numa"}]
    docs[2]["spec"]["devices"] = [gpu("g2"), gpu("g0", attrs={"numa": {"int": 0}})]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"))
    rc = reason(alt(ex, "a"), "constraint")
    assert rc.count == 1 and "numa" in rc.detail and rc.examples == [f"{DRIVER}/n1/g2"]
    assert [d.device for d in ex.groups[0].verdict.devices] == [f"{DRIVER}/n1/g0"]


def test_pool_incomplete_obsolete_and_invalid() -> None:
    docs = [node("n1"), node("n2"), node("n3"), device_class(),
            # n1: count 2, only one slice present -> incomplete.
            slice_("s1", "n1", [gpu("g0")], count=2),
            # pool "shared": n2 sees generation 1, n3 publishes generation 2 of the same pool -> obsolete on n2.
            slice_("s2", "n2", [gpu("g0")], pool="shared", count=2),
            slice_("s3", "n3", [gpu("g1")], pool="shared", generation=2, count=2),
            claim("c", [exact("r")])]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"), ["n1", "n2"])
    assert [g.nodes for g in ex.groups] == [["n1"], ["n2"]]
    assert reason(alt(ex, "r", group=0), "pool-incomplete").count == 1
    assert ex.groups[0].pools[0].state == "incomplete"
    assert reason(alt(ex, "r", group=1), "pool-obsolete").count == 1
    assert ex.groups[1].pools[0].newest_generation == 2
    # Duplicate device names make a pool invalid; the allocator then reports a node-local error.
    docs = [node("n1"), device_class(), slice_("s1", "n1", [gpu("g0"), gpu("g0")]), claim("c", [exact("r")])]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"))
    assert reason(alt(ex, "r"), "pool-invalid").count == 2
    assert ex.groups[0].pools[0].detail == "duplicate device name g0"
    v = ex.groups[0].verdict
    assert (v.status, v.error, v.node_local) == ("error", "invalid resource pools were encountered", True)


def test_per_device_node_selection() -> None:
    docs = [node("n1"), node("n2"), device_class(),
            slice_("s1", None, [gpu("g0", nodeName="n1"), gpu("g1", nodeName="n2")], pool="p",
                   perDeviceNodeSelection=True),
            claim("c", [exact("r", count=2)])]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"), ["n1"])
    a = alt(ex, "r")
    assert reason(a, "node-selection").count == 1 and a.usable == 1
    assert ex.groups[0].verdict.status == "unsatisfiable"


def test_features_off_binding_conditions_and_counters() -> None:
    docs = [node("n1"), device_class(),
            slice_("s1", "n1", [gpu("g0", bindingConditions=["ready"], bindingFailureConditions=["failed"]),
                                gpu("g1")]),
            claim("c", [exact("r", count=2)])]
    state = state_of(docs, Features(device_binding_and_status=False))
    ex = explain_claim(state, ("default", "c"))
    assert reason(alt(ex, "r"), "binding-conditions").count == 1
    docs = [node("n1"), device_class(),
            slice_("s1", "n1", [gpu("g0", consumesCounters=[{"counterSet": "cs", "counters": {
                "x": {"value": "1"}}}])]),
            claim("c", [exact("r")])]
    # Partitionable devices off: the counter slice is skipped, the device may not be used.
    state = state_of(docs, Features(partitionable_devices=False))
    ex = explain_claim(state, ("default", "c"))
    assert reason(alt(ex, "r"), "counters-unsupported").count == 1
    assert ex.groups[0].verdict.status == "unsatisfiable"


def test_all_mode_needs_every_matching_device() -> None:
    docs = [node("n1"), device_class(), slice_("s1", "n1", [gpu("g0"), gpu("g1")]),
            claim("holder", [exact("r")], allocated=[("r", "n1", "g1")]),
            claim("c", [{"name": "r", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}}])]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"))
    a = alt(ex, "r")
    assert a.needed is None and a.usable == 1
    assert reason(a, "in-use").count == 1
    assert a.notes == ["allocationMode All needs every matching device: 2 match, 1 of them cannot be allocated"]
    assert ex.groups[0].verdict.status == "unsatisfiable"


def test_problem_unknown_class_matches_the_allocator_error() -> None:
    docs = [node("n1"), device_class(), slice_("s1", "n1", [gpu("g0")]), claim("c", [exact("r", cls="nope")])]
    state = state_of(docs)
    ex = explain_claim(state, ("default", "c"))
    a = alt(ex, "r")
    # The allocator's own preparation error, word for word.
    assert a.problem is not None and 'could not retrieve device class nope' in a.problem
    assert a.problem == ex.groups[0].verdict.error
    assert ex.groups[0].verdict.error == real_verdict(state, "n1", [("default", "c")])


def test_counts_add_up_to_the_devices_considered() -> None:
    state, keys, n = scenario("seed-11-full-gpu-blocked-by-mig-slices", step=2)
    ex = explain_claims(state, keys, [n])
    for req in ex.groups[0].claims[0].requests:
        for a in req.alternatives:
            assert a.usable + sum(r.count for r in a.excluded) == a.considered


def test_pod_claims_from_a_template_and_node_selection() -> None:
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"nodeSelector": {"pool": "a"}, "containers": [{"name": "c"}],
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]}}
    docs = [node("n1", pool="a"), node("n2", pool="b"), device_class(),
            slice_("s1", "n1", [gpu("g0")]), slice_("s2", "n2", [gpu("g0")]), template, pod]
    state = state_of(docs)
    ex = explain_pod(state, ("default", "p"))
    assert [(c.name, c.state) for c in ex.claims] == [("gpu", "from-template")]
    assert [e.node for e in ex.excluded_nodes] == ["n2"]
    assert ex.excluded_nodes[0].reason == "NodeAffinity: node(s) didn't match Pod's node affinity/selector"
    assert ex.allocatable_nodes == ["n1"]
