"""Cost that must grow with the work simulated, not its square (issues #26 and #27), whole processes in CPU
seconds: `drasim capacity --max 5000` against simulating those 5,000 replicas, pods placed per CPU-second
for one Timeline event applying N pods and for one Deployment of N replicas (N from 1,000 to 20,000; 50,000
with `--large`), and a 10^9-replica Deployment refused up front."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import inputs
from common import calibration_factor, installed_env, report, run_drasim

# capacity --max 5000 may cost at most this many times the simulation of those 5,000 replicas.
TARGET_CAPACITY_RATIO = 3.0
# Pods placed per CPU-second at the largest N over the rate at 5,000: roughly constant means linear.
TARGET_LINEARITY = 0.75
SIZES = (1000, 5000, 20000)
LARGE_SIZES = (*SIZES, 50000)

ENV = installed_env()


def _capacity(tmp: Path) -> None:
    cluster = inputs.cluster_only(tmp / "cluster.json")
    workload = tmp / "workload.json"
    workload.write_text(json.dumps(inputs.deployment("app", 0)))
    full = inputs.deployments(tmp / "full.json", 1, 5000)
    factor = calibration_factor()
    sim = run_drasim("simulate", "-f", str(full), "-o", "json", env=ENV).cpu
    cap = run_drasim("capacity", "-f", str(cluster), "--workload", str(workload), "--max", "5000", "-o", "json",
                     env=ENV).cpu
    report("capacity --max 5000 on 500 nodes x 10 devices", cap, "CPU-s", TARGET_CAPACITY_RATIO * sim,
           factor=factor, reference=f"  (simulate of those 5,000 replicas: {sim:.2f} CPU-s)")
    report("  capacity over that simulation", cap / sim, "x", TARGET_CAPACITY_RATIO)


def _linearity(tmp: Path, sizes: tuple[int, ...]) -> None:
    for shape in ("one Timeline apply of N Pods", "one Deployment of N replicas"):
        rates: dict[int, float] = {}
        for n in sizes:
            nodes = n // 10
            if shape.startswith("one Timeline"):
                args = ["-f", str(inputs.timeline_apply(tmp / f"timeline-{n}", n, nodes))]
            else:
                args = ["-f", str(inputs.deployments(tmp / f"deployment-{n}.json", 1, n, nodes=nodes))]
            factor = calibration_factor()
            cpu = run_drasim("simulate", *args, "-o", "json", env=ENV).cpu
            rates[n] = n / cpu
            report(f"{shape}: N={n:,} onto {nodes:,} nodes x 10", rates[n], "pods/CPU-s", factor=factor,
                   lower_is_better=False, reference=f"  ({cpu:.2f} CPU-s)")
        top = max(sizes)
        report(f"  pods/CPU-s at N={top:,} over N=5,000", rates[top] / rates[5000], "x", TARGET_LINEARITY,
               lower_is_better=False)


def _refusal(tmp: Path) -> None:
    path = tmp / "huge.json"
    path.write_text(json.dumps(inputs.deployment("huge", 10**9)))
    run = run_drasim("simulate", "-f", str(path), env=ENV, check=False)
    report(f"a 10^9-replica Deployment refused (exit {run.code})", run.cpu, "CPU-s", 1.0)


def main() -> None:
    print("== work that grows linearly: capacity, Timeline applies, replicas (whole process, CPU seconds)")
    with tempfile.TemporaryDirectory() as tmp:
        _capacity(Path(tmp))
        _linearity(Path(tmp), LARGE_SIZES if "--large" in sys.argv else SIZES)
        _refusal(Path(tmp))
    if "--large" not in sys.argv:
        print("(run with --large for N=50,000)")


if __name__ == "__main__":
    main()
