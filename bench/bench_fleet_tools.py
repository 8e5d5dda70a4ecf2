"""The toolkit at fleet scale (issue #16): whole `drasim` processes, CPU seconds, on 5,000 nodes x 10 GPUs.

`explain pod` for a claim of 12 GPUs, `validate`, `lint`, and `drasim --help` / `--version`; each figure
beside its target. The fleet is generated once per run by `drasim fleet` into a temporary directory, with
a parse cache of its own there: the first command on the YAML fleet parses it (cold), the next ones read
the parse cache (warm), as a user's second command on the same fleet does.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import installed_env, report

NODES = int(os.environ.get("DRASIM_BENCH_FLEET_NODES", "5000"))
ENV = installed_env()
POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: twelve-gpus, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpus
        exactly: {deviceClassName: gpu.nvidia.com, count: 12}
---
apiVersion: v1
kind: Pod
metadata: {name: big-training, namespace: default}
spec:
  containers: [{name: c}]
  resourceClaims: [{name: gpus, resourceClaimTemplateName: twelve-gpus}]
"""


def _cpu(*args: str, cache: str = "off") -> float:
    """CPU seconds (user + system) of one `drasim` process (`cache`: its parse cache directory)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "drasim.cli.main", *args], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**ENV, "DRASIM_CACHE_DIR": cache})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    print(f"== toolkit at fleet scale (whole process, CPU seconds; {NODES} nodes x 10 GPUs)")
    report("drasim --help", _cpu("--help"), "s", 0.3)
    report("drasim --version", _cpu("--version"), "s", 0.3)
    with tempfile.TemporaryDirectory() as tmp:
        fleet = os.path.join(tmp, "fleet")
        subprocess.run([sys.executable, "-m", "drasim.cli.main", "fleet", "--nodes", f"h100:{NODES}",
                        "--gpus-per-node", "10", "--output-dir", fleet], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pod = os.path.join(tmp, "pod.yaml")
        Path(pod).write_text(POD)
        cache = os.path.join(tmp, "cache")
        report("validate -f FLEET (cold: YAML parsed)", _cpu("validate", "-f", fleet, cache=cache), "s", 3.0)
        report("validate -f FLEET (warm: parse cache)", _cpu("validate", "-f", fleet, cache=cache), "s", 3.0)
        report("lint -f FLEET (warm)", _cpu("lint", "-f", fleet, cache=cache), "s", 3.0)
        # With a workload, lint's request rules and pod-pending (the simulation, then explain for the pod
        # the 12-GPU claim leaves Pending) run too: what "will this work on that fleet" costs.
        report("lint -f FLEET -f POD (warm; pod-pending)", _cpu("lint", "-f", fleet, "-f", pod, cache=cache), "s",
               8.0)
        # The same fleet as one JSON List: no YAML parsing at all.
        fleet_json = os.path.join(tmp, "fleet.json")
        with open(fleet_json, "wb") as out:
            subprocess.run([sys.executable, "-m", "drasim.cli.main", "fleet", "--nodes", f"h100:{NODES}",
                            "--gpus-per-node", "10", "-o", "json"], check=True, stdout=out,
                           stderr=subprocess.DEVNULL)
        report("validate -f FLEET.json", _cpu("validate", "-f", fleet_json), "s", 3.0)
        report("lint -f FLEET.json", _cpu("lint", "-f", fleet_json), "s", 3.0)
        report("explain pod (12 GPUs) -f FLEET (warm)", _cpu("explain", "pod", "default/big-training", "-f",
                                                             fleet, "-f", pod, cache=cache), "s", 5.0)
        report("explain pod (12 GPUs) -f FLEET.json", _cpu("explain", "pod", "default/big-training", "-f",
                                                           fleet_json, "-f", pod), "s", 5.0)


if __name__ == "__main__":
    main()
