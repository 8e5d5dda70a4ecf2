"""Scheduler throughput: ReplicaSet pods with GPU claims (from a template) onto 8-GPU H100 nodes."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GPU_CLASS, build, gpu_slice, report
from drasim.api.core import Node, Pod, ReplicaSet
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from drasim.cluster import ClusterState
from drasim.scheduler import Scheduler

GPU_PODS_PER_RS = 1000


def _node(i: int) -> dict[str, Any]:
    name = f"node-{i:05d}"
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
        "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
        "status": {"allocatable": {"cpu": "128", "memory": "1Ti", "pods": "110", "ephemeral-storage": "2Ti"}}}


def cluster(nodes: int, gpu_pods: int, cpu_pods: int) -> tuple[ClusterState, list[Pod]]:
    """`nodes` x 8 H100; ReplicaSets of 1,000 pods: GPU pods own one 1-GPU claim each, then CPU-only pods."""
    objs: list[Any] = [build(DeviceClass, GPU_CLASS)]
    for i in range(nodes):
        objs.append(build(Node, _node(i)))
        objs.append(build(ResourceSlice, gpu_slice(f"node-{i:05d}", 8)))
    pods: list[Pod] = []
    total = gpu_pods + cpu_pods
    for i in range(total):
        rs = f"rs-{i // GPU_PODS_PER_RS}"
        with_gpu = i < gpu_pods
        name = f"{rs}-{i:06d}"
        uid = f"uid-{name}"
        spec: dict[str, Any] = {"containers": [{"name": "main", "resources": {"requests": {
            "cpu": "1", "memory": "8Gi"}}}]}
        status: dict[str, Any] = {}
        if with_gpu:
            spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
            status = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": f"{name}-gpu-abcde"}]}
            objs.append(build(ResourceClaim, {
                "metadata": {"name": f"{name}-gpu-abcde", "namespace": "default",
                             "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid,
                                                  "controller": True}]},
                "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                    "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 1}}]}}}))
        pods.append(build(Pod, {"metadata": {"name": name, "namespace": "default", "uid": uid, "labels": {"app": rs},
                                             "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                                                  "name": rs, "uid": f"uid-{rs}", "controller": True}]},
                                "spec": spec, "status": status}))
    for r in range((total + GPU_PODS_PER_RS - 1) // GPU_PODS_PER_RS):
        objs.append(build(ReplicaSet, {"metadata": {"name": f"rs-{r}", "namespace": "default"},
                                       "spec": {"selector": {"matchLabels": {"app": f"rs-{r}"}}}}))
    state = ClusterState.from_objects(objs + pods)
    return state, pods


def run(nodes: int, gpu_pods: int, cpu_pods: int) -> tuple[float, float, int, float]:
    """Schedule every pod once in queue order, binding each before the next: (pods/s wall, pods/s CPU,
    placed, wall seconds)."""
    state, pods = cluster(nodes, gpu_pods, cpu_pods)
    sched = Scheduler()
    wall, cpu = time.perf_counter(), time.process_time()
    placed = 0
    for pod in Scheduler.queue_order(state, pods):
        result = sched.schedule_one(state, pod)
        sched.apply(state, result)
        placed += result.node is not None
    elapsed, used = time.perf_counter() - wall, time.process_time() - cpu
    return len(pods) / elapsed, len(pods) / used, placed, elapsed


def main() -> None:
    rate, cpu_rate, placed, _ = run(500, 4000, 1000)
    report(f"schedule 5,000 pods onto 500 nodes x 8 GPUs ({placed} placed)", rate, "pods/s", 2000,
           lower_is_better=False, reference=f"  (CPU time: {cpu_rate:.0f} pods/s)")
    if "--large" in sys.argv:
        rate, cpu_rate, placed, elapsed = run(5000, 40000, 10000)
        report(f"schedule 50,000 pods onto 5,000 nodes x 8 GPUs ({placed} placed)", elapsed, "s", 60,
               reference=f"  ({rate:.0f} pods/s)")


if __name__ == "__main__":
    main()
