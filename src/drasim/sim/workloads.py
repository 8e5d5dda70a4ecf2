"""Deployments, ReplicaSets, StatefulSets and Jobs expanded into Pods, as their controllers would.

Names (deterministic where Kubernetes is random; characters from `SUFFIX_ALPHABET`, see
`drasim.controllers.names`):

* Deployment `d` -> ReplicaSet `d-<hash>`, `<hash>` = 10 characters from the SHA-256 of the pod template
  (canonical JSON, sorted keys; the seed does not enter, so the same template always gives the same
  ReplicaSet, like upstream's `pod-template-hash`). The ReplicaSet and its pods carry the label
  `pod-template-hash: <hash>`. A changed template makes a new ReplicaSet; old ones are removed at once
  (no rolling update).
* ReplicaSet `rs` -> pods `rs-<5>`; Job `j` -> pods `j-<5>` (labels `batch.kubernetes.io/job-name` and
  `job-name` added); `<5>` comes from the SHA-256 of `(seed, namespace, owner name, n)`, `n` counting the
  pods this controller created for that owner (skipping names in use).
* StatefulSet `s` -> pods `s-0` .. `s-<replicas-1>` (labels `statefulset.kubernetes.io/pod-name`,
  `apps.kubernetes.io/pod-index` added); a finished pod is deleted and recreated under the same name with a
  new UID.
* UIDs: workloads `deterministic_uid(seed, kind, namespace, name)`, pods
  `deterministic_uid(seed, "Pod", namespace, name, n)`.

Every pod has the template's labels and annotations, an owner reference (`controller: true`,
`blockOwnerDeletion: true`) and the workload's namespace (default `default`). Jobs: `parallelism` (default 1)
pods run at once; a Succeeded pod counts towards `completions`, a Failed one is replaced (`backoffLimit` is
not modelled); with `completions` unset the Job is done once any pod succeeded. Replica counts default to 1.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from drasim.api.core import Deployment, Job, Pod, PodTemplateSpec, ReplicaSet, StatefulSet, WorkloadSpec
from drasim.api.meta import ObjectMeta, OwnerReference
from drasim.api.quantity import quantity_enc_hook
from drasim.api.resource import ResourceClaimTemplate
from drasim.cluster.state import EPOCH, ClusterState, Key
from drasim.controllers.events import NORMAL, Event, ref
from drasim.controllers.names import deterministic_uid, generated_suffix, hash_chars, pod_uid
from drasim.controllers.resourceclaim import AlikeCopies, TemplateCopies, copy_from_template, template_copy
from drasim.errors import InputError
from drasim.sim.timeline import Apply, Timeline

__all__ = [
    "MAX_WORKLOAD_PODS",
    "TEMPLATE_HASH_LABEL",
    "Workload",
    "WorkloadController",
    "WorkloadError",
    "check_timeline_workloads",
    "check_workloads",
    "desired_pods",
    "expand",
    "pod_template_hash",
    "workload_uid",
]

Workload = Deployment | ReplicaSet | StatefulSet | Job
WKey = tuple[str, str, str]  # (kind, namespace, name)

TEMPLATE_HASH_LABEL = "pod-template-hash"
# drasim creates and schedules every pod a workload asks for, so a simulation refuses more than this many
# from workloads up front: a 10^9-replica Deployment would run until killed, while 50,000 pods take about
# 20 CPU-s and 1 GB. The API server's own limit is int32.
MAX_WORKLOAD_PODS = 100_000
_API_VERSION = {"Deployment": "apps/v1", "ReplicaSet": "apps/v1", "StatefulSet": "apps/v1", "Job": "batch/v1"}
_TERMINAL = ("Succeeded", "Failed")


class WorkloadError(InputError):
    """A workload that cannot work as written (missing template, ownership cycle, negative counts)."""


def _wkey(w: Any) -> WKey:
    return (w.kind, w.metadata.namespace or "default", w.metadata.name)


def workload_uid(workload: Workload, *, seed: int = 0) -> str:
    """The UID drasim gives a workload without one."""
    kind, ns, name = _wkey(workload)
    return deterministic_uid(seed, kind, ns, name)


def pod_template_hash(template: PodTemplateSpec) -> str:
    """10 characters identifying the pod template (the ReplicaSet name suffix of a Deployment)."""
    data = msgspec.json.encode(template, enc_hook=quantity_enc_hook, order="sorted")
    return hash_chars((data.decode(),), 10)


def _terminal(pod: Pod) -> bool:
    return pod.status is not None and pod.status.phase in _TERMINAL


def _controller(obj: Any) -> OwnerReference | None:
    return next((o for o in obj.metadata.owner_references if o.controller), None)


class _Batch:
    """What the pods one owner creates from one template in one pass have in common, worked out once: its
    key and namespace, the labels and annotations every pod starts from, and one owner reference, which the
    pods share (nothing changes an owner reference in place; an owner replaced under its name gets a batch
    of its own)."""

    __slots__ = ("annotations", "defaulted", "generate_name", "labels", "ns", "owner_name", "owner_ref",
                 "template", "wk")

    def __init__(self, owner: Workload, template: PodTemplateSpec, generate_name: str | None,
                 labels: dict[str, str] | None = None) -> None:
        self.wk = _wkey(owner)
        self.ns = self.wk[1]
        self.owner_name = owner.metadata.name
        self.template = template
        self.generate_name = generate_name
        self.labels = {**template.metadata.labels, **(labels or {})}
        self.annotations = template.metadata.annotations
        self.owner_ref = OwnerReference(api_version=_API_VERSION[owner.kind], kind=owner.kind,
                                        name=owner.metadata.name, uid=owner.metadata.uid or "",
                                        controller=True, block_owner_deletion=True)
        self.defaulted: Any = None  # the shared spec copy defaulting has seen (WorkloadController._new_pod)


@dataclass
class WorkloadController:
    """The Deployment, ReplicaSet, StatefulSet and Job controllers, with the memory they need between passes."""

    seed: int = 0
    created: dict[WKey, int] = field(default_factory=dict)  # pods created per owner (names, UIDs)
    seen: set[WKey] = field(default_factory=set)  # owners managed before: only their orphans are collected
    succeeded: dict[WKey, set[str]] = field(default_factory=dict)  # Job -> UIDs of pods that succeeded
    completed: set[WKey] = field(default_factory=set)  # Jobs announced complete
    copies: TemplateCopies = field(default_factory=dict)  # pod template specs' shared copies (template_copy)
    alike: AlikeCopies = field(default_factory=dict)  # and those shared by equal templates (template_copy)

    def reconcile(self, state: ClusterState) -> list[Event]:
        """One pass over `state.workloads`: ReplicaSets for Deployments, garbage collection of objects whose
        owner was deleted, then the pods every ReplicaSet, StatefulSet and Job should have."""
        events: list[Event] = []
        for w in state.workloads:
            if not w.metadata.namespace:
                w.metadata.namespace = "default"
            if not w.metadata.uid:
                w.metadata.uid = workload_uid(w, seed=self.seed)
            if w.metadata.creation_timestamp is None:
                w.metadata.creation_timestamp = state.now
            self.seen.add(_wkey(w))
        # ReplicaSets by the Deployment controlling them, found once: a scan per Deployment was quadratic.
        replicasets: dict[tuple[str | None, str], list[ReplicaSet]] = {}
        for w in state.workloads:
            if isinstance(w, ReplicaSet) and (o := _controller(w)) is not None and o.kind == "Deployment":
                replicasets.setdefault((w.metadata.namespace, o.name), []).append(w)
        for w in list(state.workloads):
            if isinstance(w, Deployment):
                events += self._deployment(state, w, replicasets.get((w.metadata.namespace, w.metadata.name), []))
        events += self._collect_garbage(state)
        owned = self._owned_pods(state)
        for w in list(state.workloads):
            if isinstance(w, ReplicaSet):
                events += self._replicaset(state, w, owned.get(_wkey(w), []))
            elif isinstance(w, StatefulSet):
                events += self._statefulset(state, w, owned.get(_wkey(w), []))
            elif isinstance(w, Job):
                events += self._job(state, w, owned.get(_wkey(w), []))
        return events

    # --- ownership ------------------------------------------------------------------------------

    def _owned_pods(self, state: ClusterState) -> dict[WKey, list[Key]]:
        uids = {_wkey(w): w.metadata.uid for w in state.workloads}
        out: dict[WKey, list[Key]] = {}
        for key, pod in state.pods.items():
            owner = _controller(pod)
            if owner is None:
                continue
            wk = (owner.kind, key[0], owner.name)
            if wk in uids and (not owner.uid or owner.uid == uids[wk]):
                out.setdefault(wk, []).append(key)
        return out

    def _collect_garbage(self, state: ClusterState) -> list[Event]:
        """Delete ReplicaSets and pods whose controller (managed here before) is gone or was replaced."""
        events: list[Event] = []
        present = {_wkey(w): w.metadata.uid for w in state.workloads}

        def orphaned(obj: Any, ns: str) -> OwnerReference | None:
            owner = _controller(obj)
            if owner is None or (owner.kind, ns, owner.name) not in self.seen:
                return None
            uid = present.get((owner.kind, ns, owner.name))
            return owner if uid is None or (owner.uid and owner.uid != uid) else None

        for w in list(state.workloads):
            owner = orphaned(w, w.metadata.namespace or "default") if isinstance(w, ReplicaSet) else None
            if owner is not None:
                state.workloads.remove(w)
                events.append(Event(state.now, NORMAL, ref(w), "GarbageCollected",
                                    f"owner {owner.kind} {owner.name} is gone"))
                present.pop(_wkey(w), None)
        for key in sorted(state.pods):
            owner = orphaned(state.pods[key], key[0])
            if owner is not None:
                pod = state.pods[key]
                state.delete_pod(key)
                events.append(Event(state.now, NORMAL, ref(pod), "GarbageCollected",
                                    f"owner {owner.kind} {owner.name} is gone"))
        self.seen = {k for k in self.seen if k in present}
        return events

    # --- pods -----------------------------------------------------------------------------------

    def _new_pod(self, state: ClusterState, batch: _Batch, name: str | None, *,
                 labels: dict[str, str] | None = None) -> Pod:
        ns = batch.ns
        n = self.created.get(batch.wk, 0)
        if name is None:
            assert batch.generate_name is not None
            while (ns, (name := batch.generate_name + generated_suffix(self.seed, ns, batch.owner_name, n))) \
                    in state.pods:
                n += 1
        self.created[batch.wk] = n + 1
        assert name is not None
        meta = ObjectMeta(
            name=name, generate_name=batch.generate_name, namespace=ns,
            uid=pod_uid(self.seed, ns, name, n),
            creation_timestamp=state.now,
            labels={**batch.labels, **labels} if labels else dict(batch.labels),
            annotations=dict(batch.annotations),
            owner_references=[batch.owner_ref],
        )
        # The spec's parts are the template's shared copy (template_copy); its top level is the pod's own.
        spec = template_copy(batch.template.spec, self.copies, self.alike, ns)
        pod = Pod(metadata=meta, spec=msgspec.structs.replace(spec))
        # Defaulting changes only the containers' resources, which pods of one shared copy share: once
        # defaulted through the batch's first pod, the copy stays as defaulting leaves it (with FAST_COPY off
        # every pod has a copy of its own and is defaulted as ever).
        state.add(pod, defaulted=spec is batch.defaulted)
        batch.defaulted = spec
        return pod

    def _delete_pod(self, state: ClusterState, key: Key) -> Pod:
        pod = state.pods[key]
        state.delete_pod(key)
        pod.metadata.deletion_timestamp = state.now
        return pod

    # --- kinds ----------------------------------------------------------------------------------

    def _deployment(self, state: ClusterState, d: Deployment, candidates: list[ReplicaSet]) -> list[Event]:
        events: list[Event] = []
        ns = d.metadata.namespace or "default"
        replicas = 1 if d.spec.replicas is None else d.spec.replicas
        phash = pod_template_hash(d.spec.template)
        rs_name = f"{d.metadata.name}-{phash}"
        mine = [w for w in candidates if (o := _controller(w)) is not None and o.uid == d.metadata.uid]
        current = next((w for w in mine if w.metadata.name == rs_name), None)
        for old in mine:
            if old is not current:
                state.workloads.remove(old)  # its pods are collected below
                events.append(Event(state.now, NORMAL, ref(d), "ScalingReplicaSet",
                                    f"Scaled down replica set {old.metadata.name} from "
                                    f"{old.spec.replicas or 0} to 0"))
        if current is None:
            template = copy_from_template(d.spec.template)
            template.metadata.labels = {**template.metadata.labels, TEMPLATE_HASH_LABEL: phash}
            current = ReplicaSet(
                metadata=ObjectMeta(
                    name=rs_name, namespace=ns, creation_timestamp=state.now,
                    uid=deterministic_uid(self.seed, "ReplicaSet", ns, rs_name),
                    labels=dict(template.metadata.labels),
                    owner_references=[OwnerReference(api_version="apps/v1", kind="Deployment",
                                                     name=d.metadata.name, uid=d.metadata.uid or "",
                                                     controller=True, block_owner_deletion=True)]),
                spec=WorkloadSpec(replicas=replicas, selector=d.spec.selector, template=template))
            state.workloads.append(current)
            self.seen.add(_wkey(current))
            events.append(Event(state.now, NORMAL, ref(d), "ScalingReplicaSet",
                                f"Scaled up replica set {rs_name} from 0 to {replicas}"))
        elif current.spec.replicas != replicas:
            before = current.spec.replicas or 0
            current.spec.replicas = replicas
            events.append(Event(state.now, NORMAL, ref(d), "ScalingReplicaSet",
                                f"Scaled {'up' if replicas > before else 'down'} replica set {rs_name} "
                                f"from {before} to {replicas}"))
        return events

    def _replicaset(self, state: ClusterState, rs: ReplicaSet, owned: list[Key]) -> list[Event]:
        events: list[Event] = []
        replicas = 1 if rs.spec.replicas is None else rs.spec.replicas
        active = [k for k in owned if not _terminal(state.pods[k])
                  and state.pods[k].metadata.deletion_timestamp is None]
        if replicas > len(active):
            batch, about = _Batch(rs, rs.spec.template, f"{rs.metadata.name}-"), ref(rs)
            for _ in range(replicas - len(active)):
                pod = self._new_pod(state, batch, None)
                events.append(Event(state.now, NORMAL, about, "SuccessfulCreate", f"Created pod: {pod.metadata.name}"))
        if len(active) > replicas:
            # Unscheduled pods go first, then the newest.
            victims = sorted(active, key=lambda k: (bool(state.pods[k].spec.node_name),
                                                    -state.arrival.get(k, 0)))[: len(active) - replicas]
            for key in victims:
                self._delete_pod(state, key)
                events.append(Event(state.now, NORMAL, ref(rs), "SuccessfulDelete", f"Deleted pod: {key[1]}"))
        return events

    def _statefulset(self, state: ClusterState, ss: StatefulSet, owned: list[Key]) -> list[Event]:
        events: list[Event] = []
        ns, name = ss.metadata.namespace or "default", ss.metadata.name
        replicas = 1 if ss.spec.replicas is None else ss.spec.replicas
        batch: _Batch | None = None  # made when a pod is missing (not on every pass)
        for key in owned:
            ordinal = key[1].rpartition("-")[2]
            if not ordinal.isdigit() or int(ordinal) >= replicas:
                self._delete_pod(state, key)
                events.append(Event(state.now, NORMAL, ref(ss), "SuccessfulDelete",
                                    f"delete Pod {key[1]} in StatefulSet {name} successful"))
        for i in range(replicas):
            pod_name = f"{name}-{i}"
            existing = state.pods.get((ns, pod_name))
            if existing is not None:
                if (ns, pod_name) not in owned or not _terminal(existing):
                    continue  # running, or a foreign pod under that name (upstream reports a conflict)
                self._delete_pod(state, (ns, pod_name))
                events.append(Event(state.now, NORMAL, ref(ss), "SuccessfulDelete",
                                    f"delete Pod {pod_name} in StatefulSet {name} successful"))
            if batch is None:
                batch = _Batch(ss, ss.spec.template, None)
            self._new_pod(state, batch, pod_name, labels={
                "statefulset.kubernetes.io/pod-name": pod_name, "apps.kubernetes.io/pod-index": str(i)})
            events.append(Event(state.now, NORMAL, ref(ss), "SuccessfulCreate",
                                f"create Pod {pod_name} in StatefulSet {name} successful"))
        return events

    def _job(self, state: ClusterState, job: Job, owned: list[Key]) -> list[Event]:
        events: list[Event] = []
        wk = _wkey(job)
        parallelism = 1 if job.spec.parallelism is None else job.spec.parallelism
        completions = job.spec.completions
        done_uids = self.succeeded.setdefault(wk, set())
        for k in owned:
            status = state.pods[k].status
            if status is not None and status.phase == "Succeeded":
                done_uids.add(state.pods[k].metadata.uid or k[1])
        succeeded = len(done_uids)
        active = [k for k in owned if not _terminal(state.pods[k])
                  and state.pods[k].metadata.deletion_timestamp is None]
        if completions is None:
            want = 0 if succeeded else parallelism
            complete = succeeded > 0 and not active
        else:
            want = max(0, min(parallelism, completions - succeeded))
            complete = succeeded >= completions
        if complete:
            if wk not in self.completed:
                self.completed.add(wk)
                events.append(Event(state.now, NORMAL, ref(job), "Completed", "Job completed"))
            return events
        if want > len(active):
            name = job.metadata.name
            batch = _Batch(job, job.spec.template, f"{name}-", {"batch.kubernetes.io/job-name": name, "job-name": name})
            about = ref(job)
            for _ in range(want - len(active)):
                pod = self._new_pod(state, batch, None)
                events.append(Event(state.now, NORMAL, about, "SuccessfulCreate", f"Created pod: {pod.metadata.name}"))
        return events


def expand(workload: Workload, *, seed: int = 0, now: datetime = EPOCH) -> list[ReplicaSet | Pod]:
    """The objects the controllers would create for a fresh workload: a Deployment's ReplicaSet first, then
    the pods. Pure: `workload` is not modified (its UID, if missing, is `workload_uid(workload, seed=seed)`)."""
    state = ClusterState(now=now)
    state.add(copy.deepcopy(workload))
    WorkloadController(seed=seed).reconcile(state)
    return [*state.workloads[1:], *state.pods.values()]  # type: ignore[list-item]


# --- checks -------------------------------------------------------------------------------------

def desired_pods(workload: Workload) -> tuple[str, int]:
    """The field that says how many pods the workload runs at once, and that number (Jobs: parallelism,
    at most the completions)."""
    spec = workload.spec
    if isinstance(workload, Job):
        n = 1 if spec.parallelism is None else spec.parallelism
        return "parallelism", n if spec.completions is None else min(n, spec.completions)
    return "replicas", 1 if spec.replicas is None else spec.replicas


def _pods_created(workload: Workload) -> tuple[str, int]:
    """The field that bounds the pods the workload creates over a run, and that bound: a Job with
    `completions` creates one pod per completion (its pods finish, `drasim.dev/run-for`, and are replaced
    until the count is reached: a billion completions would run to the horizon), others `desired_pods`."""
    if isinstance(workload, Job) and workload.spec.completions is not None:
        return "completions", workload.spec.completions
    return desired_pods(workload)


def _too_many(workload: Workload, before: int = 0) -> WorkloadError | None:
    """A refusal when the workload's pods (after `before` asked for by other workloads) pass the limit."""
    field_name, n = _pods_created(workload)
    if n < 0 or before + n <= MAX_WORKLOAD_PODS:
        return None
    others = f", with {before:,} asked for by the workloads before it" if before else ""
    per = " (a Job creates a pod for each completion)" if field_name == "completions" else ""
    return WorkloadError(f"Invalid value: {n}: drasim creates and simulates every pod and takes at most "
                         f"{MAX_WORKLOAD_PODS:,} pods from workloads{others}{per}",
                         obj="/".join(_wkey(workload)), path=f"spec.{field_name}")


def check_timeline_workloads(timelines: Iterable[Timeline]) -> list[WorkloadError]:
    """Workloads a Timeline applies that ask for more pods than a simulation takes (each alone: a later
    apply of the same workload replaces it)."""
    errors: list[WorkloadError] = []
    for timeline in timelines:
        for event in timeline.events:
            action = event.action
            for obj in action.objects if isinstance(action, Apply) else ():
                if isinstance(obj, Deployment | ReplicaSet | StatefulSet | Job) and \
                        (err := _too_many(obj)) is not None:
                    errors.append(WorkloadError(f"{err.message} (applied by {timeline.ref} {event.path})",
                                                source=timeline.source, obj=err.obj, path=err.path))
    return errors


def check_workloads(objects: Iterable[Any]) -> list[WorkloadError]:
    """Problems that keep workloads from working: a pod template naming a ResourceClaimTemplate that is not
    among `objects`, negative counts, and ownership cycles among all objects (each cycle reported once)."""
    objects = list(objects)
    templates = {(t.metadata.namespace or "default", t.metadata.name)
                 for t in objects if isinstance(t, ResourceClaimTemplate)}
    errors: list[WorkloadError] = []
    deployments = {_wkey(o)[1:] for o in objects if isinstance(o, Deployment)}
    total = 0
    for w in objects:
        if not isinstance(w, Deployment | ReplicaSet | StatefulSet | Job):
            continue
        kind, ns, name = _wkey(w)
        obj = f"{kind}/{ns}/{name}"
        owner = _controller(w)
        if not (owner is not None and owner.kind == "Deployment" and (ns, owner.name) in deployments):
            # A ReplicaSet of a Deployment among the objects runs that Deployment's pods: counted once.
            if (err := _too_many(w, total)) is not None and total <= MAX_WORKLOAD_PODS:
                errors.append(err)
            total += max(0, _pods_created(w)[1])
        for field_name in ("replicas", "parallelism", "completions"):
            value = getattr(w.spec, field_name)
            if value is not None and value < 0:
                errors.append(WorkloadError(f"must be greater than or equal to 0, got {value}", obj=obj,
                                            path=f"spec.{field_name}"))
        for i, entry in enumerate(w.spec.template.spec.resource_claims):
            t = entry.resource_claim_template_name
            if t and (ns, t) not in templates:
                errors.append(WorkloadError(f'ResourceClaimTemplate "{t}" does not exist in namespace "{ns}"',
                                            obj=obj, path=f"spec.template.spec.resourceClaims[{i}]"
                                                          ".resourceClaimTemplateName"))
    errors += _ownership_cycles(objects)
    return errors


def _ownership_cycles(objects: list[Any]) -> list[WorkloadError]:
    # Every member of a cycle has an owner reference; a fleet's nodes and slices have none, so the graph
    # (a key per object) is built only when some object names an owner.
    if not any(meta.owner_references for obj in objects if (meta := getattr(obj, "metadata", None)) is not None):
        return []
    return _cycle_walk(objects)


def _cycle_walk(objects: list[Any]) -> list[WorkloadError]:
    """The ownership graph's cycles, each reported once, at its smallest member's reference."""
    nodes: dict[tuple[str, str, str], Any] = {}
    for obj in objects:
        meta = getattr(obj, "metadata", None)
        if meta is None or not meta.name:
            continue
        namespaced = getattr(obj, "NAMESPACED", True)
        nodes[(obj.kind, (meta.namespace or "default") if namespaced else "", meta.name)] = obj

    def owners(node: tuple[str, str, str]) -> list[tuple[int, tuple[str, str, str]]]:
        out = []
        for j, o in enumerate(nodes[node].metadata.owner_references):
            for cand in ((o.kind, node[1], o.name), (o.kind, "", o.name)):
                if cand in nodes:
                    out.append((j, cand))
                    break
        return out

    errors: list[WorkloadError] = []
    reported: set[frozenset[tuple[str, str, str]]] = set()
    state: dict[tuple[str, str, str], int] = {}  # 1 on the current path, 2 finished

    def visit(node: tuple[str, str, str], path: list[tuple[tuple[str, str, str], int]]) -> None:
        state[node] = 1
        for j, owner in owners(node):
            if state.get(owner) == 1:
                start = next(i for i, (n, _) in enumerate([*path, (node, j)]) if n == owner)
                cycle = [*path[start:], (node, j)]
                members = frozenset(n for n, _ in cycle)
                if members not in reported:
                    reported.add(members)
                    first, index = min(cycle)
                    names = [n for n, _ in cycle]
                    at = names.index(first)
                    ring = names[at:] + names[:at] + [first]
                    text = " -> ".join("/".join(p for p in n if p) for n in ring)
                    errors.append(WorkloadError(f"ownership cycle: {text}", obj="/".join(p for p in first if p),
                                                path=f"metadata.ownerReferences[{index}]"))
            elif owner not in state:
                visit(owner, [*path, (node, j)])
        state[node] = 2

    for node in sorted(nodes):
        if node not in state:
            visit(node, [])
    return errors
