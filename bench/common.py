"""Shared helpers for the benchmarks: timing, reporting, NVIDIA-shaped object builders."""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
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


def _num(value: float) -> str:
    return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"


def report(name: str, value: float, unit: str, target: float | None = None, *, lower_is_better: bool = True,
           reference: str = "", factor: float | None = None) -> None:
    """One line: figure, unit, and the ratio to the target (>= 1.0 means the target is met). With `factor`
    (`calibration_factor()` taken just before the figure) the figure is also shown calibrated: CPU seconds
    divided by it, rates multiplied by it, as on the reference machine; the ratio uses the calibrated one."""
    shown = value
    calibrated = ""
    if factor is not None:
        shown = value / factor if lower_is_better else value * factor
        calibrated = f" (calibrated {_num(shown)})"
    ratio = ""
    if target is not None and shown > 0:
        r = target / shown if lower_is_better else shown / target
        ratio = f"  ratio to target {r:5.2f}x ({'met' if r >= 1 else 'NOT met'}; target {target:.4g} {unit})"
    print(f"{name:<64} {_num(value):>10} {unit}{calibrated}{ratio}{reference}")


# --- calibration ---------------------------------------------------------------------------------------
# CPU seconds are what a process needs, yet a loaded machine stretches them (shared caches, SMT siblings,
# frequency). A fixed pure-Python loop, timed in this process right before a figure, says by how much:
# CALIBRATION_REFERENCE_S is its median on this project's 2-core bench machine (CPython 3.11) with nothing
# else running (0.133-0.146 over six runs, 2026-12-04; the earlier 0.175 was taken while other jobs ran, which
# made a quiet machine's figures look worse than measured); a figure taken while the loop runs 1.3x slower is
# divided (or a rate multiplied) by 1.3.
CALIBRATION_REFERENCE_S = 0.135


def calibration_loop() -> int:
    """Fixed work of the kinds drasim does most: dict lookups, small tuples and strings, sorting."""
    counts: dict[str, int] = {}
    rows: list[tuple[int, str]] = []
    for i in range(250_000):
        key = f"node-{i % 1009}"
        counts[key] = counts.get(key, 0) + (i & 7)
        if i % 3 == 0:
            rows.append((i % 97, key))
    rows.sort()
    return sum(counts.values()) + len(rows)


def calibration_seconds(repeat: int = 3) -> float:
    """The median CPU seconds (this process) of `calibration_loop`."""
    samples = []
    for _ in range(repeat):
        t = time.process_time()
        calibration_loop()
        samples.append(time.process_time() - t)
    return statistics.median(samples)


def calibration_factor() -> float:
    """How much slower than the reference this machine runs pure Python right now (1.0: as quiet)."""
    return calibration_seconds() / CALIBRATION_REFERENCE_S


@dataclass(frozen=True)
class Process:
    """One measured process: CPU seconds (user + system), peak RSS and exit code."""

    cpu: float
    peak_mb: float
    code: int
    stderr: str


# Linux keeps the pre-exec memory's high-water mark in a child's ru_maxrss: a `drasim` forked from this
# process, once it has grown (the in-process benches reach ~1 GB), would report this process's peak. A small
# Python forked first starts `drasim` from its own small memory and reports the grandchild's usage alone.
_MEASURE = ("import os, subprocess, sys\n"
            "p = subprocess.Popen(sys.argv[2:])\n"
            "_, status, u = os.wait4(p.pid, 0)\n"
            "usage = f'{os.waitstatus_to_exitcode(status)} {u.ru_utime + u.ru_stime!r} {u.ru_maxrss}'\n"
            "open(sys.argv[1], 'w').write(usage)\n")


def run_drasim(*args: str, env: dict[str, str] | None = None, stdout: Any = subprocess.DEVNULL,
               check: bool = True) -> Process:
    """Run one `drasim` process and measure it alone (`os.wait4` in a small intermediate process: this
    process's own usage and peak, see `_MEASURE`). With `check`, an exit code other than 0 or 1 is an error."""
    with tempfile.TemporaryFile() as err, tempfile.TemporaryDirectory() as tmp:
        measured = os.path.join(tmp, "usage")
        subprocess.run([sys.executable, "-c", _MEASURE, measured, sys.executable, "-m", "drasim.cli.main", *args],
                       stdout=stdout, stderr=err, env=env, check=True)
        with open(measured) as f:
            code_text, cpu_text, maxrss_text = f.read().split()
        err.seek(0)
        text = err.read().decode(errors="replace")
    code = int(code_text)
    if check and code not in (0, 1):
        raise RuntimeError(f"drasim {' '.join(args)}: exit {code}: {text[-600:]}")
    return Process(float(cpu_text), int(maxrss_text) / 1024, code, text)


# Whole-process figures are the median of this many processes (the machine is shared: one run can be unlucky).
REPEAT = int(os.environ.get("DRASIM_BENCH_REPEAT", "3"))


def median_cpu(*args: str, env: dict[str, str] | None = None, repeat: int = REPEAT) -> tuple[float, float]:
    """(median CPU seconds, median calibration factor) of `repeat` `drasim` processes, each factor taken
    right before its process."""
    cpus, factors = [], []
    for _ in range(max(1, repeat)):
        factors.append(calibration_factor())
        cpus.append(run_drasim(*args, env=env).cpu)
    return statistics.median(cpus), statistics.median(factors)


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
