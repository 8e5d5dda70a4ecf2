"""The sweep file (`kind: Sweep`): fleet node groups, replica counts, arrival orders and seeds -> grid points."""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, field
from typing import Any

from drasim import DEFAULT_KUBERNETES_VERSION
from drasim.api.core import Deployment, ReplicaSet, StatefulSet
from drasim.api.profile import SIMULATED
from drasim.errors import InputError
from drasim.fleet.generate import MAX_FLEET_NODES, fleet_too_big, parse_node_spec
from drasim.sim.timeline import Apply, is_timeline, parse_timeline
from drasim.sim.workloads import MAX_WORKLOAD_PODS
from drasim.sources.files import decode_text, load_bytes, parse_yaml, read_input

ORDERS = ("as-written", "reversed", "shuffled")
# Every point is a whole simulation (0.05 s for a few nodes, seconds for hundreds): a grid beyond this is
# refused up front instead of listing its points until memory runs out.
MAX_POINTS = 100_000
_SPEC_KEYS = {"kubernetesVersion", "gpusPerNode", "fleet", "workloads", "replicas", "orders", "seeds", "chart",
              "horizon"}


@dataclass(frozen=True)
class FleetAxis:
    """One `drasim fleet --nodes` group; its counts are an axis of the grid (named `axis`)."""

    nodes: str  # MODEL[:MODE] as `drasim fleet --nodes` takes it, without the count
    counts: tuple[int, ...]
    axis: str


@dataclass
class Sweep:
    """A parsed sweep file; the workload files are carried as text (`(name, text)`), ready to ship."""

    source: str
    name: str
    version: str
    gpus_per_node: int | None
    fleet: list[FleetAxis]
    workloads: list[tuple[str, str]]
    replicas: dict[str, tuple[int, ...]]
    orders: tuple[str, ...]
    seeds: tuple[int, ...]
    horizon: str = "168h"
    chart: dict[str, str] = field(default_factory=dict)

    def axes(self) -> list[tuple[str, tuple[Any, ...]]]:
        """Every axis of the grid in column order: fleet groups, replica counts, order, seed."""
        out: list[tuple[str, tuple[Any, ...]]] = [(f.axis, f.counts) for f in self.fleet]
        out += [(f"replicas:{name}", counts) for name, counts in self.replicas.items()]
        return [*out, ("order", self.orders), ("seed", self.seeds)]

    def points(self) -> list[dict[str, Any]]:
        """The grid, first axis slowest; each point maps axis name -> value."""
        axes = self.axes()
        names = [n for n, _ in axes]
        return [dict(zip(names, values, strict=True)) for values in itertools.product(*(v for _, v in axes))]


def _ints(value: Any, where: str, source: str, *, minimum: int = 0) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(i, int) and not isinstance(i, bool) and i >= minimum for i in items):
        raise InputError(f"expected an integer >= {minimum} or a non-empty list of them, got {value!r}",
                         source=source, path=where)
    return tuple(items)


def no_timeline_files(file: str) -> str:
    """Why a sweep's Timeline may not name another file: points run from the workload files' text (on other
    machines too), so nothing else is read; hence no `--load-restrictor` either."""
    return f"a sweep's timelines cannot read other files ({file}); put the objects inline"


def _check_timelines(own: list[tuple[str | None, dict[str, Any]]], source: str) -> None:
    """Refuse, before any point runs, a Timeline among the workloads that applies a `file:`."""
    for where, doc in own:
        if not is_timeline(doc):
            continue
        timeline = parse_timeline(doc, source=source, where=where)
        for event in timeline.events:
            if isinstance(event.action, Apply) and event.action.file is not None:
                raise InputError(no_timeline_files(event.action.file), source=source, obj=timeline.ref,
                                 path=f"{event.path}.file")


def load_sweep(path: str) -> Sweep:
    """Read and check a sweep file; workload paths are relative to the file."""
    try:
        text = decode_text(read_input(path), source=path)
    except InputError as err:
        raise InputError(f"cannot read the sweep file: {err.message}", source=path) from None
    docs = [d for d in parse_yaml(text, source=path) if d is not None]
    if len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("kind") != "Sweep":
        raise InputError("expected one document of kind Sweep (apiVersion drasim.dev/v1alpha1)", source=path)
    doc = docs[0]
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        raise InputError("spec is required and must be a mapping", source=path, path="spec")
    unknown = sorted(set(spec) - _SPEC_KEYS)
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(unknown)}; known: {', '.join(sorted(_SPEC_KEYS))}",
                         source=path, path="spec")
    version = str(spec.get("kubernetesVersion", DEFAULT_KUBERNETES_VERSION))
    if version not in SIMULATED:
        raise InputError(f"unsupported version {version!r}; supported: {', '.join(SIMULATED)}",
                         source=path, path="spec.kubernetesVersion")
    gpus = spec.get("gpusPerNode")
    if gpus is not None:
        gpus = _ints(gpus, "spec.gpusPerNode", path, minimum=1)[0]
    fleet_raw = spec.get("fleet")
    if not isinstance(fleet_raw, list) or not fleet_raw:
        raise InputError("fleet must be a non-empty list of {nodes, counts}", source=path, path="spec.fleet")
    fleet: list[FleetAxis] = []
    for i, item in enumerate(fleet_raw):
        where = f"spec.fleet[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("nodes"), str):
            raise InputError("expected {nodes: MODEL[:MODE], counts: [N, ...]}", source=path, path=where)
        nodes = item["nodes"]
        try:
            parse_node_spec(f"{nodes}:1", gpus_per_node=gpus)
        except InputError as err:
            raise InputError(str(err), source=path, path=f"{where}.nodes") from None
        counts = _ints(item.get("counts", 1), f"{where}.counts", path)
        fleet.append(FleetAxis(nodes=nodes, counts=counts, axis=str(item.get("axis") or nodes)))
    for i, f in enumerate(fleet):  # every point builds its fleet: the largest is refused up front
        if max(f.counts) > MAX_FLEET_NODES:
            raise InputError(fleet_too_big(f"Invalid value: {max(f.counts)}"), source=path,
                             path=f"spec.fleet[{i}].counts")
    if sum(max(f.counts) for f in fleet) > MAX_FLEET_NODES:
        raise InputError(fleet_too_big(f"Invalid value: {sum(max(f.counts) for f in fleet)} (the largest counts "
                                       "summed)"), source=path, path="spec.fleet")
    if len({f.axis for f in fleet}) != len(fleet):
        raise InputError("two fleet groups have the same axis name; set `axis` on one", source=path,
                         path="spec.fleet")
    workloads: list[tuple[str, str]] = []
    base = os.path.dirname(os.path.abspath(path))
    raw_workloads = spec.get("workloads", [])
    if not isinstance(raw_workloads, list):
        raise InputError("expected a list of file names", source=path, path="spec.workloads")
    for i, name in enumerate(raw_workloads):
        file = os.path.join(base, str(name))
        try:  # named by the sweep file, not the user: a regular file only
            workloads.append((str(name), decode_text(read_input(file, named=False), source=file)))
        except InputError as err:
            raise InputError(f"cannot read {file}: {err.message}", source=path, path=f"spec.workloads[{i}]") from None
    replicas_raw = spec.get("replicas", {}) or {}
    if not isinstance(replicas_raw, dict):
        raise InputError("expected a mapping of workload name -> counts", source=path, path="spec.replicas")
    replicas = {str(k): _ints(v, f"spec.replicas.{k}", path) for k, v in replicas_raw.items()}
    for k, counts in replicas.items():
        if max(counts) > MAX_WORKLOAD_PODS:
            raise InputError(f"Invalid value: {max(counts)}: drasim creates and simulates every pod and takes at "
                             f"most {MAX_WORKLOAD_PODS:,} pods from workloads", source=path, path=f"spec.replicas.{k}")
    names: set[str] = set()
    for name, text in workloads:
        decoded = load_bytes(text.encode(), source=path)
        names |= {o.metadata.name for o in decoded.objects if isinstance(o, Deployment | ReplicaSet | StatefulSet)}
        _check_timelines(decoded.own, os.path.join(base, name))
    missing = sorted(set(replicas) - names)
    if missing:
        raise InputError(f"no Deployment, ReplicaSet or StatefulSet named {', '.join(missing)} in the workload "
                         "files", source=path, path="spec.replicas")
    orders = tuple(spec.get("orders", ["as-written"]))
    bad = [o for o in orders if o not in ORDERS]
    if bad or not orders:
        raise InputError(f"orders must be a non-empty list of {', '.join(ORDERS)}; got {bad or orders}",
                         source=path, path="spec.orders")
    seeds = _ints(spec.get("seeds", [0]), "spec.seeds", path)
    chart = spec.get("chart", {}) or {}
    if not isinstance(chart, dict) or not set(chart) <= {"figure", "axis"}:
        raise InputError("chart takes {figure, axis}", source=path, path="spec.chart")
    meta = doc.get("metadata") or {}
    sizes = [len(f.counts) for f in fleet] + [len(c) for c in replicas.values()] + [len(orders), len(seeds)]
    if math.prod(sizes) > MAX_POINTS:
        raise InputError(f"the grid has {math.prod(sizes):,} points ({' x '.join(map(str, sizes))}); a sweep runs at "
                         f"most {MAX_POINTS:,}", source=path, path="spec")
    return Sweep(source=path, name=str(meta.get("name", "sweep")) if isinstance(meta, dict) else "sweep",
                 version=version, gpus_per_node=gpus, fleet=fleet, workloads=workloads, replicas=replicas,
                 orders=orders, seeds=seeds, horizon=str(spec.get("horizon", "168h")),
                 chart={str(k): str(v) for k, v in chart.items()})
