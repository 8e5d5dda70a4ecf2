"""Objects a Timeline applies go through the admission every input gets (issue #8), on real manifests:
the apiVersion each was written in, defaulting (limits -> requests), validation with the profile's gates;
what the API server would refuse is listed under "Rejected at admission" and never applied."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.errors import DrasimError

REAL = Path(__file__).resolve().parent.parent / "realworld"
NVIDIA = REAL / "dra-driver-nvidia-gpu" / "demo" / "specs"
TAINTS = REAL / "dra-example-driver" / "demo" / "examples" / "device-taints-tolerations"


def _run(*args: str) -> tuple[int, str]:
    """The exit code as `drasim` gives it (a DrasimError's own code) and the output printed before it."""
    result = CliRunner().invoke(cli, list(args))
    if isinstance(result.exception, DrasimError):
        return result.exception.exit_code, result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def _timeline(folder: Path, *events: str) -> Path:
    path = folder / "timeline.yaml"
    path.write_text("apiVersion: drasim.dev/v1alpha1\nkind: Timeline\nmetadata: {name: later}\nspec:\n  events:\n"
                    + "".join(events))
    return path


def _fleet(tmp_path: Path) -> Path:
    fleet = tmp_path / "fleet"
    assert _run("fleet", "--nodes", "h100:1", "--output-dir", str(fleet))[0] == 0
    return fleet


def test_a_limits_only_pod_applied_later_is_defaulted_and_gets_a_device(tmp_path: Path) -> None:
    """NVIDIA's gpu-full.yaml (nvidia.com/gpu in limits only) applied at +1m: the API server copies limits
    into requests, so the extended resource is backed by a GPU."""
    (tmp_path / "gpu-full.yaml").write_text((NVIDIA / "extended-resources" / "gpu-full.yaml").read_text())
    timeline = _timeline(tmp_path, "  - {at: 1m, action: apply, file: gpu-full.yaml}\n")
    code, out = _run("simulate", "-f", str(_fleet(tmp_path)), "-f", str(timeline), "-o", "json")
    assert code == 0, out
    pods = [o for o in json.loads(out)["items"] if o["kind"] == "Pod"]
    (pod,) = pods
    assert pod["metadata"]["name"] == "gpu-full-pod" and pod["spec"].get("nodeName")
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"nvidia.com/gpu": "1"}


def test_unserved_versions_a_timeline_applies_are_rejected_not_fatal(tmp_path: Path) -> None:
    """The NVIDIA demo's classic-DRA v1alpha2 claim templates, applied by a Timeline: no release drasim
    simulates serves them. They are rejected at admission like any input (source: the timeline's event),
    the rest of the simulation runs, and the command exits 2 after its answer (--strict changes nothing)."""
    (tmp_path / "claims.yaml").write_text((NVIDIA / "selectors" / "claims.yaml").read_text())
    timeline = _timeline(tmp_path, "  - {at: 1m, action: apply, file: claims.yaml}\n")
    code, out = _run("simulate", "-f", str(_fleet(tmp_path)), "-f", str(timeline))
    assert code == 2, out
    assert "Simulated " in out  # the answer for the rest came first
    section = out.split("Rejected at admission")[1]
    assert f"{timeline}: Timeline/later spec.events[0]: " in section
    assert 'no matches for kind "ResourceClaimTemplate" in version "resource.k8s.io/v1alpha2"' in section
    assert _run("simulate", "-f", str(_fleet(tmp_path)), "-f", str(timeline), "--strict")[0] == 2


def test_the_version_an_applied_rule_was_written_in_is_checked(tmp_path: Path) -> None:
    """The example driver's v1beta2 DeviceTaintRule, inline in a Timeline: at 1.37 (DeviceTaintRule is v1) a
    default API server serves v1beta2 only with --runtime-config, which admission says, as for any input;
    at 1.36 without the DRADeviceTaintRules gate it is refused."""
    rule = (TAINTS / "device-taint-pod-noexecute" / "3-device-taint-rule.yaml").read_text()
    inline = "    object:\n" + "".join(f"      {line}\n" for line in rule.splitlines() if line.strip())
    timeline = _timeline(tmp_path, "  - at: 1m\n    action: apply\n" + inline)
    fleet = str(_fleet(tmp_path))
    result = CliRunner().invoke(cli, ["simulate", "-f", fleet, "-f", str(timeline), "--kubernetes-version", "1.37"])
    assert result.exit_code == 0, result.output
    assert "resource.k8s.io/v1beta2 is not served by a default Kubernetes 1.37 API server" in result.output
    assert "Rejected at admission" not in result.output
    code, out = _run("simulate", "-f", fleet, "-f", str(timeline), "--kubernetes-version", "1.36")
    assert code == 2
    section = out.split("Rejected at admission")[1]
    assert 'DeviceTaintRule/example: apiVersion: no matches for kind "DeviceTaintRule" in version ' \
           '"resource.k8s.io/v1beta2"' in section
