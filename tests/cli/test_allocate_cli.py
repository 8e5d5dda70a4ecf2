"""`drasim allocate`: output shape, --check, and clear errors for bad scenario files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1] / "conformance"
SEED4 = ROOT / "seed" / "seed-04-h100-else-a100-fill-mixed-node.yaml"


def drasim(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "drasim.cli.main", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_prints_upstream_shape() -> None:
    proc = drasim("allocate", str(SEED4))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["name"] == "seed-04-h100-else-a100-fill-mixed-node"
    assert record["features"] == ["AdminAccess", "ConsumableCapacity", "DeviceBindingAndStatus", "DeviceTaints",
                                  "PartitionableDevices", "PrioritizedList"]
    statuses = [s["status"] for s in record["steps"]]
    assert statuses == ["allocated"] * 5 + ["unsatisfiable"]
    first = record["steps"][0]["results"][0]["devices"]
    assert [d["request"] for d in first] == ["gpu/h100"]


def test_check_passes_on_a_directory() -> None:
    """--check prints the summary only, not a JSON record per scenario."""
    proc = drasim("allocate", "--check", str(ROOT / "seed"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "12 passed, 0 failed\n"


def test_check_with_output_prints_the_records_and_the_summary_on_stderr() -> None:
    proc = drasim("allocate", "--check", "-o", "json", str(SEED4))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["check"] == "pass"
    assert "1 passed, 0 failed" in proc.stderr
    proc = drasim("allocate", "-o", "yaml", str(SEED4))
    assert yaml.safe_load(proc.stdout)["steps"][0]["status"] == "allocated"


def test_check_reports_mismatch(tmp_path: Path) -> None:
    text = SEED4.read_text().replace("status: unsatisfiable", "status: allocated", 1)
    bad = tmp_path / "wrong.yaml"
    bad.write_text(text)
    proc = drasim("allocate", "--check", str(bad))
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "status unsatisfiable, expected allocated" in proc.stdout
    assert proc.stdout.endswith("0 passed, 1 failed\n")


def test_stdin() -> None:
    proc = drasim("allocate", "-", stdin=SEED4.read_text())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["steps"][0]["status"] == "allocated"


def test_kubernetes_version_134_turns_features_off() -> None:
    seed5 = ROOT / "seed" / "seed-05-two-mig-slices-partitionable-a100.yaml"
    proc = drasim("allocate", "--kubernetes-version", "1.34", str(seed5))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert "PartitionableDevices" not in record["features"]
    # MIG devices consume counters: without partitionable devices none can be allocated.
    assert record["steps"][0]["status"] == "unsatisfiable"


@pytest.mark.parametrize("content,needle", [
    ("name: x\nnode: n\nallocate: [missing]\nobjects: []\n", "missing"),
    ("name: x\nnode: n\nallocate: [c]\nbogus: 1\nobjects: []\n", "bogus"),
    ("name: x\nallocate: [c\n", "line"),
    ("name: x\nnode: n\nallocate: [c]\nfeatures: {noSuchFeature: true}\nobjects: []\n", "noSuchFeature"),
])
def test_bad_scenarios_give_one_clear_message(tmp_path: Path, content: str, needle: str) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(content)
    proc = drasim("allocate", str(f))
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert str(f) in proc.stderr and needle in proc.stderr


def test_unknown_class_is_upstreams_error_status(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("""name: s
node: n
allocate: [c]
objects:
- apiVersion: resource.k8s.io/v1
  kind: ResourceClaim
  metadata: {name: c, namespace: default}
  spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: nope}}]}}
""")
    proc = drasim("allocate", str(f))
    assert proc.returncode == 0, proc.stderr
    step = json.loads(proc.stdout)["steps"][0]
    assert step["status"] == "error"
    assert step["error"] == ('claim default/c, request gpu: could not retrieve device class nope: '
                             'deviceclass.resource.k8s.io "nope" not found')


def test_missing_file() -> None:
    proc = drasim("allocate", "/no/such/file.yaml")
    assert proc.returncode != 0 and "no such file" in proc.stderr and "Traceback" not in proc.stderr
