"""Issue #27's shapes as users have them: the same 5,000 one-device pods as 1 Deployment and as 1,000
Deployments of 5, every output format (whole `drasim simulate` processes, CPU seconds)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import inputs
from bench_cli import run_cli
from common import report

TARGET_PODS_PER_CPU_S = 3000.0
TARGET_MANY_OVER_ONE = 1.2  # many small workloads cost at most this much more than one big one


def main() -> None:
    print("== 5,000 pods onto 500 nodes x 10 devices: 1 Deployment x 5,000 and 1,000 Deployments x 5")
    with tempfile.TemporaryDirectory() as tmp:
        one = inputs.deployments(Path(tmp) / "one.yaml", groups=1, replicas=5000)
        many = inputs.deployments(Path(tmp) / "many.yaml", groups=1000, replicas=5)
        for fmt in ("table", "wide", "json", "yaml"):
            cpu_one, _ = run_cli("simulate", "-f", str(one), "-o", fmt)
            cpu_many, _ = run_cli("simulate", "-f", str(many), "-o", fmt)
            report(f"1 x 5,000, -o {fmt}", 5000 / cpu_one, "pods/CPU-s", TARGET_PODS_PER_CPU_S,
                   lower_is_better=False, reference=f"  ({cpu_one:.2f} CPU-s)")
            report(f"1,000 x 5, -o {fmt}", 5000 / cpu_many, "pods/CPU-s", TARGET_PODS_PER_CPU_S,
                   lower_is_better=False, reference=f"  ({cpu_many:.2f} CPU-s)")
            report(f"  1,000 x 5 over 1 x 5,000, -o {fmt}", cpu_many / cpu_one, "x", TARGET_MANY_OVER_ONE)


if __name__ == "__main__":
    main()
