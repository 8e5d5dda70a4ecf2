"""Workload expansion: names, counts, ownership, Job completions, garbage collection, input checks."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.core import Deployment, Job, Pod, PodStatus, ReplicaSet, StatefulSet
from drasim.api.decode import decode_object
from drasim.api.meta import ObjectMeta, OwnerReference
from drasim.api.quantity import quantity_enc_hook
from drasim.api.resource import ResourceClaimTemplate
from drasim.cluster import EPOCH, ClusterState
from drasim.controllers import resourceclaim as rc
from drasim.sim import workloads as wl
from hypothesis_budget import examples

SUFFIX = f"[{rc.SUFFIX_ALPHABET}]"


def obj(text: str) -> Any:
    return decode_object(yaml.safe_load(text), source="test")


DEPLOY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: web}, annotations: {drasim.dev/run-for: 10m}}
    spec:
      containers: [{name: c, image: x}]
      resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]
"""

JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  parallelism: 2
  completions: 3
  template:
    metadata: {labels: {app: train}}
    spec: {containers: [{name: c}]}
"""


def pods_of(state: ClusterState) -> list[Pod]:
    return sorted(state.pods.values(), key=lambda p: p.metadata.name)


def finish(state: ClusterState, pod: Pod, phase: str = "Succeeded") -> None:
    pod.status = PodStatus(phase=phase)


# --- Deployments and ReplicaSets --------------------------------------------------------------------

def test_deployment_expands_to_replicaset_and_pods() -> None:
    d = obj(DEPLOY)
    out = wl.expand(d)
    rs, *pods = out
    assert isinstance(rs, ReplicaSet)
    phash = wl.pod_template_hash(d.spec.template)
    assert re.fullmatch(f"{SUFFIX}{{10}}", phash)
    assert rs.metadata.name == f"web-{phash}" and rs.metadata.namespace == "default"
    assert rs.metadata.labels == {"app": "web", "pod-template-hash": phash}
    owner, = rs.metadata.owner_references
    assert (owner.kind, owner.name, owner.uid, owner.controller) == ("Deployment", "web", wl.workload_uid(d), True)
    assert len(pods) == 3 and all(isinstance(p, Pod) for p in pods)
    names = [p.metadata.name for p in pods]
    assert len(set(names)) == 3
    for p in pods:
        assert isinstance(p, Pod)
        assert re.fullmatch(f"web-{phash}-{SUFFIX}{{5}}", p.metadata.name)
        assert p.metadata.generate_name == f"web-{phash}-"
        assert p.metadata.namespace == "default"
        assert p.metadata.labels == {"app": "web", "pod-template-hash": phash}
        assert p.metadata.annotations == {"drasim.dev/run-for": "10m"}
        ref, = p.metadata.owner_references
        assert (ref.api_version, ref.kind, ref.name, ref.uid) == ("apps/v1", "ReplicaSet", rs.metadata.name,
                                                                  rs.metadata.uid)
        assert ref.controller is True and ref.block_owner_deletion is True
        assert p.spec.resource_claims[0].resource_claim_template_name == "gpu"
        assert p.metadata.creation_timestamp == EPOCH


def test_expansion_is_deterministic_pure_and_seeded() -> None:
    d = obj(DEPLOY)
    before = msgspec.json.encode(d)
    a = [o.metadata.name for o in wl.expand(d)]
    assert a == [o.metadata.name for o in wl.expand(d)]
    assert msgspec.json.encode(d) == before
    b = [o.metadata.name for o in wl.expand(d, seed=7)]
    assert a[0] == b[0]  # the ReplicaSet name depends on the template only
    assert a[1:] != b[1:]


def test_template_hash_follows_the_template() -> None:
    d = obj(DEPLOY)
    e = copy.deepcopy(d)
    e.spec.template.metadata.labels["tier"] = "x"
    assert wl.pod_template_hash(d.spec.template) != wl.pod_template_hash(e.spec.template)
    f = copy.deepcopy(d)
    f.metadata.name = "other"
    f.spec.replicas = 9
    assert wl.pod_template_hash(d.spec.template) == wl.pod_template_hash(f.spec.template)


def test_replicaset_replaces_finished_pods_and_scales() -> None:
    rs = obj("""
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, namespace: ml}
spec: {replicas: 2, template: {metadata: {labels: {a: b}}}}
""")
    state = ClusterState.from_objects([rs])
    ctl = wl.WorkloadController()
    events = ctl.reconcile(state)
    assert [e.reason for e in events] == ["SuccessfulCreate"] * 2
    assert events[0].message.startswith("Created pod: rs-")
    first = pods_of(state)
    finish(state, first[0], "Failed")
    ctl.reconcile(state)
    assert len(state.pods) == 3  # the failed pod stays, a replacement joins
    rs.spec.replicas = 0
    events = ctl.reconcile(state)
    assert [e.reason for e in events] == ["SuccessfulDelete"] * 2
    assert [p.metadata.name for p in state.pods.values()] == [first[0].metadata.name]
    assert ctl.reconcile(state) == []


def test_deployment_template_change_replaces_the_replicaset() -> None:
    d = obj(DEPLOY)
    state = ClusterState.from_objects([d])
    ctl = wl.WorkloadController()
    ctl.reconcile(state)
    old_rs = state.workloads[1].metadata.name
    d.spec.template.metadata.labels["v"] = "2"
    events = ctl.reconcile(state)
    messages = [e.message for e in events if e.reason == "ScalingReplicaSet"]
    assert messages[0] == f"Scaled down replica set {old_rs} from 3 to 0"
    assert messages[1].startswith("Scaled up replica set web-") and messages[1].endswith("from 0 to 3")
    assert [w.metadata.name for w in state.workloads][1] != old_rs and len(state.workloads) == 2
    assert len(state.pods) == 3
    assert all(p.metadata.name.startswith(state.workloads[1].metadata.name) for p in state.pods.values())


def test_deployment_replica_change_scales_the_replicaset() -> None:
    d = obj(DEPLOY)
    state = ClusterState.from_objects([d])
    ctl = wl.WorkloadController()
    ctl.reconcile(state)
    d.spec.replicas = 1
    events = ctl.reconcile(state)
    assert events[0].message.startswith("Scaled down replica set web-") and events[0].message.endswith("3 to 1")
    assert len(state.pods) == 1


def test_deleting_a_deployment_collects_replicaset_and_pods() -> None:
    d = obj(DEPLOY)
    bare = Pod(metadata=ObjectMeta(name="bare"))
    foreign = Pod(metadata=ObjectMeta(name="foreign", owner_references=[
        OwnerReference(kind="ReplicaSet", name="not-managed", controller=True)]))
    state = ClusterState.from_objects([d, bare, foreign])
    ctl = wl.WorkloadController()
    ctl.reconcile(state)
    state.workloads.remove(d)
    events = ctl.reconcile(state)
    assert [e.reason for e in events] == ["GarbageCollected"] * 4
    assert not state.workloads
    assert sorted(k[1] for k in state.pods) == ["bare", "foreign"]  # owners never managed here are kept


# --- StatefulSets -----------------------------------------------------------------------------------

def test_statefulset_ordinals_and_recreation_with_a_new_uid() -> None:
    ss = obj("""
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ml}
spec: {replicas: 3, template: {metadata: {labels: {app: db}}}}
""")
    assert isinstance(ss, StatefulSet)
    state = ClusterState.from_objects([ss])
    ctl = wl.WorkloadController()
    ctl.reconcile(state)
    assert [p.metadata.name for p in pods_of(state)] == ["db-0", "db-1", "db-2"]
    p1 = state.pods[("ml", "db-1")]
    assert p1.metadata.labels == {"app": "db", "statefulset.kubernetes.io/pod-name": "db-1",
                                  "apps.kubernetes.io/pod-index": "1"}
    old_uid = p1.metadata.uid
    finish(state, p1)
    events = ctl.reconcile(state)
    assert [e.message for e in events] == ["delete Pod db-1 in StatefulSet db successful",
                                           "create Pod db-1 in StatefulSet db successful"]
    assert state.pods[("ml", "db-1")].metadata.uid != old_uid
    ss.spec.replicas = 1
    ctl.reconcile(state)
    assert list(state.pods) == [("ml", "db-0")]


# --- Jobs --------------------------------------------------------------------------------------------

def test_job_runs_parallelism_pods_until_completions() -> None:
    job = obj(JOB)
    assert isinstance(job, Job)
    state = ClusterState.from_objects([job])
    ctl = wl.WorkloadController()
    ctl.reconcile(state)
    assert len(state.pods) == 2
    for p in state.pods.values():
        assert re.fullmatch(f"train-{SUFFIX}{{5}}", p.metadata.name)
        assert p.metadata.labels == {"app": "train", "batch.kubernetes.io/job-name": "train", "job-name": "train"}
        assert p.metadata.owner_references[0].kind == "Job"
    a, b = pods_of(state)
    finish(state, a)
    ctl.reconcile(state)
    assert len(state.pods) == 3  # one more: 1 succeeded + 2 active
    finish(state, b, "Failed")
    ctl.reconcile(state)
    active = [p for p in state.pods.values() if p.status is None]
    assert len(active) == 2  # the failed pod is replaced
    for p in active:
        finish(state, p)
    events = ctl.reconcile(state)
    assert [(e.reason, e.message) for e in events] == [("Completed", "Job completed")]
    assert ctl.reconcile(state) == []
    assert sum(1 for p in state.pods.values() if p.status and p.status.phase == "Succeeded") == 3


def test_job_completions_limit_active_pods() -> None:
    job = obj(JOB)
    job.spec.parallelism = 5
    state = ClusterState.from_objects([job])
    wl.WorkloadController().reconcile(state)
    assert len(state.pods) == 3


def test_job_without_completions_is_done_after_one_success() -> None:
    job = obj(JOB)
    job.spec.completions = None
    state = ClusterState.from_objects([job])
    ctl = wl.WorkloadController()
    ctl.reconcile(state)
    a, b = pods_of(state)
    finish(state, a)
    assert ctl.reconcile(state) == []  # no new pods; b still runs
    finish(state, b)
    assert [e.reason for e in ctl.reconcile(state)] == ["Completed"]


def test_pods_get_claims_from_the_claim_controller() -> None:
    tmpl = obj("""
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
""")
    state = ClusterState.from_objects([obj(DEPLOY), tmpl])
    wl.WorkloadController().reconcile(state)
    rc.sync(state)
    assert len(state.claims) == 3
    for p in state.pods.values():
        name = state.pod_claim_name(p, "gpu")
        assert name is not None and name.startswith(f"{p.metadata.name}-gpu-")


def test_objects_of_one_template_share_its_copied_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods share their template's containers and claims their template's spec (one copy, not the template's
    own objects); each pod's spec top level is its own, so binding one pod binds no other. With FAST_COPY off
    each object has a copy of its own, and the objects encode the same."""
    tmpl = obj("""
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
""")
    encoded = []
    for fast in (True, False):
        monkeypatch.setattr(rc, "FAST_COPY", fast)
        state = ClusterState.from_objects([obj(DEPLOY), copy.deepcopy(tmpl)])
        wl.WorkloadController().reconcile(state)
        rc.sync(state)
        pods, claims = pods_of(state), sorted(state.claims.values(), key=lambda c: c.metadata.name)
        rs = next(w for w in state.workloads if isinstance(w, ReplicaSet))
        assert len(pods) == len(claims) == 3
        assert all(p.spec.containers is not rs.spec.template.spec.containers for p in pods)
        assert all(c.spec is not state.templates[("default", "gpu")].spec.spec for c in claims)
        assert (pods[0].spec.containers is pods[1].spec.containers) is fast
        assert (claims[0].spec is claims[1].spec) is fast
        pods[0].spec.node_name = "node-a"
        assert pods[1].spec.node_name is None
        encoded.append([msgspec.json.encode(o) for o in (*pods, *claims)])
    assert encoded[0] == encoded[1]


def _reconciled_fast_and_plain(docs: Callable[[], list[Any]]) -> Iterator[tuple[bool, list[Pod]]]:
    """The pods one reconcile makes of `docs()` with FAST_COPY on (shared copies), then off."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        for fast in (True, False):
            monkeypatch.setattr(rc, "FAST_COPY", fast)
            state = ClusterState.from_objects(docs())
            wl.WorkloadController().reconcile(state)
            yield fast, pods_of(state)


# Pod specs alike but for one thing each: an image, a request, a key order (nodeSelector), nothing.
_SPECS = [
    {"containers": [{"name": "c", "image": "x"}]},
    {"containers": [{"name": "c", "image": "y"}]},
    {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}]},
    {"containers": [{"name": "c", "image": "x"}], "nodeSelector": {"a": "1", "b": "2"}},
    {"containers": [{"name": "c", "image": "x"}], "nodeSelector": {"b": "2", "a": "1"}},
]


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["default", "other"]), st.integers(0, len(_SPECS) - 1)),
                min_size=1, max_size=6))
def test_equal_templates_share_one_copy_and_encode_the_same(workloads: list[tuple[str, int]]) -> None:
    """Pods of Deployments whose pod specs pack to the same bytes in one namespace share one copy
    (template_copy's `alike`); others never do; every pod encodes as with a copy of its own (FAST_COPY off)."""
    def docs() -> list[Any]:
        return [decode_object({"apiVersion": "apps/v1", "kind": "Deployment",
                               "metadata": {"name": f"w{i}", "namespace": ns},
                               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": f"w{i}"}},
                                        "template": {"metadata": {"labels": {"app": f"w{i}"}},
                                                     "spec": copy.deepcopy(_SPECS[k])}}}, source="test")
                for i, (ns, k) in enumerate(workloads)]

    encoded = []
    for fast, pods in _reconciled_fast_and_plain(docs):
        encoded.append([msgspec.json.encode(p, enc_hook=quantity_enc_hook) for p in pods])
        if fast:  # (namespace, spec) of each pod's Deployment w<i> (its ReplicaSet: w<i>-<hash>)
            of = {p.metadata.name: workloads[int(p.metadata.owner_references[0].name[1:].split("-")[0])]
                  for p in pods}
            for p in pods:
                for q in pods:
                    alike = of[p.metadata.name] == of[q.metadata.name]
                    assert (p.spec.containers is q.spec.containers) is alike
    assert encoded[0] == encoded[1]


# --- checks -----------------------------------------------------------------------------------------

def test_missing_template_is_reported_with_its_path() -> None:
    errors = wl.check_workloads([obj(DEPLOY)])
    assert [str(e) for e in errors] == [
        'Deployment/default/web: spec.template.spec.resourceClaims[0].resourceClaimTemplateName: '
        'ResourceClaimTemplate "gpu" does not exist in namespace "default"']
    assert errors[0].exit_code == 2
    tmpl = ResourceClaimTemplate(metadata=ObjectMeta(name="gpu", namespace="default"))
    assert wl.check_workloads([obj(DEPLOY), tmpl]) == []
    other_ns = ResourceClaimTemplate(metadata=ObjectMeta(name="gpu", namespace="ml"))
    assert len(wl.check_workloads([obj(DEPLOY), other_ns])) == 1


def test_negative_counts_are_reported() -> None:
    job = obj(JOB)
    job.spec.parallelism = -1
    errors = wl.check_workloads([job])
    assert [(e.obj, e.path) for e in errors] == [("Job/ml/train", "spec.parallelism")]


def test_ownership_cycles_are_reported_once() -> None:
    def rs(name: str, owner: str) -> ReplicaSet:
        return ReplicaSet(metadata=ObjectMeta(name=name, namespace="ml", owner_references=[
            OwnerReference(api_version="apps/v1", kind="Deployment", name=owner, controller=True)]))

    def deploy(name: str, owner: str) -> Deployment:
        return Deployment(metadata=ObjectMeta(name=name, namespace="ml", owner_references=[
            OwnerReference(api_version="apps/v1", kind="ReplicaSet", name=owner)]))

    errors = wl.check_workloads([rs("a", "b"), deploy("b", "a"), rs("c", "b")])
    assert [str(e) for e in errors] == [
        "Deployment/ml/b: metadata.ownerReferences[0]: ownership cycle: "
        "Deployment/ml/b -> ReplicaSet/ml/a -> Deployment/ml/b"]
    selfish = Pod(metadata=ObjectMeta(name="me", owner_references=[OwnerReference(kind="Pod", name="me")]))
    assert [str(e) for e in wl.check_workloads([selfish])] == [
        "Pod/default/me: metadata.ownerReferences[0]: ownership cycle: Pod/default/me -> Pod/default/me"]


_OWNED = st.builds(lambda kind, name, owners: (Pod if kind == "Pod" else ReplicaSet)(metadata=ObjectMeta(
    name=name, namespace="ml", owner_references=[OwnerReference(kind=k, name=n) for k, n in owners])),
    st.sampled_from(["Pod", "ReplicaSet"]), st.sampled_from(["a", "b", "c", ""]),
    st.lists(st.tuples(st.sampled_from(["Pod", "ReplicaSet"]), st.sampled_from(["a", "b", "c"])), max_size=2))


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_OWNED, max_size=6))
def test_ownership_cycles_skip_equals_the_walk(objects: list[Any]) -> None:
    # The early answer for inputs without owner references is the walk's answer (cycles included).
    fast, walk = wl._ownership_cycles(objects), wl._cycle_walk(objects)
    assert [(str(e), e.obj, e.path) for e in fast] == [(str(e), e.obj, e.path) for e in walk]


_LIMITS_ONLY = {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                "initContainers": [{"name": "i", "image": "x", "resources": {
                    "requests": {"cpu": "1"}, "limits": {"cpu": "2", "memory": "1Gi"}}}]}


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Deployment", "StatefulSet", "Job"]), st.integers(1, 4)),
                min_size=1, max_size=4))
def test_created_pods_are_defaulted_as_each_with_a_copy_of_its_own(workloads: list[tuple[str, int]]) -> None:
    """Pods sharing their template's copy are defaulted through the first one only (ClusterState.add
    `defaulted`); every pod still has limits filled into its requests and encodes as with FAST_COPY off."""
    def docs() -> list[Any]:
        out = []
        for i, (kind, n) in enumerate(workloads):
            spec: dict[str, Any] = {"selector": {"matchLabels": {"app": f"w{i}"}},
                                    "template": {"metadata": {"labels": {"app": f"w{i}"}},
                                                 "spec": copy.deepcopy(_LIMITS_ONLY)}}
            spec["parallelism" if kind == "Job" else "replicas"] = n
            out.append(decode_object({"apiVersion": "batch/v1" if kind == "Job" else "apps/v1", "kind": kind,
                                      "metadata": {"name": f"w{i}"}, "spec": spec}, source="test"))
        return out

    encoded = []
    for _fast, pods in _reconciled_fast_and_plain(docs):
        assert len(pods) == sum(n for _, n in workloads)
        for p in pods:
            assert p.spec.containers[0].resources.requests == p.spec.containers[0].resources.limits
            assert set(p.spec.init_containers[0].resources.requests) == {"cpu", "memory"}
            assert str(p.spec.init_containers[0].resources.requests["cpu"]) == "1"
        encoded.append([msgspec.json.encode(p, enc_hook=quantity_enc_hook) for p in pods])
    assert encoded[0] == encoded[1]
