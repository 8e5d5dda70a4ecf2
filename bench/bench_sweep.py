"""Sweep: CPU seconds per point, wall speed-up with 2 local workers, and a 2-worker dask LocalCluster giving
the same CSV bytes as the local run (100 points: 10 H100 counts x 2 replica counts x 5 seeds)."""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from pathlib import Path

from drasim.sweep import load_sweep, run_dask, run_local

ROOT = Path(__file__).resolve().parent.parent
SPEC = """apiVersion: drasim.dev/v1alpha1
kind: Sweep
metadata: {name: bench}
spec:
  gpusPerNode: 4
  fleet:
  - {nodes: h100, counts: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], axis: h100}
  - {nodes: a100-80gb, counts: [2]}
  workloads: [workloads.yaml]
  replicas: {inference: [8, 24]}
  seeds: [0, 1, 2, 3, 4]
"""


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="drasim-bench-sweep-"))
    shutil.copy(ROOT / "src/drasim/demo/workloads.yaml", tmp / "workloads.yaml")
    (tmp / "sweep.yaml").write_text(SPEC)
    spec = load_sweep(str(tmp / "sweep.yaml"))
    n = len(spec.points())
    c0, w0 = _cpu(resource.RUSAGE_SELF), time.perf_counter()
    one = run_local(spec, workers=1)
    cpu1, wall1 = _cpu(resource.RUSAGE_SELF) - c0, time.perf_counter() - w0
    print(f"sweep: {n} points, 1 worker: {cpu1 / n * 1000:.1f} ms CPU per point, {wall1:.1f} s wall")
    c0, w0 = _cpu(resource.RUSAGE_CHILDREN), time.perf_counter()
    two = run_local(spec, workers=2)
    cpu2, wall2 = _cpu(resource.RUSAGE_CHILDREN) - c0, time.perf_counter() - w0
    print(f"sweep: 2 workers: {cpu2:.1f} s CPU in the workers, {wall2:.1f} s wall, speed-up {wall1 / wall2:.2f}x "
          "(wall time: depends on what else runs on the machine)")
    assert two.csv() == one.csv()
    try:
        from distributed import LocalCluster
    except ImportError:
        print("sweep: dask.distributed not installed, LocalCluster run skipped")
        return
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        w0 = time.perf_counter()
        distributed = run_dask(spec, cluster.scheduler_address)
        print(f"sweep: dask LocalCluster (2 worker processes): {time.perf_counter() - w0:.1f} s wall, "
              f"CSV identical to the local run: {distributed.csv() == one.csv()}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
