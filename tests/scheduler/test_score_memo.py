"""Score's per-class results reused by class mix (framework._score_memo_key) equal scoring every cycle afresh.

Generated clusters: nodes with and without a zone label, PreferNoSchedule taints, different CPU sizes; up to 8
workloads (alike ones share a plan and its memo) with the owner's default spreading, their own ScheduleAnyway
constraints on the zone or the hostname, `nodeAffinityPolicy`-free and `matchLabelKeys`-free. Every cycle's
full ranking (nodes, totals, plugin scores) and every placement is the same with the memo on and off.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from drasim.allocator.versions import features_for_version
from drasim.cli.simulate import load_inputs
from drasim.scheduler import framework, spread
from drasim.scheduler.framework import Scheduler
from drasim.sim.engine import Simulation, SimulationOptions
from hypothesis_budget import examples

ZONE = "topology.kubernetes.io/zone"


@st.composite
def clusters(draw: st.DrawFn) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    zones = draw(st.sampled_from([[None], [None, "a", "b"]]))  # no zones at all: every cycle memoisable
    for n in range(draw(st.integers(1, 24))):
        name = f"node-{n}"
        labels = {"kubernetes.io/hostname": name}
        zone = draw(st.sampled_from(zones))
        if zone is not None:
            labels[ZONE] = zone
        node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                                "status": {"allocatable": {"cpu": str(draw(st.integers(2, 6))), "memory": "32Gi",
                                                           "pods": "110"}}}
        if draw(st.booleans()):
            node["spec"] = {"taints": [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]}
        docs.append(node)
    for w in range(draw(st.integers(1, 8))):  # several alike workloads share one plan and its memo
        name = f"w{w}"
        spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i", "resources": {"requests": {
            "cpu": draw(st.sampled_from(["250m", "500m", "1"]))}}}]}
        own = draw(st.sampled_from([None, ZONE, "kubernetes.io/hostname"]))
        if own is not None:
            spec["topologySpreadConstraints"] = [{"maxSkew": draw(st.integers(1, 3)), "topologyKey": own,
                                                  "whenUnsatisfiable": "ScheduleAnyway",
                                                  "labelSelector": {"matchLabels": {"app": name}}}]
        docs.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
                     "spec": {"replicas": draw(st.integers(1, 30)), "selector": {"matchLabels": {"app": name}},
                              "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}})
    return docs


def _run(docs: list[dict[str, Any]], memo: bool, monkeypatch: pytest.MonkeyPatch, by_position: bool = True
         ) -> tuple[Any, ...]:
    monkeypatch.setattr(framework, "SCORE_MEMO", memo)
    monkeypatch.setattr(spread, "BY_POSITION", by_position)
    rankings: list[Any] = []
    keys: list[Any] = []
    key_of = framework._score_memo_key

    def keying(*args: Any) -> Any:
        keys.append(key_of(*args))
        return keys[-1]

    monkeypatch.setattr(framework, "_score_memo_key", keying)
    original = Scheduler._score

    def recording(self: Scheduler, *args: Any) -> Any:
        ranking = original(self, *args)
        rankings.append([(s.node, s.total, dict(s.plugins)) for s in ranking.nodes()])
        return ranking

    monkeypatch.setattr(Scheduler, "_score", recording)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
        objects, timelines, _ = load_inputs([str(path)])
    result = Simulation(objects, timelines, SimulationOptions(features=features_for_version("1.36"))).run()
    if memo:
        kept = [k for k in keys if k is not None]
        event("a class mix scored again" if len(set(kept)) < len(kept) else "no class mix repeated")
        event(f"{len(kept)} of {len(keys)} cycles memoisable")
    return rankings, {k: p.spec.node_name for k, p in result.state.pods.items()}


@settings(max_examples=examples(60), deadline=None)
@given(clusters())
def test_memoised_scores_equal_fresh_ones(docs: list[dict[str, Any]]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        fresh = _run(docs, False, monkeypatch)
    with pytest.MonkeyPatch.context() as monkeypatch:
        memoised = _run(docs, True, monkeypatch)
    assert memoised == fresh


@settings(max_examples=examples(30), deadline=None)
@given(clusters())
def test_hostname_counts_found_by_position_equal_by_map(docs: list[dict[str, Any]]) -> None:
    """spread.count_on_hosts finds a selector's nodes among the feasible ones by position or by a map."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        mapped = _run(docs, True, monkeypatch, by_position=False)
    with pytest.MonkeyPatch.context() as monkeypatch:
        bisected = _run(docs, True, monkeypatch)
    assert bisected == mapped
