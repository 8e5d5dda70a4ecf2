"""Every conformance vector (upstream v1.36.2 allocator outputs) must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from drasim.cli.scenarios import load_scenario_input, to_input
from drasim.runner.check import check_steps, diff_upstream
from drasim.runner.scenario import run_scenario
from drasim.sources.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent / "conformance"
FILES = sorted(p for p in ROOT.rglob("*.yaml"))


def test_vector_counts() -> None:
    counts = {d: len(list((ROOT / d).glob("*.yaml"))) for d in ("upstream-v1.36", "seed", "random")}
    assert counts == {"upstream-v1.36": 217, "seed": 12, "random": 300}


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_vector(path: Path) -> None:
    scenario = load_scenario(str(path))
    out = run_scenario(to_input(scenario))
    problems = check_steps(out["steps"], scenario.expect)
    assert not problems, "\n".join(problems)
    # Finer than `expect`: node selectors, configs, tolerations, consumed capacity, share IDs and
    # result order must equal the complete upstream output recorded in the file.
    upstream = scenario.annotations["upstreamOutput"]
    assert out["features"] == upstream["features"]
    diffs = diff_upstream(out["steps"], upstream["steps"])
    assert not diffs, "\n".join(diffs)


# Upstream's expectNumAllocateOneInvocations for the incubating/experimental allocator (spec §9.4).
STEP_COUNTS = {
    "TestAllocator_check-combinations-with-backtracking.yaml": 12,
    "TestAllocator_check-combinations-with-backtracking-across-slices-and-pools.yaml": 12,
    "TestAllocator_check-combinations-with-prioritized-list.yaml": 26,
    "TestAllocator_prioritized-list-max-allocation-limit-request.yaml": 75,
    "TestAllocator_prioritized-list-max-allocation-allocation-mode-all.yaml": 42,
}


@pytest.mark.parametrize("name,steps", sorted(STEP_COUNTS.items()))
def test_search_step_counts(name: str, steps: int) -> None:
    sc, _ = load_scenario_input(str(ROOT / "upstream-v1.36" / name))
    out = run_scenario(sc, with_stats=True)
    assert [s["searchSteps"] for s in out["steps"]] == [steps]


def test_single_request_combinations_step_count() -> None:
    files = sorted((ROOT / "upstream-v1.36").glob("TestAllocator_check-combinations-within-single-request*.yaml"))
    assert files
    for f in files:
        sc, _ = load_scenario_input(str(f))
        out = run_scenario(sc, with_stats=True)
        assert [s["searchSteps"] for s in out["steps"]] == [16], f.name
