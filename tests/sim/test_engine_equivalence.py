"""The engine's fast paths change no result: runs with them off and on end identically.

Fast paths: a failed cycle reused for identical pods within one scheduling pass (Scheduler.reuse_failures),
the struct copier for claims and pods made from templates instead of copy.deepcopy, fewer full garbage collections.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from drasim.allocator import Features
from drasim.allocator.versions import features_for_version
from drasim.api.encode import encode_object
from drasim.api.quantity import quantity_enc_hook
from drasim.cli.simulate import load_inputs
from drasim.controllers import resourceclaim as rc
from drasim.demo import demo_paths
from drasim.errors import DrasimError
from drasim.scheduler import Scheduler
from drasim.sim.engine import Simulation, SimulationOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_simulate as bs


def _fingerprint(sim: Simulation) -> dict[str, Any]:
    result = sim.run()
    state = result.state
    return {
        "placements": {k: p.spec.node_name for k, p in state.pods.items()},
        "pods": {k: encode_object(p) for k, p in state.pods.items()},
        "claims": {k: encode_object(c) for k, c in state.claims.items()},
        "events": list(result.events),
        "records": {k: (r.node, r.status, r.message, r.attempts, r.scheduled_at, r.chosen, r.ended,
                        None if r.last is None else (r.last.status, r.last.message, r.last.node_reasons,
                                                     r.last.no_preemption, r.last.deallocate, r.last.scores,
                                                     r.last.allocations, r.last.delete_claims))
                    for k, r in result.pods.items()},
        "next_start": sim.scheduler.next_start_node_index,
        "end": result.end,
    }


def _both(make: Any, monkeypatch: pytest.MonkeyPatch, options: dict[str, Any]) -> tuple[dict[str, Any], int, int]:
    """(fingerprint, full failure cycles with fast paths off, with them on) after asserting equality."""
    calls = {"n": 0}
    original = Scheduler._unschedulable

    def counting(self: Scheduler, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Scheduler, "_unschedulable", counting)
    monkeypatch.setattr(rc, "FAST_COPY", False)
    objects, timelines = make()
    slow = _fingerprint(Simulation(objects, timelines, SimulationOptions(fast_paths=False, **options)))
    slow_calls = calls["n"]
    calls["n"] = 0
    monkeypatch.setattr(rc, "FAST_COPY", True)
    objects, timelines = make()
    fast = _fingerprint(Simulation(objects, timelines, SimulationOptions(fast_paths=True, **options)))
    for part in slow:
        assert fast[part] == slow[part], part
    return fast, slow_calls, calls["n"]


def test_demo_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    def make() -> tuple[list[Any], list[Any]]:
        objects, timelines, _ = load_inputs(demo_paths())
        return objects, timelines

    for seed in (0, 3):
        fast, _, _ = _both(make, monkeypatch, {"features": features_for_version("1.36"), "seed": seed})
        assert fast["events"]


def _generated(h100: int, a100: int, train: int, inference: int) -> Any:
    def make() -> tuple[list[Any], list[Any]]:
        objects = [*bs.fleet(h100, a100), bs._template("one-gpu", bs.ONE_GPU),
                   bs._template("h100-else-a100", bs.H100_ELSE_A100),
                   bs._deployment("train", train, "one-gpu"),
                   bs._deployment("inference", inference, "h100-else-a100")]
        return objects, []
    return make


@pytest.mark.parametrize(("h100", "a100", "train", "inference"), [
    (20, 20, 250, 150),  # 320 GPUs for 250 + 150..300: some of both kinds cannot fit
    (70, 50, 700, 300),  # over 100 nodes: sampled scans and a moving start index
])
def test_generated_fleet_identical(monkeypatch: pytest.MonkeyPatch, h100: int, a100: int, train: int,
                                   inference: int) -> None:
    fast, slow_calls, fast_calls = _both(_generated(h100, a100, train, inference), monkeypatch,
                                         {"features": Features()})
    placed = sum(1 for n in fast["placements"].values() if n)
    pending = len(fast["placements"]) - placed
    assert placed and pending  # both outcomes are exercised
    assert fast_calls < slow_calls  # failures were reused


def test_failures_shared_across_workloads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pods alike from different Deployments share a failed cycle: 40 Deployments of 5 one-GPU pods onto
    160 GPUs leave 40 pods pending after one full failure cycle, not one per Deployment."""
    def make() -> tuple[list[Any], list[Any]]:
        objects = [*bs.fleet(20, 0), bs._template("one-gpu", bs.ONE_GPU)]
        objects += [bs._deployment(f"web-{i}", 5, "one-gpu") for i in range(40)]
        return objects, []

    fast, slow_calls, fast_calls = _both(make, monkeypatch, {"features": Features()})
    assert sum(1 for n in fast["placements"].values() if not n) == 40
    assert slow_calls == 40 and fast_calls == 1


def test_struct_copy_matches_deepcopy() -> None:
    objects = [bs._template("h100-else-a100", bs.H100_ELSE_A100), bs._template("one-gpu", bs.ONE_GPU)]
    objects += load_inputs(demo_paths())[0]
    realworld = Path(__file__).resolve().parent.parent / "realworld"
    for path in sorted(realworld.rglob("*.yaml")):
        try:
            objects += load_inputs([str(path)])[0]
        except DrasimError:  # files that cannot be read are no templates to copy
            continue
    assert sum(1 for o in objects if getattr(getattr(o, "spec", None), "spec", None) is not None) > 30
    for obj in objects:
        spec = getattr(getattr(obj, "spec", None), "spec", None)
        if spec is None:
            continue
        theirs = copy.deepcopy(spec)
        for mine in (rc.copy_from_template(spec),):
            assert mine == theirs and _json(mine) == _json(theirs)
            assert mine is not spec


def _json(value: Any) -> bytes:
    return msgspec.json.encode(value, enc_hook=quantity_enc_hook)
