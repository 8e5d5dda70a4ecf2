"""The CEL conformance vectors of spec §3.5 (upstream dynamic-resource-allocation cel/compile_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from cel_helpers import attr, device, outcome

from drasim.api.resource import DeviceAttribute
from drasim.cel import CelEnvironment

NESTED_ALL = (
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, "
    "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)
D = 'device.attributes["dra.example.com"]'
V1 = attr(version="1.0.0")


def _strings(n: int) -> DeviceAttribute:
    return DeviceAttribute(strings=[f"value-{i}" for i in range(n)])


# (id, expression, attributes, capacity, driver, lists (None = both), stored, consumable, expect)
# expect: True/False, ("runtime", substring), ("compile", substring)
VECTORS: list[tuple[Any, ...]] = [
    ("true", "true", None, None, "", None, True, True, True),
    ("false", "false", None, None, "", None, True, True, False),
    ("syntax-error", "?!", None, None, "", None, True, True, ("compile", "Syntax error")),
    ("type-error", "1", None, None, "", None, True, True,
     ("compile", "must evaluate to bool or the unknown type, not int")),
    ("runtime-error-lookup-identifier",
     'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
     None, None, "", None, True, True, ("runtime", "no such key: noSuchAttr")),
    ("runtime-error-lookup-map",
     'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
     None, None, "", None, True, True, ("runtime", "no such key: noSuchAttr")),
    ("domain-check-negative", '"no-such-domain" in device.attributes', None, None, "", None, True, True,
     False),
    ("domain-check-positive", '"dra.example.com" in device.attributes',
     {"dra.example.com/something": True}, None, "", None, True, True, True),
    ("empty-driver-name", 'device.driver == ""', None, None, "", None, True, True, True),
    ("real-driver-name", 'device.driver == "dra.example.com"', None, None, "dra.example.com", None, True,
     True, True),
    ("driver-name-qualifier", f"{D}.name", {"name": True}, None, "dra.example.com", None, True, True, True),
    ("driver-name-qualifier-map-lookup", f'{D}["name"]', {"name": True}, None, "dra.example.com", None, True,
     True, True),
    ("bind", 'cel.bind(dra, device.attributes["dra.example.com"], dra.name)', {"name": True}, None,
     "dra.example.com", None, True, True, True),
    ("qualified-attribute-name", 'device.attributes["other.example.com"].name',
     {"other.example.com/name": True}, None, "dra.example.com", None, True, True, True),
    ("int", f"{D}.name > 0", {"name": 1}, None, "dra.example.com", None, True, True, True),
    ("string", f'{D}.name == "fish"', {"name": "fish"}, None, "dra.example.com", None, True, True, True),
    ("version", f'{D}.name.isGreaterThan(semver("0.0.1"))', {"name": attr(version="1.0.0")}, None,
     "dra.example.com", None, True, True, True),
    ("version_v", f'{D}.name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)',
     {"name": attr(version="1.0.0")}, None, "dra.example.com", None, True, True, True),
    ("quantity", 'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', None,
     {"name": "1Mi"}, "dra.example.com", None, True, True, True),
    ("check-positive", '"name" in device.capacity["dra.example.com"] && '
     'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', None, {"name": "1Mi"},
     "dra.example.com", None, True, True, True),
    ("check-negative", '!("name" in device.capacity["dra.example.com"]) || '
     'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))', None, None, "", None, True,
     True, True),
    ("all", "\n".join([
        'device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&',
        f"{D}.bool &&", f"{D}.int > 0 &&", f'{D}.string == "fish" &&',
        f'{D}.version.isGreaterThan(semver("0.0.1")) &&',
        'device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&',
        f'{D}["bool"] &&', f'{D}["int"] > 0 &&', f'{D}["string"] == "fish" &&',
        f'{D}["version"].isGreaterThan(semver("0.0.1"))']),
     {"bool": True, "int": 1, "string": "fish", "version": attr(version="1.0.0")}, {"quantity": "1Mi"},
     "dra.example.com", None, True, True, True),
    ("many", f"{D}.a && {D}.b && {D}.c", {"a": True, "b": True, "c": True}, None, "dra.example.com", None,
     True, True, True),
    ("check_attribute_domains", 'device.attributes.exists_one(x, x == "dra.example.com")',
     {"services": "some_example_value"}, None, "dra.example.com", None, True, True, True),
    ("check_attribute_ids", f'{D}.exists_one(x, x == "services")', {"services": "some_example_value"}, None,
     "dra.example.com", None, True, True, True),
    ("split_attribute", f'{D}.services.split("example").size() >= 2', {"services": "some_example_value"},
     None, "dra.example.com", None, True, True, True),
    ("regexp_attribute", f'{D}.services.matches("[^a]?sym")', {"services": "asymetric"}, None,
     "dra.example.com", None, True, True, True),
    ("check_capacity_domains", 'device.capacity.exists_one(x, x == "dra.example.com")', None,
     {"memory": "1Mi"}, "dra.example.com", None, True, True, True),
    ("check_capacity_ids", 'device.capacity["dra.example.com"].exists_one(x, x == "memory")', None,
     {"memory": "1Mi"}, "dra.example.com", None, True, True, True),
    ("macro-exists-on-int", f"{D}.name.exists(x, x > 0)", {"name": 1}, None, "dra.example.com", True, False,
     True, ("runtime", "got 'types.Int', expected iterable type")),
    ("macro-exists-on-bool", f"{D}.name.exists(x, x == true)", {"name": True}, None, "dra.example.com", True,
     False, True, ("runtime", "got 'types.Bool', expected iterable type")),
    ("macro-exists-on-string", f'{D}.name.exists(x, x == "fish")', {"name": "fish"}, None, "dra.example.com",
     True, False, True, ("runtime", "got 'types.String', expected iterable type")),
    ("macro-exists-on-version", f'{D}.name.exists(x, x.isGreaterThan(semver("0.0.1")))',
     {"name": attr(version="1.0.0")}, None, "dra.example.com", True, False, True,
     ("runtime", "got 'cel.Semver', expected iterable type")),
    ("attribute-access-causes-match-error", f"{D}.names", {"names": ["fish", "bird"]}, None,
     "dra.example.com", False, True, True, ("runtime", "attribute names: unsupported attribute value")),
    ("list-result-not-bool", f"{D}.names", {"names": ["fish", "bird"]}, None, "dra.example.com", True, True,
     True, ("runtime", "CEL result of type list could not be converted to bool")),
    ("list-of-bool", f"{D}.names.size() == 2", {"names": [True, False]}, None, "dra.example.com", True, False,
     True, True),
    ("list-of-int", f"{D}.names.size() == 2", {"names": [1, 2]}, None, "dra.example.com", True, False, True,
     True),
    ("list-of-string", f"{D}.names.size() == 2", {"names": ["fish", "bird"]}, None, "dra.example.com", True,
     False, True, True),
    ("list-of-semver", f"{D}.names.size() == 2", {"names": attr(versions=["1.0.0", "2.0.0"])}, None,
     "dra.example.com", True, False, True, True),
    ("macro-on-list-of-int", f"{D}.names.exists(x, x > 0)", {"names": [1, 2]}, None, "dra.example.com", True,
     False, True, True),
    ("macro-on-list-of-string", f'{D}.names.all(x, x != "")', {"names": ["fish", "bird"]}, None,
     "dra.example.com", True, False, True, True),
    ("macro-on-list-of-semver", f'{D}.names.all(x, x.isGreaterThan(semver("0.0.1")))',
     {"names": attr(versions=["1.0.0", "2.0.0"])}, None, "dra.example.com", True, False, True, True),
    ("includes-function-undeclared-error", f'{D}.name.includes("fish")', None, None, "dra.example.com", False,
     False, False, ("compile", "undeclared reference to 'includes'")),
    ("includes-bool-scalar-positive", f"{D}.name.includes(true)", {"name": True}, None, "dra.example.com",
     True, False, True, True),
    ("includes-bool-scalar-negative", f"{D}.name.includes(true)", {"name": False}, None, "dra.example.com",
     True, False, True, False),
    ("includes-bool-list-positive", f"{D}.name.includes(true)", {"name": [True, False]}, None,
     "dra.example.com", True, False, True, True),
    ("includes-bool-list-negative", f"{D}.name.includes(false)", {"name": [True, True]}, None,
     "dra.example.com", True, False, True, False),
    ("includes-int-scalar-positive", f"{D}.name.includes(1)", {"name": 1}, None, "dra.example.com", True,
     False, True, True),
    ("includes-int-scalar-negative", f"{D}.name.includes(1)", {"name": 2}, None, "dra.example.com", True,
     False, True, False),
    ("includes-int-list-positive", f"{D}.name.includes(1)", {"name": [1, 2]}, None, "dra.example.com", True,
     False, True, True),
    ("includes-int-list-negative", f"{D}.name.includes(3)", {"name": [1, 2]}, None, "dra.example.com", True,
     False, True, False),
    ("includes-string-scalar-positive", f'{D}.name.includes("fish")', {"name": "fish"}, None,
     "dra.example.com", True, False, True, True),
    ("includes-string-scalar-negative", f'{D}.name.includes("bird")', {"name": "fish"}, None,
     "dra.example.com", True, False, True, False),
    ("includes-string-list-positive", f'{D}.name.includes("fish")', {"name": ["fish", "bird"]}, None,
     "dra.example.com", True, False, True, True),
    ("includes-string-list-negative", f'{D}.name.includes("cat")', {"name": ["fish", "bird"]}, None,
     "dra.example.com", True, False, True, False),
    ("includes-semver-scalar-positive", f'{D}.name.includes(semver("1.0.0"))', {"name": V1},
     None, "dra.example.com", True, False, True, True),
    ("includes-semver-scalar-negative", f'{D}.name.includes(semver("2.0.0"))', {"name": V1},
     None, "dra.example.com", True, False, True, False),
    ("includes-semver-list-positive", f'{D}.name.includes(semver("1.0.0"))',
     {"name": attr(versions=["1.0.0", "2.0.0"])}, None, "dra.example.com", True, False, True, True),
    ("includes-semver-list-negative", f'{D}.name.includes(semver("3.0.0"))',
     {"name": attr(versions=["1.0.0", "2.0.0"])}, None, "dra.example.com", True, False, True, False),
    ("includes-very-long-list-positive", f'{D}.name.includes("value-48")', {"name": _strings(48)}, None,
     "dra.example.com", True, False, True, False),
    ("includes-very-long-list-runtime-error", f'{D}.name.includes("value-49")', {"name": _strings(49)}, None,
     "dra.example.com", True, False, True,
     ("runtime", "'includes' function cannot be applied to lists longer than 48 values")),
    ("in-operator-on-list", f"1 in {D}.names", {"names": [1, 2, 3]}, None, "dra.example.com", True, False,
     True, True),
    ("expensive", NESTED_ALL, None, None, "dra.example.com", None, True, True,
     ("runtime", "actual cost limit exceeded")),
    ("allow_multiple_allocations", "device.allowMultipleAllocations == true", None, None, "dra.example.com",
     None, True, True, True),
    ("allow_multiple_allocations_default", "device.allowMultipleAllocations == false", None, None,
     "dra.example.com", None, True, True, True),
    ("allow_multiple_allocations_new", "device.allowMultipleAllocations == false", None, None,
     "dra.example.com", None, False, True, True),
    ("allow_multiple_allocations_disabled", "device.allowMultipleAllocations == false", None, None,
     "dra.example.com", None, False, False, ("compile", "undefined field 'allowMultipleAllocations'")),
]


def _cases() -> list[Any]:
    out = []
    for vid, expr, attrs, caps, driver, lists, stored, consumable, expect in VECTORS:
        for lists_on in ((False, True) if lists is None else (lists,)):
            out.append(pytest.param(expr, attrs, caps, driver, lists_on, stored, consumable, expect,
                                    id=f"{vid}-list-type-attributes-{str(lists_on).lower()}"))
    return out


@pytest.mark.parametrize(("expr", "attrs", "caps", "driver", "lists", "stored", "consumable", "expect"),
                         _cases())
def test_vector(expr: str, attrs: Any, caps: Any, driver: str, lists: bool, stored: bool, consumable: bool,
                expect: Any) -> None:
    multi = True if "allowMultipleAllocations == true" in expr else (False if "_new" in expr else None)
    dev = device(attrs, caps, allow_multiple_allocations=multi)
    env = CelEnvironment(consumable_capacity=consumable, list_type_attributes=lists, stored=stored)
    got = outcome(expr, dev, env, driver)
    if isinstance(expect, tuple):
        assert isinstance(got, tuple), got
        assert got[0] == expect[0], got
        assert expect[1] in got[1], got
    else:
        assert got is expect
