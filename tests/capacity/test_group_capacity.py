"""`drasim capacity` for a PodGroup workload: how many more whole groups fit (gang: every pod of a group placed).

The groups are the dra-example-driver's podgroup-resourceclaimtemplate shape (commit 63e29a49): a gang of two
pods, with and without a PodGroup claim shared by them, on one node with 2 GPUs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from drasim import lib

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = str(ROOT / "examples/example-driver/cluster.yaml")
GATES = "GenericWorkload=true,GangScheduling=true,DRAWorkloadResourceClaims=true"


def _workload(tmp_path: Path, shared: bool) -> str:
    claim = {"name": "gpu", "resourceClaimTemplateName": "one-gpu"}
    group: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": 2}}}
    if shared:
        group["resourceClaims"] = [claim]
    docs = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "one-gpu", "namespace": "default"},
         "spec": {"spec": {"devices": {"requests": [{"name": "gpu",
                                                     "exactly": {"deviceClassName": "gpu.example.com"}}]}}}},
        {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
         "metadata": {"name": "pair", "namespace": "default"}, "spec": group},
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "pair", "namespace": "default"},
         "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "pair"}},
                  "template": {"metadata": {"labels": {"app": "pair"}}, "spec": {
                      "schedulingGroup": {"podGroupName": "pair"},
                      "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}]}}],
                      "resourceClaims": [claim]}}}},
    ]
    path = tmp_path / "group.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def _capacity(tmp_path: Path, shared: bool) -> lib.CapacityResult:
    inputs = lib.load([CLUSTER], release=lib.profile("1.37", GATES))
    return lib.capacity(inputs, _workload(tmp_path, shared))


def test_groups_sharing_one_gpu_each_fit_twice(tmp_path: Path) -> None:
    result = _capacity(tmp_path, shared=True)
    assert (result.replicas, result.unit) == (2, "group")
    assert result.summary(1000).startswith("2 more groups fit: 4 via gpu; the 3rd fails: ")
    assert result.to_dict()["unit"] == "group"
    assert sorted(node for _pod, node, _alt in result.placements) == ["kind-worker"] * 4


def test_groups_with_a_gpu_per_pod_fit_once(tmp_path: Path) -> None:
    result = _capacity(tmp_path, shared=False)
    assert result.replicas == 1
    assert "cannot allocate all claims" in result.message  # the pod that did not fit, not its waiting sibling


def test_max_counts_groups(tmp_path: Path) -> None:
    inputs = lib.load([CLUSTER], release=lib.profile("1.37", GATES))
    result = lib.capacity(inputs, _workload(tmp_path, True), max_replicas=1)
    assert (result.replicas, result.stop_reason) == (1, "MaxReplicas")
