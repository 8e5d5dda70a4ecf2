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
