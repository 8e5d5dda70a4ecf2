"""`drasim validate`: exit codes, summary, findings with file/object/path, JSON output, versions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.cli.validate import validate
from drasim.errors import InputError

GOOD_SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: H100}
  - name: gpu-1
    attributes:
      model: {string: H100}
"""

GOOD_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""

BAD_CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train, namespace: ml}
spec:
  devices:
    requests:
    - name: Gpus
      exactly: {deviceClassName: gpu.example.com, count: -2}
"""

TAINTED_SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: tainted}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    taints: [{key: example.com/broken, effect: NoSchedule}]
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(validate, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def test_valid_files_exit_zero_with_summary(tmp_path: Path) -> None:
    a = write(tmp_path, "slice.yaml", GOOD_SLICE)
    b = write(tmp_path, "class.yaml", GOOD_CLASS)
    code, out = run("-f", a, "-f", b)
    assert code == 0, out
    assert "Read 2 object(s) from 2 file(s); validated with Kubernetes 1.36 feature gates." in out
    assert "DeviceClass    1" in out and "ResourceSlice  1" in out
    assert "gpu.example.com  1      1       2        0" in out
    assert "No problems found." in out


def test_errors_exit_one_and_name_file_object_and_path(tmp_path: Path) -> None:
    path = write(tmp_path, "claim.yaml", BAD_CLAIM)
    code, out = run("-f", path)
    assert code == 1
    assert "2 error(s), 0 warning(s):" in out
    assert f"{path}: ResourceClaim/ml/train" in out
    assert 'ERROR   spec.devices.requests[0].name: Invalid value: "Gpus": a lowercase RFC 1123 label' in out
    assert "spec.devices.requests[0].exactly.count: Invalid value: -2: must be greater than zero" in out


def test_directory_input(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", GOOD_SLICE)
    write(tmp_path, "b.yml", BAD_CLAIM)
    write(tmp_path, "notes.txt", "not yaml: [")
    code, out = run("-f", str(tmp_path))
    assert code == 1
    assert "Read 2 object(s) from 2 file(s)" in out
    assert "b.yml: ResourceClaim/ml/train" in out


def test_stdin() -> None:
    result = CliRunner().invoke(validate, ["-f", "-"], input=BAD_CLAIM)
    assert result.exit_code == 1
    assert "-: ResourceClaim/ml/train" in result.output


def test_json_output(tmp_path: Path) -> None:
    path = write(tmp_path, "all.yaml", GOOD_SLICE + "---\n" + BAD_CLAIM)
    code, out = run("-f", path, "-o", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["kubernetesVersion"] == "1.36"
    assert doc["objects"] == {"ResourceClaim": 1, "ResourceSlice": 1}
    assert doc["drivers"] == {"gpu.example.com": {"pools": 1, "slices": 1, "devices": 2, "counterSets": 0}}
    assert doc["errors"] == 2 and doc["warnings"] == 0
    assert doc["apiVersion"] == "drasim.dev/v1alpha1" and doc["kind"] == "ValidationReport"
    first = doc["diagnostics"][0]
    assert first == {
        "severity": "error",
        "code": "FieldValueInvalid",
        "message": first["message"],
        "file": path,
        "object": {"kind": "ResourceClaim", "namespace": "ml", "name": "train"},
        "field": "spec.devices.requests[0].name",
    }
    assert first["message"].startswith('Invalid value: "Gpus": ')
    assert "DRAConsumableCapacity" in doc["featureGates"]


@pytest.mark.parametrize(("version", "dropped"), [("1.34", 1), ("1.35", 1), ("1.36", 0), ("1.37", 0)])
def test_kubernetes_version_selects_gates(tmp_path: Path, version: str, dropped: int) -> None:
    # A field the API server silently drops (gate off) is a warning: the object is accepted, exit 0.
    path = write(tmp_path, "tainted.yaml", TAINTED_SLICE)
    got, out = run("-f", path, "--kubernetes-version", version)
    assert got == 0, out
    if dropped:
        assert "WARNING" in out
        assert (
            "spec.devices[0].taints: Forbidden: the DRADeviceTaints feature gate is disabled; the API server "
            "would silently drop this field"
        ) in out


def test_unknown_version_is_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, "slice.yaml", GOOD_SLICE)
    result = CliRunner().invoke(validate, ["-f", path, "--kubernetes-version", "1.30"])
    assert result.exit_code == 2
    assert "1.30" in result.output


def test_warnings_only_exit_zero(tmp_path: Path) -> None:
    incomplete = GOOD_SLICE.replace("resourceSliceCount: 1", "resourceSliceCount: 2")
    path = write(tmp_path, "slice.yaml", incomplete)
    code, out = run("-f", path)
    assert code == 0
    assert "0 error(s), 1 warning(s):" in out
    assert "WARNING spec.pool.resourceSliceCount: Invalid value: 2: pool gpu.example.com/node-1" in out


def test_cross_object_checks_across_files(tmp_path: Path) -> None:
    claim = BAD_CLAIM.replace("Gpus", "gpus").replace("count: -2", "adminAccess: true")
    a = write(tmp_path, "claim.yaml", claim)
    b = write(tmp_path, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n")
    code, out = run("-f", a, "-f", b)
    assert code == 1
    assert f"{a}: ResourceClaim/ml/train" in out
    assert (
        "spec.devices.requests[0].exactly.adminAccess: Forbidden: admin access to devices requires the "
        "`resource.kubernetes.io/admin-access: true` label on the containing namespace"
    ) in out


def test_load_errors_propagate(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.yaml", "kind: [unclosed\n")
    with pytest.raises(InputError):
        run("-f", path)


def test_registered_in_main_group(tmp_path: Path) -> None:
    path = write(tmp_path, "claim.yaml", BAD_CLAIM)
    result = CliRunner().invoke(cli, ["validate", "-f", path])
    assert result.exit_code == 1
    assert "ResourceClaim/ml/train" in result.output


def test_without_filename_validates_the_bundled_demo() -> None:
    result = CliRunner().invoke(validate, [])
    assert result.exit_code == 0, result.output
    assert "from 2 file(s)" in result.output and "warning" not in result.output  # drasim's files are clean
    assert "gpu.nvidia.com" in result.output
    assert "No problems found." in result.output


def test_a_slice_consuming_counters_of_a_slice_not_given_is_a_warning(tmp_path: Path) -> None:
    """The devices slice of the website's partitionable example alone: the API server validates each
    ResourceSlice on its own and admits it; the pool is invalid for the allocator until its counter slice
    exists, which is a warning (exit 0)."""
    real = Path(__file__).resolve().parents[1] / "realworld" / "k8s-website" / "docs"
    docs = list(yaml.safe_load_all((real / "dra-features--partitionable-slices.yaml").read_text()))
    alone = tmp_path / "devices-slice.yaml"
    alone.write_text(yaml.safe_dump(docs[1]))
    result = CliRunner().invoke(validate, ["-f", str(alone), "-o", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["errors"] == 0 and report["rejected"] == 0
    assert {(f["severity"], f["field"]) for f in report["diagnostics"]} == {
        ("warning", "spec.devices[0].consumesCounters[0].counterSet"),
        ("warning", "spec.devices[1].consumesCounters[0].counterSet"),
        ("warning", "spec.pool.resourceSliceCount")}
    both = CliRunner().invoke(validate, ["-f", str(real / "dra-features--partitionable-slices.yaml")])
    assert both.exit_code == 0 and "No problems found." in both.output
