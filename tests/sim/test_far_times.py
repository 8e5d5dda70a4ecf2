"""Times past year 9999 and huge durations (issue 15): what Kubernetes accepts is never reached; drasim's
own fields (Timeline `at`, `drasim.dev/run-for`, `--horizon`) get a message naming the field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from drasim.allocator.versions import features_for_version
from drasim.cli.main import cli
from drasim.cli.simulate import load_inputs
from drasim.cluster.clock import NEVER, later, seconds
from drasim.demo import demo_paths
from drasim.errors import InputError
from drasim.sim.engine import SimulationOptions, simulate

FAR = """
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: drain-far, creationTimestamp: "9999-12-31T23:59:59Z"}
spec:
  deviceSelector: {driver: gpu.nvidia.com, pool: dgx-h100-10}
  taint: {key: example.com/far, effect: NoExecute, timeAdded: "9999-12-31T23:59:59Z"}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: drain-now}
spec:
  deviceSelector: {driver: gpu.nvidia.com, pool: dgx-a100-10}
  taint: {key: example.com/now, effect: NoExecute}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: tolerant, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: g
        exactly:
          deviceClassName: gpu.nvidia.com
          tolerations:
          - {key: example.com/now, operator: Exists, effect: NoExecute, tolerationSeconds: 300000000000}
          - {key: example.com/far, operator: Exists, effect: NoExecute, tolerationSeconds: 9223372036854775807}
---
apiVersion: v1
kind: Pod
metadata: {name: tolerant, namespace: default, annotations: {drasim.dev/run-for: RUN_FOR}}
spec:
  nodeSelector: {kubernetes.io/hostname: NODE}
  resourceClaims: [{name: g, resourceClaimTemplateName: tolerant}]
  containers: [{name: c, image: x, resources: {claims: [{name: g}]}}]
"""


def run(tmp_path: Path, text: str, horizon: timedelta = timedelta(days=7)):  # type: ignore[no-untyped-def]
    extra = tmp_path / "far.yaml"
    extra.write_text(text)
    objects, timelines, _ = load_inputs([*demo_paths(), str(extra)])
    options = SimulationOptions(features=features_for_version("1.36"), horizon=horizon)
    return simulate(objects, timelines, options)


@pytest.mark.parametrize("node", ["dgx-h100-10", "dgx-a100-10"])
def test_kubernetes_times_past_the_horizon_are_never_reached(tmp_path: Path, node: str) -> None:
    text = FAR.replace("NODE", node).replace("RUN_FOR", "1000000d")
    for horizon in (timedelta(days=7), timedelta(days=900_000_000)):
        result = run(tmp_path, text, horizon)
        assert result.pods[("default", "tolerant")].status == "Scheduled"
        assert not [e for e in result.events if e.reason == "DeviceTaintManagerEviction"
                    and "tolerant" in e.object]


def test_run_for_beyond_timedelta_names_the_annotation(tmp_path: Path) -> None:
    text = FAR.replace("NODE", "dgx-a100-10").replace("RUN_FOR", "99999999999999h")
    with pytest.raises(InputError) as info:
        run(tmp_path, text)
    assert str(info.value) == ("Pod/default/tolerant: metadata.annotations[drasim.dev/run-for]: "
                               "'99999999999999h' is too long a duration (at most 999,999,999 days)")


def test_timeline_at_past_year_9999_names_the_field(tmp_path: Path) -> None:
    timeline = tmp_path / "tl.yaml"
    timeline.write_text("apiVersion: drasim.dev/v1alpha1\nkind: Timeline\nmetadata: {name: far}\nspec:\n"
                        "  events:\n  - {at: 999999998d, action: delete, kind: Node, name: dgx-h100-10}\n")
    with pytest.raises(InputError) as info:
        _, timelines, _ = load_inputs([str(timeline)])
        simulate([], timelines, SimulationOptions())
    assert str(info.value) == (f"{timeline}: Timeline/far: spec.events[0].at: '999999998d' is past the year "
                               "9999 (the simulation starts at 2026-01-01T00:00:00+00:00)")


@pytest.mark.parametrize(("value", "message"), [
    ("999999998d", "'999999998d' ends past the year 9999"),
    ("99999999999999h", "'99999999999999h' is too long a duration (at most 999,999,999 days)"),
    ("1" + "0" * 400 + "s", "is too long a duration"),
])
def test_horizon_names_the_option_and_the_value(value: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", "--horizon", value])
    assert result.exit_code == 2
    assert f"Invalid value for '--horizon': {message}" in result.output or message in result.output


def test_clock_arithmetic_saturates() -> None:
    t = datetime(9999, 12, 31, tzinfo=UTC)
    assert later(t, timedelta(days=2)) == NEVER
    assert later(t, seconds(2**63 - 1)) == NEVER
    assert later(datetime(1, 1, 2, tzinfo=UTC), -timedelta(days=5)) == datetime.min.replace(tzinfo=UTC)
    assert seconds(-(2**63)) == timedelta.min and seconds(5) == timedelta(seconds=5)
