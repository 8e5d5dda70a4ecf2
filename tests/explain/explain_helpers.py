"""Building cluster states for explain tests from plain dicts and conformance scenario files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from drasim.allocator import Allocator, Features
from drasim.api.decode import decode_documents
from drasim.api.defaults import apply_claim_defaults
from drasim.api.resource import ResourceClaim
from drasim.cli.explain import _scenario_state
from drasim.cluster import ClusterState, Key
from drasim.explain import Explanation
from drasim.explain.model import AlternativeReport, ReasonCount
from drasim.sources.scenario import load_scenario

CONFORMANCE = Path(__file__).resolve().parents[1] / "conformance"
SEED = CONFORMANCE / "seed"
DRIVER = "gpu.example.com"


def state_of(docs: list[dict[str, Any]], features: Features | None = None) -> ClusterState:
    objs = decode_documents(docs, source="test").objects
    objs = [apply_claim_defaults(o) if isinstance(o, ResourceClaim) else o for o in objs]
    return ClusterState.from_objects(objs, features=features or Features())


def scenario(name: str, step: int = 1) -> tuple[ClusterState, list[Key], str]:
    path = next(p for p in CONFORMANCE.rglob("*.yaml") if p.stem == name)
    return _scenario_state(load_scenario(str(path)), step, None)


def alt(ex: Explanation, name: str, group: int = 0, claim: int = 0) -> AlternativeReport:
    for req in ex.groups[group].claims[claim].requests:
        for a in req.alternatives:
            if a.name == name:
                return a
    raise KeyError(name)


def reason(a: AlternativeReport, code: str) -> ReasonCount:
    hits = [r for r in a.excluded if r.reason == code]
    assert hits, f"no {code} in {[r.reason for r in a.excluded]}"
    return hits[0]


def real_verdict(state: ClusterState, node: str, keys: list[Key]) -> Any:
    """What the allocator itself says (None, results, or the error text)."""
    allocator = Allocator(state.features, state.in_use, state.classes, state.slice_cache())
    try:
        return allocator.allocate(state.nodes[node], [state.claims[k] for k in keys])
    except Exception as err:  # compared by text
        return str(err)


# --- small object builders ---------------------------------------------------------------------


def node(name: str, **labels: str) -> dict[str, Any]:
    # A kubelet reports what the node can hold: without it the scheduler's NodeResourcesFit rejects every pod.
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"allocatable": {"pods": "110", "cpu": "64", "memory": "512Gi"}}}


def device_class(name: str = "gpu", expression: str = f'device.driver == "{DRIVER}"') -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def gpu(name: str, model: str = "a100", *, attrs: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    dev: dict[str, Any] = {"name": name, "attributes": {"model": {"string": model}, **(attrs or {})}}
    dev.update(extra)
    return dev


def slice_(name: str, node_name: str | None, devices: list[dict[str, Any]], *, pool: str | None = None,
           generation: int = 1, count: int = 1, **spec: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"driver": DRIVER, "pool": {"name": pool or node_name or name, "generation": generation,
                                                   "resourceSliceCount": count}, "devices": devices}
    if node_name:
        s["nodeName"] = node_name
    s.update(spec)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": s}


def claim(name: str, requests: list[dict[str, Any]], *, ns: str = "default", constraints: list[Any] | None = None,
          allocated: list[tuple[str, str, str]] | None = None, **meta: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                           "metadata": {"name": name, "namespace": ns, **meta},
                           "spec": {"devices": {"requests": requests, "constraints": constraints or []}}}
    if allocated:
        obj["status"] = {"allocation": {"devices": {"results": [
            {"request": r, "driver": DRIVER, "pool": p, "device": d} for r, p, d in allocated]}}}
    return obj


def exact(name: str, cls: str = "gpu", count: int = 1, **fields: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": cls, "count": count, **fields}}
