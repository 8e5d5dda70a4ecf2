"""Every public entry point the CLI calls leaves the objects it is given unchanged and, run twice on the same
objects, gives the same answer (issue 15: `simulate(objects)` used to bind the caller's pods)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from drasim.api.encode import encode_object
from drasim.api.profile import profile_for
from drasim.api.resource import DeviceTaintRule
from drasim.cli.scenarios import load_scenario_input
from drasim.cluster import ClusterState
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.controllers.devicetaint import rule_impact, rule_status, selected_devices
from drasim.demo import demo_paths
from drasim.doctor.checks import diagnose
from drasim.errors import InputError
from drasim.explain import explain_claim, explain_pod
from drasim.explain.render import to_dict
from drasim.lint import lint_objects
from drasim.runner.scenario import run_scenario
from drasim.sim.capacity import capacity
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.settle import settle
from drasim.sim.timeline import find_timelines
from drasim.sources.files import load_bytes, load_paths, parse_yaml
from drasim.sources.inputs import read_inputs
from drasim.validation.admission import Submitted, admit
from drasim.validation.objects import validate_objects
from drasim.validation.pools import check_pools

PROFILE = profile_for("1.36", {"DRADeviceTaintRules": True})
OPTIONS = SimulationOptions.for_profile(PROFILE)
HERE = Path(__file__).resolve().parent
TIMELINE = """apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: t}
spec:
  events:
  - at: 1m
    action: apply
    object:
      apiVersion: resource.k8s.io/v1
      kind: DeviceTaintRule
      metadata: {name: drain}
      spec:
        deviceSelector: {driver: gpu.nvidia.com}
        taint: {key: maintenance, effect: NoExecute}
  - {at: 2m, action: delete, kind: DeviceTaintRule, name: drain}
"""
RULE = DeviceTaintRule  # the taint dry-run's rule, decoded below


def encoded(value: Any) -> Any:
    """A comparable deep copy: objects encoded to wire form, containers walked."""
    if hasattr(value, "KIND"):
        return encode_object(value)
    if isinstance(value, dict):
        return {k: encoded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encoded(v) for v in value]
    return value


def demo_objects() -> list[Any]:
    return read_inputs(demo_paths(), PROFILE).objects


def raw_objects() -> list[Any]:
    """The demo and the real manifests as decoded, before admission (files drasim cannot read left out)."""
    out = load_paths(demo_paths()).objects
    for path in sorted((HERE / "realworld").rglob("*.yaml")):
        try:
            out += load_paths([str(path)]).objects
        except InputError:
            continue
    return out


def timelines() -> list[Any]:
    return find_timelines(parse_yaml(TIMELINE, source="t.yaml"), source="t.yaml")


def rule() -> Any:
    text = TIMELINE.split("object:\n", 1)[1].split("  - {at", 1)[0]
    return load_bytes("\n".join(line[6:] for line in text.splitlines()).encode(), source="r.yaml").objects[0]


def settled() -> ClusterState:
    return settle(demo_objects(), options=OPTIONS)


def _claim_key(state: ClusterState) -> Any:
    return next(k for k, c in sorted(state.claims.items()) if c.status is not None and c.status.allocation)


def _pod_key(state: ClusterState) -> Any:
    return next(k for k, p in sorted(state.pods.items()) if not p.spec.node_name)


def _state_view(state: ClusterState) -> Any:
    return encoded([*state.nodes.values(), *state.slices.values(), *state.claims.values(), *state.pods.values(),
                    *state.taint_rules.values(), *state.templates.values(), *state.classes.values()])


def _sim_answer(result: Any) -> Any:
    return (_state_view(result.state), [(e.reason, e.message, e.time) for e in result.events],
            sorted((k, r.node, r.status, r.message) for k, r in result.pods.items()))


# name -> (build inputs, run on them, the answer to compare)
ENTRY_POINTS: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
    "admit": (raw_objects, lambda objs: [(s, str(f)) for s, f in admit(
        [Submitted(o, "f") for o in objs], PROFILE).findings]),
    "validate_objects": (raw_objects, lambda objs: [str(f) for f in validate_objects(
        objs, features=PROFILE.validation_features())]),
    "check_pools": (demo_objects, lambda objs: [str(f) for f in check_pools(
        [o for o in objs if o.KIND == "ResourceSlice"], PROFILE.validation_features())]),
    "lint_objects": (raw_objects, lambda objs: [str(f) for f in lint_objects(objs, profile=PROFILE)]),
    "simulate": (lambda: (demo_objects(), timelines()), lambda a: _sim_answer(simulate(a[0], a[1], OPTIONS))),
    "settle": (demo_objects, lambda objs: _state_view(settle(objs, options=OPTIONS))),
    "capacity": (lambda: (demo_objects(), [o for o in demo_objects() if o.KIND == "Deployment"][:1]),
                 lambda a: capacity(a[0], a[1], options=OPTIONS, max_replicas=3)),
    "ClusterState.from_objects": (demo_objects, lambda objs: _state_view(
        ClusterState.from_objects(objs, features=OPTIONS.features))),
    "explain_claim": (settled, lambda s: to_dict(explain_claim(s, _claim_key(s)))),
    "explain_pod": (settled, lambda s: to_dict(explain_pod(s, _pod_key(s)))),
    "taint dry-run": (lambda: (settled(), rule()), lambda a: (
        str(rule_status(a[0], a[1])), [(s.metadata.name, d) for s, d in selected_devices(a[0], a[1])[0]],
        [str(p) for p in rule_impact(a[0], a[1])])),
    "diagnose": (lambda: ClusterSnapshot(objects=demo_objects(), server_version="v1.36.0"),
                 lambda snap: diagnose(snap).to_json()),
    "run_scenario": (lambda: load_scenario_input(str(next(iter(sorted(
        (HERE / "conformance").rglob("*.yaml"))))))[0], lambda sc: run_scenario(sc)),
}


def _inputs_view(inputs: Any) -> Any:
    if isinstance(inputs, ClusterState):
        return _state_view(inputs)
    if isinstance(inputs, ClusterSnapshot):
        return encoded(inputs.objects)
    if hasattr(inputs, "steps") and hasattr(inputs, "objects"):  # a scenario input
        return encoded(inputs.objects), repr(inputs.steps)
    if isinstance(inputs, tuple):
        return [_inputs_view(i) for i in inputs]
    if isinstance(inputs, list) and inputs and not hasattr(inputs[0], "KIND"):  # timelines
        return repr(inputs)
    return encoded(inputs)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_inputs_unchanged_and_same_answer_twice(name: str) -> None:
    build, run = ENTRY_POINTS[name]
    inputs = build()
    before = _inputs_view(inputs)
    first = run(inputs)
    assert _inputs_view(inputs) == before, f"{name} changed its inputs"
    second = run(inputs)
    assert _inputs_view(inputs) == before, f"{name} changed its inputs on the second run"
    assert second == first, f"{name} answered differently the second time"
