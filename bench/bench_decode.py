"""Benchmark: decode 10,000 NVIDIA-shaped ResourceSlices (8 GPUs each) from one JSON List and from YAML."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

import yaml

from drasim.api.decode import decode_json_bytes
from drasim.api.resource import ResourceSlice
from drasim.sources.files import load_bytes

TARGET_JSON_SECONDS = 1.0
os.environ["DRASIM_CACHE_DIR"] = "off"  # every repeat parses its YAML (no parse cache)


def nvidia_slice(node: int) -> dict[str, Any]:
    """One ResourceSlice as `kubectl get resourceslices -o json` prints the NVIDIA DRA driver's."""
    name = f"node-{node:05d}"
    devices = []
    for gpu in range(8):
        devices.append({
            "name": f"gpu-{gpu}",
            "attributes": {
                "type": {"string": "gpu"},
                "uuid": {"string": f"GPU-{node:08x}-{gpu:04x}-4f2a-9c1e-00000000{gpu:04x}"},
                "productName": {"string": "NVIDIA H100 80GB HBM3"},
                "brand": {"string": "Nvidia"},
                "architecture": {"string": "Hopper"},
                "index": {"int": gpu},
                "minor": {"int": gpu},
                "cudaComputeCapability": {"version": "9.0.0"},
                "driverVersion": {"version": "570.124.6"},
                "cudaDriverVersion": {"version": "12.8.0"},
                "resource.kubernetes.io/pciBusID": {"string": f"0000:{0x18 + 16 * gpu:02x}:00.0"},
                "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{0x15 + 0x22 * (gpu // 2):02x}"},
            },
            "capacity": {"memory": {"value": "81559Mi"}},
        })
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {
            "name": f"{name}-gpu.nvidia.com-x7k2p",
            "generateName": f"{name}-gpu.nvidia.com-",
            "uid": f"7d0c{node:08x}-5b1e-4c2a-9f3d-2e6a8b1c4d5f",
            "resourceVersion": str(100000 + node),
            "generation": 1,
            "creationTimestamp": "2026-07-01T10:00:00Z",
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": f"n-{node}",
                                 "controller": True}],
            "managedFields": [{"manager": "gpu-kubelet-plugin", "operation": "Update",
                               "apiVersion": "resource.k8s.io/v1", "time": "2026-07-01T10:00:00Z",
                               "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:devices": {}}}}],
        },
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": name,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--slices", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs")
    # bench/run.py runs every script with its own arguments (`--large`): this one has no large figures.
    parser.add_argument("--large", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    doc = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList",
           "metadata": {"resourceVersion": "1"}, "items": [nvidia_slice(i) for i in range(args.slices)]}
    data_json = json.dumps(doc).encode()
    data_yaml = yaml.dump_all(doc["items"], Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                              sort_keys=False).encode()

    def best(fn: Any) -> float:
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - t0)
            assert len(result.objects) == args.slices and isinstance(result.objects[0], ResourceSlice)
        return min(times)

    t_json = best(lambda: decode_json_bytes(data_json, source="bench.json"))
    t_yaml = best(lambda: load_bytes(data_yaml, source="bench.yaml"))
    scale = args.slices / 10_000
    print(f"{args.slices} ResourceSlices x 8 GPUs: JSON {len(data_json) / 1e6:.1f} MB, "
          f"YAML {len(data_yaml) / 1e6:.1f} MB")
    print(f"JSON List: {t_json:.3f} s  ({t_json / (TARGET_JSON_SECONDS * scale):.2f} x the "
          f"{TARGET_JSON_SECONDS * scale:g} s target)")
    print(f"YAML docs: {t_yaml:.3f} s  ({t_yaml / t_json:.1f} x JSON; no target)")


if __name__ == "__main__":
    main()
