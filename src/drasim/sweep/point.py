"""One sweep point, from plain data (strings and numbers) to its figures: what a worker process runs."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from drasim.api.core import Deployment, ReplicaSet, StatefulSet
from drasim.api.profile import profile_for
from drasim.cluster import ClusterState
from drasim.errors import InputError
from drasim.fleet.generate import generate_fleet, parse_node_spec
from drasim.sim.engine import SimulationOptions, simulate
from drasim.sim.report import pod_lines
from drasim.sim.timeline import is_timeline, parse_duration, parse_timeline, resolve_files
from drasim.sim.usage import idle_units
from drasim.sources.files import load_bytes
from drasim.sweep.spec import Sweep, no_timeline_files
from drasim.validation.admission import Submitted, admit

# Figures every point has; per workload `placed:NAME` and `first_choice:NAME` follow.
FIGURES = ("pods", "placed", "pending", "devices", "idle_devices")


def payload(sweep: Sweep, point: dict[str, Any]) -> dict[str, Any]:
    """What a worker needs for `point`: text and numbers only (no compiled objects)."""
    return {
        "version": sweep.version, "gpus": sweep.gpus_per_node, "horizon": sweep.horizon,
        "fleet": [[f.nodes, point[f.axis]] for f in sweep.fleet],
        "workloads": [list(w) for w in sweep.workloads],
        "replicas": {name: point[f"replicas:{name}"] for name in sweep.replicas},
        "order": point["order"], "seed": point["seed"],
    }


def _first_choice(state: ClusterState, pod: Any) -> bool:
    """Whether every firstAvailable request of the pod's claims got its first alternative."""
    for _name, claim in state.pod_claims(pod):
        if claim is None or claim.status is None or claim.status.allocation is None:
            continue
        firsts = {r.name: r.first_available[0].name for r in claim.spec.devices.requests if r.first_available}
        for result in claim.status.allocation.devices.results:
            req, _, sub = result.request.partition("/")
            if sub and firsts.get(req) not in (None, sub):
                return False
    return True


def run_point(data: dict[str, Any]) -> dict[str, Any]:
    """Simulate one point and return its figures (ints, and shares as floats rounded to 6 places)."""
    specs = [replace(parse_node_spec(f"{nodes}:1", gpus_per_node=data["gpus"]), count=count)
             for nodes, count in data["fleet"] if count > 0]
    objects: list[Any] = list(generate_fleet(specs, seed=data["seed"]).objects) if specs else []
    profile = profile_for(data["version"])
    submitted: list[Submitted] = []
    unserved: list[tuple[str, str, str, str]] = []
    timelines = []
    for name, text in data["workloads"]:
        decoded = load_bytes(text.encode(), source=name)
        submitted += [Submitted(o, name, v) for o, v in zip(decoded.objects, decoded.api_versions, strict=True)]
        unserved += [(name, *u) for u in decoded.unserved]
        timelines += [resolve_files(parse_timeline(doc, source=name, where=where), _no_files)
                      for where, doc in decoded.own if is_timeline(doc)]
    # The workloads go through the API server's admission of the point's release, as every command's inputs.
    admission = admit(submitted, profile, unserved=unserved, owned=True)
    rejected = admission.errors()
    if rejected:
        source, finding = rejected[0]
        raise InputError(f"the API server of {profile.describe()} would reject it: {finding}",
                         source=source, obj=finding.obj or None)
    workload_objects: list[Any] = list(admission.objects)
    wanted = dict(data["replicas"])
    for obj in workload_objects:
        if isinstance(obj, Deployment | ReplicaSet | StatefulSet) and obj.metadata.name in wanted:
            obj.spec.replicas = wanted.pop(obj.metadata.name)
    if wanted:
        raise InputError(f"replicas: no Deployment, ReplicaSet or StatefulSet named {', '.join(sorted(wanted))} "
                         "in the workload files", path="spec.replicas")
    if data["order"] == "reversed":
        workload_objects.reverse()
    elif data["order"] == "shuffled":
        random.Random(data["seed"]).shuffle(workload_objects)
    options = SimulationOptions.for_profile(profile, seed=data["seed"],
                                            horizon=parse_duration(data["horizon"]))
    result = simulate([*objects, *workload_objects], timelines, options, owned=True)
    lines = pod_lines(result)
    idle, total = idle_units(result.state)
    figures: dict[str, Any] = {
        "pods": len(lines), "placed": sum(1 for line in lines if line.node),
        "pending": sum(1 for line in lines if line.status == "Pending"), "devices": total, "idle_devices": idle,
    }
    per: dict[str, list[int]] = {}
    for line in lines:
        if not line.workload or line.status in ("Deleted", "Evicted"):
            continue
        name = line.workload.split("/", 1)[1]
        counts = per.setdefault(name, [0, 0, 0])
        counts[0] += 1
        pod = result.state.pods.get(line.key)
        if line.node and pod is not None:
            counts[1] += 1
            counts[2] += _first_choice(result.state, pod)
    for name in sorted(per):
        replicas, placed, first = per[name]
        figures[f"placed:{name}"] = placed
        figures[f"first_choice:{name}"] = round(first / replicas, 6) if replicas else 0.0
    return figures


def _no_files(path: str) -> list[Any]:
    raise InputError(no_timeline_files(path))
