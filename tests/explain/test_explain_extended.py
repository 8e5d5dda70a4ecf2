"""explain on pods asking for an extended resource a DeviceClass serves (`nvidia.com/gpu: N`): the claim the
scheduler makes (or made) for it is explained like any claim, named with what the pod asked for."""

from __future__ import annotations

from typing import Any

from explain_helpers import device_class, gpu, node, slice_, state_of

from drasim.api.decode import decode_documents
from drasim.explain import explain_pod
from drasim.sim.engine import SimulationOptions
from drasim.sim.settle import settle


def _docs(gpus: int, *, advertised: str | None = None) -> list[dict[str, Any]]:
    cls = device_class()
    cls["spec"]["extendedResourceName"] = "example.com/gpu"
    plain = node("n1")
    native = node("n2")
    if advertised is not None:
        native["status"]["allocatable"]["example.com/gpu"] = advertised
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "legacy", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "example.com/gpu": str(gpus)},
                                                                "limits": {"example.com/gpu": str(gpus)}}}]}}
    return [cls, plain, native, slice_("n1-gpus", "n1", [gpu("g0"), gpu("g1")]),
            slice_("n2-gpus", "n2", [gpu("g0")]), pod]


def test_pending_pod_explained_through_the_claim_the_scheduler_would_make() -> None:
    ex = explain_pod(state_of(_docs(2)), ("default", "legacy"))
    (pc,) = ex.claims
    assert (pc.name, pc.claim, pc.state, pc.extended) == ("(extended resources)", None, "made-by-scheduler",
                                                           ["example.com/gpu: 2"])
    assert ex.allocatable_nodes == ["n1"]  # n2 has one device
    (short,) = [g for g in ex.groups if g.nodes == ["n2"]]
    (alt,) = short.claims[0].requests[0].alternatives
    assert short.verdict.status == "unsatisfiable" and (alt.needed, alt.usable) == (2, 1)


def test_a_node_whose_device_plugin_serves_the_resource_needs_no_claim() -> None:
    # n2 advertises the resource itself: the scheduler counts it there and makes no claim for that node.
    ex = explain_pod(state_of(_docs(1, advertised="4")), ("default", "legacy"))
    assert [n for g in ex.groups for n in g.nodes] == ["n1"]
    assert [(x.node, "device plugin" in x.reason) for x in ex.excluded_nodes] == [("n2", True)]


def test_bound_pod_replays_the_claim_it_got() -> None:
    objects = decode_documents(_docs(2), source="test").objects
    state = settle(objects, (), SimulationOptions())
    pod = state.pods[("default", "legacy")]
    assert pod.spec.node_name == "n1"
    ex = explain_pod(state, ("default", "legacy"))
    (pc,) = ex.claims
    assert pc.state == "allocated" and pc.extended == ["example.com/gpu: 2"] and pc.claim
    assert ex.allocatable_nodes == ["n1"]
    assert len(ex.groups[0].verdict.devices) == 2
