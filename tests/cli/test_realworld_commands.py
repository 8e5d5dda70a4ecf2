"""Every command over each of the 101 real manifests (tests/realworld): an answer or one clear message,
never a traceback; and the answers of issue #8 on the named files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.errors import DrasimError, RejectedError

REAL = Path(__file__).resolve().parent.parent / "realworld"
FILES = sorted(p for p in REAL.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
RULE = """apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: all}
spec:
  deviceSelector: {}
  taint: {key: maintenance, effect: NoExecute}
"""


def _outcome(args: list[str]) -> tuple[int | str, str]:
    result = CliRunner().invoke(cli, args)
    exc = result.exception
    if exc is None or isinstance(exc, SystemExit):
        return result.exit_code, result.output
    assert isinstance(exc, DrasimError), f"drasim {' '.join(args)}: {type(exc).__name__}: {exc}"
    return "error", str(exc)


def test_there_are_101_files() -> None:
    assert len(FILES) == 101


@pytest.mark.parametrize("command", ["validate", "lint", "simulate", "taint", "doctor"])
def test_no_command_tracebacks_on_real_files(command: str, tmp_path: Path) -> None:
    rule = tmp_path / "rule.yaml"
    rule.write_text(RULE)
    for path in FILES:
        args = {
            "validate": ["validate", "-f", str(path)],
            "lint": ["lint", "-f", str(path)],
            "simulate": ["simulate", "-f", str(path)],
            "taint": ["taint", "dry-run", str(rule), "-f", str(path), "--kubernetes-version", "1.37"],
            "doctor": ["doctor", "--from-dump", str(path.parent)],
        }[command]
        _outcome(args)


def test_simulate_reports_rejections_then_exits_2() -> None:
    """As `kubectl apply -f`: the answer for the rest, the rejected object listed, then exit 2 (--strict, the
    old way to fail on rejections, changes nothing)."""
    path = REAL / "k8s-website" / "docs" / "dra-api--admin-access-claim-template.yaml"
    for strict in ([], ["--strict"]):
        result = CliRunner().invoke(cli, ["simulate", "-f", str(path), *strict])
        assert isinstance(result.exception, RejectedError) and result.exception.exit_code == 2
        assert "Rejected at admission" in result.output and "admin-access: true` label" in result.output
        assert "admin-access: true` label" in str(result.exception)


def test_validate_removed_source_field_and_v1alpha2() -> None:
    pods = REAL / "dra-driver-nvidia-gpu" / "demo" / "specs" / "selectors" / "pods.yaml"
    code, out = _outcome(["validate", "-f", str(pods)])
    assert code == 1 and "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`" in out


def test_limits_only_pod_gets_a_device(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet"
    assert _outcome(["fleet", "--nodes", "h100:1", "--output-dir", str(fleet)])[0] == 0
    pod = REAL / "dra-driver-nvidia-gpu" / "demo" / "specs" / "extended-resources" / "gpu-full.yaml"
    code, out = _outcome(["simulate", "-f", str(fleet), "-f", str(pod), "-o", "wide"])
    assert code == 0
    line = next(line for line in out.splitlines() if "gpu-full-pod" in line)
    assert "Running" in line or "Bound" in line or "h100" in line, out
    assert "1 placed" in out


def test_every_command_takes_the_profile_options() -> None:
    for command in (["simulate"], ["validate"], ["lint"], ["explain"], ["taint", "dry-run"], ["fleet"],
                    ["doctor"], ["dump"], ["allocate"]):
        out = CliRunner().invoke(cli, [*command, "--help"]).output
        assert "--kubernetes-version" in out and "--feature-gates" in out, command


def _doctor_json(directory: Path, *extra: str) -> tuple[int | str, dict[str, object]]:
    code, out = _outcome(["doctor", "--from-dump", str(directory), "-o", "json", *extra])
    return code, json.loads(out)


def test_doctor_on_a_dump_admits_its_objects_like_every_command(tmp_path: Path) -> None:
    """The website's adminAccess template (its namespace is not labelled) and the NVIDIA demo's classic-DRA
    v1alpha2 templates: the API server would refuse them, so doctor lists them and leaves them out."""
    admin = REAL / "k8s-website" / "docs" / "dra-api--admin-access-claim-template.yaml"
    alpha2 = REAL / "dra-driver-nvidia-gpu" / "demo" / "specs" / "selectors" / "claims.yaml"
    shutil.copy(admin, tmp_path)
    shutil.copy(alpha2, tmp_path)
    code, report = _doctor_json(tmp_path)
    assert code == 1
    (rejected,) = [f for f in report["diagnostics"] if f["code"] == "rejected-at-admission"]  # type: ignore[union-attr]
    assert rejected["severity"] == "error"
    details = "\n".join(rejected["details"])
    assert (f"{tmp_path / admin.name}: ResourceClaimTemplate/large-black-cat-claim-template: "
            "spec.spec.devices.requests[0].exactly.adminAccess: Forbidden") in details
    assert 'no matches for kind "ResourceClaimTemplate" in version "resource.k8s.io/v1alpha2"' in details
    assert "ResourceClaimTemplate" not in report["objects"]  # type: ignore[operator]
    # With the namespace labelled, as the API server requires, the template is admitted.
    (tmp_path / alpha2.name).unlink()
    (tmp_path / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: default\n  labels:\n"
                                      "    resource.kubernetes.io/admin-access: \"true\"\n")
    code, report = _doctor_json(tmp_path)
    assert not [f for f in report["diagnostics"] if f["code"] == "rejected-at-admission"]  # type: ignore[union-attr]
    assert report["objects"] == {"Namespace": 1, "ResourceClaimTemplate": 1}
