"""decode.py: typed decoding of loaded data and JSON bytes, and the errors users see for bad input."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from drasim.api.core import Node, Pod
from drasim.api.decode import DecodeResult, decode_as, decode_documents, decode_json_bytes, decode_object
from drasim.api.quantity import ERR_FORMAT_WRONG, Quantity
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
from drasim.errors import InputError


def slice_doc(name: str = "node-1-gpu", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": "node-1",
            "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "gpu-0",
                    "attributes": {
                        "productName": {"string": "NVIDIA H100 80GB HBM3"},
                        "index": {"int": 0},
                        "driverVersion": {"version": "570.124.6"},
                    },
                    "capacity": {"memory": {"value": "81559Mi"}},
                }
            ],
            **spec,
        },
    }


def claim_doc(exactly: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "gpu-claim", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}},
    }


def error_of(data: Any, source: str = "in.yaml") -> InputError:
    with pytest.raises(InputError) as info:
        decode_documents([data], source=source)
    return info.value


# --- good input -----------------------------------------------------------------------------------


def test_decode_slice() -> None:
    obj = decode_object(slice_doc(), source="s.yaml")
    assert isinstance(obj, ResourceSlice)
    dev = obj.spec.devices[0]
    assert dev.attributes["index"].int_ == 0
    assert dev.attributes["driverVersion"].version == "570.124.6"
    assert dev.capacity["memory"].value == Quantity("81559Mi")
    assert obj.spec.node_name == "node-1"


def test_quantities_from_yaml_numbers() -> None:
    doc = slice_doc()
    doc["spec"]["devices"][0]["capacity"] = {"cores": {"value": 8}, "ratio": {"value": 0.5}}
    obj = decode_object(doc, source="s.yaml")
    assert isinstance(obj, ResourceSlice)
    assert str(obj.spec.devices[0].capacity["cores"].value) == "8"
    assert str(obj.spec.devices[0].capacity["ratio"].value) == "500m"


def test_cluster_metadata_noise_is_accepted() -> None:
    doc = slice_doc()
    doc["metadata"].update(
        {
            "uid": "0b7c",
            "resourceVersion": "123",
            "generation": 2,
            "creationTimestamp": "2026-07-01T10:00:00Z",
            "annotations": {"a": "b"},
            "generateName": "node-1-gpu-",
            "managedFields": [{"manager": "kubelet", "operation": "Update", "fieldsV1": {"f:spec": {}}}],
            "ownerReferences": [
                {"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": "x", "controller": True}
            ],
            "selfLink": "/apis/x",
        }
    )
    obj = decode_object(doc, source="s.yaml")
    assert isinstance(obj, ResourceSlice)
    assert obj.metadata.creation_timestamp == datetime(2026, 7, 1, 10, tzinfo=UTC)
    assert obj.metadata.owner_references[0].kind == "Node"


def test_core_objects_ignore_unmodelled_fields() -> None:
    node = decode_object(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n"},
            "spec": {"podCIDR": "10.0.0.0/24"},
            "status": {"nodeInfo": {"kubeletVersion": "v1.36"}, "allocatable": {"cpu": "8"}},
        },
        source="n.yaml",
    )
    assert isinstance(node, Node) and node.status.allocatable["cpu"] == Quantity(8)
    pod = decode_object(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ns"},
            "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]},
        },
        source="p.yaml",
    )
    assert isinstance(pod, Pod) and pod.spec.containers[0].name == "c"


def test_null_fields_mean_unset_like_go() -> None:
    doc = slice_doc()
    doc["metadata"]["labels"] = None
    doc["spec"]["sharedCounters"] = None
    doc["spec"]["devices"][0]["taints"] = None
    obj = decode_object(doc, source="s.yaml")
    assert isinstance(obj, ResourceSlice)
    assert obj.spec.shared_counters == [] and obj.spec.devices[0].taints == []
    assert doc["spec"]["sharedCounters"] is None  # the caller's data is not modified


def test_unknown_kinds_and_versions_warn() -> None:
    docs = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ns"}},
        {"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim", "metadata": {"name": "old"}},
        slice_doc(),
    ]
    result = decode_documents(docs, source="mixed.yaml")
    assert [type(o) for o in result.objects] == [ResourceSlice]
    assert (
        result.warnings[0] == "mixed.yaml: ConfigMap/ns/c: skipped: kind ConfigMap (v1) is not used by drasim"
    )
    # resource.k8s.io documents drasim cannot read are not skipped silently: admission rejects them.
    assert len(result.warnings) == 1
    assert result.unserved == [("ResourceClaim/old", "resource.k8s.io/v1alpha2", "ResourceClaim")]
    assert result.api_versions == ["resource.k8s.io/v1"]
    warnings: list[str] = []
    assert decode_object(docs[0], source="x", warnings=warnings) is None and len(warnings) == 1


def test_null_documents_are_skipped() -> None:
    assert decode_documents([None, slice_doc(), None], source="s.yaml").objects[0].kind == "ResourceSlice"
    assert decode_documents([], source="s.yaml") == DecodeResult()


def test_lists_are_expanded_recursively() -> None:
    nested = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            slice_doc("a"),
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClassList",
                "items": [
                    {"metadata": {"name": "gpu"}, "spec": {}},  # raw API items carry no apiVersion/kind
                ],
            },
            {"apiVersion": "v1", "kind": "List", "items": None},
        ],
    }
    objs = decode_documents([nested, slice_doc("b")], source="l.yaml").objects
    assert [(o.kind, o.metadata.name) for o in objs] == [
        ("ResourceSlice", "a"),
        ("DeviceClass", "gpu"),
        ("ResourceSlice", "b"),
    ]
    assert isinstance(objs[1], DeviceClass) and objs[1].api_version == "resource.k8s.io/v1"


def test_decode_object_rejects_lists() -> None:
    with pytest.raises(InputError, match="decode_documents"):
        decode_object({"apiVersion": "v1", "kind": "List", "items": []}, source="x")


def test_decode_as_any_struct() -> None:
    class Small(msgspec.Struct, forbid_unknown_fields=True):
        count: int

    assert decode_as({"count": 2}, Small, source="f").count == 2
    with pytest.raises(InputError) as info:
        decode_as({"count": "2"}, Small, source="f", obj="thing")
    assert str(info.value) == "f: thing: count: expected int, got str"


# --- errors: one clear message naming file, object and field ---------------------------------------


def test_wrong_type_names_the_path() -> None:
    doc = slice_doc()
    doc["spec"]["pool"]["generation"] = "1"
    assert (
        str(error_of(doc)) == "in.yaml: ResourceSlice/node-1-gpu: spec.pool.generation: expected int, got str"
    )


def test_count_as_string_is_an_error() -> None:
    err = error_of(claim_doc({"deviceClassName": "gpu", "count": "2"}))
    assert err.source == "in.yaml" and err.obj == "ResourceClaim/default/gpu-claim"
    assert err.path == "spec.devices.requests[0].exactly.count"
    assert err.message == "expected int, got str"


def test_unknown_field_inside_spec() -> None:
    doc = slice_doc()
    doc["spec"]["devices"][0]["foo"] = 1
    err = error_of(doc)
    assert (err.path, err.message) == ("spec.devices[0].foo", 'unknown field "foo"')


def test_unknown_field_in_a_map_value_names_the_key() -> None:
    doc = slice_doc()
    doc["spec"]["devices"][0]["attributes"]["memory"] = {"quantity": "80Gi"}
    err = error_of(doc)
    assert (err.path, err.message) == (
        "spec.devices[0].attributes.memory.quantity",
        'unknown field "quantity"',
    )
    doc["spec"]["devices"][0]["attributes"] = {"gpu.nvidia.com/index": {"int": "x"}}
    assert error_of(doc).path == "spec.devices[0].attributes[gpu.nvidia.com/index].int"


def test_invalid_quantity_has_apimachinery_message() -> None:
    doc = slice_doc()
    doc["spec"]["devices"][0]["capacity"]["memory"]["value"] = "80GB"
    err = error_of(doc)
    assert err.path == "spec.devices[0].capacity.memory.value"
    assert err.message == ERR_FORMAT_WRONG


def test_quantity_of_wrong_type() -> None:
    err = error_of(claim_doc({"deviceClassName": "gpu", "capacity": {"requests": {"memory": True}}}))
    assert err.path == "spec.devices.requests[0].exactly.capacity.requests.memory"


def test_missing_required_field() -> None:
    doc = slice_doc()
    doc["spec"]["devices"][0]["capacity"]["memory"] = {}
    err = error_of(doc)
    assert (err.path, err.message) == (
        "spec.devices[0].capacity.memory.value",
        'missing required field "value"',
    )


def test_bad_time() -> None:
    err = error_of(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "creationTimestamp": "noon"}}
    )
    assert err.path == "metadata.creationTimestamp" and "RFC3339" in err.message


def test_missing_kind_and_api_version() -> None:
    assert error_of({"apiVersion": "v1", "metadata": {"name": "a"}}).message == 'missing "kind"'
    assert error_of({"kind": "Node", "metadata": {"name": "a"}}).message == 'missing "apiVersion"'


def test_not_a_mapping() -> None:
    assert "got str" in error_of("hello").message


def test_list_with_a_bad_item_names_the_item() -> None:
    bad = slice_doc("bad-slice")
    bad["spec"]["pool"]["generation"] = "x"
    doc = {"apiVersion": "v1", "kind": "List", "items": [slice_doc("ok"), bad]}
    assert str(error_of(doc, "dump.yaml")) == (
        "dump.yaml: items[1] ResourceSlice/bad-slice: spec.pool.generation: expected int, got str"
    )
    with pytest.raises(InputError) as info:
        decode_json_bytes(json.dumps(doc).encode(), source="dump.json")
    assert str(info.value) == (
        "dump.json: items[1] ResourceSlice/bad-slice: spec.pool.generation: expected int, got str"
    )


def test_unnamed_document_is_named_by_position() -> None:
    bad = {"apiVersion": "v1", "kind": "Node", "spec": {"taints": 5}}
    with pytest.raises(InputError) as info:
        decode_documents([slice_doc(), bad], source="m.yaml")
    assert str(info.value) == "m.yaml: document 2 Node: spec.taints: expected array, got int"


# --- the JSON fast path ----------------------------------------------------------------------------


def test_json_fast_path_matches_dict_path() -> None:
    docs = [
        slice_doc("a"),
        claim_doc({"deviceClassName": "gpu", "count": 2}),
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "uid": "u"}},
    ]
    expected = decode_documents(docs, source="x").objects
    as_list = {"apiVersion": "v1", "kind": "List", "items": docs}
    assert decode_json_bytes(json.dumps(as_list).encode(), source="x").objects == expected
    assert decode_json_bytes(json.dumps(docs).encode(), source="x").objects == expected
    assert decode_json_bytes(json.dumps(docs[0]).encode(), source="x").objects == expected[:1]
    assert decode_json_bytes(b"  \n", source="x").objects == []


def test_json_typed_list_without_item_kinds() -> None:
    items = [slice_doc(f"s-{i}") for i in range(3)]
    for item in items:
        del item["apiVersion"], item["kind"]
    data = json.dumps(
        {
            "apiVersion": "resource.k8s.io/v1beta2",
            "kind": "ResourceSliceList",
            "metadata": {"resourceVersion": "7"},
            "items": items,
        }
    ).encode()
    objs = decode_json_bytes(data, source="raw.json").objects
    assert [o.metadata.name for o in objs] == ["s-0", "s-1", "s-2"]
    assert all(isinstance(o, ResourceSlice) and o.api_version == "resource.k8s.io/v1" for o in objs)


def test_json_typed_list_with_foreign_item_falls_back() -> None:
    data = json.dumps(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSliceList",
            "items": [slice_doc("a"), {**slice_doc("b"), "kind": "DeviceClass", "spec": {}}],
        }
    ).encode()
    objs = decode_json_bytes(data, source="x").objects
    assert [o.kind for o in objs] == ["ResourceSlice", "DeviceClass"]


def test_json_null_fields_and_unknown_kinds() -> None:
    doc = slice_doc()
    doc["spec"]["devices"][0]["taints"] = None
    data = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [doc, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}],
        }
    ).encode()
    result = decode_json_bytes(data, source="x.json")
    assert len(result.objects) == 1 and result.warnings == [
        "x.json: items[1] Secret/s: skipped: kind Secret (v1) is not used by drasim"
    ]


def test_malformed_json_has_line_and_column() -> None:
    with pytest.raises(InputError) as info:
        decode_json_bytes(b'{"apiVersion": "v1",\n  "kind": "Node" "metadata": {}}', source="bad.json")
    assert str(info.value).startswith("bad.json: invalid JSON: ")
    assert "line 2, column 18" in str(info.value)  # the unexpected `"`
    with pytest.raises(InputError, match="truncated"):
        decode_json_bytes(b'{"apiVersion": "v1", "kind": ', source="t.json")


def test_claim_decodes_all_request_shapes() -> None:
    doc = claim_doc(
        {
            "deviceClassName": "gpu",
            "allocationMode": "All",
            "adminAccess": True,
            "tolerations": [{"key": "k", "operator": "Exists"}],
            "capacity": {"requests": {"memory": "10Gi"}},
        }
    )
    doc["spec"]["devices"]["requests"].append(
        {"name": "alt", "firstAvailable": [{"name": "big", "deviceClassName": "gpu", "count": 2}]}
    )
    obj = decode_object(doc, source="c.yaml")
    assert isinstance(obj, ResourceClaim)
    exactly = obj.spec.devices.requests[0].exactly
    assert exactly is not None and exactly.capacity is not None
    assert exactly.capacity.requests["memory"] == Quantity("10Gi")
    assert obj.spec.devices.requests[1].first_available is not None


@pytest.mark.parametrize(("spec", "path"), [
    ({"selector": {"matchLabels": ["a", "b"]}}, "spec.selector.matchLabels"),
    ({"selector": {"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]}},
     "spec.selector.matchExpressions[0].values"),
    ({"template": {"spec": {"topologySpreadConstraints": [{"labelSelector": {"matchLabels": {"a": ["b"]}}}]}}},
     "spec.template.spec.topologySpreadConstraints[0].labelSelector.matchLabels.a"),
])
def test_malformed_label_selectors_are_refused_with_their_path(spec: dict[str, Any], path: str) -> None:
    # A LabelSelector the API server cannot decode never reaches the scheduler (fuzzing found a list of labels
    # crashing the spread pre-filter).
    err = error_of({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "ml"},
                    "spec": spec})
    assert "Deployment/ml/web" in str(err) and path in str(err)
