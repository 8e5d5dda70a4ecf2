"""ClusterState keeps the in-use device index equal to what the allocated claims say, and answers which
claims a pod names and in which order pods arrived."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.allocator import DeviceID
from drasim.api.core import Pod, PodResourceClaim, PodResourceClaimStatus, PodSpec, PodStatus
from drasim.api.meta import ObjectMeta
from drasim.cluster import ClusterState
from drasim.runner.scenario import in_use_state
from drasim.sources.scenario import load_scenario
from hypothesis_budget import examples

ROOT = Path(__file__).resolve().parents[1] / "conformance"


def test_index_matches_the_claims_after_allocate_and_clear() -> None:
    sc = load_scenario(str(ROOT / "random" / "s1-0156-consumable.yaml"))
    state = ClusterState.from_objects(sc.objects)
    expected = in_use_state(list(state.claims.values()), state.features)
    assert state.in_use.devices == expected.devices
    assert state.in_use.shared == expected.shared
    assert state.in_use.aggregated_capacity == expected.aggregated_capacity
    allocated = [k for k, c in state.claims.items() if c.status and c.status.allocation]
    assert allocated
    for key in allocated:
        state.set_allocation(key, None)
    assert not state.in_use.devices and not state.in_use.shared and not state.in_use.aggregated_capacity


def test_taint_rules_merge_into_effective_slices_only() -> None:
    sc = load_scenario(str(ROOT / "seed" / "seed-09-taint-rule-noschedule.yaml"))
    state = ClusterState.from_objects(sc.objects)
    published = sum(len(d.taints) for s in state.slices.values() for d in s.spec.devices)
    merged = sum(len(d.taints) for s in state.effective_slices() for d in s.spec.devices)
    assert merged > published
    cache = state.slice_cache()
    assert state.slice_cache() is cache
    state.slices_changed()
    assert state.slice_cache() is not cache


def test_in_flight_allocations_count_as_in_use() -> None:
    sc = load_scenario(str(ROOT / "seed" / "seed-01-h100-else-a100-on-h100-node.yaml"))
    state = ClusterState.from_objects(sc.objects)
    from drasim.api.resource import AllocationResult, DeviceAllocationResult, DeviceRequestAllocationResult
    flight = AllocationResult(devices=DeviceAllocationResult(results=[
        DeviceRequestAllocationResult(request="gpu", driver="gpu.nvidia.com", pool="p", device="d")]))
    assert DeviceID("gpu.nvidia.com", "p", "d") in state.allocated_state([flight]).devices
    assert DeviceID("gpu.nvidia.com", "p", "d") not in state.in_use.devices


def test_pod_claim_keys_name_the_known_claims_in_spec_order() -> None:
    pod = Pod(metadata=ObjectMeta(name="p", namespace="ns"), spec=PodSpec(resource_claims=[
        PodResourceClaim(name="made", resource_claim_template_name="t"),
        PodResourceClaim(name="shared", resource_claim_name="common"),
        PodResourceClaim(name="waiting", resource_claim_template_name="t"),
    ]), status=PodStatus(resource_claim_statuses=[PodResourceClaimStatus(name="made", resource_claim_name="p-made")]))
    assert ClusterState().pod_claim_keys(pod) == [("ns", "p-made"), ("ns", "common")]
    unnamespaced = Pod(metadata=ObjectMeta(name="q"), spec=PodSpec(resource_claims=[
        PodResourceClaim(name="shared", resource_claim_name="common")]))
    assert ClusterState().pod_claim_keys(unnamespaced) == [("default", "common")]


def test_pods_in_arrival_order_then_by_key() -> None:
    state = ClusterState()
    for name in ("b", "a", "c"):
        state.add(Pod(metadata=ObjectMeta(name=name, namespace="default"), spec=PodSpec()))
    unknown = [("default", "z"), ("default", "y")]
    assert state.in_arrival_order([*unknown, *state.pods]) == [
        ("default", "b"), ("default", "a"), ("default", "c"), ("default", "y"), ("default", "z")]


_NAMES = st.sampled_from(["a", "b"])
_CLAIM = st.one_of(st.none(), st.sampled_from(["", "c1", "c2"]))


@settings(max_examples=examples(300))
@given(st.lists(st.tuples(_NAMES, _CLAIM), max_size=3), st.one_of(st.none(), st.lists(st.tuples(_NAMES, _CLAIM),
                                                                                     max_size=3)))
def test_pod_claim_keys_are_pod_claim_name_per_entry(entries: list[tuple[str, str | None]],
                                                     statuses: list[tuple[str, str | None]] | None) -> None:
    """The one-entry shortcut included (names repeat and are empty here, which validation would refuse)."""
    pod = Pod(metadata=ObjectMeta(name="p", namespace="ns"), spec=PodSpec(resource_claims=[
        PodResourceClaim(name=n, resource_claim_name=c, resource_claim_template_name=None if c else "t")
        for n, c in entries]))
    if statuses is not None:
        pod.status = PodStatus(resource_claim_statuses=[PodResourceClaimStatus(name=n, resource_claim_name=c)
                                                        for n, c in statuses])
    state = ClusterState()
    names = [state.pod_claim_name(pod, e.name) for e in pod.spec.resource_claims]
    assert state.pod_claim_keys(pod) == [("ns", n) for n in names if n]
