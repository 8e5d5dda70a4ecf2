"""The fallback mix counts the replicas that got a lower firstAvailable alternative while a node offering a higher
one was feasible: the prioritized-list score makes the higher alternative more likely, not certain."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.allocator.versions import features_for_version
from drasim.api.profile import profile_for
from drasim.cli.explain import explain
from drasim.cli.fleet import fleet
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.fleet.generate import generate_fleet, parse_node_spec
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.report import pod_lines, workload_mix


def _inference(h100: int, a100: int, seed: int):  # type: ignore[no-untyped-def]
    """The demo's `inference` Deployment (h100-else-a100) alone on a generated fleet (README's example)."""
    specs = [parse_node_spec(f"h100:{h100}", gpus_per_node=8)] if h100 else []
    if a100:
        specs.append(parse_node_spec(f"a100-80gb:{a100}", gpus_per_node=8))
    objects, _, _ = load_inputs([p for p in demo_paths() if p.endswith("workloads.yaml")])
    workload = [o for o in objects if getattr(o, "KIND", "") in ("ResourceClaimTemplate", "Deployment")]
    fleet = generate_fleet(specs).objects
    return simulate([*fleet, *workload], (), SimulationOptions(features=features_for_version("1.36"), seed=seed))


def test_lower_alternative_while_an_h100_node_was_feasible_is_counted() -> None:
    result = _inference(2, 2, 0)
    lines = [line for line in pod_lines(result) if line.workload == "Deployment/inference"]
    (mix,) = [m for m in workload_mix(lines) if m.workload == "Deployment/inference"]
    # 16 H100s could hold all 11 replicas, yet other scores send some to A100 pairs.
    flagged = [line for line in lines if line.higher_on]
    assert mix.mix["gpu/a100-pair"] >= 1 and mix.lower_while_higher == len(flagged) >= 1
    assert all(line.higher_on.startswith("h100") for line in flagged)
    assert all(line.claims[0].alternatives == ["gpu/a100-pair"] for line in flagged)
    assert "took a lower alternative while a node offering a higher one was feasible" in mix.line()


@settings(max_examples=8, deadline=None)
@given(h100=st.integers(0, 2), a100=st.integers(0, 2), seed=st.integers(0, 3))
def test_first_choice_is_never_counted_and_no_h100_means_nothing_counted(h100: int, a100: int, seed: int) -> None:
    if h100 + a100 == 0:
        h100 = 1
    result = _inference(h100, a100, seed)
    for line in pod_lines(result):
        if line.claims and line.claims[0].alternatives == ["gpu/h100"]:
            assert not line.higher_on
        if h100 == 0:
            assert not line.higher_on


def test_explain_shows_the_placement_beside_the_node_offering_a_higher_alternative(tmp_path: Path) -> None:
    """explain pod/NAME on a scheduled replica: its node, alternative and per-plugin scores, and the best
    feasible node that offered the higher alternative (or that none did)."""
    fleet_dir = tmp_path / "fleet"
    assert CliRunner().invoke(fleet, ["--nodes", "h100:2", "--nodes", "a100-80gb:2", "--output-dir",
                                      str(fleet_dir)]).exit_code == 0
    workloads = next(p for p in demo_paths() if p.endswith("workloads.yaml"))
    args = ["-f", str(fleet_dir), "-f", workloads]
    result = simulate(*_load(args), SimulationOptions.for_profile(profile_for("1.36")))
    lines = [line for line in pod_lines(result) if line.workload == "Deployment/inference"]
    lower = next(line for line in lines if line.higher_on)
    first = next(line for line in lines if line.claims[0].alternatives == ["gpu/h100"])
    out = CliRunner().invoke(explain, [f"pod/{lower.key[1]}", *args, "-o", "json"])
    placement = json.loads(out.output)["placement"]
    assert placement["node"] == lower.node and placement["alternatives"] == ["gpu/a100-pair"]
    assert placement["higherNode"] == lower.higher_on
    assert placement["higherScores"]["DynamicResources"] > placement["scores"]["DynamicResources"]
    assert sum(placement["scores"].values()) >= sum(placement["higherScores"].values())
    text = CliRunner().invoke(explain, [f"pod/{first.key[1]}", *args]).output
    assert "no feasible node offered a higher alternative" in text


def _load(args: list[str]):  # type: ignore[no-untyped-def]
    objects, timelines, _ = load_inputs([a for a in args if a != "-f"])
    return objects, timelines
