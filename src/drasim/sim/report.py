"""Summaries of a finished simulation: placements, fallback mix per workload, pool usage (data, not text)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from operator import itemgetter
from typing import Any, ClassVar

import msgspec

from drasim.allocator import DeviceID
from drasim.api.core import Pod, PodExtendedResourceClaimStatus
from drasim.api.profile import ReleaseProfile
from drasim.cluster import ClusterState, Key, key_of
from drasim.controllers.events import Event
from drasim.sim.engine import SCORES_KEPT, SimulationResult
from drasim.sim.workloads import Workload

# The pod-claim label of the claim the scheduler made for a pod's DRA-backed extended resources (it has no
# spec.resourceClaims entry).
EXTENDED_POD_CLAIM = "(extended resources)"


@dataclass
class ClaimLine:
    pod_claim: str
    claim: str  # namespace/name, or "" when the claim does not exist
    alternatives: list[str]  # results' request names, e.g. ["gpu/a100-pair"]
    devices: list[str]  # driver/pool/device
    node_selector: str = ""
    node_resources: str = ""  # what the claim charges the node (status.nodeAllocatableResourceClaimStatuses)


@dataclass
class PodLine:
    key: Key
    node: str | None
    status: str  # Running / Pending / Succeeded / Failed / Evicted / Deleted
    reason: str = ""
    priority: int = 0
    claims: list[ClaimLine] = field(default_factory=list)
    workload: str = ""  # Kind/name of the top-level owner
    scores: list[tuple[str, int]] = field(default_factory=list)
    # The last scheduling cycle's scores, best first: (node, total, weighted score per plugin).
    score_plugins: list[tuple[str, int, dict[str, int]]] = field(default_factory=list)
    conditions: list[tuple[str, str, str, str]] = field(default_factory=list)  # (type, status, reason, message)
    higher_on: str = ""  # a feasible node that offered a higher firstAvailable alternative (engine.PodRecord)


@dataclass
class WorkloadMix:
    workload: str
    replicas: int
    placed: int
    mix: Counter[str]  # "gpu/h100" -> count (one entry per pod: the sorted set of chosen alternatives)
    # Placed replicas that got a lower alternative while a node offering a higher one was feasible.
    lower_while_higher: int = 0

    def line(self) -> str:
        parts = ", ".join(f"{n} {alt}" for alt, n in sorted(self.mix.items(), key=lambda kv: (-kv[1], kv[0])))
        pending = self.replicas - self.placed
        tail = f", {pending} pending" if pending else ""
        if self.lower_while_higher:
            # The prioritized-list score makes a higher alternative more likely, not certain (spec §5.5).
            tail += (f"; {self.lower_while_higher} took a lower alternative while a node offering a higher one "
                     "was feasible (other scores outweighed it)")
        return f"{self.workload}: {self.replicas} replicas — {parts or 'none placed'}{tail}"


@dataclass
class PoolUsage:
    driver: str
    pool: str
    devices: int
    used: int
    counters: dict[str, tuple[Fraction, Fraction]] = field(default_factory=dict)  # "set/counter" -> (used, total)


def workloads_by_uid(state: ClusterState) -> dict[str, Workload]:
    """The state's workloads by UID: what `owner_chain` walks (built once per report, not per pod)."""
    return {w.metadata.uid: w for w in state.workloads if w.metadata.uid}


def owner_chain(by_uid: dict[str, Workload], pod: Pod) -> str:
    """`Kind/name` of the pod's top-level controller (a ReplicaSet's Deployment), or "" for a bare pod;
    `by_uid` is `workloads_by_uid` of the state."""
    ref = next((o for o in pod.metadata.owner_references if o.controller), None)
    label = ""
    seen: set[str] = set()
    while ref is not None and ref.uid not in seen:
        seen.add(ref.uid)
        label = f"{ref.kind}/{ref.name}"
        owner = by_uid.get(ref.uid)
        if owner is None:
            break
        ref = next((o for o in owner.metadata.owner_references if o.controller), None)
    return label


def _selector_text(claim_status: object) -> str:
    allocation = getattr(claim_status, "allocation", None)
    ns = getattr(allocation, "node_selector", None)
    if ns is None:
        return ""
    terms = []
    for term in ns.node_selector_terms:
        reqs = [f"{r.key} {r.operator} {','.join(r.values)}" for r in term.match_fields + term.match_expressions]
        terms.append(" & ".join(reqs))
    return " | ".join(terms)


def _charged(pod: Pod) -> dict[str, str]:
    """Per claim name, its node-allocatable charge as `cpu 2`, `memory 1Gi/pod+512Mi/container`."""
    out: dict[str, str] = {}
    for st in pod.status.node_allocatable_resource_claim_statuses if pod.status is not None else ():
        parts = [f"{k} {v}" for k, v in (st.resources or {}).items()]
        parts += [f"{m.name} {m.quantity}" for m in st.mapping or () if m.quantity is not None]
        for o in st.overhead or ():
            each = [f"{q}/{per}" for q, per in ((o.per_pod, "pod"), (o.per_container, "container")) if q is not None]
            parts.append(f"{o.name} {'+'.join(each)}")
        out[st.resource_claim_name] = ", ".join(parts)
    return out


def claim_lines(state: ClusterState, pod: Pod, *, selectors: bool = True) -> list[ClaimLine]:
    """The pod's claims (and its extended-resource claim) with the alternatives and devices allocated, and
    what each charges the node; `selectors=False` leaves `node_selector` empty."""
    key = key_of(pod)
    charged = _charged(pod)
    out: list[ClaimLine] = []
    for pod_claim, claim in state.pod_claims(pod):
        if claim is None:
            out.append(ClaimLine(pod_claim=pod_claim, claim="", alternatives=[], devices=[]))
            continue
        allocation = claim.status.allocation if claim.status else None
        results = allocation.devices.results if allocation else []
        out.append(ClaimLine(
            pod_claim=pod_claim,
            claim=f"{claim.metadata.namespace or 'default'}/{claim.metadata.name}",
            alternatives=sorted({r.request for r in results}),
            devices=[f"{r.driver}/{r.pool}/{r.device}" for r in results],
            node_selector=_selector_text(claim.status) if selectors else "",
            node_resources=charged.get(claim.metadata.name, ""),
        ))
    ext = pod.status.extended_resource_claim_status if pod.status else None
    if ext is not None:
        claim = state.claims.get((key[0], ext.resource_claim_name))
        if claim is not None and claim.status and claim.status.allocation:
            results = claim.status.allocation.devices.results
            out.append(ClaimLine(
                pod_claim=EXTENDED_POD_CLAIM, claim=f"{key[0]}/{ext.resource_claim_name}",
                alternatives=extended_labels(ext, [r.request for r in results]),
                devices=[f"{r.driver}/{r.pool}/{r.device}" for r in results],
                node_resources=charged.get(ext.resource_claim_name, "")))
    return out


def extended_labels(ext: PodExtendedResourceClaimStatus, requests: list[str]) -> list[str]:
    """`nvidia.com/gpu: 2` per extended resource, from the devices allocated to its requests: the
    request names (`container-0-request-2`, upstream's) mean nothing to whoever wrote the pod."""
    resource_of = {m.request_name: m.resource_name for m in ext.request_mappings}
    counts = Counter(resource_of.get(name, name) for name in requests)
    return [f"{resource}: {n}" for resource, n in sorted(counts.items())]


def mix_label(claims: list[ClaimLine]) -> str:
    """A placed pod's entry in the fallback mix: its chosen alternatives, sorted and joined."""
    return " + ".join(sorted({a for c in claims for a in c.alternatives})) or "no devices"


def pod_lines(result: SimulationResult, *, claims: bool = True, scores: bool = True,
              selectors: bool = True, details: bool = True) -> list[PodLine]:
    """One line per pod that existed in the simulation, sorted by namespace and name. `claims=False` leaves
    each line's `claims` empty, `scores=False` its `scores` and `score_plugins`, `selectors=False` its claims'
    `node_selector`, `details=False` its `workload`, `priority`, `reason`, `higher_on`, `conditions`, `claims`
    and top-3 `scores` (for a caller that does not print them: `simulate -o json|yaml` prints the claims and pods
    themselves and only the scores per plugin, the table no scores and no node selectors)."""
    state = result.state
    lines: list[PodLine] = []
    by_uid = workloads_by_uid(state)
    # A workload's replicas have the same one owner reference: its chain is walked once.
    chains: dict[tuple[str, str, str, bool | None], str] = {}
    for key in sorted(result.pods):
        record = result.pods[key]
        pod = state.pods.get(key)
        if pod is None:
            lines.append(PodLine(key=key, node=record.node, status=record.ended or "Deleted"))
            continue
        phase = pod.status.phase if pod.status else None
        if phase in ("Succeeded", "Failed"):
            status = phase
        elif pod.spec.node_name:
            status = "Running"
        else:
            status = "Pending"
        line = PodLine(key=key, node=pod.spec.node_name, status=status)
        if scores and record.last is not None and record.last.ranking is not None:
            # One ranking walk: the top 3 are the first 3 of the top SCORES_KEPT (>= 3).
            top = record.last.top_scores(max(3, SCORES_KEPT))
            if details:
                line.scores = [(s.node, s.total) for s in top[:3]]
            line.score_plugins = [(s.node, s.total, dict(s.plugins)) for s in top[:SCORES_KEPT]]
        if not details:
            lines.append(line)
            continue
        refs = pod.metadata.owner_references
        if len(refs) == 1:
            ref = refs[0]
            chain_key = (ref.uid, ref.kind, ref.name, ref.controller)
            workload = chains.get(chain_key)
            if workload is None:
                workload = chains[chain_key] = owner_chain(by_uid, pod)
        else:
            workload = owner_chain(by_uid, pod) if refs else ""  # bare pods: skipped
        line.priority = pod.spec.priority or 0
        line.workload = workload
        if status == "Pending":
            line.reason = record.message or "waiting for its ResourceClaims to be created"
        elif pod.spec.node_name and record.higher_on:
            line.higher_on = record.higher_on
        if pod.status is not None:
            line.conditions = [(c.type, c.status, c.reason or "", c.message or "") for c in pod.status.conditions]
        if claims:
            line.claims = claim_lines(state, pod, selectors=selectors)
        lines.append(line)
    return lines


def workload_mix(lines: list[PodLine]) -> list[WorkloadMix]:
    """Per workload: how many replicas got which firstAvailable alternatives."""
    mixes: dict[str, WorkloadMix] = {}
    for line in lines:
        if not line.workload or line.status in ("Deleted", "Evicted"):
            continue
        mix = mixes.setdefault(line.workload, WorkloadMix(line.workload, 0, 0, Counter()))
        mix.replicas += 1
        if line.node:
            mix.placed += 1
            mix.mix[mix_label(line.claims)] += 1
            mix.lower_while_higher += bool(line.higher_on)
    return sorted(mixes.values(), key=lambda m: m.workload)


def pool_usage(state: ClusterState) -> list[PoolUsage]:
    """Devices used / published and counters consumed per pool (newest generation only)."""
    newest: dict[tuple[str, str], int] = {}
    for slc in state.slices.values():
        k = (slc.spec.driver, slc.spec.pool.name)
        newest[k] = max(newest.get(k, slc.spec.pool.generation), slc.spec.pool.generation)
    in_use = state.in_use
    shared = {d for d, _ in in_use.shared}
    usage: dict[tuple[str, str], PoolUsage] = {}
    for slc in state.slices.values():
        k = (slc.spec.driver, slc.spec.pool.name)
        if slc.spec.pool.generation != newest[k]:
            continue
        pool = usage.setdefault(k, PoolUsage(driver=k[0], pool=k[1], devices=0, used=0))
        for cs in slc.spec.shared_counters:
            for name, c in cs.counters.items():
                used, total = pool.counters.get(f"{cs.name}/{name}", (Fraction(0), Fraction(0)))
                pool.counters[f"{cs.name}/{name}"] = (used, total + c.value.fraction)
        for dev in slc.spec.devices:
            pool.devices += 1
            dev_id = DeviceID(k[0], k[1], dev.name)
            if dev_id in in_use.devices or dev_id in shared:
                pool.used += 1
                for consumption in dev.consumes_counters:
                    for name, c in consumption.counters.items():
                        label = f"{consumption.counter_set}/{name}"
                        used, total = pool.counters.get(label, (Fraction(0), Fraction(0)))
                        pool.counters[label] = (used + c.value.fraction, total)
    return [usage[k] for k in sorted(usage)]


# --- events as a real cluster records them -------------------------------------------------------------

SCHEDULER = "default-scheduler"
# Reasons of events the Kubernetes components record (drasim's own bookkeeping reasons are not listed)
# and who reports them; workload controllers by the kind of the object.
_SOURCES = {"Scheduled": SCHEDULER, "FailedScheduling": SCHEDULER, "BindingConditionsPending": SCHEDULER,
            "DeviceTaintManagerEviction": "device-taint-eviction-controller",
            "FailedResourceClaimCreation": "resource-claim-controller",
            "ScalingReplicaSet": "deployment-controller", "Completed": "job-controller"}
_WORKLOAD_SOURCES = {"ReplicaSet": "replicaset-controller", "Job": "job-controller",
                     "StatefulSet": "statefulset-controller"}
_WORKLOAD_REASONS = ("SuccessfulCreate", "SuccessfulDelete")
# Every reason `_source` may name a reporter for: the events kept before counting.
_RECORDED_REASONS = frozenset(_SOURCES) | frozenset(_WORKLOAD_REASONS)


@dataclass
class EventLine:
    """One row of `kubectl get events`: identical events (object, type, reason, message) counted."""

    namespace: str
    kind: str
    name: str
    type: str
    reason: str
    message: str
    source: str
    first: datetime
    last: datetime
    count: int = 1

    @property
    def object(self) -> str:
        return f"{self.kind.lower()}/{self.name}"


def _source(reason: str, kind: str) -> str | None:
    # None for a reason outside `_RECORDED_REASONS`, which lists the reasons read here.
    if reason in _WORKLOAD_REASONS:
        return _WORKLOAD_SOURCES.get(kind)
    return _SOURCES.get(reason)


def repeated_events(events: list[Event]) -> list[tuple[Event, int, datetime]]:
    """Identical events (object, type, reason, message) counted, not repeated, as the event recorder
    aggregates them (client-go tools/record events_cache.go): each first occurrence in order, with how
    many there were and the time of the last."""
    seen: dict[tuple[str, str, str, str], list[Any]] = {}
    for event in events:
        entry = seen.get((event.object, event.kind, event.reason, event.message))
        if entry is None:
            seen[(event.object, event.kind, event.reason, event.message)] = [event, 1, event.time]
        else:
            entry[1] += 1
            entry[2] = event.time
    return [(e, n, last) for e, n, last in seen.values()]


def cluster_events(result: SimulationResult) -> list[EventLine]:
    """The events a real cluster would record, aggregated as the event recorder does, oldest first."""
    return [EventLine(*row) for row in _event_rows(result)]


# EventLine's fields as a tuple: what event_documents reads without making the lines (100,000 for 50,000 pods).
_EventRow = tuple[str, str, str, str, str, str, str, datetime, datetime, int]


def _event_rows(result: SimulationResult) -> list[_EventRow]:
    """`cluster_events`' lines as tuples of their fields, in their order."""
    rows: list[_EventRow] = []
    # drasim's own bookkeeping events (no source) are left out before counting: identical events share
    # their reason, so leaving them out first changes no count.
    recorded = [e for e in result.events if e.reason in _RECORDED_REASONS]
    for event, count, last in repeated_events(recorded):
        kind, _, rest = event.object.partition("/")
        namespace, _, name = rest.partition("/") if "/" in rest else ("", "", rest)
        source = _source(event.reason, kind)
        if source is not None:
            rows.append((namespace, kind, name, event.kind, event.reason, event.message, source, event.time, last,
                         count))
    # Oldest first: by last, then first occurrence (a stable sort keeps the recording order of ties).
    return sorted(rows, key=itemgetter(8, 7))


class EventMeta(msgspec.Struct, omit_defaults=True):
    """An Event's metadata as the API server prints it (a namespace only where there is one)."""

    name: str = msgspec.field(default_factory=str)  # a factory's product is always written
    namespace: str = ""


class InvolvedObject(msgspec.Struct, rename="camel", omit_defaults=True):
    """An Event's involvedObject: empty fields are left out (an apiVersion only for core kinds, a uid only for
    pods)."""

    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str = ""
    uid: str = ""


class EventSource(msgspec.Struct, omit_defaults=True):
    component: str = msgspec.field(default_factory=str)


class EventDocument(msgspec.Struct, rename="camel", omit_defaults=True):
    """A core/v1 Event as `simulate -o yaml|json` prints it: every field written, in this order."""

    # The YAML writer (api.yamlstruct) writes these once per value: the events of one object hold one
    # involvedObject, those of one source one source.
    YAML_SHARED: ClassVar[frozenset[str]] = frozenset({"involved_object", "source"})

    api_version: str = "v1"
    kind: str = "Event"
    metadata: EventMeta = msgspec.field(default_factory=EventMeta)
    involved_object: InvolvedObject = msgspec.field(default_factory=InvolvedObject)
    type: str = msgspec.field(default_factory=str)
    reason: str = msgspec.field(default_factory=str)
    message: str = msgspec.field(default_factory=str)
    count: int = msgspec.field(default_factory=int)
    first_timestamp: str = msgspec.field(default_factory=str)
    last_timestamp: str = msgspec.field(default_factory=str)
    source: EventSource = msgspec.field(default_factory=EventSource)
    reporting_component: str = msgspec.field(default_factory=str)


_EVENT_VERSION, _EVENT_KIND = EventDocument.__struct_defaults__[:2]


def event_objects(result: SimulationResult) -> list[dict[str, object]]:
    """core/v1 Events for `cluster_events` as plain data: `event_documents`' wire form (no parts shared)."""
    # apiVersion and kind hold their defaults, which omit_defaults leaves out: put in front.
    return [{"apiVersion": doc.api_version, "kind": doc.kind, **msgspec.to_builtins(doc)}
            for doc in event_documents(result)]


def event_documents(result: SimulationResult) -> list[EventDocument]:
    """core/v1 Events for `cluster_events` (names as the recorder makes them: object name + hex time). The
    events of one object hold one involvedObject and those of one source one source (a ReplicaSet's
    SuccessfulCreate events are one per pod, so most events repeat some object's part)."""
    pods = result.state.pods
    # Pods evicted and not replaced since are not in the state; their UIDs are still their events' objects'.
    evicted = {(p.metadata.namespace or "default", p.metadata.name): p for p in result.evicted}
    out: list[EventDocument] = []
    # Per object name, where the search for a free stamp continues past a taken one (path-compressed), so
    # 50,000 events of one ReplicaSet at one instant do not each walk past all the earlier ones.
    skip: dict[tuple[str, int], int] = {}
    nanos: dict[datetime, int] = {}  # events share few instants
    # Texts of UTC instants only: an instant with another offset is an equal key but prints its own wall time.
    stamps: dict[datetime, str] = {}
    involved_parts: dict[tuple[str, str, str], InvolvedObject] = {}
    source_parts: dict[str, EventSource] = {}
    for namespace, kind, name, type_, reason, message, component, when, last, count in _event_rows(result):
        first = nanos.get(when)
        if first is None:
            first = nanos[when] = int(when.timestamp() * 1_000_000_000)
        stamp = first if (name, first) not in skip else _free_stamp(skip, name, first)  # most: not taken
        skip[(name, stamp)] = stamp + 1
        involved = involved_parts.get((namespace, kind, name))
        if involved is None:
            pod = pods.get((namespace, name)) or evicted.get((namespace, name)) if kind == "Pod" else None
            involved = involved_parts[(namespace, kind, name)] = _involved_object(namespace, kind, name, pod)
        source = source_parts.get(component)
        if source is None:
            source = source_parts[component] = EventSource(component=component)
        first_text, last_text = _stamp_text(stamps, when), _stamp_text(stamps, last)
        # Positional (100,000 events for 50,000 pods): the class's own default apiVersion and kind objects, which
        # the writers leave out of the struct's encoding and write as the head.
        out.append(EventDocument(
            _EVENT_VERSION, _EVENT_KIND, EventMeta(f"{name}.{stamp:x}", namespace or ""), involved, type_, reason,
            message, count, first_text, last_text, source, component))
    return out


def _involved_object(namespace: str, kind: str, name: str, pod: Pod | None) -> InvolvedObject:
    """The event's involvedObject: an apiVersion for core kinds, a uid for pods (`pod`: the one it names, in
    the state or evicted; empty fields are left out)."""
    uid = pod.metadata.uid if pod is not None and kind == "Pod" else ""
    # "" literals: omit_defaults leaves out the default object itself, the empty string.
    return InvolvedObject(api_version="v1" if kind in ("Pod", "Node") else "", kind=kind or "", name=name or "",
                          namespace=namespace or "", uid=uid or "")


def _free_stamp(skip: dict[tuple[str, int], int], obj: str, stamp: int) -> int:
    """The first stamp from `stamp` on whose event name `obj.<hex stamp>` is not taken yet. Names of
    different objects never collide (the hex stamp follows the last dot), so taken stamps are per object."""
    if (obj, stamp) not in skip:
        return stamp  # most events: no list made
    path = []
    while (obj, stamp) in skip:
        path.append(stamp)
        stamp = skip[(obj, stamp)]
    for s in path:
        skip[(obj, s)] = stamp
    return stamp


def final_objects(result: SimulationResult, profile: ReleaseProfile | None = None) -> list[Any]:
    """The objects `simulate -o yaml|json` lists: the cluster at the end, and evicted pods as they were when
    deleted (terminating, DisruptionTarget set) unless replaced since. DeviceTaintRules are set to the newest
    version `profile`'s release has (v1beta2 in 1.36: the same fields as v1), so the output reads back into a
    cluster of that release."""
    state = result.state
    evicted = [p for p in result.evicted if (p.metadata.namespace or "default", p.metadata.name) not in state.pods]
    rule_versions = profile.api_versions("DeviceTaintRule") if profile is not None else ()
    for rule in state.taint_rules.values():
        rule.api_version = f"resource.k8s.io/{rule_versions[0]}" if rule_versions else rule.api_version
    return [*state.nodes.values(), *state.slices.values(), *state.classes.values(), *state.taint_rules.values(),
            *state.templates.values(), *state.pod_groups.values(), *state.claims.values(), *state.pods.values(),
            *evicted]


def extra_documents(result: SimulationResult, lines: list[PodLine] | None = None, *,
                    shared: set[int] | None = None) -> list[Any]:
    """What `simulate -o yaml|json` lists after the objects: the Events and the scores, as plain data; with
    `shared` (for a writer that prints them and drops them), the Events as `EventDocument`s and the scores
    with shared parts (`scores_document`)."""
    scores = scores_document(pod_lines(result) if lines is None else lines, shared=shared)
    if shared is None:
        return [*event_objects(result), scores]
    return [*event_documents(result), scores]


def scores_document(lines: list[PodLine], *, shared: set[int] | None = None) -> dict[str, object]:
    """drasim's record of each pod's last scoring: per node the total and the weighted score per plugin.

    With `shared` (for a writer that prints the document and drops it), pods scored alike hold one `nodes`
    list and nodes scored alike one `plugins` dict, and the ids of those held more than once are added to
    `shared` (`api.encode.yaml_objects` writes each once); without it, every part is a dict of its own.
    """
    pods = []
    node_lists: dict[tuple[Any, ...], list[dict[str, object]]] = {}
    plugin_dicts: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
    for line in lines:
        if not line.score_plugins:
            continue
        if shared is None:
            nodes = [{"node": node, "total": total, "plugins": dict(sorted(plugins.items()))}
                     for node, total, plugins in line.score_plugins]
        else:
            key = tuple((node, total, tuple(plugins.items())) for node, total, plugins in line.score_plugins)
            found = node_lists.get(key)
            if found is None:
                found = node_lists[key] = [
                    {"node": node, "total": total, "plugins": _plugins_once(plugin_dicts, items, shared)}
                    for node, total, items in key]
            else:
                shared.add(id(found))
            nodes = found
        pods.append({"namespace": line.key[0], "name": line.key[1], "nodes": nodes})
    return {"apiVersion": "drasim.dev/v1alpha1", "kind": "SchedulingScores", "metadata": {"name": "scores"},
            "pods": pods}


def _plugins_once(seen: dict[tuple[tuple[str, int], ...], dict[str, int]], items: tuple[tuple[str, int], ...],
         shared: set[int]) -> dict[str, int]:
    """The plugins dict (sorted by plugin) of these scores, one per distinct set; its id in `shared` once reused."""
    found = seen.get(items)
    if found is None:
        found = seen[items] = dict(sorted(items))
    else:
        shared.add(id(found))
    return found


def _stamp_text(stamps: dict[datetime, str], when: datetime) -> str:
    """`_rfc3339(when)`, remembered in `stamps` for UTC instants (the events of a run share few)."""
    if when.tzinfo is not UTC:
        return _rfc3339(when)
    text = stamps.get(when)
    if text is None:
        text = stamps[when] = _rfc3339(when)
    return text


def _rfc3339(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
