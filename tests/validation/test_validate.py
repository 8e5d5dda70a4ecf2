"""API validation of DRA objects: each rule firing and not, exact messages, limits, cross-object checks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from drasim.api.decode import decode_object
from drasim.api.gates import ValidationFeatures
from drasim.api.profile import SIMULATED, normalize_version, profile_for
from drasim.errors import DrasimError
from drasim.validation.celcheck import default_cel_checker
from drasim.validation.findings import Finding, render_value
from drasim.validation.formats import is_dns1123_label, is_qualified_name
from drasim.validation.objects import validate_object, validate_objects

# The API server's gate defaults per release, read from the one release profile.
FEATURES_BY_VERSION: dict[str, ValidationFeatures] = {v: profile_for(v).validation_features() for v in SIMULATED}


def validation_features(version: str) -> ValidationFeatures:
    return profile_for(version).validation_features()

# --- apimachinery messages, spelled out once ------------------------------------------------------

LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
C_IDENT_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for "
    "validation is '[A-Za-z_][A-Za-z0-9_]*')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
NODE_ONE_OF = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
PER_DEVICE_ONE_OF = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
REF_MSG = (
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
)


def gate_off(gate: str) -> str:
    return f"Forbidden: the {gate} feature gate is disabled; the API server would silently drop this field"


# --- builders -----------------------------------------------------------------------------------------


def device(name: str = "dev-0", **fields: Any) -> dict[str, Any]:
    return {"name": name, **fields}


def rslice(*devices: dict[str, Any], **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": "dra.example.com",
        "pool": {"name": "pool-a", "resourceSliceCount": 1},
        "nodeName": "node-1",
    }
    if devices:
        body["devices"] = list(devices)
    for key, value in spec.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "slice-a"},
        "spec": body,
    }


def exact(cls: str = "gpu", **fields: Any) -> dict[str, Any]:
    return {"deviceClassName": cls, **fields}


def request(name: str = "req-0", **fields: Any) -> dict[str, Any]:
    if "exactly" not in fields and "firstAvailable" not in fields:
        fields["exactly"] = exact()
    return {"name": name, **fields}


def claim(*requests: dict[str, Any], namespace: str = "ns", **devices: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "claim-a", "namespace": namespace},
        "spec": {"devices": {"requests": list(requests), **devices}},
    }


def device_class(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu"},
        "spec": spec,
    }


def taint_rule(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "rule"},
        "spec": spec,
    }


def sel(expression: str) -> dict[str, Any]:
    return {"cel": {"expression": expression}}


def stub_cel(expression: str, features: ValidationFeatures) -> tuple[str, str] | None:
    """Stands in for the CEL check: `!` makes a syntax error, `expensive` exceeds the cost limit."""
    if "!" in expression:
        return ("Invalid", "compilation failed: ERROR: <input>:1:1: Syntax error")
    if "expensive" in expression:
        return ("Forbidden", "too complex, exceeds cost limit")
    if "allowMultipleAllocations" in expression and not features.consumable_capacity:
        return ("Invalid", "compilation failed: undefined field 'allowMultipleAllocations'")
    return None


def decode(doc: dict[str, Any]) -> Any:
    obj = decode_object(copy.deepcopy(doc), source="test")
    assert obj is not None
    return obj


def errors(doc: dict[str, Any], features: ValidationFeatures | None = None) -> list[str]:
    """Every finding of one object as the API server would print it (warnings prefixed)."""
    return [
        ("warning: " if f.severity == "warning" else "") + str(f)
        for f in validate_object(decode(doc), features=features, cel_checker=stub_cel)
    ]


# --- valid objects produce nothing --------------------------------------------------------------------

VALID = {
    "slice": rslice(
        device(
            "gpu-0",
            attributes={
                "model": {"string": "H100"},
                "dra.example.com/index": {"int": 0},
                "driverVersion": {"version": "1.2.3-rc.1+build.5"},
                "healthy": {"bool": True},
            },
            capacity={"memory": {"value": "80Gi"}},
        )
    ),
    "counter-slice": rslice(sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}]),
    "class": device_class(
        selectors=[sel('device.driver == "dra.example.com"')],
        config=[{"opaque": {"driver": "dra.example.com", "parameters": {"a": 1}}}],
        extendedResourceName="example.com/gpu",
    ),
    "claim": claim(
        request(
            "gpu",
            exactly=exact(count=2, selectors=[sel("true")], tolerations=[{"key": "k", "operator": "Exists"}]),
        ),
        request(
            "nic",
            firstAvailable=[
                {"name": "big", "deviceClassName": "nic"},
                {"name": "small", "deviceClassName": "nic"},
            ],
        ),
        constraints=[{"requests": ["gpu", "nic/big"], "matchAttribute": "dra.example.com/numa"}],
        config=[{"requests": ["nic"], "opaque": {"driver": "dra.example.com", "parameters": {}}}],
    ),
    "all-mode": claim(request(exactly=exact(allocationMode="All"))),
    "count-zero-defaults-to-one": claim(request(exactly=exact(count=0))),
    "taint-rule": taint_rule(
        deviceSelector={"driver": "dra.example.com", "pool": "a/b", "device": "dev-0"},
        taint={"key": "example.com/broken", "value": "yes", "effect": "NoExecute"},
    ),
    "template": {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "tpl", "namespace": "ns"},
        "spec": {"spec": {"devices": {"requests": [request()]}}},
    },
    "uppercase-driver": rslice(device(), driver="DRA.Example.com"),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_objects_have_no_findings(name: str) -> None:
    features = FEATURES_BY_VERSION["1.37"] if name == "taint-rule" else None
    assert errors(VALID[name], features) == []


def test_other_kinds_are_ignored() -> None:
    ns = decode({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "BAD_NAME"}})
    assert validate_object(ns) == []


# --- rules, table-driven: (object, exact findings) -----------------------------------------------------

CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    # names
    "device name label": (
        rslice(device("Bad_Name")),
        [f'spec.devices[0].name: Invalid value: "Bad_Name": {LABEL_MSG}'],
    ),
    "device name with dots": (
        rslice(device("a.b")),
        ['spec.devices[0].name: Invalid value: "a.b": must not contain dots'],
    ),
    "device name too long": (
        rslice(device("a" * 64)),
        ['spec.devices[0].name: Invalid value: "' + "a" * 64 + '": must be no more than 63 bytes'],
    ),
    "driver required": (
        rslice(device(), driver=""),
        ["spec.driver: Required value", f'spec.driver: Invalid value: "": {SUBDOMAIN_MSG}'],
    ),
    "driver too long": (
        rslice(device(), driver="a" * 64),
        ["spec.driver: Too long: may not be more than 63 bytes"],
    ),
    "driver underscore": (
        rslice(device(), driver="dra_example.com"),
        [f'spec.driver: Invalid value: "dra_example.com": {SUBDOMAIN_MSG}'],
    ),
    "pool name segments": (
        rslice(device(), pool={"name": "a/B", "resourceSliceCount": 1}),
        [f'spec.pool.name: Invalid value: "B": {SUBDOMAIN_MSG}'],
    ),
    "pool name required": (
        rslice(device(), pool={"name": "", "resourceSliceCount": 1}),
        ["spec.pool.name: Required value"],
    ),
    "pool name too long": (
        rslice(device(), pool={"name": "/".join(["a" * 50] * 6), "resourceSliceCount": 1}),
        ["spec.pool.name: Too long: may not be more than 253 bytes"],
    ),
    "pool counts": (
        rslice(device(), pool={"name": "p", "resourceSliceCount": 0, "generation": -1}),
        [
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
            "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero",
        ],
    ),
    "metadata name": (
        {**rslice(device()), "metadata": {"name": "Slice_A"}},
        [f'metadata.name: Invalid value: "Slice_A": {SUBDOMAIN_MSG}'],
    ),
    "metadata name required": (
        {**rslice(device()), "metadata": {}},
        ["metadata.name: Required value: name or generateName is required"],
    ),
    # node selection
    "node selection none": (rslice(device(), nodeName=None), [f"spec: Required value: {NODE_ONE_OF}"]),
    "node selection two": (
        rslice(device(), allNodes=True),
        [f'spec: Invalid value: "{{`nodeName`, `allNodes`}}": {NODE_ONE_OF}, but multiple fields are set'],
    ),
    "allNodes false": (
        rslice(device(), nodeName=None, allNodes=False),
        [
            "spec.allNodes: Invalid value: false: must be either unset or set to true",
            f"spec: Required value: {NODE_ONE_OF}",
        ],
    ),
    "nodeName empty": (
        rslice(device(), nodeName=""),
        [
            'spec.nodeName: Invalid value: "": must be either unset or set to a non-empty string',
            f"spec: Required value: {NODE_ONE_OF}",
        ],
    ),
    "node selector two terms": (
        rslice(
            device(),
            nodeName=None,
            nodeSelector={
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "a", "operator": "Exists"}]},
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n"]}]},
                ]
            },
        ),
        [
            "spec.nodeSelector.nodeSelectorTerms: Invalid value: "
            '[{"matchExpressions":[{"key":"a","operator":"Exists"}]},'
            '{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}]: '
            "must have exactly one node selector term"
        ],
    ),
    "node selector requirements": (
        rslice(
            device(),
            nodeName=None,
            nodeSelector={
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "a", "operator": "In"},
                            {"key": "b", "operator": "Exists", "values": ["x"]},
                            {"key": "c", "operator": "Near"},
                        ],
                        "matchFields": [{"key": "spec.x", "operator": "In", "values": ["n"]}],
                    }
                ]
            },
        ),
        [
            "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
            "specified "
            "when `operator` is 'In' or 'NotIn'",
            "spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be "
            "specified "
            "when `operator` is 'Exists' or 'DoesNotExist'",
            'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[2].operator: Invalid value: "Near": '
            "not a valid selector operator",
            'spec.nodeSelector.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "spec.x": '
            "not a valid field selector key",
        ],
    ),
    "per-device node selection missing": (
        rslice(device(), nodeName=None, perDeviceNodeSelection=True),
        [f"spec.devices[0]: Required value: {PER_DEVICE_ONE_OF}"],
    ),
    "per-device node selection two": (
        rslice(device(nodeName="n", allNodes=True), nodeName=None, perDeviceNodeSelection=True),
        [f'spec.devices[0]: Invalid value: "{{`nodeName`, `allNodes`}}": {PER_DEVICE_ONE_OF}'],
    ),
    "per-device fields without perDeviceNodeSelection": (
        rslice(device(nodeName="n")),
        [
            "spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be "
            "set if "
            "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
        ],
    ),
    "sharedCounters and devices": (
        rslice(device(), sharedCounters=[{"name": "cs", "counters": {"c": {"value": "1"}}}]),
        ['spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed'],
    ),
    "duplicate device names": (
        rslice(device("a"), device("b"), device("a")),
        ['spec.devices[2]: Duplicate value: "a"'],
    ),
    # attributes and capacities
    "attribute none set": (
        rslice(device(attributes={"a": {}})),
        ['spec.devices[0].attributes[a]: Invalid value: "": exactly one value must be specified'],
    ),
    "attribute two set": (
        rslice(device(attributes={"a": {"int": 1, "bool": True}})),
        [
            'spec.devices[0].attributes[a]: Invalid value: {"int":1,"bool":true}: '
            "exactly one value must be specified"
        ],
    ),
    "attribute string too long": (
        rslice(device(attributes={"a": {"string": "x" * 65}})),
        ["spec.devices[0].attributes[a].string: Too long: may not be more than 64 bytes"],
    ),
    "attribute string 64 ok": (rslice(device(attributes={"a": {"string": "x" * 64}})), []),
    "attribute version not semver": (
        rslice(
            device(
                attributes={"a": {"version": "v1.2.3"}, "b": {"version": "1.02.3"}, "c": {"version": "1.2"}}
            )
        ),
        [
            'spec.devices[0].attributes[a].version: Invalid value: "v1.2.3": must be a string compatible '
            "with "
            "semver.org spec 2.0.0",
            'spec.devices[0].attributes[b].version: Invalid value: "1.02.3": must be a string compatible '
            "with "
            "semver.org spec 2.0.0",
            'spec.devices[0].attributes[c].version: Invalid value: "1.2": must be a string compatible with '
            "semver.org spec 2.0.0",
        ],
    ),
    "attribute key C identifier": (
        rslice(device(attributes={"1abc": {"int": 1}})),
        [f'spec.devices[0].attributes: Invalid value: "1abc": {C_IDENT_MSG}'],
    ),
    "attribute key too long": (
        rslice(device(attributes={"a" * 33: {"int": 1}})),
        ["spec.devices[0].attributes: Too long: may not be more than 32 bytes"],
    ),
    "attribute key empty domain/name": (
        rslice(device(attributes={"/x": {"int": 1}, "dom.com/": {"int": 2}})),
        [
            'spec.devices[0].attributes: Invalid value: "": the domain must not be empty',
            'spec.devices[0].attributes: Invalid value: "": the name must not be empty',
        ],
    ),
    "attribute key bad domain": (
        rslice(device(attributes={"dom_x/y": {"int": 1}})),
        [f'spec.devices[0].attributes: Invalid value: "dom_x": {SUBDOMAIN_MSG}'],
    ),
    "attribute key two slashes (warning)": (
        rslice(device(attributes={"a.com/b/c": {"int": 1}})),
        [
            'warning: spec.devices[0].attributes: Invalid value: "a.com/b/c": more than one slash: accepted '
            "by the "
            "API server up to at least 1.37 (a known gap), but not a valid qualified name"
        ],
    ),
    "too many attributes and capacities": (
        rslice(
            device(
                attributes={f"a{i}": {"int": i} for i in range(20)},
                capacity={f"c{i}": {"value": "1"} for i in range(13)},
            )
        ),
        [
            "spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not "
            "exceed 32"
        ],
    ),
    "32 attributes and capacities ok": (
        rslice(
            device(
                attributes={f"a{i}": {"int": i} for i in range(20)},
                capacity={f"c{i}": {"value": "1"} for i in range(12)},
            )
        ),
        [],
    ),
    "request policy needs allowMultipleAllocations": (
        rslice(device(capacity={"mem": {"value": "1Gi", "requestPolicy": {"default": "1Gi"}}})),
        ["spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations must be true"],
    ),
    # taints
    "taint effects": (
        rslice(
            device(
                taints=[
                    {"key": "k", "effect": "PreferNoSchedule"},
                    {"key": "k"},
                    {"key": "k", "effect": "None"},
                ]
            )
        ),
        [
            'spec.devices[0].taints[0].effect: Unsupported value: "PreferNoSchedule": supported values: '
            '"NoExecute", "NoSchedule", "None"',
            "spec.devices[0].taints[1].effect: Required value",
        ],
    ),
    "taint key and value": (
        rslice(device(taints=[{"key": "", "value": "-bad", "effect": "NoSchedule"}])),
        [
            'spec.devices[0].taints[0].key: Invalid value: "": name part must be non-empty',
            f'spec.devices[0].taints[0].key: Invalid value: "": {NAME_PART_MSG}',
            f'spec.devices[0].taints[0].value: Invalid value: "-bad": {LABEL_VALUE_MSG}',
        ],
    ),
    # binding conditions
    "binding conditions rules": (
        rslice(device(bindingConditions=["a", "a"], bindingFailureConditions=["a"])),
        [
            'spec.devices[0].bindingConditions[1]: Duplicate value: "a"',
            'spec.devices[0].bindingFailureConditions[0]: Invalid value: "a": bindingFailureConditions must '
            "not "
            "overlap with bindingConditions",
        ],
    ),
    "binding failure conditions need binding conditions": (
        rslice(device(bindingFailureConditions=["x"])),
        [
            "spec.devices[0].bindingConditions: Invalid value: null: bindingConditions are required to use "
            "bindingFailureConditions"
        ],
    ),
    "binding conditions need failure conditions": (
        rslice(device(bindingConditions=["x"])),
        [
            "spec.devices[0].bindingFailureConditions: Invalid value: null: bindingFailureConditions are "
            "required "
            "to use bindingConditions"
        ],
    ),
    "binding conditions limit": (
        rslice(device(bindingConditions=["a", "b", "c", "d", "e"], bindingFailureConditions=["f"])),
        ["spec.devices[0].bindingConditions: Too many: 5: must have at most 4 items"],
    ),
    # counters
    "counter set rules": (
        rslice(
            sharedCounters=[
                {"name": "Bad", "counters": {}},
                {"name": "", "counters": {"Mem": {"value": "1"}}},
                {"name": "Bad", "counters": {"x": {"value": "1"}}},
            ]
        ),
        [
            f'spec.sharedCounters[0].name: Invalid value: "Bad": {LABEL_MSG}',
            "spec.sharedCounters[0].counters: Required value",
            "spec.sharedCounters[1].name: Required value",
            f'spec.sharedCounters[1].counters: Invalid value: "Mem": {LABEL_MSG}',
            f'spec.sharedCounters[2].name: Invalid value: "Bad": {LABEL_MSG}',
            'spec.sharedCounters[2]: Duplicate value: "Bad"',
        ],
    ),
    "counter consumption rules": (
        rslice(
            device(
                consumesCounters=[
                    {"counterSet": "cs", "counters": {}},
                    {"counterSet": "cs", "counters": {"c": {"value": "1"}}},
                ]
            )
        ),
        [
            "spec.devices[0].consumesCounters[0].counters: Required value",
            'spec.devices[0].consumesCounters[1]: Duplicate value: "cs"',
        ],
    ),
    # claims
    "request neither": (
        claim({"name": "r"}),
        [
            "spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` "
            "is required"
        ],
    ),
    "request both": (
        claim(request("r", exactly=exact(), firstAvailable=[{"name": "s", "deviceClassName": "c"}])),
        [
            "spec.devices.requests[0]: Invalid value: null: exactly one of `exactly` or `firstAvailable` "
            "is required, but multiple fields are set"
        ],
    ),
    "request name label": (
        claim(request("Req")),
        [f'spec.devices.requests[0].name: Invalid value: "Req": {LABEL_MSG}'],
    ),
    "duplicate request names": (
        claim(request("a"), request("a")),
        ['spec.devices.requests[1]: Duplicate value: "a"'],
    ),
    "duplicate subrequest names": (
        claim(
            request(
                "r",
                firstAvailable=[{"name": "s", "deviceClassName": "c"}, {"name": "s", "deviceClassName": "c"}],
            )
        ),
        ['spec.devices.requests[0].firstAvailable[1]: Duplicate value: "s"'],
    ),
    "device class required": (
        claim(request(exactly=exact(""))),
        ["spec.devices.requests[0].exactly.deviceClassName: Required value"],
    ),
    "device class subdomain": (
        claim(request(exactly=exact("Gpu"))),
        [f'spec.devices.requests[0].exactly.deviceClassName: Invalid value: "Gpu": {SUBDOMAIN_MSG}'],
    ),
    "count negative": (
        claim(request(exactly=exact(count=-1))),
        ["spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"],
    ),
    "count with All": (
        claim(request(exactly=exact(allocationMode="All", count=2))),
        [
            "spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when "
            "allocationMode is 'All'"
        ],
    ),
    "allocation mode unknown": (
        claim(request(exactly=exact(allocationMode="Some"))),
        [
            'spec.devices.requests[0].exactly.allocationMode: Unsupported value: "Some": '
            'supported values: "All", "ExactCount"'
        ],
    ),
    "selector needs cel": (
        claim(request(exactly=exact(selectors=[{}]))),
        ["spec.devices.requests[0].exactly.selectors[0].cel: Required value"],
    ),
    "cel compile error": (
        claim(request(exactly=exact(selectors=[sel("1 + !")]))),
        [
            'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "1 + !": '
            "compilation failed: ERROR: <input>:1:1: Syntax error"
        ],
    ),
    "cel cost": (
        claim(request(exactly=exact(selectors=[sel("expensive")]))),
        [
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: Forbidden: too complex, exceeds "
            "cost limit"
        ],
    ),
    "cel too long": (
        claim(request(exactly=exact(selectors=[sel("t" * 10241)]))),
        [
            "spec.devices.requests[0].exactly.selectors[0].cel.expression: Too long: may not be more "
            "than 10240 bytes"
        ],
    ),
    "cel 10240 ok": (claim(request(exactly=exact(selectors=[sel("t" * 10240)]))), []),
    "toleration rules": (
        claim(
            request(
                exactly=exact(
                    tolerations=[
                        {"key": "k", "operator": "Exists", "value": "v"},
                        {"key": "k", "operator": "Equal", "value": "-v"},
                        {"key": "k", "operator": "Greater"},
                        {"key": "k", "effect": "PreferNoSchedule"},
                        {"key": "bad key", "operator": "Exists"},
                        {"operator": "Exists", "effect": "NoExecute"},
                        {"key": "k", "value": "v"},
                    ]
                )
            )
        ),
        [
            'spec.devices.requests[0].exactly.tolerations[0].value: Invalid value: "v": must be empty for '
            "operator "
            "`Exists`",
            f'spec.devices.requests[0].exactly.tolerations[1].value: Invalid value: "-v": {LABEL_VALUE_MSG}',
            'spec.devices.requests[0].exactly.tolerations[2].operator: Unsupported value: "Greater": '
            "supported "
            'values: "Equal", "Exists"',
            'spec.devices.requests[0].exactly.tolerations[3].effect: Unsupported value: "PreferNoSchedule": '
            'supported values: "NoExecute", "NoSchedule", "None"',
            f'spec.devices.requests[0].exactly.tolerations[4].key: Invalid value: "bad key": {NAME_PART_MSG}',
        ],
    ),
    "constraint without attribute (consumable capacity on)": (
        claim(request(), constraints=[{}]),
        [
            'spec.devices.constraints[0]: Required value: exactly one of "matchAttribute" or '
            '"distinctAttribute" '
            "is required, but multiple fields are set"
        ],
    ),
    "constraint attribute not fully qualified": (
        claim(request(), constraints=[{"matchAttribute": "model"}]),
        [
            'spec.devices.constraints[0].matchAttribute: Invalid value: "model": a fully qualified name '
            "must be a "
            "domain and a name separated by a slash"
        ],
    ),
    "constraint distinct attribute": (
        claim(request(), constraints=[{"distinctAttribute": "dom.com/1x"}]),
        [f'spec.devices.constraints[0].distinctAttribute: Invalid value: "1x": {C_IDENT_MSG}'],
    ),
    "constraint request refs": (
        claim(
            request("a"),
            request("b", firstAvailable=[{"name": "s", "deviceClassName": "c"}]),
            constraints=[
                {
                    "requests": ["a", "b", "b/s", "a/s", "b/t", "c", "a/b/c", "Bad", "a"],
                    "matchAttribute": "dom.com/x",
                }
            ],
        ),
        [
            f'spec.devices.constraints[0].requests[3]: Invalid value: "a/s": {REF_MSG}',
            f'spec.devices.constraints[0].requests[4]: Invalid value: "b/t": {REF_MSG}',
            f'spec.devices.constraints[0].requests[5]: Invalid value: "c": {REF_MSG}',
            f'spec.devices.constraints[0].requests[6]: Invalid value: "a/b/c": {REF_MSG}',
            f'spec.devices.constraints[0].requests[7]: Invalid value: "Bad": {LABEL_MSG}',
            f'spec.devices.constraints[0].requests[7]: Invalid value: "Bad": {REF_MSG}',
            'spec.devices.constraints[0].requests[8]: Duplicate value: "a"',
        ],
    ),
    "config rules": (
        claim(
            request(),
            config=[
                {"requests": ["nope"], "opaque": {"driver": "dra.example.com", "parameters": [1]}},
                {"opaque": {"driver": "dra.example.com"}},
                {},
            ],
        ),
        [
            f'spec.devices.config[0].requests[0]: Invalid value: "nope": {REF_MSG}',
            'spec.devices.config[0].opaque.parameters: Invalid value: "<value omitted>": must be a valid '
            "JSON object",
            "spec.devices.config[1].opaque.parameters: Required value",
            "spec.devices.config[2].opaque: Required value",
        ],
    ),
    "opaque parameters too large": (
        claim(
            request(), config=[{"opaque": {"driver": "dra.example.com", "parameters": {"x": "y" * 10240}}}]
        ),
        ["spec.devices.config[0].opaque.parameters: Too long: may not be more than 10240 bytes"],
    ),
    # device class
    "class selectors and config": (
        device_class(selectors=[{}], config=[{"opaque": {"driver": "", "parameters": {}}}]),
        [
            "spec.selectors[0].cel: Required value",
            "spec.config[0].opaque.driver: Required value",
            f'spec.config[0].opaque.driver: Invalid value: "": {SUBDOMAIN_MSG}',
        ],
    ),
    "class extended resource name": (
        device_class(extendedResourceName="gpu"),
        ['spec.extendedResourceName: Invalid value: "gpu": must be a valid extended resource name'],
    ),
    "class extended resource name kubernetes.io": (
        device_class(extendedResourceName="kubernetes.io/gpu"),
        [
            'spec.extendedResourceName: Invalid value: "kubernetes.io/gpu": must be a valid extended '
            "resource name"
        ],
    ),
    # device taint rule
    "taint rule": (
        taint_rule(
            deviceSelector={"driver": "Bad_Driver", "device": "Dev"}, taint={"key": "k", "effect": "Evict"}
        ),
        [
            "warning: Forbidden: the DRADeviceTaintRules feature gate is disabled (and its API version needs "
            "--runtime-config); the API server would not accept DeviceTaintRules",
            f'spec.deviceSelector.driver: Invalid value: "Bad_Driver": {SUBDOMAIN_MSG}',
            f'spec.deviceSelector.device: Invalid value: "Dev": {LABEL_MSG}',
            'spec.taint.effect: Unsupported value: "Evict": supported values: "NoExecute", "NoSchedule", '
            '"None"',
        ],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rule(name: str) -> None:
    doc, expected = CASES[name]
    assert errors(doc) == expected


def test_template_paths_are_under_spec_spec() -> None:
    doc = copy.deepcopy(VALID["template"])
    doc["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = -3
    assert errors(doc) == [
        "spec.spec.devices.requests[0].exactly.count: Invalid value: -3: must be greater than zero"
    ]


# --- request policies (consumable capacity) -----------------------------------------------------------


def policy_slice(policy: dict[str, Any], value: str = "10Gi") -> dict[str, Any]:
    return rslice(
        device(allowMultipleAllocations=True, capacity={"mem": {"value": value, "requestPolicy": policy}})
    )


P = "spec.devices[0].capacity[mem].requestPolicy"

POLICY_CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "valid range": ({"default": "2Gi", "validRange": {"min": "1Gi", "max": "9Gi", "step": "1Gi"}}, []),
    "valid values": ({"default": "2Gi", "validValues": ["1Gi", "2Gi", "4Gi"]}, []),
    "both": (
        {"default": "1Gi", "validValues": ["1Gi"], "validRange": {"min": "1Gi"}},
        [
            f'{P}: Forbidden: exactly one policy can be specified, cannot specify "validValues" and '
            '"validRange" '
            "at the same time"
        ],
    ),
    "default required (values)": (
        {"validValues": ["1Gi"]},
        [f"{P}.default: Required value: required when validValues is defined"],
    ),
    "default required (range)": (
        {"validRange": {"min": "1Gi"}},
        [f"{P}.default: Required value: required when validRange is defined"],
    ),
    "min required": (
        {"default": "1Gi", "validRange": {"max": "2Gi"}},
        [f"{P}.validRange.min: Required value: required when validRange is defined"],
    ),
    "range bounds": (
        {"default": "12Gi", "validRange": {"min": "11Gi", "max": "3Gi"}},
        [
            f'{P}.validRange.min: Invalid value: "11Gi": min is larger than capacity value: 10Gi',
            f'{P}.validRange.max: Invalid value: "11Gi": min is larger than max: 3Gi',
            f'{P}.validRange.default: Invalid value: "12Gi": default is more than max: 3Gi',
        ],
    ),
    "default below min": (
        {"default": "1Gi", "validRange": {"min": "2Gi", "max": "20Gi"}},
        [
            f'{P}.validRange.default: Invalid value: "1Gi": default is less than min: 2Gi',
            f'{P}.validRange.max: Invalid value: "20Gi": max is larger than capacity value: 10Gi',
        ],
    ),
    "step": (
        {"default": "2Gi", "validRange": {"min": "1Gi", "max": "8Gi", "step": "2Gi"}},
        [
            f'{P}.validRange.step: Invalid value: "2Gi": value is not a multiple of a given step (2Gi) from '
            "(1Gi)",
            f'{P}.validRange.step: Invalid value: "8Gi": value is not a multiple of a given step (2Gi) from '
            "(1Gi)",
        ],
    ),
    "step too large": (
        {"default": "1Gi", "validRange": {"min": "1Gi", "step": "10Gi"}},
        [f'{P}.validRange.step: Invalid value: "10Gi": one step 11Gi is larger than capacity value: 10Gi'],
    ),
    "step not positive": (
        {"default": "1Gi", "validRange": {"min": "1Gi", "step": "0"}},
        [f'{P}.validRange.step: Invalid value: "0": must be greater than zero'],
    ),
    "values unsorted, too big, default missing": (
        {"default": "3Gi", "validValues": ["2Gi", "1Gi", "20Gi"]},
        [
            f'{P}.validValues[1]: Invalid value: "1Gi": values must be sorted in ascending order',
            f'{P}.validValues[2]: Invalid value: "20Gi": option is larger than capacity value: 10Gi',
            f'{P}.validValues: Invalid value: "3Gi": default value is not valid according to the '
            "requestPolicy",
        ],
    ),
    "values duplicate": (
        {"default": "1Gi", "validValues": ["1Gi", "1Gi"]},
        [f'{P}.validValues[1]: Duplicate value: "1073741824"'],
    ),
    "values too many": (
        {"default": "1", "validValues": [str(i) for i in range(1, 12)]},
        [
            f"{P}.validValues: Too many: 11: must have at most 10 items",
            f'{P}.validValues: Invalid value: "1": default value is not valid according to the requestPolicy',
        ],
    ),
}


@pytest.mark.parametrize("name", list(POLICY_CASES))
def test_request_policy(name: str) -> None:
    policy, expected = POLICY_CASES[name]
    assert errors(policy_slice(policy)) == expected


def test_request_policy_fractional_needs_1_37() -> None:
    policy = {"default": "500m", "validRange": {"min": "0", "step": "250m"}}
    # 1.36: integer Value() arithmetic: 500m -> 1, 250m -> 1, so 1 % 1 == 0; accepted.
    assert errors(policy_slice(policy, value="2")) == []
    # 1.37 with DRAFractionalCapacityRange (beta, off by default): milli arithmetic, still a multiple.
    fractional = profile_for("1.37", "DRAFractionalCapacityRange=true").validation_features()
    assert errors(policy_slice(policy, value="2"), fractional) == []
    bad = {"default": "300m", "validRange": {"min": "0", "step": "250m"}}
    assert errors(policy_slice(bad, value="2")) == []  # integer path hides it
    assert errors(policy_slice(bad, value="2"), FEATURES_BY_VERSION["1.37"]) == []  # 1.37's default: the same
    assert errors(policy_slice(bad, value="2"), fractional) == [
        f'{P}.validRange.step: Invalid value: "300m": value is not a multiple of a given step (250m) from (0)'
    ]


# --- list limits and their short-circuit --------------------------------------------------------------


def test_devices_limit_128() -> None:
    ok = rslice(*[device(f"d{i}") for i in range(128)])
    assert errors(ok) == []
    too_many = rslice(*[device("Bad_Name") for _ in range(129)])
    # Short-circuit: one TooMany, items (bad names, duplicates) are not looked at.
    assert errors(too_many) == ["spec.devices: Too many: 129: must have at most 128 items"]


@pytest.mark.parametrize(
    "advanced",
    [
        {"taints": [{"key": "k", "effect": "NoSchedule"}]},
        {"consumesCounters": [{"counterSet": "cs", "counters": {"c": {"value": "1"}}}]},
    ],
)
def test_devices_limit_64_with_advanced_features(advanced: dict[str, Any]) -> None:
    devices = [device(f"d{i}") for i in range(65)]
    devices[7].update(advanced)
    assert errors(rslice(*devices)) == ["spec.devices: Too many: 65: must have at most 64 items"]
    assert errors(rslice(*devices[:64])) == []


def test_devices_limit_64_with_list_attributes() -> None:
    features = ValidationFeatures(list_type_attributes=True)
    devices = [device(f"d{i}") for i in range(65)]
    devices[0]["attributes"] = {"ids": {"ints": [1, 2]}}
    assert errors(rslice(*devices), features) == ["spec.devices: Too many: 65: must have at most 64 items"]
    # With the gate off the list is dropped first, so the 128 limit applies (and the attribute is empty).
    assert errors(rslice(*devices)) == [
        "warning: spec.devices[0].attributes[ids].ints: " + gate_off("DRAListTypeAttributes"),
        'spec.devices[0].attributes[ids]: Invalid value: "": exactly one value must be specified',
    ]


LIMITS = [
    # (what, builder(n) -> doc, limit, path)
    (
        "counter sets",
        lambda n: rslice(
            sharedCounters=[{"name": f"c{i}", "counters": {"x": {"value": "1"}}} for i in range(n)]
        ),
        8,
        "spec.sharedCounters",
    ),
    (
        "counters per set",
        lambda n: rslice(
            sharedCounters=[{"name": "c", "counters": {f"x{i}": {"value": "1"} for i in range(n)}}]
        ),
        32,
        "spec.sharedCounters[0].counters",
    ),
    (
        "consumptions per device",
        lambda n: rslice(
            device(
                consumesCounters=[
                    {"counterSet": f"c{i}", "counters": {"x": {"value": "1"}}} for i in range(n)
                ]
            )
        ),
        2,
        "spec.devices[0].consumesCounters",
    ),
    (
        "counters per consumption",
        lambda n: rslice(
            device(
                consumesCounters=[
                    {"counterSet": "c", "counters": {f"x{i}": {"value": "1"} for i in range(n)}}
                ]
            )
        ),
        32,
        "spec.devices[0].consumesCounters[0].counters",
    ),
    (
        "taints",
        lambda n: rslice(device(taints=[{"key": f"k{i}", "effect": "NoSchedule"} for i in range(n)])),
        16,
        "spec.devices[0].taints",
    ),
    ("requests", lambda n: claim(*[request(f"r{i}") for i in range(n)]), 32, "spec.devices.requests"),
    (
        "subrequests",
        lambda n: claim(
            request("r", firstAvailable=[{"name": f"s{i}", "deviceClassName": "c"} for i in range(n)])
        ),
        8,
        "spec.devices.requests[0].firstAvailable",
    ),
    (
        "tolerations",
        lambda n: claim(request(exactly=exact(tolerations=[{"operator": "Exists"}] * n))),
        16,
        "spec.devices.requests[0].exactly.tolerations",
    ),
    (
        "request selectors",
        lambda n: claim(request(exactly=exact(selectors=[sel("true")] * n))),
        32,
        "spec.devices.requests[0].exactly.selectors",
    ),
    (
        "constraints",
        lambda n: claim(request(), constraints=[{"matchAttribute": "d.com/x"}] * n),
        32,
        "spec.devices.constraints",
    ),
    (
        "configs",
        lambda n: claim(request(), config=[{"opaque": {"driver": "d.com", "parameters": {}}}] * n),
        32,
        "spec.devices.config",
    ),
    ("class selectors", lambda n: device_class(selectors=[sel("true")] * n), 32, "spec.selectors"),
    (
        "class configs",
        lambda n: device_class(config=[{"opaque": {"driver": "d.com", "parameters": {}}}] * n),
        32,
        "spec.config",
    ),
]


@pytest.mark.parametrize(("what", "build", "limit", "path"), LIMITS, ids=[x[0] for x in LIMITS])
def test_limits(what: str, build: Any, limit: int, path: str) -> None:
    assert errors(build(limit)) == []
    assert errors(build(limit + 1)) == [f"{path}: Too many: {limit + 1}: must have at most {limit} items"]


def test_attribute_values_limit_48() -> None:
    features = ValidationFeatures(list_type_attributes=True)
    ok = rslice(
        device(
            attributes={
                "a": {"ints": list(range(40))},
                "b": {"int": 1},
                **{f"c{i}": {"bool": True} for i in range(7)},
            }
        )
    )
    assert errors(ok, features) == []
    bad = rslice(
        device(attributes={"a": {"ints": list(range(40))}, **{f"c{i}": {"bool": True} for i in range(9)}})
    )
    assert errors(bad, features) == [
        "spec.devices[0]: Invalid value: 49: the total number of attribute values must not exceed 48"
    ]


def test_empty_list_attribute() -> None:
    features = ValidationFeatures(list_type_attributes=True)
    doc = rslice(device(attributes={"a": {"strings": []}, "b": {"versions": ["1.0.0", "x"]}}))
    assert errors(doc, features) == [
        "spec.devices[0].attributes[a].strings: Invalid value: []: must not be empty if specified",
        'spec.devices[0].attributes[b].versions[1]: Invalid value: "x": must be a string compatible with '
        "semver.org spec 2.0.0",
    ]


# --- feature gates ------------------------------------------------------------------------------------

V134 = FEATURES_BY_VERSION["1.34"]


def test_gated_slice_fields_are_forbidden_and_dropped() -> None:
    doc = rslice(
        device(
            taints=[{"key": "k", "effect": "NoSchedule"}],
            consumesCounters=[{"counterSet": "c", "counters": {"x": {"value": "1"}}}],
            allowMultipleAllocations=True,
            bindsToNode=True,
            bindingConditions=["a"],
            bindingFailureConditions=["b"],
            capacity={"m": {"value": "1", "requestPolicy": {"default": "1"}}},
        )
    )
    assert errors(doc, V134) == [
        "warning: spec.devices[0].consumesCounters: " + gate_off("DRAPartitionableDevices"),
        "warning: spec.devices[0].taints: " + gate_off("DRADeviceTaints"),
        "warning: spec.devices[0].bindsToNode: " + gate_off("DRADeviceBindingConditions"),
        "warning: spec.devices[0].bindingConditions: " + gate_off("DRADeviceBindingConditions"),
        "warning: spec.devices[0].bindingFailureConditions: " + gate_off("DRADeviceBindingConditions"),
        "warning: spec.devices[0].allowMultipleAllocations: " + gate_off("DRAConsumableCapacity"),
        "warning: spec.devices[0].capacity[m].requestPolicy: " + gate_off("DRAConsumableCapacity"),
    ]
    assert errors(doc) == []


def test_per_device_node_selection_gate_drop_leaves_no_node_selection() -> None:
    doc = rslice(device(nodeName="n"), nodeName=None, perDeviceNodeSelection=True)
    assert errors(doc, V134) == [
        "warning: spec.perDeviceNodeSelection: " + gate_off("DRAPartitionableDevices"),
        "warning: spec.devices[0].nodeName: " + gate_off("DRAPartitionableDevices"),
        f"spec: Required value: {NODE_ONE_OF}",
    ]


def test_gated_claim_fields() -> None:
    doc = claim(
        request("a", exactly=exact(tolerations=[{"operator": "Exists"}], capacity={"requests": {"m": "1"}})),
        request("b", firstAvailable=[{"name": "s", "deviceClassName": "c"}]),
        constraints=[{"distinctAttribute": "d.com/x"}],
    )
    assert errors(doc, V134) == [
        "warning: spec.devices.requests[0].exactly.tolerations: " + gate_off("DRADeviceTaints"),
        "warning: spec.devices.requests[0].exactly.capacity: " + gate_off("DRAConsumableCapacity"),
        "warning: spec.devices.constraints[0].distinctAttribute: " + gate_off("DRAConsumableCapacity"),
        "spec.devices.constraints[0].matchAttribute: Required value",
    ]
    no_prioritized = ValidationFeatures(prioritized_list=False)
    assert errors(doc, no_prioritized) == [
        "warning: spec.devices.requests[1].firstAvailable: " + gate_off("DRAPrioritizedList"),
        "spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required",
    ]


def test_admin_access_gate() -> None:
    doc = claim(request(exactly=exact(adminAccess=True)))
    assert errors(doc) == []
    assert errors(doc, ValidationFeatures(admin_access=False)) == [
        "warning: spec.devices.requests[0].exactly.adminAccess: " + gate_off("DRAAdminAccess")
    ]


def test_extended_resource_gate() -> None:
    doc = device_class(extendedResourceName="example.com/gpu")
    assert errors(doc, V134) == ["warning: spec.extendedResourceName: " + gate_off("DRAExtendedResource")]


def test_cel_environment_follows_features() -> None:
    doc = claim(request(exactly=exact(selectors=[sel("device.allowMultipleAllocations")])))
    assert errors(doc) == []
    assert errors(doc, V134) == [
        "spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "
        "\"device.allowMultipleAllocations\": compilation failed: undefined field 'allowMultipleAllocations'"
    ]


def test_cel_checker_receives_expression_and_features() -> None:
    seen: list[tuple[str, ValidationFeatures]] = []

    def checker(expression: str, features: ValidationFeatures) -> None:
        seen.append((expression, features))

    obj = decode(device_class(selectors=[sel("a"), sel("b")]))
    assert validate_object(obj, features=V134, cel_checker=checker) == []
    assert seen == [("a", V134), ("b", V134)]


# --- status -------------------------------------------------------------------------------------------


def allocated_claim(**status: Any) -> dict[str, Any]:
    doc = claim(request("gpu"))
    doc["status"] = status
    return doc


def test_status_allocation_rules() -> None:
    doc = allocated_claim(
        allocation={
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": "dra.example.com",
                        "pool": "p",
                        "device": "d0",
                        "shareID": "NOT-A-UUID",
                    },
                    {"request": "other", "driver": "dra.example.com", "pool": "p", "device": "D1"},
                ],
                "config": [
                    {"source": "FromSomewhere", "opaque": {"driver": "dra.example.com", "parameters": {}}}
                ],
            }
        },
        reservedFor=[
            {"resource": "pods", "name": "p", "uid": "1"},
            {"resource": "pods", "name": "q", "uid": "1"},
        ],
        devices=[{"driver": "dra.example.com", "pool": "p", "device": "d9"}],
    )
    assert errors(doc) == [
        'status.reservedFor[1]: Duplicate value: "1"',
        'status.devices[0]: Invalid value: "dra.example.com/p/d9": must be an allocated device in the claim',
        'status.allocation.devices.results[0].shareID: Invalid value: "NOT-A-UUID": error validating uid: '
        "invalid UUID length: 10",
        f'status.allocation.devices.results[1].request: Invalid value: "other": {REF_MSG}',
        f'status.allocation.devices.results[1].device: Invalid value: "D1": {LABEL_MSG}',
        'status.allocation.devices.config[0].source: Unsupported value: "FromSomewhere": supported values: '
        '"FromClaim", "FromClass"',
    ]


def test_status_reserved_for_needs_allocation() -> None:
    doc = allocated_claim(reservedFor=[{"resource": "pods", "name": "p", "uid": "u"}])
    assert errors(doc) == ["status.reservedFor: Forbidden: may not be specified when `allocated` is not set"]


def test_status_share_id_normalized_form() -> None:
    doc = allocated_claim(
        allocation={
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": "d.com",
                        "pool": "p",
                        "device": "d",
                        "shareID": "AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA",
                    }
                ]
            }
        }
    )
    assert errors(doc) == [
        "status.allocation.devices.results[0].shareID: Invalid value: "
        '"AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA": uid '
        "must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
        "hexadecimal "
        "characters"
    ]


def test_status_network_data() -> None:
    doc = allocated_claim(
        allocation={
            "devices": {"results": [{"request": "gpu", "driver": "d.com", "pool": "p", "device": "d"}]}
        },
        devices=[
            {
                "driver": "d.com",
                "pool": "p",
                "device": "d",
                "networkData": {
                    "interfaceName": "x" * 257,
                    "ips": ["10.0.0.1/24", "10.0.0.1", "10.00.0.1/24", "10.0.0.1/24", "2001:DB8::1/64"],
                },
            }
        ],
    )
    assert errors(doc) == [
        "status.devices[0].networkData.interfaceName: Too long: may not be more than 256 bytes",
        'status.devices[0].networkData.ips[1]: Invalid value: "10.0.0.1": must be a valid address in CIDR '
        "form, "
        "(e.g. 10.9.8.7/24 or 2001:db8::1/64)",
        'status.devices[0].networkData.ips[2]: Invalid value: "10.00.0.1/24": must be in canonical form '
        '("10.0.0.1/24")',
        'status.devices[0].networkData.ips[4]: Invalid value: "2001:DB8::1/64": must be in canonical form '
        '("2001:db8::1/64")',
        'status.devices[0].networkData.ips[3]: Duplicate value: "10.0.0.1/24"',
    ]


def test_taint_rule_conditions() -> None:
    doc = taint_rule(taint={"key": "k", "effect": "NoSchedule"})
    doc["status"] = {
        "conditions": [
            {
                "type": "EvictionInProgress",
                "status": "Maybe",
                "reason": "1x",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
        ]
    }
    assert errors(doc, FEATURES_BY_VERSION["1.37"]) == [
        'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", '
        '"Unknown"',
        'status.conditions[0].reason: Invalid value: "1x": a condition reason must start with alphabetic '
        "character, optionally followed by a string of alphanumeric characters or '_,:', and must end with "
        "an "
        "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  "
        "or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')",
    ]


# --- cross-object checks ------------------------------------------------------------------------------


def counters_slice(
    name: str, *sets: str, pool: str = "pool-a", driver: str = "dra.example.com", count: int = 2
) -> dict[str, Any]:
    doc = rslice(
        driver=driver,
        pool={"name": pool, "resourceSliceCount": count},
        sharedCounters=[{"name": s, "counters": {"memory": {"value": "80Gi"}}} for s in sets],
    )
    doc["metadata"]["name"] = name
    return doc


def consuming_slice(
    name: str, counter_set: str, counter: str = "memory", pool: str = "pool-a", count: int = 2
) -> dict[str, Any]:
    doc = rslice(
        device(
            "gpu-0", consumesCounters=[{"counterSet": counter_set, "counters": {counter: {"value": "10Gi"}}}]
        ),
        pool={"name": pool, "resourceSliceCount": count},
    )
    doc["metadata"]["name"] = name
    return doc


def cross(*docs: dict[str, Any], features: ValidationFeatures | None = None) -> list[str]:
    return [
        ("warning: " if f.severity == "warning" else "") + f"{f.obj}: {f}"
        for f in validate_objects([decode(d) for d in docs], features=features, cel_checker=stub_cel)
    ]


def test_counter_set_found_in_same_pool() -> None:
    assert cross(counters_slice("c", "gpu-0"), consuming_slice("d", "gpu-0")) == []


def test_counter_set_missing() -> None:
    assert cross(counters_slice("c", "gpu-1"), consuming_slice("d", "gpu-0")) == [
        'warning: ResourceSlice/d: spec.devices[0].consumesCounters[0].counterSet: Invalid value: "gpu-0": counter '
        "set "
        "not found: no ResourceSlice of pool dra.example.com/pool-a (generation 0) declares it in "
        "sharedCounters; "
        "the allocator treats the pool as invalid"
    ]


def test_counter_set_in_other_pool_does_not_count() -> None:
    found = cross(
        counters_slice("c", "gpu-0", pool="pool-b", count=1), consuming_slice("d", "gpu-0", count=1)
    )
    assert found == [
        'warning: ResourceSlice/d: spec.devices[0].consumesCounters[0].counterSet: Invalid value: "gpu-0": counter '
        "set "
        "not found: no ResourceSlice of pool dra.example.com/pool-a (generation 0) declares it in "
        "sharedCounters; "
        "the allocator treats the pool as invalid"
    ]


def test_counter_missing_in_set() -> None:
    assert cross(counters_slice("c", "gpu-0"), consuming_slice("d", "gpu-0", counter="cores")) == [
        'warning: ResourceSlice/d: spec.devices[0].consumesCounters[0].counters[cores]: Invalid value: "cores": '
        "counter "
        "not found in counter set gpu-0 of pool dra.example.com/pool-a; the allocator treats the pool as "
        "invalid"
    ]


def test_duplicate_counter_sets_and_devices_across_slices_of_a_pool() -> None:
    a, b = consuming_slice("a", "gpu-0", count=4), consuming_slice("b", "gpu-0", count=4)
    found = cross(counters_slice("c1", "gpu-0", count=4), counters_slice("c2", "gpu-0", count=4), a, b)
    assert found == [
        'warning: ResourceSlice/c2: spec.sharedCounters[0].name: Duplicate value: "gpu-0": counter set also '
        "declared by ResourceSlice/c1 in pool dra.example.com/pool-a; the allocator treats the pool as invalid",
        'warning: ResourceSlice/b: spec.devices[0].name: Duplicate value: "gpu-0": device name also used by '
        "ResourceSlice/a in pool dra.example.com/pool-a; the allocator treats the pool as invalid",
    ]


def test_incomplete_pool_warning() -> None:
    assert cross(consuming_slice("d", "gpu-0")) == [
        'warning: ResourceSlice/d: spec.devices[0].consumesCounters[0].counterSet: Invalid value: "gpu-0": counter '
        "set "
        "not found: no ResourceSlice of pool dra.example.com/pool-a (generation 0) declares it in "
        "sharedCounters; "
        "the allocator treats the pool as invalid",
        "warning: ResourceSlice/d: spec.pool.resourceSliceCount: Invalid value: 2: pool "
        "dra.example.com/pool-a "
        "generation 0 has 1 ResourceSlice(s) among the given objects; the allocator treats the pool as "
        "incomplete "
        "until all 2 exist",
    ]


def test_older_generation_slices_are_ignored() -> None:
    old = counters_slice("old", "gpu-0", count=1)
    new = consuming_slice("new", "gpu-0", count=1)
    new["spec"]["pool"]["generation"] = 2
    assert [f.split(": ")[2] for f in cross(old, new)] == ["spec.devices[0].consumesCounters[0].counterSet"]


def test_a_counter_set_twice_in_one_slice_is_the_per_object_error_only() -> None:
    found = cross(counters_slice("c", "gpu-0", "gpu-0", count=1))
    assert found == ['ResourceSlice/c: spec.sharedCounters[1]: Duplicate value: "gpu-0"']


NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}
ADMIN_NAMESPACE = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {"name": "ns", "labels": {"resource.kubernetes.io/admin-access": "true"}},
}
ADMIN_MSG = (
    "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label "
    "on the containing namespace"
)


def test_admin_access_needs_namespace_label() -> None:
    admin = claim(
        request("a"),
        request("b", exactly=exact(adminAccess=True)),
        request("c", exactly=exact(adminAccess=True)),
    )
    assert cross(admin, NAMESPACE) == [
        f"ResourceClaim/ns/claim-a: spec.devices.requests[1].exactly.adminAccess: {ADMIN_MSG}"
    ]
    assert cross(admin, ADMIN_NAMESPACE) == []
    assert cross(admin) == []  # namespace not given: nothing to check against
    assert cross(admin, NAMESPACE, features=ValidationFeatures(admin_access=False)) == [
        "warning: ResourceClaim/ns/claim-a: spec.devices.requests[1].exactly.adminAccess: "
        + gate_off("DRAAdminAccess"),
        "warning: ResourceClaim/ns/claim-a: spec.devices.requests[2].exactly.adminAccess: "
        + gate_off("DRAAdminAccess"),
    ]


def test_admin_access_false_and_templates() -> None:
    assert cross(claim(request(exactly=exact(adminAccess=False))), NAMESPACE) == []
    template = copy.deepcopy(VALID["template"])
    template["spec"]["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"] = True
    assert cross(template, NAMESPACE) == [
        f"ResourceClaimTemplate/ns/tpl: spec.spec.devices.requests[0].exactly.adminAccess: {ADMIN_MSG}"
    ]


def test_admin_access_default_namespace() -> None:
    admin = claim(request(exactly=exact(adminAccess=True)))
    del admin["metadata"]["namespace"]
    default_ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    assert cross(admin, default_ns) == [
        f"ResourceClaim/claim-a: spec.devices.requests[0].exactly.adminAccess: {ADMIN_MSG}"
    ]


# --- Finding, helpers, versions -----------------------------------------------------------------------


def test_finding_str() -> None:
    f = Finding("ResourceSlice/s", "spec.devices[0].name", "Invalid", "msg", value='"x"')
    assert str(f) == 'spec.devices[0].name: Invalid value: "x": msg'
    assert str(Finding("o", "spec", "Required", "")) == "spec: Required value"
    assert str(Finding("o", "", "Forbidden", "no")) == "Forbidden: no"
    assert f.severity == "error"


def test_render_value() -> None:
    assert render_value('a"b') == '"a\\"b"'
    assert render_value(None) == "null"
    assert render_value(True) == "true"
    assert render_value(12) == "12"
    assert render_value(["a", 1]) == '["a",1]'


def test_apimachinery_helpers() -> None:
    assert is_dns1123_label("ok-1") == []
    assert is_dns1123_label("a.b") == ["must not contain dots"]
    assert is_qualified_name("example.com/Key_1") == []
    assert is_qualified_name("a/b/c")[0].startswith("a valid label key must consist of")
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]


def test_versions() -> None:
    assert validation_features("1.36") == ValidationFeatures()
    assert validation_features("v1.37.0-beta.0").device_taint_rules
    v134 = validation_features("1.34")
    assert v134.prioritized_list and v134.admin_access
    assert not (
        v134.partitionable_devices
        or v134.device_taints
        or v134.consumable_capacity
        or v134.device_binding_and_status
        or v134.extended_resource
    )
    assert validation_features("1.35") == v134
    assert normalize_version("1.36.2") == "1.36"
    with pytest.raises(DrasimError, match=r"unsupported Kubernetes version '1\.30'"):
        validation_features("1.30")


# --- the real CEL compiler ------------------------------------------------------------------------------


def test_real_cel_compiler() -> None:
    def findings(expression: str, features: ValidationFeatures | None = None) -> list[Finding]:
        obj = decode(device_class(selectors=[sel(expression)]))
        return validate_object(obj, features=features)

    assert findings('device.driver == "dra.example.com"') == []
    [syntax] = findings("?!")
    assert (syntax.path, syntax.type) == ("spec.selectors[0].cel.expression", "Invalid")
    assert "Syntax error" in syntax.message
    [not_bool] = findings("1")
    assert "must evaluate to bool or the unknown type, not int" in not_bool.message
    assert findings("device.allowMultipleAllocations == true") == []
    [undefined] = findings("device.allowMultipleAllocations == true", V134)
    assert "undefined field 'allowMultipleAllocations'" in undefined.message
    assert default_cel_checker("true", ValidationFeatures()) is None
    split = 'device.attributes["dra.example.com"].model.split(",")'
    [cost] = findings(f"{split}.all(a, {split}.all(b, {split}.all(c, a == b)))")
    assert str(cost) == "spec.selectors[0].cel.expression: Forbidden: too complex, exceeds cost limit"


# --- metadata.ownerReferences (apimachinery ValidateOwnerReferences, v1.36.0) ------------------------------


def test_owner_references_need_version_kind_name_and_uid() -> None:
    doc = claim({"name": "r", "exactly": {"deviceClassName": "c"}})
    doc["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Pod", "name": "p"},  # a hand-written reference without uid
        {"apiVersion": "apps/", "kind": "", "name": "", "uid": "u2"},
    ]
    assert errors(doc) == [
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
        'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
    ]


def test_owner_references_one_controller_and_no_event_owner() -> None:
    doc = claim({"name": "r", "exactly": {"deviceClassName": "c"}})
    doc["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "Pod", "name": "a", "uid": "1", "controller": True},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": True},
        {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "3"},
    ]
    assert errors(doc) == [
        'metadata.ownerReferences: Invalid value: Only one reference can have Controller set to true. Found "true" in '
        "references for Pod/a and ReplicaSet/b",
        "metadata.ownerReferences: Invalid value: /v1, Kind=Event is disallowed from being an owner",
    ]
    doc["metadata"]["ownerReferences"] = doc["metadata"]["ownerReferences"][:1]
    assert errors(doc) == []
