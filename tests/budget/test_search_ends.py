"""Every search ends: the counting proof answers hopeless calls at once, the step budget stops the rest.

Steps are counted by wrapping `Allocator.allocate`, so each test asserts how far the search went
(no timing asserts).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from budget_cases import objects, write_manifests, write_scenario
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.allocator import AllocatedState, Allocator, Features
from drasim.allocator import budget as budget_mod
from drasim.allocator.budget import FILTER_BUDGET_STEPS, PROOF_AFTER_STEPS, deadline_message
from drasim.allocator.errors import DeadlineExceeded
from drasim.cli.scenarios import load_scenario_input
from drasim.cluster.state import ClusterState
from drasim.explain import explain_pod
from drasim.runner.scenario import run_scenario
from drasim.scheduler.dra import REASON_CANNOT_ALLOCATE, REASON_TIMEOUT
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sources.files import load_paths

CASES = [(6, 5), (7, 6), (8, 7), (9, 8)]


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The step count of every Allocate call made while the test runs."""
    seen: list[int] = []
    original = Allocator.allocate

    def counting(self: Allocator, node, claims):  # type: ignore[no-untyped-def]
        try:
            return original(self, node, claims)
        finally:
            seen.append(self.stats.steps)

    monkeypatch.setattr(Allocator, "allocate", counting)
    yield seen


def _load(path: Path) -> list[object]:
    return list(load_paths([str(path)]).objects)


@pytest.mark.parametrize("claims,devices", CASES)
def test_allocate_answers_unsatisfiable_at_the_proof(tmp_path: Path, claims: int, devices: int) -> None:
    sc, _ = load_scenario_input(str(write_scenario(tmp_path / "s.yaml", claims, devices)))
    out = run_scenario(sc, with_stats=True)
    (step,) = out["steps"]
    assert step["status"] == "unsatisfiable"
    assert step["searchSteps"] == PROOF_AFTER_STEPS


@pytest.mark.parametrize("claims,devices", CASES)
def test_simulate_ends_with_upstreams_reason(tmp_path: Path, steps: list[int], claims: int, devices: int) -> None:
    objs = _load(write_manifests(tmp_path / "m.yaml", claims, devices))
    result = simulate(objs, options=SimulationOptions())
    (record,) = result.pending()
    assert REASON_CANNOT_ALLOCATE in record.message and REASON_TIMEOUT not in record.message
    assert steps and max(steps) == PROOF_AFTER_STEPS


@pytest.mark.parametrize("claims,devices", CASES)
def test_explain_ends(tmp_path: Path, steps: list[int], claims: int, devices: int) -> None:
    state = ClusterState.from_objects(_load(write_manifests(tmp_path / "m.yaml", claims, devices)))
    report = explain_pod(state, ("default", "many"))
    assert [g.verdict.status for g in report.groups] == ["unsatisfiable"]
    assert steps and max(steps) <= PROOF_AFTER_STEPS


def test_allocate_cli_nine_on_eight(tmp_path: Path) -> None:
    path = write_scenario(tmp_path / "s.yaml", 9, 8)
    proc = subprocess.run([sys.executable, "-m", "drasim.cli.main", "allocate", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["steps"][0]["status"] == "unsatisfiable"


def test_counters_proof(tmp_path: Path) -> None:
    """Nine devices but eight counter slots: counting devices is not enough, counting counters is."""
    sc, _ = load_scenario_input(str(write_scenario(tmp_path / "s.yaml", 9, 9, slots=8)))
    (step,) = run_scenario(sc, with_stats=True)["steps"]
    assert (step["status"], step["searchSteps"]) == ("unsatisfiable", PROOF_AFTER_STEPS)


def _pair_case(tmp_path: Path, claims: int = 9) -> tuple[Allocator, object, list[object]]:
    from drasim.allocator.cache import SliceCache
    from drasim.api.core import Node
    from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
    objs = _load(write_manifests(tmp_path / "m.yaml", claims, claims + 1, pair=True))
    classes = {o.metadata.name: o for o in objs if isinstance(o, DeviceClass)}
    slices = [o for o in objs if isinstance(o, ResourceSlice)]
    node = next(o for o in objs if isinstance(o, Node))
    claim_objs = [o for o in objs if isinstance(o, ResourceClaim)]
    alloc = Allocator(Features(), AllocatedState(), classes, SliceCache(slices), max_steps=20_000)
    return alloc, node, claim_objs


def test_budget_stops_what_counting_cannot_decide(tmp_path: Path) -> None:
    alloc, node, claims = _pair_case(tmp_path)
    with pytest.raises(DeadlineExceeded) as err:
        alloc.allocate(node, claims)  # type: ignore[arg-type]
    assert alloc.stats.steps == 20_001 and not alloc.stats.proven
    assert err.value.message == deadline_message(20_000)
    assert err.value.message.startswith("filter operation aborted: context deadline exceeded (")
    assert "10s filter timeout" in err.value.message


def test_default_budget_is_the_filter_timeouts() -> None:
    alloc = Allocator(Features(), AllocatedState(), {}, [])
    assert alloc.max_steps == FILTER_BUDGET_STEPS
    assert "stops the search after 3000000 steps" in deadline_message(FILTER_BUDGET_STEPS)


def test_simulate_reports_the_timeout_and_what_it_stands_for(tmp_path: Path, steps: list[int],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from drasim.cli import simulate as cli_simulate
    path = write_manifests(tmp_path / "m.yaml", 9, 10, pair=True)

    class Small(SimulationOptions):
        def __init__(self, **kw: object) -> None:
            super().__init__(**kw, filter_budget_steps=20_000)  # type: ignore[arg-type]

    from drasim.sim import settle

    monkeypatch.setattr(settle, "SimulationOptions", Small)  # simulation_options' home
    monkeypatch.setattr(cli_simulate, "FILTER_BUDGET_STEPS", 20_000)
    res = CliRunner().invoke(cli_simulate.simulate, ["-f", str(path)])
    assert res.exit_code == 0, res.output
    assert f"1 {REASON_TIMEOUT}" in res.output
    assert "drasim stops the search after 20000 steps, its stand-in for the scheduler's 10s filter timeout" \
        in res.output
    assert steps and max(steps) == 20_001


def test_explain_shares_one_budget(tmp_path: Path, steps: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    from drasim.explain import context
    monkeypatch.setattr(context, "EXPLAIN_BUDGET_STEPS", 30_000)
    monkeypatch.setattr(context, "FILTER_BUDGET_STEPS", 20_000)
    state = ClusterState.from_objects(_load(write_manifests(tmp_path / "m.yaml", 9, 10, pair=True)))
    report = explain_pod(state, ("default", "many"))
    (group,) = report.groups
    assert group.verdict.status == "error" and "filter operation aborted" in (group.verdict.error or "")
    assert sum(steps) <= 30_000 + len(steps)
    forced = [a for c in group.claims for r in c.requests for a in r.alternatives if a.forced]
    assert any("used up their 30000 steps" in (a.forced_error or "") for a in forced)


def test_proof_changes_no_answer_on_the_generated_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the whole search is affordable, it and the proof agree (the property test covers more)."""
    for claims, devices, kw in [(5, 4, {}), (6, 5, {}), (6, 6, {"slots": 5}), (5, 6, {"pair": True})]:
        sc, _ = load_scenario_input(str(write_scenario(tmp_path / "s.yaml", claims, devices, **kw)))
        with_proof = run_scenario(sc, with_stats=True)["steps"][0]
        monkeypatch.setattr(budget_mod, "PROOF_AFTER_STEPS", -1)
        without = run_scenario(sc, with_stats=True)["steps"][0]
        monkeypatch.undo()
        assert with_proof["status"] == without["status"] == "unsatisfiable"
        assert without["searchSteps"] > with_proof["searchSteps"] or "pair" in kw


def test_objects_are_what_the_issue_describes() -> None:
    objs = objects(9, 8)
    claims = [o for o in objs if o["kind"] == "ResourceClaim"]
    assert len(claims) == 9 and all(len(c["spec"]["devices"]["requests"][0]["firstAvailable"]) == 2 for c in claims)
    (slc,) = [o for o in objs if o["kind"] == "ResourceSlice"]
    assert len(slc["spec"]["devices"]) == 8


# --- the proof never changes an answer (hypothesis) ---------------------------------------------

DRIVER = "gpu.example.com"


@st.composite
def _calls(draw: st.DrawFn) -> tuple[list[object], dict[str, object], list[object], set[str], Features]:
    from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice
    n = draw(st.integers(0, 6))
    devs = []
    for i in range(n):
        dev: dict = {"name": f"d{i}", "attributes": {"model": {"string": draw(st.sampled_from("ab"))}}}
        if draw(st.booleans()):
            slot = {"slot": {"value": str(draw(st.integers(0, 2)))}}
            dev["consumesCounters"] = [{"counterSet": "cs", "counters": slot}]
        if draw(st.integers(0, 4)) == 0:
            dev["taints"] = [{"key": "k", "effect": draw(st.sampled_from(["NoSchedule", "None"]))}]
        if draw(st.integers(0, 5)) == 0:
            dev["attributes"]["bad"] = {"int": 1}  # a selector comparing it to a string errs at runtime
        devs.append(dev)
    pool = {"name": "p", "generation": 1, "resourceSliceCount": 2}
    slices = [build_struct(ResourceSlice, {"metadata": {"name": "s"}, "spec": {
                  "driver": DRIVER, "nodeName": "node-1", "pool": pool, "devices": devs}}),
              build_struct(ResourceSlice, {"metadata": {"name": "c"}, "spec": {
                  "driver": DRIVER, "nodeName": "node-1", "pool": pool, "sharedCounters": [
                      {"name": "cs", "counters": {"slot": {"value": str(draw(st.integers(0, 5)))}}}]}})]
    classes = {"gpu": build_struct(DeviceClass, {"metadata": {"name": "gpu"}, "spec": {}})}

    def request(name: str, sub: bool) -> dict:
        r: dict = {"name": name, "deviceClassName": "gpu",
                   "allocationMode": draw(st.sampled_from(["ExactCount"] * 6 + ["All"])),
                   "count": draw(st.integers(0, 2))}
        sel = draw(st.sampled_from([None, "a", "bad"]))
        if sel == "a":
            r["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a"'}}]
        elif sel == "bad":
            r["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].bad == "x"'}}]
        if not sub and draw(st.integers(0, 4)) == 0:
            r["adminAccess"] = True
        if draw(st.booleans()):
            r["tolerations"] = [{"key": "k", "operator": "Exists"}]
        return r

    claims = []
    for c in range(draw(st.integers(1, 4))):
        reqs = []
        for q in range(draw(st.integers(1, 2))):
            if draw(st.booleans()):
                subs = [request(f"s{k}", True) for k in range(draw(st.integers(1, 2)))]
                reqs.append({"name": f"r{q}", "firstAvailable": subs})
            else:
                reqs.append({"name": f"r{q}", "exactly": {k: v for k, v in request("x", False).items() if k != "name"}})
        spec: dict = {"requests": reqs}
        if draw(st.integers(0, 3)) == 0:
            spec["constraints"] = [{"matchAttribute": f"{DRIVER}/model"}]
        claims.append(build_struct(ResourceClaim, {"metadata": {"name": f"c{c}", "namespace": "ns"},
                                                   "spec": {"devices": spec}}))
    in_use = draw(st.sets(st.sampled_from([d["name"] for d in devs]), max_size=2)) if devs else set()
    features = Features(device_taints=draw(st.booleans()), partitionable_devices=draw(st.booleans()))
    return slices, classes, claims, in_use, features


def build_struct(type_: type, data: dict) -> object:
    import msgspec

    from drasim.api.quantity import quantity_dec_hook
    return msgspec.convert(data, type=type_, dec_hook=quantity_dec_hook)


def _answer(call: tuple, proof_at: int) -> tuple[object, ...]:
    from drasim.allocator import AllocationError, DeviceID
    from drasim.allocator.cache import SliceCache
    from drasim.api.core import Node
    from drasim.api.meta import ObjectMeta
    slices, classes, claims, in_use, features = call
    state = AllocatedState(devices={DeviceID(DRIVER, "p", d) for d in in_use})
    alloc = Allocator(features, state, classes, SliceCache(slices), max_steps=None)
    saved = budget_mod.PROOF_AFTER_STEPS
    budget_mod.PROOF_AFTER_STEPS = proof_at
    try:
        results = alloc.allocate(Node(metadata=ObjectMeta(name="node-1")), claims)
    except AllocationError as err:
        return ("error", err.message)
    finally:
        budget_mod.PROOF_AFTER_STEPS = saved
    if results is None:
        return ("unsatisfiable", alloc.stats.proven)
    return ("allocated", [[(r.request, r.device) for r in res.devices.results] for res in results])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_calls())
def test_the_proof_agrees_with_the_whole_search(call: tuple) -> None:
    proved = _answer(call, 1)  # the proof runs at the first step
    searched = _answer(call, -1)  # never
    if proved[0] == "unsatisfiable":
        assert searched[0] == "unsatisfiable"
    else:
        assert proved == searched
