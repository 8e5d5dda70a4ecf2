"""Input files for the whole-process benchmarks, written the way a user would hand them to `drasim simulate`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

DRIVER = "test-driver.cdi.k8s.io"


def _dump(docs: list[dict[str, Any]], path: Path) -> Path:
    if path.suffix == ".json":
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
    else:
        path.write_text(yaml.dump_all(docs, Dumper=yaml.CSafeDumper, sort_keys=False))
    return path


def _cluster(nodes: int, devices: int) -> list[dict[str, Any]]:
    """scheduler_perf's cluster: a DeviceClass for the test driver, a claim template asking for one device,
    and `nodes` nodes each publishing one ResourceSlice of `devices` devices (maxClaimsPerNode)."""
    docs: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "test-class"},
         "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "test-claim-template", "namespace": "default"},
         "spec": {"spec": {"devices": {"requests": [{"name": "req-0", "exactly": {
             "deviceClassName": "test-class"}}]}}}},
    ]
    for n in range(nodes):
        name = f"scheduler-perf-{n:04d}"
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {
            "name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}}})
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                     "metadata": {"name": f"{name}-{DRIVER}"},
                     "spec": {"driver": DRIVER, "nodeName": name,
                              "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                              "devices": [{"name": f"device-{d}"} for d in range(devices)]}})
    return docs


POD_SPEC: dict[str, Any] = {
    "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                    "resources": {"claims": [{"name": "resource"}]}}],
    "resourceClaims": [{"name": "resource", "resourceClaimTemplateName": "test-claim-template"}]}


def _pods(count: int) -> list[dict[str, Any]]:
    return [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"test-dra-{p:05d}", "namespace": "default"},
             "spec": POD_SPEC} for p in range(count)]


def _scheduler_perf_docs(pods: int, nodes: int, devices: int) -> list[dict[str, Any]]:
    return [*_cluster(nodes, devices), *_pods(pods)]


def scheduler_perf(path: Path, pods: int = 5000, nodes: int = 500, devices: int = 10) -> Path:
    """Upstream scheduler_perf's `SchedulingWithResourceClaimTemplate/5000pods_500nodes` shape: the cluster
    of `_cluster` and `pods` Pods that each reference the template (about 1.2 MB of YAML by default)."""
    return _dump(_scheduler_perf_docs(pods, nodes, devices), path)


def deployment(name: str, replicas: int, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Deployment of scheduler_perf's pod (one device through the claim template); its pods carry `app: NAME`
    and `labels`."""
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name, **(labels or {})}}, "spec": POD_SPEC}}}


def deployments(path: Path, groups: int = 1, replicas: int = 5000, nodes: int = 500, devices: int = 10) -> Path:
    """`scheduler_perf`'s nodes and claim template with the pods as `groups` Deployments of `replicas` each:
    1 x 5,000 (one big workload) and 1,000 x 5 (many small ones, as real clusters run) place the same pods."""
    docs = _cluster(nodes, devices)
    docs += [deployment(f"web-{g:04d}", replicas, {"tier": "web"}) for g in range(groups)]
    return _dump(docs, path)


def cluster_only(path: Path, nodes: int = 500, devices: int = 10) -> Path:
    """scheduler_perf's cluster alone (for `drasim capacity`)."""
    return _dump(_cluster(nodes, devices), path)


def timeline_apply(directory: Path, pods: int, nodes: int, devices: int = 10) -> Path:
    """scheduler_perf's cluster (`cluster.json`) and a Timeline (`timeline.json`) whose one event, at 10 s,
    applies `pods` Pods at once."""
    directory.mkdir(parents=True, exist_ok=True)
    _dump(_cluster(nodes, devices), directory / "cluster.json")
    timeline = {"apiVersion": "drasim.dev/v1alpha1", "kind": "Timeline", "metadata": {"name": "arrivals"},
                "spec": {"events": [{"at": "10s", "action": "apply", "objects": _pods(pods)}]}}
    (directory / "timeline.json").write_text(json.dumps(timeline))
    return directory


H100_ELSE_A100_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: inference, namespace: default}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: inference}}}}
  template:
    metadata: {{labels: {{app: inference}}}}
    spec:
      resourceClaims:
      - {{name: gpu, resourceClaimTemplateName: h100-else-a100}}
      containers:
      - name: server
        image: registry.example.com/llm-server:1.0
        resources:
          requests: {{cpu: "4", memory: 32Gi}}
          claims: [{{name: gpu}}]
"""


def h100_else_a100(directory: Path, replicas: int = 50000, h100: int = 2500, a100: int = 2500) -> Path:
    """A `drasim fleet` of H100 and A100 nodes (8 GPUs each, JSON) plus a Deployment of the seed's template."""
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "drasim.cli.main", "fleet", "--nodes", f"h100:{h100}",
                    "--nodes", f"a100-80gb:{a100}", "-o", "json", "--output-dir", str(directory)],
                   check=True, capture_output=True)
    seed = Path(__file__).resolve().parent.parent / "src/drasim/demo/workloads.yaml"
    template = next(d for d in yaml.safe_load_all(seed.read_text())
                    if d and d.get("kind") == "ResourceClaimTemplate" and d["metadata"]["name"] == "h100-else-a100")
    (directory / "workload.yaml").write_text(yaml.safe_dump(template, sort_keys=False) + "---\n"
                                             + H100_ELSE_A100_DEPLOYMENT.format(replicas=replicas))
    return directory
