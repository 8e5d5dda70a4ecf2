"""Generated inputs whose search explodes: N one-device firstAvailable claims of one pod on M devices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DRIVER = "gpu.example.com"
NODE = "node-1"
ONE = {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}


def _device(i: int, slots: int | None) -> dict[str, Any]:
    dev: dict[str, Any] = {"name": f"gpu-{i}", "attributes": {"index": {"int": i},
                                                             "pcieRoot": {"string": f"pci-{i}"}}}
    if slots is not None:
        dev["consumesCounters"] = [{"counterSet": "slots", "counters": {"slot": {"value": "1"}}}]
    return dev


def objects(claims: int, devices: int, *, slots: int | None = None, pair: bool = False) -> list[dict[str, Any]]:
    """A node with `devices` GPUs (optionally all drawing on `slots` shared counters) and a pod whose
    `claims` claims each ask for one GPU, preferring a low index (`firstAvailable`: low, any).

    With `pair` the last claim asks for two GPUs on one PCIe root instead, and no two GPUs share one:
    counting devices cannot tell that it never fits, only the whole search can."""
    pool = {"name": NODE, "generation": 1, "resourceSliceCount": 1 if slots is None else 2}
    spec: dict[str, Any] = {"driver": DRIVER, "nodeName": NODE, "pool": pool,
                            "devices": [_device(i, slots) for i in range(devices)]}
    objs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": NODE, "labels": {"kubernetes.io/hostname": NODE}},
         "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{NODE}-gpus"},
         "spec": spec},
    ]
    if slots is not None:  # counters live in a slice of their own (1.35+)
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                     "metadata": {"name": f"{NODE}-slots"},
                     "spec": {"driver": DRIVER, "nodeName": NODE, "pool": pool, "sharedCounters": [
                         {"name": "slots", "counters": {"slot": {"value": str(slots)}}}]}})
    for i in range(claims):
        if pair and i == claims - 1:
            objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": f"gpu-{i}", "namespace": "default"},
                         "spec": {"devices": {
                             "requests": [{"name": "pair", "exactly": {**ONE, "count": 2}}],
                             "constraints": [{"matchAttribute": f"{DRIVER}/pcieRoot"}]}}})
            continue
        objs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": f"gpu-{i}", "namespace": "default"},
                     "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                         {"name": "low", **ONE, "selectors": [
                             {"cel": {"expression": f"device.attributes['{DRIVER}'].index < {devices}"}}]},
                         {"name": "any", **ONE}]}]}}})
    objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "many", "namespace": "default"},
                 "spec": {"resourceClaims": [{"name": f"c{i}", "resourceClaimName": f"gpu-{i}"}
                                             for i in range(claims)],
                          "containers": [{"name": "main", "resources": {
                              "requests": {"cpu": "1"}, "claims": [{"name": f"c{i}"} for i in range(claims)]}}]}})
    return objs


def write_manifests(path: Path, claims: int, devices: int, **kw: Any) -> Path:
    """The objects as one multi-document YAML file (for simulate and explain)."""
    path.write_text(yaml.safe_dump_all(objects(claims, devices, **kw), sort_keys=False))
    return path


def write_scenario(path: Path, claims: int, devices: int, **kw: Any) -> Path:
    """The same as a scenario file: one Allocate call with every claim (for allocate)."""
    objs = [o for o in objects(claims, devices, **kw) if o["kind"] != "Pod"]
    doc = {"name": f"claims-{claims}-on-{devices}", "node": NODE,
           "allocate": [f"default/gpu-{i}" for i in range(claims)], "objects": objs}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path
