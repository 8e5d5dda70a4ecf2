"""Builders for scheduler tests: NVIDIA-shaped nodes, slices, classes, claims and pods from wire dicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from drasim.api.core import Node, Pod, ReplicaSet
from drasim.api.defaults import apply_claim_defaults
from drasim.api.quantity import Quantity, quantity_dec_hook
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from drasim.cluster import ClusterState
from drasim.sources.scenario import load_scenario

SEED = Path(__file__).resolve().parents[1] / "conformance" / "seed"
ALLOCATABLE = {"cpu": "64", "memory": "512Gi", "pods": "110", "ephemeral-storage": "1Ti"}
GPU_CLASS = {"metadata": {"name": "gpu.nvidia.com"}, "spec": {"selectors": [{"cel": {"expression":
             "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]}}
H100_THEN_A100_PAIR = [
    {"name": "h100", "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 1,
     "selectors": [{"cel": {"expression": 'device.attributes["gpu.nvidia.com"].productName.contains("H100")'}}]},
    {"name": "a100-pair", "deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 2,
     "selectors": [{"cel": {"expression": 'device.attributes["gpu.nvidia.com"].productName.contains("A100")'}}]},
]


def build(type_: type, data: dict[str, Any]) -> Any:
    return msgspec.convert(data, type=type_, dec_hook=quantity_dec_hook)


def node(name: str, labels: dict[str, str] | None = None, allocatable: dict[str, str] | None = None,
         taints: list[dict[str, Any]] | None = None, unschedulable: bool = False) -> Node:
    lab = {"kubernetes.io/hostname": name}
    lab.update(labels or {})
    return build(Node, {"metadata": {"name": name, "labels": lab},
                        "spec": {"taints": taints or [], "unschedulable": unschedulable},
                        "status": {"allocatable": allocatable if allocatable is not None else ALLOCATABLE}})


def gpu(i: int, product: str = "NVIDIA H100 80GB HBM3", **extra: Any) -> dict[str, Any]:
    dev = {"name": f"gpu-{i}", "attributes": {
        "type": {"string": "gpu"}, "productName": {"string": product}, "index": {"int": i},
        "uuid": {"string": f"GPU-{product[7:11]}-{i:04d}"}}, "capacity": {"memory": {"value": "80Gi"}}}
    dev.update(extra)
    return dev


def gpu_slice(node_name: str, devices: list[dict[str, Any]], driver: str = "gpu.nvidia.com") -> ResourceSlice:
    return build(ResourceSlice, {"metadata": {"name": f"{node_name}-{driver}"}, "spec": {
        "driver": driver, "nodeName": node_name, "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
        "devices": devices}})


def device_class(data: dict[str, Any] = GPU_CLASS) -> DeviceClass:
    return build(DeviceClass, data)


def claim(name: str, requests: list[dict[str, Any]], namespace: str = "default",
          constraints: list[dict[str, Any]] | None = None, **meta: Any) -> ResourceClaim:
    data: dict[str, Any] = {"metadata": {"name": name, "namespace": namespace, **meta},
                            "spec": {"devices": {"requests": requests, "constraints": constraints or []}}}
    return apply_claim_defaults(build(ResourceClaim, data))


def exact(name: str = "gpu", cls: str = "gpu.nvidia.com", count: int = 1, selectors: list[str] | None = None
          ) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count,
                                      "selectors": [{"cel": {"expression": s}} for s in selectors or []]}}


def pod(name: str, claims: list[str] | None = None, namespace: str = "default", cpu: str | None = None,
        memory: str | None = None, extra: dict[str, str] | None = None, priority: int | None = None,
        owner: str | None = None, labels: dict[str, str] | None = None, uid: str | None = None,
        **spec: Any) -> Pod:
    requests: dict[str, str] = {}
    if cpu:
        requests["cpu"] = cpu
    if memory:
        requests["memory"] = memory
    requests.update(extra or {})
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or f"uid-{namespace}-{name}",
                            "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "uid": f"uid-rs-{owner}", "controller": True}]
    data: dict[str, Any] = {"metadata": meta, "spec": {
        "containers": [{"name": "main", "resources": {"requests": requests}}],
        "resourceClaims": [{"name": c, "resourceClaimName": c} for c in claims or []], **spec}}
    if priority is not None:
        data["spec"]["priority"] = priority
    return build(Pod, data)


def replica_set(name: str, labels: dict[str, str], namespace: str = "default") -> ReplicaSet:
    return build(ReplicaSet, {"metadata": {"name": name, "namespace": namespace, "uid": f"uid-rs-{name}"},
                              "spec": {"selector": {"matchLabels": labels}}})


def seed_state(name: str, allocatable: dict[str, str] | None = None) -> ClusterState:
    """A seed scenario's objects as a cluster, nodes given allocatable, claims defaulted."""
    sc = load_scenario(str(SEED / f"{name}.yaml"))
    objs = []
    for obj in sc.objects:
        if isinstance(obj, Node):
            obj.status.allocatable = {k: Quantity(v) for k, v in (allocatable or ALLOCATABLE).items()}
        elif isinstance(obj, ResourceClaim):
            obj = apply_claim_defaults(obj)
        objs.append(obj)
    return ClusterState.from_objects(objs)
