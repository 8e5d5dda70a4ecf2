"""feature_uses with `want`: the uses of the wanted gates, in the order of every use filtered afterwards."""

from __future__ import annotations

from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import resource as r
from drasim.api.quantity import quantity_dec_hook
from drasim.lint.rules_features import _GATED_KINDS, feature_uses
from hypothesis_budget import examples

GATES = ("DRAPartitionableDevices", "DRAPartitionableDevicesType", "DRAOptionalNodeOperations", "DRADeviceTaints",
         "DRADeviceBindingConditions", "DRAConsumableCapacity", "DRAListTypeAttributes",
         "DRANodeAllocatableResources")

# Every gated device field, in wire form; a device sets any subset.
DEVICE_FIELDS: dict[str, Any] = {
    "consumesCounters": [{"counterSet": "cs", "counters": {"mem": {"value": "1Gi"}}}],
    "nodeName": "n1",
    "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                              "values": ["n1"]}]}]},
    "allNodes": True,
    "taints": [{"key": "k", "effect": "NoSchedule"}],
    "bindsToNode": True,
    "bindingConditions": ["ready"],
    "bindingFailureConditions": ["failed"],
    "allowMultipleAllocations": True,
    "capacity": {"mem": {"value": "1Gi", "requestPolicy": {"default": "1Gi"}}, "plain": {"value": "2"}},
    "attributes": {"a": {"string": "x"}, "l": {"ints": [1, 2]}, "v": {"versions": ["1.0.0"]}},
    "nodeAllocatableResourceMappings": {"cpu": {"capacityKey": "cores"}},
    "nodeAllocatableResources": {"cpu": {}},
}
SLICE_FIELDS: dict[str, Any] = {
    "sharedCounters": [{"name": "cs", "counters": {"mem": {"value": "8Gi"}}}],
    "perDeviceNodeSelection": True,
    "partitionTypeAttribute": "type",
    "skipNodeOperations": ["Prepare"],
}


def _slice(slice_fields: list[str], devices: list[list[str]]) -> r.ResourceSlice:
    spec: dict[str, Any] = {"driver": "d.example.com", "pool": {"name": "p", "resourceSliceCount": 1},
                            "allNodes": True, **{k: SLICE_FIELDS[k] for k in slice_fields}}
    spec["devices"] = [{"name": f"dev-{i}", **{k: DEVICE_FIELDS[k] for k in fields}}
                       for i, fields in enumerate(devices)]
    doc = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": spec}
    return msgspec.convert(doc, type=r.ResourceSlice, dec_hook=quantity_dec_hook)


@settings(max_examples=examples(200), deadline=None)
@given(slice_fields=st.lists(st.sampled_from(sorted(SLICE_FIELDS)), unique=True),
       devices=st.lists(st.lists(st.sampled_from(sorted(DEVICE_FIELDS)), unique=True), max_size=4),
       wanted=st.sets(st.sampled_from(GATES)))
def test_wanted_uses_are_the_filtered_uses(slice_fields: list[str], devices: list[list[str]],
                                           wanted: set[str]) -> None:
    obj = _slice(slice_fields, devices)
    every = list(feature_uses(obj))
    assert list(feature_uses(obj, wanted.__contains__)) == [u for u in every if u[0] in wanted]
    assert {u[0] for u in every} <= set(GATES)


_CLAIM_SPEC = {"devices": {"requests": [{"name": "r", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}]}}
# One object of each kind feature_uses looks into, each with a gated field.
_OF_EACH_KIND: list[tuple[type, dict[str, Any]]] = [
    (r.ResourceSlice, {"metadata": {"name": "s"}, "spec": {"driver": "d.example.com", "allNodes": True,
                                                            "pool": {"name": "p", "resourceSliceCount": 1},
                                                            "perDeviceNodeSelection": True}}),
    (r.DeviceClass, {"metadata": {"name": "c"}, "spec": {"extendedResourceName": "example.com/gpu"}}),
    (r.ResourceClaim, {"metadata": {"name": "c", "namespace": "ns"}, "spec": _CLAIM_SPEC}),
    (r.ResourceClaimTemplate, {"metadata": {"name": "t", "namespace": "ns"}, "spec": {"spec": _CLAIM_SPEC}}),
    (r.DeviceTaintRule, {"metadata": {"name": "t"},
                         "spec": {"taint": {"key": "k", "effect": "NoSchedule"}}}),
]


def test_check_features_looks_into_every_kind_feature_uses_reads() -> None:
    # check_features skips objects not of _GATED_KINDS: a kind feature_uses gains must be added there too.
    for kind, doc in _OF_EACH_KIND:
        obj = msgspec.convert({"kind": kind.KIND, **doc}, type=kind, dec_hook=quantity_dec_hook)
        assert list(feature_uses(obj)), kind.KIND
        assert isinstance(obj, _GATED_KINDS), kind.KIND
