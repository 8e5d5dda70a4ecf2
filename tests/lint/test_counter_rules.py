"""check_counters skips a pool that declares every counter set name declared anywhere: its findings equal a
walk over every device's consumption (generated pools declaring and consuming counter sets by name)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.meta import ObjectMeta
from drasim.lint.base import LintContext, ref_of
from drasim.lint.rules import check_counters
from hypothesis_budget import examples

_SETS = st.sampled_from(["set-a", "set-b", "set-c"])


@st.composite
def _slices(draw: st.DrawFn) -> list[r.ResourceSlice]:
    out = []
    for i in range(draw(st.integers(1, 6))):
        declares = [r.CounterSet(name=n) for n in draw(st.lists(_SETS, max_size=2, unique=True))]
        devices = [r.Device(name=f"d{j}", consumes_counters=[r.DeviceCounterConsumption(counter_set=n) for n in names])
                   for j, names in enumerate(draw(st.lists(st.lists(_SETS, max_size=2), max_size=3)))]
        out.append(r.ResourceSlice(metadata=ObjectMeta(name=f"s{i}"), spec=r.ResourceSliceSpec(
            driver=draw(st.sampled_from(["d1", "d2"])), node_name="n", devices=devices, shared_counters=declares,
            pool=r.ResourcePool(name=draw(st.sampled_from(["p1", "p2", "p3"])), resource_slice_count=1))))
    return out


def _walk(slices: list[r.ResourceSlice]) -> list[tuple[str, str]]:
    owners: dict[str, set[tuple[str, str]]] = {}
    for s in slices:
        for cs in s.spec.shared_counters:
            owners.setdefault(cs.name, set()).add((s.spec.driver, s.spec.pool.name))
    return [(ref_of(s), f"spec.devices[{i}].consumesCounters[{j}].counterSet")
            for s in slices for i, d in enumerate(s.spec.devices) for j, cc in enumerate(d.consumes_counters)
            if owners.get(cc.counter_set) and (s.spec.driver, s.spec.pool.name) not in owners[cc.counter_set]]


@settings(max_examples=examples(300))
@given(_slices())
def test_counters_across_pools_equal_the_walk_over_every_device(slices: list[r.ResourceSlice]) -> None:
    ctx = LintContext.build(slices, "1.36", ValidationFeatures(partitionable_devices=True))
    found = [(f.obj, f.path) for f in check_counters(ctx) if f.rule == "counters-across-pools"]
    assert found == _walk(slices)
