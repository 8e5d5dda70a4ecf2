"""`drasim taint dry-run`: the controller's exact dry-run message, devices, pods by namespace, timeline."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drasim.cli.main import cli, main

CLUSTER = """\
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
kind: ResourceSlice
metadata: {name: node-2-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, resourceSliceCount: 1}
  devices: [{name: gpu-0}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: train-0-gpu-abcde
  namespace: ml
  annotations: {resource.kubernetes.io/pod-claim-name: gpu}
  ownerReferences: [{apiVersion: v1, kind: Pod, name: train-0, uid: u1, controller: true}]
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]
  reservedFor: [{resource: pods, name: train-0, uid: u1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: serve, namespace: web}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - request: gpu
        driver: gpu.example.com
        pool: node-1
        device: gpu-1
        tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
  reservedFor: [{resource: pods, name: serve-0, uid: u2}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ops, namespace: web}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
status:
  allocation:
    devices:
      results:
      - request: gpu
        driver: gpu.example.com
        pool: node-2
        device: gpu-0
        tolerations: [{key: maintenance, operator: Exists, effect: NoExecute}]
  reservedFor: [{resource: pods, name: ops-0, uid: u3}]
---
apiVersion: v1
kind: Pod
metadata: {name: train-0, namespace: ml}
spec:
  nodeName: node-1
  resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]
"""

RULE = """\
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: maintenance}
spec:
  deviceSelector: {driver: gpu.example.com, pool: node-1}
  taint: {key: maintenance, effect: NoExecute, timeAdded: "2026-03-01T10:00:00Z"}
"""

TAIL = (" if the effect was NoExecute. This information will not be updated again. "
        "Recreate the DeviceTaintRule to trigger an update.")


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "rule.yaml").write_text(RULE)
    return str(tmp_path / "rule.yaml"), str(tmp_path / "cluster.yaml")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["taint", "dry-run", *args])
    return result.exit_code, result.output


def test_first_line_is_the_controllers_exact_message(files: tuple[str, str]) -> None:
    rule, cluster_file = files
    code, out = run(rule, "-f", cluster_file)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == ("3 published devices selected. 2 allocated devices selected. "
                        "2 pods would be evicted in 2 different namespaces" + TAIL)
    assert "\x1b[" not in out  # no colour when not on a terminal
    assert "Selected devices: 3 published, 2 allocated" in out
    assert "ml/train-0-gpu-abcde" in out and "web/serve" in out
    assert "Pods NoExecute would evict: 2 in 2 namespace(s)" in out
    assert "immediately" in out and "after 5m (tolerationSeconds: 300)" in out
    assert "Eviction timeline" not in out


def test_pods_are_grouped_by_namespace_and_forever_tolerating_pods_are_separate(files: tuple[str, str]) -> None:
    rule, cluster_file = files
    Path(rule).write_text(RULE.replace("pool: node-1", "pool: null"))  # all pools
    code, out = run(rule, "-f", cluster_file)
    assert code == 0, out
    assert out.splitlines()[0].startswith("4 published devices selected. 3 allocated devices selected. "
                                          "2 pods would be evicted in 2 different namespaces")
    assert "Pods that tolerate the taint forever (not evicted): 1" in out
    ml, web = out.index("\n  ml\n"), out.index("\n  web\n")
    assert ml < out.index("train-0  ") < web < out.index("serve-0")


def test_json_lists_devices_and_pods(files: tuple[str, str]) -> None:
    rule, cluster_file = files
    code, out = run(rule, "-f", cluster_file, "-o", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["reason"] == "NoEffect" and report["effect"] == "NoExecute"
    assert report["message"].endswith(TAIL)
    assert [d["device"] for d in report["publishedDevices"]] == ["gpu-0", "gpu-1", "gpu-2"]
    assert [(d["claim"], d["device"]) for d in report["allocatedDevices"]] == [
        ("ml/train-0-gpu-abcde", "gpu-0"), ("web/serve", "gpu-1")]
    pods = {(p["namespace"], p["name"]): p for p in report["pods"]}
    assert pods[("ml", "train-0")]["delaySeconds"] == 0 and pods[("ml", "train-0")]["inInput"] is True
    # serve-0 only appears in reservedFor: counted as a running pod.
    assert pods[("web", "serve-0")]["delaySeconds"] == 300 and pods[("web", "serve-0")]["inInput"] is False
    assert report["namespaces"] == 2 and "noExecute" not in report


def test_effect_noexecute_prints_the_timeline(files: tuple[str, str]) -> None:
    rule, cluster_file = files
    code, out = run(rule, "-f", cluster_file, "--effect", "NoExecute")
    assert code == 0, out
    assert "With effect NoExecute: 2 pods need to be evicted in 2 different namespaces." in out
    assert "Eviction timeline (from the taint's timeAdded 2026-03-01T10:00:00Z):" in out
    assert out.index("+0s  ml/train-0") < out.index("+5m  web/serve-0")
    assert "last eviction at 2026-03-01T10:05:00Z" in out
    code, out = run(rule, "-f", cluster_file, "--effect", "NoExecute", "-o", "json")
    assert code == 0, out
    report = json.loads(out)["noExecute"]
    assert report["message"] == "2 pods need to be evicted in 2 different namespaces."
    assert [(t["offsetSeconds"], t["name"]) for t in report["timeline"]] == [(0, "train-0"), (300, "serve-0")]


def test_singular_forms(files: tuple[str, str]) -> None:
    rule, cluster_file = files
    Path(rule).write_text(RULE.replace("pool: node-1", "device: gpu-0, pool: node-1"))
    code, out = run(rule, "-f", cluster_file, "--effect", "NoExecute")
    assert code == 0, out
    assert out.splitlines()[0] == ("1 published device selected. 1 allocated device selected. "
                                   "1 pod would be evicted in 1 namespace" + TAIL)
    assert "With effect NoExecute: 1 pod needs to be evicted in 1 namespace." in out


def test_without_files_the_bundled_demo_is_read(tmp_path: Path) -> None:
    # The demo's DeviceTaintRule gate is on, so no "does not serve DeviceTaintRules" note; no warnings either.
    rule = tmp_path / "rule.yaml"
    rule.write_text(RULE.replace("{driver: gpu.example.com, pool: node-1}",
                                 "{driver: gpu.nvidia.com, pool: dgx-h100-10}"))
    code, out = run(str(rule))
    assert code == 0, out
    assert out.splitlines()[0].startswith("4 published devices selected. 4 allocated devices selected.")
    assert "warning" not in out and "does not serve" not in out


def test_rule_without_selector_taints_nothing(files: tuple[str, str]) -> None:
    rule, cluster_file = files
    Path(rule).write_text(RULE.replace("  deviceSelector: {driver: gpu.example.com, pool: node-1}\n", ""))
    code, out = run(rule, "-f", cluster_file)
    assert code == 0
    assert out.splitlines()[0] == ("0 published devices selected. 0 allocated devices selected. "
                                   "0 pods would be evicted in 0 different namespaces" + TAIL)
    assert "note: the rule has no deviceSelector: it taints nothing" in out


def exit_code(args: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(sys, "argv", ["drasim", *args])
    with pytest.raises(SystemExit) as info:
        main()
    return int(info.value.code or 0)


def test_exit_codes(files: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    rule, cluster_file = files
    none = tmp_path / "none.yaml"
    none.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n")
    assert exit_code(["taint", "dry-run", str(none), "-f", cluster_file], monkeypatch) == 2
    assert "expected exactly one DeviceTaintRule, found 0" in capsys.readouterr().err
    assert exit_code(["taint", "dry-run", rule, "-f", str(tmp_path / "missing.yaml")], monkeypatch) == 2
    assert "no such file or directory" in capsys.readouterr().err
    assert exit_code(["taint", "dry-run", rule, "-f", cluster_file, "--effect", "NoSchedule"], monkeypatch) == 2
