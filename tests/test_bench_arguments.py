"""bench/run.py hands its own arguments (`--large`) to every bench_*.py script it runs: each must accept them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_argparse_bench_script_accepts_large() -> None:
    scripts = [p.name for p in sorted(BENCH.glob("bench_*.py")) if "parse_args(" in p.read_text()]
    # A new script that parses arguments needs its own smallest run here.
    assert scripts == ["bench_decode.py"]
    done = subprocess.run([sys.executable, str(BENCH / "bench_decode.py"), "--large", "--slices", "1", "--repeat", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr



def test_fleet_figures_under_bench_run_wait_for_large(monkeypatch) -> None:
    """runpy sets sys.argv[0] to the script's own path, so bench/run.py hands VIA_RUN: run as bench/run.py
    runs it, without --large, the fleet script prints its hint and starts no fleet."""
    import runpy
    import subprocess

    monkeypatch.syspath_prepend(str(BENCH))
    import common

    monkeypatch.setattr(common, "median_cpu", lambda *args, **kw: (0.1, 1.0))
    monkeypatch.setattr(common, "report", lambda *args, **kw: None)
    started: list[object] = []
    monkeypatch.setattr(subprocess, "run", lambda *args, **kw: started.append(args))
    monkeypatch.setattr(sys, "argv", [str(BENCH / "run.py")])
    runpy.run_path(str(BENCH / "bench_fleet_tools.py"), init_globals={"VIA_RUN": True}, run_name="__main__")
    assert started == []
