"""drasim as a library: the demo's story in a notebook-sized script (run it: `python docs/api_example.py`).

Every call raises `drasim.DrasimError` (`drasim.InputError` for bad input) and never exits; every result
has `to_dict()` for JSON.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import drasim

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def main() -> None:
    # Inputs: files and directories (`drasim.load(["cluster/", "apps.yaml"])`), a live cluster
    # (`drasim.load(context="prod")`, read-only), or, with neither, the bundled demo.
    demo = drasim.load()
    sim = drasim.simulate(demo, seed=0)
    print(f"{len(sim.pods)} pods, {len(sim.pending)} pending")
    for mix in sim.workloads:
        print(mix.line())  # Deployment/inference: 11 replicas — 8 gpu/h100, 3 gpu/a100-pair

    # Why does the high-priority pod wait? The explanation `drasim explain` renders.
    why = drasim.explanation(demo, "pod/urgent-training")
    print("hints:", sorted({h.code for g in why.groups for h in g.hints} | {h.code for h in why.hints}))

    # Which devices would a new claim for two MIG slices of one GPU get, and on which nodes?
    answer = drasim.allocate(demo, str(EXAMPLES / "mig-claim.yaml"))
    for node, devices in answer.results.items():
        print(node, [f"{d['request']}={d['device']}" for d in devices])

    # How many more inference replicas fit on a generated fleet, and through which alternatives?
    fleet = drasim.load([str(EXAMPLES / "cluster")])
    more = drasim.capacity(fleet, str(EXAMPLES / "inference.yaml"))
    print(more.summary(1000))

    # Lint: the findings `drasim lint` prints, as data.
    for finding in drasim.lint_findings(demo):
        print(finding.severity, finding.rule, finding.obj)

    # Everything as JSON, as the CLI's -o json.
    json.dump({"simulation": len(sim.to_dict()["items"]), "explain": why.to_dict()["summary"],
               "capacity": more.to_dict()}, sys.stdout, indent=1)
    print()

    # Bad input is an exception naming the file, never an exit.
    try:
        drasim.load([str(EXAMPLES / "no-such-file.yaml")])
    except drasim.InputError as err:
        print("refused:", err)


if __name__ == "__main__":
    main()
