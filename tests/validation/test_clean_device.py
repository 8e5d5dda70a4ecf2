"""ResourceSlice admission's fused pass over clean devices and its memo of clean counter consumptions: the same
findings and the same stored slice as the full per-device checks, for devices with any mix of regular and
irregular fields and any gates."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_object
from drasim.api.encode import encode_object
from drasim.api.gates import ValidationFeatures
from drasim.api.resource import DeviceAttribute
from drasim.validation import resourceslice
from drasim.validation.objects import store_object
from hypothesis_budget import examples

# Device fields, each a few values: valid ones as a fleet publishes them, and ones some check reports.
ATTRIBUTES = {
    "plain": {"model": {"string": "h100"}, "index": {"int": 0}, "ok": {"bool": True}, "v": {"version": "1.2.3"}},
    "bad-version": {"v": {"version": "1.2"}},
    "long-string": {"model": {"string": "x" * 65}},
    "non-ascii": {"model": {"string": "é" * 40}},
    "two-values": {"model": {"string": "a", "int": 1}},
    "no-value": {"model": {}},
    "list": {"l": {"ints": [1, 2]}},
    "bad-name": {"Bad-Name": {"int": 1}},
    "qualified": {"gpu.example.com/model": {"string": "h100"}},
    "many": {f"a{i}": {"int": i} for i in range(33)},
}
CAPACITY = {
    "plain": {"memory": {"value": "80Gi"}},
    "policy": {"memory": {"value": "80Gi", "requestPolicy": {"default": "1Gi"}}},
    "bad-name": {"Bad_Name": {"value": "1"}},
}
EXTRA = {
    "counters": {"consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "1Gi"}}}]},
    "bad-counters": {"consumesCounters": [{"counterSet": "Bad_Set", "counters": {"Mem_X": {"value": "1Gi"}}}]},
    "more-counters": {"consumesCounters": [{"counterSet": "gpu-0", "counters": {
        "memory": {"value": "1Gi"}, "Slice_0": {"value": "1"}}}]},
    "no-counters": {"consumesCounters": [{"counterSet": "gpu-0", "counters": {}}]},
    "no-set": {"consumesCounters": [{"counterSet": "", "counters": {"memory": {"value": "1Gi"}}}]},
    "twice": {"consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "1Gi"}}},
                                   {"counterSet": "gpu-0", "counters": {"memory": {"value": "2Gi"}}}]},
    "taints": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
    "node-name": {"nodeName": "n1"},
    "all-nodes": {"allNodes": True},
    "binds": {"bindsToNode": True, "bindingConditions": ["ready"]},
    "multi": {"allowMultipleAllocations": True},
    "mappings": {"nodeAllocatableResourceMappings": {"cpu": {"capacityKey": "cores"}}},
}
NAMES = ("gpu-0", "gpu-1", "Bad_Device", "gpu-0")


def _gates() -> list[str]:
    return [f.name for f in dataclasses.fields(ValidationFeatures) if f.type in (bool, "bool")]


device = st.fixed_dictionaries({
    "name": st.sampled_from(NAMES),
    "attributes": st.lists(st.sampled_from(sorted(ATTRIBUTES)), max_size=3),
    "capacity": st.lists(st.sampled_from(sorted(CAPACITY)), max_size=2),
    "extra": st.lists(st.sampled_from(sorted(EXTRA)), max_size=2),
})


def _doc(devices: list[dict[str, Any]], per_device: bool) -> dict[str, Any]:
    out = []
    for d in devices:
        doc: dict[str, Any] = {"name": d["name"]}
        attrs: dict[str, Any] = {}
        for key in d["attributes"]:
            attrs.update(ATTRIBUTES[key])
        caps: dict[str, Any] = {}
        for key in d["capacity"]:
            caps.update(CAPACITY[key])
        if attrs:
            doc["attributes"] = attrs
        if caps:
            doc["capacity"] = caps
        for key in d["extra"]:
            doc.update(EXTRA[key])
        out.append(doc)
    spec: dict[str, Any] = {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1},
                            "devices": out}
    spec.update({"perDeviceNodeSelection": True} if per_device else {"nodeName": "n1"})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": spec}


def _admitted(doc: dict[str, Any], features: ValidationFeatures) -> tuple[dict[str, Any], list[str]]:
    stored, findings = store_object(decode_object(copy.deepcopy(doc), source="test"), features=features)
    return encode_object(stored), [f"{f.severity} {f.obj}: {f}" for f in findings]


@settings(max_examples=examples(300), deadline=None)
@given(devices=st.lists(device, max_size=4), per_device=st.booleans(), on=st.sets(st.sampled_from(_gates())))
def test_clean_devices_admitted_as_by_the_full_checks(devices: list[dict[str, Any]], per_device: bool,
                                                       on: set[str]) -> None:
    features = ValidationFeatures(**{g: g in on for g in _gates()})
    doc = _doc(devices, per_device)
    fast = _admitted(doc, features)
    # The full checks: no device taken as clean, no counter consumption remembered as clean.
    with mock.patch.object(resourceslice, "_clean_devices", lambda devices, features: [False] * len(devices)), \
            mock.patch.object(resourceslice, "_CLEAN_CONSUMPTIONS", set()), \
            mock.patch.object(resourceslice, "_MAX_CLEAN", 0):
        full = _admitted(doc, features)
    assert fast == full
    # The clean devices checked one by one (`clean_device`, then duplicate names) rather than as a set at once.
    with mock.patch.object(resourceslice, "_nothing_to_report", lambda devices, max_devices: False):
        assert _admitted(doc, features) == fast


def test_too_many_clean_devices_reported_as_by_the_per_device_checks() -> None:
    doc = _doc([{"name": f"gpu-{i}", "attributes": ["plain"], "capacity": [], "extra": []} for i in range(129)],
               per_device=False)
    fast = _admitted(doc, ValidationFeatures())
    with mock.patch.object(resourceslice, "_nothing_to_report", lambda devices, max_devices: False):
        assert _admitted(doc, ValidationFeatures()) == fast
    assert fast[1] == ["error ResourceSlice/s: spec.devices: Too many: 129: must have at most 128 items"]


# Attribute values with any mix of fields set: scalars valid and not (long, multi-byte, not semver), lists.
_SCALARS = {
    "int_": st.integers(-3, 3),
    "bool_": st.booleans(),
    "string": st.one_of(st.text(max_size=70), st.sampled_from(["x" * 64, "x" * 65, "é" * 32, "é" * 33])),
    "version": st.sampled_from(["1.2.3", "1.2", "01.2.3", "1.2.3-rc.1+b", "", "9" * 62 + ".0.0"]),
    "ints": st.lists(st.integers(), max_size=2),
    "bools": st.lists(st.booleans(), max_size=2),
    "strings": st.lists(st.text(max_size=3), max_size=2),
    "versions": st.lists(st.sampled_from(["1.0.0", "x"]), max_size=2),
}
attribute = st.sets(st.sampled_from(sorted(_SCALARS)), max_size=3).flatmap(
    lambda fields: st.fixed_dictionaries({f: _SCALARS[f] for f in fields})).map(lambda kw: DeviceAttribute(**kw))
# Mostly one scalar, the form a fleet publishes: the fast path is taken and gets past the first attribute.
one_scalar = st.sampled_from(["int_", "bool_", "string", "version"]).flatmap(
    lambda f: _SCALARS[f].map(lambda v: DeviceAttribute(**{f: v})))


@settings(max_examples=examples(500), deadline=None)
@given(st.dictionaries(st.text(max_size=3), st.one_of(one_scalar, one_scalar, attribute), max_size=6))
def test_plain_scalars_is_the_per_attribute_scan(attributes: dict[str, DeviceAttribute]) -> None:
    n_values, irregular = resourceslice._scan_attributes(attributes, True)
    assert resourceslice._plain_scalars(attributes) == (not irregular)
    if not irregular:
        assert n_values == len(attributes)


def test_a_fleet_device_is_clean() -> None:
    """The fused pass does apply to the common device (else the test above compares the full path twice)."""
    doc = _doc([{"name": "gpu-0", "attributes": ["plain", "qualified"], "capacity": ["plain"],
                 "extra": ["counters"]}], per_device=False)
    obj = decode_object(doc, source="test")
    assert resourceslice._clean_devices(obj.spec.devices, ValidationFeatures()) == [True]
