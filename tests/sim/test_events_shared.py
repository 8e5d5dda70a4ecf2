"""Events built with shared parts (for the YAML writer) equal the plain ones, and so do their bytes."""

from __future__ import annotations

from drasim.allocator.versions import features_for_version
from drasim.api.encode import yaml_objects
from drasim.api.yamlemit import dump_all
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.report import event_objects


def test_shared_events_are_the_plain_events() -> None:
    objects, timelines, _ = load_inputs(demo_paths())
    result = simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))
    plain = event_objects(result)
    shared: set[int] = set()
    events = event_objects(result, shared=shared)
    assert events == plain
    assert yaml_objects([], events, shared) == dump_all(plain)
    # Objects with several events (a ReplicaSet's SuccessfulCreate per pod) hold one involvedObject, and every
    # event of one source one source dict; the ids of those reused are in `shared`.
    involved = [e["involvedObject"] for e in events]
    assert len({id(d) for d in involved}) < len(involved)
    assert {id(d) for d in involved if involved.count(d) > 1} <= shared
    assert all(id(e["source"]) in shared for e in events if sum(x["source"] == e["source"] for x in events) > 1)
    # Without `shared`, no two events hold the same part (library users may change one).
    assert len({id(e["involvedObject"]) for e in plain}) == len({id(e["source"]) for e in plain}) == len(plain)
