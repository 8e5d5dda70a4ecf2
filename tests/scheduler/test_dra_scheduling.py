"""DynamicResources in the scheduling cycle: alternatives, replicas, sharing, no preemption, messages."""

from __future__ import annotations

import copy

import pytest
from helpers import (
    H100_THEN_A100_PAIR,
    build,
    claim,
    device_class,
    exact,
    gpu,
    gpu_slice,
    node,
    pod,
    replica_set,
    seed_state,
)

from drasim.allocator import Allocator
from drasim.api.core import Pod
from drasim.api.resource import AllocationResult, ResourceClaim
from drasim.cluster import ClusterState
from drasim.scheduler import Scheduler


def _direct(state: ClusterState, node_name: str, claims: list[ResourceClaim]) -> list[AllocationResult] | None:
    """A fresh allocator call on one node, as `drasim allocate` makes it."""
    return Allocator(state.features, copy.deepcopy(state.in_use), state.classes,
                     state.effective_slices()).allocate(state.nodes[node_name], claims)


def _schedule(state: ClusterState, sched: Scheduler, p: Pod, check_direct: bool = True):  # type: ignore[no-untyped-def]
    state.add(p)
    result = sched.schedule_one(state, p)
    if check_direct and result.node is not None and result.allocations:
        keys = [k for k in result.allocations if k in state.claims]
        direct = _direct(state, result.node, [state.claims[k] for k in keys])
        assert direct is not None
        assert [d.devices for d in direct] == [result.allocations[k].devices for k in keys]
    sched.apply(state, result)
    return result


def test_prioritized_list_scores_first_alternative_100_and_third_75() -> None:
    subs = [{"name": n, "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 1,
             "selectors": [{"cel": {"expression": f'device.attributes["gpu.nvidia.com"].model == "{n}"'}}]}
            for n in ("a", "b", "c")]
    state = ClusterState.from_objects([
        node("n1"), node("n2"), device_class(),
        gpu_slice("n1", [gpu(0, attributes={"type": {"string": "gpu"}, "model": {"string": "a"}})]),
        gpu_slice("n2", [gpu(0, attributes={"type": {"string": "gpu"}, "model": {"string": "c"}})]),
        claim("abc", [{"name": "gpu", "firstAvailable": subs}])])
    result = _schedule(state, Scheduler(), pod("p", ["abc"]))
    dra = {s.node: s.plugins["DynamicResources"] for s in result.scores}
    assert dra == {"n1": 2 * 100, "n2": 2 * 75}  # raw 8 and 6, normalised 100·raw//8, weight 2
    assert result.node == "n1"
    assert result.chosen_subrequests == {("default", "abc"): ["gpu/a"]}


def test_replicas_come_up_with_different_alternatives_on_a_mixed_fleet() -> None:
    objs = [device_class(), replica_set("web", {"app": "web"}),
            node("h100-0"), gpu_slice("h100-0", [gpu(i) for i in range(2)]),
            node("a100-0"), gpu_slice("a100-0", [gpu(i, "NVIDIA A100-SXM4-80GB") for i in range(4)])]
    pods = []
    for i in range(3):
        name = f"web-{i}"
        objs.append(claim(f"{name}-gpu-x", [{"name": "gpu", "firstAvailable": H100_THEN_A100_PAIR}],
                          ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": f"uid-{name}",
                                            "controller": True}]))
        pods.append(build(Pod, {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": "web"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                              "uid": "uid-rs-web", "controller": True}]},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "h100-else-a100"}]},
            "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": f"{name}-gpu-x"}]}}))
    state = ClusterState.from_objects(objs)
    sched = Scheduler()
    picked = {}
    results = []
    for p in pods:
        result = _schedule(state, sched, p)
        assert result.status == "Scheduled", result.message
        results.append(result)
        picked[p.metadata.name] = (result.node, result.chosen_subrequests[("default", f"{p.metadata.name}-gpu-x")])
    # Spreading (system default constraints of the ReplicaSet) and the H100 preference both apply; two H100
    # replicas fill the H100 node, the third gets the A100 pair.
    assert sorted(v for v in picked.values()) == [("a100-0", ["gpu/a100-pair"]), ("h100-0", ["gpu/h100"]),
                                                  ("h100-0", ["gpu/h100"])]
    assert all("PodTopologySpread" in s.plugins for s in results[0].scores) and results[0].scores


def test_shared_claim_pins_the_second_pod_to_the_first_pods_node() -> None:
    state = ClusterState.from_objects([
        device_class(), node("n1"), node("n2"), node("n3"),
        *[gpu_slice(n, [gpu(0)]) for n in ("n1", "n2", "n3")],
        claim("shared", [exact()])])
    sched = Scheduler()
    first = _schedule(state, sched, pod("a", ["shared"]))
    second = _schedule(state, sched, pod("b", ["shared"]))
    assert first.status == second.status == "Scheduled"
    assert second.node == first.node
    assert second.allocations == {} and second.scores == []  # only one node passes: no scoring
    shared = state.claims[("default", "shared")]
    assert shared.status is not None
    assert [r.name for r in shared.status.reserved_for] == ["a", "b"]
    assert "resource.kubernetes.io/delete-protection" in shared.metadata.finalizers


def test_no_preemption_for_devices_held_by_lower_priority_pods() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), gpu_slice("n1", [gpu(0)]),
                                       claim("low", [exact()]), claim("high", [exact()])])
    sched = Scheduler()
    assert _schedule(state, sched, pod("low", ["low"], priority=0)).status == "Scheduled"
    result = _schedule(state, sched, pod("high", ["high"], priority=1000))
    assert result.status == "UnschedulableAndUnresolvable"
    assert result.node is None and result.no_preemption
    assert result.message.startswith(
        "0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, "
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    assert "DynamicResources does not preempt" in result.message
    # The same pod without a priority edge: no such note.
    other = _schedule(state, sched, pod("peer", ["high"], priority=0))
    assert not other.no_preemption and "does not preempt" not in other.message


def test_device_plugin_and_dra_nodes_serve_the_same_extended_resource() -> None:
    cls = device_class({"metadata": {"name": "gpu.nvidia.com"}, "spec": {
        "extendedResourceName": "nvidia.com/gpu", "selectors": [{"cel": {"expression":
                                                                         "device.driver == 'gpu.nvidia.com'"}}]}})
    dp_alloc = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": "2"}
    state = ClusterState.from_objects([cls, node("dp", allocatable=dp_alloc), node("dra"),
                                       gpu_slice("dra", [gpu(i) for i in range(2)])])
    sched = Scheduler()
    on_dp = _schedule(state, sched, pod("on-dp", extra={"nvidia.com/gpu": "1"}, cpu="1",
                                        nodeSelector={"kubernetes.io/hostname": "dp"}))
    assert on_dp.status == "Scheduled" and on_dp.node == "dp"
    assert on_dp.extended_claim is None and on_dp.allocations == {}
    on_dra = _schedule(state, sched, pod("on-dra", extra={"nvidia.com/gpu": "2"}, cpu="1",
                                         nodeSelector={"kubernetes.io/hostname": "dra"}))
    assert on_dra.status == "Scheduled" and on_dra.node == "dra"
    ext = on_dra.extended_claim
    assert ext is not None
    assert ext.metadata.name.startswith("on-dra-extended-resources-") and len(ext.metadata.name) == 31
    assert [(r.name, r.exactly.count if r.exactly else None) for r in ext.spec.devices.requests] == [
        ("container-0-request-1", 2)]  # index of nvidia.com/gpu among the container's sorted request names
    stored = state.claims[("default", ext.metadata.name)]
    assert stored.status is not None and stored.status.allocation is not None
    assert [r.device for r in stored.status.allocation.devices.results] == ["gpu-0", "gpu-1"]
    assert [r.name for r in stored.status.reserved_for] == ["on-dra"]
    pod_status = state.pods[("default", "on-dra")].status
    assert pod_status is not None and pod_status.extended_resource_claim_status is not None
    assert pod_status.extended_resource_claim_status.resource_claim_name == ext.metadata.name
    assert [(m.container_name, m.resource_name, m.request_name)
            for m in pod_status.extended_resource_claim_status.request_mappings] == [
        ("main", "nvidia.com/gpu", "container-0-request-1")]
    # NodeResourcesFit skips the DRA-backed resource on the DRA node, but not on the device-plugin node.
    full = _schedule(state, sched, pod("too-many", extra={"nvidia.com/gpu": "2"}, cpu="1"))
    assert full.status == "Unschedulable"
    assert full.node_reasons == {"dp": "Insufficient nvidia.com/gpu", "dra": "cannot allocate all claims"}


def test_seed_10_h100_else_a100_on_two_nodes() -> None:
    state = seed_state("seed-10-h100-else-a100-two-nodes")
    sched = Scheduler()
    a = _schedule(state, sched, pod("a", ["pod-a"], cpu="1"))
    assert (a.node, a.chosen_subrequests) == ("dgx-h100-10", {("default", "pod-a"): ["gpu/h100"]})
    pins = {"kubernetes.io/hostname": "dgx-a100-10"}
    b = _schedule(state, sched, pod("b", ["pod-b"], cpu="1", nodeSelector=pins))
    assert (b.node, b.chosen_subrequests) == ("dgx-a100-10", {("default", "pod-b"): ["gpu/a100-pair"]})


def test_fit_error_message_counts_reasons_per_node() -> None:
    state = ClusterState.from_objects([
        device_class(), node("n1", labels={"pool": "x"}), node("n2"), node("n3"),
        *[gpu_slice(n, [gpu(0, "NVIDIA A100-SXM4-80GB")]) for n in ("n1", "n2", "n3")],
        claim("h100", [exact(selectors=['device.attributes["gpu.nvidia.com"].productName.contains("H100")'])])])
    result = Scheduler().schedule_one(state, pod("p", ["h100"]))
    assert result.message == ("0/3 nodes are available: 3 cannot allocate all claims. still not schedulable, "
                              "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
    affine = Scheduler().schedule_one(state, pod("p", ["h100"], nodeSelector={"pool": "y"}))
    assert affine.message == ("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. "
                              "still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not "
                              "helpful for scheduling.")
    mixed = Scheduler().schedule_one(state, pod("p", ["h100"], affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "pool", "operator": "DoesNotExist"}]}]}}}))
    assert mixed.message.startswith("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                                    "2 cannot allocate all claims. still not schedulable, preemption: ")
    assert mixed.node_reasons == {"n1": "node(s) didn't match Pod's node affinity/selector",
                                  "n2": "cannot allocate all claims", "n3": "cannot allocate all claims"}


@pytest.mark.parametrize(("pod_kwargs", "extra_objs", "message"), [
    ({"claims": ["missing"]}, [], 'could not find ResourceClaim "default/missing"'),
    ({"claims": ["gone"]}, [claim("gone", [exact()], deletionTimestamp="2026-01-01T00:00:00Z")],
     'resourceclaim "gone" is being deleted'),
])
def test_pre_enqueue_gates_pods_whose_claims_are_not_usable(pod_kwargs: dict, extra_objs: list, message: str) -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), *extra_objs])
    result = Scheduler().schedule_one(state, pod("p", **pod_kwargs))
    assert (result.status, result.message) == ("Gated", message)


def test_pre_enqueue_template_claims() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), claim("p-gpu-x", [exact()])])
    no_status = build(Pod, {"metadata": {"name": "p", "namespace": "default", "uid": "u1"}, "spec": {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}})
    result = Scheduler().schedule_one(state, no_status)
    assert (result.status, result.message) == ("Gated", 'pod "default/p": ResourceClaim not created yet')
    not_owner = build(Pod, {"metadata": {"name": "p", "namespace": "default", "uid": "u1"}, "spec": {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}, "status": {
        "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x"}]}})
    result = Scheduler().schedule_one(state, not_owner)
    assert result.message == "ResourceClaim default/p-gpu-x was not created for Pod default/p (Pod is not owner)"


@pytest.mark.parametrize("release,not_owner", [
    ("1.34", "ResourceClaim default/p-gpu-x was not created for pod default/p (pod is not owner)"),
    ("1.35", "ResourceClaim default/p-gpu-x was not created for pod default/p (pod is not owner)"),
    ("1.36", "ResourceClaim default/p-gpu-x was not created for Pod default/p (Pod is not owner)"),
    ("1.37", "ResourceClaim default/p-gpu-x was not created for Pod default/p (Pod is not owner)"),
])
def test_pre_enqueue_messages_follow_the_release(release: str, not_owner: str) -> None:
    """dynamicresources_test.go TestPlugin "wrong-claim" and resourceclaim_test.go TestIsForPod "other-pod": only
    IsForPod says `Pod` from 1.36 (resourceclaim.go v0.36.2); Name's errors read the same at v0.34.3 to
    v0.37.0-alpha.2."""
    from drasim.allocator.versions import features_for_version
    state = ClusterState.from_objects([device_class(), node("n1"), claim("p-gpu-x", [exact()])],
                                      features=features_for_version(release))
    spec = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}
    meta = {"name": "p", "namespace": "default", "uid": "u1"}
    assert Scheduler().schedule_one(state, build(Pod, {"metadata": meta, "spec": spec})).message == \
        'pod "default/p": ResourceClaim not created yet'
    owned_by_other = build(Pod, {"metadata": meta, "spec": spec, "status": {
        "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-x"}]}})
    assert Scheduler().schedule_one(state, owned_by_other).message == not_owner
    neither = build(Pod, {"metadata": meta, "spec": {"resourceClaims": [{"name": "gpu"}]}})
    assert Scheduler().schedule_one(state, neither).message == \
        'pod "default/p", spec.resourceClaim "gpu": none of the supported fields are set'


def test_pre_filter_rejects_missing_classes_and_disabled_prioritized_list() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), node("n2"),
                                       claim("c", [exact(cls="nvidia")]),
                                       claim("alt", [{"name": "gpu", "firstAvailable": H100_THEN_A100_PAIR}])])
    result = Scheduler().schedule_one(state, pod("p", ["c"]))
    assert result.status == "UnschedulableAndUnresolvable"
    assert result.message == ("0/2 nodes are available: request gpu: device class nvidia does not exist. "
                              "no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption "
                              "is not helpful for scheduling.")
    from drasim.allocator import Features
    state.features = Features(prioritized_list=False)
    result = Scheduler().schedule_one(state, pod("p", ["alt"]))
    assert "resource claim default/alt, request gpu: has subrequests, but the DRAPrioritizedList feature is " \
           "disabled." in result.message


def test_cel_runtime_error_fails_the_attempt() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), node("n2"), gpu_slice("n1", [gpu(0)]),
                                       gpu_slice("n2", [gpu(0)]),
                                       claim("c", [exact(selectors=['device.attributes["x"].missing == "y"'])])])
    result = Scheduler().schedule_one(state, pod("p", ["c"]))
    assert result.status == "Error" and result.node is None
    assert result.message.startswith('running "DynamicResources" filter plugin: claim default/c: selector #0: '
                                     "CEL runtime error: ")


def test_post_filter_deallocates_an_unreserved_claim_allocated_elsewhere() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), node("n2"), gpu_slice("n1", [gpu(0)]),
                                       gpu_slice("n2", [gpu(0)]), claim("c", [exact()])])
    sched = Scheduler()
    first = Scheduler().schedule_one(state, pod("x", ["c"], nodeSelector={"kubernetes.io/hostname": "n1"}))
    state.set_allocation(("default", "c"), first.allocations[("default", "c")])  # allocated, reserved for nobody
    p = pod("p", ["c"], nodeSelector={"kubernetes.io/hostname": "n2"})
    result = sched.schedule_one(state, p)
    assert result.deallocate == [("default", "c")]
    assert result.message == ("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
                              "1 resourceclaim not available on the node. deallocation of ResourceClaim completed, "
                              "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
    sched.apply(state, result)
    status = state.claims[("default", "c")].status
    assert status is not None and status.allocation is None
    again = sched.schedule_one(state, p)
    assert (again.status, again.node) == ("Scheduled", "n2")


def test_reserved_for_limit_is_a_pre_bind_error() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), gpu_slice("n1", [gpu(0)]), claim("c", [exact()])])
    sched = Scheduler()
    _schedule(state, sched, pod("p0", ["c"]))
    status = state.claims[("default", "c")].status
    assert status is not None
    status.reserved_for = status.reserved_for * 256
    result = sched.schedule_one(state, pod("p1", ["c"]))
    assert result.status == "Error" and result.node is None
    assert result.message == ('running PreBind plugin "DynamicResources": add reservation to claim default/c: '
                              'ResourceClaim.resource.k8s.io "c" is invalid: status.reservedFor: Too many: 257: '
                              "must have at most 256 items")


def test_positional_score_quirk_with_an_allocated_and_an_unallocated_claim() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), node("n2"), gpu_slice("n1", [gpu(0), gpu(1)]),
                                       gpu_slice("n2", [gpu(0), gpu(1)]), claim("held", [exact()]),
                                       claim("new", [exact()])])
    held = build(AllocationResult, {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "elsewhere", "device": "gpu-9"}]}})
    state.set_allocation(("default", "held"), held)  # no node selector: usable on every node
    result = Scheduler().schedule_one(state, pod("p", ["held", "new"]))
    assert result.status == "Error"
    assert result.message == ('running Score plugins: plugin "DynamicResources" failed with: number of '
                              "allocations 1 is smaller than number of claims")


def test_137_scores_allocated_claims_from_their_status() -> None:
    """1.37 Score (dra-semantics §5.5): an already-allocated claim is read from its status, so the pod that
    1.36 fails with "number of allocations 1 is smaller than number of claims" is scored and placed; the
    prioritized-list ranks still decide (dynamicresources_test.go "multiple-claims-prioritized-list-scoring")."""
    from drasim.allocator.versions import features_for_version
    subs = [{"name": n, "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 1,
             "selectors": [{"cel": {"expression": f'device.attributes["gpu.nvidia.com"].index == {i}'}}]}
            for i, n in enumerate(("first", "second"))]
    state = ClusterState.from_objects([device_class(), node("n1"), node("n2"), gpu_slice("n1", [gpu(0), gpu(1)]),
                                       gpu_slice("n2", [gpu(1)]), claim("held", [exact()]),
                                       claim("new", [{"name": "gpu", "firstAvailable": subs}])],
                                      features=features_for_version("1.37"))
    held = build(AllocationResult, {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "elsewhere", "device": "gpu-9"}]}})
    state.set_allocation(("default", "held"), held)
    result = Scheduler().schedule_one(state, pod("p", ["held", "new"]))
    assert result.status == "Scheduled", result.message
    assert {s.node: s.plugins["DynamicResources"] for s in result.scores} == {"n1": 200, "n2": 2 * 87}
    assert result.node == "n1"


def test_extended_resource_class_resolution() -> None:
    from drasim.scheduler.dra import resolve_class
    old = device_class({"metadata": {"name": "b-old", "creationTimestamp": "2026-01-01T00:00:00Z"},
                        "spec": {"extendedResourceName": "example.com/gpu"}})
    new = device_class({"metadata": {"name": "z-new", "creationTimestamp": "2026-02-01T00:00:00Z"},
                        "spec": {"extendedResourceName": "example.com/gpu"}})
    tie = device_class({"metadata": {"name": "a-tie", "creationTimestamp": "2026-02-01T00:00:00Z"},
                        "spec": {"extendedResourceName": "example.com/gpu"}})
    classes = {c.metadata.name: c for c in (old, new)}
    found = resolve_class(classes, "example.com/gpu")
    assert found is not None and found.metadata.name == "z-new"  # the newest wins
    classes["a-tie"] = tie
    found = resolve_class(classes, "example.com/gpu")
    assert found is not None and found.metadata.name == "a-tie"  # equal timestamps: the smaller name
    implicit = resolve_class(classes, "deviceclass.resource.kubernetes.io/b-old")
    assert implicit is not None and implicit.metadata.name == "b-old"
    assert resolve_class(classes, "deviceclass.resource.kubernetes.io/none") is None


def test_implicit_extended_resource_name_and_init_containers() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), gpu_slice("n1", [gpu(i) for i in range(4)])])
    name = "deviceclass.resource.kubernetes.io/gpu.nvidia.com"
    p = build(Pod, {"metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": {
        "initContainers": [{"name": "init", "resources": {"requests": {name: "1"}}}],
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "1", name: "2"}}},
                       {"name": "b", "resources": {"requests": {name: "1", "memory": "1Gi"}}}]}})
    result = _schedule(state, Scheduler(), p, check_direct=False)
    assert result.status == "Scheduled", result.message
    ext = result.extended_claim
    assert ext is not None
    # Long-lived containers get one request each (indexes over initContainers+containers and sorted names);
    # the init container's one device is covered by container a's request at a later index (PR #134882).
    assert [(r.name, r.exactly.count if r.exactly else 0) for r in ext.spec.devices.requests] == [
        ("container-1-request-1", 2), ("container-2-request-0", 1)]
    allocation = result.allocations[("default", ext.metadata.name)]
    assert [r.request for r in allocation.devices.results] == [
        "container-1-request-1", "container-1-request-1", "container-2-request-0"]
    assert result.extended_status is not None
    assert [(m.container_name, m.request_name) for m in result.extended_status.request_mappings] == [
        ("a", "container-1-request-1"), ("b", "container-2-request-0"), ("init", "container-1-request-1")]


def test_binding_timeout_makes_an_allocated_claim_unavailable() -> None:
    from datetime import timedelta
    bound = {"name": "gpu-0", "bindingConditions": ["attached"], "bindingFailureConditions": ["failed"]}
    state = ClusterState.from_objects([device_class(), node("n1"), gpu_slice("n1", [gpu(0, **{
        k: v for k, v in bound.items() if k != "name"})]), claim("c", [exact()])])
    sched = Scheduler()
    first = _schedule(state, sched, pod("a", ["c"]))
    assert first.status == "Scheduled"
    allocation = state.claims[("default", "c")].status.allocation  # type: ignore[union-attr]
    assert allocation is not None and allocation.allocation_timestamp == state.now
    status = state.claims[("default", "c")].status
    assert status is not None
    status.reserved_for = []  # the first consumer went away before the device got attached
    state.now += timedelta(seconds=601)
    result = sched.schedule_one(state, pod("b", ["c"]))
    assert result.node_reasons == {"n1": "resourceclaim not available on the node"}
    assert result.deallocate == [("default", "c")]


def test_a_request_without_a_class_name_is_a_pre_filter_error() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), claim("c", [exact(cls="")])])
    result = Scheduler().schedule_one(state, pod("p", ["c"]))
    assert (result.status, result.message) == (
        "Error", 'running PreFilter plugin "DynamicResources": request gpu: unsupported request type')


def test_nominated_node_is_tried_first_without_scoring() -> None:
    state = ClusterState.from_objects([node("n1"), node("n2"), node("n3")])
    p = pod("p", cpu="1")
    p.status = build(Pod, {"status": {"nominatedNodeName": "n3"}}).status
    sched = Scheduler()
    result = sched.schedule_one(state, p)
    assert (result.node, result.scores) == ("n3", [])
    assert sched.next_start_node_index == 0
