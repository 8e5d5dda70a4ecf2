"""`pod_lines` without claims, scores, node selectors or details (what some outputs skip) is the full lines with those
parts empty."""

from __future__ import annotations

import dataclasses

from drasim.allocator.versions import features_for_version
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.report import owner_chain, pod_lines, workloads_by_uid


def test_lines_without_parts_are_the_full_lines_without_them() -> None:
    objects, timelines, _ = load_inputs(demo_paths())
    result = simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))
    full = pod_lines(result)
    assert any(line.claims for line in full) and any(line.score_plugins for line in full)
    assert pod_lines(result, claims=False) == [dataclasses.replace(line, claims=[]) for line in full]
    assert pod_lines(result, scores=False) == [dataclasses.replace(line, scores=[], score_plugins=[])
                                               for line in full]
    assert any(c.node_selector for line in full for c in line.claims)
    assert pod_lines(result, selectors=False) == [
        dataclasses.replace(line, claims=[dataclasses.replace(c, node_selector="") for c in line.claims])
        for line in full]
    # Without details (what -o json|yaml reads: status and the scores per plugin), the rest is empty.
    assert any(line.workload for line in full) and any(line.conditions for line in full)
    assert any(line.status == "Pending" and line.reason for line in full)
    assert pod_lines(result, claims=False, details=False) == [
        dataclasses.replace(line, claims=[], workload="", priority=0, reason="", higher_on="", conditions=[],
                            scores=[]) if line.key in result.state.pods else line
        for line in full]
    # The workload of each pod is its owner chain (walked once per owner reference, not once per pod).
    by_uid = workloads_by_uid(result.state)
    workloads = {line.key: line.workload for line in full}
    assert "Deployment/inference" in workloads.values()
    for key, pod in result.state.pods.items():
        assert workloads[key] == owner_chain(by_uid, pod)
