"""DeviceTaintRule `EvictionInProgress`: every message form, singular and plural, and when it is written."""

from __future__ import annotations

import pytest
from dra_objects import T0, at, claim, pod, result, rule, slice_, tol

from drasim.cluster import ClusterState
from drasim.controllers import devicetaint as dt

DRY_TAIL = (" if the effect was NoExecute. This information will not be updated again. "
            "Recreate the DeviceTaintRule to trigger an update.")


def pods_in(namespaces: list[str], *, tolerate: bool = False, seconds: int | None = None) -> list[object]:
    """One pod per entry, each with its own claim on its own GPU of one node (plus one free GPU)."""
    objs: list[object] = [slice_(devices=[f"gpu-{i}" for i in range(len(namespaces) + 1)])]
    for i, ns in enumerate(namespaces):
        p = pod(f"p{i}", ns, claims={"gpu": f"c{i}"})
        tolerations = [tol(seconds=seconds)] if tolerate else []
        objs += [p, claim(f"c{i}", ns, devices=[result(f"gpu-{i}", tolerations=tolerations)], reserved=[p])]
    return objs


def status(objs: list[object], r: object, evicted: dict[str, int] | None = None) -> tuple[str, str, str]:
    state = ClusterState.from_objects([*objs, r], now=at(5))
    c = dt.rule_status(state, r, evicted)  # type: ignore[arg-type]
    assert c.type == "EvictionInProgress" and c.last_transition_time == at(5)
    return c.status, c.reason or "", c.message or ""


@pytest.mark.parametrize(("namespaces", "message"), [
    (["a", "b"], "2 pods need to be evicted in 2 different namespaces."),
    (["a"], "1 pod needs to be evicted in 1 namespace."),
    (["a", "a"], "2 pods need to be evicted in 1 namespace."),
    (["a", "b", "b"], "3 pods need to be evicted in 2 different namespaces."),
])
def test_noexecute_pending(namespaces: list[str], message: str) -> None:
    assert status(pods_in(namespaces), rule()) == ("True", "PodsPendingEviction", message)


def test_noexecute_pending_with_evicted_count_matches_the_docs_example() -> None:
    assert status(pods_in(["a", "b"]), rule(), {"drain": 1})[2] == (
        "2 pods need to be evicted in 2 different namespaces. 1 pod evicted since starting the controller.")


def test_noexecute_completed_and_not_started() -> None:
    assert status(pods_in([]), rule(), {"drain": 1}) == (
        "False", "Completed", "1 pod evicted since starting the controller.")
    assert status(pods_in([]), rule(), {"drain": 3}) == (
        "False", "Completed", "3 pods evicted since starting the controller.")
    assert status(pods_in([]), rule(), {"other": 3}) == ("False", "NotStarted", "")


def test_pods_tolerating_forever_are_not_pending() -> None:
    assert status(pods_in(["a"], tolerate=True), rule()) == ("False", "NotStarted", "")


def test_pending_counts_pods_due_later_too() -> None:
    assert status(pods_in(["a"], tolerate=True, seconds=3600), rule())[1] == "PodsPendingEviction"


def test_none_dry_run_plural() -> None:
    # 3 published GPUs, 2 allocated, 2 pods in 2 namespaces.
    assert status(pods_in(["a", "b"]), rule(effect="None")) == ("False", "NoEffect", (
        "3 published devices selected. 2 allocated devices selected. "
        "2 pods would be evicted in 2 different namespaces" + DRY_TAIL))


def test_none_dry_run_every_singular_form() -> None:
    objs = pods_in(["a"])
    assert status(objs, rule(effect="None", device="gpu-0"))[2] == (
        "1 published device selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace"
        + DRY_TAIL)


def test_none_dry_run_zero_and_nil_selector() -> None:
    zero = ("0 published devices selected. 0 allocated devices selected. "
            "0 pods would be evicted in 0 different namespaces" + DRY_TAIL)
    assert status(pods_in(["a"]), rule(effect="None", selector=False))[2] == zero
    assert status(pods_in(["a"]), rule(effect="None", driver="other.example.com"))[2] == zero


def test_none_dry_run_counts_published_but_unallocated_and_tolerated() -> None:
    msg = status(pods_in(["a"], tolerate=True), rule(effect="None"))[2]
    assert msg.startswith("2 published devices selected. 1 allocated device selected. 0 pods would be evicted")


def test_none_with_evicted_count_appends() -> None:
    assert status(pods_in([]), rule(effect="None"), {"drain": 2})[2].endswith(
        DRY_TAIL + " 2 pods evicted since starting the controller.")


@pytest.mark.parametrize("effect", ["NoSchedule", "PreferNoSchedule", ""])
def test_other_effects(effect: str) -> None:
    assert status(pods_in(["a"]), rule(effect=effect)) == (
        "False", "OtherEffect", "Eviction only happens for the NoExecute effect.")
    assert status(pods_in(["a"]), rule(effect=effect), {"drain": 1})[2] == (
        "Eviction only happens for the NoExecute effect. 1 pod evicted since starting the controller.")


def test_observed_generation() -> None:
    state = ClusterState.from_objects(pods_in(["a"]), now=T0)
    assert dt.rule_status(state, rule(generation=7)).observed_generation == 7


def test_update_rule_statuses_rate_limit_and_generation() -> None:
    state = ClusterState.from_objects([*pods_in(["a", "b"]), rule()], now=T0)
    r = state.taint_rules["drain"]
    events = dt.update_rule_statuses(state)
    assert [e.message for e in events] == [
        "EvictionInProgress=True PodsPendingEviction: 2 pods need to be evicted in 2 different namespaces."]
    assert r.status is not None and r.status.conditions[0].last_transition_time == T0
    tracker = dt.EvictionTracker()
    dt.evict_due(state, tracker)
    state.now = at(9)
    assert dt.update_rule_statuses(state, tracker.evicted_by_rule) == []  # within 10 s
    assert dt.next_rule_status_time(state, tracker.evicted_by_rule) == at(10)
    state.now = at(10)
    events = dt.update_rule_statuses(state, tracker.evicted_by_rule)
    assert events[0].message == "EvictionInProgress=False Completed: 2 pods evicted since starting the controller."
    state.now = at(30)
    assert dt.update_rule_statuses(state, tracker.evicted_by_rule) == []  # unchanged: not rewritten
    assert r.status.conditions[0].last_transition_time == at(10)
    assert dt.next_rule_status_time(state, tracker.evicted_by_rule) is None


def test_none_rule_is_reported_once_per_generation() -> None:
    state = ClusterState.from_objects([*pods_in(["a"]), rule(effect="None")], now=T0)
    first = dt.update_rule_statuses(state)
    assert len(first) == 1 and "1 pod would be evicted" in first[0].message
    del state.pods[("a", "p0")]
    state.now = at(60)
    assert dt.update_rule_statuses(state) == []
    state.taint_rules["drain"].metadata.generation = 2
    assert "0 pods would be evicted" in dt.update_rule_statuses(state)[0].message


def test_apply_rule_status_ignores_transition_time_only_changes() -> None:
    r = rule()
    state = ClusterState.from_objects(pods_in(["a"]), now=T0)
    assert dt.apply_rule_status(r, dt.rule_status(state, r))
    state.now = at(100)
    assert not dt.apply_rule_status(r, dt.rule_status(state, r))
    assert r.status is not None and len(r.status.conditions) == 1
