"""Selector outcomes shared by device content (cel.reads, SelectorMemo.content_key) equal per-device evaluation.

Devices of one model differ only in names and UUIDs; static_signature evaluates the slots' selectors once per
distinct content of the entries they read. Properties: (1) devices with equal content keys get equal outcomes
from every expression, on generated devices (valid and invalid versions, list attributes, capacity spellings,
allowMultipleAllocations, devices differing only in name and UUID); (2) static signatures with the sharing on
are those with it off, on the grouping properties' generated clusters.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import build
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_grouping_properties import scenario

from drasim.allocator.celmatch import SelectorMemo
from drasim.api.defaults import apply_claim_defaults
from drasim.api.resource import Device, ResourceClaim
from drasim.cel import CelCompileError, CelEnvironment, CelRuntimeError, compile_selector
from drasim.cluster import ClusterState
from drasim.scheduler import grouping
from drasim.scheduler.grouping import Shape, static_signature
from hypothesis_budget import examples

D = "gpu.example.com"
EXPRESSIONS = [
    f"device.driver == '{D}' && device.attributes['{D}'].model == 'h100'",
    f"device.attributes['{D}'].model.startsWith('h')",  # errs where the attribute is missing
    f"has(device.attributes['{D}'].numa) && device.attributes['{D}']['numa'] == 1",
    f"device.attributes['{D}'].?numa.orValue(0) == 0",
    f"device.attributes['{D}'].version.isGreaterThan(semver('1.0.0'))",
    f"device.capacity['{D}'].memory.compareTo(quantity('40Gi')) > 0",
    f"device.capacity['{D}'].memory.isInteger()",
    "device.attributes['other.io'].model == 'h100'",
    "device.allowMultipleAllocations",
    f"device.attributes['{D}'].model == 'h100' || device.attributes['{D}'].uuid == 'GPU-1'",
    # Not shareable by entries (reads unknown): whole maps, comprehensions.
    f"'model' in device.attributes['{D}']",
    f"device.attributes['{D}'].exists(k, k == 'numa')",
    "size(device.capacity) > 0",
]
ENVS = [CelEnvironment(), CelEnvironment(list_type_attributes=True)]


@st.composite
def content(draw: st.DrawFn) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if draw(st.booleans()):
        attrs["model"] = draw(st.sampled_from([{"string": "h100"}, {"string": "a100"}, {"strings": ["h100", "x"]},
                                               {"int": 1}]))
    if draw(st.booleans()):
        attrs["numa"] = draw(st.sampled_from([{"int": 0}, {"int": 1}, {"bool": True}, {"ints": [1]}]))
    if draw(st.booleans()):
        attrs["version"] = draw(st.sampled_from([{"version": "1.2.0"}, {"version": "0.9.0"}, {"version": "bad"},
                                                 {"versions": ["1.0.0"]}]))
    if draw(st.booleans()):
        attrs[f"{D}/model"] = {"string": "h100"}  # a qualified twin: lookups see the unqualified one first
    caps = {}
    if draw(st.booleans()):
        caps["memory"] = {"value": draw(st.sampled_from(["40Gi", "80Gi", "81920Mi", "85899345920", "1.5"]))}
    out: dict[str, Any] = {"attributes": attrs, "capacity": caps}
    if draw(st.booleans()):
        out["allowMultipleAllocations"] = draw(st.booleans())
    return out


def _outcome(memo: SelectorMemo, expression: str, driver: str, device: Device) -> object:
    try:
        got = memo.evaluate(expression, driver, device)
    except CelCompileError as err:
        return ("compile", err.message)
    return ("error", got.message) if isinstance(got, CelRuntimeError) else got


@settings(max_examples=examples(200))
@given(st.lists(content(), min_size=1, max_size=4), st.lists(st.integers(0, 3), min_size=2, max_size=10),
       st.sampled_from(ENVS), st.sampled_from([D, "other.io"]))
def test_equal_content_keys_give_equal_outcomes(contents: list[dict[str, Any]], picks: list[int],
                                                env: CelEnvironment, driver: str) -> None:
    # Devices repeat contents under other names and UUIDs: what a fleet of one model looks like.
    devices = []
    for i, pick in enumerate(picks):
        raw = contents[pick % len(contents)]
        attrs = {**raw["attributes"], "uuid": {"string": f"GPU-{i}"}}
        devices.append(build(Device, {**raw, "name": f"gpu-{i}", "attributes": attrs}))
    memo = SelectorMemo(env)
    for expression in EXPRESSIONS:
        try:
            reads = compile_selector(expression, env).reads
        except CelCompileError:
            reads = None
        seen: dict[tuple[object, ...], object] = {}
        for dev in devices:
            key = memo.content_key((expression,), driver, dev)
            if reads is None:
                assert key is None
                continue
            # A fresh memo per device: nothing shared but what the key says.
            outcome = _outcome(SelectorMemo(env), expression, driver, dev)
            if key is None:
                event("device fails conversion: not keyed")
                continue
            if key in seen:
                event("content key shared")
                assert seen[key] == outcome, (expression, dev)
            seen[key] = outcome


def test_reads_are_unknown_for_whole_maps_and_comprehensions() -> None:
    assert compile_selector(EXPRESSIONS[0]).reads == (("attributes", D, "model", f"{D}/model"),)
    assert compile_selector(EXPRESSIONS[5]).reads == (("capacity", D, "memory", f"{D}/memory"),)
    assert compile_selector("device.allowMultipleAllocations").reads == ()
    for expression in EXPRESSIONS[-3:]:
        assert compile_selector(expression).reads is None, expression


def test_devices_differing_only_in_uuid_share_a_key_unless_the_selector_reads_it() -> None:
    memo = SelectorMemo()
    a, b = (build(Device, {"name": f"gpu-{i}", "attributes": {"model": {"string": "h100"},
                                                               "uuid": {"string": f"GPU-{i}"}}}) for i in (0, 1))
    assert memo.content_key((EXPRESSIONS[0],), D, a) == memo.content_key((EXPRESSIONS[0],), D, b)
    assert memo.content_key((EXPRESSIONS[-4],), D, a) != memo.content_key((EXPRESSIONS[-4],), D, b)


@settings(max_examples=examples(150))
@given(scenario())
def test_static_signatures_with_shared_selectability_equal_those_without(data: tuple[list[Any], list[Any]]) -> None:
    objs, pods = data
    state = ClusterState.from_objects(objs)
    cache = state.slice_cache()
    for n, specs in enumerate(pods):
        claims = [apply_claim_defaults(build(ResourceClaim, {"metadata": {"name": f"p{n}-c{i}", "namespace": "ns"},
                                                             "spec": spec})) for i, spec in enumerate(specs)]
        shape = Shape(claims, state.classes, n)
        sigs = {}
        for share in (True, False):
            memo = SelectorMemo()  # one for all nodes, as the scheduler's: shared verdicts cross nodes
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(grouping, "SHARE_SELECTABLE", share)
                sigs[share] = [static_signature(shape, cache.view(nd, state.features), nd, memo, state.features)
                               for nd in state.nodes.values()]
        assert sigs[True] == sigs[False]
        event(f"distinct signatures: {len(set(sigs[True]))} of {len(sigs[True])}")
