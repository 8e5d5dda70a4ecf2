"""Each named hint of `explain`, on the scenario it is meant for (and its absence where it does not apply)."""

from __future__ import annotations

from typing import Any

from explain_helpers import DRIVER, claim, device_class, exact, gpu, node, scenario, slice_, state_of

from drasim.explain import Explanation, explain_claim, explain_claims, explain_pod
from drasim.explain.hints import MIG_OFF, NO_PREEMPTION
from drasim.explain.model import Hint


def codes(ex: Explanation) -> list[str]:
    return [h.code for g in ex.groups for h in g.hints] + [h.code for h in ex.hints]


def hint(ex: Explanation, code: str) -> Hint:
    return next(h for g in ex.groups for h in [*g.hints, *ex.hints] if h.code == code)


def message(ex: Explanation, code: str) -> str:
    return hint(ex, code).message


def test_mig_claim_on_a_node_without_mig_devices() -> None:
    state, keys, n = scenario("seed-08-mig-disabled-node")
    ex = explain_claims(state, keys, [n])
    assert codes(ex) == ["mig-disabled"]
    assert message(ex, "mig-disabled").startswith(MIG_OFF)
    # The plain GPU claim of step 2 fits: no hint.
    state, keys, n = scenario("seed-08-mig-disabled-node", step=2)
    assert codes(explain_claims(state, keys, [n])) == []


def test_mig_hint_not_given_where_mig_devices_exist() -> None:
    state, keys, n = scenario("seed-11-full-gpu-blocked-by-mig-slices", step=2)
    assert "mig-disabled" not in codes(explain_claims(state, keys, [n]))


def test_class_selector_reading_an_unpublished_attribute() -> None:
    state, keys, n = scenario("s1-0038-error")
    ex = explain_claims(state, keys, [n])
    msg = message(ex, "missing-attribute")
    assert msg.startswith("no such key: type: the class selector #0 of class gpu.nvidia.com")
    assert "8 device(s) of driver gpu.nvidia.com" in msg


def test_missing_attribute_that_the_search_happened_not_to_reach() -> None:
    cls = device_class(expression=f'device.attributes["{DRIVER}"].model == "a100"')
    docs = [node("n1"), cls, slice_("s1", "n1", [gpu("g0"), {"name": "g1"}]), claim("c", [exact("r")])]
    ex = explain_claim(state_of(docs), ("default", "c"))
    assert ex.groups[0].verdict.status == "allocated"
    assert "succeeded only because" in message(ex, "missing-attribute")


def test_latent_runtime_error() -> None:
    cls = device_class(expression=f'10 / device.attributes["{DRIVER}"].slots > 1')
    docs = [node("n1"), cls,
            slice_("s1", "n1", [gpu("g0", attrs={"slots": {"int": 2}}), gpu("g1", attrs={"slots": {"int": 0}})]),
            claim("c", [exact("r")])]
    ex = explain_claim(state_of(docs), ("default", "c"))
    assert ex.groups[0].verdict.status == "allocated"
    assert "division by zero" in message(ex, "latent-cel-error")


def test_pool_slice_count_mismatch() -> None:
    docs = [node("n1"), device_class(), slice_("s1", "n1", [gpu("g0")], count=3), claim("c", [exact("r")])]
    ex = explain_claim(state_of(docs), ("default", "c"))
    msg = message(ex, "pool-slice-count")
    assert "declares resourceSliceCount 3, but 1 slice(s) of generation 1 exist" in msg
    docs[2:3] = [slice_("s1", "n1", [gpu("g0")], count=1), slice_("s2", "n1", [gpu("g1")], count=1)]
    assert "(more than declared)" in message(explain_claim(state_of(docs), ("default", "c")), "pool-slice-count")


def test_pool_invalid_and_obsolete_hints() -> None:
    docs = [node("n1"), device_class(), slice_("s1", "n1", [gpu("g0"), gpu("g0")]), claim("c", [exact("r")])]
    assert "duplicate device name g0" in message(explain_claim(state_of(docs), ("default", "c")), "pool-invalid")
    docs = [node("n1"), node("n2"), device_class(), slice_("a", "n1", [gpu("g0")], pool="p", count=2),
            slice_("b", "n2", [gpu("g1")], pool="p", generation=2, count=2), claim("c", [exact("r")])]
    ex = explain_claim(state_of(docs), ("default", "c"), ["n1"])
    assert "generation 2 exists" in message(ex, "pool-obsolete")


def test_preemption_will_not_help_when_other_claims_hold_the_devices() -> None:
    state, keys, n = scenario("seed-03-h100-else-a100-one-free-a100")
    ex = explain_claims(state, keys, [n])
    assert message(ex, "no-preemption").startswith(NO_PREEMPTION)
    assert hint(ex, "no-preemption").subjects == ["ml-team/training-job-7", "research/notebook-3"]
    # Counters held by running MIG slices count too.
    state, keys, n = scenario("seed-11-full-gpu-blocked-by-mig-slices")
    ex = explain_claims(state, keys, [n])
    assert hint(ex, "no-preemption").subjects == ["inference/small-0", "inference/small-1"]


def test_no_preemption_hint_when_freeing_devices_would_not_help() -> None:
    state, keys, n = scenario("seed-08-mig-disabled-node")
    assert "no-preemption" not in codes(explain_claims(state, keys, [n]))


def test_untolerated_taint() -> None:
    state, keys, n = scenario("seed-09-taint-rule-noschedule", step=3)
    msg = message(explain_claims(state, keys, [n]), "untolerated-taint")
    assert "example.com/maintenance=firmware-upgrade:NoSchedule" in msg


def _replicas() -> list[dict[str, Any]]:
    template = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": "gpu-tmpl", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                    {"name": "h100", "deviceClassName": "gpu",
                     "selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "h100"'}}]},
                    {"name": "a100", "deviceClassName": "gpu"}]}]}}}}
    docs: list[dict[str, Any]] = [node("n1"), node("n2"), device_class(), template,
                                  slice_("s1", "n1", [gpu("g0", "h100"), gpu("g1", "h100")]),
                                  slice_("s2", "n2", [gpu("g0", "a100")])]
    placed = {"p-0": ("gpu/h100", "n1", "g0"), "p-1": ("gpu/h100", "n1", "g1"), "p-2": ("gpu/a100", "n2", "g0")}
    for pod_name in ("p-0", "p-1", "p-2", "p-3"):
        docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": pod_name, "namespace": "default",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u",
                                 "controller": True}]},
            "spec": {"containers": [{"name": "c"}],
                     "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-tmpl"}]},
            "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": f"{pod_name}-gpu"}]
                       if pod_name in placed else []}})
        if pod_name in placed:
            c = claim(f"{pod_name}-gpu", template["spec"]["spec"]["devices"]["requests"],
                      allocated=[placed[pod_name]],
                      annotations={"resource.kubernetes.io/pod-claim-name": "gpu"},
                      ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": pod_name, "uid": "x",
                                        "controller": True}])
            docs.append(c)
    return docs


def test_replicas_of_one_template_got_different_alternatives() -> None:
    state = state_of(_replicas())
    ex = explain_claim(state, ("default", "p-2-gpu"))
    msg = message(ex, "replicas-differ")
    assert msg.startswith("replicas of ResourceClaimTemplate default/gpu-tmpl got different alternatives")
    assert "gpu/h100 x2" in msg and "gpu/a100 x1 (default/p-2-gpu)" in msg
    # The pending fourth replica (claim still to be made from the template) gets the hint too.
    ex = explain_pod(state, ("default", "p-3"))
    assert "replicas-differ" in codes(ex)
    assert ex.allocatable_nodes == []  # every GPU is taken
    assert "no-preemption" in codes(ex)


def _two_claims(first: int, second: int, *, selector: bool = False) -> list[dict[str, Any]]:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "h100"'}}]}
    return [device_class(), node("n1"), slice_("n1-gpus", "n1", [gpu("g0"), gpu("g1"), gpu("g2", "h100")]),
            claim("a", [exact("gpu", count=first)]),
            claim("b", [exact("gpu", count=second, **(spec if selector else {}))])]


def test_claims_drawing_on_the_same_devices_name_each_other() -> None:
    state = state_of(_two_claims(2, 2))
    ex = explain_claims(state, [("default", "a"), ("default", "b")], ["n1"])
    assert ex.groups[0].verdict.status == "unsatisfiable"
    text = hint(ex, "claims-share-devices").message
    assert "request gpu of claim default/b needs 2 device(s) and request gpu of claim default/a needs 2" in text
    assert "3 suit both, 3 suit either, fewer than the 4" in text


def test_no_shared_devices_hint_when_they_fit_together_or_one_is_short_alone() -> None:
    fits = state_of(_two_claims(2, 1))
    assert "claims-share-devices" not in codes(explain_claims(fits, [("default", "a"), ("default", "b")], ["n1"]))
    # b's selector leaves it one H100; it needs 2 alone: the counts say so, not the sharing.
    short = state_of(_two_claims(1, 2, selector=True))
    ex = explain_claims(short, [("default", "a"), ("default", "b")], ["n1"])
    assert ex.groups[0].verdict.status == "unsatisfiable"
    assert "claims-share-devices" not in codes(ex)
