"""Small versions of the workload shapes users have, as input folders for `drasim simulate` (golden outputs)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

import drasim
from drasim.cli.main import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import inputs

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "src/drasim/demo/workloads.yaml"
FORMATS = ("table", "wide", "json", "yaml")


def _write(path: Path, docs: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def _deployment(name: str, replicas: int, spec: dict[str, Any], labels: dict[str, str] | None = None,
                namespace: str = "default") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": namespace},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name, **(labels or {})}}, "spec": spec}}}


def _h100_else_a100(folder: Path) -> Path:
    folder.mkdir()
    result = CliRunner().invoke(cli, ["fleet", "--nodes", "h100:4", "--nodes", "a100-80gb:5", "--gpus-per-node", "4",
                                      "--output-dir", str(folder / "fleet")])
    assert result.exit_code == 0, result.output
    template = next(d for d in yaml.safe_load_all(SEED.read_text())
                    if d and d.get("kind") == "ResourceClaimTemplate" and d["metadata"]["name"] == "h100-else-a100")
    spec = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "h100-else-a100"}],
            "containers": [{"name": "server", "image": "llm:1", "resources": {
                "requests": {"cpu": "4", "memory": "32Gi"}, "claims": [{"name": "gpu"}]}}]}
    docs = [template, _deployment("big", 12, spec)]
    docs += [_deployment(f"small-{i}", 2 + i % 3, spec, {"tier": "inference"}) for i in range(8)]
    _write(folder / "workloads.yaml", docs)
    return folder


def _spread(folder: Path) -> Path:
    """Zones, taints, affinity and topology spread (own constraints and the owner's default ones)."""
    folder.mkdir()
    docs: list[dict[str, Any]] = inputs._scheduler_perf_docs(0, 0, 0)
    for n in range(18):
        name = f"node-{n:02d}"
        node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": f"zone-{n % 3}",
            "pool": "big" if n % 4 == 0 else "small"}},
            "status": {"allocatable": {"cpu": str(4 + n % 5), "memory": "32Gi", "pods": "110"}}}
        if n % 6 == 5:
            node["spec"] = {"taints": [{"key": "dedicated", "value": "batch", "effect": "PreferNoSchedule"}]}
        docs.append(node)
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-s"},
                     "spec": {"driver": inputs.DRIVER, "nodeName": name,
                              "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                              "devices": [{"name": f"device-{d}"} for d in range(3)]}})
    claim = {"resourceClaims": [{"name": "resource", "resourceClaimTemplateName": "test-claim-template"}]}

    def spec(cpu: str, **extra: Any) -> dict[str, Any]:
        return {**claim, **extra, "containers": [{"name": "c", "image": "i", "resources": {
            "requests": {"cpu": cpu}, "claims": [{"name": "resource"}]}}]}

    for i in range(6):
        docs.append(_deployment(f"plain-{i}", 3, spec("500m"), {"tier": "web"}))
    for i in range(3):
        docs.append(_deployment(f"zoned-{i}", 4, spec("1", topologySpreadConstraints=[
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": f"zoned-{i}"}}},
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
             "labelSelector": {"matchLabels": {"tier": "zoned"}}}]), {"tier": "zoned"}))
    for i in range(3):
        docs.append(_deployment(f"picky-{i}", 3, spec("1", affinity={"nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "preference": {"matchExpressions": [
                    {"key": "pool", "operator": "In", "values": ["big"]}]}}]}},
            tolerations=[{"key": "dedicated", "operator": "Exists"}])))
    docs.append(_deployment("pinned", 4, spec("2", nodeSelector={"topology.kubernetes.io/zone": "zone-1"}),
                            namespace="team-a"))
    docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                 "metadata": {"name": "test-claim-template", "namespace": "team-a"},
                 "spec": {"spec": {"devices": {"requests": [{"name": "req-0", "exactly": {
                     "deviceClassName": "test-class"}}]}}}})
    _write(folder / "all.yaml", docs)
    return folder


def build(tmp: Path) -> dict[str, list[str]]:
    """Shape name -> the `drasim simulate` arguments that read it (folders written under `tmp`)."""
    one = inputs.deployments(tmp / "one.yaml", groups=1, replicas=120, nodes=20, devices=5)
    many = inputs.deployments(tmp / "many.yaml", groups=24, replicas=5, nodes=20, devices=5)
    loose = inputs.scheduler_perf(tmp / "pods.yaml", pods=110, nodes=20, devices=5)
    return {
        "one-deployment": ["-f", str(one)],
        "many-deployments": ["-f", str(many)],
        "many-deployments-seed-7": ["-f", str(many), "--seed", "7"],
        "bare-pods": ["-f", str(loose)],
        "h100-else-a100": ["-f", str(_h100_else_a100(tmp / "seed"))],
        "spread-affinity": ["-f", str(_spread(tmp / "spread"))],
        "demo": [],
        "realworld-example-driver": ["-f", str(ROOT / "tests/realworld/dra-example-driver")],
    }


def outputs(tmp: Path) -> dict[str, str]:
    """'shape -o format' -> exit code and output of `drasim simulate`."""
    return {f"{name} -o {fmt}": run(tmp, args, fmt) for name, args in build(tmp).items() for fmt in FORMATS}


def run(tmp: Path, args: list[str], fmt: str) -> str:
    """Exit code and output of `drasim simulate ARGS -o FMT`, paths (which differ between checkouts) replaced."""
    result = CliRunner().invoke(cli, ["simulate", *args, "-o", fmt])
    text = f"exit {result.exit_code}\n{result.output}"
    return text.replace(str(tmp), "<tmp>").replace(str(Path(drasim.__file__).parent), "<drasim>").replace(
        str(ROOT), "<root>")
