"""The simulation loop over time: a NoExecute DeviceTaintRule applied mid-run evicts pods, the
Deployment replaces them, and run-for pods finish and free their devices."""

from __future__ import annotations

from datetime import timedelta

from drasim.allocator.versions import features_for_version
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.sim.engine import SimulationOptions, simulate

DRAIN = """
apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: drain}
spec:
  events:
  - at: 2m
    action: apply
    object:
      apiVersion: resource.k8s.io/v1beta2
      kind: DeviceTaintRule
      metadata: {name: drain-h100-10}
      spec:
        deviceSelector: {driver: gpu.nvidia.com, pool: dgx-h100-10}
        taint: {key: example.com/maintenance, value: bios, effect: NoExecute}
"""

SHORT_JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: short, namespace: default}
spec:
  parallelism: 1
  completions: 1
  template:
    metadata:
      annotations: {drasim.dev/run-for: 5m}
    spec:
      resourceClaims: [{name: gpu, resourceClaimTemplateName: two-mig-slices}]
      containers: [{name: main, resources: {claims: [{name: gpu}]}}]
"""


def _run(tmp_path, *extra: str):  # type: ignore[no-untyped-def]
    paths = list(demo_paths())
    for i, text in enumerate(extra):
        f = tmp_path / f"extra-{i}.yaml"
        f.write_text(text)
        paths.append(str(f))
    objects, timelines, _ = load_inputs(paths)
    return simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))


def test_noexecute_rule_evicts_at_its_time_and_reports(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = _run(tmp_path, DRAIN)
    evictions = [e for e in result.events if e.reason == "DeviceTaintManagerEviction"]
    assert evictions, [e.reason for e in result.events]
    assert {e.time - result.start for e in evictions} == {timedelta(minutes=2)}
    # Nothing is left running on the tainted devices.
    state = result.state
    for claim in state.claims.values():
        if claim.status and claim.status.allocation:
            assert all(r.pool != "dgx-h100-10" for r in claim.status.allocation.devices.results)
    cond = state.taint_rules["drain-h100-10"].status.conditions[0]  # type: ignore[union-attr]
    assert cond.type == "EvictionInProgress" and cond.status == "False"
    assert cond.message is not None and cond.message.endswith(
        f"{len(evictions)} pods evicted since starting the controller.")


def test_run_for_pods_finish_and_free_their_devices(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = _run(tmp_path, SHORT_JOB)
    finished = [e for e in result.events if e.reason == "Succeeded"]
    # The Job's pod takes the second GPU's MIG slices and succeeds 5 minutes after it started.
    assert [e.object.startswith("Pod/default/short-") for e in finished] == [True]
    job_pods = [k for k in result.pods if k[1].startswith("short-")]
    assert len(job_pods) == 1
    start = result.pods[job_pods[0]].scheduled_at
    assert start is not None and finished[0].time - start == timedelta(minutes=5)
    # Its claim was released (deallocated) when it finished.
    for claim in result.state.claims.values():
        if claim.metadata.name.startswith("short-"):
            assert claim.status is None or claim.status.allocation is None
