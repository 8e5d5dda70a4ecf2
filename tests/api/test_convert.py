"""convert.py: v1beta1/v1beta2/v1alpha3 objects decode to the same v1 objects as their v1 equivalents."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from drasim.api.convert import original_path, to_v1
from drasim.api.decode import decode_documents, decode_json_bytes, decode_object
from drasim.api.resource import DeviceTaintRule, ResourceClaim, ResourceClaimTemplate, ResourceSlice
from drasim.errors import InputError

DEVICE_FIELDS: dict[str, Any] = {
    "attributes": {"productName": {"string": "NVIDIA A100-SXM4-40GB"}, "index": {"int": 0}},
    "capacity": {"memory": {"value": "40Gi"}, "sms": {"value": 98, "requestPolicy": {"default": 14}}},
    "consumesCounters": [{"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "40Gi"}}}],
    "taints": [{"key": "maintenance", "value": "firmware", "effect": "NoSchedule"}],
    "bindsToNode": True,
    "bindingConditions": ["attached"],
    "bindingFailureConditions": ["failed"],
    "allowMultipleAllocations": True,
}


def v1_slice() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "pool": {"name": "p", "generation": 2, "resourceSliceCount": 1},
            "perDeviceNodeSelection": True,
            "devices": [
                {"name": "gpu-0", "nodeName": "node-1", **copy.deepcopy(DEVICE_FIELDS)},
                {"name": "gpu-1", "allNodes": True},
            ],
        },
    }


def v1beta1_slice() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "pool": {"name": "p", "generation": 2, "resourceSliceCount": 1},
            "perDeviceNodeSelection": True,
            "nodeName": "",
            "allNodes": False,
            "devices": [
                {"name": "gpu-0", "basic": {"nodeName": "node-1", **copy.deepcopy(DEVICE_FIELDS)}},
                {"name": "gpu-1", "basic": {"allNodes": True}},
            ],
        },
    }


REQUEST: dict[str, Any] = {
    "deviceClassName": "gpu.nvidia.com",
    "selectors": [{"cel": {"expression": 'device.attributes["gpu.nvidia.com"].index == 0'}}],
    "allocationMode": "ExactCount",
    "count": 2,
    "adminAccess": False,
    "tolerations": [{"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}],
    "capacity": {"requests": {"memory": "10Gi"}},
}
SUBREQUESTS: list[dict[str, Any]] = [
    {"name": "h100", "deviceClassName": "gpu.nvidia.com", "count": 1},
    {"name": "a100", "deviceClassName": "gpu.nvidia.com", "count": 2, "allocationMode": "ExactCount"},
]


def v1_claim(api_version: str = "resource.k8s.io/v1") -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {
            "devices": {
                "requests": [
                    {"name": "gpu", "exactly": copy.deepcopy(REQUEST)},
                    {"name": "any", "firstAvailable": copy.deepcopy(SUBREQUESTS)},
                ],
                "constraints": [{"requests": ["gpu"], "matchAttribute": "gpu.nvidia.com/productName"}],
                "config": [
                    {"requests": ["gpu"], "opaque": {"driver": "gpu.nvidia.com", "parameters": {"a": 1}}}
                ],
            }
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "p", "device": "gpu-0"}
                    ]
                }
            }
        },
    }


def v1beta1_claim() -> dict[str, Any]:
    doc = v1_claim("resource.k8s.io/v1beta1")
    doc["spec"]["devices"]["requests"] = [
        {"name": "gpu", **copy.deepcopy(REQUEST)},
        {"name": "any", "firstAvailable": copy.deepcopy(SUBREQUESTS)},
    ]
    return doc


def decode(doc: dict[str, Any]) -> Any:
    return decode_object(doc, source="t.yaml")


def test_v1beta1_slice_unwraps_basic() -> None:
    old, new = decode(v1beta1_slice()), decode(v1_slice())
    assert isinstance(old, ResourceSlice)
    assert old == new
    assert old.api_version == "resource.k8s.io/v1"
    assert old.spec.node_name is None and old.spec.all_nodes is None  # "" and false mean unset in v1beta1


def test_v1beta1_claim_moves_flat_fields_into_exactly() -> None:
    old, new = decode(v1beta1_claim()), decode(v1_claim())
    assert isinstance(old, ResourceClaim) and old == new
    assert old.spec.devices.requests[1].exactly is None  # firstAvailable only: no `exactly`


def test_v1beta1_zero_values_are_unset() -> None:
    doc = v1beta1_claim()
    doc["spec"]["devices"]["requests"] = [
        {"name": "r", "firstAvailable": SUBREQUESTS, "count": 0, "deviceClassName": "", "allocationMode": ""}
    ]
    claim = decode(doc)
    assert claim.spec.devices.requests[0].exactly is None


def test_v1beta2_is_the_v1_shape() -> None:
    assert decode(v1_claim("resource.k8s.io/v1beta2")) == decode(v1_claim())
    beta2 = v1_slice()
    beta2["apiVersion"] = "resource.k8s.io/v1beta2"
    assert decode(beta2) == decode(v1_slice())


def test_v1beta1_template() -> None:
    claim = v1beta1_claim()
    template = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "ns"},
        "spec": {"metadata": {"labels": {"a": "b"}}, "spec": claim["spec"]},
    }
    obj = decode(template)
    assert isinstance(obj, ResourceClaimTemplate)
    assert obj.spec.spec == decode(v1_claim()).spec


def test_v1alpha3_claim_reads_like_v1beta1() -> None:
    doc = v1beta1_claim()
    doc["apiVersion"] = "resource.k8s.io/v1alpha3"
    assert decode(doc) == decode(v1_claim())


def test_device_taint_rules() -> None:
    rule = {
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {
            "deviceSelector": {"driver": "gpu.nvidia.com", "pool": "p", "device": "gpu-0"},
            "taint": {"key": "k", "value": "v", "effect": "NoExecute"},
        },
    }
    objs = [decode({"apiVersion": f"resource.k8s.io/{v}", **rule}) for v in ("v1", "v1beta2", "v1alpha3")]
    assert isinstance(objs[0], DeviceTaintRule) and objs[0] == objs[1] == objs[2]


@pytest.mark.parametrize("field", ["deviceClassName", "selectors"])
def test_v1alpha3_taint_rule_removed_selector_fields_are_errors(field: str) -> None:
    doc = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "r"},
        "spec": {"deviceSelector": {field: "x"}, "taint": {"key": "k", "effect": "NoSchedule"}},
    }
    with pytest.raises(InputError) as info:
        decode(doc)
    assert (
        info.value.path == f"spec.deviceSelector.{field}"
        and "removed in Kubernetes 1.35" in info.value.message
    )
    assert info.value.obj == "DeviceTaintRule/r"


def test_v1beta1_errors_point_into_the_original_document() -> None:
    doc = v1beta1_slice()
    doc["spec"]["devices"][0]["basic"]["attributes"]["index"] = {"int": "zero"}
    with pytest.raises(InputError) as info:
        decode(doc)
    assert info.value.path == "spec.devices[0].basic.attributes.index.int"
    doc = v1beta1_claim()
    doc["spec"]["devices"]["requests"][0]["count"] = "2"
    with pytest.raises(InputError) as info:
        decode(doc)
    assert (info.value.path, info.value.message) == (
        "spec.devices.requests[0].count",
        "expected int, got str",
    )


def test_v1beta1_fields_in_the_wrong_place() -> None:
    doc = v1beta1_slice()
    doc["spec"]["devices"][0]["attributes"] = {}  # v1 shape under a v1beta1 apiVersion
    with pytest.raises(InputError, match='unknown field "attributes"') as info:
        decode(doc)
    assert info.value.path == "spec.devices[0].attributes"
    doc = v1beta1_slice()
    doc["spec"]["devices"][0]["basic"]["color"] = "red"
    with pytest.raises(InputError) as info:
        decode(doc)
    assert info.value.path == "spec.devices[0].basic.color"
    doc = v1beta1_claim()
    doc["spec"]["devices"]["requests"][0]["exactly"] = {}
    with pytest.raises(InputError) as info:
        decode(doc)
    assert info.value.path == "spec.devices.requests[0].exactly"


def test_conversion_does_not_modify_the_input() -> None:
    doc = v1beta1_claim()
    before = copy.deepcopy(doc)
    to_v1(doc)
    assert doc == before
    same = v1_claim()
    assert to_v1(same) is same


def test_original_path() -> None:
    assert original_path("resource.k8s.io/v1beta1", "ResourceSlice", "spec.devices[3].capacity.x.value") == (
        "spec.devices[3].basic.capacity.x.value"
    )
    assert (
        original_path("resource.k8s.io/v1beta1", "ResourceSlice", "spec.devices[3].name")
        == "spec.devices[3].name"
    )
    assert (
        original_path(
            "resource.k8s.io/v1beta1", "ResourceClaimTemplate", "spec.spec.devices.requests[0].exactly.count"
        )
        == "spec.spec.devices.requests[0].count"
    )
    assert original_path("resource.k8s.io/v1", "ResourceSlice", "spec.devices[0].x") == "spec.devices[0].x"


def test_v1beta1_json_list_takes_the_dict_path() -> None:
    data = json.dumps(
        {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSliceList", "items": [v1beta1_slice()]}
    ).encode()
    assert decode_json_bytes(data, source="x.json").objects == [decode(v1_slice())]
    assert decode_documents([json.loads(data)], source="x").objects == [decode(v1_slice())]
