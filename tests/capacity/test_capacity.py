"""drasim capacity: replicas added one at a time agree with a simulation that has them from the start, and the
batched search gives exactly the answer of the one-at-a-time loop it replaced (kept here as the reference)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.core import Job, Pod
from drasim.api.decode import decode_documents
from drasim.api.encode import to_json
from drasim.cli.capacity import capacity_cmd
from drasim.cluster import Key
from drasim.fleet.generate import NodeSpec, generate_fleet
from drasim.sim import capacity as capacity_module
from drasim.sim.capacity import CapacityResult, capacity, split_workload
from drasim.sim.engine import Simulation, simulate
from drasim.sim.report import claim_lines, mix_label, pod_lines, workload_mix
from drasim.sim.timeline import Apply, execute

TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
    "metadata": {"name": "h100-else-a100", "namespace": "default"},
    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
        {"name": "h100", "deviceClassName": "gpu.nvidia.com", "count": 1, "selectors": [
            {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].productName.contains("H100")'}}]},
        {"name": "a100-pair", "deviceClassName": "gpu.nvidia.com", "count": 2, "selectors": [
            {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].productName.contains("A100")'}}]},
    ]}]}}},
}


def _deployment(replicas: int, cpu: str = "1") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "inference", "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "inference"}}, "template": {
                "metadata": {"labels": {"app": "inference"}},
                "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "h100-else-a100"}],
                         "containers": [{"name": "c", "image": "x", "resources": {
                             "requests": {"cpu": cpu}, "claims": [{"name": "gpu"}]}}]}}}}


def _decode(*docs: dict[str, Any]) -> list[Any]:
    return list(decode_documents(list(docs), source="test").objects)


def _fleet(h100: int, a100: int, gpus: int) -> list[Any]:
    specs = [NodeSpec("h100", count=h100, gpus_per_node=gpus)] if h100 else []
    specs += [NodeSpec("a100-80gb", count=a100, gpus_per_node=gpus)] if a100 else []
    return list(generate_fleet(specs).objects)


def _mix_and_pending(objects: list[Any]) -> tuple[dict[str, int], int]:
    lines = pod_lines(simulate(objects))
    mix = {m.workload: m for m in workload_mix(lines)}.get("Deployment/inference")
    return (dict(mix.mix) if mix else {}), sum(1 for line in lines if line.status == "Pending")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h100=st.integers(0, 2), a100=st.integers(0, 2), gpus=st.integers(1, 3), base=st.integers(0, 3),
       cpu=st.sampled_from(["1", "40"]))
def test_capacity_agrees_with_a_simulation_that_adds_the_replicas(h100: int, a100: int, gpus: int, base: int,
                                                                  cpu: str) -> None:
    if h100 + a100 == 0:
        h100 = 1
    fleet = _fleet(h100, a100, gpus)
    cluster = [*fleet, *_decode(TEMPLATE, _deployment(base, cpu))]
    result = capacity(cluster, _decode(_deployment(base, cpu)), max_replicas=40)
    assert result.stop_reason != "MaxReplicas"
    base_mix, base_pending = _mix_and_pending(cluster)
    mix, pending = _mix_and_pending([*fleet, *_decode(TEMPLATE, _deployment(base + result.replicas, cpu))])
    assert pending == base_pending
    added = {alt: n - base_mix.get(alt, 0) for alt, n in mix.items() if n - base_mix.get(alt, 0)}
    assert added == result.by_alternative
    assert sum(result.by_alternative.values()) == result.replicas
    _, pending = _mix_and_pending([*fleet, *_decode(TEMPLATE, _deployment(base + result.replicas + 1, cpu))])
    assert pending == base_pending + 1


def _write(path: Path, *docs: dict[str, Any]) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(docs)}))
    return str(path)


def test_cli_text_json_and_max(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    (cluster / "fleet.json").write_bytes(to_json(_fleet(1, 1, 4), as_list=True))
    workload = _write(tmp_path / "w.json", TEMPLATE, _deployment(1))
    res = CliRunner().invoke(capacity_cmd, ["-f", str(cluster), "--workload", workload])
    assert res.exit_code == 0, res.output
    assert res.output.startswith(
        "6 more replicas fit: 4 via gpu/h100, 2 via gpu/a100-pair; the 7th fails: 0/2 nodes are available")
    res = CliRunner().invoke(capacity_cmd, ["-f", str(cluster), "--workload", workload, "-o", "json", "--max", "3"])
    out = json.loads(res.output)
    assert out["replicas"] == 3 and sum(out["byAlternative"].values()) == 3
    assert set(out["byAlternative"]) <= {"gpu/h100", "gpu/a100-pair"}
    assert (out["stopReason"], out["message"], out["failedPod"]) == ("MaxReplicas", "", None)


def test_bare_pod_copies_and_bad_workload(tmp_path: Path) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}
    taken = {**pod, "metadata": {"name": "p-2", "namespace": "default"}}
    result = capacity([*_fleet(1, 0, 1), *_decode(taken)], _decode(pod), max_replicas=3)
    assert [p for p, _, _ in result.placements] == ["default/p-1", "default/p-3", "default/p-4"]
    assert result.by_alternative == {"no devices": 3} and result.stop_reason == "MaxReplicas"
    res = CliRunner().invoke(capacity_cmd, ["--workload", _write(tmp_path / "t.json", TEMPLATE)])
    assert res.exit_code != 0 and "expected exactly one Pod" in str(res.exception)


# --- the batched search against the loop it replaced ------------------------------------------------

def _pod_spec(cpu: str, claims: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if claims:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "h100-else-a100"}]
        spec["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return spec


def _subject(kind: str, replicas: int, cpu: str, claims: bool = True) -> dict[str, Any]:
    meta = {"name": "inference", "namespace": "default"}
    template = {"metadata": {"labels": {"app": "inference"}}, "spec": _pod_spec(cpu, claims)}
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": _pod_spec(cpu, claims)}
    if kind == "Job":
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
                "spec": {"parallelism": replicas, "completions": replicas, "template": template}}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": meta, "spec": {
        "replicas": replicas, "selector": {"matchLabels": {"app": "inference"}}, "template": template}}


# --- the reference: the loop `drasim capacity` ran before the search --------------------------------

def _reference_replica(subject: Any, base: int, i: int, taken: dict[Key, Any]) -> Any:
    obj = copy.deepcopy(subject)
    if isinstance(obj, Pod):
        stem = obj.metadata.name or (obj.metadata.generate_name or "pod").rstrip("-")
        ns = obj.metadata.namespace or "default"
        n = i
        while (ns, f"{stem}-{n}") in taken:
            n += 1
        obj.metadata.name = f"{stem}-{n}"
        obj.metadata.generate_name = None
        obj.metadata.uid = None
        return obj
    if isinstance(obj, Job):
        obj.spec.parallelism = obj.spec.completions = base + i
    else:
        obj.spec.replicas = base + i
    return obj


def one_at_a_time(objects: Sequence[Any], workload: Sequence[Any], max_replicas: int) -> CapacityResult:
    """Add one replica, run one engine round, until a new pod stays Pending or `max_replicas` fit."""
    subject, extras = split_workload(workload)
    sim = Simulation(objects)
    sim.run()
    state, seed = sim.state, sim.options.seed
    if extras:
        sim.events += execute(state, Apply(tuple(extras)), seed=seed)
    base = capacity_module._base_replicas(sim, subject)
    mix: Counter[str] = Counter()
    placements: list[tuple[str, str, str]] = []
    for i in range(1, max_replicas + 1):
        before = set(state.pods)
        sim.events += execute(state, Apply((_reference_replica(subject, base, i, state.pods),)), seed=seed)
        sim.step()
        new = sorted(k for k in state.pods if k not in before)
        if not new:
            return CapacityResult(len(placements), capacity_module._ordered(mix), "NoNewPod",
                                  f"replica {base + i} created no pod (does the workload's controller stop "
                                  "at its completions?)", None, placements)
        for key in new:
            pod = state.pods[key]
            name = f"{key[0]}/{key[1]}"
            if not pod.spec.node_name:
                record = sim.pods.get(key)
                message = record.message if record is not None and record.message else \
                    "waiting for its ResourceClaims to be created"
                status = record.status if record is not None else "Pending"
                return CapacityResult(len(placements), capacity_module._ordered(mix), status, message, name,
                                      placements)
            label = mix_label(claim_lines(state, pod))
            mix[label] += 1
            placements.append((name, pod.spec.node_name, label))
    return CapacityResult(len(placements), capacity_module._ordered(mix), "MaxReplicas", "", None, placements)


# --- properties -----------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(h100=st.integers(0, 3), a100=st.integers(0, 2), gpus=st.integers(1, 4), base=st.integers(0, 3),
       kind=st.sampled_from(["Deployment", "ReplicaSet", "StatefulSet", "Job", "Pod"]),
       cpu=st.sampled_from(["1", "30", "90"]), claims=st.booleans(), in_cluster=st.booleans(),
       pending=st.booleans(), changed=st.booleans(), max_replicas=st.integers(0, 30))
def test_search_equals_the_one_at_a_time_loop(h100: int, a100: int, gpus: int, base: int, kind: str, cpu: str,
                                              claims: bool, in_cluster: bool, pending: bool, changed: bool,
                                              max_replicas: int) -> None:
    if h100 + a100 == 0:
        h100 = 1
    cluster = [*_fleet(h100, a100, gpus), *_decode(TEMPLATE)]
    if in_cluster:  # `changed`: the file's template differs, so the first replica replaces the ReplicaSet
        cluster += _decode(_subject(kind, base, "2" if changed else cpu, claims))
    if pending:  # a pod that never fits: every round retries it, so replicas go one at a time
        cluster += _decode({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge", "namespace": "default"},
                            "spec": {"containers": [{"name": "c", "image": "x",
                                                     "resources": {"requests": {"cpu": "100000"}}}]}})
    workload = _decode(_subject(kind, base, cpu, claims))
    expected = one_at_a_time(cluster, workload, max_replicas)
    assert capacity(cluster, workload, max_replicas=max_replicas) == expected


def test_a_batch_that_cannot_be_read_runs_again_one_at_a_time_from_there(monkeypatch: pytest.MonkeyPatch) -> None:
    # A foreign pod under the name of the StatefulSet's 10th pod: the batch of 8 replicas (8..15) makes 7 pods.
    foreign = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "inference-9", "namespace": "default"},
               "spec": _pod_spec("1", False)}
    cluster = [*_fleet(2, 0, 8), *_decode(TEMPLATE, foreign)]
    workload = _decode(_subject("StatefulSet", 0, "1"))
    expected = one_at_a_time(cluster, workload, 40)
    assert (expected.replicas, expected.stop_reason) == (9, "NoNewPod")
    runs = 0
    run = Simulation.run

    def counted(self: Simulation) -> Any:
        nonlocal runs
        runs += 1
        return run(self)

    monkeypatch.setattr(Simulation, "run", counted)
    assert capacity(cluster, workload, max_replicas=40) == expected
    assert runs == 2


@pytest.mark.parametrize(("replicas", "fit"), [(300, 256), (200, 200)])
def test_batches_take_a_logarithmic_number_of_rounds(monkeypatch: pytest.MonkeyPatch, replicas: int,
                                                     fit: int) -> None:
    rounds = 0
    step = Simulation.step

    def counted(self: Simulation) -> None:
        nonlocal rounds
        rounds += 1
        step(self)

    monkeypatch.setattr(Simulation, "step", counted)
    cluster = [*_fleet(32, 0, 8), *_decode(TEMPLATE)]
    result = capacity(cluster, _decode(_subject("Deployment", 0, "1")), max_replicas=replicas)
    assert result.replicas == fit
    assert rounds <= 10  # 1, 2, 4, ... 128 (and the batch that fails): not one round per replica
