"""When the eviction controller writes DeviceTaintRule status: its work queue (dra-semantics §7.3).

Built from upstream pkg/controller/devicetainteviction device_taint_eviction_test.go `TestController`.
"""

from __future__ import annotations

from dra_objects import T0, at, claim, pod, rule, slice_, tol

from drasim.cluster import ClusterState
from drasim.controllers import devicetaint as dt


def _round(state: ClusterState, tracker: dt.EvictionTracker) -> list[str]:
    """What the simulation engine runs per instant: new rules, status, evictions, status."""
    dt.watch_rules(state, tracker)
    out = dt.update_rule_statuses(state, tracker.evicted_by_rule, tracker=tracker)
    out += dt.evict_due(state, tracker)
    out += dt.update_rule_statuses(state, tracker.evicted_by_rule, tracker=tracker)
    return [f"{e.reason}: {e.message}" for e in out]


def _condition(state: ClusterState) -> tuple[str, str, str, object]:
    c = state.taint_rules["drain"].status.conditions[0]  # type: ignore[union-attr]
    return c.status, c.reason or "", c.message or "", c.last_transition_time


def test_evict_pod_rule() -> None:
    """TestController "evict-pod-rule": the initial update (before the eviction) says 1 pod needs to be
    evicted; the final one, ruleStatusPeriod later, says Completed with lastTransitionTime taintTime+10s."""
    p = pod("p0", claims={"gpu": "c0"})
    state = ClusterState.from_objects([slice_(), p, claim("c0", reserved=[p]), rule()], now=T0)
    tracker = dt.EvictionTracker()
    log = _round(state, tracker)
    assert log == [
        "UpdatedStatus: EvictionInProgress=True PodsPendingEviction: 1 pod needs to be evicted in 1 namespace.",
        "DeviceTaintManagerEviction: Marking for deletion"]
    assert ("default", "p0") not in state.pods
    assert _condition(state) == ("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.", T0)
    assert dt.next_rule_status_time(state, tracker=tracker) == at(10)
    state.now = at(10)
    assert _round(state, tracker) == [
        "UpdatedStatus: EvictionInProgress=False Completed: 1 pod evicted since starting the controller."]
    assert _condition(state) == ("False", "Completed", "1 pod evicted since starting the controller.", at(10))
    assert dt.next_rule_status_time(state, tracker=tracker) is None


def test_evict_pod_rule_later() -> None:
    """TestController "evict-pod-rule-later": a toleration delays the eviction; the rule reports the pending
    pod at once, and the Completed condition follows 10 s after the eviction."""
    p = pod("p0", claims={"gpu": "c0"})
    state = ClusterState.from_objects([slice_(), p, claim("c0", reserved=[p], tolerations=[tol(seconds=30)]),
                                       rule()], now=T0)
    tracker = dt.EvictionTracker()
    assert _round(state, tracker) == [
        "UpdatedStatus: EvictionInProgress=True PodsPendingEviction: 1 pod needs to be evicted in 1 namespace."]
    assert dt.next_eviction_time(state) == at(30)
    state.now = at(10)
    assert _round(state, tracker) == []  # the pod's item re-queued at 10 s finds nothing new
    state.now = at(30)
    assert _round(state, tracker) == ["DeviceTaintManagerEviction: Marking for deletion"]
    state.now = at(40)
    assert _round(state, tracker) == [
        "UpdatedStatus: EvictionInProgress=False Completed: 1 pod evicted since starting the controller."]
    assert _condition(state)[3] == at(40)


def test_rule_without_pods_is_written_once() -> None:
    """TestController rule cases without consumers: the initial update is NotStarted, nothing is queued after."""
    state = ClusterState.from_objects([slice_(), rule()], now=T0)
    tracker = dt.EvictionTracker()
    assert _round(state, tracker) == ["UpdatedStatus: EvictionInProgress=False NotStarted: "]
    assert dt.next_rule_status_time(state, tracker=tracker) is None


def test_spec_update_without_new_evictions_queues_nothing() -> None:
    """handleRuleChange only queues a status item for a new rule (and via pods scheduled for eviction)."""
    state = ClusterState.from_objects([slice_(), rule(effect="None")], now=T0)
    tracker = dt.EvictionTracker()
    assert len(_round(state, tracker)) == 1
    state.taint_rules["drain"].metadata.generation = 2
    state.now = at(60)
    assert _round(state, tracker) == []


def test_135_queues_the_status_at_once_after_an_eviction() -> None:
    """Before PR #135611 (1.36) maybeDeletePod queued the rule at once (workqueue.Add): an eviction long after
    the last status write is reported at the eviction instant; 1.36 waits ruleStatusPeriod."""
    from drasim.allocator.versions import features_for_version
    for release, written in (("1.35", at(30)), ("1.36", at(40))):
        p = pod("p0", claims={"gpu": "c0"})
        state = ClusterState.from_objects([slice_(), p, claim("c0", reserved=[p], tolerations=[tol(seconds=30)]),
                                           rule()], now=T0, features=features_for_version(release))
        tracker = dt.EvictionTracker()
        _round(state, tracker)
        state.now = at(30)
        _round(state, tracker)
        nxt = dt.next_rule_status_time(state, tracker=tracker)
        if nxt is not None and nxt > state.now:
            state.now = nxt
            _round(state, tracker)
        assert _condition(state)[1:] == ("Completed", "1 pod evicted since starting the controller.", written)
