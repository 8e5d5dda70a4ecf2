"""Scale limits: workloads asking for more pods than a simulation takes, sweep grids too big to run and
capacity's --max beyond the limit are refused up front, naming the object (or file) and the field."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from drasim.api.decode import decode_object
from drasim.cli.main import cli, main
from drasim.errors import InputError
from drasim.fleet.generate import MAX_FLEET_NODES
from drasim.sim.capacity import capacity
from drasim.sim.engine import Simulation
from drasim.sim.timeline import parse_timeline
from drasim.sim.workloads import MAX_WORKLOAD_PODS, WorkloadError, check_workloads
from drasim.sweep import load_sweep

LIMIT = MAX_WORKLOAD_PODS


def _workload(kind: str, name: str, count: int, **extra: Any) -> dict[str, Any]:
    template = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    meta = {"name": name, "namespace": "ml"}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
                "spec": {"parallelism": count, "template": template, **extra}}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": {**meta, **extra.pop("meta", {})}, "spec": {
        "replicas": count, "selector": {"matchLabels": {"app": name}}, "template": template, **extra}}


def _objects(*docs: dict[str, Any]) -> list[Any]:
    return [decode_object(d, source="test") for d in docs]


@pytest.mark.parametrize(("kind", "field"), [("Deployment", "replicas"), ("ReplicaSet", "replicas"),
                                             ("StatefulSet", "replicas"), ("Job", "parallelism")])
def test_one_workload_beyond_the_limit_is_refused_before_the_run(kind: str, field: str) -> None:
    with pytest.raises(WorkloadError) as info:
        Simulation(_objects(_workload(kind, "big", 10**9)))
    err = info.value
    assert (err.obj, err.path, err.exit_code) == (f"{kind}/ml/big", f"spec.{field}", 2)
    assert f"Invalid value: 1000000000: drasim creates and simulates every pod and takes at most {LIMIT:,}" \
        in err.message
    assert check_workloads(_objects(_workload(kind, "big", LIMIT))) == []


def test_the_limit_counts_every_workload_once() -> None:
    half = LIMIT // 2
    errors = check_workloads(_objects(_workload("Deployment", "a", half), _workload("StatefulSet", "b", half),
                                      _workload("Job", "c", 1), _workload("Job", "d", 5)))
    assert [(e.obj, e.path) for e in errors] == [("Job/ml/c", "spec.parallelism")]
    assert f"with {2 * half:,} asked for by the workloads before it" in errors[0].message
    # A Job runs at most its completions at once; a ReplicaSet of a Deployment given runs the Deployment's pods.
    owned = _workload("ReplicaSet", "a-5d8f9", half, meta={"ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "a", "uid": "u", "controller": True}]})
    assert check_workloads(_objects(_workload("Deployment", "a", half), owned,
                                    _workload("Job", "c", 10**9, completions=half))) == []


def test_a_job_counts_its_completions_not_only_the_pods_at_once(tmp_path: Path) -> None:
    # One pod at a time, each done after a second: a billion completions would create pods to the horizon.
    job = _workload("Job", "batch", 1, completions=10**9)
    job["spec"]["template"]["metadata"]["annotations"] = {"drasim.dev/run-for": "1s"}
    with pytest.raises(WorkloadError) as info:
        Simulation(_objects(job))
    err = info.value
    assert (err.obj, err.path, err.exit_code) == ("Job/ml/batch", "spec.completions", 2)
    assert err.message == f"Invalid value: 1000000000: drasim creates and simulates every pod and takes at most " \
                          f"{LIMIT:,} pods from workloads (a Job creates a pod for each completion)"
    # The completions are the Job's share of the limit, whatever its parallelism.
    assert check_workloads(_objects(_workload("Job", "a", 1, completions=LIMIT))) == []
    errors = check_workloads(_objects(_workload("Job", "a", 1, completions=LIMIT - 1), _workload("Job", "b", 1,
                                                                                                 completions=2)))
    assert [(e.obj, e.path) for e in errors] == [("Job/ml/b", "spec.completions")]
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(job))
    exc = CliRunner().invoke(cli, ["simulate", "-f", str(path)]).exception
    assert isinstance(exc, InputError) and exc.exit_code == 2
    assert "Job/ml/batch: spec.completions: Invalid value: 1000000000" in str(exc)


def test_a_timeline_applying_too_many_replicas_is_refused_with_its_file() -> None:
    timeline = parse_timeline({"apiVersion": "drasim.dev/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                               "spec": {"events": [{"at": "1m", "action": "apply",
                                                    "object": _workload("Deployment", "web", 10**9)}]}},
                              source="timeline.yaml")
    with pytest.raises(WorkloadError) as info:
        Simulation([], [timeline])
    err = info.value
    assert (err.source, err.obj, err.path) == ("timeline.yaml", "Deployment/ml/web", "spec.replicas")
    assert "(applied by Timeline/t spec.events[0])" in err.message


def test_simulate_exits_2_naming_the_object(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(_workload("Deployment", "web", 2**31 - 1)))
    monkeypatch.setattr(sys, "argv", ["drasim", "simulate", "-f", str(path)])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    assert f"{path}: Deployment/ml/web: spec.replicas: Invalid value: 2147483647" in capsys.readouterr().err


def test_capacity_max_beyond_the_limit(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=f"--max must be between 0 and {LIMIT:,}"):
        capacity([], _objects(_workload("Deployment", "web", 1)), max_replicas=LIMIT + 1)
    path = tmp_path / "w.json"
    path.write_text(json.dumps(_workload("Deployment", "web", 1)))
    res = CliRunner().invoke(cli, ["capacity", "--workload", str(path), "--max", str(LIMIT + 1)])
    assert res.exit_code == 2 and "--max" in res.output


def _sweep(tmp_path: Path, spec: dict[str, Any]) -> str:
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(_workload("Deployment", "web", 1)))
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "drasim.dev/v1alpha1", "kind": "Sweep",
                                    "spec": {"fleet": [{"nodes": "h100", "counts": [1]}], "workloads": ["w.yaml"],
                                             **spec}}))
    return str(path)


def test_sweep_grids_and_replica_counts_beyond_the_limits(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_sweep(_sweep(tmp_path, {"seeds": list(range(1000)), "fleet": [
            {"nodes": "h100", "counts": list(range(1000))}]}))
    assert info.value.path == "spec" and "the grid has 1,000,000 points (1000 x 1 x 1000)" in info.value.message
    with pytest.raises(InputError) as info:
        load_sweep(_sweep(tmp_path, {"replicas": {"web": [1, 10**9]}}))
    assert info.value.path == "spec.replicas.web" and "Invalid value: 1000000000" in info.value.message
    assert len(load_sweep(_sweep(tmp_path, {"replicas": {"web": [1, LIMIT]}})).points()) == 2


def test_sweep_node_counts_beyond_the_fleet_limit(tmp_path: Path) -> None:
    # Every point builds its fleet: a billion nodes would be built until memory runs out, as with `fleet`.
    with pytest.raises(InputError) as info:
        load_sweep(_sweep(tmp_path, {"fleet": [{"nodes": "h100", "counts": [1, 10**9]}]}))
    assert (info.value.path, info.value.message) == (
        "spec.fleet[0].counts", f"Invalid value: 1000000000: a fleet has at most {MAX_FLEET_NODES:,} nodes in all")
    with pytest.raises(InputError) as info:  # groups of one point add up
        load_sweep(_sweep(tmp_path, {"fleet": [{"nodes": "h100", "counts": [1, MAX_FLEET_NODES]},
                                               {"nodes": "a100-40gb", "counts": [2]}]}))
    assert info.value.path == "spec.fleet" and f"Invalid value: {MAX_FLEET_NODES + 2} (the largest counts summed)" \
        in info.value.message
    assert len(load_sweep(_sweep(tmp_path, {"fleet": [{"nodes": "h100", "counts": [1, MAX_FLEET_NODES]}]})
               ).points()) == 2
    exc = CliRunner().invoke(cli, ["sweep", _sweep(tmp_path, {"fleet": [{"nodes": "h100", "counts": [10**9]}]})]
                             ).exception
    assert isinstance(exc, InputError) and exc.exit_code == 2
    assert "spec.fleet[0].counts: Invalid value: 1000000000" in str(exc)
