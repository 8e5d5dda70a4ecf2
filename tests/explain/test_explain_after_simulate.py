"""explain agrees with simulate on random scenarios (hypothesis): a pod simulate leaves Pending is never
"allocatable" in explain, and a pod simulate places is never "unsatisfiable" (its node is allocatable)."""

from __future__ import annotations

from typing import Any

from explain_helpers import DRIVER, device_class, gpu, node, slice_
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_documents
from drasim.explain import explain_pod
from drasim.sim.engine import SimulationOptions
from drasim.sim.settle import settle
from hypothesis_budget import examples

MODELS = ["a100", "h100"]


@st.composite
def scenario(draw: st.DrawFn) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = [device_class()]
    nodes = [f"n{i}" for i in range(draw(st.integers(1, 3)))]
    for name in nodes:
        doc = node(name, zone=draw(st.sampled_from(["a", "b"])))
        if draw(st.integers(0, 4)) == 0:
            doc["spec"] = {"taints": [{"key": "maintenance", "effect": draw(st.sampled_from(
                ["NoSchedule", "NoExecute", "PreferNoSchedule"]))}]}
        docs.append(doc)
        gpus = [gpu(f"g{i}", draw(st.sampled_from(MODELS))) for i in range(draw(st.integers(0, 3)))]
        for dev in gpus:
            if draw(st.integers(0, 5)) == 0:
                dev["taints"] = [{"key": "bad", "effect": "NoSchedule"}]
        docs.append(slice_(f"{name}-gpus", name, gpus))
    for t in range(2):
        request: dict[str, Any] = {"deviceClassName": "gpu", "count": draw(st.integers(1, 2))}
        if draw(st.booleans()):
            model = draw(st.sampled_from(MODELS))
            request["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "{model}"'}}]
        if draw(st.integers(0, 3)) == 0:
            request["tolerations"] = [{"key": "bad", "operator": "Exists"}]
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                     "metadata": {"name": f"t{t}", "namespace": "default"},
                     "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": request}]}}}})
    for p in range(draw(st.integers(1, 4))):
        template = f"t{draw(st.integers(0, 1))}"
        spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                                "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}]}
        if draw(st.integers(0, 3)) == 0:
            spec["nodeSelector"] = {"zone": draw(st.sampled_from(["a", "b"]))}
        if draw(st.integers(0, 3)) == 0:
            spec["tolerations"] = [{"key": "maintenance", "operator": "Exists"}]
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{p}", "namespace": "default"},
                     "spec": spec})
    return docs


@settings(max_examples=examples(25))
@given(scenario())
def test_pending_is_never_allocatable_and_placed_never_unsatisfiable(docs: list[dict[str, Any]]) -> None:
    objects = decode_documents(docs, source="test").objects
    state = settle(objects, (), SimulationOptions())
    for key, pod in state.pods.items():
        ex = explain_pod(state, key)
        if pod.spec.node_name:
            assert pod.spec.node_name in ex.allocatable_nodes, (key, pod.spec.node_name, ex.groups)
        else:
            assert ex.allocatable_nodes == [], (key, ex.groups, ex.excluded_nodes)
