"""The bundled demo tells the prioritized-list story; `drasim simulate` prints its key lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from drasim.allocator.versions import features_for_version
from drasim.api.nodeaffinity import selector_matches
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.report import pod_lines, workload_mix


def _run(seed: int = 0):  # type: ignore[no-untyped-def]
    objects, timelines, _ = load_inputs(demo_paths())
    return simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36"), seed=seed))


def test_demo_story() -> None:
    result = _run()
    lines = {f"{line.key[1]}": line for line in pod_lines(result)}
    # The Deployment comes up mixed: H100s first, then pairs of A100s.
    mix = {m.workload: m for m in workload_mix(list(lines.values()))}["Deployment/inference"]
    assert mix.replicas == 11 and mix.placed == 11
    assert mix.mix == {"gpu/h100": 8, "gpu/a100-pair": 3}
    # Two MIG slices of one physical GPU (matchAttribute on parentUUID).
    pair = lines["mig-pair"]
    assert pair.status == "Running" and pair.node == "a100-mig-05"
    devices = pair.claims[0].devices
    assert len(devices) == 2 and len({d.split("/")[-1].split("-mig-")[0] for d in devices}) == 1
    # A MIG claim on the node with MIG off finds nothing.
    assert lines["mig-on-mig-off-node"].status == "Pending"
    assert "cannot allocate all claims" in lines["mig-on-mig-off-node"].reason
    # nvidia.com/gpu: 2 served through the DeviceClass extendedResourceName.
    legacy = lines["legacy-gpu"]
    assert legacy.status == "Running"
    # Shown as the pod asked for it, not by the request name upstream gives the special claim.
    assert [c.alternatives for c in legacy.claims] == [["nvidia.com/gpu: 2"]]
    assert len(legacy.claims[0].devices) == 2
    # The high-priority pod arriving later stays Pending: DRA does not preempt.
    urgent = lines["urgent-training"]
    assert urgent.status == "Pending" and urgent.priority == 1000000
    assert "does not preempt" in urgent.reason
    # The effect-None rule reports its dry run.
    rule = result.state.taint_rules["dry-run-drain-gpu-0-for-firmware"]
    assert rule.status is not None
    cond = rule.status.conditions[0]
    assert (cond.type, cond.status, cond.reason) == ("EvictionInProgress", "False", "NoEffect")
    assert cond.message is not None
    assert cond.message.startswith("1 published device selected. 1 allocated device selected.")


def test_placed_pods_claims_are_usable_on_their_node_and_reserved() -> None:
    result = _run()
    state = result.state
    placed = 0
    for key, pod in state.pods.items():
        if not pod.spec.node_name:
            continue
        for _, claim in state.pod_claims(pod):
            assert claim is not None and claim.status is not None and claim.status.allocation is not None, key
            allocation = claim.status.allocation
            # Every request got devices, and the allocation is usable on the pod's node.
            names = {r.request.split("/")[0] for r in allocation.devices.results}
            assert names == {r.name for r in claim.spec.devices.requests}, key
            node = state.nodes[pod.spec.node_name]
            assert allocation.node_selector is not None
            assert selector_matches(allocation.node_selector, node), key
            assert [r.name for r in claim.status.reserved_for] == [pod.metadata.name]
            placed += 1
    assert placed >= 12


def test_same_seed_same_output_and_seed_changes_tie_breaks() -> None:
    a = [(line.key, line.node) for line in pod_lines(_run(seed=0))]
    b = [(line.key, line.node) for line in pod_lines(_run(seed=0))]
    assert a == b


def _drasim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "drasim.cli.main", *args], capture_output=True, text=True,
                          timeout=300)


def test_cli_key_lines() -> None:
    proc = _drasim("simulate")
    assert proc.returncode == 0, proc.stderr
    # drasim's own demo is clean at the default release: its DeviceTaintRule's version is served by the
    # demo's profile (gate on, v1beta2 in --runtime-config), so nothing is printed before the summary.
    assert proc.stderr == ""
    out = proc.stdout
    assert "Deployment/inference: 11 replicas — 8 gpu/h100, 3 gpu/a100-pair" in out
    assert "default/urgent-training" in out and "does not preempt" in out
    assert "NoEffect" in out and "pods would be evicted" in out.replace("pod would be evicted", "pods would be evicted")


def test_cli_fail_on_pending_and_json(tmp_path: Path) -> None:
    assert _drasim("simulate", "--fail-on-pending").returncode == 1
    proc = _drasim("simulate", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    kinds = {item["kind"] for item in doc["items"]}
    assert {"ResourceClaim", "Pod", "DeviceTaintRule"} <= kinds
    claims = [i for i in doc["items"] if i["kind"] == "ResourceClaim" and i.get("status", {}).get("allocation")]
    assert claims and all(i["status"]["reservedFor"] for i in claims)


def test_cli_bad_input_is_one_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: x\n")
    proc = _drasim("simulate", "-f", str(bad))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and "bad.yaml" in proc.stderr


def test_cli_wide_adds_selectors_scores_and_counters() -> None:
    proc = _drasim("simulate", "-o", "wide")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "NODE SELECTOR" in out and "metadata.name In a100-mig-05" in out
    # The MIG pair's 1g.5gb + 2g.10gb placements draw 4864Mi + 9856Mi of GPU 0's memory counter.
    assert "gpu-0-counter-set/memory: 14720Mi of 40192Mi consumed" in out


def test_extended_resources_of_several_containers_show_as_one_resource_count(tmp_path: Path) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text("""
apiVersion: v1
kind: Pod
metadata: {name: two-containers, namespace: default}
spec:
  containers:
  - {name: a, image: x, resources: {limits: {nvidia.com/gpu: "1"}}}
  - {name: b, image: x, resources: {limits: {nvidia.com/gpu: "2"}}}
""")
    cluster = next(p for p in demo_paths() if p.endswith("cluster.yaml"))
    objects, timelines, _ = load_inputs([cluster, str(pod)])
    result = simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))
    line = next(line for line in pod_lines(result) if line.key[1] == "two-containers")
    assert line.status == "Running"
    assert [(c.pod_claim, c.alternatives, len(c.devices)) for c in line.claims] == [
        ("(extended resources)", ["nvidia.com/gpu: 3"], 3)]
