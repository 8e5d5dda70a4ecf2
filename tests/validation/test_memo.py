"""What validation works out once (per name, per set of attribute names, per CEL expression) still reports
each object's own field paths, whatever was validated before."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.decode import decode_object
from drasim.api.gates import ValidationFeatures
from drasim.api.profile import SIMULATED, profile_for
from drasim.validation import celcheck, resourceslice
from drasim.validation.checker import Checker
from drasim.validation.findings import Finding
from drasim.validation.objects import validate_object
from hypothesis_budget import examples

ATTRS = {"model": {"string": "a100"}, "driverVersion": {"version": "1.2.3"}, "index": {"int": 0}}


def _slice(name: str, *devices: dict[str, Any]) -> Any:
    doc = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {"driver": "dra.example.com", "pool": {"name": name, "resourceSliceCount": 1},
                 "nodeName": "node-1", "devices": list(devices)},
    }
    return decode_object(copy.deepcopy(doc), source="test")


def _device(name: str, **attrs: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "attributes": {**ATTRS, **attrs}, "capacity": {"memory": {"value": "1Gi"}}}


def _lines(findings: list[Finding]) -> list[str]:
    return [f"{f.obj}: {f}" for f in findings]


def test_same_names_one_bad_value_names_its_own_device() -> None:
    findings = validate_object(_slice("s", _device("dev-0"), _device("dev-1", driverVersion={"version": "1.2"}),
                                      _device("dev-2", model={"string": "x" * 65})))
    assert _lines(findings) == [
        'ResourceSlice/s: spec.devices[1].attributes[driverVersion].version: Invalid value: "1.2": '
        "must be a string compatible with semver.org spec 2.0.0",
        "ResourceSlice/s: spec.devices[2].attributes[model].string: Too long: may not be more than 64 bytes",
    ]


def test_a_bad_name_seen_before_is_reported_at_each_place() -> None:
    bad = {"Bad-Name": {"int": 1}}
    first = validate_object(_slice("one", _device("dev-0", **bad), _device("dev-1", **bad)))
    second = validate_object(_slice("two", _device("dev-0"), _device("dev-1", **bad)))
    message = "Invalid value: \"Bad-Name\": a valid C identifier must start with alphabetic character"
    assert [(f.obj, f.path) for f in first] == [
        ("ResourceSlice/one", "spec.devices[0].attributes"), ("ResourceSlice/one", "spec.devices[1].attributes")]
    assert [(f.obj, f.path) for f in second] == [("ResourceSlice/two", "spec.devices[1].attributes")]
    assert all(message in str(f) for f in first + second)


def test_a_bad_device_name_seen_before_is_reported_for_each_slice() -> None:
    for name in ("a", "b"):
        [finding] = validate_object(_slice(name, _device("Dev_0")))
        assert (finding.obj, finding.path, finding.value) == (f"ResourceSlice/{name}", "spec.devices[0].name",
                                                              '"Dev_0"')


def test_one_expression_judged_per_gate_set() -> None:
    doc = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
           "spec": {"selectors": [{"cel": {"expression": "device.allowMultipleAllocations == true"}}]}}
    cls = decode_object(doc, source="test")
    old = profile_for("1.34").validation_features()
    assert validate_object(cls) == []
    assert "undefined field 'allowMultipleAllocations'" in validate_object(cls, features=old)[0].message
    assert validate_object(cls) == []


# --- property: the same findings as without any memo, whatever was validated before ----------------------


@contextmanager
def _no_memos() -> Iterator[None]:
    """Validation with every shortcut off: each name checked at each place, each attribute checked in full,
    each expression compiled."""
    with ExitStack() as stack:
        for name, method in vars(Checker).items():
            if hasattr(method, "__wrapped__"):
                stack.enter_context(mock.patch.object(Checker, name, method.__wrapped__))
        stack.enter_context(mock.patch.object(resourceslice, "valid_qualified_names", lambda names: False))
        stack.enter_context(mock.patch.object(resourceslice, "_plain_scalar", lambda attr: False))
        stack.enter_context(mock.patch.object(resourceslice, "_plain_scalars", lambda attributes: False))
        stack.enter_context(mock.patch.object(resourceslice, "valid_dns_labels", lambda names: False))
        stack.enter_context(mock.patch.object(celcheck, "_check", celcheck._check.__wrapped__))
        yield


def test_the_reference_has_the_memos_off() -> None:
    with _no_memos():
        assert not hasattr(Checker.qualified_name, "__wrapped__")
        assert not resourceslice.valid_qualified_names(("model",))
    assert hasattr(Checker.qualified_name, "__wrapped__")

_NAMES = st.sampled_from(["model", "dra.example.com/model", "Bad-Name", "a/b/c", "/x", "dom/", "x" * 40,
                          "UPPER.example.com/idx", "ok_1", "Dom.Example.com/ok"])
_VALUES = st.sampled_from([
    {"string": "a"}, {"string": "x" * 65}, {"string": "é" * 33}, {"string": ""}, {"version": "1.0.0"},
    {"version": "1.0"}, {"version": "01.0.0"}, {"version": "1.2.3-beta+x"}, {"int": 3}, {"bool": True}, {},
    {"int": 1, "bool": False}, {"strings": ["a"]}, {"ints": []}, {"versions": ["1.0"]},
])
_DEVICES = st.builds(
    lambda name, attrs, caps: {"name": name, "attributes": attrs, "capacity": caps},
    st.sampled_from(["dev-0", "Dev_1", "dev-2", "d" * 64]),
    st.dictionaries(_NAMES, _VALUES, max_size=4),
    st.dictionaries(_NAMES, st.just({"value": "1"}), max_size=2),
)
_FEATURES = [profile_for(v).validation_features() for v in SIMULATED] + [ValidationFeatures(list_type_attributes=True)]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.lists(_DEVICES, min_size=1, max_size=3), min_size=2, max_size=4),
       st.sampled_from(_FEATURES))
def test_memos_change_no_finding(slices: list[list[dict[str, Any]]], features: ValidationFeatures) -> None:
    objs = [_slice(f"s{i}", *devices) for i, devices in enumerate(slices)]
    forward = [_lines(validate_object(o, features=features)) for o in objs]
    backward = [_lines(validate_object(o, features=features)) for o in reversed(objs)][::-1]
    with _no_memos():
        reference = [_lines(validate_object(o, features=features)) for o in objs]
    assert forward == backward == reference
    for i, lines in enumerate(forward):
        assert all(line.startswith(f"ResourceSlice/s{i}: ") for line in lines)
