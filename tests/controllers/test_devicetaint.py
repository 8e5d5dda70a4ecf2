"""NoExecute eviction: which taints count, eviction times with tolerationSeconds, eviction, cancellation."""

from __future__ import annotations

import pytest
from dra_objects import T0, at, claim, pod, result, rule, slice_, taint, tol

from drasim.cluster import ClusterState
from drasim.controllers import devicetaint as dt
from drasim.controllers import resourceclaim as rc


def cluster(*objs: object, now_seconds: float = 0) -> ClusterState:
    return ClusterState.from_objects(objs, now=at(now_seconds))


def one_pod(*tolerations: object, taints: list | None = None, rules: tuple = ()) -> ClusterState:
    p = pod("train-0", "ml", claims={"gpu": "c"})
    c = claim("c", "ml", devices=["gpu-0"], reserved=[p], tolerations=tolerations)  # type: ignore[arg-type]
    return cluster(p, c, slice_(taints={"gpu-0": taints if taints is not None else [taint()]}), *rules)


# --- eviction times -------------------------------------------------------------------------------

def test_untolerated_taint_evicts_at_time_added() -> None:
    state = one_pod()
    ev = dt.pod_eviction(state, state.pods[("ml", "train-0")])
    assert ev is not None and ev.when == T0
    assert [str(r) for r in ev.reasons] == ["ResourceSlice node-1-gpus gpu.example.com/node-1/gpu-0 taint #0"]


@pytest.mark.parametrize(("tolerations", "delay"), [
    ([tol(seconds=300)], 300),
    ([tol(seconds=300), tol(seconds=60)], 60),  # smallest matching
    ([tol(seconds=-5)], 0),  # negative counts as 0
    ([tol(seconds=0)], 0),
    ([tol(key="other", seconds=300)], 0),  # does not match: immediately
    ([tol(effect=None, seconds=300)], 0),  # QUIRK: effect-less tolerations do not count here
    ([tol(effect="NoSchedule", seconds=300)], 0),
    ([tol(operator="Equal", value="x", seconds=120)], 0),  # value mismatch
    ([tol(key=None, seconds=30)], 30),  # key-less Exists matches every key
])
def test_eviction_delay(tolerations: list, delay: int) -> None:
    state = one_pod(*tolerations)
    assert dt.next_eviction_time(state) == at(delay)


def test_toleration_without_seconds_tolerates_forever_even_next_to_a_timed_one() -> None:
    for tolerations in ([tol()], [tol(seconds=10), tol()], [tol(), tol(seconds=10)]):
        state = one_pod(*tolerations)
        assert dt.pending_evictions(state) == {}
        assert dt.next_eviction_time(state) is None


def test_earliest_over_devices_and_claims() -> None:
    p = pod("a", claims={"one": "c1", "two": "c2"})
    c1 = claim("c1", devices=[result("gpu-0", tolerations=[tol(seconds=600)])], reserved=[p])
    c2 = claim("c2", devices=[result("gpu-1", tolerations=[tol(seconds=120)])], reserved=[p])
    s = slice_(taints={"gpu-0": [taint()], "gpu-1": [taint(added=at(30))]})
    state = cluster(p, c1, c2, s)
    ev = dt.pod_eviction(state, p)
    assert ev is not None and ev.when == at(150)
    assert len(ev.reasons) == 2  # both taints are reasons, not only the earliest


def test_only_noexecute_taints_of_the_newest_generation_count() -> None:
    p = pod("a", claims={"gpu": "c"})
    c = claim("c", reserved=[p])
    old = slice_("old", generation=1, taints={"gpu-0": [taint()]})
    new = slice_("new", generation=2, taints={"gpu-0": [taint(effect="NoSchedule"), taint(effect="None")]})
    assert dt.pending_evictions(cluster(p, c, old, new)) == {}
    assert dt.pending_evictions(cluster(p, c, old)) != {}


def test_rules_select_by_driver_pool_device_and_nil_selects_nothing() -> None:
    def evicted(r: object) -> bool:
        return bool(dt.pending_evictions(one_pod(taints=[], rules=(r,))))

    assert evicted(rule(device="gpu-0"))
    assert not evicted(rule(device="gpu-1"))
    assert evicted(rule(driver=None, pool="node-1"))
    assert evicted(rule(driver=None))  # empty selector {}: every device
    assert not evicted(rule(selector=False))  # no selector: nothing
    assert not evicted(rule(effect="NoSchedule"))
    assert not evicted(rule(effect="None"))


def test_rule_taints_apply_to_devices_no_longer_published() -> None:
    p = pod("a", claims={"gpu": "c"})
    state = cluster(p, claim("c", devices=["gone"], reserved=[p]), rule(device="gone"))
    assert dt.pending_evictions(state)


def test_reasons_list_rules_by_name_before_slice_taints() -> None:
    state = one_pod(rules=(rule("zeta"), rule("alpha")))
    ev = dt.pending_evictions(state)[("ml", "train-0")]
    assert [str(r) for r in ev.reasons] == [
        "DeviceTaintRule alpha", "DeviceTaintRule zeta",
        "ResourceSlice node-1-gpus gpu.example.com/node-1/gpu-0 taint #0"]


def test_pods_not_reserved_unscheduled_or_not_owning_are_ignored() -> None:
    p = pod("a", claims={"gpu": "c"})
    stranger = pod("a", uid="replacement", claims={"gpu": "c"})
    s = slice_(taints={"gpu-0": [taint()]})
    assert not dt.pending_evictions(cluster(stranger, claim("c", reserved=[p]), s))
    unscheduled = pod("a", claims={"gpu": "c"}, node=None)
    assert not dt.pending_evictions(cluster(unscheduled, claim("c", reserved=[unscheduled]), s))
    owner = pod("a", uid="owner")
    templated = pod("a", templates={"gpu": "t"}, statuses={"gpu": "c"})
    assert not dt.pending_evictions(cluster(templated, claim("c", reserved=[templated], owner=owner), s))
    assert dt.pending_evictions(cluster(templated, claim("c", reserved=[templated], owner=templated), s))


# --- evicting -------------------------------------------------------------------------------------

def test_evict_due_marks_and_deletes_then_claims_are_released() -> None:
    p = pod("a", templates={"gpu": "t"}, statuses={"gpu": "c"})
    c = claim("c", reserved=[p], owner=p)
    state = cluster(p, c, slice_(taints={"gpu-0": [taint()]}))
    tracker = dt.EvictionTracker()
    events = dt.evict_due(state, tracker)
    assert [(e.kind, e.object, e.reason, e.message) for e in events] == [
        ("Normal", "Pod/default/a", "DeviceTaintManagerEviction", "Marking for deletion")]
    assert ("default", "a") not in state.pods
    _, evicted, _ = tracker.evicted[0]
    assert evicted.status is not None
    cond, = evicted.status.conditions
    assert (cond.type, cond.status, cond.reason, cond.message) == (
        "DisruptionTarget", "True", "DeletionByDeviceTaintManager",
        "Device Taint manager: deleting due to NoExecute taint")
    assert [e.reason for e in rc.sync(state)] == [
        "ReservationRemoved", "DeallocatedResourceClaim", "DeletedResourceClaim"]
    assert not state.in_use.devices


def test_eviction_waits_for_toleration_seconds() -> None:
    state = one_pod(tol(seconds=300))
    tracker = dt.EvictionTracker()
    state.now = at(299)
    assert dt.evict_due(state, tracker) == []
    assert list(tracker.pending) == [("ml", "train-0")]
    assert dt.next_eviction_time(state) == at(300)
    state.now = at(300)
    assert [e.message for e in dt.evict_due(state, tracker)] == ["Marking for deletion"]
    assert not state.pods and not tracker.pending


def test_cancellation_when_the_taint_goes_away() -> None:
    state = one_pod(tol(seconds=300))
    tracker = dt.EvictionTracker()
    dt.evict_due(state, tracker)
    state.slices["node-1-gpus"].spec.devices[0].taints.clear()
    state.slices_changed()
    state.now = at(400)
    events = dt.evict_due(state, tracker)
    assert [(e.reason, e.message) for e in events] == [("DeviceTaintManagerEviction", "Cancelling deletion")]
    assert ("ml", "train-0") in state.pods and not tracker.pending
    assert dt.next_eviction_time(state) is None


def test_cancellation_when_the_rule_is_deleted() -> None:
    state = one_pod(tol(seconds=60), taints=[], rules=(rule(),))
    tracker = dt.EvictionTracker()
    dt.evict_due(state, tracker)
    del state.taint_rules["drain"]
    assert [e.message for e in dt.evict_due(state, tracker)] == ["Cancelling deletion"]


def test_no_cancel_event_for_a_pod_that_went_away() -> None:
    state = one_pod(tol(seconds=60))
    tracker = dt.EvictionTracker()
    dt.evict_due(state, tracker)
    del state.pods[("ml", "train-0")]
    assert dt.evict_due(state, tracker) == [] and not tracker.pending


def test_evictions_are_counted_per_rule_and_forgotten_with_the_rule() -> None:
    state = one_pod(taints=[], rules=(rule("r1"), rule("r2", device="gpu-1")))
    tracker = dt.EvictionTracker()
    dt.evict_due(state, tracker)
    assert tracker.evicted_by_rule == {"r1": 1}
    del state.taint_rules["r1"]
    dt.evict_due(state, tracker)
    assert tracker.evicted_by_rule == {}


def test_missing_time_added_is_stamped_with_the_creation_time_or_now() -> None:
    state = one_pod(taints=[taint(added=None)], rules=(rule(added=None),))
    state.now = at(42)
    assert dt.stamp_time_added(state)
    assert state.taint_rules["drain"].spec.taint.time_added == at(42)
    assert state.slices["node-1-gpus"].spec.devices[0].taints[0].time_added == at(42)
    assert not dt.stamp_time_added(state)


def test_deleting_pods_are_not_evicted_again() -> None:
    state = one_pod()
    state.pods[("ml", "train-0")].metadata.deletion_timestamp = T0
    assert dt.evict_due(state) == []
