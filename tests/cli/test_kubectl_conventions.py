"""kubectl's conventions on every command: object references, -n/-A, -o (json, yaml, name, jsonpath), the
plugin's name, NO_COLOR, dump's --output-dir, allocate --check's summary."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from drasim.cli.kube import ObjectRef, parse_refs
from drasim.cli.main import cli, prog_name
from drasim.cli.output import jsonpath
from drasim.cli.textout import TextOut, colour_allowed
from drasim.demo import demo_paths
from drasim.errors import InputError

# The demo as `drasim simulate` without -f serves it: with the DeviceTaintRule gate on (else its rule is
# refused: exit 2).
DEMO = [*(arg for p in demo_paths() for arg in ("-f", p)), "--feature-gates", "DRADeviceTaintRules=true"]


WORKLOAD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: extra}\nspec:\n"
            "  containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]\n"
            "  resourceClaims: [{name: gpu, resourceClaimTemplateName: h100-else-a100}]\n")


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("workload") / "pod.yaml"
    path.write_text(WORKLOAD)
    return str(path)


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout


def test_object_references_in_kubectls_forms() -> None:
    assert parse_refs(["pod/trainer-0"]) == [ObjectRef("pod", "trainer-0")]
    assert parse_refs(["pod", "a", "b"]) == [ObjectRef("pod", "a"), ObjectRef("pod", "b")]
    assert parse_refs(["pods"]) == [ObjectRef("pod", None)]
    assert parse_refs(["resourceclaim/ml/c"]) == [ObjectRef("claim", "c", "ml")]
    assert parse_refs(["claim", "ml/c"]) == [ObjectRef("claim", "c", "ml")]
    assert parse_refs(["po/x", "resourceclaims/y"]) == [ObjectRef("pod", "x"), ObjectRef("claim", "y")]


@pytest.mark.parametrize("args", [
    ["pod/urgent-training"], ["pod", "urgent-training"], ["pod/urgent-training", "-n", "default"],
    ["pod", "urgent-training", "-n", "default"], ["pod", "default/urgent-training"], ["pods"], ["pods", "-A"],
])
def test_explain_takes_every_form(args: list[str]) -> None:
    code, out = invoke("explain", *args, *DEMO, "-o", "name")
    assert code == 0
    assert "pod/urgent-training" in out.splitlines()


def test_explain_type_alone_lists_the_pending_pods_of_the_namespace() -> None:
    code, out = invoke("explain", "pods", "-A", *DEMO, "-o", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["kind"] == "List" and {i["pod"] for i in doc["items"]} >= {"default/urgent-training"}
    code, out = invoke("explain", "pods", "-n", "default", *DEMO, "-o", "name")
    assert code == 0 and "pod/urgent-training" in out.splitlines()
    code, out = invoke("explain", "pod/urgent-training", *DEMO, "-o", "yaml")
    assert yaml.safe_load(out)["pod"] == "default/urgent-training"


def test_explain_with_another_namespace_does_not_find_the_object(tmp_path: Path) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n")
    result = CliRunner().invoke(cli, ["explain", "pod/p", "-n", "ml", "-f", str(pod)])
    assert result.exit_code == 0, result.output  # -n puts the file's pod into ml, as kubectl apply -n does
    result = CliRunner().invoke(cli, ["explain", "pod/p", "-n", "default", "-f", str(pod), "-o", "name"])
    assert result.stdout == "pod/p\n"


def test_namespace_conflicting_with_the_file_is_kubectls_error(tmp_path: Path) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n"
                   "spec: {containers: [{name: c, image: x}]}\n")
    result = CliRunner().invoke(cli, ["validate", "-n", "b", "-f", str(pod)])
    assert isinstance(result.exception, InputError)
    assert ('the namespace from the provided object "a" does not match the namespace "b". You must pass '
            "'--namespace=a' to perform this operation.") in str(result.exception)


def test_all_namespaces_and_namespace_exclude_each_other() -> None:
    result = CliRunner().invoke(cli, ["explain", "pods", "-A", "-n", "x", *DEMO])
    assert result.exit_code == 2 and "cannot be used together" in result.output


@pytest.mark.parametrize("command", [["simulate"], ["lint"], ["validate"], ["explain", "pods", "-A", *DEMO],
                                     ["capacity", "--workload", "WORKLOAD", "--max", "2"]])
def test_json_and_yaml_give_the_same_data(command: list[str], workload: str) -> None:
    command = [workload if c == "WORKLOAD" else c for c in command]
    _, as_json = invoke(*command, "-o", "json")
    _, as_yaml = invoke(*command, "-o", "yaml")
    if command == ["simulate"]:  # YAML: the List's items as documents, to be read back with -f
        assert json.loads(as_json)["items"] == list(yaml.safe_load_all(as_yaml))
    else:
        assert json.loads(as_json) == yaml.safe_load(as_yaml)


def test_name_output_is_kind_slash_name() -> None:
    _, out = invoke("simulate", "-o", "name")
    lines = out.splitlines()
    assert "pod/urgent-training" in lines and "node/dgx-h100-10" in lines
    assert any(line.startswith("resourceclaim.resource.k8s.io/") for line in lines)
    _, out = invoke("fleet", "--nodes", "h100:1", "-o", "name")
    assert out.splitlines()[0].startswith("deviceclass.resource.k8s.io/")


def test_jsonpath_output(workload: str) -> None:
    _, out = invoke("simulate", "-o", 'jsonpath={.items[?(@.kind=="Pod")].metadata.name}')
    assert "urgent-training" in out.split()
    # The Events and the scores after the objects are plain data to a template too.
    _, out = invoke("simulate", "-o", 'jsonpath={.items[?(@.kind=="Event")].reason} {.items[-1].kind}')
    assert "Scheduled" in out.split() and out.split()[-1] == "SchedulingScores"
    _, out = invoke("capacity", "--workload", workload, "--max", "2", "-o", "jsonpath={.replicas}")
    assert out in ("0", "1", "2")
    result = CliRunner().invoke(cli, ["simulate", "-o", "jsonpath={.items[}"])
    assert result.exit_code == 2 and "bad jsonpath template" in result.output


def test_jsonpath_templates() -> None:
    data = {"items": [{"metadata": {"name": "a", "labels": {"x": "1"}}, "n": 1},
                      {"metadata": {"name": "b"}, "n": 2}]}
    assert jsonpath("{.items[*].metadata.name}", data) == "a b"
    assert jsonpath("{.items[0].metadata}", data) == '{"name":"a","labels":{"x":"1"}}'
    assert jsonpath('{range .items[*]}{.metadata.name}{"\\n"}{end}', data) == "a\nb\n"
    assert jsonpath("{.items[?(@.n>1)].metadata.name}", data) == "b"
    assert jsonpath("{.items[?(@.metadata.labels.x)].metadata.name}", data) == "a"
    assert jsonpath("{..name}", data) == "a b"
    assert jsonpath("'{.items[-1:].n}'", data) == "2"
    assert jsonpath("names: {.items[1].metadata.name}", data) == "names: b"


def test_plugin_name_and_python_m(tmp_path: Path) -> None:
    assert prog_name("/usr/local/bin/kubectl-dra") == "kubectl dra"
    assert prog_name("/usr/local/bin/drasim") == "drasim"
    plugin = tmp_path / "kubectl-dra"
    plugin.write_text("from drasim.cli.main import main\nmain()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, str(plugin), "explain", "--help"], capture_output=True, text=True,
                         timeout=60, env=env, check=True).stdout
    assert out.startswith("Usage: kubectl dra explain")
    proc = subprocess.run([sys.executable, "-m", "drasim", "simulate", "--bogus"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 2 and "Usage: drasim simulate" in proc.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("no_color,coloured", [(None, True), ("1", False), ("", True)])
def test_no_color_is_respected_on_a_terminal(no_color: str | None, coloured: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    term = _Terminal()
    assert colour_allowed(term) is coloured
    assert not colour_allowed(io.StringIO())
    out = TextOut(term)
    out.table(["A"], [["x"]])
    out._console.print("[red]red[/red]", markup=True)  # type: ignore[union-attr]
    assert ("\x1b[31m" in term.getvalue()) is coloured


def test_dump_directory_option_is_not_dash_o() -> None:
    from drasim.cli.dump import dump

    help_text = CliRunner().invoke(dump, ["--help"]).output
    assert "--output-dir" in help_text and "-o," not in help_text
    result = CliRunner().invoke(dump, ["--kubeconfig", "/nonexistent"])
    assert result.exit_code == 2 and "--output-dir" in result.output


def test_report_and_fleet_files_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        code, _ = invoke("simulate", "--report", str(tmp_path / "r.html"))
        code2, _ = invoke("fleet", "--nodes", "h100:1", "--output-dir", str(tmp_path / "fleet"))
    finally:
        os.umask(old)
    assert code == 0 and code2 == 0
    assert (tmp_path / "r.html").stat().st_mode & 0o777 == 0o640
    modes = {p.name: p.stat().st_mode & 0o777 for p in (tmp_path / "fleet").iterdir()}
    assert modes and set(modes.values()) == {0o640}


def test_namespace_reaches_the_objects_a_timeline_applies(tmp_path: Path) -> None:
    (tmp_path / "timeline.yaml").write_text("""apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: later}
spec:
  events:
  - at: 1m
    action: apply
    object:
      apiVersion: v1
      kind: Pod
      metadata: {name: late}
      spec: {containers: [{name: c, image: x}]}
""")
    _, out = invoke("simulate", "-f", str(tmp_path / "timeline.yaml"), "-n", "ml", "-o",
                    'jsonpath={.items[?(@.kind=="Pod")].metadata.namespace}')
    assert out == "ml"
