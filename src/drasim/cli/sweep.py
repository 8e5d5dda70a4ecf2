"""`drasim sweep`: a grid of simulations over fleet composition, replicas, arrival order and seeds."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from drasim.cli.output import emit, output_option
from drasim.cli.textout import rich_console
from drasim.sources.atomic import write_file
from drasim.sweep import SweepResult, chart_svg, load_sweep, run_dask, run_local

__all__ = ["sweep"]


@contextmanager
def _progress(total: int) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on stderr when it is a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    with Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(file=sys.stderr), transient=True) as bar:
        task = bar.add_task("points", total=total)
        yield lambda n: bar.advance(task, n)


def _cell(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


@click.command("sweep")
@click.argument("spec_path", metavar="SPEC.yaml")
@output_option("table", "csv", "json", "yaml", help="table, csv, or the table as json/yaml ({columns, rows}).")
@click.option("--csv", "csv_path", default=None, metavar="FILE", help="Also write the table as CSV.")
@click.option("--chart", "chart_path", default=None, metavar="FILE.svg",
              help="Also write an SVG chart of --figure against --axis (defaults: the spec's chart).")
@click.option("--figure", default=None, help="The figure to chart, e.g. first_choice:inference, pending.")
@click.option("--axis", default=None, help="The axis to chart it against, e.g. a fleet group's axis name.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Local worker processes (default: the CPU count).")
@click.option("--dask-scheduler", "dask_address", default=None, metavar="tcp://HOST:PORT",
              help="Run the points on this dask.distributed scheduler instead of locally.")
def sweep(spec_path: str, output: str, csv_path: str | None, chart_path: str | None, figure: str | None,
          axis: str | None, workers: int | None, dask_address: str | None) -> None:
    """Run a grid of simulations and report, per point, pods placed and pending, the share of each
    workload's replicas on their first choice, and idle devices.

    The grid is the product of the fleet groups' counts, the replica counts, the arrival orders and the
    seeds of SPEC.yaml (see the README). Points run in a local process pool, or on a dask.distributed
    cluster with --dask-scheduler; both give the same table, byte for byte.
    """
    spec = load_sweep(spec_path)
    figure = figure or spec.chart.get("figure")
    axis = axis or spec.chart.get("axis")
    if chart_path and not (figure and axis):
        raise click.UsageError("--chart needs --figure and --axis (or a chart: {figure, axis} in the spec)")
    total = len(spec.points())
    with _progress(total) as progress:
        if dask_address:
            result = run_dask(spec, dask_address, progress=progress)
        else:
            result = run_local(spec, workers=min(workers or os.cpu_count() or 1, total), progress=progress)
    if chart_path and figure and axis:
        write_file(chart_path, chart_svg(result, figure, axis, title=f"{spec.name}: {figure} vs {axis}"),
                   what="--chart")
    if csv_path:
        write_file(csv_path, result.csv(), what="--csv")
    if output == "csv":
        click.echo(result.csv(), nl=False)
    elif output == "table":
        _table(result)
    else:
        emit({"columns": result.columns(), "rows": result.rows}, output)


def _table(result: SweepResult) -> None:
    console = rich_console(sys.stdout)
    table = Table(box=None, pad_edge=False, show_edge=False)
    for col in result.columns():
        table.add_column(col.upper() if ":" not in col else col, justify="left" if col in result.axes else "right")
    for row in result.rows:
        table.add_row(*[_cell(row.get(c, "")) for c in result.columns()])
    console.print(table)
