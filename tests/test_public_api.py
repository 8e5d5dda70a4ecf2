"""The public Python API, used only through `drasim.__all__`: the same answers as the CLI, exceptions not exits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import drasim

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def test_import_drasim_stays_light_and_every_name_resolves() -> None:
    probe = ("import sys, drasim\n"
             "print(sorted(m for m in sys.modules if m.startswith('drasim.') or m.split('.')[0] in "
             "('yaml', 'msgspec', 'rich', 'click', 'cel_expr_python', 'httpx2')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"
    for name in drasim.__all__:
        assert getattr(drasim, name) is not None, name
    with pytest.raises(AttributeError):
        drasim.no_such_name  # noqa: B018


def test_the_demo_through_the_api_answers_as_the_cli() -> None:
    demo = drasim.load()
    assert isinstance(demo, drasim.Inputs) and demo.release is not None and demo.release.gate("DRADeviceTaintRules")
    sim = drasim.simulate(demo)
    assert isinstance(sim, drasim.Simulation) and isinstance(sim.result, drasim.SimulationResult)
    assert {p.key[1] for p in sim.pending} == {"mig-on-mig-off-node", "urgent-training"}
    assert [m.line() for m in sim.workloads if m.workload == "Deployment/inference"] == [
        "Deployment/inference: 11 replicas — 8 gpu/h100, 3 gpu/a100-pair; 3 took a lower alternative while a node "
        "offering a higher one was feasible (other scores outweighed it)"]
    cli = subprocess.run([sys.executable, "-m", "drasim", "simulate", "-o", "json"], capture_output=True, text=True,
                         check=True, timeout=300)
    assert json.loads(json.dumps(sim.to_dict())) == json.loads(cli.stdout)


def test_explanation_lint_capacity_and_allocate_are_typed_results_with_to_dict() -> None:
    demo = drasim.load()
    why = drasim.explanation(demo, "pod/urgent-training")
    assert isinstance(why, drasim.Explanation) and why.allocatable_nodes == []
    assert json.loads(json.dumps(why.to_dict()))["kind"] == "PodExplanation"
    findings = drasim.lint_findings(demo)
    assert all(isinstance(f, drasim.LintFinding) for f in findings)
    # The demo's story as lint tells it: replicas on the fallback while an H100 node was feasible, the mixed
    # alternatives, and its two pods that stay Pending on purpose.
    assert [f.to_dict()["id"] for f in findings] == ["first-available-fallback", "first-available-mixed-shapes",
                                                      "pod-pending", "pod-pending"]
    fleet = drasim.load([str(EXAMPLES / "cluster")])
    more = drasim.capacity(fleet, str(EXAMPLES / "inference.yaml"))
    assert isinstance(more, drasim.CapacityResult)
    assert more.to_dict()["byAlternative"] == {"gpu/h100": 16, "gpu/a100-pair": 8}
    answer = drasim.allocate(demo, str(EXAMPLES / "mig-claim.yaml"))
    assert isinstance(answer, drasim.AllocationAnswer) and answer.nodes == ["a100-mig-05"]
    assert {d["request"] for d in answer.results["a100-mig-05"]} == {"small", "medium"}
    assert "a100-nomig-08" in json.loads(json.dumps(answer.to_dict()))["errors"]


def test_a_release_and_gates_as_the_flags_give_them() -> None:
    release = drasim.profile("1.37", "DRAListTypeAttributes=true")
    assert isinstance(release, drasim.ReleaseProfile) and release.version == "1.37"
    inputs = drasim.load([str(EXAMPLES / "binding-conditions.yaml")], release=release)
    sim = drasim.simulate(inputs)
    assert sim.release is release and sim.result.steady_state.startswith("1 pod waits")


def test_bad_input_raises_never_exits(tmp_path: Path) -> None:
    with pytest.raises(drasim.InputError, match="no such file"):
        drasim.load([str(tmp_path / "missing.yaml")])
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: x}\nspec: [1]\n")
    with pytest.raises(drasim.InputError) as info:
        drasim.load([str(bad)])
    assert "bad.yaml" in str(info.value) and "ResourceClaim" in str(info.value)
    with pytest.raises(drasim.DrasimError):
        drasim.explanation(drasim.load(), "pod/nope")
    with pytest.raises(drasim.DrasimError):
        drasim.explanation(drasim.load(), "deployment/inference")
    with pytest.raises(drasim.DrasimError):
        drasim.profile("1.20")


def test_the_documented_example_runs() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "docs" / "api_example.py")], capture_output=True, text=True,
                          check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Deployment/inference: 11 replicas" in proc.stdout and "refused:" in proc.stdout
