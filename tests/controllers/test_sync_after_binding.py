"""The claim controller's pass after a scheduling pass (rc.sync_after_binding) equals a full pass (rc.sync).

Generated clusters: pods with template claims, shared claims named by several pods (resourceClaimName), both,
pods whose template is missing (each pass retries them with a Warning), pods bound without the scheduler
(nodeName preset) and pods without a UID; more pods than devices, so some fail. After a full pass and a
scheduling pass of every pending pod, the pass after binding gives the same events, pods and claims as a
full pass.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from drasim.allocator.versions import features_for_version
from drasim.api.encode import encode_object
from drasim.cli.simulate import load_inputs
from drasim.cluster import ClusterState
from drasim.cluster.state import key_of
from drasim.controllers import resourceclaim as rc
from drasim.scheduler import Scheduler
from drasim.sim.engine import Simulation, SimulationOptions
from hypothesis_budget import examples

DRIVER = "gpu.example.com"


@st.composite
def clusters(draw: st.DrawFn) -> list[dict[str, Any]]:
    request = {"name": "gpu", "exactly": {"deviceClassName": DRIVER, "allocationMode": "ExactCount", "count": 1}}
    docs: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": DRIVER},
         "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{DRIVER}'"}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": "t"},
         "spec": {"spec": {"devices": {"requests": [request]}}}},
    ]
    nodes = draw(st.integers(1, 3))
    for n in range(nodes):
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{n}", "labels": {
            "kubernetes.io/hostname": f"n{n}"}}, "status": {"allocatable": {"cpu": "8", "pods": "110"}}})
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"n{n}-s"},
                     "spec": {"driver": DRIVER, "nodeName": f"n{n}",
                              "pool": {"name": f"n{n}", "generation": 1, "resourceSliceCount": 1},
                              "devices": [{"name": f"d{d}"} for d in range(draw(st.integers(1, 3)))]}})
    shared = draw(st.integers(0, 2))
    for c in range(shared):
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": f"shared-{c}"},
                     "spec": {"devices": {"requests": [request]}}})
    for p in range(draw(st.integers(1, 10))):
        entries: list[dict[str, Any]] = []
        if draw(st.booleans()) or not shared:
            template = "missing" if draw(st.integers(0, 4)) == 0 else "t"
            entries.append({"name": "own", "resourceClaimTemplateName": template})
        if shared and draw(st.booleans()):
            entries.append({"name": "common", "resourceClaimName": f"shared-{draw(st.integers(0, shared - 1))}"})
        spec: dict[str, Any] = {"resourceClaims": entries, "containers": [{"name": "c", "image": "i", "resources": {
            "claims": [{"name": e["name"]} for e in entries]}}]}
        if draw(st.integers(0, 4)) == 0:
            spec["nodeName"] = f"n{draw(st.integers(0, nodes - 1))}"  # bound without the scheduler
        meta: dict[str, Any] = {"name": f"p{p}"}
        if draw(st.booleans()):
            meta["uid"] = f"00000000-0000-4000-8000-{p:012d}"
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})
    return docs


def _objects(docs: list[dict[str, Any]]) -> list[Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
        objects, _, _ = load_inputs([str(path)])
    return objects


def _scheduled(docs: list[dict[str, Any]]) -> tuple[ClusterState, list[Any], bool]:
    """A state after a full controller pass and a scheduling pass of every pending pod, the pods attempted,
    and whether every outcome was a binding or a failure that changed no claim."""
    objects = _objects(docs)
    state = ClusterState.from_objects(objects, features=features_for_version("1.36"))
    rc.sync(state)
    scheduler = Scheduler()
    bound, plain = [], True
    for pod in Scheduler.queue_order(state, [p for p in state.pods.values() if not p.spec.node_name]):
        result = scheduler.schedule_one(state, pod)
        scheduler.apply(state, result)
        if result.node:
            bound.append(key_of(pod))
        plain = plain and not (result.deallocate or result.delete_claims or result.extended_claim is not None)
    return state, bound, plain


def _fingerprint(state: ClusterState, events: list[Any]) -> tuple[Any, ...]:
    return (events, {k: encode_object(p) for k, p in state.pods.items()},
            {k: encode_object(c) for k, c in state.claims.items()})


@settings(max_examples=examples(100), deadline=None)
@given(clusters())
def test_the_pass_after_binding_equals_a_full_pass(docs: list[dict[str, Any]]) -> None:
    full_state, bound, plain = _scheduled(docs)
    if not plain:
        event("a claim was deallocated or deleted: the engine runs the full pass")
        return
    full = _fingerprint(full_state, rc.sync(full_state))
    state, again, _ = _scheduled(docs)
    assert again == bound
    events = rc.sync_after_binding(state, bound)
    event("the pass had something to do" if events else "the pass found nothing to do")
    assert _fingerprint(state, events) == full


def test_a_pod_whose_template_is_missing_is_retried_after_another_binds() -> None:
    """The engine's pass after binding retries the failed pod as a full pass does: its Warning again."""
    docs: list[dict[str, Any]] = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
                                   "status": {"allocatable": {"cpu": "8", "pods": "110"}}}]
    docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {
        "resourceClaims": [{"name": "own", "resourceClaimTemplateName": "missing"}],
        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "own"}]}}]}})
    docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"},
                 "spec": {"containers": [{"name": "c", "image": "i"}]}})
    options = SimulationOptions(fast_paths=True, features=features_for_version("1.36"))
    result = Simulation(_objects(docs), [], options).run()
    warning = ("FailedResourceClaimCreation", "Pod/default/a",
               'PodResourceClaim own: resource claim template "missing": '
               'resourceclaimtemplate.resource.k8s.io "missing" not found')
    assert [(e.reason, e.object, e.message) for e in result.events] == [
        warning, ("Scheduled", "Pod/default/b", "Successfully assigned default/b to n0"), warning]
