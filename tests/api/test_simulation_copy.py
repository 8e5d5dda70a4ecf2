"""simulation_copy: a simulation handed the copy (owned) ends as one on a full clone, and never changes a Node or
a slice it shares with the inputs."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim import lib
from drasim.api import resource as r
from drasim.api.clone import clone_objects, simulation_copy
from drasim.api.core import Node
from drasim.api.encode import encode_object
from drasim.cluster import ClusterState, Key
from drasim.sim.engine import PodRecord
from drasim.sim.settle import settled_records
from drasim.sources.inputs import Inputs
from hypothesis_budget import examples

ROOT = Path(__file__).resolve().parents[2]
TAINTED = str(ROOT / "tests" / "data" / "simulation_copy_tainted.yaml")  # a device taint without timeAdded

INPUTS = {
    "demo": (),
    "examples": (str(ROOT / "examples" / "cluster"), str(ROOT / "examples" / "inference.yaml")),
    "binding-conditions (Timeline)": (str(ROOT / "examples" / "binding-conditions.yaml"),),
    "mig": (str(ROOT / "examples" / "cluster"), str(ROOT / "examples" / "mig-claim.yaml")),
    "tainted": (TAINTED,),
    "node changes (Timeline)": (str(ROOT / "tests" / "data" / "simulation_copy_nodes.yaml"),),
}


@cache
def _inputs(name: str) -> Inputs:
    return lib.load(INPUTS[name], release=lib.profile("1.36", "DRADeviceTaints=true,DRADeviceTaintRules=true")
                    if name == "tainted" else None)


def _encoded(objects: list[object]) -> list[dict[str, object]]:
    return [encode_object(o) for o in objects]  # type: ignore[arg-type]


def _end(state: ClusterState, records: Mapping[Key, PodRecord]) -> tuple[object, ...]:
    kept = [(k, p.node, p.status, p.message, p.attempts, p.scheduled_at, p.chosen, p.higher_on, p.node_scores,
             p.higher_scores, p.ended) for k, p in sorted(records.items())]
    return (_encoded(list(state.pods.values())), _encoded(list(state.claims.values())),
            _encoded(list(state.slices.values())), _encoded(list(state.nodes.values())), sorted(state.in_use.devices),
            kept)


def test_shares_only_nodes_and_untainted_slices() -> None:
    objects = clone_objects(_inputs("tainted").objects)
    copy = simulation_copy(objects)
    for before, after in zip(objects, copy, strict=True):
        shared = isinstance(before, Node) or (isinstance(before, r.ResourceSlice) and before.metadata.name == "n1-more")
        assert (after is before) == shared
        assert encode_object(after) == encode_object(before)


@settings(max_examples=examples(12), deadline=None)
@given(name=st.sampled_from(sorted(INPUTS)), seed=st.integers(0, 3))
def test_owned_copy_simulates_as_a_clone(name: str, seed: int) -> None:
    """The simulation on simulation_copy (owned) ends as on the inputs (copied inside): same pods, claims,
    slices, devices in use and per-pod records; and the inputs are left exactly as they were."""
    inputs = _inputs(name)
    release = inputs.release or lib.profile()
    before = _encoded(inputs.objects)
    plain = settled_records(inputs.objects, inputs.timelines, release, seed=seed)
    owned = settled_records(simulation_copy(inputs.objects), inputs.timelines, release, seed=seed, owned=True)
    assert _end(*owned) == _end(*plain)
    assert _encoded(inputs.objects) == before
