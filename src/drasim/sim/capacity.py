"""How many more replicas of a pod or workload fit: added to a finished simulation as cluster-capacity's loop
adds them (one at a time, each scheduled by the same engine, scheduler and allocator, until one fails), in
growing batches wherever a batch provably gives the loop's answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from drasim.api.clone import clone
from drasim.api.core import Deployment, Job, Pod, ReplicaSet, StatefulSet
from drasim.api.scheduling import PodGroup
from drasim.cluster import Key
from drasim.controllers.devicetaint import any_no_execute
from drasim.errors import InputError
from drasim.scheduler import ScheduleResult
from drasim.sim.engine import Simulation, SimulationOptions, SimulationResult
from drasim.sim.gang import WAITING
from drasim.sim.report import claim_lines, mix_label
from drasim.sim.timeline import RUN_FOR_ANNOTATION, Apply, Timeline, execute, parse_duration
from drasim.sim.workloads import MAX_WORKLOAD_PODS

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
    unit: str = "replica"  # "group": a PodGroup with its workload, added whole (`replicas` counts groups)

    def to_dict(self) -> dict[str, Any]:
        out = {"replicas": self.replicas, "byAlternative": dict(self.by_alternative),
               "stopReason": self.stop_reason, "message": self.message, "failedPod": self.failed_pod}
        return out if self.unit == "replica" else {**out, "unit": self.unit}

    def summary(self, max_replicas: int) -> str:
        via = ", ".join(f"{n} via {alt}" for alt, n in self.by_alternative.items())
        head = f"{self.replicas} more {self.unit}{'s' if self.replicas != 1 else ''} fit"
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


def _replicas(subject: Any, base: int, first: int, count: int, taken: dict[Key, Any]) -> list[Any]:
    """The objects to apply for extra replicas `first` .. `first + count - 1` (1-based): the workload once,
    its count raised to the last of them; or `count` copies of a pod, each under the first free `<name>-<n>`
    from its own index on."""
    if not isinstance(subject, Pod):
        obj = clone(subject)
        if isinstance(obj, Job):
            obj.spec.parallelism = obj.spec.completions = base + first + count - 1
        else:
            obj.spec.replicas = base + first + count - 1
        return [obj]
    stem = subject.metadata.name or (subject.metadata.generate_name or "pod").rstrip("-")
    ns = subject.metadata.namespace or "default"
    out: list[Any] = []
    picked: set[str] = set()
    for i in range(first, first + count):
        n = i
        while (ns, f"{stem}-{n}") in taken or f"{stem}-{n}" in picked:
            n += 1
        picked.add(f"{stem}-{n}")
        obj = clone(subject)
        obj.metadata.name = f"{stem}-{n}"
        obj.metadata.generate_name = None
        obj.metadata.uid = None
        out.append(obj)
    return out


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
             source: str = "--workload") -> CapacityResult:
    """Simulate `objects` (with `timelines`) to the end, then add replicas of the workload's one Pod or
    workload one at a time, each followed by one engine round at the final instant, until a new pod stays
    Pending or `max_replicas` were placed. A workload already in the cluster (same kind, namespace and name)
    grows from its current replica count; a new one starts at 0; a Pod is copied as `<name>-<i>`.

    Where nothing else could move in those rounds (`_batchable`), replicas after the first are added in
    batches of 2, 4, 8, ... per round: the scheduler then meets them in the order and on the cluster the
    loop would have, so every replica up to the first that fails gets the same node and devices, and that
    one the same message. A batch that cannot be read that way (fewer pods than replicas, a pod gone, the
    failed replica's cycle tried twice or freeing devices) is run again from the start, one at a time from
    that batch on. `objects` are never changed (the search may have to run the simulation twice)."""
    if not 0 <= max_replicas <= MAX_WORKLOAD_PODS:
        raise InputError(f"--max must be between 0 and {MAX_WORKLOAD_PODS:,} (pods a simulation takes from "
                         f"workloads), got {max_replicas}")
    subject, extras = split_workload(workload, source)
    group = _own_group(subject, extras)
    if group is not None:
        return _grow_groups(objects, timelines, options, subject, group,
                            [o for o in extras if o is not group], max_replicas)
    outcome = _grow(objects, timelines, options, subject, extras, max_replicas, None)
    if isinstance(outcome, int):  # one at a time from the batch that could not be read
        outcome = _grow(objects, timelines, options, subject, extras, max_replicas, outcome)
    if isinstance(outcome, int):  # not expected (the batches before it were read the first time): the loop
        outcome = _grow(objects, timelines, options, subject, extras, max_replicas, 1)
    assert isinstance(outcome, CapacityResult)  # one_by_one_from=1 tries no batch
    return outcome


def _batchable(sim: Simulation, result: SimulationResult, subject: Any) -> bool:
    """Whether a round adding replicas can change nothing but them: no other pod waits for the scheduler
    (each round would retry it, moving the scan position or taking what replicas need), no pod sits in
    PreBind or backoff, no replica finishes at once (`run-for: 0s`) and no NoExecute taint could evict one."""
    if result.pending() or sim.binding or sim.backoff or any_no_execute(sim.state):
        return False
    text = (subject.metadata if isinstance(subject, Pod) else subject.spec.template.metadata) \
        .annotations.get(RUN_FOR_ANNOTATION)
    try:
        return text is None or parse_duration(text) > timedelta(0)
    except ValueError:
        return False  # the first replica's round reports it


def _frees(result: ScheduleResult | None) -> bool:
    """Whether a failed cycle's PostFilter freed something (the engine then tries the round's pods again)."""
    return result is not None and bool(result.deallocate or result.delete_claims)


def _grow(objects: Sequence[Any], timelines: Sequence[Timeline], options: SimulationOptions | None, subject: Any,
          extras: list[Any], max_replicas: int, one_by_one_from: int | None) -> CapacityResult | int:
    """One run of the search: the result, or the replica from which a new run must go one at a time."""
    sim = Simulation(objects, timelines, options)
    settled = sim.run()
    state = sim.state
    seed = sim.options.seed
    if extras:
        sim.events += execute(state, Apply(tuple(extras)), seed=seed)
    base = _base_replicas(sim, subject)
    batches = _batchable(sim, settled, subject)
    mix: Counter[str] = Counter()
    placements: list[tuple[str, str, str]] = []
    added, size = 0, 1
    while added < max_replicas:
        count = min(size, max_replicas - added)
        if one_by_one_from is not None:
            # Replicas known to fit go in batches up to the one that must be tried alone.
            count = 1 if added + 1 >= one_by_one_from else min(count, one_by_one_from - 1 - added)
        first = added + 1
        before, pods_before = len(state.arrival), len(state.pods)
        known = set(state.pods) if count == 1 else None
        sim.events += execute(state, Apply(tuple(_replicas(subject, base, first, count, state.pods))), seed=seed)
        sim.step()
        if count == 1:
            # The loop's own step: every new pod counts (a changed template replaces the whole ReplicaSet).
            assert known is not None
            new: list[Key] = sorted(k for k in state.pods if k not in known)
            if not new:
                return CapacityResult(len(placements), _ordered(mix), "NoNewPod",
                                      f"replica {base + first} created no pod (does the workload's controller "
                                      "stop at its completions?)", None, placements)
        else:
            new = sorted((k for k in state.pods if state.arrival[k] >= before), key=state.arrival.__getitem__)
            if len(new) != count or len(state.pods) != pods_before + count:
                return first  # not one new pod per replica, or a pod went: go one at a time from here
        for index, key in enumerate(new):
            pod = state.pods[key]
            name = f"{key[0]}/{key[1]}"
            if not pod.spec.node_name:
                record = sim.pods.get(key)
                if count > 1 and record is not None and (record.attempts > 1 or _frees(record.last)):
                    return first + index  # the loop would have retried it in the same round
                message = record.message if record is not None and record.message else \
                    "waiting for its ResourceClaims to be created"
                status = record.status if record is not None else "Pending"
                return CapacityResult(len(placements), _ordered(mix), status, message, name, placements)
            label = mix_label(claim_lines(state, pod))
            mix[label] += 1
            placements.append((name, pod.spec.node_name, label))
        added += count
        if batches:
            size = count * 2
    return CapacityResult(len(placements), _ordered(mix), "MaxReplicas", "", None, placements)


def _ordered(mix: Counter[str]) -> dict[str, int]:
    return dict(sorted(mix.items(), key=lambda kv: (-kv[1], kv[0])))


# --- PodGroups: how many more groups fit ----------------------------------------------------------------

def _own_group(subject: Any, extras: list[Any]) -> PodGroup | None:
    """The PodGroup of the workload file that the workload's pods name (`spec.schedulingGroup`), if any."""
    spec = subject.spec if isinstance(subject, Pod) else subject.spec.template.spec
    ref = spec.scheduling_group
    ns = subject.metadata.namespace or "default"
    if ref is None or not ref.pod_group_name:
        return None
    return next((o for o in extras if isinstance(o, PodGroup) and o.metadata.name == ref.pod_group_name
                 and (o.metadata.namespace or "default") == ns), None)


def _group_copy(subject: Any, group: PodGroup, n: int) -> list[Any]:
    """Group `n`: the PodGroup as `<group>-<n>` and the workload (or pod) as `<name>-<n>` naming it."""
    new_group = clone(group)
    new_group.metadata.name = f"{group.metadata.name}-{n}"
    new_group.metadata.uid = None
    obj = clone(subject)
    obj.metadata.name = f"{subject.metadata.name}-{n}"
    obj.metadata.uid = None
    spec = obj.spec if isinstance(obj, Pod) else obj.spec.template.spec
    assert spec.scheduling_group is not None
    spec.scheduling_group.pod_group_name = new_group.metadata.name
    return [new_group, obj]


def _grow_groups(objects: Sequence[Any], timelines: Sequence[Timeline], options: SimulationOptions | None,
                 subject: Any, group: PodGroup, extras: list[Any], max_groups: int) -> CapacityResult:
    """Add whole groups (a PodGroup and its workload, renamed `-1`, `-2`, ...) one at a time, each followed by
    one engine round, until one group's pods are not all placed (a gang then waits in Permit, or is gated) or
    `max_groups` fit. A group counts by its pods: every one of them must be bound."""
    sim = Simulation(objects, timelines, options)
    sim.run()
    state, seed = sim.state, sim.options.seed
    if extras:
        sim.events += execute(state, Apply(tuple(extras)), seed=seed)
    mix: Counter[str] = Counter()
    placements: list[tuple[str, str, str]] = []
    ns = group.metadata.namespace or "default"
    suffix = 0
    for added in range(max_groups):
        suffix += 1
        while (ns, f"{group.metadata.name}-{suffix}") in state.pod_groups:
            suffix += 1  # a name the cluster already has
        known = set(state.pods)
        sim.events += execute(state, Apply(tuple(_group_copy(subject, group, suffix))), seed=seed)
        sim.step()
        new = sorted(k for k in state.pods if k not in known)
        unplaced = [k for k in new if not state.pods[k].spec.node_name]
        if not new or unplaced:
            records = [sim.pods[k] for k in unplaced if k in sim.pods]
            # The pod that did not fit says why; its siblings in Permit only wait for it.
            record = next((r for r in records if r.status != WAITING), records[0] if records else None)
            name = f"{record.key[0]}/{record.key[1]}" if record is not None else None
            message = record.message if record is not None and record.message else \
                f"group {added + 1} created no pod" if not new else "waiting for its ResourceClaims to be created"
            status = record.status if record is not None else "NoNewPod"
            return CapacityResult(added, _ordered(mix), status, message, name, placements, unit="group")
        for key in new:
            pod = state.pods[key]
            label = mix_label(claim_lines(state, pod))
            mix[label] += 1
            placements.append((f"{key[0]}/{key[1]}", pod.spec.node_name or "", label))
    return CapacityResult(max_groups, _ordered(mix), "MaxReplicas", "", None, placements, unit="group")
