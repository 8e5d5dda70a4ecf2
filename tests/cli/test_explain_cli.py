"""`drasim explain`: claims and pods from files and scenario steps, output formats, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from click.testing import CliRunner

from drasim.cli.explain import explain

ROOT = Path(__file__).resolve().parents[1] / "conformance"
SEED3 = ROOT / "seed" / "seed-03-h100-else-a100-one-free-a100.yaml"
SEED8 = ROOT / "seed" / "seed-08-mig-disabled-node.yaml"
SEED9 = ROOT / "seed" / "seed-09-taint-rule-noschedule.yaml"
ERROR38 = ROOT / "random" / "s1-0038-error.yaml"


def drasim(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "drasim.cli.main", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def objects_file(tmp_path: Path, scenario: Path) -> Path:
    """The scenario's objects as a plain multi-document manifest (what `-f` reads)."""
    objs = yaml.safe_load(scenario.read_text())["objects"]
    out = tmp_path / "cluster.yaml"
    out.write_text(yaml.safe_dump_all(objs))
    return out


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(explain, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_claim_from_files_table(tmp_path: Path) -> None:
    code, out = run("claim", "default/two-mig-slices", "-f", str(objects_file(tmp_path, SEED8)))
    assert code == 0, out
    assert "Claim default/two-mig-slices (pending)" in out
    assert "allocator: unsatisfiable" in out
    assert "4 class selector false" in out
    assert "hint [mig-disabled]: MIG mode is off or not configured on these GPUs" in out
    assert "\x1b[" not in out  # no colour when not on a terminal


def test_bare_name_resolves_and_json_output(tmp_path: Path) -> None:
    code, out = run("claim", "h100-else-a100", "-f", str(objects_file(tmp_path, SEED3)), "-o", "json")
    assert code == 0, out
    data = json.loads(out)
    assert data["kind"] == "ClaimExplanation" and data["claim"] == "default/h100-else-a100"
    alts = data["groups"][0]["claims"][0]["requests"][0]["alternatives"]
    assert [a["name"] for a in alts] == ["gpu/h100", "gpu/a100-pair"]
    assert data["alternatives"] == {"gpu/h100": [], "gpu/a100-pair": []}
    assert [h["code"] for h in data["groups"][0]["hints"]] == ["no-preemption"]


def test_wide_shows_examples_and_features(tmp_path: Path) -> None:
    code, out = run("claim", "default/h100-else-a100", "-f", str(objects_file(tmp_path, SEED3)), "-o", "wide")
    assert code == 0, out
    assert "allocator features: AdminAccess" in out
    assert "e.g. gpu.nvidia.com/a100-40g-03/gpu-0 (ml-team/training-job-7)" in out


def test_scenario_step_and_kubernetes_version() -> None:
    code, out = run("--scenario", str(SEED9), "--step", "3")
    assert code == 0, out
    assert "Scenario seed-09-taint-rule-noschedule, step 3" in out
    assert "1 taint not tolerated" in out
    # 1.34 has no device taints: the tainted GPU is usable and the claim fits.
    code, out = run("--scenario", str(SEED9), "--step", "3", "--kubernetes-version", "1.34")
    assert code == 0, out
    assert "allocator: allocated" in out and "taint not tolerated" not in out


def test_scenario_claim_in_a_later_step_sees_earlier_allocations() -> None:
    seed4 = ROOT / "seed" / "seed-04-h100-else-a100-fill-mixed-node.yaml"
    code, out = run("--scenario", str(seed4), "--step", "6", "-o", "json")
    assert code == 0, out
    data = json.loads(out)
    assert data["groups"][0]["verdict"]["status"] == "unsatisfiable"
    reasons = {e["reason"] for c in data["groups"][0]["claims"] for r in c["requests"]
               for a in r["alternatives"] for e in a["excluded"]}
    assert "in-use" in reasons


def test_cel_error_explained_not_a_failure() -> None:
    code, out = run("--scenario", str(ERROR38))
    assert code == 0, out
    assert "allocator: error: class gpu.nvidia.com: selector #0: CEL runtime error: no such key: type" in out
    assert "hint [missing-attribute]" in out


def test_pod_from_stdin() -> None:
    objs = yaml.safe_load(SEED8.read_text())["objects"]
    objs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer", "namespace": "default"},
                 "spec": {"containers": [{"name": "c"}],
                          "resourceClaims": [{"name": "gpu", "resourceClaimName": "one-gpu"}]}})
    proc = drasim("explain", "pod", "default/trainer", "-f", "-", stdin=yaml.safe_dump_all(objs))
    assert proc.returncode == 0, proc.stderr
    assert "Pod default/trainer" in proc.stdout
    # The scenario's Node reports no allocatable pods: the scheduler's NodeResourcesFit rejects it, as
    # `simulate` says, and explain says so too (it runs the scheduler's own filters).
    assert "pod claim gpu: default/one-gpu (pending)" in proc.stdout
    assert "NodeResourcesFit: Too many pods" in proc.stdout
    assert "allocatable on 0 of 0 node(s)" in proc.stdout
    for obj in objs:
        if obj["kind"] == "Node":
            obj["status"] = {"allocatable": {"pods": "110"}}
    proc = drasim("explain", "pod", "default/trainer", "-f", "-", stdin=yaml.safe_dump_all(objs))
    assert proc.returncode == 0, proc.stderr
    # Simulated first: the pod got its GPU, and explain replays that allocation.
    assert "pod claim gpu: default/one-gpu (allocated)" in proc.stdout
    assert "allocatable on 1 of 1 node(s)" in proc.stdout


def test_exit_code_2_for_bad_input_and_missing_objects(tmp_path: Path) -> None:
    cluster = objects_file(tmp_path, SEED8)
    proc = drasim("explain", "claim", "default/nope", "-f", str(cluster))
    assert proc.returncode == 2 and "resourceclaim default/nope not found" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = drasim("explain", "pod", "default/nope", "-f", str(cluster))
    assert proc.returncode == 2 and "pod default/nope not found" in proc.stderr
    proc = drasim("explain", "claim", "default/one-gpu", "-f", str(cluster), "--node", "elsewhere")
    assert proc.returncode == 2 and "node elsewhere not found" in proc.stderr
    proc = drasim("explain", "claim", "x", "-f", str(tmp_path / "missing.yaml"))
    assert proc.returncode == 2 and "no such file or directory" in proc.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: ResourceClaim\napiVersion: resource.k8s.io/v1\nmetadata: {name: x}\nspec: [1]\n")
    proc = drasim("explain", "claim", "x", "-f", str(bad))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    proc = drasim("explain", "--scenario", str(SEED8), "--step", "9")
    assert proc.returncode == 2 and "the scenario has steps 1 to 2" in proc.stderr
    proc = drasim("explain")  # explain what?
    assert proc.returncode == 2 and "pod/NAME" in proc.stderr
    proc = drasim("explain", "claim", "x")  # without -f: the bundled demo, which has no claim x
    assert proc.returncode == 2 and "resourceclaim x not found" in proc.stderr


def test_without_files_the_bundled_demo_is_explained() -> None:
    # As `simulate` and `capacity` do: the demo's high-priority pod waits for devices its peers hold.
    proc = drasim("explain", "pod/urgent-training", "-n", "default")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # the demo is read at its own profile: no warning about drasim's own files
    assert "Pod default/urgent-training" in proc.stdout and "no-preemption" in proc.stdout


def test_extended_resource_pod_explained_through_its_claim() -> None:
    # The demo's `nvidia.com/gpu: 2` pod got its GPUs through a DeviceClass extendedResourceName: explain
    # replays the claim the scheduler made for it on its node, named with what the pod asked for.
    code, out = run("pod/legacy-gpu", "-n", "default", "-o", "json")
    assert code == 0, out
    data = json.loads(out)
    (pc,) = data["claims"]
    assert pc["name"] == "(extended resources)" and pc["state"] == "allocated"
    assert pc["extended"] == ["nvidia.com/gpu: 2"] and pc["claim"].startswith("default/legacy-gpu-")
    node = data["placement"]["node"]
    assert data["summary"] == {"nodes": 1, "allocatableNodes": [node]}
    assert len(data["groups"][0]["verdict"]["devices"]) == 2
    code, out = run("pod/legacy-gpu", "-n", "default")
    assert code == 0 and "(allocated) for nvidia.com/gpu: 2" in out, out
    assert f"allocatable on 1 of 1 node(s): {node}" in out


def test_cluster_dump_as_a_json_list(tmp_path: Path) -> None:
    objs = yaml.safe_load(SEED3.read_text())["objects"]
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    code, out = run("claim", "default/h100-else-a100", "-f", str(dump), "--node", "a100-40g-03")
    assert code == 0, out
    assert "Node a100-40g-03" in out and "gpu/a100-pair" in out
