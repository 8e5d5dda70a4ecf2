"""A simulation whose only future is PreBind retries that end as before stops there, with one line saying so."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.allocator.versions import features_for_version
from drasim.api.decode import decode_documents
from drasim.sim.engine import SimulationOptions, SimulationResult, simulate
from drasim.sim.timeline import find_timelines
from hypothesis_budget import examples

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "binding-conditions.yaml"
POD = ("default", "attached-job")


def _run(*events: dict[str, str]) -> SimulationResult:
    docs = list(yaml.safe_load_all(EXAMPLE.read_text()))
    if events:
        docs.append({"apiVersion": "drasim.dev/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                     "spec": {"events": list(events)}})
    objects = decode_documents([d for d in docs if d.get("kind") != "Timeline"], source="test").objects
    return simulate(objects, find_timelines(docs, source="test"),
                    SimulationOptions(features=features_for_version("1.36")))


def _attach(at: str) -> dict[str, str]:
    return {"at": at, "action": "setDeviceCondition", "device": "fabric.example.com/worker/instance-1",
            "type": "attached", "status": "True"}


def test_binding_conditions_nothing_sets_stop_after_one_retry() -> None:
    result = _run()
    # Allocated at 0 s, timed out at 600 s, retried at 601 s into the same wait: nothing else can happen.
    assert result.end - result.start == timedelta(minutes=10, seconds=1)
    assert result.steady_state == "1 pod waits for binding conditions no Timeline sets"
    assert result.state.pods[POD].spec.node_name is None
    assert len(result.events) < 10


def test_a_timeline_ahead_keeps_the_run_going() -> None:
    result = _run(_attach("3h"))
    assert result.steady_state == ""
    assert result.state.pods[POD].spec.node_name == "worker"
    assert timedelta(hours=3) <= result.end - result.start <= timedelta(hours=3, minutes=1)


@settings(max_examples=examples(15), deadline=None)
@given(minutes=st.integers(min_value=1, max_value=600))
def test_the_steady_stop_never_cuts_off_a_future_timeline_action(minutes: int) -> None:
    """Whenever the Timeline attaches the device (after it is allocated at 0 s: a condition set before lands
    on no allocated device), the pod binds: stopping early never loses that."""
    result = _run(_attach(f"{minutes}m"))
    assert result.state.pods[POD].spec.node_name == "worker"
    assert result.steady_state == ""


def test_simulate_prints_one_summary_line_and_counts_repeated_events() -> None:
    proc = subprocess.run([sys.executable, "-m", "drasim", "simulate", "-f", str(EXAMPLE)], capture_output=True,
                          text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Simulated 1 pod(s) on 1 node(s) for +10m01s: 0 placed, 1 pending."
    assert lines[1].startswith("Steady state at +10m01s: 1 pod waits for binding conditions no Timeline sets")
    waiting = [line for line in lines if "BindingConditionsPending" in line]
    assert len(waiting) == 1 and waiting[0].endswith("(x2, last +10m01s)")
    assert len(lines) < 20
