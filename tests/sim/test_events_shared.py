"""Events as structs (for the writers of `simulate -o yaml|json`) print the bytes of the plain events."""

from __future__ import annotations

from drasim.allocator.versions import features_for_version
from drasim.api.encode import json_list, yaml_objects
from drasim.api.yamlemit import dump_all
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.report import event_documents, event_objects


def test_event_documents_print_the_plain_events() -> None:
    objects, timelines, _ = load_inputs(demo_paths())
    result = simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))
    plain = event_objects(result)
    events = event_documents(result)
    assert len(events) == len(plain) > 0
    assert all(list(e)[:4] == ["apiVersion", "kind", "metadata", "involvedObject"] for e in plain)
    assert all(e["apiVersion"] == "v1" and e["kind"] == "Event" and e["count"] for e in plain)
    assert yaml_objects([], events) == dump_all(plain)
    assert json_list([], events) == json_list([], plain)
    assert json_list([], events, indent=0) == json_list([], plain, indent=0)
    # Objects with several events (a ReplicaSet's SuccessfulCreate per pod) hold one involvedObject, and every
    # event of one source one source.
    involved = [e.involved_object for e in events]
    assert len({id(d) for d in involved}) < len(involved)
    assert len({id(e.source) for e in events}) == len({e.source.component for e in events})
    # The plain events share no part (library users may change one).
    assert len({id(e["involvedObject"]) for e in plain}) == len({id(e["source"]) for e in plain}) == len(plain)
