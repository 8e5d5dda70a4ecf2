"""The toolkit at fleet scale (issues #16, #27): whole `drasim` processes, CPU seconds, on the 5,000-node fleet
`drasim fleet --nodes h100:4000 --nodes a100-80gb:mig-dynamic:200 --nodes h200:800` with one pod.

`validate`, `lint`, `explain pod` and `simulate`, each from the fleet's YAML on first read (no parse cache)
and from one JSON List; `validate` again from the parse cache (warm, as a user's second command); and
`drasim --help` / `--version`. The fleet commands need `--large` from `bench/run.py` (they take minutes);
run directly, they always run. `DRASIM_BENCH_FLEET_NODES` scales the fleet (default 5000).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPEAT, installed_env, median_cpu, report

NODES = int(os.environ.get("DRASIM_BENCH_FLEET_NODES", "5000"))
GROUPS = (("h100", 0.8), ("a100-80gb:mig-dynamic", 0.04), ("h200", 0.16))
TARGET_JSON_CPU_S = 3.0
TARGET_YAML_CPU_S = 6.0
ENV = installed_env()
POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu.nvidia.com, count: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c}]
  resourceClaims: [{name: gpus, resourceClaimTemplateName: two-gpus}]
"""


def _fleet_args() -> list[str]:
    args = []
    for model, share in GROUPS:
        args += ["--nodes", f"{model}:{max(1, round(NODES * share))}"]
    return args


def _cpu(*args: str, cache: str = "off", repeat: int = REPEAT) -> tuple[float, float]:
    """(CPU seconds, calibration factor), medians of `repeat` `drasim` processes (`cache`: their parse cache)."""
    return median_cpu(*args, env={**ENV, "DRASIM_CACHE_DIR": cache}, repeat=repeat)


def main() -> None:
    direct = not globals().get("VIA_RUN", False)  # bench/run.py runs the fleet figures only with --large
    print(f"== toolkit at fleet scale (whole process, CPU seconds, JSON: median of {REPEAT}; {NODES:,} nodes: "
          f"{' '.join(_fleet_args())})")
    for args in (["--help"], ["--version"]):
        cpu, factor = _cpu(*args)
        report(f"drasim {args[0]}", cpu, "CPU-s", 0.3, factor=factor)
    if not direct and "--large" not in sys.argv:
        print("(run with --large for validate, lint, explain and simulate on the fleet)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        fleet = os.path.join(tmp, "fleet")
        subprocess.run([sys.executable, "-m", "drasim.cli.main", "fleet", *_fleet_args(), "--output-dir", fleet],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        fleet_json = os.path.join(tmp, "fleet.json")
        with open(fleet_json, "wb") as out:
            subprocess.run([sys.executable, "-m", "drasim.cli.main", "fleet", *_fleet_args(), "-o", "json"],
                           check=True, stdout=out, stderr=subprocess.DEVNULL, env=ENV)
        pod = os.path.join(tmp, "pod.yaml")
        Path(pod).write_text(POD)
        commands = {
            "validate": ["validate"],
            "lint": ["lint"],
            # lint with a workload: the request rules and pod-pending (the simulation, and explain for a
            # pod it leaves Pending) run too: what "will this work on that fleet" costs.
            "lint -f POD": ["lint", "-f", pod],
            "explain pod/p": ["explain", "pod/p", "-f", pod],
            "simulate": ["simulate", "-o", "json", "-f", pod],
        }
        for name, args in commands.items():
            cpu, factor = _cpu(*args, "-f", fleet, repeat=1)  # minutes each: one process
            report(f"{name} -f FLEET (YAML, first read)", cpu, "CPU-s", TARGET_YAML_CPU_S, factor=factor)
            cpu, factor = _cpu(*args, "-f", fleet_json)
            report(f"{name} -f FLEET.json", cpu, "CPU-s", TARGET_JSON_CPU_S, factor=factor)
        cache = os.path.join(tmp, "cache")
        _cpu("validate", "-f", fleet, cache=cache, repeat=1)  # fills the parse cache
        cpu, factor = _cpu("validate", "-f", fleet, cache=cache)
        report("validate -f FLEET (YAML, from the parse cache)", cpu, "CPU-s", TARGET_JSON_CPU_S, factor=factor)


if __name__ == "__main__":
    main()
