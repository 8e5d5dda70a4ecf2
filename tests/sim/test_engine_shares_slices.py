"""A simulation not handed its inputs (`Simulation(owned=False)`, `settle`, `capacity`) shares untainted
ResourceSlices with them (`simulation_copy`): it ends as on a full clone and leaves the inputs unchanged."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim import lib
from drasim.api import resource as r
from drasim.api.clone import clone_objects
from drasim.api.encode import encode_object
from drasim.sim import engine, settle
from drasim.sim.capacity import CapacityResult, capacity
from drasim.sim.engine import Simulation
from drasim.sim.settle import settle_records, simulation_options
from drasim.sources.inputs import Inputs
from hypothesis_budget import examples

ROOT = Path(__file__).resolve().parents[2]
INPUTS = {
    "demo": (),
    "examples": (str(ROOT / "examples" / "cluster"), str(ROOT / "examples" / "inference.yaml")),
    "binding-conditions (Timeline)": (str(ROOT / "examples" / "binding-conditions.yaml"),),
    "mig": (str(ROOT / "examples" / "cluster"), str(ROOT / "examples" / "mig-claim.yaml")),
    "tainted": (str(ROOT / "tests" / "data" / "simulation_copy_tainted.yaml"),),
    "node changes (Timeline)": (str(ROOT / "tests" / "data" / "simulation_copy_nodes.yaml"),),
}
WORKLOAD = str(ROOT / "examples" / "inference.yaml")


@cache
def _inputs(name: str) -> Inputs:
    return lib.load(INPUTS[name], release=lib.profile("1.36", "DRADeviceTaints=true,DRADeviceTaintRules=true")
                    if name == "tainted" else None)


def _encoded(objects: Any) -> list[Any]:
    return [encode_object(o) for o in objects]


def _full_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference: every input copied, as before slices were shared."""
    monkeypatch.setattr(engine, "simulation_copy", clone_objects)
    monkeypatch.setattr(settle, "simulation_copy", clone_objects)


def test_untainted_slices_are_shared() -> None:
    inputs = _inputs("examples")
    sim = Simulation(inputs.objects, inputs.timelines, simulation_options(lib.profile()))
    given_slices = {id(o) for o in inputs.objects if isinstance(o, r.ResourceSlice)}
    assert given_slices and {id(s) for s in sim.state.slices.values()} == given_slices


@settings(max_examples=examples(10), deadline=None)
@given(name=st.sampled_from(sorted(INPUTS)), seed=st.integers(0, 3))
def test_settle_as_on_a_full_clone(name: str, seed: int) -> None:
    inputs = _inputs(name)
    options = simulation_options(inputs.release or lib.profile(), seed=seed)
    before = _encoded(inputs.objects)
    shared_state, shared_records = settle_records(inputs.objects, inputs.timelines, options)
    with pytest.MonkeyPatch.context() as mp:
        _full_clone(mp)
        full_state, full_records = settle_records(inputs.objects, inputs.timelines, options)
    for attr in ("pods", "claims", "slices", "nodes"):
        assert _encoded(getattr(shared_state, attr).values()) == _encoded(getattr(full_state, attr).values())
    assert sorted(shared_state.in_use.devices) == sorted(full_state.in_use.devices)
    assert {k: (p.node, p.status, p.message, p.attempts) for k, p in shared_records.items()} == \
        {k: (p.node, p.status, p.message, p.attempts) for k, p in full_records.items()}
    assert _encoded(inputs.objects) == before


def _capacity(name: str, seed: int, max_replicas: int) -> CapacityResult:
    inputs = _inputs(name)
    release = inputs.release or lib.profile()
    workload = lib.load([WORKLOAD], release=release).objects
    return capacity(inputs.objects, workload, timelines=inputs.timelines,
                    options=simulation_options(release, seed=seed), max_replicas=max_replicas)


@settings(max_examples=examples(8), deadline=None)
@given(name=st.sampled_from(["demo", "examples", "mig", "tainted"]), seed=st.integers(0, 2),
       max_replicas=st.integers(0, 12))
def test_capacity_as_on_a_full_clone(name: str, seed: int, max_replicas: int) -> None:
    """capacity runs the simulation up to three times on the same inputs, each sharing their slices."""
    before = _encoded(_inputs(name).objects)
    shared = _capacity(name, seed, max_replicas)
    with pytest.MonkeyPatch.context() as mp:
        _full_clone(mp)
        full = _capacity(name, seed, max_replicas)
    assert (shared.to_dict(), shared.placements) == (full.to_dict(), full.placements)
    assert _encoded(_inputs(name).objects) == before
