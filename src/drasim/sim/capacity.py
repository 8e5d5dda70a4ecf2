"""How many more replicas of a pod or workload fit: added one at a time to a finished simulation, each one
scheduled by the same engine, scheduler and allocator, until one fails (cluster-capacity's loop, with DRA)."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from drasim.api.core import Deployment, Job, Pod, ReplicaSet, StatefulSet
from drasim.cluster import Key
from drasim.errors import InputError
from drasim.sim.engine import Simulation, SimulationOptions
from drasim.sim.report import claim_lines, mix_label
from drasim.sim.timeline import Apply, Timeline, execute

WORKLOAD_KINDS = (Pod, Deployment, ReplicaSet, StatefulSet, Job)
DEFAULT_MAX = 1000


@dataclass
class CapacityResult:
    """`replicas` more fit; `by_alternative` says through which alternatives; `stop_reason` why it stopped."""

    replicas: int
    by_alternative: dict[str, int]
    stop_reason: str  # "Unschedulable" (or the scheduler's status) | "MaxReplicas"
    message: str = ""  # the scheduler's message for the replica that failed
    failed_pod: str | None = None
    placements: list[tuple[str, str, str]] = field(default_factory=list)  # (pod, node, alternative)

    def to_dict(self) -> dict[str, Any]:
        return {"replicas": self.replicas, "byAlternative": dict(self.by_alternative),
                "stopReason": self.stop_reason, "message": self.message, "failedPod": self.failed_pod}

    def summary(self, max_replicas: int) -> str:
        via = ", ".join(f"{n} via {alt}" for alt, n in self.by_alternative.items())
        head = f"{self.replicas} more replica{'s' if self.replicas != 1 else ''} fit"
        head += f": {via}" if via else ""
        if self.stop_reason == "MaxReplicas":
            return f"{head}; stopped at --max {max_replicas}"
        return f"{head}; the {_ordinal(self.replicas + 1)} fails: {self.message}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def split_workload(objects: Sequence[Any], source: str = "--workload") -> tuple[Any, list[Any]]:
    """The one Pod or workload to replicate, and the objects it needs (claim templates, claims...)."""
    subjects = [o for o in objects if isinstance(o, WORKLOAD_KINDS)]
    if len(subjects) != 1:
        found = ", ".join(f"{o.kind}/{o.metadata.name}" for o in subjects) or "none"
        raise InputError(f"expected exactly one Pod, Deployment, ReplicaSet, StatefulSet or Job, found {found}",
                         source=source)
    return subjects[0], [o for o in objects if o is not subjects[0]]


def _replica(subject: Any, base: int, i: int, taken: dict[Key, Any]) -> Any:
    """The object to apply for the i-th extra replica (1-based); a pod gets the first free `<name>-<n>`."""
    obj = copy.deepcopy(subject)
    if isinstance(obj, Pod):
        stem = obj.metadata.name or (obj.metadata.generate_name or "pod").rstrip("-")
        ns = obj.metadata.namespace or "default"
        n = i
        while (ns, f"{stem}-{n}") in taken:
            n += 1
        obj.metadata.name = f"{stem}-{n}"
        obj.metadata.generate_name = None
        obj.metadata.uid = None
        return obj
    if isinstance(obj, Job):
        obj.spec.parallelism = obj.spec.completions = base + i
    else:
        obj.spec.replicas = base + i
    return obj


def _base_replicas(sim: Simulation, subject: Any) -> int:
    """Replicas the workload already has in the cluster (0 when it is new, or for a bare pod)."""
    if isinstance(subject, Pod):
        return 0
    ns = subject.metadata.namespace or "default"
    for w in sim.state.workloads:
        if w.kind == subject.kind and (w.metadata.namespace or "default") == ns and \
                w.metadata.name == subject.metadata.name:
            spec = w.spec
            value = spec.parallelism if isinstance(w, Job) else spec.replicas
            return 1 if value is None else value
    return 0


def capacity(objects: Sequence[Any], workload: Sequence[Any], *, timelines: Sequence[Timeline] = (),
             options: SimulationOptions | None = None, max_replicas: int = DEFAULT_MAX,
             source: str = "--workload", owned: bool = False) -> CapacityResult:
    """Simulate `objects` (with `timelines`) to the end, then add replicas of the workload's one Pod or
    workload one at a time, each followed by one engine round at the final instant, until a new pod stays
    Pending or `max_replicas` were placed. A workload already in the cluster (same kind, namespace and name)
    grows from its current replica count; a new one starts at 0; a Pod is copied as `<name>-<i>`. `objects`
    are left unchanged unless `owned` (see `Simulation`)."""
    if max_replicas < 0:
        raise InputError(f"--max must be at least 0, got {max_replicas}")
    subject, extras = split_workload(workload, source)
    sim = Simulation(objects, timelines, options, owned=owned)
    sim.run()
    state = sim.state
    seed = sim.options.seed
    if extras:
        sim.events += execute(state, Apply(tuple(extras)), seed=seed)
    base = _base_replicas(sim, subject)
    mix: Counter[str] = Counter()
    placements: list[tuple[str, str, str]] = []
    for i in range(1, max_replicas + 1):
        before = set(state.pods)
        sim.events += execute(state, Apply((_replica(subject, base, i, state.pods),)), seed=seed)
        sim.step()
        new: list[Key] = sorted(k for k in state.pods if k not in before)
        if not new:
            return CapacityResult(len(placements), _ordered(mix), "NoNewPod",
                                  f"replica {base + i} created no pod (does the workload's controller stop "
                                  "at its completions?)", None, placements)
        for key in new:
            pod = state.pods[key]
            name = f"{key[0]}/{key[1]}"
            if not pod.spec.node_name:
                record = sim.pods.get(key)
                message = record.message if record is not None and record.message else \
                    "waiting for its ResourceClaims to be created"
                status = record.status if record is not None else "Pending"
                return CapacityResult(len(placements), _ordered(mix), status, message, name, placements)
            label = mix_label(claim_lines(state, pod))
            mix[label] += 1
            placements.append((name, pod.spec.node_name, label))
    return CapacityResult(len(placements), _ordered(mix), "MaxReplicas", "", None, placements)


def _ordered(mix: Counter[str]) -> dict[str, int]:
    return dict(sorted(mix.items(), key=lambda kv: (-kv[1], kv[0])))
