"""Score plugins on small hand-computed cases (scheduler-core §7 and §13)."""

from __future__ import annotations

from helpers import build, node, pod, replica_set

from drasim.api.core import Pod
from drasim.cluster import ClusterState
from drasim.scheduler import Scheduler
from drasim.scheduler import scores as sc

GI = 1 << 30


def _scores(state: ClusterState, p: Pod) -> dict[str, dict[str, int]]:
    result = Scheduler(  # every node is scored (no sampling below 100 nodes anyway)
    ).schedule_one(state, p)
    assert result.status == "Scheduled", result.message
    return {s.node: s.plugins for s in result.scores}


def _bound(name: str, node_name: str, cpu: str | None = None, memory: str | None = None,
           labels: dict[str, str] | None = None) -> Pod:
    p = pod(name, cpu=cpu, memory=memory, labels=labels)
    p.spec.node_name = node_name
    return p


def test_least_allocated_worked_example() -> None:
    assert sc.least_allocated(4000, 16 * GI, 1000 + 500, 4 * GI + 2 * GI) == 62
    alloc = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    state = ClusterState.from_objects([node("busy", allocatable=alloc), node("idle", allocatable=alloc),
                                       _bound("old", "busy", cpu="1", memory="4Gi")])
    got = _scores(state, pod("new", cpu="500m", memory="2Gi"))
    assert got["busy"]["NodeResourcesFit"] == 62
    assert got["idle"]["NodeResourcesFit"] == 87  # (4000-500)·100//4000 = 87, (16-2)·100//16 = 87


def test_least_allocated_counts_default_requests_for_containers_without_them() -> None:
    alloc = {"cpu": "1", "memory": "1000Mi", "pods": "110"}
    state = ClusterState.from_objects([node("a", allocatable=alloc), node("b", allocatable=alloc),
                                       _bound("old", "a")])  # counts as 100m / 200Mi
    got = _scores(state, pod("new"))
    assert got["a"]["NodeResourcesFit"] == (80 + 60) // 2  # cpu (1000-200)·100//1000, memory (1000-400)/1000
    assert got["b"]["NodeResourcesFit"] == (90 + 80) // 2
    assert "NodeResourcesBalancedAllocation" not in got["a"]  # best-effort pod: the plugin skips


def test_balanced_allocation_worked_examples() -> None:
    assert sc.balanced_allocation(4000, 16 * GI, 1000, 4 * GI, 500, 2 * GI) == 75
    assert sc.balanced_allocation(4000, 10 * GI, 2000, 1 * GI, 0, 3 * GI) == 82
    state = ClusterState.from_objects([
        node("a", allocatable={"cpu": "4", "memory": "10Gi", "pods": "110"}),
        node("b", allocatable={"cpu": "4", "memory": "10Gi", "pods": "110"}),
        _bound("old", "a", cpu="2", memory="1Gi")])
    got = _scores(state, pod("new", memory="3Gi"))
    assert got["a"]["NodeResourcesBalancedAllocation"] == 82
    assert got["b"]["NodeResourcesBalancedAllocation"] == 50 + (50 + 85 - 100) // 2  # (0, .3) vs (0, 0)


def test_taint_toleration_prefers_nodes_without_untolerated_prefer_no_schedule_taints() -> None:
    state = ClusterState.from_objects([
        node("tainted", taints=[{"key": "gpu", "value": "true", "effect": "PreferNoSchedule"}]),
        node("clean"), node("tolerated-too", taints=[{"key": "other", "effect": "PreferNoSchedule"}])])
    got = _scores(state, pod("p", tolerations=[{"key": "other", "operator": "Exists"}]))
    assert {n: p["TaintToleration"] for n, p in got.items()} == {"tainted": 0, "clean": 300, "tolerated-too": 300}


def test_node_affinity_preferred_terms() -> None:
    state = ClusterState.from_objects([node("one", labels={"a": "1"}), node("both", labels={"a": "1", "b": "1"}),
                                       node("none")])
    preferred = [{"weight": 10, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}},
                 {"weight": 5, "preference": {"matchExpressions": [{"key": "b", "operator": "In", "values": ["1"]}]}}]
    got = _scores(state, pod("p", affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution":
                                                             preferred}}))
    assert {n: p["NodeAffinity"] for n, p in got.items()} == {"one": 2 * (100 * 10 // 15), "both": 200, "none": 0}


def test_pod_topology_spread_system_defaults_worked_example() -> None:
    web = {"app": "web"}
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web", "uid": "uid-rs", "controller": True}]
    existing = []
    for i, where in enumerate(["A", "A", "C"]):
        p = build(Pod, {"metadata": {"name": f"old-{i}", "namespace": "default", "labels": web,
                                     "ownerReferences": owner}, "spec": {"nodeName": where}})
        existing.append(p)
    zone = "topology.kubernetes.io/zone"
    state = ClusterState.from_objects([node("A", labels={zone: "z1"}), node("B", labels={zone: "z1"}),
                                       node("C", labels={zone: "z2"}), replica_set("web", web), *existing])
    new = build(Pod, {"metadata": {"name": "new", "namespace": "default", "labels": web, "ownerReferences": owner}})
    got = _scores(state, new)
    assert {n: p["PodTopologySpread"] for n, p in got.items()} == {"A": 150, "B": 200, "C": 200}
    # Bare pods (no controller) and pods of a ReplicaSet drasim does not know get no spreading at all.
    assert all("PodTopologySpread" not in p for p in _scores(state, pod("bare", labels=web)).values())


def test_dra_score_normalisation() -> None:
    assert sc.default_normalize([8, 6]) == [100, 75]
    assert sc.default_normalize([0, 0]) == [0, 0]
    assert sc.default_normalize([1, 0], reverse=True) == [0, 100]
    assert sc.spread_normalize([12, 9, 9], [False, False, False]) == [75, 100, 100]
    assert sc.spread_normalize([0, 0], [False, True]) == [100, 0]
