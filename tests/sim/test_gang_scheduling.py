"""Gang scheduling of PodGroups (GangScheduling): all or nothing against minCount.

Derived from kubernetes/kubernetes pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go (the
Permit-based revisions of the 1.36/1.37 line: PreEnqueue rejects a pod whose PodGroup is missing, "waiting for
pod's pod group ... to appear in scheduling queue", and a gang with fewer than minCount pods, "waiting for
minCount pods from a gang to appear in scheduling queue"; a basic group is not gated; Permit waits, "waiting for
minCount pods from a gang to be scheduled", until minCount pods are assumed, then allows them all) and from the
framework's Permit timeout ("rejected due to timeout after waiting 5m0s at plugin GangScheduling").
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from drasim import lib
from drasim.cluster import EPOCH

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "examples/example-driver/cluster.yaml"  # one node, 2 GPUs
GANG = "GenericWorkload=true,GangScheduling=true"


def _docs(pods: int, min_count: int | None, *, group: str = "trainers", policy: dict[str, Any] | None = None,
          extra: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "one-gpu", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [
                    {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "trainers", "namespace": "default"},
           "spec": {"parallelism": pods, "completions": pods, "template": {"spec": {
               "restartPolicy": "Never", "schedulingGroup": {"podGroupName": group},
               "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
               "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]}}}}
    docs = [template, job]
    if min_count is not None or policy is not None:
        docs.append({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                     "metadata": {"name": "trainers", "namespace": "default"},
                     "spec": {"schedulingPolicy": policy or {"gang": {"minCount": min_count}}}})
    return docs + (extra or [])


def _simulate(tmp_path: Path, docs: list[dict[str, Any]], gates: str = GANG) -> lib.Simulation:
    path = tmp_path / "gang.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return lib.simulate(lib.load([str(CLUSTER), str(path)], release=lib.profile("1.37", gates)))


def _placed(sim: lib.Simulation) -> int:
    return sum(1 for p in sim.result.state.pods.values() if p.spec.node_name)


def test_a_gang_that_fits_binds_together(tmp_path: Path) -> None:
    sim = _simulate(tmp_path, _docs(2, 2))
    assert _placed(sim) == 2
    group = sim.result.state.pod_groups[("default", "trainers")]
    assert group.status is not None
    assert [(c.type, c.status, c.reason) for c in group.status.conditions] == [
        ("PodGroupScheduled", "True", "Scheduled")]


def test_a_partial_gang_binds_nobody_and_times_out(tmp_path: Path) -> None:
    sim = _simulate(tmp_path, _docs(3, 3))  # 3 pods, one GPU each, 2 GPUs
    result = sim.result
    assert _placed(sim) == 0
    timeouts = [e for e in result.events if e.reason == "FailedScheduling"
                and e.message == "rejected due to timeout after waiting 5m0s at plugin GangScheduling"]
    assert timeouts and all(e.time == EPOCH + timedelta(minutes=5) for e in timeouts)
    assert "wait in Permit for minCount pods of their PodGroup" in result.steady_state
    waiting = [r.message for r in result.pods.values() if r.status == "Waiting"]
    assert len(waiting) == 2 and all("waiting for minCount pods from a gang to be scheduled" in m for m in waiting)
    group = result.state.pod_groups[("default", "trainers")]
    assert group.status is not None
    [cond] = group.status.conditions
    assert (cond.status, cond.reason) == ("False", "Unschedulable")


def test_without_the_gate_the_pods_are_placed_one_by_one(tmp_path: Path) -> None:
    sim = _simulate(tmp_path, _docs(3, 3), gates="GenericWorkload=true")
    assert _placed(sim) == 2


def test_fewer_pods_than_min_count_never_enter_the_queue(tmp_path: Path) -> None:
    sim = _simulate(tmp_path, _docs(2, 3))
    assert _placed(sim) == 0
    assert {r.message for r in sim.result.pods.values()} == {
        "waiting for minCount pods from a gang to appear in scheduling queue"}
    assert not sim.result.state.claims or all(
        c.status is None or c.status.allocation is None for c in sim.result.state.claims.values())


def test_a_missing_pod_group_gates_the_pods(tmp_path: Path) -> None:
    sim = _simulate(tmp_path, _docs(2, None, group="absent"))
    assert _placed(sim) == 0
    assert {r.message for r in sim.result.pods.values()} == {
        'waiting for pod\'s pod group "absent" to appear in scheduling queue'}


def test_a_basic_group_is_not_gang_scheduled(tmp_path: Path) -> None:
    sim = _simulate(tmp_path, _docs(3, None, policy={"basic": {}}))
    assert _placed(sim) == 2


def test_capacity_arriving_before_the_timeout_completes_the_gang(tmp_path: Path) -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker-2"},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}
    slice_ = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "worker-2-gpus"},
              "spec": {"driver": "gpu.example.com", "nodeName": "worker-2",
                       "pool": {"name": "worker-2", "generation": 1, "resourceSliceCount": 1},
                       "devices": [{"name": "gpu-0"}]}}
    timeline = {"apiVersion": "drasim.dev/v1alpha1", "kind": "Timeline", "metadata": {"name": "scale-up"},
                "spec": {"events": [{"at": "2m", "action": "apply", "objects": [node, slice_]}]}}
    sim = _simulate(tmp_path, _docs(3, 3, extra=[timeline]))
    assert _placed(sim) == 3
    scheduled = [e for e in sim.result.events if e.reason == "Scheduled"]
    assert len(scheduled) == 3 and all(e.time == EPOCH + timedelta(minutes=2) for e in scheduled)


def test_a_gang_that_never_fits_stops_at_steady_state_on_many_nodes(tmp_path: Path) -> None:
    """Each retry may put the waiting pods on other nodes (the tie-break): the run still stops after one
    timeout instead of repeating it for the whole horizon."""
    nodes: list[dict[str, Any]] = []
    for i in range(6):
        nodes.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"},
                      "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}})
        nodes.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                      "metadata": {"name": f"n{i}-gpus"},
                      "spec": {"driver": "gpu.example.com", "nodeName": f"n{i}",
                               "pool": {"name": f"n{i}", "generation": 1, "resourceSliceCount": 1},
                               "devices": [{"name": "gpu-0"}]}})
    sim = _simulate(tmp_path, _docs(9, 9, extra=nodes))  # 8 GPUs (2 + 6), 9 pods
    assert _placed(sim) == 0
    assert sim.result.end - sim.result.start <= timedelta(minutes=10)
    assert "8 pods of a gang wait in Permit" in sim.result.steady_state


def test_pods_beyond_min_count_bind_once_the_quorum_is_bound(tmp_path: Path) -> None:
    """Permit counts bound pods of the group too: after the first minCount bind, each later pod is let through."""
    sim = _simulate(tmp_path, _docs(2, 1))
    assert _placed(sim) == 2
    sim = _simulate(tmp_path, _docs(3, 2))  # 2 GPUs: two bind together, the third finds no device
    assert _placed(sim) == 2
    assert not [r for r in sim.result.pods.values() if r.status == "Waiting"]


def test_the_pass_caches_change_no_result(tmp_path: Path) -> None:
    """The per-pass member cache (fast paths) gives what counting afresh every time gives."""
    from drasim.sim.engine import simulate as run
    from drasim.sim.settle import simulation_options

    for docs in (_docs(3, 3), _docs(2, 2), _docs(3, 2)):
        path = tmp_path / "gang.yaml"
        path.write_text(yaml.safe_dump_all(docs))
        release = lib.profile("1.37", GANG)
        inputs = lib.load([str(CLUSTER), str(path)], release=release)
        outcomes = []
        for fast in (True, False):
            options = simulation_options(release)
            options.fast_paths = fast
            result = run(inputs.objects, inputs.timelines, options)
            outcomes.append(([(str(e.time), e.object, e.reason, e.message) for e in result.events],
                             sorted((k, p.spec.node_name) for k, p in result.state.pods.items())))
        assert outcomes[0] == outcomes[1]
