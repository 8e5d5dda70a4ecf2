"""The `device` variable: domains, unqualified names, capacity, versions, list attributes, and the
NVIDIA device-class selectors against NVIDIA-shaped devices."""

from __future__ import annotations

import pytest
from cel_helpers import CLASS_GPU, CLASS_MIG, LISTS, NVIDIA, attr, device, nvidia_gpu, outcome, run

from drasim.cel import CelEnvironment, CelRuntimeError, compile_selector, device_input
from drasim.cel.device import Activation

G = "device.attributes['gpu.nvidia.com']"
C = "device.capacity['gpu.nvidia.com']"


# --- NVIDIA ----------------------------------------------------------------------------------------

def test_class_selectors_on_nvidia_gpu() -> None:
    gpu = nvidia_gpu()
    assert run(CLASS_GPU, gpu, driver=NVIDIA) is True
    assert run(CLASS_MIG, gpu, driver=NVIDIA) is False
    assert run(CLASS_MIG, nvidia_gpu(kind="mig"), driver=NVIDIA) is True


def test_class_selector_protects_foreign_devices() -> None:
    # The driver check short-circuits before the attribute lookup that would fail.
    nic = device({"rdma": True}, name="nic-0")
    assert run(CLASS_GPU, nic, driver="nic.example.com") is False
    assert run(f"{G}.type == 'gpu'", nic, driver="nic.example.com") == CelRuntimeError("no such key: type")


@pytest.mark.parametrize(("expr", "expected"), [
    (f"{G}.productName == 'NVIDIA H100 80GB HBM3'", True),
    (f"{G}.productName.contains('H100')", True),
    (f"{G}.productName.contains('H200')", False),
    (f"{G}.productName.lowerAscii().matches('^nvidia (h100|h200)')", True),
    (f"{C}.memory.compareTo(quantity('80Gi')) >= 0", False),  # 81559Mi < 80Gi (81920Mi)
    (f"{C}.memory.isLessThan(quantity('80Gi'))", True),
    (f"{C}.memory.compareTo(quantity('79Gi')) >= 0", True),
    (f"!{C}.memory.isLessThan(quantity('80Gi'))", False),
    (f"{C}.multiprocessors.compareTo(quantity('132')) >= 0", True),
    (f"{G}.driverVersion.isGreaterThan(semver('560.0.0'))", True),
    (f"{G}.driverVersion.compareTo(semver('570.124.6')) == 0", True),
    (f"{G}.driverVersion.isLessThan(semver('570.0.0'))", False),
    (f"{G}.driverVersion.major() >= 570", True),
    (f"{G}.cudaComputeCapability.major() >= 9", True),
    (f"{G}.cudaComputeCapability.compareTo(semver('8.0.0')) >= 0", True),
    (f"{G}.brand == 'Nvidia' && {G}.cudaDriverVersion.isGreaterThan(semver('12.3.0'))", True),
    (f"cel.bind(a, {G}, a.architecture == 'Hopper' || a.architecture == 'Blackwell')", True),
    (f"{G}.index == 0", True),
    (f"{G}.?addressingMode.orValue('None') == 'None'", True),
    (f"{G}.uuid.startsWith('GPU-')", True),
])
def test_nvidia_selectors(expr: str, expected: bool) -> None:
    assert run(expr, nvidia_gpu(), driver=NVIDIA) is expected


# --- domains and names -----------------------------------------------------------------------------

def test_unknown_domain_is_an_empty_map() -> None:
    dev = device({"model": "a"})
    assert run("device.attributes['nope'].size() == 0", dev) is True
    assert run("!('x' in device.attributes['nope'])", dev) is True
    assert run("device.capacity['nope'].size() == 0", dev) is True
    assert run("'nope' in device.attributes", dev) is False
    assert run("'dra.example.com' in device.attributes", dev) is True
    # Upstream's presence test goes through the same defaulting lookup: always true.
    assert run("has(device.attributes.nope)", dev) is True
    assert run("device.attributes['nope'].x == 1", dev) == CelRuntimeError("no such key: x")
    assert run("device.attributes['nope']['x'] == 1", dev) == CelRuntimeError("no such key: x")


def test_unknown_name_is_an_error_not_false() -> None:
    dev = device({"model": "a"})
    assert run("device.attributes['dra.example.com'].other == 'a'", dev) == \
        CelRuntimeError("no such key: other")
    assert run("device.attributes['dra.example.com']['other'] == 'a'", dev) == \
        CelRuntimeError("no such key: other")
    assert run("device.capacity['dra.example.com'].memory.isInteger()", dev) == \
        CelRuntimeError("no such key: memory")


def test_robust_forms() -> None:
    dev = device({"model": "a"})
    assert run("'other' in device.attributes['dra.example.com']", dev) is False
    assert run("has(device.attributes['dra.example.com'].other)", dev) is False
    assert run("has(device.attributes['dra.example.com'].model)", dev) is True
    assert run("device.attributes['dra.example.com'].?other.orValue('z') == 'z'", dev) is True
    assert run("device.attributes['dra.example.com'].?model.orValue('z') == 'a'", dev) is True
    assert run("device.attributes['x.example.com'].?model.hasValue()", dev) is False


def test_qualified_and_unqualified_names() -> None:
    dev = device({"model": "m", "ext.example.com/family": "f", "dra.example.com/gen": 5})
    assert run("device.attributes['dra.example.com'].model == 'm'", dev) is True
    assert run("device.attributes['ext.example.com'].family == 'f'", dev) is True
    assert run("device.attributes['dra.example.com'].gen == 5", dev) is True
    assert run("device.attributes['ext.example.com'].model == 'm'", dev) == \
        CelRuntimeError("no such key: model")
    assert run("device.attributes['dra.example.com'].size() == 2", dev) is True
    assert run("device.attributes.size() == 2", dev) is True
    # Unqualified names belong to the driver of the slice that publishes the device.
    assert run("device.attributes['other.driver'].model == 'm'", dev, driver="other.driver") is True


def test_capacity_values_are_quantities() -> None:
    dev = device(capacity={"memory": "1Gi", "ext.example.com/bw": "10G"})
    assert run("device.capacity['dra.example.com'].memory == quantity('1024Mi')", dev) is True
    assert run("device.capacity['ext.example.com'].bw.isGreaterThan(quantity('1G'))", dev) is True
    assert run("device.capacity.exists(d, d == 'ext.example.com')", dev) is True


def test_whole_maps_iterate() -> None:
    dev = device({"a": 1, "b": 2, "x.io/c": 3})
    assert run("device.attributes['dra.example.com'].all(k, k in ['a', 'b'])", dev) is True
    assert run("device.attributes.all(d, d in ['dra.example.com', 'x.io'])", dev) is True
    assert run("device.attributes['dra.example.com'].map(k, device.attributes['dra.example.com'][k])"
               ".sum() == 3", dev, LISTS) is True


def test_allow_multiple_allocations() -> None:
    assert run("device.allowMultipleAllocations", device(allow_multiple_allocations=True)) is True
    assert run("device.allowMultipleAllocations", device()) is False


def test_version_attributes_are_semver() -> None:
    dev = device({"v": attr(version="1.2.3-rc.1")})
    assert run("device.attributes['dra.example.com'].v.isLessThan(semver('1.2.3'))", dev) is True
    assert run("device.attributes['dra.example.com'].v == semver('1.2.3-rc.1')", dev) is True


# --- list-type attributes --------------------------------------------------------------------------

def test_list_attributes_need_the_feature() -> None:
    dev = device({"names": ["a", "b"], "n": 1})
    expr = "device.attributes['dra.example.com'].n == 1"
    assert run(expr, dev) == CelRuntimeError("attribute names: unsupported attribute value")
    assert run(expr, dev, LISTS) is True
    assert run("device.attributes['dra.example.com'].names.exists(x, x == 'b')", dev, LISTS) is True
    assert run("'a' in device.attributes['dra.example.com'].names", dev, LISTS) is True


def test_list_attribute_wins_over_scalar_when_both_are_set() -> None:
    dev = device({"x": attr(int_=1, ints=[2, 3])})
    assert run("device.attributes['dra.example.com'].x == 1", dev) is True
    assert run("device.attributes['dra.example.com'].x == [2, 3]", dev, LISTS) is True


def test_empty_list_attribute_is_accepted() -> None:
    dev = device({"x": attr(strings=[])})
    assert run("device.attributes['dra.example.com'].x.size() == 0", dev, LISTS) is True


def test_version_list_with_bad_entry() -> None:
    dev = device({"vs": attr(versions=["1.0.0", "bad"])})
    r = run("true", dev, LISTS)
    assert isinstance(r, CelRuntimeError)
    assert r.message.startswith("attribute vs: parse semantic version: ")


def test_macro_on_scalar_needs_list_feature_to_compile() -> None:
    expr = "device.attributes['dra.example.com'].n.exists(x, x > 0)"
    assert outcome(expr, device({"n": 1}), LISTS) == ("runtime", "got 'types.Int', expected iterable type")
    assert outcome(expr, device({"n": 1}))[0] == "compile"


# --- inputs are reusable ---------------------------------------------------------------------------

def test_device_input_is_reusable_across_expressions_and_environments() -> None:
    di = device_input(NVIDIA, nvidia_gpu())
    assert compile_selector(CLASS_GPU).evaluate(di) is True
    assert compile_selector(CLASS_MIG).evaluate(di) is False
    assert compile_selector(CLASS_GPU, LISTS).evaluate(di) is True
    assert compile_selector(CLASS_GPU, CelEnvironment(stored=False)).evaluate(di) is True
    assert compile_selector(CLASS_GPU).evaluate(di) is True


def test_a_fresh_activation_sets_every_slot() -> None:
    # Activation copies DeviceInput's fields one by one (speed): a slot DeviceInput gains must be copied too.
    act = Activation(device_input(NVIDIA, nvidia_gpu()))
    slots = [name for cls in Activation.__mro__ for name in getattr(cls, "__slots__", ())]
    assert "attrs" in slots and "vars" in slots
    assert [name for name in slots if not hasattr(act, name)] == []
