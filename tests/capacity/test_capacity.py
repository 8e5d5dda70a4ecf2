"""drasim capacity: replicas added one at a time agree with a simulation that has them from the start."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_documents
from drasim.api.encode import to_json
from drasim.cli.capacity import capacity_cmd
from drasim.fleet.generate import NodeSpec, generate_fleet
from drasim.sim.capacity import capacity
from drasim.sim.engine import simulate
from drasim.sim.report import pod_lines, workload_mix

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
