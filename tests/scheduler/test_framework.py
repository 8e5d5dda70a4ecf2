"""The cycle around the plugins: sampling, scan order, tie-break, queue, resource filters, caches."""

from __future__ import annotations

import random

import msgspec
import pytest
from helpers import build, claim, device_class, exact, gpu, gpu_slice, node, pod

from drasim.api.core import Pod
from drasim.cluster import ClusterState
from drasim.scheduler import Scheduler, SchedulerConfig, num_feasible_nodes_to_find
from drasim.scheduler.framework import node_tree_order


@pytest.mark.parametrize(("nodes", "want"), [(50, 50), (100, 100), (500, 230), (1000, 420), (5000, 500),
                                             (6000, 300)])
def test_num_feasible_nodes_to_find(nodes: int, want: int) -> None:
    assert num_feasible_nodes_to_find(nodes) == want


def test_sampling_and_the_rotating_start_index() -> None:
    state = ClusterState.from_objects([node(f"n{i:03d}") for i in range(500)])
    sched = Scheduler()
    first = sched.schedule_one(state, pod("a", cpu="1"))
    assert len(first.scores) == 230
    assert {s.node for s in first.scores} == {f"n{i:03d}" for i in range(230)}
    assert sched.next_start_node_index == 230
    second = sched.schedule_one(state, pod("b", cpu="1"))
    assert {s.node for s in second.scores} == {f"n{i:03d}" for i in list(range(230, 500)) + list(range(0, 0))} - {
        f"n{i:03d}" for i in range(460, 500)}
    assert sched.next_start_node_index == 460
    everything = Scheduler(SchedulerConfig(score_all_nodes=True)).schedule_one(state, pod("c", cpu="1"))
    assert len(everything.scores) == 500
    pct = Scheduler(SchedulerConfig(percentage_of_nodes_to_score=30)).schedule_one(state, pod("d", cpu="1"))
    assert len(pct.scores) == 150


def test_node_tree_interleaves_zones() -> None:
    zones = ["a", "a", "b", "a", "b", "c"]
    state = ClusterState.from_objects([node(f"n{i}", labels={"topology.kubernetes.io/zone": z})
                                       for i, z in enumerate(zones)])
    assert node_tree_order(state.nodes) == ["n0", "n2", "n5", "n1", "n4", "n3"]
    plain = ClusterState.from_objects([node(f"n{i}") for i in range(3)])
    assert node_tree_order(plain.nodes) == ["n0", "n1", "n2"]


def test_seeded_tie_break_picks_uniformly_among_the_top_nodes_in_scan_order() -> None:
    state = ClusterState.from_objects([node(f"n{i}") for i in range(6)])
    chosen = set()
    for seed in range(20):
        result = Scheduler(SchedulerConfig(seed=seed)).schedule_one(state, pod("p", cpu="1"))
        top = [s.node for s in result.scores if s.total == result.scores[0].total]
        assert top == [f"n{i}" for i in range(6)]  # all equal, listed in scan order
        assert result.node == top[random.Random(seed).randrange(len(top))]
        chosen.add(result.node)
    assert len(chosen) > 1
    again = Scheduler(SchedulerConfig(seed=3)).schedule_one(state, pod("p", cpu="1"))
    assert again.node == Scheduler(SchedulerConfig(seed=3)).schedule_one(state, pod("p", cpu="1")).node


def test_queue_order_is_priority_then_arrival() -> None:
    pods = [pod("a", priority=0), pod("b", priority=10), pod("c"), pod("d", priority=10)]
    state = ClusterState.from_objects(pods)
    assert [p.metadata.name for p in Scheduler.queue_order(state, list(reversed(pods)))] == ["b", "d", "a", "c"]


def test_node_resources_fit_reasons_and_codes() -> None:
    small = {"cpu": "2", "memory": "4Gi", "pods": "1"}
    state = ClusterState.from_objects([node("full", allocatable=small), node("small", allocatable=small)])
    bound = pod("old", cpu="1")
    bound.spec.node_name = "full"
    state.add(bound)
    result = Scheduler().schedule_one(state, pod("p", cpu="1500m", memory="8Gi"))
    assert result.node_reasons == {"full": "Too many pods, Insufficient cpu, Insufficient memory",
                                   "small": "Insufficient memory"}
    assert result.status == "UnschedulableAndUnresolvable"  # memory exceeds the whole node
    assert result.message.startswith("0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods, "
                                     "2 Insufficient memory. no new claims to deallocate, preemption: 0/2 nodes are "
                                     "available: 2 Preemption is not helpful for scheduling.")
    fits_later = Scheduler().schedule_one(state, pod("q", cpu="1500m"))
    assert fits_later.node == "small"
    low = Scheduler().schedule_one(state, pod("r", cpu="1500m", memory="1Gi", priority=5,
                                              nodeSelector={"kubernetes.io/hostname": "full"}))
    # DefaultPreemption's dry run: removing the lower-priority pod would make room, so upstream nominates
    # the node (and the PostFilter message is empty); drasim does not evict.
    assert low.message == ("0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods, "
                           "1 node(s) didn't match Pod's node affinity/selector.")
    assert low.status == "Unschedulable"


def test_pod_topology_spread_do_not_schedule() -> None:
    labels = {"app": "db"}
    zone = "topology.kubernetes.io/zone"
    objs = [node("a1", labels={zone: "a"}), node("a2", labels={zone: "a"}), node("b1", labels={zone: "b"}),
            node("nolabel")]
    for i in range(2):
        p = pod(f"old-{i}", labels=labels)
        p.spec.node_name = "a1"
        objs.append(p)
    state = ClusterState.from_objects(objs)
    new = pod("new", labels=labels, topologySpreadConstraints=[{
        "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": labels}}])
    result = Scheduler().schedule_one(state, new)
    assert result.node == "b1"
    assert result.node_reasons == {
        "a1": "node(s) didn't match pod topology spread constraints",
        "a2": "node(s) didn't match pod topology spread constraints",
        "nolabel": "node(s) didn't match pod topology spread constraints (missing required label)"}


def test_node_name_and_required_affinity_restriction() -> None:
    state = ClusterState.from_objects([node("n1"), node("n2"), node("n3")])
    pinned = Scheduler().schedule_one(state, pod("p", nodeName="n2"))
    assert pinned.node == "n2" and pinned.scores == []
    fields = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]}]}]}}}
    restricted = Scheduler().schedule_one(state, pod("p", affinity=fields, cpu="999"))
    assert restricted.message.startswith("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy "
                                         "plugin(s) [NodeAffinity].")
    conflict = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n3"]},
                         {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
    result = Scheduler().schedule_one(state, pod("p", affinity=conflict))
    assert result.message.startswith("0/3 nodes are available: pod affinity terms conflict. ")


def test_unschedulable_nodes_and_untolerated_taints() -> None:
    state = ClusterState.from_objects([node("cordoned", unschedulable=True),
                                       node("tainted", taints=[{"key": "gpu", "effect": "NoSchedule"}])])
    result = Scheduler().schedule_one(state, pod("p"))
    assert result.node_reasons == {"cordoned": "node(s) were unschedulable",
                                   "tainted": "node(s) had untolerated taint(s)"}
    tolerant = Scheduler().schedule_one(state, pod("p", tolerations=[{"operator": "Exists"}]))
    assert tolerant.status == "Scheduled" and len(tolerant.scores) == 2


def test_schedule_one_does_not_change_the_state() -> None:
    state = ClusterState.from_objects([device_class(), node("n1"), node("n2"), gpu_slice("n1", [gpu(0)]),
                                       gpu_slice("n2", [gpu(0)]), claim("c", [exact()])])
    p = pod("p", ["c"], cpu="1")
    state.add(p)
    before = msgspec.json.encode([state.claims[("default", "c")], p], enc_hook=str)
    in_use = set(state.in_use.devices)
    result = Scheduler().schedule_one(state, p)
    assert result.status == "Scheduled"
    assert msgspec.json.encode([state.claims[("default", "c")], p], enc_hook=str) == before
    assert state.in_use.devices == in_use


def test_caches_follow_pods_finishing_and_claims_deallocated() -> None:
    alloc = {"cpu": "1", "memory": "1Gi", "pods": "110"}
    state = ClusterState.from_objects([device_class(), node("n1", allocatable=alloc), gpu_slice("n1", [gpu(0)]),
                                       claim("c1", [exact()]), claim("c2", [exact()])])
    sched = Scheduler()
    first = pod("first", ["c1"], cpu="1")
    state.add(first)
    sched.apply(state, sched.schedule_one(state, first))
    second = pod("second", ["c2"], cpu="1")
    state.add(second)
    blocked = sched.schedule_one(state, second)
    assert blocked.node_reasons == {"n1": "Insufficient cpu"}
    first.status = build(Pod, {"status": {"phase": "Succeeded"}}).status
    state.pod_changed(("default", "first"))
    assert sched.schedule_one(state, second).node_reasons == {"n1": "cannot allocate all claims"}
    state.set_allocation(("default", "c1"), None)  # the claim controller deallocates the finished pod's claim
    assert sched.schedule_one(state, second).node == "n1"
