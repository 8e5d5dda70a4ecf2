"""Run a sweep's points: inline, in a local process pool, or on a dask.distributed cluster; same results."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from drasim.errors import InputError
from drasim.sweep.point import payload, run_point
from drasim.sweep.spec import Sweep

Progress = Callable[[int], None]  # called with the number of points just finished


@dataclass
class SweepResult:
    axes: list[str]
    figures: list[str]
    rows: list[dict[str, Any]]  # axis values then figures, in grid order

    def columns(self) -> list[str]:
        return [*self.axes, *self.figures]

    def csv(self) -> str:
        """The table as CSV (figures missing at a point are empty); the same rows give the same bytes."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns())
        for row in self.rows:
            writer.writerow([_cell(row.get(c)) for c in self.columns()])
        return out.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _collect(sweep: Sweep, points: list[dict[str, Any]], results: list[dict[str, Any]]) -> SweepResult:
    figures: list[str] = []
    for r in results:
        figures += [f for f in r if f not in figures]
    fixed = [f for f in figures if ":" not in f]
    named = sorted(f for f in figures if ":" in f)
    rows = [{**p, **r} for p, r in zip(points, results, strict=True)]
    return SweepResult(axes=[n for n, _ in sweep.axes()], figures=fixed + named, rows=rows)


def run_local(sweep: Sweep, *, workers: int = 1, progress: Progress | None = None) -> SweepResult:
    """Every point in this process (workers <= 1) or a process pool of `workers`."""
    points = sweep.points()
    data = [payload(sweep, p) for p in points]
    results: list[dict[str, Any] | None] = [None] * len(points)
    if workers <= 1:
        for i, d in enumerate(data):
            results[i] = run_point(d)
            if progress:
                progress(1)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(run_point, d): i for i, d in enumerate(data)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if progress:
                    progress(1)
    return _collect(sweep, points, [r for r in results if r is not None])


def run_dask(sweep: Sweep, address: str, *, progress: Progress | None = None) -> SweepResult:
    """The same points on a dask.distributed scheduler at `address` (tcp://HOST:PORT). Only the payloads
    (text and numbers) travel; every worker needs drasim installed."""
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise InputError("--dask-scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
    points = sweep.points()
    data = [payload(sweep, p) for p in points]
    try:
        client = Client(address, timeout=30)
    except OSError as err:
        raise InputError(f"--dask-scheduler {address}: cannot connect: {err}") from None
    try:
        futures = client.map(run_point, data, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[dict[str, Any] | None] = [None] * len(points)
        for future in dask_completed(futures):
            results[index[future.key]] = future.result()
            if progress:
                progress(1)
    finally:
        client.close()
    return _collect(sweep, points, [r for r in results if r is not None])
