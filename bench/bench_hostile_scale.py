"""Hostile sizes (issue 11), whole process: a dump of 100,000 bound pods through validate, lint, simulate, doctor
and taint dry-run, and `drasim fleet --nodes h100:N`. CPU seconds and peak RSS per process.

Slow (about 10 minutes of CPU): `python bench/run.py --hostile-scale` or `python bench/bench_hostile_scale.py`;
a plain `python bench/run.py` (with or without `--large`) runs it at 10,000 pods and 5,000 nodes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from common import report, run_drasim

GPUS_PER_NODE = 8
TARGET_CPU_S = 20.0  # issue 11's limit per command
TARGET_MB = 2048.0


def run_cli(*args: str, stdout: Any = subprocess.DEVNULL) -> tuple[float, float, int]:
    """(CPU seconds, peak RSS MB, exit code) of one `drasim` process."""
    run = run_drasim(*args, stdout=stdout, check=False)
    if run.code not in (0, 1):
        print(f"  drasim {' '.join(args)}: exit {run.code}: {run.stderr[-400:]}")
    return run.cpu, run.peak_mb, run.code


def _write_list(path: Path, items: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def pod_dump(directory: Path, pods: int) -> Path:
    """A dump of a full cluster: `pods` running pods on pods/8 H100 nodes, each pod holding one allocated
    claim (reservedFor the pod) of one GPU; nodes, slices and classes from `drasim fleet`."""
    nodes = (pods + GPUS_PER_NODE - 1) // GPUS_PER_NODE
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "drasim.cli.main", "fleet", "--nodes", f"h100:{nodes}", "-o", "json",
                    "--output-dir", str(directory)], check=True, capture_output=True)
    (directory / "cluster-info.yaml").write_text(
        "apiVersion: drasim.dev/v1alpha1\nkind: ClusterInfo\nmetadata: {name: cluster-info}\n"
        "serverVersion: v1.36.0\nkubernetesVersion: '1.36'\n"
        "readVersions: {ResourceSlice: v1, ResourceClaim: v1, DeviceClass: v1}\n")
    claims: list[dict[str, Any]] = []
    pod_items: list[dict[str, Any]] = []
    for p in range(pods):
        node, gpu = f"h100-80gb-hbm3-{p // GPUS_PER_NODE}", p % GPUS_PER_NODE
        name, uid = f"job-{p:06d}", f"00000000-0000-0000-0000-{p:012d}"
        claims.append({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": f"{name}-gpu", "namespace": "default", "uid": f"c{uid[1:]}"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}},
            "status": {
                "allocation": {
                    "devices": {"results": [{"request": "gpu", "driver": "gpu.nvidia.com", "pool": node,
                                             "device": f"gpu-{gpu}"}]},
                    "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
                "reservedFor": [{"resource": "pods", "name": name, "uid": uid}]}})
        pod_items.append({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": uid},
            "spec": {"nodeName": node, "containers": [{"name": "main", "image": "registry.example.com/train:1",
                                                       "resources": {"claims": [{"name": "gpu"}]}}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimName": f"{name}-gpu"}]},
            "status": {"phase": "Running"}})
    _write_list(directory / "resourceclaims.json", claims)
    _write_list(directory / "pods.json", pod_items)
    return directory


RULE = """apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain-node-0}
spec:
  deviceSelector: {pool: h100-80gb-hbm3-0}
  taint: {key: maintenance, effect: NoExecute}
"""


def main() -> None:
    full = "--hostile-scale" in sys.argv or not globals().get("VIA_RUN", False)  # direct runs: full size
    pods = 100_000 if full else 10_000
    fleet_nodes = 100_000 if full else 5_000
    print(f"== hostile sizes: a dump of {pods:,} bound pods; fleet of {fleet_nodes:,} H100 nodes "
          "(whole process; CPU seconds, peak RSS)" + ("" if full else "  [--hostile-scale: 100,000 of each]"))
    with tempfile.TemporaryDirectory() as tmp:
        dump = pod_dump(Path(tmp) / "dump", pods)
        mb = sum(f.stat().st_size for f in dump.iterdir()) / 1e6
        rule = Path(tmp) / "rule.yaml"
        rule.write_text(RULE)
        commands = {
            "validate": ["validate", "-f", str(dump)],
            "lint": ["lint", "-f", str(dump)],
            "simulate": ["simulate", "-f", str(dump), "-o", "json"],
            "doctor": ["doctor", "--from-dump", str(dump)],
            "taint dry-run": ["taint", "dry-run", str(rule), "-f", str(dump), "--feature-gates",
                              "DRADeviceTaintRules=true"],
        }
        for name, args in commands.items():
            cpu, peak, code = run_cli(*args)
            report(f"{name} of a {pods:,}-pod dump ({mb:.0f} MB), exit {code}", cpu, "CPU-s", TARGET_CPU_S)
            report("  peak memory of that process", peak, "MB", TARGET_MB)
        for fmt in ("yaml", "json"):
            out = Path(tmp) / f"fleet.{fmt}"
            with out.open("wb") as f:
                cpu, peak, code = run_cli("fleet", "--nodes", f"h100:{fleet_nodes}", "-o", fmt, stdout=f)
            size = out.stat().st_size / 1e6
            out.unlink()
            report(f"fleet --nodes h100:{fleet_nodes} -o {fmt} ({size:.0f} MB), exit {code}", cpu, "CPU-s",
                   TARGET_CPU_S)
            report("  peak memory of that process", peak, "MB", TARGET_MB)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
