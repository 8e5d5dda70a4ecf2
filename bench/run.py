"""Run every benchmark in this folder and print its figures: `python bench/run.py` (a few minutes), `--large`
for the 50,000-pod, 50,000-replica and 5,000-node fleet figures.

Each line is one figure beside its target and their ratio (>= 1.0: met). Figures in CPU seconds (or per
CPU-second) are also shown calibrated: divided by how much slower than on the reference machine a fixed
pure-Python loop ran right before the figure was taken (`common.calibration_factor`), so a run on a loaded
machine can still be compared with the targets; the ratio uses the calibrated figure."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    sys.path.insert(0, str(HERE))
    from common import CALIBRATION_REFERENCE_S, calibration_seconds

    def calibration(when: str) -> None:
        seconds = calibration_seconds()
        print(f"calibration loop {when}: {seconds:.3f} CPU-s (reference {CALIBRATION_REFERENCE_S} CPU-s: "
              f"this machine runs {seconds / CALIBRATION_REFERENCE_S:.2f}x the reference)\n")

    calibration("at the start")
    for script in sorted(HERE.glob("bench_*.py")):
        # runpy sets sys.argv[0] to the script's own path: the scripts that run more when started directly
        # (bench_fleet_tools, bench_hostile_scale) read VIA_RUN to know they were not.
        runpy.run_path(str(script), init_globals={"VIA_RUN": True}, run_name="__main__")
        print()
    calibration("at the end")


if __name__ == "__main__":
    main()
