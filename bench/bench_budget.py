"""The search always ends: whole-process CPU seconds of `drasim` on searches that explode (issue #17).

N one-device firstAvailable claims of one pod on M devices: without an end, 8/7 took 19.7 s and 9/8
more than 90 s. Now a counting proof answers such calls after 1,000 steps, and every other search
stops at the step budget that stands for the scheduler's 10 s filter timeout.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests" / "budget"))

from budget_cases import write_manifests, write_scenario  # noqa: E402

from common import report  # noqa: E402
from drasim.allocator.budget import FILTER_BUDGET_STEPS, FILTER_TIMEOUT_SECONDS  # noqa: E402

# The proof switched off, to show the budget alone on the very case the issue names.
NO_PROOF = ("import sys, drasim.allocator.budget as s; s.PROOF_AFTER_STEPS = -1; "
            "from drasim.cli.main import main; sys.argv[0] = 'drasim'; main()")


def _cpu(args: list[str], *, no_proof: bool = False) -> tuple[float, str]:
    """Run drasim in a child process: its user+system CPU seconds and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [sys.executable, "-c", NO_PROOF, *args] if no_proof else [sys.executable, "-m", "drasim.cli.main", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy(), check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used, proc.stdout


def _step_outcome(stdout: str) -> str:
    step = json.loads(stdout)["steps"][0]
    return step["status"] if step["status"] != "error" else step["error"].split(" (")[0]


def main() -> None:
    print(f"== the search ends (whole-process CPU s; budget {FILTER_BUDGET_STEPS} steps stands for "
          f"the {FILTER_TIMEOUT_SECONDS}s filter timeout)")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for n, m in ((6, 5), (7, 6), (8, 7), (9, 8)):
            used, out = _cpu(["allocate", str(write_scenario(d / f"s{n}.yaml", n, m))])
            report(f"allocate: {n} claims on {m} devices ({_step_outcome(out)})", used, "CPU s")
        used, out = _cpu(["allocate", str(write_scenario(d / "s98.yaml", 9, 8))], no_proof=True)
        report(f"allocate: 9 on 8, counting proof off ({_step_outcome(out)})", used, "CPU s",
               reference=f"  [the budget: about {FILTER_TIMEOUT_SECONDS} s]")
        used, out = _cpu(["allocate", str(write_scenario(d / "p9.yaml", 9, 10, pair=True))])
        report(f"allocate: 8 on 10 + a pair no PCIe root has ({_step_outcome(out)})", used, "CPU s",
               reference=f"  [the budget: about {FILTER_TIMEOUT_SECONDS} s]")
        used, out = _cpu(["simulate", "-f", str(write_manifests(d / "p9m.yaml", 9, 10, pair=True))])
        timed_out = "timed out trying to allocate devices" in out
        report(f"simulate: the same pod ({'timed out' if timed_out else 'NOT timed out'})", used, "CPU s",
               reference=f"  [the budget: about {FILTER_TIMEOUT_SECONDS} s]")


if __name__ == "__main__":
    main()
