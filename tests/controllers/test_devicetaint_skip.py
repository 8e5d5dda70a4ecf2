"""The taint walks start from slices with a tainted device: the same taints, order and stamps as a walk
over every device of every current slice (generated slices, generations and rules, tainted ones included)."""

from __future__ import annotations

import copy
from datetime import datetime

from dra_objects import T0, at, rule, slice_, taint
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.resource import DeviceTaint
from drasim.cluster import ClusterState
from drasim.controllers import devicetaint as dt

_TAINT = st.builds(taint, key=st.sampled_from(["a", "b"]), effect=st.sampled_from(["NoExecute", "NoSchedule"]),
                   added=st.sampled_from([None, T0, at(5)]))


@st.composite
def _clusters(draw: st.DrawFn) -> ClusterState:
    slices = []
    for i in range(draw(st.integers(0, 5))):
        pool = f"pool-{draw(st.integers(0, 2))}"
        names = [f"gpu-{j}" for j in range(draw(st.integers(0, 3)))]
        taints = {n: draw(st.lists(_TAINT, max_size=2)) for n in names if draw(st.booleans())}
        slices.append(slice_(f"s{i}", pool=pool, devices=names, taints=taints, generation=draw(st.integers(0, 1))))
    rules = [rule(f"r{i}", effect=draw(st.sampled_from(["NoExecute", "None"])), pool=draw(st.sampled_from(
        [None, "pool-0"])), added=draw(st.sampled_from([None, T0]))) for i in range(draw(st.integers(0, 2)))]
    return ClusterState.from_objects([*slices, *rules], now=at(9))


def _plain_devices(state: ClusterState) -> dict[object, list[tuple[DeviceTaint, dt.TaintReason, datetime]]]:
    """The walk before the skip: every device of every current slice."""
    out: dict[object, list[tuple[DeviceTaint, dt.TaintReason, datetime]]] = {}
    for slc in dt.current_slices(state):
        for device in slc.spec.devices:
            for i, t in enumerate(device.taints):
                if t.effect == dt.NO_EXECUTE:
                    dev = dt.DeviceID(slc.spec.driver, slc.spec.pool.name, device.name)
                    reason = dt.TaintReason(slice=slc.metadata.name, driver=dev.driver, pool=dev.pool,
                                            device=dev.device, index=i)
                    out.setdefault(dev, []).append((t, reason, dt._added(t, slc.metadata.creation_timestamp,
                                                                         state.now)))
    return out


@settings(max_examples=150, deadline=None)
@given(_clusters())
def test_taints_and_stamps_equal_the_walk_over_every_device(state: ClusterState) -> None:
    taints = dt._taints(state)
    assert taints.devices == _plain_devices(state)
    assert list(taints.devices) == list(_plain_devices(state))
    assert dt._taints(state, dt._tainted(state.slices.values())).devices == taints.devices
    assert dt.any_no_execute(state) == bool(_plain_devices(state) or taints.rules)
    plain = copy.deepcopy(state)
    unstamped = [t for s in plain.slices.values() for d in s.spec.devices for t in d.taints if t.time_added is None]
    unstamped += [r.spec.taint for r in plain.taint_rules.values() if r.spec.taint.time_added is None]
    assert dt.stamp_time_added(state) == bool(unstamped)
    for t in unstamped:
        t.time_added = plain.now
    assert [[d.taints for d in s.spec.devices] for s in state.slices.values()] == \
        [[d.taints for d in s.spec.devices] for s in plain.slices.values()]
