"""`drasim lint`: exit codes, the JSON schema, colour, rule listing, and no traceback on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import drasim
from drasim.cli.lint import lint
from drasim.lint import RULES

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: H100}}
"""

GOOD_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
"""

# Matches nothing: a warning only.
B200_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: b200}
spec:
  selectors:
  - cel: {expression: 'device.attributes["gpu.example.com"].model == "B200"'}
"""

# Reads an attribute no device publishes: an error.
TYPE_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: typed}
spec:
  selectors:
  - cel: {expression: 'device.attributes["gpu.example.com"].type == "gpu"'}
"""

FIELDS = {"severity", "code", "message", "file", "object", "field", "hint", "details"}


def write(tmp_path: Path, name: str, *docs: str) -> str:
    path = tmp_path / name
    path.write_text("---\n".join(docs))
    return str(path)


def drasim_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    # Run the drasim that this test process imports, whatever is installed.
    env = dict(os.environ, PYTHONPATH=str(Path(drasim.__file__).resolve().parents[1]))
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "drasim.cli.main", "lint", *args],
        capture_output=True, text=True, env=env, input=stdin, timeout=120, check=False,
    )


def test_clean_input_exits_0(tmp_path: Path) -> None:
    result = CliRunner().invoke(lint, ["-f", write(tmp_path, "ok.yaml", SLICE, GOOD_CLASS)])
    assert result.exit_code == 0, result.output
    assert "No problems found." in result.output
    assert "Kubernetes 1.36" in result.output


def test_warnings_only_exit_0(tmp_path: Path) -> None:
    path = write(tmp_path, "warn.yaml", SLICE, B200_CLASS)
    result = CliRunner().invoke(lint, ["-f", path])
    assert result.exit_code == 0, result.output
    assert "class-matches-nothing" in result.output
    assert f"{path}: DeviceClass/b200" in result.output
    assert "0 error(s), 1 warning(s)." in result.output


def test_errors_exit_1(tmp_path: Path) -> None:
    result = drasim_cli("-f", write(tmp_path, "err.yaml", SLICE, TYPE_CLASS))
    assert result.returncode == 1, result.stderr
    assert "ERROR" in result.stdout and "cel-missing-attribute" in result.stdout
    assert "\x1b[" not in result.stdout  # no colour when stdout is not a terminal


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "err.yaml", SLICE, TYPE_CLASS)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in CliRunner().invoke(lint, ["-f", path], color=True).output
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in CliRunner().invoke(lint, ["-f", path], color=True).output


def test_json_schema(tmp_path: Path) -> None:
    path = write(tmp_path, "mix.yaml", SLICE, TYPE_CLASS, B200_CLASS)
    result = drasim_cli("-f", path, "-o", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["apiVersion"] == "drasim.dev/v1alpha1" and report["kind"] == "LintReport"
    findings = report["diagnostics"]
    assert isinstance(findings, list) and findings
    assert report["errors"] == sum(1 for f in findings if f["severity"] == "error") > 0
    for f in findings:
        assert set(f) <= FIELDS and {"severity", "code", "message", "file", "object"} <= set(f)
        assert f["code"] in RULES and f["severity"] in ("error", "warning")
        assert f["file"] == path and f["hint"] == RULES[f["code"]].why
    assert {(f["code"], f["object"]["kind"], f["object"]["name"], f["field"]) for f in findings} >= {
        ("cel-missing-attribute", "DeviceClass", "typed", "spec.selectors[0].cel.expression"),
        ("class-matches-nothing", "DeviceClass", "b200", "spec.selectors"),
    }


def test_json_is_deterministic(tmp_path: Path) -> None:
    path = write(tmp_path, "mix.yaml", SLICE, TYPE_CLASS, B200_CLASS)
    runner = CliRunner()
    first = runner.invoke(lint, ["-f", path, "-o", "json"]).output
    assert first == runner.invoke(lint, ["-f", path, "-o", "json"]).output


def test_json_clean_is_empty_list(tmp_path: Path) -> None:
    result = CliRunner().invoke(lint, ["-f", write(tmp_path, "ok.yaml", SLICE, GOOD_CLASS), "-o", "json"])
    assert result.exit_code == 0 and json.loads(result.output)["diagnostics"] == []


def test_kubernetes_version_changes_features(tmp_path: Path) -> None:
    claim = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - {name: a, deviceClassName: gpu.example.com}
"""
    path = write(tmp_path, "claim.yaml", claim)
    old = CliRunner().invoke(lint, ["-f", path, "--kubernetes-version", "v1.33.2", "-o", "json"])
    assert old.exit_code == 1
    assert any(f["code"] == "feature-unavailable" for f in json.loads(old.output)["diagnostics"])
    new = CliRunner().invoke(lint, ["-f", path, "--kubernetes-version", "1.34"])
    assert new.exit_code == 0, new.output


def test_skip_rule(tmp_path: Path) -> None:
    path = write(tmp_path, "err.yaml", SLICE, TYPE_CLASS)
    skips = ["--skip", "cel-missing-attribute", "--skip", "class-matches-nothing"]
    result = CliRunner().invoke(lint, ["-f", path, *skips])
    assert result.exit_code == 0, result.output


def test_stdin(tmp_path: Path) -> None:
    result = drasim_cli("-f", "-", "-o", "json", stdin=SLICE + "---\n" + TYPE_CLASS)
    assert result.returncode == 1
    assert {f["file"] for f in json.loads(result.stdout)["diagnostics"]} == {"-"}


def test_default_is_the_demo_cluster() -> None:
    """The demo leaves two pods Pending on purpose (MIG asked of a MIG-off node, a high-priority pod DRA cannot
    preempt for): lint reports both with explain's hints and exits 1."""
    result = CliRunner().invoke(lint, [])
    assert result.exit_code == 1, result.output
    assert "Linted" in result.output
    pending = [line for line in result.output.splitlines() if "pod-pending" in line]
    assert len(pending) == 2
    assert "default/mig-on-mig-off-node" in pending[0] and "MIG mode is off" in pending[0]
    assert "default/urgent-training" in pending[1] and "preemption will not help" in pending[1]


def test_list_rules() -> None:
    result = CliRunner().invoke(lint, ["--list-rules", "-o", "json"])
    assert result.exit_code == 0
    assert [r["id"] for r in json.loads(result.output)] == list(RULES)
    text = CliRunner().invoke(lint, ["--list-rules"]).output
    for rule_id in RULES:
        assert rule_id in text


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("kind: [unclosed\n", "invalid YAML"),
        ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\nspec: {selectorz: []}\n",
         "selectorz"),
    ],
)
def test_bad_input_no_traceback(tmp_path: Path, content: str, needle: str) -> None:
    path = write(tmp_path, "bad.yaml", content)
    result = drasim_cli("-f", path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert path in result.stderr and needle in result.stderr


def test_missing_file_no_traceback(tmp_path: Path) -> None:
    result = drasim_cli("-f", str(tmp_path / "nope.yaml"))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "no such file" in result.stderr


@pytest.mark.parametrize("args", [["--kubernetes-version", "1.29"], ["--skip", "no-such-rule"], ["-o", "xml"]])
def test_bad_options_are_usage_errors(args: list[str]) -> None:
    result = drasim_cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "Error" in result.stderr
