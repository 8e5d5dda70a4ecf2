"""kubernetes#141290: pods holding devices only through DRA extended resources and NoExecute taints."""

from __future__ import annotations

import pytest
import yaml

from drasim import releases
from drasim.allocator.versions import features_for_version
from drasim.api.decode import decode_documents
from drasim.sim.engine import SimulationOptions, SimulationResult, simulate
from drasim.sim.timeline import find_timelines

DOCS = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
  selectors: [{cel: {expression: device.driver == "gpu.example.com"}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: default, uid: legacy-uid}
spec:
  containers: [{name: main, resources: {requests: {example.com/gpu: "1"}, limits: {example.com/gpu: "1"}}}]
---
apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: drain}
spec:
  events:
  - at: 1m
    action: apply
    object:
      apiVersion: resource.k8s.io/v1beta2
      kind: DeviceTaintRule
      metadata: {name: drain}
      spec:
        deviceSelector: {driver: gpu.example.com, pool: n1}
        taint: {key: example.com/maintenance, effect: NoExecute}
"""


def _run(version: str) -> SimulationResult:
    docs = list(yaml.safe_load_all(DOCS))
    objects = decode_documents([d for d in docs if d["kind"] != "Timeline"], source="test").objects
    return simulate(objects, find_timelines(docs, source="test"),
                    SimulationOptions(features=features_for_version(version), extended_resources=True))


def test_136_never_evicts_extended_resource_pods() -> None:
    """Up to 1.36 the eviction controller's podEvictionTime only walks pod.spec.resourceClaims (upstream
    device_taint_eviction.go), so the pod keeps its tainted device."""
    result = _run("1.36")
    assert result.state.pods[("default", "legacy")].spec.node_name == "n1"
    assert not [e for e in result.events if e.reason == "DeviceTaintManagerEviction"]
    cond = result.state.taint_rules["drain"].status.conditions[0]  # type: ignore[union-attr]
    assert (cond.status, cond.reason) == ("False", "NotStarted")


def test_137_does_not_evict_them_either() -> None:
    """1.37 shipped with the bug: #141290 is open, its fix (PR #142289) unmerged as of 2026-09-23."""
    assert not releases.evicts_extended_resource_pods("1.37")
    result = _run("1.37")
    assert result.state.pods[("default", "legacy")].spec.node_name == "n1"
    assert not [e for e in result.events if e.reason == "DeviceTaintManagerEviction"]


def test_the_fix_evicts_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the fix PR #142289 proposes: the claim named in status.extendedResourceClaimStatus counts too."""
    monkeypatch.setattr(releases, "evicts_extended_resource_pods", lambda release: True)
    result = _run("1.37")
    assert [e.object for e in result.events if e.reason == "DeviceTaintManagerEviction"] == ["Pod/default/legacy"]
    assert ("default", "legacy") not in result.state.pods
    cond = result.state.taint_rules["drain"].status.conditions[0]  # type: ignore[union-attr]
    assert (cond.status, cond.reason, cond.message) == (
        "False", "Completed", "1 pod evicted since starting the controller.")
