"""The ResourceClaim controller: generated names, ownership, orphan reuse, reservedFor cleanup, deletion."""

from __future__ import annotations

import msgspec
import pytest
from dra_objects import T0, claim, pod

from drasim.allocator import DeviceID, Features
from drasim.api.core import PodStatus
from drasim.api.meta import ObjectMeta
from drasim.api.resource import (
    DeviceClaim,
    DeviceRequest,
    ExactDeviceRequest,
    ResourceClaimConsumerReference,
    ResourceClaimSpec,
    ResourceClaimTemplate,
    ResourceClaimTemplateSpec,
)
from drasim.cluster import ClusterState
from drasim.controllers import resourceclaim as rc

GPU = DeviceID("gpu.example.com", "node-1", "gpu-0")


def template(name: str = "gpu-template", ns: str = "default", *, admin: bool = False) -> ResourceClaimTemplate:
    spec = ResourceClaimSpec(devices=DeviceClaim(requests=[DeviceRequest(
        name="gpu", exactly=ExactDeviceRequest(device_class_name="gpu.example.com", admin_access=admin or None))]))
    return ResourceClaimTemplate(
        metadata=ObjectMeta(name=name, namespace=ns),
        spec=ResourceClaimTemplateSpec(metadata=ObjectMeta(labels={"team": "ml"}, annotations={"note": "x"}),
                                       spec=spec))


def state_with(*objs: object, features: Features | None = None) -> ClusterState:
    return ClusterState.from_objects(objs, features=features, now=T0)


# --- names ----------------------------------------------------------------------------------------

def test_generate_name_short_keeps_trailing_dash() -> None:
    assert rc.claim_generate_name("train-0", "gpu") == "train-0-gpu-"


def test_generate_name_at_the_limit_is_untouched() -> None:
    pod_name, claim_name = "p" * 40, "c" * 15  # "p...-c...-" is exactly 57 characters
    assert rc.claim_generate_name(pod_name, claim_name) == f"{pod_name}-{claim_name}-"


def test_generate_name_truncates_both_parts_proportionally() -> None:
    pod_name, claim_name = "a" * 40, "b" * 30  # base length 72
    prefix = rc.claim_generate_name(pod_name, claim_name)
    assert prefix == "a" * (40 * 57 // 72) + "-" + "b" * (30 * 57 // 72)  # 31 + 1 + 23, no trailing dash
    assert len(prefix) == 55
    name = rc.claim_name("default", pod_name, claim_name)
    assert name.startswith(prefix) and len(name) == 60


def test_suffix_is_deterministic_lowercase_alphanumeric_and_seeded() -> None:
    a = rc.claim_name("ml", "train-0", "gpu")
    assert a == rc.claim_name("ml", "train-0", "gpu")
    suffix = a.removeprefix("train-0-gpu-")
    assert len(suffix) == 5 and all(c in rc.SUFFIX_ALPHABET for c in suffix)
    assert rc.claim_name("ml", "train-0", "gpu", seed=1) != a
    assert rc.claim_name("other", "train-0", "gpu") != a


def test_deterministic_uid_is_a_uuid() -> None:
    uid = rc.deterministic_uid("x", 1)
    assert uid == rc.deterministic_uid("x", 1) and len(uid) == 36 and uid[14] == "4"


# --- template -> claim -------------------------------------------------------------------------------

def test_creates_claim_with_owner_labels_annotations_and_status() -> None:
    p = pod("train-0", "ml", templates={"gpu": "gpu-template"})
    state = state_with(p, template(ns="ml"))
    events = rc.sync(state)
    assert len(state.claims) == 1
    (key, c), = state.claims.items()
    assert key == ("ml", c.metadata.name)
    assert c.metadata.name == rc.claim_name("ml", "train-0", "gpu")
    assert c.metadata.generate_name == "train-0-gpu-"
    owner, = c.metadata.owner_references
    assert (owner.api_version, owner.kind, owner.name, owner.uid) == ("v1", "Pod", "train-0", p.metadata.uid)
    assert owner.controller is True and owner.block_owner_deletion is True
    assert c.metadata.labels == {"team": "ml"}
    assert c.metadata.annotations == {"note": "x", rc.POD_CLAIM_NAME_ANNOTATION: "gpu"}
    assert c.spec == state.templates[("ml", "gpu-template")].spec.spec
    assert c.spec is not state.templates[("ml", "gpu-template")].spec.spec
    assert c.metadata.creation_timestamp == T0
    assert p.status is not None
    assert [(s.name, s.resource_claim_name) for s in p.status.resource_claim_statuses] == [("gpu", c.metadata.name)]
    assert [e.reason for e in events] == ["CreatedResourceClaim"]
    assert events[0].object == "Pod/ml/train-0" and events[0].kind == "Normal"
    assert state.pod_claims(p) == [("gpu", c)]


def test_sync_is_idempotent() -> None:
    state = state_with(pod("a", templates={"gpu": "gpu-template"}), template())
    rc.sync(state)
    before = msgspec.json.encode(list(state.claims.values()))
    assert rc.sync(state) == []
    assert msgspec.json.encode(list(state.claims.values())) == before


def test_pods_without_uid_get_deterministic_uids_distinct_from_referenced_ones() -> None:
    p = pod("a", templates={"gpu": "gpu-template"})
    p.metadata.uid = None
    state = state_with(p, template())
    rc.sync(state)
    first = p.metadata.uid
    assert first == rc.deterministic_uid(0, "Pod", "default", "a", 0)
    # A replacement under the same name must not get the old UID while a claim still names it.
    del state.pods[("default", "a")]
    fresh = rc.fresh_pod_uid(state, "default", "a")
    assert fresh == rc.deterministic_uid(0, "Pod", "default", "a", 1)


def test_pod_read_without_uid_takes_the_one_its_claims_name() -> None:
    named = pod("a", claims={"gpu": "c"})
    c = claim("c", reserved=[named])
    reader = pod("a", claims={"gpu": "c"})
    reader.metadata.uid = None
    state = state_with(reader, c)
    assert rc.sync(state) == []  # not mistaken for a replacement: the reservation stays
    assert reader.metadata.uid == named.metadata.uid
    assert c.status is not None and len(c.status.reserved_for) == 1


def test_missing_template_is_a_warning_event_then_recovers() -> None:
    p = pod("a", templates={"gpu": "nope"})
    state = state_with(p)
    events = rc.sync(state)
    assert not state.claims
    assert [(e.kind, e.reason, e.message) for e in events] == [(
        "Warning", "FailedResourceClaimCreation",
        'PodResourceClaim gpu: resource claim template "nope": '
        'resourceclaimtemplate.resource.k8s.io "nope" not found')]
    state.add(template("nope"))
    assert [e.reason for e in rc.sync(state)] == ["CreatedResourceClaim"]


def test_admin_access_with_gate_off_is_refused() -> None:
    p = pod("a", templates={"gpu": "gpu-template"})
    state = state_with(p, template(admin=True), features=Features(admin_access=False))
    events = rc.sync(state)
    assert not state.claims
    assert events[0].message == "PodResourceClaim gpu: admin access is requested, but the feature is disabled"
    on = state_with(pod("a", templates={"gpu": "gpu-template"}), template(admin=True))
    assert [e.reason for e in rc.sync(on)] == ["CreatedResourceClaim"]


def test_orphan_is_reused() -> None:
    p = pod("a", templates={"gpu": "gpu-template"})
    orphan = claim("leftover", owner=p, allocated=False)
    state = state_with(p, orphan, template())
    events = rc.sync(state)
    assert list(state.claims) == [("default", "leftover")]
    assert [e.reason for e in events] == ["AdoptedResourceClaim"]
    assert state.pod_claim_name(p, "gpu") == "leftover"


def test_orphan_for_another_pod_claim_is_not_reused() -> None:
    p = pod("a", templates={"gpu": "gpu-template"})
    other = claim("leftover", owner=p, pod_claim="other", allocated=False)
    state = state_with(p, other, template())
    rc.sync_pod(state, p)
    assert len(state.claims) == 2


def test_recorded_claim_deleted_or_not_owned_gets_a_new_one() -> None:
    p = pod("a", templates={"gpu": "gpu-template"}, statuses={"gpu": "gone"})
    state = state_with(p, template())
    rc.sync_pod(state, p)
    name = state.pod_claim_name(p, "gpu")
    assert name != "gone" and ("default", name) in state.claims

    q = pod("b", templates={"gpu": "gpu-template"}, statuses={"gpu": "someone-elses"})
    foreign = claim("someone-elses", owner=pod("b", uid="older-uid"), allocated=False)
    state = state_with(q, foreign, template())
    rc.sync_pod(state, q)
    assert state.pod_claim_name(q, "gpu") not in ("someone-elses", None)


def test_name_collision_draws_again() -> None:
    p = pod("a", templates={"gpu": "gpu-template"})
    taken = claim(rc.claim_name("default", "a", "gpu"), allocated=False)
    state = state_with(p, taken, template())
    rc.sync(state)
    assert state.pod_claim_name(p, "gpu") == rc.claim_name("default", "a", "gpu", attempt=1)


def test_finished_and_deleting_pods_get_no_claims() -> None:
    done = pod("a", templates={"gpu": "gpu-template"}, phase="Succeeded")
    deleting = pod("b", templates={"gpu": "gpu-template"})
    deleting.metadata.deletion_timestamp = T0
    state = state_with(done, deleting, template())
    rc.sync(state)
    assert not state.claims


def test_bound_pod_is_reserved_in_allocated_claim() -> None:
    p = pod("a", claims={"gpu": "shared"}, node="node-1")
    c = claim("shared")
    state = state_with(p, c)
    events = rc.sync(state)
    assert c.status is not None
    assert [(r.resource, r.name, r.uid) for r in c.status.reserved_for] == [("pods", "a", p.metadata.uid)]
    assert [e.reason for e in events] == ["ReservationAdded"]
    unbound = pod("b", claims={"gpu": "shared"}, node=None)
    state.add(unbound)
    rc.sync(state)
    assert len(c.status.reserved_for) == 1


# --- reservedFor cleanup, deallocation, deletion ---------------------------------------------------

def test_finished_pod_releases_deallocates_and_deletes_generated_claim() -> None:
    p = pod("a", templates={"gpu": "gpu-template"}, statuses={"gpu": "a-gpu-xxxxx"})
    c = claim("a-gpu-xxxxx", reserved=[p], owner=p)
    state = state_with(p, c, template())
    assert GPU in state.in_use.devices
    assert rc.sync(state) == []
    assert p.status is not None
    p.status.phase = "Succeeded"
    events = rc.sync(state)
    assert [e.reason for e in events] == ["ReservationRemoved", "DeallocatedResourceClaim", "DeletedResourceClaim"]
    assert events[0].message == "pod a is done"
    assert not state.claims and GPU not in state.in_use.devices


def test_deleted_pod_releases_its_claim_which_is_collected() -> None:
    p = pod("a", templates={"gpu": "gpu-template"}, statuses={"gpu": "c"})
    state = state_with(p, claim("c", reserved=[p], owner=p), template())
    del state.pods[("default", "a")]
    events = rc.sync(state)
    assert [e.reason for e in events] == ["ReservationRemoved", "DeallocatedResourceClaim", "DeletedResourceClaim"]
    assert events[0].message == "pod a is gone"
    assert not state.claims


def test_shared_claim_is_deallocated_when_the_last_consumer_stops_but_not_deleted() -> None:
    a, b = pod("a", claims={"gpu": "shared"}), pod("b", claims={"gpu": "shared"})
    c = claim("shared", reserved=[a, b])
    state = state_with(a, b, c)
    del state.pods[("default", "a")]
    rc.sync(state)
    assert c.status is not None and c.status.allocation is not None
    assert [r.name for r in c.status.reserved_for] == ["b"]
    b.status = PodStatus(phase="Failed")
    events = rc.sync(state)
    assert [e.reason for e in events] == ["ReservationRemoved", "DeallocatedResourceClaim"]
    assert ("default", "shared") in state.claims
    assert c.status.allocation is None and c.status.reserved_for == []
    assert rc.FINALIZER not in c.metadata.finalizers
    assert GPU not in state.in_use.devices


def test_without_the_finalizer_the_allocation_stays() -> None:
    a = pod("a", claims={"gpu": "c"})
    c = claim("c", reserved=[a], finalizer=False)
    state = state_with(a, c)
    del state.pods[("default", "a")]
    assert [e.reason for e in rc.sync(state)] == ["ReservationRemoved"]
    assert c.status is not None and c.status.allocation is not None and not c.status.reserved_for


def test_replaced_pod_is_dropped_and_claim_deleted() -> None:
    old = pod("a", templates={"gpu": "gpu-template"}, statuses={"gpu": "c"}, uid="old")
    state = state_with(claim("c", reserved=[old], owner=old), template())
    new = pod("a", templates={"gpu": "gpu-template"}, uid="new")
    state.add(new)
    events = rc.sync(state)
    reasons = [e.reason for e in events]
    assert reasons[:3] == ["CreatedResourceClaim", "ReservationRemoved", "DeallocatedResourceClaim"]
    assert events[1].message == "pod a was replaced"
    assert ("default", "c") not in state.claims
    assert state.pod_claim_name(new, "gpu") in {k[1] for k in state.claims}


def test_pod_deleted_before_scheduling_is_done() -> None:
    p = pod("a", claims={"gpu": "c"}, node=None)
    assert not rc.pod_done(p)
    p.metadata.deletion_timestamp = T0
    assert rc.pod_done(p)
    p.spec.node_name = "node-1"
    assert not rc.pod_done(p)


def test_claim_being_deleted_is_released_and_removed() -> None:
    c = claim("c")
    c.metadata.deletion_timestamp = T0
    state = state_with(c)
    events = rc.sync(state)
    assert [e.reason for e in events] == ["DeallocatedResourceClaim", "DeletedResourceClaim"]
    assert not state.claims and GPU not in state.in_use.devices


def test_foreign_finalizer_keeps_the_claim_in_deletion() -> None:
    p = pod("a", templates={"gpu": "gpu-template"}, statuses={"gpu": "c"}, phase="Succeeded")
    c = claim("c", reserved=[p], owner=p)
    c.metadata.finalizers.append("example.com/keep")
    state = state_with(p, c, template())
    events = rc.sync(state)
    assert [e.reason for e in events][-1] == "DeletingResourceClaim"
    assert c.metadata.deletion_timestamp == T0 and c.metadata.finalizers == ["example.com/keep"]
    c.metadata.finalizers = []
    assert [e.reason for e in rc.sync(state)] == ["DeletedResourceClaim"]
    assert not state.claims


def test_unsupported_consumers_are_kept() -> None:
    c = claim("c")
    assert c.status is not None
    c.status.reserved_for.append(ResourceClaimConsumerReference(api_group="scheduling.k8s.io",
                                                                resource="podgroups", name="g", uid="u"))
    state = state_with(c)
    assert rc.sync(state) == []
    assert c.status.allocation is not None


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_done_phases(phase: str) -> None:
    assert rc.pod_done(pod("a", phase=phase))
    assert not rc.pod_done(pod("a", phase="Running"))
