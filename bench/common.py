"""Shared helpers for the benchmarks: timing, reporting, NVIDIA-shaped object builders."""

from __future__ import annotations

import compileall
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgspec

import drasim
from drasim.api.quantity import quantity_dec_hook

# The parse cache is off in every benchmark and the drasim processes it starts: a repeated run must parse
# its YAML as the first did (bench_fleet_tools measures the cache on purpose, with a directory of its own).
os.environ["DRASIM_CACHE_DIR"] = "off"


def build(type_: type, data: dict[str, Any]) -> Any:
    """Decode a wire-form dict into a drasim struct."""
    return msgspec.convert(data, type=type_, dec_hook=quantity_dec_hook)


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def report(name: str, value: float, unit: str, target: float | None = None, *, lower_is_better: bool = True,
           reference: str = "") -> None:
    """One line: figure, unit, and the ratio to the target (>= 1.0 means the target is met)."""
    ratio = ""
    if target is not None and value > 0:
        r = target / value if lower_is_better else value / target
        ratio = f"  ratio to target {r:5.2f}x ({'met' if r >= 1 else 'NOT met'}; target {target:g} {unit})"
    print(f"{name:<58} {value:>12.1f} {unit}{ratio}{reference}")


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def gpu_device(i: int, product: str = "NVIDIA H100 80GB HBM3", memory: str = "81559Mi") -> dict[str, Any]:
    return {
        "name": f"gpu-{i}",
        "attributes": {
            "type": {"string": "gpu"}, "uuid": {"string": f"GPU-{i:08x}-0000-0000-0000-000000000000"},
            "productName": {"string": product}, "brand": {"string": "Nvidia"},
            "architecture": {"string": "Hopper"}, "index": {"int": i},
            "cudaComputeCapability": {"version": "9.0.0"}, "driverVersion": {"version": "570.124.6"},
            "cudaDriverVersion": {"version": "12.8.0"},
            "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{i % 4:02x}"},
        },
        "capacity": {"memory": {"value": memory}},
    }


def gpu_slice(node: str, n: int, **kw: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpu.nvidia.com"},
        "spec": {"driver": "gpu.nvidia.com", "nodeName": node,
                 "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": [gpu_device(i, **kw) for i in range(n)]},
    }


GPU_CLASS = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.nvidia.com"},
    "spec": {"selectors": [{"cel": {"expression":
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}}]},
}
MIG_CLASS = {
    "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "mig.nvidia.com"},
    "spec": {"selectors": [{"cel": {"expression":
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"}}]},
}


def claim(name: str, requests: list[dict[str, Any]], namespace: str = "default") -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"devices": {"requests": requests}}}


def exact(name: str, cls: str, count: int = 1, selectors: list[str] | None = None) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count,
                                      "selectors": [{"cel": {"expression": s}} for s in selectors or []]}}


def installed_env() -> dict[str, str]:
    """The environment for `drasim` processes measured as a user runs them after `pip install`: every
    module's bytecode compiled beforehand (pip compiles the package; the commands import their modules
    lazily, so one warm-up command would leave the first run of another compiling from source) and used
    (an environment with PYTHONDONTWRITEBYTECODE set still reads it)."""
    compileall.compile_dir(os.path.dirname(drasim.__file__), quiet=1)
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
