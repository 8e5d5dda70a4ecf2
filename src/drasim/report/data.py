"""What the HTML report shows, collected from a finished simulation as plain data (JSON-able)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from drasim.api.quantity import Quantity
from drasim.cluster import Key
from drasim.explain import explain_pod
from drasim.sim.engine import SimulationResult
from drasim.sim.groups import group_lines
from drasim.sim.report import PodLine, mix_label, pod_lines, workload_mix
from drasim.sim.usage import Unit, node_units

# Events every placement (or failed attempt: the pending section has those) produces; the timeline counts them
# instead of listing them.
ROUTINE = frozenset({"Scheduled", "CreatedResourceClaim", "ReservationAdded", "Created", "SuccessfulCreate",
                     "FailedScheduling"})
# Explain runs once per group of pending pods with the same workload and message, for this many groups.
MAX_EXPLAINED = 20
# Listed per workload (the mix bar counts them all), and notable events listed on the timeline.
MAX_REPLICAS_LISTED = 1000
MAX_EVENTS_LISTED = 500
IDLE = "(idle)"
# Distinct, colour-blind-friendly first colours (Okabe-Ito, then Tableau); later workloads get generated hues.
PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#4e79a7",
           "#59a14f", "#b07aa1", "#ff9da7", "#9c755f", "#edc948", "#76b7b2"]


def colour(i: int) -> str:
    """The i-th workload colour: the palette, then hues spaced by the golden angle."""
    if i < len(PALETTE):
        return PALETTE[i]
    return f"hsl({(i * 137.508) % 360:.1f}, 55%, 50%)"


@dataclass
class Replica:
    pod: str
    status: str
    node: str
    alternatives: str
    devices: str


@dataclass
class WorkloadView:
    name: str
    colour: str
    replicas: int
    placed: int
    mix: list[tuple[str, int]]  # alternative label -> replicas, most first
    units: int = 0  # physical units it holds (partially or whole)
    listed: list[Replica] = field(default_factory=list)


@dataclass
class PendingGroup:
    workload: str
    message: str
    pods: list[str]
    hints: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    problems: list[str] = field(default_factory=list)


@dataclass
class TimelineEvent:
    seconds: float
    kind: str
    obj: str
    reason: str
    message: str


@dataclass
class ReportData:
    title: str
    subtitle: str
    summary: dict[str, int]
    workloads: list[WorkloadView]
    # Node groups: label -> node indices; nodes: name + units in the compact shape the page script reads.
    groups: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    pending: list[PendingGroup]
    rejected: list[dict[str, str]]
    events: list[TimelineEvent]
    events_total: int
    scheduled_at: list[float]  # seconds of each placement (the timeline's histogram)
    end_seconds: float
    pod_groups: list[str] = field(default_factory=list)  # one line per PodGroup (sim.groups), as simulate prints


def _workload_of(line: PodLine) -> str:
    if line.workload:
        return line.workload
    ns, name = line.key
    return f"Pod/{name}" if ns == "default" else f"Pod/{ns}/{name}"


def _fmt(value: Fraction) -> str:
    """Counters as Kubernetes prints quantities (`14720Mi`, `42`)."""
    if value.denominator == 1:
        return Quantity.from_int(value.numerator, "BinarySI").canonical()
    return f"{float(value):g}"


def _unit_view(unit: Unit, owners: dict[Key, int], names: list[str]) -> list[Any]:
    """[name, label, slots, counter text, parts, devices, slots used]; a part is [device, workload index, start, size,
    request]. The page script draws it (see html.SCRIPT)."""
    parts = []
    for p in unit.parts:
        w = owners.get(p.claim)
        if w is None:
            w = owners[p.claim] = len(names)
            names.append(f"ResourceClaim/{p.claim[1]}")
        start, size = (p.slots[0], len(p.slots)) if p.slots else (-1, 0)
        parts.append([p.device, w, start, size, p.request])
    counters = "; ".join(f"{n} {_fmt(u)}/{_fmt(t)}" for n, (u, t) in sorted(unit.counters.items())
                         if not n.startswith("memory-slice-"))
    use = unit.slot_use()
    if use is not None:
        counters = f"memory slices {use[0]}/{use[1]}" + (f"; {counters}" if counters else "")
    return [unit.name.removesuffix("-counter-set"), unit.label, unit.slots, counters, parts, unit.devices,
            use[0] if use else 0]


def _rejected(result: SimulationResult) -> list[dict[str, str]]:
    """Objects the admission path turned away: object, file, field path and the API server's message."""
    return [{"object": f.obj, "source": source, "path": f.path, "message": f.body()} for source, f in result.rejected]


def _seconds(result: SimulationResult, when: datetime) -> float:
    return (when - result.start).total_seconds()


def collect(result: SimulationResult, *, title: str = "drasim simulation", subtitle: str = "",
            explain: bool = True) -> ReportData:
    """Everything the report draws. `explain=False` skips explain's hints for pending pods."""
    state = result.state
    lines = pod_lines(result)
    # Workloads in name order get the colours; claims map to the workload of the pod holding them.
    workload_names = sorted({_workload_of(line) for line in lines if line.node or line.status == "Pending"})
    owners: dict[Key, int] = {}
    index = {n: i for i, n in enumerate(workload_names)}
    for line in lines:
        w = index.get(_workload_of(line))
        if w is None:
            continue
        for c in line.claims:
            if c.claim:
                ns, _, name = c.claim.partition("/")
                owners[(ns, name)] = w
    units = node_units(state)
    names = list(workload_names)
    nodes: list[dict[str, Any]] = []
    groups: dict[str, list[int]] = {}
    held: Counter[int] = Counter()
    for name in [*state.nodes, *(n for n in units if n not in state.nodes)]:
        views = [_unit_view(u, owners, names) for u in units.get(name, [])]
        for v in views:
            for w in {p[1] for p in v[4]}:
                held[w] += 1
        shape = Counter(v[1] for v in views)
        label = " + ".join(f"{n} × {lbl}" for lbl, n in sorted(shape.items())) or "no devices"
        groups.setdefault(label, []).append(len(nodes))
        nodes.append({"n": name, "u": views})
    mixes = {m.workload: m for m in workload_mix(lines)}
    by_workload: dict[str, list[PodLine]] = {}
    for line in lines:
        by_workload.setdefault(_workload_of(line), []).append(line)
    workloads: list[WorkloadView] = []
    for i, name in enumerate(names):
        wl = by_workload.get(name, [])
        live = [line for line in wl if line.status not in ("Deleted", "Evicted")]
        mix = mixes.get(name)
        counts = sorted(mix.mix.items(), key=lambda kv: (-kv[1], kv[0])) if mix else []
        if mix is None:
            placed_lines = [line for line in live if line.node]
            counts = sorted(Counter(mix_label(line.claims) for line in placed_lines).items(),
                            key=lambda kv: (-kv[1], kv[0]))
        view = WorkloadView(name=name, colour=colour(i), replicas=len(live),
                            placed=sum(1 for line in live if line.node), mix=counts, units=held[i])
        for line in wl[:MAX_REPLICAS_LISTED]:
            view.listed.append(Replica(
                pod=f"{line.key[0]}/{line.key[1]}", status=line.status, node=line.node or "",
                alternatives=", ".join(sorted({a for c in line.claims for a in c.alternatives})),
                devices=" ".join([*(d.split("/", 1)[-1] for c in line.claims for d in c.devices),
                                  *(f"(node {c.node_resources})" for c in line.claims if c.node_resources)])))
        workloads.append(view)
    pending: dict[tuple[str, str], PendingGroup] = {}
    for line in lines:
        if line.status == "Pending":
            g = pending.setdefault((_workload_of(line), line.reason),
                                   PendingGroup(workload=_workload_of(line), message=line.reason, pods=[]))
            g.pods.append(f"{line.key[0]}/{line.key[1]}")
    if explain:
        for g in list(pending.values())[:MAX_EXPLAINED]:
            ns, _, name = g.pods[0].partition("/")
            ex = explain_pod(state, (ns, name))
            seen: set[tuple[str, str]] = set()
            for hint in [*ex.hints, *(h for grp in ex.groups for h in grp.hints)]:
                if (hint.code, hint.message) not in seen:
                    seen.add((hint.code, hint.message))
                    g.hints.append((hint.code, hint.message))
            g.problems = list(ex.problems)
    notable = [e for e in result.events if e.reason not in ROUTINE]
    events = [TimelineEvent(_seconds(result, e.time), e.kind, e.object, e.reason, e.message)
              for e in notable[:MAX_EVENTS_LISTED]]
    scheduled = [_seconds(result, e.time) for e in result.events if e.reason == "Scheduled"]
    all_units = [v for node in nodes for v in node["u"]]
    summary = {
        "pods": len(lines), "placed": sum(1 for line in lines if line.node),
        "pending": sum(1 for line in lines if line.status == "Pending"),
        "nodes": len(state.nodes), "units": len(all_units), "busy": sum(1 for v in all_units if v[4]),
        "workloads": len(workload_names),
    }
    return ReportData(
        title=title, subtitle=subtitle, summary=summary, workloads=workloads,
        groups=[{"label": label, "nodes": idx} for label, idx in sorted(groups.items(), key=lambda kv: kv[0])],
        nodes=nodes, pending=list(pending.values()), rejected=_rejected(result), events=events,
        events_total=len(notable), scheduled_at=scheduled, end_seconds=_seconds(result, result.end),
        pod_groups=[g.line() for g in group_lines(result)])
