"""End-to-end simulation benchmarks: Deployments whose pods claim GPUs through templates (`drasim simulate`)."""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GPU_CLASS, build, gpu_slice, report
from drasim.allocator import Features
from drasim.api.core import Deployment, Node
from drasim.api.resource import DeviceClass, ResourceClaimTemplate, ResourceSlice
from drasim.sim.engine import SimulationOptions, simulate

TARGET_PODS_PER_S = 2000.0


def _node(name: str, product: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                   "nvidia.com/gpu.product": product.replace(" ", "-")}},
            "status": {"allocatable": {"cpu": "128", "memory": "1Ti", "pods": "110"}}}


def _template(name: str, requests: list[dict[str, Any]]) -> ResourceClaimTemplate:
    return build(ResourceClaimTemplate, {"metadata": {"name": name, "namespace": "default"},
                                         "spec": {"spec": {"devices": {"requests": requests}}}})


ONE_GPU = [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]
H100_ELSE_A100 = [{"name": "gpu", "firstAvailable": [
    {"name": "h100", "deviceClassName": "gpu.nvidia.com", "count": 1, "selectors": [
        {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].productName.contains("H100")'}}]},
    {"name": "a100-pair", "deviceClassName": "gpu.nvidia.com", "count": 2, "selectors": [
        {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].productName.contains("A100")'}}]}]}]


def _deployment(name: str, replicas: int, template: str) -> Deployment:
    return build(Deployment, {"metadata": {"name": name, "namespace": "default"}, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
            "containers": [{"name": "main", "resources": {"requests": {"cpu": "1", "memory": "8Gi"},
                                                          "claims": [{"name": "gpu"}]}}]}}}})


def fleet(h100_nodes: int, a100_nodes: int) -> list[Any]:
    objs: list[Any] = [build(DeviceClass, GPU_CLASS)]
    for i in range(h100_nodes):
        name = f"h100-{i:05d}"
        objs += [build(Node, _node(name, "NVIDIA H100 80GB HBM3")), build(ResourceSlice, gpu_slice(name, 8))]
    for i in range(a100_nodes):
        name = f"a100-{i:05d}"
        objs += [build(Node, _node(name, "NVIDIA A100-SXM4-80GB")),
                 build(ResourceSlice, gpu_slice(name, 8, product="NVIDIA A100-SXM4-80GB", memory="81920Mi"))]
    return objs


def run(objects: list[Any], pods: int) -> tuple[float, float, int]:
    """(pods/s, seconds, pods placed) for a whole simulation, controllers included."""
    t = time.perf_counter()
    result = simulate(objects, (), SimulationOptions(features=Features()))
    elapsed = time.perf_counter() - t
    placed = sum(1 for p in result.state.pods.values() if p.spec.node_name)
    return pods / elapsed, elapsed, placed


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    large = "--large" in sys.argv
    print("== simulation (drasim simulate: workload controller, claim controller, scheduler, binding)")
    objs = [*fleet(500, 0), _template("one-gpu", ONE_GPU), _deployment("train", 5000, "one-gpu")]
    rate, secs, placed = run(objs, 5000)
    report(f"5,000 pods (1 GPU via template) onto 500 nodes x 8 H100 ({placed} placed)", rate, "pods/s",
           TARGET_PODS_PER_S, lower_is_better=False)
    objs = [*fleet(250, 250), _template("h100-else-a100", H100_ELSE_A100),
            _deployment("inference", 3000, "h100-else-a100")]
    rate, secs, placed = run(objs, 3000)
    report(f"3,000 pods h100-else-a100 onto 250 H100 + 250 A100 nodes ({placed} placed)", rate, "pods/s",
           TARGET_PODS_PER_S, lower_is_better=False)
    print(f"{'peak memory so far':<58} {peak_rss_mb():>12.1f} MB")
    if large:
        objs = [*fleet(5000, 0), _template("one-gpu", ONE_GPU), _deployment("train", 50000, "one-gpu")]
        rate, secs, placed = run(objs, 50000)
        report(f"50,000 pods onto 5,000 nodes x 8 H100 ({placed} placed): seconds", secs, "s", 60.0)
        report("peak memory (target < 4 GB)", peak_rss_mb(), "MB", 4096.0)
    else:
        print("(run with --large for 50,000 pods onto 5,000 nodes)")


if __name__ == "__main__":
    main()
