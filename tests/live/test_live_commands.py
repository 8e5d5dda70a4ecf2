"""simulate, explain, lint, validate, capacity and taint dry-run read a live cluster (--kubeconfig/--context,
GET and LIST only) with -f files applied on top of it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from apiserver import FakeApiServer
from test_doctor import run

Start = Callable[..., FakeApiServer]
Write = Callable[..., str]

EXTRA_POD = """apiVersion: v1
kind: Pod
metadata: {name: extra}
spec:
  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, resourceClaimTemplateName: h100-else-any}]
"""


@pytest.fixture
def extra(tmp_path: Path) -> str:
    path = tmp_path / "extra.yaml"
    path.write_text(EXTRA_POD)
    return str(path)


def test_simulate_the_cluster_with_a_file_on_top(apiserver: Start, write_kubeconfig: Write, extra: str,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    code, out, err = run(monkeypatch, capsys, "simulate", "--kubeconfig", write_kubeconfig(server.url),
                         "-n", "ml", "-f", extra, "-o", "json")
    assert code == 0, err
    pods = {(i["metadata"]["namespace"], i["metadata"]["name"]) for i in json.loads(out)["items"]
            if i["kind"] == "Pod"}
    assert {("ml", "train-0"), ("ml", "extra")} <= pods
    assert "rejected" not in err  # the cluster's own DeviceTaintRule is served there: its gate is on
    assert server.methods == {"GET"}


def test_explain_a_file_pod_in_the_context_namespace(apiserver: Start, write_kubeconfig: Write, extra: str,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    contexts = [{"name": "test", "context": {"cluster": "test-cluster", "user": "test-user", "namespace": "ml"}}]
    config = write_kubeconfig(server.url, contexts=contexts)
    code, out, err = run(monkeypatch, capsys, "explain", "pod/extra", "--kubeconfig", config, "--context", "test",
                         "-n", "ml", "-f", extra, "-o", "json")
    assert code == 0, err
    assert json.loads(out)["pod"] == "ml/extra"
    # Without -n, a name is looked up in the context's namespace (ml), as kubectl does.
    code, out, err = run(monkeypatch, capsys, "explain", "pod", "train-1", "--kubeconfig", config, "-o", "name")
    assert code == 0, err
    assert out == "pod/train-1\n"
    code, out, err = run(monkeypatch, capsys, "explain", "pods", "-A", "--kubeconfig", config, "-o", "name")
    assert code == 0 and "pod/train-1" in out.splitlines()


def test_files_win_over_the_cluster_with_the_duplicate_warning(apiserver: Start, write_kubeconfig: Write,
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    # The cluster's template, replaced by one whose selector no published device matches.
    template = tmp_path / "template.yaml"
    template.write_text("""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: h100-else-any, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          selectors: [{cel: {expression: "device.attributes['gpu.nvidia.com'].productName == 'B200'"}}]
""")
    config = write_kubeconfig(server.url)
    code, out, err = run(monkeypatch, capsys, "lint", "--kubeconfig", config, "-f", str(template), "-o", "json")
    assert code == 1, err  # lint judges the file's selector against the cluster's slices: no B200 there
    about = [f for f in json.loads(out)["diagnostics"]
             if f["object"] == {"kind": "ResourceClaimTemplate", "namespace": "ml", "name": "h100-else-any"}]
    (nothing,) = [f for f in about if f["code"] == "request-matches-nothing"]
    assert 'the selector needs "B200"' in nothing["message"] and nothing["file"] == str(template)
    duplicate = [f for f in about if f["code"] == "api-validation"]
    assert len(duplicate) == 1 and duplicate[0]["severity"] == "warning" and duplicate[0]["file"] == str(template)
    assert duplicate[0]["message"].startswith(f"defined in context test ({server.url}) and again in {template}: "
                                              "the later definition replaces the earlier one")
    code, out, err = run(monkeypatch, capsys, "simulate", "--kubeconfig", config, "-f", str(template), "-o",
                         "jsonpath={.items[?(@.kind==\"ResourceClaimTemplate\")].spec.spec.devices.requests[0]"
                         ".exactly.selectors[0].cel.expression}")
    assert code == 0 and "B200" in out, err
    assert server.methods == {"GET"}


def test_validate_and_taint_dry_run_read_the_cluster(apiserver: Start, write_kubeconfig: Write, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    config = write_kubeconfig(server.url)
    code, out, err = run(monkeypatch, capsys, "validate", "--kubeconfig", config, "-o", "json")
    assert json.loads(out)["objects"]["ResourceSlice"] == 3, err
    rule = tmp_path / "rule.yaml"
    rule.write_text("apiVersion: resource.k8s.io/v1beta2\nkind: DeviceTaintRule\nmetadata: {name: all}\n"
                    "spec:\n  deviceSelector: {driver: gpu.nvidia.com}\n"
                    "  taint: {key: k, value: v, effect: NoExecute}\n")
    code, out, err = run(monkeypatch, capsys, "taint", "dry-run", str(rule), "--kubeconfig", config, "-o", "json")
    assert code == 0, err
    assert json.loads(out)
    assert server.methods == {"GET"}


def test_unreachable_cluster_is_one_message(write_kubeconfig: Write, extra: str, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(monkeypatch, capsys, "simulate", "--kubeconfig", write_kubeconfig("http://127.0.0.1:1"),
                         "--timeout", "2", "-f", extra)
    assert code == 2 and "cannot connect to the API server" in err and "Traceback" not in err


def test_dump_dash_o_is_deprecated_for_output_dir(apiserver: Start, write_kubeconfig: Write, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = write_kubeconfig(apiserver("k136").url)
    code, _, err = run(monkeypatch, capsys, "dump", "--kubeconfig", config, "-o", str(tmp_path / "d"))
    assert code == 0 and "-o DIR is deprecated: use --output-dir DIR" in err
    assert (tmp_path / "d" / "resourceslices.yaml").exists()


def test_capacity_of_the_live_cluster(apiserver: Start, write_kubeconfig: Write, extra: str,
                                      monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    code, out, err = run(monkeypatch, capsys, "capacity", "--kubeconfig", write_kubeconfig(server.url), "-n", "ml",
                         "--workload", extra, "-o", "yaml")
    assert code == 0, err
    assert isinstance(yaml.safe_load(out)["replicas"], int)
    assert server.methods == {"GET"}
