"""Nodes with the same scheduler signature share one search: the explanation is the one every node searched
on its own gives, byte for byte (random fleets with identical, allocated, tainted and differing nodes)."""

from __future__ import annotations

import io
import json
from typing import Any
from unittest import mock

from explain_helpers import DRIVER, claim, device_class, exact, gpu, node, slice_, state_of
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from drasim.allocator import Features
from drasim.explain import Explanation, context, explain_claim, explain_claims
from drasim.explain.render import render_text, to_dict
from drasim.releases import RELEASES
from hypothesis_budget import examples

OTHER = "nic.example.com"
Fleet = tuple[list[dict[str, Any]], Features, str, tuple[int, int] | None]


def _device(draw: st.DrawFn, name: str, counters: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {"index": {"int": draw(st.integers(0, 2))}}
    if draw(st.integers(0, 5)) == 0:
        attrs["bad"] = {"int": 1}  # a selector comparing it to a string errs at runtime
    dev = gpu(name, draw(st.sampled_from(["a", "a", "b"])), attrs=attrs)
    if counters and draw(st.booleans()):
        slot = {"slot": {"value": f"{draw(st.integers(1, 2))}Ki"}}
        dev["consumesCounters"] = [{"counterSet": "cs", "counters": slot}]
    if draw(st.integers(0, 4)) == 0:
        dev["taints"] = [{"key": "k", "effect": draw(st.sampled_from(["NoSchedule", "None"]))}]
    return dev


def _request(draw: st.DrawFn, name: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"count": draw(st.integers(0, 3))}
    if draw(st.integers(0, 6)) == 0:
        fields = {"allocationMode": "All"}
    sel = draw(st.sampled_from([None, None, "a", "bad"]))
    if sel == "a":
        fields["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a"'}}]
    elif sel == "bad":
        fields["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].bad == "x"'}}]
    if draw(st.booleans()):
        fields["tolerations"] = [{"key": "k", "operator": "Exists"}]
    return exact(name, **fields)


@st.composite
def fleets(draw: st.DrawFn) -> Fleet:
    """A few node kinds (device lists) and nodes of those kinds, some changed by allocations, taint rules,
    labels, a second driver whose pools share the node's name, or a pool name used on several nodes."""
    counters = draw(st.booleans())
    kinds = [[_device(draw, f"g{i}", counters) for i in range(draw(st.integers(1, 4)))]
             for _ in range(draw(st.integers(1, 3)))]
    docs: list[dict[str, Any]] = [device_class(), device_class("nic", f'device.driver == "{OTHER}"')]
    names = [f"n{i}" for i in range(draw(st.integers(2, 7)))]
    held: list[tuple[str, str]] = []
    for name in names:
        devices = kinds[draw(st.integers(0, len(kinds) - 1))]
        pool = "shared" if draw(st.integers(0, 7)) == 0 else name
        docs.append(node(name, **({"zone": "z1"} if draw(st.integers(0, 3)) == 0 else {})))
        docs.append(slice_(f"{name}-s", name, devices, pool=pool, count=2 if counters else 1))
        if counters:
            slots = draw(st.integers(1, 3))  # the same amount spelled two ways (explain's words keep the spelling)
            value = draw(st.sampled_from([f"{slots}Ki", str(slots * 1024)]))
            docs.append(slice_(f"{name}-c", name, [], pool=pool, count=2, sharedCounters=[
                {"name": "cs", "counters": {"slot": {"value": value}}}]))
        if draw(st.integers(0, 5)) == 0:  # another driver's pool named like the node
            nic = slice_(f"{name}-nic", name, [gpu("nic0")], pool=name)
            nic["spec"]["driver"] = OTHER
            docs.append(nic)
        if draw(st.integers(0, 3)) == 0:  # the same taint on nodes alike, from a rule named for the node
            docs.append({"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule",
                         "metadata": {"name": f"drain-{name}"},
                         "spec": {"deviceSelector": {"driver": DRIVER, "pool": pool, "device": "g0"},
                                  "taint": {"key": "m", "effect": "NoSchedule"}}})
        for dev in devices:
            if draw(st.integers(0, 4)) == 0:
                held.append((pool, dev["name"]))
    for i, (pool_name, dev_name) in enumerate(held):
        docs.append(claim(f"holder-{i}", [exact("r")], ns="team", allocated=[("r", pool_name, dev_name)]))
    for c in range(draw(st.integers(1, 2))):
        requests = []
        for q in range(draw(st.integers(1, 2))):
            if draw(st.booleans()):
                subs = [_request(draw, f"s{k}") for k in range(draw(st.integers(1, 2)))]
                requests.append({"name": f"r{q}", "firstAvailable": [
                    {"name": s["name"], **s["exactly"]} for s in subs]})
            else:
                requests.append(_request(draw, f"r{q}"))
        constraints = draw(st.sampled_from([[], [], [{"matchAttribute": f"{DRIVER}/model"}],
                                            [{"distinctAttribute": f"{DRIVER}/index"}]]))
        docs.append(claim(f"c{c}", requests, constraints=constraints))
    features = Features(device_taints=draw(st.booleans()), partitionable_devices=draw(st.booleans()),
                        release=draw(st.sampled_from(RELEASES)))
    target = draw(st.sampled_from(["claims", "holder"] if held else ["claims"]))
    # Small budgets: a search cut by its deadline, the explanation's steps running out part-way.
    budget = draw(st.sampled_from([None, None, (1, 1), (6, 4), (40, 25), (300, 25), (300, 1000)]))
    return docs, features, target, budget


def _text(ex: Explanation) -> str:
    out = io.StringIO()
    render_text(ex, Console(file=out, width=200, color_system=None), wide=True)
    return json.dumps(to_dict(ex), sort_keys=True, default=str) + "\n" + out.getvalue()


def _explain(docs: list[dict[str, Any]], features: Features, target: str, share: bool) -> str:
    state = state_of(docs, features)
    if target == "holder":
        return _text(explain_claim(state, ("team", "holder-0"), share=share))
    keys = sorted(k for k in state.claims if k[0] == "default")
    return _text(explain_claims(state, keys, share=share))


@settings(max_examples=examples(150))
@given(fleets())
def test_sharing_searches_changes_no_explanation(fleet: Fleet) -> None:
    docs, features, target, budget = fleet
    total, per_call = budget or (context.EXPLAIN_BUDGET_STEPS, context.FILTER_BUDGET_STEPS)
    with mock.patch.object(context, "EXPLAIN_BUDGET_STEPS", total), \
            mock.patch.object(context, "FILTER_BUDGET_STEPS", per_call):
        assert _explain(docs, features, target, share=True) == _explain(docs, features, target, share=False)


def test_identical_nodes_are_searched_once() -> None:
    docs = [device_class(), claim("c", [exact("r", count=3)])]
    for n in ("n1", "n2", "n3"):
        docs += [node(n), slice_(f"{n}-s", n, [gpu("g0"), gpu("g1")])]
    state = state_of(docs)
    with mock.patch.object(context, "_verdict", wraps=context._verdict) as calls:
        ex = explain_claims(state, [("default", "c")])
    assert [g.nodes for g in ex.groups] == [["n1", "n2", "n3"]]
    assert calls.call_count == 2  # the claim, and the claim with nothing allocated (the preemption hint)


def _rule(name: str, pool: str, device: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": name},
            "spec": {"deviceSelector": {"driver": DRIVER, "pool": pool, "device": device},
                     "taint": {"key": "m", "effect": "NoSchedule"}}}


def test_a_shared_answer_names_each_nodes_own_devices() -> None:
    # Same signature (the same taint on g0), different words (the rule's name): two groups, each with its
    # node's device.
    docs = [device_class(), claim("c", [exact("r")])]
    for n in ("n1", "n2"):
        docs += [node(n), slice_(f"{n}-s", n, [gpu("g0"), gpu("g1")]), _rule(f"drain-{n}", n, "g0")]
    ex = explain_claims(state_of(docs), [("default", "c")])
    assert [(g.nodes, [d.device for d in g.verdict.devices]) for g in ex.groups] == [
        (["n1"], [f"{DRIVER}/n1/g1"]), (["n2"], [f"{DRIVER}/n2/g1"])]
    assert _explain(docs, Features(), "claims", True) == _explain(docs, Features(), "claims", False)


def test_counter_pools_named_alike_are_searched_alone() -> None:
    # Two drivers' pools named like the node: the allocator caches free counters by pool name, so the first
    # pool looked up decides for both; no signature may look one up before the search does.
    nic = slice_("n1-nic", "n1", [gpu("nic0", consumesCounters=[
        {"counterSet": "cs", "counters": {"slot": {"value": "2"}}}])], pool="n1", count=2)
    nic_counters = slice_("n1-nic-c", "n1", [], pool="n1", count=2, sharedCounters=[
        {"name": "cs", "counters": {"slot": {"value": "1"}}}])
    for s in (nic, nic_counters):
        s["spec"]["driver"] = OTHER
    gpu_counters = slice_("n1-c", "n1", [], pool="n1", count=2, sharedCounters=[
        {"name": "cs", "counters": {"slot": {"value": "4"}}}])
    docs = [device_class(), device_class("nic", f'device.driver == "{OTHER}"'), node("n1"),
            slice_("n1-s", "n1", [gpu("g0")], pool="n1", count=2), gpu_counters, nic, nic_counters,
            claim("c", [exact("r", cls="nic")])]
    assert _explain(docs, Features(), "claims", True) == _explain(docs, Features(), "claims", False)


def test_counter_words_keep_each_slices_spelling() -> None:
    # The same amounts (one signature), spelled 1Ki and 1024: each node's words keep its slice's spelling.
    docs = [device_class(), claim("c", [exact("r")])]
    for n, value in (("n1", "1Ki"), ("n2", "1024")):
        docs += [node(n), slice_(f"{n}-s", n, [gpu("g0", consumesCounters=[
                     {"counterSet": "cs", "counters": {"slot": {"value": "2Ki"}}}])], count=2),
                 slice_(f"{n}-c", n, [], pool=n, count=2, sharedCounters=[
                     {"name": "cs", "counters": {"slot": {"value": value}}}])]
    ex = explain_claims(state_of(docs), [("default", "c")])
    details = [e.detail for g in ex.groups for a in g.claims[0].requests[0].alternatives for e in a.excluded]
    assert details == ["counter set cs: slot needs 2Ki, 1Ki left", "counter set cs: slot needs 2048, 1024 left"]
    assert _explain(docs, Features(), "claims", True) == _explain(docs, Features(), "claims", False)
