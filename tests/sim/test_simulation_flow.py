"""The sim-layer pieces composed the way a simulation loop uses them (binding done by hand here)."""

from __future__ import annotations

from datetime import timedelta

import yaml

from drasim.api.resource import (
    AllocationResult,
    DeviceAllocationResult,
    DeviceRequestAllocationResult,
    ResourceClaimConsumerReference,
)
from drasim.cluster import EPOCH, ClusterState
from drasim.controllers import devicetaint as dt
from drasim.controllers import resourceclaim as rc
from drasim.sim import timeline as tl
from drasim.sim import workloads as wl
from drasim.sources.files import load_bytes

CLUSTER = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}, {name: gpu-2}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: ml}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  parallelism: 2
  completions: 2
  template:
    metadata: {annotations: {drasim.dev/run-for: 10m}}
    spec: {resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]}
---
apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: maintenance}
spec:
  events:
  - at: 1m
    action: apply
    object:
      apiVersion: resource.k8s.io/v1
      kind: DeviceTaintRule
      metadata: {name: drain-gpu-0}
      spec:
        deviceSelector: {driver: gpu.example.com, pool: node-1, device: gpu-0}
        taint: {key: maintenance, effect: NoExecute}
"""


def bind_all(state: ClusterState) -> None:
    """Stand-in for the scheduler: give each unbound pod's claim the first free GPU."""
    for key, pod in sorted(state.pods.items()):
        if pod.spec.node_name or (pod.status and pod.status.phase):
            continue
        _, claim = state.pod_claims(pod)[0]
        assert claim is not None
        used = {d.device for d in state.in_use.devices}
        dev = next(d for d in ("gpu-0", "gpu-1", "gpu-2") if d not in used
                   and not any(t.effect == "NoExecute" for s in state.effective_slices()
                               for x in s.spec.devices if x.name == d for t in x.taints))
        ckey = (key[0], claim.metadata.name)
        claim.metadata.finalizers.append(rc.FINALIZER)
        state.set_allocation(ckey, AllocationResult(devices=DeviceAllocationResult(results=[
            DeviceRequestAllocationResult(request="gpu", driver="gpu.example.com", pool="node-1", device=dev)])))
        assert claim.status is not None
        claim.status.reserved_for.append(ResourceClaimConsumerReference(resource="pods", name=key[1],
                                                                        uid=pod.metadata.uid or ""))
        pod.spec.node_name = "node-1"


def test_job_pod_is_evicted_by_a_rule_and_replaced() -> None:
    text = CLUSTER.encode()
    objects = load_bytes(text, source="c.yaml").objects
    timelines = tl.find_timelines(yaml.safe_load_all(CLUSTER), source="c.yaml")
    state = ClusterState.from_objects(objects, now=EPOCH)
    workloads, runs, tracker = wl.WorkloadController(), tl.RunTracker(), dt.EvictionTracker()
    log = []

    def settle() -> None:
        log.extend(workloads.reconcile(state))
        log.extend(rc.sync(state))
        bind_all(state)
        runs.observe(state)

    settle()
    assert len(state.pods) == 2 and len(state.claims) == 2
    on_gpu0 = next(k for k, c in state.claims.items()
                   if c.status and c.status.allocation and c.status.allocation.devices.results[0].device == "gpu-0")
    victim = next(p for p in state.pods.values() if state.pod_claims(p)[0][1] is state.claims[on_gpu0])

    for step in tl.schedule(timelines, EPOCH):
        state.now = step.time
        log.extend(tl.execute(state, step.action))
    assert state.taint_rules["drain-gpu-0"].spec.taint.time_added == EPOCH + timedelta(minutes=1)
    assert dt.next_eviction_time(state) == state.now
    log.extend(dt.evict_due(state, tracker))
    assert victim.metadata.name not in {k[1] for k in state.pods}
    settle()  # claim released and deleted, the Job makes a replacement on a free, untainted GPU
    assert on_gpu0 not in state.claims
    assert len(state.pods) == 2 and len(state.claims) == 2
    assert dt.update_rule_statuses(state, tracker.evicted_by_rule)[0].message == (
        "EvictionInProgress=False Completed: 1 pod evicted since starting the controller.")

    finish = runs.next_finish(state)
    assert finish == EPOCH + timedelta(minutes=10)
    state.now = finish
    log.extend(runs.finish_due(state))
    settle()
    state.now = EPOCH + timedelta(minutes=11)
    log.extend(runs.finish_due(state))
    settle()
    assert any(e.reason == "Completed" and e.object == "Job/ml/train" for e in log)
    assert not state.claims and not state.in_use.devices
    reasons = [e.reason for e in log]
    assert reasons.count("DeviceTaintManagerEviction") == 1 and reasons.count("CreatedResourceClaim") == 3
