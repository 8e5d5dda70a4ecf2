"""explain and taint dry-run answer on the cluster as `simulate` leaves it (issue #8, on real files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from drasim.cli.explain import explain
from drasim.cli.simulate import simulate
from drasim.cli.taint import taint
from drasim.demo import demo_paths
from drasim.errors import InputError

DATA = Path(__file__).resolve().parents[1] / "data" / "realworld" / "dra-example-driver"
DRIVER = "gpu.example.com"


def _cluster(gpus: int, node_taints: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """One worker with `gpus` example GPUs, and the driver's DeviceClass (as its Helm chart installs it)."""
    node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker"},
                            "status": {"allocatable": {"pods": "110", "cpu": "8", "memory": "32Gi"}}}
    if node_taints:
        node["spec"] = {"taints": node_taints}
    devices = [{"name": f"gpu-{i}", "attributes": {"index": {"int": i}, "model": {"string": "LATEST-GPU-MODEL"}}}
               for i in range(gpus)]
    return [node,
            {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": DRIVER},
             "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]}},
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "worker-gpus"},
             "spec": {"driver": DRIVER, "nodeName": "worker",
                      "pool": {"name": "worker", "generation": 1, "resourceSliceCount": 1}, "devices": devices}}]


def _write(tmp_path: Path, docs: list[dict[str, Any]]) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def _invoke(cmd: Any, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cmd, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def _explain_json(*args: str) -> dict[str, Any]:
    code, out = _invoke(explain, *args, "-o", "json")
    assert code == 0, out
    data: dict[str, Any] = json.loads(out[out.index("{"):])  # after any warning lines (stderr, mixed in)
    return data


def _statuses(*paths: str) -> dict[str, str]:
    code, out = _invoke(simulate, *[a for p in paths for a in ("-f", p)], "-o", "json")
    assert code == 0, out
    return {o["metadata"]["name"]: ("Running" if o["spec"].get("nodeName") else "Pending")
            for o in json.loads(out)["items"] if o["kind"] == "Pod"}


def test_explain_says_what_simulate_says_on_a_one_gpu_slice(tmp_path: Path) -> None:
    """basic-resourceclaimtemplate.yaml: two pods, one GPU each, on a one-GPU slice."""
    cluster = _write(tmp_path, _cluster(1))
    example = str(DATA / "basic-resourceclaimtemplate.yaml")
    statuses = _statuses(cluster, example)
    assert sorted(statuses.values()) == ["Pending", "Running"]
    for pod, status in statuses.items():
        data = _explain_json("pod", f"basic-resourceclaimtemplate/{pod}", "-f", cluster, "-f", example)
        allocatable = [n for g in data["groups"] if g["verdict"]["status"] == "allocated" for n in g["nodes"]]
        if status == "Pending":
            assert allocatable == [], data  # the other pod holds the only GPU
            reasons = {e["reason"] for g in data["groups"] for c in g["claims"] for r in c["requests"]
                       for a in r["alternatives"] for e in a["excluded"]}
            assert "in-use" in reasons
        else:
            assert allocatable == ["worker"], data


def test_a_node_taint_the_pod_does_not_tolerate_is_not_allocatable(tmp_path: Path) -> None:
    cluster = _write(tmp_path, _cluster(2, [{"key": "maintenance", "value": "true", "effect": "NoSchedule"}]))
    example = str(DATA / "basic-resourceclaimtemplate.yaml")
    assert set(_statuses(cluster, example).values()) == {"Pending"}
    data = _explain_json("pod", "basic-resourceclaimtemplate/pod0", "-f", cluster, "-f", example)
    assert [n for g in data["groups"] if g["verdict"]["status"] == "allocated" for n in g["nodes"]] == []
    assert data["excludedNodes"] == [{"node": "worker",
                                      "reason": "TaintToleration: node(s) had untolerated taint(s)"}]


def test_explain_a_pod_the_demo_timeline_creates() -> None:
    paths = [*(a for p in demo_paths() for a in ("-f", p)), "--feature-gates", "DRADeviceTaintRules=true"]
    data = _explain_json("pod", "default/urgent-training", *paths)
    assert data["pod"] == "default/urgent-training"
    assert not any(g["verdict"]["status"] == "allocated" for g in data["groups"])  # Pending: DRA cannot preempt
    # At +30s the Timeline has not created it yet.
    with pytest.raises(InputError, match="pod default/urgent-training not found"):
        _invoke(explain, "pod", "default/urgent-training", *paths, "--at", "30s")
    code, out = _invoke(explain, "pod", "default/urgent-training", *paths, "--at", "5m")
    assert code == 0 and "Pod default/urgent-training" in out


def test_taint_dry_run_on_plain_manifests_evicts_what_simulate_allocated(tmp_path: Path) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "cluster.yaml").write_text(Path(_write(tmp_path, _cluster(1))).read_text())
    for name in ("1-basic-resourceclaimtemplate.yaml", "2-pod-to-be-evicted.yaml"):
        (folder / name).write_text((DATA / "device-taint-pod-noexecute" / name).read_text())
    rule = str(DATA / "device-taint-pod-noexecute" / "3-device-taint-rule.yaml")
    code, out = _invoke(taint, "dry-run", rule, "-f", str(folder), "-o", "json")
    assert code == 0, out
    report = json.loads(out)
    assert [(p["namespace"], p["name"], p["evicted"]) for p in report["pods"]] == [
        ("basic-resourceclaimtemplate", "pod-to-be-evicted", True)]
    assert len(report["allocatedDevices"]) == 1


def test_lint_counts_the_pods_a_noexecute_rule_would_evict_after_simulating(tmp_path: Path) -> None:
    """device-taint-pod-noexecute on the example driver's published slice (README's `kubectl get
    resourceslice -o yaml`): lint's blast radius reads the cluster simulate leaves, where the pod holds a GPU."""
    from drasim.cli.lint import lint

    real = Path(__file__).resolve().parents[1] / "realworld" / "dra-example-driver"
    folder = tmp_path / "inputs"
    folder.mkdir()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "dra-example-driver-cluster-worker"},
            "status": {"allocatable": {"pods": "110", "cpu": "8", "memory": "32Gi"}}}
    (folder / "0-node-and-class.yaml").write_text(yaml.safe_dump_all([node, _cluster(0)[1]]))
    (folder / "0-slice.yaml").write_text((real / "README--kubectl-get-resourceslice-o-yaml.yaml").read_text())
    for name in ("1-basic-resourceclaimtemplate.yaml", "2-pod-to-be-evicted.yaml", "3-device-taint-rule.yaml"):
        (folder / name).write_text((DATA / "device-taint-pod-noexecute" / name).read_text())
    code, out = _invoke(lint, "-f", str(folder), "--kubernetes-version", "1.37", "-o", "json")
    assert code == 1, out  # with the rule in force the pod never runs again: pod-pending says so, naming the rule
    diagnostics = json.loads(out)["diagnostics"]
    (pending,) = [f for f in diagnostics if f["code"] == "pod-pending"]
    assert "taint gpu.example.com/unhealthy=true:NoExecute (from DeviceTaintRule example)" in pending["message"]
    (finding,) = [f for f in diagnostics if f["code"] == "taint-rule-unrehearsed-noexecute"]
    assert "8 published devices and 1 allocated device; 1 pod in 1 namespace would be evicted" in finding["message"]
