"""The HTML report of a simulation: one self-contained file (inline CSS, SVG and script, no network)."""

from __future__ import annotations

import os
import tempfile

from drasim.errors import InputError
from drasim.report.data import ReportData, collect
from drasim.report.html import render
from drasim.sim.engine import SimulationResult

__all__ = ["ReportData", "collect", "render", "write_report"]


def write_report(result: SimulationResult, path: str, *, title: str = "drasim simulation",
                 subtitle: str = "") -> ReportData:
    """Render the report and write it to `path` in one step (a temporary file renamed: never half a file)."""
    data = collect(result, title=title, subtitle=subtitle)
    text = render(data)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".drasim-report.", suffix=".tmp", dir=directory)
    except OSError as err:
        raise InputError(f"--report {path}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is an ordinary file
        os.replace(tmp, path)
    except OSError as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InputError(f"--report {path}: {err.strerror or err}") from None
    return data
