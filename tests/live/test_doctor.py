"""`drasim doctor`: the pure checks on hand-made snapshots, and the command end to end (exit codes, output)."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from apiserver import FakeApiServer, Route

from drasim.api.profile import parse_minor
from drasim.api.resource import ResourceSlice
from drasim.cel import compile_selector, device_input
from drasim.cli.doctor import make_console, render_table
from drasim.cli.main import main
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.doctor.checks import diagnose
from drasim.doctor.model import DoctorReport
from drasim.doctor.release import features_for
from drasim.sources.dump import write_dump
from drasim.sources.files import load_bytes

Start = Callable[..., FakeApiServer]
Write = Callable[..., str]

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}}}
spec:
  driver: gpu.example.com
  nodeName: {node}
  pool: {{name: {node}, generation: {gen}, resourceSliceCount: {count}}}
  devices:
  - name: gpu-0
    attributes:
      model: {{string: H100}}
      index: {{int: 0}}
    capacity:
      memory: {{value: 80Gi}}
  - name: gpu-1
    attributes:
      model: {{string: "H100 \\"SXM\\""}}
      index: {{int: 1}}
      fw: {{version: 1.2.3}}
"""
CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {name}}}
spec:
  selectors:
  - cel: {{expression: '{expr}'}}
"""
RULE = """\
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {{name: {name}}}
spec:
  {selector}
  taint: {{key: example.com/broken, effect: {effect}}}
"""


def snapshot(*docs: str, version: str | None = "v1.36.0", served: tuple[str, ...] | None = ("v1",)
             ) -> ClusterSnapshot:
    objects = load_bytes("---\n".join(docs).encode(), source="test.yaml").objects
    return ClusterSnapshot(objects=objects, server_version=version, resource_versions=served)


def slice_(name: str = "s1", node: str = "node-1", gen: int = 1, count: int = 1) -> str:
    return SLICE.format(name=name, node=node, gen=gen, count=count)


def by_id(report: DoctorReport) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    for f in report.findings:
        out.setdefault(f.id, []).append((f.severity, f.message))
    return out


# --- pure checks -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("version", "minor"), [("v1.36.1", "1.36"), ("v1.33.5-eks-113cf36", "1.33"),
                                                ("1.34", "1.34"), ("v1.40.0-alpha.1", "1.40"), ("garbage", None),
                                                (None, None)])
def test_parse_minor(version: str | None, minor: str | None) -> None:
    assert parse_minor(version) == minor


def test_feature_gates_follow_the_release_table() -> None:
    g134 = {g.name: g for g in features_for("1.34")}
    assert g134["DynamicResourceAllocation"].maturity == "GA" and not g134["DynamicResourceAllocation"].locked
    assert g134["DRAPrioritizedList"].enabled and g134["DRAPrioritizedList"].maturity == "beta"
    assert not g134["DRAPartitionableDevices"].enabled
    assert "DRADeviceTaintRules" not in g134
    g136 = {g.name: g for g in features_for("1.36")}
    assert not g136["DRADeviceTaintRules"].enabled and g136["DRADeviceTaintRules"].maturity == "beta"
    assert g136["DRAConsumableCapacity"].enabled
    assert {g.name for g in features_for("1.37")} >= {"DRAFractionalCapacityRange"}
    assert features_for("1.45") == features_for("1.37")  # newer: the newest table drasim knows
    assert features_for("1.29") == [] and features_for(None) == []


@pytest.mark.parametrize(("version", "severity", "text"), [
    ("v1.36.0", "ok", "DRA resource.k8s.io/v1 is GA"),
    ("v1.32.4", "error", "here it is beta and off by default"),
    ("v1.39.0", "warn", "newer than the releases drasim models"),
])
def test_version_check(version: str, severity: str, text: str) -> None:
    found = by_id(diagnose(snapshot(version=version)))["kubernetes-version"]
    assert found[0][0] == severity and text in found[0][1]


def test_pools_complete_incomplete_and_stale() -> None:
    report = diagnose(snapshot(slice_("a", "node-1"), slice_("b-old", "node-2", gen=1, count=1),
                               slice_("b", "node-2", gen=2, count=2), slice_("c1", "node-3", count=1),
                               slice_("c2", "node-3", count=2)))
    found = by_id(report)
    messages = [m for _, m in found["pool-incomplete"]]
    assert any("pool gpu.example.com/node-2 is incomplete: 1 of 2 slices of generation 2" in m for m in messages)
    assert any("pool gpu.example.com/node-3: slices of generation 1 disagree on resourceSliceCount (1, 2)" in m
               for m in messages)
    assert found["pool-stale-slices"] == [("warn", "pool gpu.example.com/node-2: 1 slice of an older generation "
                                                   "still present (ignored by the scheduler; the driver normally "
                                                   "deletes them)")]
    pools = {p.name: p for d in report.drivers for p in d.pools}
    assert pools["node-1"].complete and not pools["node-2"].complete and not pools["node-3"].complete


def test_attribute_inventory_gives_exact_strings_and_working_cel() -> None:
    report = diagnose(snapshot(slice_()))
    (driver,) = report.drivers
    attrs = {a.name: a for a in driver.attributes}
    assert attrs["model"].values == ["H100", 'H100 "SXM"'] and attrs["model"].type == "string"
    assert attrs["fw"].devices == 1 and attrs["fw"].type == "version"
    assert attrs["model"].cel() == 'device.attributes["gpu.example.com"].model == "H100"'
    slc = next(o for o in snapshot(slice_()).objects if isinstance(o, ResourceSlice))
    examples = [a.cel() for a in driver.attributes] + [c.cel(capacity=True) for c in driver.capacities]
    assert len(examples) == 4
    for expr in examples:  # each example selects at least one real device
        program = compile_selector(expr)
        assert any(program.evaluate(device_input("gpu.example.com", d)) is True for d in slc.spec.devices), expr
    products = by_id(report)["driver-attributes"]
    assert products[0][0] == "ok" and "use these exact strings in CEL selectors" in products[0][1]


def test_device_class_checks() -> None:
    report = diagnose(snapshot(
        slice_(),
        CLASS.format(name="good", expr='device.driver == "gpu.example.com"'),
        CLASS.format(name="typo", expr='device.attributes["gpu.example.com"].modle == "H100"'),
        CLASS.format(name="other", expr='device.driver == "other.example.com"'),
        CLASS.format(name="broken", expr='device.driver ==')))
    found = by_id(report)
    assert found["device-classes"][0] == ("ok", "4 DeviceClasses, 1 matching published devices")
    broken, typo = found["device-class-selector"]  # classes are checked in name order
    assert broken[0] == "error" and broken[1].startswith("DeviceClass broken: selector does not compile")
    assert typo[0] == "warn" and typo[1].startswith("DeviceClass typo: selector fails with a CEL runtime error on "
                                                    "2 devices")
    details = next(f.details for f in report.findings if f.message == typo[1])
    assert details == ("2x gpu.example.com: no such key: modle",)
    assert found["device-class-empty"] == [("warn", "DeviceClass other matches none of the 2 devices published")]
    classes = {c.name: c for c in report.classes}
    assert classes["good"].devices == 2 and classes["typo"].runtime_errors == 2 and classes["broken"].compile_error


def test_taint_rule_checks() -> None:
    report = diagnose(snapshot(
        slice_(),
        RULE.format(name="everything", selector="deviceSelector: {}", effect="NoExecute"),
        RULE.format(name="nil", selector="", effect="NoSchedule"),
        RULE.format(name="one", selector="deviceSelector: {driver: gpu.example.com, device: gpu-1}",
                    effect="NoExecute"),
        RULE.format(name="none", selector="deviceSelector: {pool: nowhere}", effect="NoSchedule")))
    found = by_id(report)
    assert found["device-taint-rule-all"] == [("error", "DeviceTaintRule everything has an empty deviceSelector: it "
                                                        "taints every device in the cluster (example.com/broken:"
                                                        "NoExecute), evicting every pod using DRA devices")]
    assert "PR #141648" in found["device-taint-rule-nil"][0][1]
    assert found["device-taint-rule-noexecute"][0][1].startswith("DeviceTaintRule one (example.com/broken:NoExecute) "
                                                                 "evicts pods using 1 device")
    assert found["device-taint-rule-unmatched"] == [("warn", "DeviceTaintRule none (pool=nowhere) matches no "
                                                             "published device")]
    assert {t.name: t.devices for t in report.taint_rules} == {"everything": 2, "nil": 0, "none": 0, "one": 1}


def test_claims_naming_a_missing_class_and_pending_pods() -> None:
    claim = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ml}\n"
             "spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: nope}}]}}\n")
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec: {resourceClaims: [{name: gpu, "
           "resourceClaimName: c}], containers: [{name: x}]}\nstatus: {phase: Pending}\n")
    found = by_id(diagnose(snapshot(slice_(), claim, pod)))
    assert found["claim-class-missing"] == [("error", "ResourceClaim ml/c request gpu names DeviceClass nope, which "
                                                      "does not exist: it cannot be allocated")]
    assert found["pods-pending"][0][0] == "warn"


def test_without_dra_only_the_api_problem_is_reported() -> None:
    found = by_id(diagnose(snapshot(version="v1.31.2", served=())))
    assert found["dra-api"][0][0] == "error"
    assert "resource.k8s.io is not served" in found["dra-api"][0][1]
    assert not {"drivers", "device-classes", "claims"} & set(found)


def test_nodes_missing_for_slices() -> None:
    node = "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
    found = by_id(diagnose(snapshot(slice_("a", "node-1"), slice_("b", "node-9"), node)))
    assert found["nodes"] == [("ok", "1 node, 1 with node-local DRA devices")]
    assert found["nodes-missing"][0][0] == "warn"


# --- the command -----------------------------------------------------------------------------------

def squash(text: str) -> str:
    """Table output with runs of spaces (column padding) collapsed, for column-width independent asserts."""
    return re.sub(r" +", " ", text)


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the real entry point (DrasimError -> message and exit code) and capture its output."""
    monkeypatch.setattr(sys, "argv", ["drasim", *args])
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_doctor_136_table(apiserver: Start, write_kubeconfig: Write, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k136")
    code, out, err = run(monkeypatch, capsys, "doctor", "--kubeconfig", write_kubeconfig(server.url))
    assert code == 1, out + err  # the fixture's gpu-node-2 pool is incomplete
    assert "\x1b[" not in out  # no colour or other escapes when not on a terminal
    text = squash(out)
    assert "resource.k8s.io served v1, v1beta2, v1beta1" in text
    assert "Read as resource.k8s.io/v1beta2 DeviceTaintRule" in text
    assert 'device.attributes["gpu.nvidia.com"].productName == "NVIDIA A100-SXM4-80GB"' in text
    assert '"NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"' in text
    assert "gpu.nvidia.com gpu-node-2 node gpu-node-2 2 1/2 1 NO" in text
    assert "gpu.nvidia.com/uuid string 3 unique per device" in text
    assert "ERROR pool-incomplete pool gpu.nvidia.com/gpu-node-2 is incomplete" in text
    assert "1 error(s), 3 warning(s)" in text


def test_doctor_healthy_cluster_exits_zero(apiserver: Start, write_kubeconfig: Write,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    fixture = Path(__file__).parent / "fixtures/k136/apis/resource.k8s.io/v1/resourceslices.json"
    doc = json.loads(fixture.read_text())
    doc["items"] = doc["items"][:2]  # drop the half-published generation
    server = apiserver("k136", routes={"/apis/resource.k8s.io/v1/resourceslices": Route(200, doc)})
    code, out, _ = run(monkeypatch, capsys, "doctor", "--kubeconfig", write_kubeconfig(server.url), "-o", "json")
    assert code == 0
    report = json.loads(out)
    assert report["errors"] == 0 and report["serverVersion"] == "v1.36.1"
    assert [p["complete"] for p in report["drivers"][0]["pools"]] == [True, True]


def test_doctor_132_json(apiserver: Start, write_kubeconfig: Write, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("k132")
    code, out, _ = run(monkeypatch, capsys, "doctor", "--kubeconfig", write_kubeconfig(server.url), "-o", "json")
    assert code == 1
    report = json.loads(out)
    assert report["kubernetesVersion"] == "1.32" and report["resourceVersions"] == ["v1beta1"]
    assert report["readVersions"]["ResourceSlice"] == "resource.k8s.io/v1beta1"
    assert report["apiVersion"] == "drasim.dev/v1alpha1" and report["kind"] == "DoctorReport"
    ids = {f["code"]: f for f in report["diagnostics"]}
    assert ids["kubernetes-version"]["severity"] == "error"
    assert ids["dra-api"]["severity"] == "warning"
    assert report["errors"] == sum(1 for f in report["diagnostics"] if f["severity"] == "error")
    attrs = {a["name"]: a for a in report["drivers"][0]["attributes"]}
    assert attrs["productName"]["values"] == ["NVIDIA H100 80GB HBM3"]
    assert attrs["productName"]["cel"] == 'device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"'
    gates = {g["name"]: g["enabled"] for g in report["featureGates"]}
    assert gates == {"DynamicResourceAllocation": False, "DRAAdminAccess": False,
                     "DRAResourceClaimDeviceStatus": False}


def test_doctor_says_clearly_when_dra_is_not_served(apiserver: Start, write_kubeconfig: Write,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    server = apiserver("nodra")
    code, out, _ = run(monkeypatch, capsys, "doctor", "--kubeconfig", write_kubeconfig(server.url))
    assert code == 1
    text = squash(out)
    assert "resource.k8s.io served NOT SERVED" in text
    assert "resource.k8s.io is not served: DRA is not available on this cluster" in text
    assert "ResourceSlices" not in out.split("Findings")[1]  # no follow-on noise about missing drivers


def test_doctor_from_dump_matches_live(apiserver: Start, write_kubeconfig: Write, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = write_kubeconfig(apiserver("k136").url)
    _, live, _ = run(monkeypatch, capsys, "doctor", "--kubeconfig", kubeconfig, "-o", "json")
    code, out, _ = run(monkeypatch, capsys, "dump", "--kubeconfig", kubeconfig, "--output-dir", str(tmp_path / "d"))
    assert code == 0, out
    code, offline, _ = run(monkeypatch, capsys, "doctor", "--from-dump", str(tmp_path / "d"), "-o", "json")
    assert code == 1
    live_doc, offline_doc = json.loads(live), json.loads(offline)
    assert offline_doc["source"].startswith(f"dump {tmp_path / 'd'} of context test")
    for key in ("diagnostics", "drivers", "deviceClasses", "deviceTaintRules", "readVersions", "objects"):
        assert offline_doc[key] == live_doc[key], key


@pytest.mark.parametrize(("args", "message"), [
    (["--context", "prod"], "context 'prod' not found in kubeconfig (contexts: test)"),
    (["--from-dump", "/nonexistent/dump"], "/nonexistent/dump: no such directory"),
])
def test_doctor_input_errors_exit_two_without_traceback(args: list[str], message: str, write_kubeconfig: Write,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = [] if "--from-dump" in args else ["--kubeconfig", write_kubeconfig("http://127.0.0.1:1")]
    code, out, err = run(monkeypatch, capsys, "doctor", *kubeconfig, *args)
    assert code == 2
    assert message in err and err.startswith("error: ")
    assert "Traceback" not in err + out


def test_doctor_refused_connection_exits_two(write_kubeconfig: Write, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(monkeypatch, capsys, "doctor", "--kubeconfig", write_kubeconfig("http://127.0.0.1:1"),
                       "--timeout", "2")
    assert code == 2
    assert "cannot connect to the API server at http://127.0.0.1:1 (context test)" in err


def test_from_dump_cannot_be_combined_with_a_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    write_dump(ClusterSnapshot(), str(tmp_path / "d"))
    code, _, err = run(monkeypatch, capsys, "doctor", "--from-dump", str(tmp_path / "d"), "--context", "x")
    assert code == 2
    assert "--from-dump reads a directory" in err


def test_only_unreadable_versions_served() -> None:
    found = by_id(diagnose(snapshot(version="v1.30.4", served=("v1alpha2",))))
    assert found["dra-api"] == [("error", "resource.k8s.io is served only as v1alpha2, which drasim does not read "
                                          "(it reads v1, v1beta2, v1beta1, v1alpha3): upgrade to 1.34+")]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("no_color", "coloured"), [(None, True), ("1", False)])
def test_colour_only_on_a_terminal(no_color: str | None, coloured: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    monkeypatch.delenv("TERM", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    render_table(diagnose(snapshot(slice_(), version="v1.32.0")), make_console())
    colour = re.compile(r"\x1b\[(?:\d+;)*3[0-7]m")  # a foreground colour (NO_COLOR still allows bold)
    assert bool(colour.search(terminal.getvalue())) is coloured
    assert "ERROR" in terminal.getvalue()


def test_attribute_with_mixed_types_is_flagged() -> None:
    mixed = slice_().replace("index: {int: 1}", "index: {string: one}")
    report = diagnose(snapshot(mixed))
    attrs = {a.name: a for a in report.drivers[0].attributes}
    assert attrs["index"].type == "int/string" and attrs["index"].values == ["0", "one"]
    assert by_id(report)["attribute-types"][0][0] == "warn"
