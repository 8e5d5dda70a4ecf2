"""encode.py: decode -> encode -> decode is the identity, for all conformance objects and generated slices."""

from __future__ import annotations

import glob
import json
import os
from typing import Any

import msgspec
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_documents, decode_json_bytes
from drasim.api.encode import (
    encode_object,
    json_document,
    json_list,
    json_list_chunks,
    object_json,
    to_json,
    to_yaml,
    yaml_documents,
    yaml_objects,
)
from drasim.api.kinds import KubeObject
from drasim.api.meta import ObjectMeta
from drasim.api.profile import profile_for
from drasim.api.quantity import Quantity
from drasim.api.resource import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    Counter,
    CounterSet,
    Device,
    DeviceAttribute,
    DeviceCapacity,
    DeviceCounterConsumption,
    DeviceTaint,
    ResourcePool,
    ResourceSlice,
    ResourceSliceSpec,
)
from drasim.cli.options import demo_profile
from drasim.demo import demo_paths
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sources.files import load_bytes
from drasim.sources.inputs import read_inputs
from hypothesis_budget import examples

CONFORMANCE = os.path.join(os.path.dirname(__file__), "..", "conformance")
FILES = sorted(glob.glob(os.path.join(CONFORMANCE, "*", "*.yaml")))


def scenario_objects(path: str) -> list[KubeObject]:
    with open(path, "rb") as f:
        data = yaml.load(f, Loader=yaml.CSafeLoader)
    return decode_documents(data["objects"], source=path).objects


def assert_roundtrip(objs: list[KubeObject]) -> None:
    wire = [encode_object(o) for o in objs]
    again = decode_documents(wire, source="wire").objects
    assert again == objs
    assert [encode_object(o) for o in again] == wire  # the wire form is stable too (quantity spellings...)
    assert load_bytes(to_yaml(objs).encode(), source="out.yaml").objects == objs
    assert decode_json_bytes(to_json(objs), source="out.json").objects == objs
    assert decode_json_bytes(to_json(objs, indent=0), source="out.json").objects == objs


def assert_json_paths_agree(objs: list[KubeObject]) -> None:
    """The struct-encoded JSON fast path writes the bytes of the wire-form dicts."""
    assert [object_json(o) for o in objs] == [json_document(encode_object(o), indent=0) for o in objs]
    doc = {"apiVersion": "v1", "kind": "List", "items": [encode_object(o) for o in objs] + [{"x": 1}]}
    assert json_list(objs, [{"x": 1}]) == json_document(doc)


def test_all_conformance_files_found() -> None:
    assert len(FILES) == 529


@pytest.mark.parametrize("part", range(3))  # a third of each folder per case, so test workers share the work
@pytest.mark.parametrize("folder", ["upstream-v1.36", "seed", "random"])
def test_roundtrip_every_conformance_object(folder: str, part: int) -> None:
    count = 0
    paths = [p for p in FILES if os.path.basename(os.path.dirname(p)) == folder][part::3]
    for i, path in enumerate(paths):
        objs = scenario_objects(path)
        assert_roundtrip(objs)
        if i % 7 == 0:  # the JSON fast path on every 7th file of the part (on all it doubled this test)
            assert_json_paths_agree(objs)
        count += len(objs)
    assert count > 0


def test_encoded_shape() -> None:
    path = os.path.join(CONFORMANCE, "seed", "seed-09-taint-rule-noschedule.yaml")
    objs = scenario_objects(path)
    rule = next(o for o in objs if o.kind == "DeviceTaintRule")
    assert encode_object(rule) == {  # a v1beta2 rule in the file, printed as v1
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "drain-gpu-0-for-firmware"},
        "spec": {
            "deviceSelector": {"driver": "gpu.nvidia.com", "pool": "dgx-h100-09", "device": "gpu-0"},
            "taint": {"key": "example.com/maintenance", "value": "firmware-upgrade", "effect": "NoSchedule"},
        },
    }
    rs = next(o for o in objs if o.kind == "ResourceSlice")
    wire = encode_object(rs)
    assert list(wire) == ["apiVersion", "kind", "metadata", "spec"]
    assert list(wire["spec"]) == ["driver", "pool", "nodeName", "devices"]  # struct order
    assert wire["spec"]["devices"][0]["capacity"] == {"memory": {"value": "81559Mi"}}


def test_required_pool_fields_are_printed() -> None:
    rs = ResourceSlice(metadata=ObjectMeta(name="s"), spec=ResourceSliceSpec(driver="d", node_name="n"))
    assert encode_object(rs)["spec"] == {
        "driver": "d",
        "pool": {"name": "", "generation": 0, "resourceSliceCount": 0},
        "nodeName": "n",
    }
    assert decode_documents([encode_object(rs)], source="x").objects == [rs]


def test_yaml_and_json_text() -> None:
    rs = ResourceSlice(
        metadata=ObjectMeta(name="s"),
        spec=ResourceSliceSpec(
            driver="d",
            all_nodes=True,
            devices=[
                Device(
                    name="x",
                    attributes={"pci": DeviceAttribute(string="0000:18:00.0")},
                    capacity={"m": DeviceCapacity(value=Quantity("1Gi"))},
                )
            ],
        ),
    )
    text = to_yaml([rs, rs])
    assert text.count("\n---\n") == 1 and text.startswith(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n"
    )
    assert "string: '0000:18:00.0'" in text  # quoted: YAML 1.1 would read it as a number
    single = json.loads(to_json([rs]))
    assert single["kind"] == "ResourceSlice"
    many = json.loads(to_json([rs, rs]))
    assert many["kind"] == "List" and len(many["items"]) == 2
    assert json.loads(to_json([rs], as_list=True))["kind"] == "List"
    with pytest.raises(ValueError):
        to_json([rs, rs], as_list=False)


# --- generated ResourceSlices -----------------------------------------------------------------------

# DNS labels, built rather than drawn from a regex: from_regex made generation most of this test's time.
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
names = st.one_of(
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.builds(
        lambda first, middle, last: first + middle + last,
        st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
        st.text(alphabet=_ALNUM + "-", max_size=10),
        st.sampled_from(_ALNUM),
    ),
)
qualified = st.one_of(names, st.builds(lambda d, n: f"{d}.example.com/{n}", names, names))
int64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
versions = st.builds(
    lambda a, b, c, pre: f"{a}.{b}.{c}{pre}",
    st.integers(0, 999),
    st.integers(0, 999),
    st.integers(0, 999),
    st.sampled_from(["", "-rc.1", "+build.7", "-alpha"]),
)
texts = st.text(max_size=20)
attributes = st.one_of(
    st.builds(DeviceAttribute, int_=int64),
    st.builds(DeviceAttribute, bool_=st.booleans()),
    st.builds(DeviceAttribute, string=texts),
    st.builds(DeviceAttribute, version=versions),
    st.builds(DeviceAttribute, ints=st.lists(int64, min_size=1, max_size=3)),
    st.builds(DeviceAttribute, bools=st.lists(st.booleans(), min_size=1, max_size=3)),
    st.builds(DeviceAttribute, strings=st.lists(texts, min_size=1, max_size=3)),
    st.builds(DeviceAttribute, versions=st.lists(versions, min_size=1, max_size=3)),
    st.just(DeviceAttribute()),  # no value: loads (no validation) and must survive
)
quantity_text = st.one_of(
    st.builds(
        lambda n, s: f"{n}{s}",
        st.integers(0, 10**6),
        st.sampled_from(["", "Ki", "Mi", "Gi", "Ti", "k", "M", "G", "m", "u", "n"]),
    ),
    st.builds(
        lambda a, b, s: f"{a}.{b}{s}",
        st.integers(0, 999),
        st.integers(0, 999),
        st.sampled_from(["", "Gi", "k"]),
    ),
    st.builds(lambda a, e: f"{a}e{e}", st.integers(1, 99), st.integers(-3, 9)),
    st.builds(str, st.integers(-(10**20), 10**20)),
)
quantities = quantity_text.map(Quantity.parse)
policies = st.one_of(
    st.none(),
    st.builds(
        CapacityRequestPolicy, default=quantities, valid_values=st.lists(quantities, min_size=1, max_size=3)
    ),
    st.builds(
        CapacityRequestPolicy,
        default=quantities,
        valid_range=st.builds(
            CapacityRequestPolicyRange,
            min=quantities,
            max=st.none() | quantities,
            step=st.none() | quantities,
        ),
    ),
)
capacities = st.builds(DeviceCapacity, value=quantities, request_policy=policies)
counters = st.dictionaries(names, st.builds(Counter, value=quantities), max_size=3)
taints = st.builds(
    DeviceTaint,
    key=qualified,
    value=st.none() | names,
    effect=st.sampled_from(["NoSchedule", "NoExecute", "None", ""]),
)
devices = st.builds(
    Device,
    name=names,
    attributes=st.dictionaries(qualified, attributes, max_size=6),
    capacity=st.dictionaries(qualified, capacities, max_size=3),
    consumes_counters=st.lists(
        st.builds(DeviceCounterConsumption, counter_set=names, counters=counters), max_size=2
    ),
    taints=st.lists(taints, max_size=2),
    allow_multiple_allocations=st.none() | st.booleans(),
    binding_conditions=st.lists(names, max_size=2),
)
slices = st.builds(
    ResourceSlice,
    metadata=st.builds(ObjectMeta, name=names, labels=st.dictionaries(qualified, texts, max_size=2)),
    spec=st.builds(
        ResourceSliceSpec,
        driver=qualified,
        pool=st.builds(
            ResourcePool, name=names, generation=st.integers(0, 2**40), resource_slice_count=st.integers(0, 9)
        ),
        node_name=st.none() | names,
        all_nodes=st.none() | st.just(True),
        devices=st.lists(devices, max_size=4),
        shared_counters=st.lists(st.builds(CounterSet, name=names, counters=counters), max_size=2),
    ),
)


# Large generated trees: 40 in CI (about 5 CPU-s); `pytest --thorough` runs 10,000.
@settings(max_examples=examples(40))
@given(st.lists(slices, min_size=1, max_size=3))
def test_generated_slices_roundtrip(objs: list[Any]) -> None:
    assert_roundtrip(objs)


def test_json_fast_path_on_a_simulated_end_state() -> None:
    """Pods with status and conditions, allocated claims, generated claims: the end state simulate prints."""
    profile = demo_profile(profile_for("1.36"))
    inputs = read_inputs(demo_paths(), profile, timelines=True)
    state = simulate(inputs.objects, inputs.timelines, SimulationOptions.for_profile(profile)).state
    objs: list[KubeObject] = [*state.nodes.values(), *state.slices.values(), *state.classes.values(),
                              *state.taint_rules.values(), *state.templates.values(), *state.claims.values(),
                              *state.pods.values()]
    assert any(c.status is not None and c.status.allocation is not None for c in state.claims.values())
    assert_json_paths_agree(objs)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12)


@given(st.lists(_JSON_VALUES, max_size=12), st.sampled_from([0, 2, 4]), st.integers(1, 4))
@settings(max_examples=80)
def test_json_list_in_chunks_is_the_whole_document(items: list[Any], indent: int, batch: int) -> None:
    """The streamed List (pieces of `batch` items) is byte for byte the document formatted at once."""
    whole = json_document({"apiVersion": "v1", "kind": "List", "items": items}, indent=indent)
    assert b"".join(json_list_chunks([], items, indent=indent, batch=batch)) == whole


def _replicas(obj: KubeObject, n: int) -> list[KubeObject]:
    """`n` copies of `obj` as a template's replicas hold it: a claim's spec whole, a pod's spec fields."""
    out = []
    for i in range(n):
        meta = msgspec.structs.replace(obj.metadata, name=f"{obj.metadata.name}-{i}")
        spec = getattr(obj, "spec", None)
        if obj.kind == "Pod" and spec is not None:
            out.append(msgspec.structs.replace(obj, metadata=meta, spec=msgspec.structs.replace(spec)))
        else:
            out.append(msgspec.structs.replace(obj, metadata=meta))
    return out


@pytest.mark.parametrize("folder", ["upstream-v1.36", "seed", "random"])
def test_shared_template_parts_print_the_plain_bytes(folder: str) -> None:
    paths = [p for p in FILES if f"/{folder}/" in p][::4]
    shared = 0
    for path in paths:
        objs = [r for o in scenario_objects(path) for r in _replicas(o, 3)]
        shared += sum(1 for o in objs if o.kind in ("Pod", "ResourceClaim"))
        extra = [{"apiVersion": "v1", "kind": "Event", "message": "a\nb"}]  # a multi-line scalar: PyYAML's path
        assert yaml_objects(objs) == yaml_documents([encode_object(o) for o in objs]) == to_yaml(objs)
        assert yaml_objects(objs, extra) == yaml_documents([*(encode_object(o) for o in objs), *extra])
    assert shared > 0


def test_decoded_objects_take_the_struct_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Objects read from JSON hold apiVersion/kind strings equal to the defaults but not the default objects
    (omit_defaults keeps them): object_json still writes the struct's own bytes, equal to the wire form's."""
    from drasim.api import encode

    text = (b'{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":'
            b'{"driver":"d","pool":{"name":"p","generation":1,"resourceSliceCount":1},"nodeName":"n",'
            b'"devices":[{"name":"g","capacity":{"memory":{"value":"80Gi"}}}]}}')
    objs = decode_json_bytes(text, source="in.json").objects
    expected = [json_document(encode_object(o), indent=0) for o in objs]
    monkeypatch.setattr(encode, "encode_object", lambda obj: pytest.fail("took the dict path"))
    assert [bytes(object_json(o)) for o in objs] == expected
