"""Quantities like `1e999999` (issue 15): conversions saturate, so the resource fit, the allocator and
the consumable-capacity policy answer instead of raising."""

from __future__ import annotations

from pathlib import Path

from drasim.allocator.versions import features_for_version
from drasim.api.quantity import MAX_DIGITS, Quantity
from drasim.cli.scenarios import to_input
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.runner.scenario import run_scenario
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sources.scenario import load_scenario

CONFORMANCE = Path(__file__).parent.parent / "conformance"

HUNGRY = """
apiVersion: v1
kind: Pod
metadata: {name: hungry, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 1e999999}}}]
"""
BIG_NODE = """
apiVersion: v1
kind: Node
metadata: {name: big, labels: {kubernetes.io/hostname: big}}
status:
  allocatable: {cpu: 1e999999, memory: 1e999999, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: modest, namespace: default}
spec:
  nodeSelector: {kubernetes.io/hostname: big}
  containers: [{name: c, image: x, resources: {requests: {cpu: "100", memory: 1Ei}}}]
"""


def run(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    extra = tmp_path / "extra.yaml"
    extra.write_text(text)
    objects, timelines, _ = load_inputs([*demo_paths(), str(extra)])
    return simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))


def test_conversions_saturate() -> None:
    huge = Quantity("1e999999")
    assert huge.value() == 10**MAX_DIGITS and huge.milli_value() == 10**MAX_DIGITS
    assert (-huge).value() == -(10**MAX_DIGITS)
    assert huge > Quantity("9223372036854775807") and huge.add(Quantity("1m")) == huge
    assert huge.sub(huge).is_zero() and str(huge) == "1e999999"
    assert Quantity("1e-999999").value() == 1  # rounded up to the smallest unit, as upstream


def test_a_pod_requesting_1e999999_cpu_fits_nowhere(tmp_path: Path) -> None:
    result = run(tmp_path, HUNGRY)
    record = result.pods[("default", "hungry")]
    assert record.status != "Scheduled" and "Insufficient cpu" in (record.message or "")


def test_a_node_with_1e999999_allocatable_takes_any_pod(tmp_path: Path) -> None:
    result = run(tmp_path, BIG_NODE)
    assert result.pods[("default", "modest")].node == "big"


def test_a_valid_range_step_of_1e999999_in_the_allocator(tmp_path: Path) -> None:
    text = (CONFORMANCE / "random" / "s1-0015-consumable.yaml").read_text()
    for old, new in (("step: 4Gi", "step: 1e999999"), ("min: 1Gi", "min: 1e999999"),
                     ("value: 80Gi", "value: 1e999999"), ("default: 10Gi", "default: 1e999999")):
        assert old in text
        path = tmp_path / "huge.yaml"
        path.write_text(text.replace(old, new, 1))
        out = run_scenario(to_input(load_scenario(str(path))))
        assert [s["status"] for s in out["steps"]].count("allocated") >= 1, new
