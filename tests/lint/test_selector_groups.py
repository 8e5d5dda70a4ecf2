"""rules_cel's content groups (a selector evaluated once per group) give the findings and reach of evaluating
every device."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import resource as r
from drasim.api.quantity import quantity_dec_hook
from drasim.lint import rules_cel
from drasim.lint.base import DeviceView, LintContext
from drasim.lint.rules_cel import SelectorPass, env_of, group_devices, selector_pass
from drasim.lint.versions import LINT_VERSIONS, lint_features
from hypothesis_budget import examples

DRIVERS = ("gpu.example.com", "nic.example.com")
# Attribute values: strings, ints, valid and unparsable versions, a list, and no value at all (conversion errors).
ATTRS: dict[str, list[dict[str, Any]]] = {
    "type": [{"string": "gpu"}, {"string": "mig"}],
    "model": [{"string": "H100"}, {"string": "A100"}],
    "index": [{"int": 0}, {"int": 1}, {"int": 7}],
    "driverVersion": [{"version": "1.2.3"}, {"version": "2.0.0"}, {"version": "not-a-version"}],
    "gpu.example.com/numa": [{"int": 0}, {"int": 1}],
    "tags": [{"strings": ["a", "b"]}],
    "broken": [{}],
}
CAPACITY = [{"value": "80Gi"}, {"value": "81920Mi"}, {"value": "40Gi"}]
# Selectors with known reads (single entries), and some without (comprehensions, whole maps): both paths.
EXPRESSIONS = (
    "device.driver == 'gpu.example.com'",
    "device.attributes['gpu.example.com'].type == 'gpu'",
    "device.attributes['gpu.example.com'].model == 'H100' && device.attributes['gpu.example.com'].index < 4",
    "has(device.attributes['gpu.example.com'].model)",
    "device.attributes['gpu.example.com'].?model.orValue('x') != 'A100'",
    "device.attributes['gpu.example.com'].driverVersion.isGreaterThan(semver('1.5.0'))",
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0",
    "device.attributes['gpu.example.com'].numa == 1",
    "device.allowMultipleAllocations",
    "device.attributes['gpu.example.com'].exists(k, k == 'model')",
    "'model' in device.attributes['gpu.example.com']",
    "device.attributes['gpu.example.com'].tags == 'x'",
    "true",
)

_device = st.fixed_dictionaries({
    "attributes": st.dictionaries(st.sampled_from(sorted(ATTRS)), st.integers(0, 2), max_size=5),
    "memory": st.one_of(st.none(), st.integers(0, len(CAPACITY) - 1)),
    "multi": st.booleans(),
})


def _objects(devices: list[tuple[int, dict[str, Any]]], classes: list[list[int]],
             request: list[int] | None = None) -> list[object]:
    objs: list[object] = []
    for n, (driver, dev) in enumerate(devices):
        attrs = {k: ATTRS[k][i % len(ATTRS[k])] for k, i in dev["attributes"].items()}
        wire: dict[str, Any] = {"name": f"d{n}", "attributes": attrs}
        if dev["memory"] is not None:
            wire["capacity"] = {"memory": CAPACITY[dev["memory"]]}
        if dev["multi"]:
            wire["allowMultipleAllocations"] = True
        doc = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"s{n}"},
               "spec": {"driver": DRIVERS[driver], "nodeName": f"n{n % 3}", "devices": [wire],
                        "pool": {"name": f"p{n}", "resourceSliceCount": 1}}}
        objs.append(msgspec.convert(doc, type=r.ResourceSlice, dec_hook=quantity_dec_hook))
    for c, selectors in enumerate(classes):
        doc = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": f"c{c}"},
               "spec": {"selectors": [{"cel": {"expression": EXPRESSIONS[i]}} for i in selectors]}}
        objs.append(msgspec.convert(doc, type=r.DeviceClass, dec_hook=quantity_dec_hook))
    if request is not None:  # a claim narrowing class c0 by its own selectors: the request's reach too
        doc = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "claim", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                   "deviceClassName": "c0",
                   "selectors": [{"cel": {"expression": EXPRESSIONS[i]}} for i in request]}}]}}}
        objs.append(msgspec.convert(doc, type=r.ResourceClaim, dec_hook=quantity_dec_hook))
    return objs


def _pass(objs: list[object], version: str, grouped: bool) -> SelectorPass:
    with pytest.MonkeyPatch.context() as m:
        if not grouped:
            m.setattr(rules_cel, "group_devices", lambda ctx, env: None)
        ctx = LintContext.build(objs, version, lint_features(version))
        return selector_pass(ctx)


def _shape(done: SelectorPass) -> tuple[object, ...]:
    def ids(devices: list[Any] | None) -> list[str] | None:
        return None if devices is None else [d.id for d in devices]
    return (done.findings,
            {k: (ids(v.matched), v.blocked, ids(v.before)) for k, v in done.classes.items()},
            {k: (ids(v.matched), v.blocked, ids(v.before)) for k, v in done.requests.items()})


@settings(max_examples=examples(150), deadline=None)
@given(devices=st.lists(st.tuples(st.integers(0, 1), _device), min_size=1, max_size=8),
       classes=st.lists(st.lists(st.integers(0, len(EXPRESSIONS) - 1), min_size=1, max_size=3),
                        min_size=1, max_size=3),
       request=st.one_of(st.none(), st.lists(st.integers(0, len(EXPRESSIONS) - 1), min_size=1, max_size=2)),
       version=st.sampled_from(sorted(LINT_VERSIONS)))
def test_groups_give_the_outcomes_of_every_device(devices: list[tuple[int, dict[str, Any]]],
                                                 classes: list[list[int]], request: list[int] | None,
                                                 version: str) -> None:
    objs = _objects(devices, classes, request)
    assert _shape(_pass(objs, version, True)) == _shape(_pass(objs, version, False))


def test_equal_content_shares_a_group_and_a_conversion_error_none() -> None:
    objs = _objects([(0, {"attributes": {"type": 0, "model": 0, "index": i}, "memory": None, "multi": False})
                     for i in range(3)]
                    + [(0, {"attributes": {"type": 0, "driverVersion": 2}, "memory": None, "multi": False})],
                    [[1], [0]])
    ctx = LintContext.build(objs, "1.36", lint_features("1.36"))
    group_devices(ctx, env_of(ctx))
    # The classes read only the driver and `type`: the three devices differing in `index` are one group.
    assert [d.group for d in ctx.devices] == [0, 0, 0, None]


def test_one_selector_is_evaluated_without_groups() -> None:
    objs = _objects([(0, {"attributes": {"type": 0}, "memory": None, "multi": False})] * 2, [[1]])
    ctx = LintContext.build(objs, "1.36", lint_features("1.36"))
    group_devices(ctx, env_of(ctx))
    assert [d.group for d in ctx.devices] == [None, None]


def test_a_fresh_device_view_sets_every_slot() -> None:
    # DeviceView sets DeviceInput's fields inline (speed): a slot DeviceInput gains must be set there too.
    slc = _objects([(0, {"attributes": {"type": 0}, "memory": 0, "multi": False})], [])[0]
    assert isinstance(slc, r.ResourceSlice)
    view = DeviceView(slc, slc.spec.devices[0])
    slots = [name for cls in DeviceView.__mro__ for name in getattr(cls, "__slots__", ())]
    assert "attrs" in slots and "group" in slots
    assert [name for name in slots if not hasattr(view, name)] == []
