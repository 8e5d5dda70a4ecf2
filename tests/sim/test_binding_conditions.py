"""PreBind waits for devices' binding conditions on the simulated clock (dra-semantics §5.6).

Built from upstream pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go `TestPlugin`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import yaml

from drasim.allocator.versions import features_for_version
from drasim.api.decode import decode_documents
from drasim.cluster import EPOCH
from drasim.sim.engine import SimulationOptions, SimulationResult, simulate
from drasim.sim.timeline import find_timelines

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: worker, labels: {kubernetes.io/hostname: worker}}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: fabric}
spec:
  selectors: [{cel: {expression: device.driver == "fabric.example.com"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: worker-fabric}
spec:
  driver: fabric.example.com
  nodeName: worker
  pool: {name: worker, generation: 1, resourceSliceCount: 1}
  devices:
  - name: instance-1
    bindsToNode: true
    bindingConditions: [attached]
    bindingFailureConditions: [failed]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: my-claim, namespace: default}
spec:
  devices:
    requests: [{name: req, exactly: {deviceClassName: fabric}}]
---
apiVersion: v1
kind: Pod
metadata: {name: my-pod, namespace: default, uid: pod-uid}
spec:
  resourceClaims: [{name: fabric, resourceClaimName: my-claim}]
  containers: [{name: main, resources: {claims: [{name: fabric}]}}]
"""


def _timeline(*events: dict[str, Any]) -> str:
    return yaml.safe_dump({"apiVersion": "drasim.dev/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                           "spec": {"events": list(events)}})


def _condition(at: str, type_: str, status: str = "True", **extra: str) -> dict[str, Any]:
    return {"at": at, "action": "setDeviceCondition", "device": "fabric.example.com/worker/instance-1",
            "type": type_, "status": status, **extra}


def _run(timeline: str = "", horizon: str = "15m", cluster: str = CLUSTER) -> SimulationResult:
    from drasim.sim.timeline import parse_duration
    docs = list(yaml.safe_load_all(cluster + ("---\n" + timeline if timeline else "")))
    objects = decode_documents([d for d in docs if d.get("kind") != "Timeline"], source="test").objects
    timelines = find_timelines(docs, source="test")
    return simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36"),
                                                          horizon=parse_duration(horizon)))


def _events(result: SimulationResult, reason: str) -> list[tuple[timedelta, str]]:
    return [(e.time - EPOCH, e.message) for e in result.events if e.reason == reason]


def test_binding_waits_until_the_condition_is_true() -> None:
    """TestPlugin "bound-claim-with-succeeded-binding-conditions": with every binding condition True the pod
    binds. The condition is set at 32 s; PreBind polls every 5 s, so the pod binds at 35 s."""
    result = _run(_timeline(_condition("32s", "attached")))
    pod = result.state.pods[("default", "my-pod")]
    assert pod.spec.node_name == "worker"
    assert _events(result, "BindingConditionsPending") == [
        (timedelta(0), "waiting for binding conditions for device on node worker")]
    assert _events(result, "Scheduled") == [(timedelta(seconds=35), "Successfully assigned default/my-pod to worker")]
    claim = result.state.claims[("default", "my-claim")]
    assert claim.status is not None and claim.status.allocation is not None
    assert claim.status.allocation.allocation_timestamp == EPOCH
    assert [r.binding_conditions for r in claim.status.allocation.devices.results] == [["attached"]]
    assert [r.name for r in claim.status.reserved_for] == ["my-pod"]


def test_nothing_sets_the_condition_pod_not_bound_and_says_why() -> None:
    """Without a condition the pod is not bound; the output says what PreBind waits for."""
    result = _run(horizon="5m")
    assert result.state.pods[("default", "my-pod")].spec.node_name is None
    record = result.pods[("default", "my-pod")]
    assert "waits until" in record.message
    assert "attached of device fabric.example.com/worker/instance-1" in record.message
    assert "claim default/my-claim" in record.message
    from drasim.sim.report import pod_lines
    line = next(x for x in pod_lines(result) if x.key == ("default", "my-pod"))
    assert line.status == "Pending" and "binding conditions" in line.reason


def test_binding_timeout_then_deallocate_and_retry() -> None:
    """TestPlugin "prebind-fail-with-binding-timeout" (error `claim <name> binding timeout` 600 s after the
    allocationTimestamp) and "bound-claim-with-timed-out-binding" (the next attempt: `resourceclaim not
    available on the node`, PostFilter `deallocation of ResourceClaim completed`), then a new allocation."""
    result = _run(horizon="15m")
    failed = _events(result, "FailedScheduling")
    assert failed[0] == (timedelta(seconds=600),
                         'running PreBind plugin "DynamicResources": claim my-claim binding timeout')
    assert failed[1][0] == timedelta(seconds=601)
    assert failed[1][1] == ("0/1 nodes are available: 1 resourceclaim not available on the node. "
                            "deallocation of ResourceClaim completed, preemption: 0/1 nodes are available: "
                            "1 Preemption is not helpful for scheduling.")
    assert _events(result, "BindingConditionsPending")[1][0] == timedelta(seconds=601)
    claim = result.state.claims[("default", "my-claim")]
    assert claim.status is not None and claim.status.allocation is not None
    assert claim.status.allocation.allocation_timestamp == EPOCH + timedelta(seconds=601)


def test_binding_failure_condition() -> None:
    """TestPlugin "bound-claim-with-failed-binding": a True failure condition fails PreBind; the next attempt
    finds the claim unavailable and PostFilter deallocates it (clearing status.devices)."""
    result = _run(_timeline(_condition("10s", "failed", reason="FabricError", message="no link")), horizon="12s")
    failed = _events(result, "FailedScheduling")
    assert failed[0] == (timedelta(seconds=10), 'running PreBind plugin "DynamicResources": claim my-claim '
                                                'binding failed: reason=FabricError, message="no link"')
    assert "deallocation of ResourceClaim completed" in failed[1][1]
    pod = result.state.pods[("default", "my-pod")]
    cond = next(c for c in pod.status.conditions if c.type == "PodScheduled")  # type: ignore[union-attr]
    assert cond.status == "False"
    claim = result.state.claims[("default", "my-claim")]
    assert claim.status is not None and claim.status.devices == []  # cleared with the deallocation


def test_a_pod_in_prebind_is_assumed_on_its_node() -> None:
    """The scheduler cache assumes a pod for its binding cycle (schedule_one.go assume, ForgetPod on
    failure): while my-pod (6 CPUs) waits in PreBind, a 4-CPU pod does not fit on the 8-CPU node; after the
    binding failed (Unreserve) the node's CPUs are free again and the other pod lands there."""
    big = CLUSTER.replace("containers: [{name: main, resources: {claims: [{name: fabric}]}}]",
                          "containers: [{name: main, resources: {requests: {cpu: '6'}, claims: [{name: fabric}]}}]")
    other = """---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: default, uid: other-uid, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  containers: [{name: main, resources: {requests: {cpu: "4"}}}]
"""
    waiting = _run(horizon="5m", cluster=big + other)
    failed = _run(_timeline(_condition("10s", "failed")), horizon="12s", cluster=big + other)
    assert waiting.state.pods[("default", "other")].spec.node_name is None
    assert "Insufficient cpu" in waiting.pods[("default", "other")].message
    assert failed.state.pods[("default", "other")].spec.node_name == "worker"
