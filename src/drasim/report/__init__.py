"""The HTML report of a simulation: one self-contained file (inline CSS, SVG and script, no network)."""

from __future__ import annotations

from drasim.report.data import ReportData, collect
from drasim.report.html import render
from drasim.sim.engine import SimulationResult

__all__ = ["ReportData", "collect", "render", "report_html"]


def report_html(result: SimulationResult, *, title: str = "drasim simulation", subtitle: str = "") -> str:
    """The report's whole page (the CLI writes it with `sources.atomic.write_file`: never half a file)."""
    return render(collect(result, title=title, subtitle=subtitle))
