"""One report format: lint, validate, doctor and explain print the same Diagnostic shape in an
apiVersion/kind envelope (docs/json-output.md); lint also writes SARIF 2.1.0."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.demo import demo_paths
from drasim.diagnostics import API_VERSION, Diagnostic, parse_object_ref
from drasim.lint import RULES

# The demo as `drasim simulate` without -f serves it: with the DeviceTaintRule gate on (else its rule is
# refused: exit 2).
DEMO = [*(arg for p in demo_paths() for arg in ("-f", p)), "--feature-gates", "DRADeviceTaintRules=true"]
BAD = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: b200}
spec:
  selectors:
  - cel: {expression: "device.attributes['gpu.nvidia.com'].productName == 'B200'"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train, namespace: ml}
spec:
  devices:
    requests:
    - name: Gpus
      exactly: {deviceClassName: b200}
"""


def invoke(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    data: dict[str, object] = json.loads(result.stdout)
    return data


@pytest.fixture
def bad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "bad.yaml").write_text(BAD)
    return "manifests/bad.yaml"


@pytest.mark.parametrize("command,kind", [(["lint"], "LintReport"), (["validate"], "ValidationReport"),
                                          (["explain", "pod/urgent-training", *DEMO], "PodExplanation")])
def test_every_report_has_the_envelope_and_diagnostics(command: list[str], kind: str) -> None:
    report = invoke(*command, "-o", "json")
    assert report["apiVersion"] == API_VERSION and report["kind"] == kind
    diagnostics = msgspec.convert(report["diagnostics"], list[Diagnostic])
    assert msgspec.to_builtins(diagnostics) == report["diagnostics"]  # nothing outside the shared type


def test_validate_and_lint_agree_on_the_api_errors(bad: str) -> None:
    validate = msgspec.convert(invoke("validate", "-f", bad, "-o", "json")["diagnostics"], list[Diagnostic])
    lint = msgspec.convert(invoke("lint", "-f", bad, "-o", "json")["diagnostics"], list[Diagnostic])
    assert {(d.object, d.field) for d in validate if d.severity == "error"} <= \
        {(d.object, d.field) for d in lint if d.severity == "error"}
    invalid = next(d for d in validate if d.code == "FieldValueInvalid")
    assert invalid.file == bad and str(invalid.object) == "ResourceClaim/ml/train"
    assert invalid.field == "spec.devices.requests[0].name"


def test_explain_hints_are_diagnostics() -> None:
    report = invoke("explain", "pod/urgent-training", *DEMO, "-o", "json")
    diagnostics = msgspec.convert(report["diagnostics"], list[Diagnostic])
    assert "hints" not in report and "problems" not in report
    assert any(d.code == "no-preemption" and str(d.object) == "Pod/default/urgent-training" for d in diagnostics)


def test_lint_sarif_is_a_minimal_valid_log(bad: str) -> None:
    log = invoke("lint", "-f", bad, "-o", "sarif")
    assert log["version"] == "2.1.0" and str(log["$schema"]).endswith("sarif-2.1.0.json")
    (run,) = log["runs"]  # type: ignore[misc]
    driver = run["tool"]["driver"]
    assert driver["name"] == "drasim" and [r["id"] for r in driver["rules"]] == list(RULES)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["defaultConfiguration"]["level"] in ("error", "warning")
    results = run["results"]
    assert results
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note") and result["message"]["text"]
        (location,) = result["locations"]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == "manifests/bad.yaml"
        assert location["logicalLocations"][0]["kind"] == "object"
    assert "api-validation" in {r["ruleId"] for r in results}
    assert os.path.exists(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])


def test_lint_sarif_of_a_clean_input_has_no_results(tmp_path: Path) -> None:
    clean = tmp_path / "ns.yaml"
    clean.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n")
    log = invoke("lint", "-f", str(clean), "-o", "sarif")
    assert log["runs"][0]["results"] == []  # type: ignore[index]


def test_object_references_parse() -> None:
    ref = parse_object_ref("ResourceClaim/ml/train")
    assert ref is not None and (ref.kind, ref.namespace, ref.name) == ("ResourceClaim", "ml", "train")
    node = parse_object_ref("Node/n1")
    assert node is not None and node.namespace is None and str(node) == "Node/n1"
    assert parse_object_ref("") is None and parse_object_ref("a/b/c/d") is None
