"""check_pools' device findings (Duplicate names across slices, undeclared counter sets and counters) equal
those of a plain walk over every device (generated pools with shared names and counters)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.meta import ObjectMeta, object_ref
from drasim.validation.pools import check_pools

_NAMES = st.sampled_from(["gpu-0", "gpu-1", "gpu-2"])
_CONSUMPTION = st.builds(lambda cs, names: r.DeviceCounterConsumption(
    counter_set=cs, counters={n: r.Counter(value="1") for n in names}),
    st.sampled_from(["set-a", "set-b"]), st.lists(st.sampled_from(["mem", "sm"]), max_size=2, unique=True))


@st.composite
def _slices(draw: st.DrawFn) -> list[r.ResourceSlice]:
    out = []
    for i in range(draw(st.integers(1, 5))):
        devices = [r.Device(name=n, consumes_counters=draw(st.lists(_CONSUMPTION, max_size=2)))
                   for n in draw(st.lists(_NAMES, max_size=3))]
        counters = [r.CounterSet(name="set-a", counters={"mem": r.Counter(value="1")})] if draw(st.booleans()) else []
        # Names may repeat (two objects of one name reach check_pools from a library caller).
        name = f"s{draw(st.integers(0, 5)) if draw(st.booleans()) else i}"
        out.append(r.ResourceSlice(metadata=ObjectMeta(name=name), spec=r.ResourceSliceSpec(
            driver="d", node_name=draw(st.sampled_from(["n1", "n2"])), devices=devices, shared_counters=counters,
            pool=r.ResourcePool(name=draw(st.sampled_from(["p1", "p2"])), generation=draw(st.integers(0, 1)),
                                resource_slice_count=1))))
    return out


def _walk(slices: list[r.ResourceSlice], partitionable: bool) -> list[tuple[str, str, str]]:
    """Duplicate device names and unknown counters, device by device (the check without the skip)."""
    out = []
    pools: dict[tuple[str, str], list[r.ResourceSlice]] = {}
    for s in slices:
        pools.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    for _, members in sorted(pools.items()):
        newest = max(s.spec.pool.generation for s in members)
        current = sorted((s for s in members if s.spec.pool.generation == newest), key=lambda s: s.metadata.name)
        sets: dict[str, r.CounterSet] = {}
        for s in current:
            for cs in s.spec.shared_counters if partitionable else ():
                sets.setdefault(cs.name, cs)
        seen: dict[tuple[str | None, str], str] = {}
        for s in current:
            for i, d in enumerate(s.spec.devices):
                key = (s.spec.node_name, d.name)
                if key in seen and seen[key] != s.metadata.name:
                    out.append((object_ref("ResourceSlice", s.metadata), f"spec.devices[{i}].name", "Duplicate"))
                seen.setdefault(key, s.metadata.name)
                for j, cc in enumerate(d.consumes_counters if partitionable else ()):
                    path = f"spec.devices[{i}].consumesCounters[{j}]"
                    if cc.counter_set not in sets:
                        out.append((object_ref("ResourceSlice", s.metadata), path + ".counterSet", "Invalid"))
                        continue
                    out += [(object_ref("ResourceSlice", s.metadata), f"{path}.counters[{n}]", "Invalid")
                            for n in cc.counters if n not in sets[cc.counter_set].counters]
    return out


@settings(max_examples=400, deadline=None)
@given(_slices(), st.booleans())
def test_device_findings_equal_the_walk_over_every_device(slices: list[r.ResourceSlice], partitionable: bool) -> None:
    found = check_pools(slices, ValidationFeatures(partitionable_devices=partitionable))
    assert [(f.obj, f.path, f.type) for f in found if f.path.startswith("spec.devices")] == _walk(slices, partitionable)
