"""The CLI as a user runs it: one `drasim simulate` process per output format, CPU seconds of the whole process."""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import inputs
from common import installed_env, report

TARGET_PODS_PER_CPU_S = 2000.0
ANCHOR = "  [kube-scheduler 255-381 pods/s on 6 cores, scheduler_perf 5000pods_500nodes]"
LARGE_TARGET_CPU_S = 20.0
LARGE_TARGET_MB = 2048.0


ENV = installed_env()


def run_cli(*args: str) -> tuple[float, float]:
    """(CPU seconds, peak RSS MB) of one `drasim` process; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "drasim.cli.main", *args], check=True, stdout=subprocess.DEVNULL, env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss / 1024  # the largest child so far


def main() -> None:
    print("== drasim simulate as a user runs it (whole process, CPU seconds; output to /dev/null)")
    with tempfile.TemporaryDirectory() as tmp:
        path = inputs.scheduler_perf(Path(tmp) / "scheduler-perf-5000pods-500nodes.yaml")
        mb = path.stat().st_size / 1e6
        for fmt in ("json", "yaml", "table", "wide"):
            cpu, _ = run_cli("simulate", "-f", str(path), "-o", fmt)
            report(f"5,000 pods onto 500 nodes x 10 devices ({mb:.1f} MB), -o {fmt}", 5000 / cpu, "pods/CPU-s",
                   TARGET_PODS_PER_CPU_S, lower_is_better=False, reference=f"  ({cpu:.2f} CPU-s){ANCHOR}")
        if "--large" not in sys.argv:
            print("(run with --large for 50,000 h100-else-a100 replicas onto 2,500 H100 + 2,500 A100 nodes)")
            return
        fleet = inputs.h100_else_a100(Path(tmp) / "large")
        cpu, peak = run_cli("simulate", "-f", str(fleet), "-o", "json")
        report("50,000 h100-else-a100 pods onto 5,000 nodes x 8 GPUs, -o json", cpu, "CPU-s", LARGE_TARGET_CPU_S,
               reference=f"  ({50000 / cpu:.0f} pods/CPU-s)")
        report("  peak memory of that process", peak, "MB", LARGE_TARGET_MB)


if __name__ == "__main__":
    main()
