"""Fleet sweeps: many independent simulations over a grid (process pool; dask.distributed optional)."""

from drasim.sweep.chart import chart_svg
from drasim.sweep.point import payload, run_point
from drasim.sweep.run import SweepResult, run_dask, run_local
from drasim.sweep.spec import Sweep, load_sweep

__all__ = ["Sweep", "SweepResult", "chart_svg", "load_sweep", "payload", "run_dask", "run_local", "run_point"]
