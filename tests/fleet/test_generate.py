"""drasim.fleet.generate: fleets shaped as the NVIDIA DRA driver publishes them, checked against the catalog."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from drasim.api import core
from drasim.api import resource as r
from drasim.api.decode import decode_object
from drasim.api.encode import to_yaml
from drasim.api.kinds import KubeObject
from drasim.api.quantity import Quantity
from drasim.catalog.nvidia import GpuModel, load_catalog
from drasim.errors import InputError
from drasim.fleet.generate import (
    NodeSpec,
    device_name,
    generate_fleet,
    parse_node_spec,
)
from drasim.fleet.mig import place_layout, resolve_layout
from drasim.runner.scenario import ScenarioInput, StepSpec, run_scenario
from drasim.validation.objects import validate_objects

CATALOG = load_catalog()
MIG_MODELS = [m for m in CATALOG.models if m.mig_supported]
CASES = [(m.id, mode) for m in CATALOG.models
         for mode in (("full", "mig-dynamic", "mig-static", "mig-off") if m.mig_supported else ("full",))]
GPUS = 3
MIB = 1 << 20
COUNTER_OF = {"multiprocessors": "multiprocessors", "copyEngines": "copy-engines", "decoders": "decoders",
              "encoders": "encoders", "jpegEngines": "jpeg-engines", "ofaEngines": "ofa-engines", "memory": "memory"}
PROFILE_FIELD = {"multiprocessors": "multiprocessors", "copyEngines": "copy_engines", "decoders": "decoders",
                 "encoders": "encoders", "jpegEngines": "jpeg_engines", "ofaEngines": "ofa_engines"}


def slices_of(objs: list[KubeObject], node: str | None = None) -> list[r.ResourceSlice]:
    return [o for o in objs if isinstance(o, r.ResourceSlice) and (node is None or o.spec.node_name == node)]


def nodes_of(objs: list[KubeObject]) -> list[core.Node]:
    return [o for o in objs if isinstance(o, core.Node)]


def devices_of(slices: list[r.ResourceSlice]) -> list[r.Device]:
    return [d for s in slices for d in s.spec.devices]


def dtype(d: r.Device) -> str | None:
    return d.attributes["type"].string


def q(n: int) -> Quantity:
    return Quantity(n)


def assert_valid(objs: list[KubeObject]) -> None:
    findings = validate_objects(objs)
    assert [str(f) for f in findings] == []


# --- counts per the catalog, for every model and mode ------------------------------------------------------

@pytest.mark.parametrize(("model_id", "mode"), CASES)
def test_counts_per_catalog(model_id: str, mode: str) -> None:
    m = CATALOG.by_id(model_id)
    res = generate_fleet([NodeSpec(model_id, mode, count=2, gpus_per_node=GPUS)])
    assert_valid(res.objects)
    assert res.warnings == []
    nodes = nodes_of(res.objects)
    assert len(nodes) == 2
    for node in nodes:
        name = node.metadata.name
        slices = slices_of(res.objects, name)
        for s in slices:
            assert s.spec.driver == "gpu.nvidia.com"
            assert (s.spec.pool.name, s.spec.pool.generation, s.spec.pool.resource_slice_count) == \
                (name, 1, len(slices))
            limit = 64 if any(d.consumes_counters or d.taints for d in s.spec.devices) else 128
            assert len(s.spec.devices) <= limit
            assert len(s.spec.shared_counters) <= 8
            assert not (s.spec.devices and s.spec.shared_counters)  # counters live in their own slice
        devices = devices_of(slices)
        if mode == "full":
            assert len(slices) == 1
            assert [d.name for d in devices] == [f"gpu-{i}" for i in range(GPUS)]
            assert all(dtype(d) == "gpu" and not d.consumes_counters for d in devices)
            assert all(d.capacity == {"memory": r.DeviceCapacity(value=q(m.memory_total_mib * MIB))} for d in devices)
        elif mode == "mig-static":
            _, layout = resolve_layout(m, None)
            assert len(slices) == 1
            assert len(devices) == GPUS * len(layout)
            assert all(dtype(d) == "mig" and d.attributes["uuid"].string and not d.consumes_counters
                       for d in devices)
        elif mode == "mig-off" and not m.full_gpu_with_mig:
            # Ampere with MIG disabled under DynamicMIG: an empty counters slice, then a plain GPU per slice.
            assert len(slices) == 1 + GPUS
            assert not slices[0].spec.devices and not slices[0].spec.shared_counters
            assert [len(s.spec.devices) for s in slices[1:]] == [1] * GPUS
            assert all(dtype(d) == "gpu" and list(d.capacity) == ["memory"] for d in devices)
        else:
            assert len(slices) == 1 + GPUS
            sets = slices[0].spec.shared_counters
            assert [c.name for c in sets] == [f"gpu-{i}-counter-set" for i in range(GPUS)]
            assert all(len(c.counters) == m.dra["counters_per_set"] for c in sets)
            per_gpu = [s.spec.devices for s in slices[1:]]
            assert [len(ds) for ds in per_gpu] == [m.dra["devices_per_gpu"]] * GPUS
            for i, ds in enumerate(per_gpu):
                gpu = [d for d in ds if dtype(d) == "gpu"]
                assert [d.name for d in gpu] == ([f"gpu-{i}"] if m.full_gpu_with_mig else [])
                profiles = Counter(d.attributes["profile"].string for d in ds if dtype(d) == "mig")
                assert profiles == {p.name: len(p.placement_starts) for p in m.profiles}
                assert all(d.consumes_counters[0].counter_set == f"gpu-{i}-counter-set" for d in ds)


def test_partitionable_a100_40gb_has_its_placements_and_no_full_gpu() -> None:
    res = generate_fleet([NodeSpec("a100-40gb", "mig-dynamic", gpus_per_node=1)])
    devices = devices_of(slices_of(res.objects))
    assert len(devices) == 25
    assert {dtype(d) for d in devices} == {"mig"}


def test_partitionable_h100_has_its_placements_plus_the_full_gpu() -> None:
    res = generate_fleet([NodeSpec("h100", "mig-dynamic", gpus_per_node=1)])
    devices = devices_of(slices_of(res.objects))
    assert len(devices) == 26
    assert Counter(dtype(d) for d in devices) == {"mig": 25, "gpu": 1}
    names = {d.name for d in devices}
    assert {"gpu-0", "gpu-0-mig-1g10gb-19-3", "gpu-0-mig-1g10gb-me-20-0", "gpu-0-mig-7g80gb-0-0"} <= names


@pytest.mark.parametrize("model", [m for m in MIG_MODELS if m.full_gpu_with_mig], ids=lambda m: m.id)
def test_hopper_full_gpu_consumes_every_counter(model: GpuModel) -> None:
    res = generate_fleet([NodeSpec(model.id, "mig-dynamic", gpus_per_node=2)])
    slices = slices_of(res.objects)
    sets = {c.name: c.counters for c in slices[0].spec.shared_counters}
    for d in devices_of(slices[1:]):
        if dtype(d) == "gpu":
            (consumption,) = d.consumes_counters
            assert consumption.counters == sets[consumption.counter_set]


@pytest.mark.parametrize("model", MIG_MODELS, ids=lambda m: m.id)
def test_mig_capacities_and_counters_follow_the_catalog(model: GpuModel) -> None:
    res = generate_fleet([NodeSpec(model.id, "mig-dynamic", gpus_per_node=1)])
    slices = slices_of(res.objects)
    (counter_set,) = slices[0].spec.shared_counters
    slice_count = max(p.placement_size for p in model.profiles)
    assert [k for k in counter_set.counters if k.startswith("memory-slice-")] == \
        [f"memory-slice-{i}" for i in range(slice_count)]
    full = model.dra["full_gpu_capacity"]
    for cap, counter in COUNTER_OF.items():
        key = "memory_mib" if cap == "memory" else PROFILE_FIELD[cap]
        if full.get(key) is not None:
            scale = MIB if cap == "memory" else 1
            assert counter_set.counters[counter].value == q(full[key] * scale), cap
    for d in devices_of(slices[1:]):
        if dtype(d) != "mig":
            continue
        p = model.profile(d.attributes["profile"].string or "")
        start = int(d.name.rsplit("-", 1)[1])
        assert d.name == device_name(0, p, start) and start in p.placement_starts
        if p.memory_mib is not None:
            assert d.capacity["memory"].value == q(p.memory_mib * MIB)
        for cap, fld in PROFILE_FIELD.items():
            if getattr(p, fld) is not None:
                assert d.capacity[cap].value == q(getattr(p, fld)), (d.name, cap)
        (consumption,) = d.consumes_counters
        expected = {COUNTER_OF[cap]: c.value for cap, c in d.capacity.items()}
        expected.update({f"memory-slice-{i}": q(1) for i in range(start, start + p.placement_size)})
        assert {k: c.value for k, c in consumption.counters.items()} == expected


def test_more_than_eight_gpus_split_counter_sets_over_slices() -> None:
    res = generate_fleet([NodeSpec("h100", "mig-dynamic", gpus_per_node=16)])
    assert_valid(res.objects)
    slices = slices_of(res.objects)
    assert [len(s.spec.shared_counters) for s in slices[:2]] == [8, 8]
    assert [s.metadata.name for s in slices[:2]] == ["h100-80gb-hbm3-mig-dynamic-0-gpu.nvidia.com-counters-0",
                                                     "h100-80gb-hbm3-mig-dynamic-0-gpu.nvidia.com-counters-1"]
    assert all(s.spec.pool.resource_slice_count == 18 for s in slices)
    assert any("counter sets" in w for w in res.warnings)


def test_slice_and_device_order() -> None:
    res = generate_fleet([NodeSpec("a100-40gb", "mig-dynamic", gpus_per_node=4)])
    slices = slices_of(res.objects)
    node = "a100-sxm4-40gb-mig-dynamic-0"
    assert [s.metadata.name for s in slices] == [f"{node}-gpu.nvidia.com-counters"] + \
        [f"{node}-gpu.nvidia.com-gpu-{i}" for i in range(4)]
    for s in slices:
        names = [d.name for d in s.spec.devices]
        assert names == sorted(names)
        for d in s.spec.devices:
            assert list(d.attributes) == sorted(d.attributes)
            assert list(d.capacity) == sorted(d.capacity)
    bus_ids = [s.spec.devices[0].attributes["resource.kubernetes.io/pciBusID"].string or "" for s in slices[1:]]
    assert bus_ids == sorted(bus_ids)


# --- attributes ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("driver", ["580.95.05", "570.124.06"])
def test_attribute_sets_follow_the_catalog(driver: str) -> None:
    gpu_attrs = {name for name, _ in CATALOG.attributes["gpu"]}
    mig_attrs = {name for name, _ in CATALOG.attributes["mig"]}
    if not driver.startswith("580"):
        gpu_attrs.discard("addressingMode")
        mig_attrs.discard("addressingMode")
    res = generate_fleet([NodeSpec("h100", "mig-dynamic", gpus_per_node=1),
                          NodeSpec("a100-40gb", "mig-static", gpus_per_node=1),
                          NodeSpec("l40s", gpus_per_node=1)], driver_version=driver)
    devices = devices_of(slices_of(res.objects))
    static = {d.name for d in devices_of(slices_of(res.objects, "a100-sxm4-40gb-mig-static-0"))}
    for d in devices:
        names = set(d.attributes)
        if dtype(d) == "gpu":
            assert names == gpu_attrs, d.name
        elif d.name in static:
            assert names == mig_attrs, d.name
        else:  # dynamic MIG devices have no uuid of their own
            assert names == mig_attrs - {"uuid"}, d.name
        required = {n for n, req in CATALOG.attributes[dtype(d) or ""] if req} - ({"uuid"} if d.name not in static
                                                                                  and dtype(d) == "mig" else set())
        assert required <= names


@pytest.mark.parametrize("model", CATALOG.models, ids=lambda m: m.id)
def test_attribute_values_and_product_strings(model: GpuModel) -> None:
    res = generate_fleet([NodeSpec(model.id, gpus_per_node=2)], driver_version="570.124.06")
    (node,) = nodes_of(res.objects)
    assert node.metadata.labels["nvidia.com/gpu.product"] == model.product_name.replace(" ", "-")
    assert node.metadata.labels["nvidia.com/gpu.count"] == "2"
    for d in devices_of(slices_of(res.objects)):
        a = d.attributes
        assert a["productName"].string == model.product_name
        assert a["architecture"].string == model.architecture
        assert a["brand"].string == model.brand
        assert a["cudaComputeCapability"].version == model.cuda_compute_capability + ".0"
        assert a["driverVersion"].version == "570.124.6"
        assert a["cudaDriverVersion"].version == "12.8.0"
        assert re.fullmatch(r"GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", a["uuid"].string or "")
        assert re.fullmatch(r"0000:[0-9a-f]{2}:00\.0", a["resource.kubernetes.io/pciBusID"].string or "")
        assert re.fullmatch(r"pci0000:[0-9a-f]{2}", a["resource.kubernetes.io/pcieRoot"].string or "")


def test_static_mig_devices_reference_their_parent() -> None:
    res = generate_fleet([NodeSpec("a100-40gb", "mig-static:2g.10gbx3,1g.5gb", gpus_per_node=2)])
    devices = devices_of(slices_of(res.objects))
    # seed-12's layout: three 2g.10gb at slices 0, 2, 4 and one 1g.5gb at 6 on each GPU
    assert [d.name for d in devices[:4]] == ["gpu-0-mig-1g5gb-19-6", "gpu-0-mig-2g10gb-14-0",
                                             "gpu-0-mig-2g10gb-14-2", "gpu-0-mig-2g10gb-14-4"]
    parents = {d.attributes["parentUUID"].string for d in devices}
    assert len(parents) == 2
    uuids = [d.attributes["uuid"].string or "" for d in devices]
    assert len(set(uuids)) == 8 and all(u.startswith("MIG-") for u in uuids)
    assert devices[1].capacity["memorySlice0"].value == q(1) and devices[1].capacity["memorySlice1"].value == q(1)
    assert "memorySlice2" not in devices[1].capacity
    assert devices[0].capacity["memory"].value == q(4864 * MIB)


# --- static layouts -------------------------------------------------------------------------------------------

def test_resolve_layouts() -> None:
    a100 = CATALOG.model("a100-40gb")
    name, balanced = resolve_layout(a100, None)
    assert name == "all-balanced" and [p.name for p in balanced] == ["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"]
    assert sorted((p.name, s) for p, s in place_layout(a100, balanced)) == \
        [("1g.5gb", 2), ("1g.5gb", 3), ("2g.10gb", 0), ("3g.20gb", 4)]
    name, seven = resolve_layout(a100, "all-1g.5gb")
    assert name == "all-1g.5gb" and len(seven) == 7
    assert sorted(s for _, s in place_layout(a100, seven)) == list(range(7))
    a30 = CATALOG.model("a30")
    assert [p.name for p in resolve_layout(a30, "balanced")[1]] == ["1g.6gb", "1g.6gb", "2g.12gb"]
    name, custom = resolve_layout(CATALOG.model("h100"), "3g.40gb,1g.10gb*2")
    assert name == "custom" and [p.name for p in custom] == ["3g.40gb", "1g.10gb", "1g.10gb"]


@pytest.mark.parametrize(("layout", "message"), [
    ("3g.20gbx3", "3 x 3g.20gb exceeds its maximum of 2"),
    ("7g.40gb,1g.5gb", "needs 8 compute slices, the GPU has 7"),
    ("1g.5gb+me,1g.5gb+me", "exceeds its maximum of 1"),
    ("4g.20gb,3g.20gb,1g.5gb", "needs 8 compute slices"),
    ("1g.10gbx4,1g.5gb", "does not fit in 8 memory slices"),
    ("9g.90gb", "no MIG profile '9g.90gb'"),
    ("all-2g.99gb", "no MIG profile '2g.99gb'"),
    ("1g.5gb,,", "invalid MIG layout"),
])
def test_bad_layouts(layout: str, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        generate_fleet([NodeSpec("a100-40gb", f"mig-static:{layout}")])


@pytest.mark.parametrize("model", MIG_MODELS, ids=lambda m: m.id)
def test_every_all_profile_layout_fits(model: GpuModel) -> None:
    for p in model.profiles:
        placed = place_layout(model, resolve_layout(model, f"all-{p.name}")[1])
        assert len(placed) == p.max_instances


# --- nodes, classes, device plugin ----------------------------------------------------------------------------

def test_nodes_and_device_classes() -> None:
    res = generate_fleet([NodeSpec("h100", count=2, gpus_per_node=4), NodeSpec("gh200", gpus_per_node=1)])
    classes = [o for o in res.objects if isinstance(o, r.DeviceClass)]
    assert [c.metadata.name for c in classes] == ["gpu.nvidia.com", "mig.nvidia.com"]
    gpu = classes[0]
    assert gpu.spec.selectors[0].cel is not None
    assert gpu.spec.selectors[0].cel.expression == \
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
    assert gpu.spec.extended_resource_name == "nvidia.com/gpu"
    assert classes[1].spec.extended_resource_name is None
    nodes = nodes_of(res.objects)
    assert [n.metadata.name for n in nodes] == ["h100-80gb-hbm3-0", "h100-80gb-hbm3-1", "gh200-96gb-0"]
    n = nodes[0]
    assert n.metadata.labels["kubernetes.io/hostname"] == "h100-80gb-hbm3-0"
    assert n.metadata.labels["nvidia.com/gpu.count"] == "4"
    assert n.metadata.labels["nvidia.com/gpu.family"] == "hopper"
    assert set(n.status.allocatable) == {"cpu", "memory", "pods"}  # no nvidia.com/gpu without the device plugin
    assert nodes[2].metadata.labels["kubernetes.io/arch"] == "arm64"


def test_device_plugin_nodes_publish_no_slices() -> None:
    res = generate_fleet([NodeSpec("h100", count=2, gpus_per_node=4, device_plugin=True),
                          NodeSpec("a100-40gb", "mig-static:all-1g.5gb", gpus_per_node=2, device_plugin=True),
                          NodeSpec("l40s", gpus_per_node=2)])
    assert_valid(res.objects)
    nodes = nodes_of(res.objects)
    assert nodes[0].status.allocatable["nvidia.com/gpu"] == q(4)
    assert nodes[2].status.allocatable["nvidia.com/mig-1g.5gb"] == q(14)
    assert "nvidia.com/gpu" not in nodes[2].status.allocatable
    assert nodes[2].metadata.labels["nvidia.com/mig.strategy"] == "mixed"
    assert {s.spec.node_name for s in slices_of(res.objects)} == {"l40s-0"}


def test_name_prefixes_and_numbering() -> None:
    res = generate_fleet([NodeSpec("h100", count=2, name_prefix="dgx"), NodeSpec("h100", name_prefix="dgx"),
                          NodeSpec("h100", "mig-off")])
    assert [n.metadata.name for n in nodes_of(res.objects)] == ["dgx-0", "dgx-1", "dgx-2", "h100-80gb-hbm3-mig-off-0"]


# --- determinism ------------------------------------------------------------------------------------------------

def test_same_inputs_same_bytes() -> None:
    specs = [NodeSpec("h100", count=2), NodeSpec("a100-40gb", "mig-dynamic", gpus_per_node=2),
             NodeSpec("a30", "mig-static")]
    first = to_yaml(generate_fleet(specs).objects)
    assert first == to_yaml(generate_fleet(specs).objects)
    other = to_yaml(generate_fleet(specs, seed=7).objects)
    uuid = re.compile(r"GPU-[0-9a-f-]{36}")
    assert set(uuid.findall(first)).isdisjoint(uuid.findall(other))  # another seed: other identities ...
    assert uuid.sub("", first).count("\n") == uuid.sub("", other).count("\n")  # ... same shape


def test_a_node_does_not_depend_on_other_groups() -> None:
    alone = generate_fleet([NodeSpec("h100", gpus_per_node=2)]).objects
    with_more = generate_fleet([NodeSpec("h100", gpus_per_node=2), NodeSpec("a100-40gb", "mig-dynamic")]).objects
    assert to_yaml(alone) == to_yaml(with_more[:len(alone)])


# --- unverified catalog values --------------------------------------------------------------------------------

def test_unverified_lists_only_what_is_used() -> None:
    assert generate_fleet([NodeSpec("h100")], driver_version="570.124.06").unverified == []
    assert generate_fleet([NodeSpec("a100-pcie-40gb")]).unverified == []  # addressingMode observed there
    assert generate_fleet([NodeSpec("h100")]).unverified == ["h100-80gb-hbm3: addressingMode=HMM (assumed)"]
    assert generate_fleet([NodeSpec("a100-40gb")], driver_version="570.124.06").unverified == \
        ["a100-sxm4-40gb: brand=Nvidia"]
    static = generate_fleet([NodeSpec("a100-80gb", "mig-static:all-3g.40gb")], driver_version="570.124.06")
    assert static.unverified == ["a100-sxm4-80gb MIG 3g.40gb: memory_mib=40192, placements=4@0,4"]


def test_unverified_marks_estimates() -> None:
    res = generate_fleet([NodeSpec("b200", "mig-dynamic", gpus_per_node=1)])
    text = "\n".join(res.unverified)
    assert "b200: brand=Nvidia" in text and "MIG geometry=8 memory slices/7 compute slices" in text
    line = next(x for x in res.unverified if x.startswith("b200 MIG 1g.23gb:"))
    assert "memory_mib=" in line and "(estimated: not in the catalog)" in line
    devices = {d.name: d for d in devices_of(slices_of(res.objects))}
    mem = devices["gpu-0-mig-1g23gb-19-0"].capacity["memory"].value
    two = devices["gpu-0-mig-2g45gb-14-0"].capacity["memory"].value
    assert two == q(45312 * MIB) and mem == q(45312 // 2 * MIB)  # scaled from the known 2-slice size


# --- the allocator on generated fleets ---------------------------------------------------------------------------

def _claim(name: str, requests: list[dict[str, object]], constraints: list[dict[str, object]] | None = None
           ) -> r.ResourceClaim:
    spec: dict[str, object] = {"requests": requests}
    if constraints:
        spec["constraints"] = constraints
    obj = decode_object({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                         "metadata": {"name": name, "namespace": "default"}, "spec": {"devices": spec}},
                        source="test", warnings=[], where="")
    assert isinstance(obj, r.ResourceClaim)
    return obj


def _steps(objs: list[KubeObject], node: str, *claims: str) -> list[dict[str, object]]:
    sc = ScenarioInput(name="fleet", objects=objs, steps=[StepSpec(claims=[c], node=node) for c in claims])
    steps: list[dict[str, object]] = run_scenario(sc)["steps"]
    return steps


def test_seed_05_claim_on_a_generated_partitionable_a100() -> None:
    res = generate_fleet([NodeSpec("a100-40gb", "mig-dynamic", gpus_per_node=2, name_prefix="a100-mig")])
    claim = _claim("two-mig-slices", [
        {"name": "mig-1g", "exactly": {"deviceClassName": "mig.nvidia.com", "selectors": [
            {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].profile == "1g.5gb"'}}]}},
        {"name": "mig-2g", "exactly": {"deviceClassName": "mig.nvidia.com", "selectors": [
            {"cel": {"expression": 'device.attributes["gpu.nvidia.com"].profile == "2g.10gb"'}}]}},
    ], [{"matchAttribute": "gpu.nvidia.com/parentUUID", "requests": ["mig-1g", "mig-2g"]}])
    (step,) = _steps([*res.objects, claim], "a100-mig-0", "two-mig-slices")
    assert step["status"] == "allocated"
    devices = [d["device"] for d in step["results"][0]["devices"]]  # type: ignore[index]
    assert devices == ["gpu-0-mig-1g5gb-19-0", "gpu-0-mig-2g10gb-14-2"]  # as upstream allocates seed-05


def test_hopper_full_gpu_and_mig_exclude_each_other() -> None:
    res = generate_fleet([NodeSpec("h100", "mig-dynamic", gpus_per_node=1, name_prefix="h")])
    gpu = _claim("gpu", [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}])
    mig = _claim("mig", [{"name": "mig", "exactly": {"deviceClassName": "mig.nvidia.com"}}])
    steps = _steps([*res.objects, gpu, mig], "h-0", "gpu", "mig")
    assert [s["status"] for s in steps] == ["allocated", "unsatisfiable"]


# --- input parsing and errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("h100", NodeSpec("h100")),
    ("h100:4", NodeSpec("h100", count=4)),
    ("a100-40gb:mig-dynamic:2", NodeSpec("a100-40gb", "mig-dynamic", 2)),
    ("a100-40gb:mig-static:all-1g.5gb:3", NodeSpec("a100-40gb", "mig-static:all-1g.5gb", 3)),
    ("a100-40gb:mig-static", NodeSpec("a100-40gb", "mig-static")),
    ("dgx=h200:mig-off", NodeSpec("h200", "mig-off", name_prefix="dgx")),
    ("h100:0", NodeSpec("h100", count=0)),
])
def test_parse_node_spec(text: str, expected: NodeSpec) -> None:
    assert parse_node_spec(text) == expected


def test_parse_node_spec_applies_cli_wide_options() -> None:
    spec = parse_node_spec("h100:2", gpus_per_node=4, device_plugin=True)
    assert (spec.gpus_per_node, spec.device_plugin) == (4, True)


@pytest.mark.parametrize(("spec", "message"), [
    (NodeSpec("v100"), "unknown GPU model 'v100'; valid models: a100-sxm4-40gb"),
    (NodeSpec("h100", "mig"), "unknown mode 'mig' for h100; valid modes: full, mig-dynamic, mig-static[:LAYOUT]"),
    (NodeSpec("l40s", "mig-dynamic"), "model l40s (NVIDIA L40S) has no MIG; mode mig-dynamic is not possible"),
    (NodeSpec("t4", "mig-off"), "has no MIG"),
    (NodeSpec("h100", count=0), "node count must be at least 1"),
    (NodeSpec("h100", gpus_per_node=0), "GPUs per node must be between 1 and 16"),
    (NodeSpec("h100", gpus_per_node=17), "GPUs per node must be between 1 and 16"),
    (NodeSpec("h100", "full:all-1g.10gb"), "mode full takes no layout"),
    (NodeSpec("h100", "mig-dynamic", device_plugin=True), "cannot be combined with the device plugin"),
    (NodeSpec("h100", name_prefix="Bad_Name"), "node name 'Bad_Name-0'"),
])
def test_bad_specs(spec: NodeSpec, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        generate_fleet([spec])


def test_bad_driver_versions() -> None:
    with pytest.raises(InputError, match="invalid driver version"):
        generate_fleet([NodeSpec("h100")], driver_version="latest")
    with pytest.raises(InputError, match="no CUDA version known for driver branch 999"):
        generate_fleet([NodeSpec("h100")], driver_version="999.1.2")
    res = generate_fleet([NodeSpec("h100", gpus_per_node=1)], driver_version="999.1.02", cuda_driver_version="14.1")
    (d,) = devices_of(slices_of(res.objects))
    assert (d.attributes["driverVersion"].version, d.attributes["cudaDriverVersion"].version) == ("999.1.2", "14.1.0")
    with pytest.raises(InputError, match="no nodes requested"):
        generate_fleet([])
