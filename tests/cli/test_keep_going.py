"""A document that does not decode does not stop the file (issue #8): like `kubectl apply -f`, each command
reports it (file, document, object, field path), uses the other documents, and exits 2 at the end; commands
that write files write nothing. On real manifests joined into one multi-document file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.errors import InputError
from drasim.sources.files import load_paths

REAL = Path(__file__).resolve().parent.parent / "realworld"
NOSCHEDULE = REAL / "dra-example-driver" / "demo" / "examples" / "device-taints-tolerations" / \
    "device-taint-pod-noschedule"
# Document 3: a Pod without apiVersion; document 4: a claim with `expression` where `cel.expression` belongs.
PARTS = [NOSCHEDULE / "1-basic-resourceclaimtemplate.yaml", NOSCHEDULE / "4-pod-not-scheduled.yaml",
         REAL / "k8s-website" / "examples" / "dra" / "resourceclaim.yaml", NOSCHEDULE / "2-pod-keeps-running.yaml"]
BAD_POD = 'document 3 Pod/basic-resourceclaimtemplate/pod-no-schedule: missing "apiVersion"'
BAD_CLAIM = ('document 4 ResourceClaim/example-resource-claim: spec.devices.requests[0].exactly.selectors[0]'
             '.expression: unknown field "expression"')


@pytest.fixture
def joined(tmp_path: Path) -> Path:
    path = tmp_path / "joined.yaml"
    path.write_text("\n---\n".join(p.read_text() for p in PARTS))
    return path


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    """One worker with the example driver's GPUs (its published slice) and its DeviceClass."""
    folder = tmp_path / "cluster"
    folder.mkdir()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "dra-example-driver-cluster-worker"},
            "status": {"allocatable": {"pods": "110", "cpu": "8", "memory": "32Gi"}}}
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
           "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}]}}
    (folder / "node.yaml").write_text(yaml.safe_dump_all([node, cls]))
    (folder / "slice.yaml").write_text(
        (REAL / "dra-example-driver" / "README--kubectl-get-resourceslice-o-yaml.yaml").read_text())
    return folder


def _run(*args: str) -> tuple[int | str, str, str]:
    result = CliRunner().invoke(cli, list(args))
    if isinstance(result.exception, InputError):  # the entry point prints it and exits with its code
        return result.exception.exit_code, result.stdout, str(result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_loader_records_each_bad_document_and_reads_on(joined: Path) -> None:
    loaded = load_paths([str(joined)], keep_going=True)
    assert [f"{o.kind}/{o.metadata.name}" for o in loaded.objects] == [
        "Namespace/basic-resourceclaimtemplate", "ResourceClaimTemplate/single-gpu", "Pod/pod-keeps-running"]
    assert [str(e) for e in loaded.errors] == [f"{joined}: {BAD_POD}", f"{joined}: {BAD_CLAIM}"]
    with pytest.raises(InputError, match="missing \"apiVersion\""):
        load_paths([str(joined)])  # without keep_going: the first error, as before


def test_validate_reports_every_bad_document_and_validates_the_rest(joined: Path) -> None:
    code, out, _ = _run("validate", "-f", str(joined), "-o", "json")
    assert code == 2
    report: dict[str, Any] = json.loads(out)
    assert report["objects"] == {"Namespace": 1, "Pod": 1, "ResourceClaimTemplate": 1}
    found = [(f["file"], f["object"], f.get("field"), f["message"]) for f in report["diagnostics"]]
    assert found == [
        (str(joined), {"kind": "Pod", "namespace": "basic-resourceclaimtemplate", "name": "pod-no-schedule"}, None,
         'missing "apiVersion" (document 3)'),
        (str(joined), {"kind": "ResourceClaim", "name": "example-resource-claim"},
         "spec.devices.requests[0].exactly.selectors[0].expression", 'unknown field "expression" (document 4)')]
    code, out, _ = _run("validate", "-f", str(joined))
    assert code == 2 and f"{joined}: {BAD_POD.split(':')[0]}" in out


def test_simulate_places_the_good_pod_and_writes_no_report(joined: Path, cluster: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    code, out, err = _run("simulate", "-f", str(cluster), "-f", str(joined), "--report", str(report))
    assert code == 2
    assert "basic-resourceclaimtemplate/pod-keeps-running  Running" in out.replace("Bound", "Running")
    section = out.split("Rejected at admission")[1]
    assert f"{joined}: {BAD_POD}" in section and f"{joined}: {BAD_CLAIM}" in section
    assert "2 documents could not be read" in err
    assert not report.exists()


@pytest.mark.parametrize("command", [["explain", "pod", "basic-resourceclaimtemplate/pod-keeps-running"],
                                     ["lint"]])
def test_other_commands_answer_then_exit_2(command: list[str], joined: Path, cluster: Path) -> None:
    code, out, err = _run(*command, "-f", str(cluster), "-f", str(joined))
    assert code == 2 and "2 documents could not be read" in err
    assert out.strip()


# --- objects the API server would reject at admission (issue 26: one exit-code rule) ----------------------

INVALID = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
           "metadata": {"name": "bad", "namespace": "default"},
           "spec": {"devices": {"requests": [{"name": "Not_A_DNS_Label",
                                              "exactly": {"deviceClassName": "gpu.example.com"}}]}}}


@pytest.fixture
def rejected(tmp_path: Path) -> Path:
    path = tmp_path / "rejected.yaml"
    path.write_text(yaml.safe_dump(INVALID))
    return path


@pytest.mark.parametrize("command", [
    ["simulate"], ["simulate", "-o", "json"], ["simulate", "--fail-on-pending"],
    ["explain", "pod", "basic-resourceclaimtemplate/pod-keeps-running"],
    ["taint", "dry-run", str(NOSCHEDULE / "3-device-taint-rule.yaml"), "--feature-gates", "DRADeviceTaintRules=true"],
    ["capacity", "--workload", str(NOSCHEDULE / "2-pod-keeps-running.yaml")],
])
def test_a_rejected_object_makes_every_answering_command_exit_2_after_its_answer(
        command: list[str], cluster: Path, rejected: Path) -> None:
    template, pod = NOSCHEDULE / "1-basic-resourceclaimtemplate.yaml", NOSCHEDULE / "2-pod-keeps-running.yaml"
    code, out, err = _run(*command, "-f", str(cluster), "-f", str(template), "-f", str(pod), "-f", str(rejected))
    assert code == 2, (out, err)
    assert out.strip()  # the answer for the rest came first
    assert f"rejected at admission and left out: {rejected}: ResourceClaim/default/bad: " \
           "spec.devices.requests[0].name: Invalid value: \"Not_A_DNS_Label\"" in err


@pytest.mark.parametrize("command", ["validate", "lint"])
def test_validate_and_lint_answer_rejections_with_1(command: str, rejected: Path) -> None:
    """What the API server would reject is the answer these commands give: "no" (1), not refused input (2)."""
    code, out, _ = _run(command, "-f", str(rejected))
    assert code == 1 and "Not_A_DNS_Label" in out
