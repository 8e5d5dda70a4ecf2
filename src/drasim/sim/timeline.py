"""Timelines: changes to a simulated cluster at simulated times, and pods that finish after a run time.

A timeline is a document that may sit in any input file (the object decoder sets drasim's own documents
aside, `DecodeResult.own`; `parse_timeline` reads one, `find_timelines` picks them out of raw documents):

    apiVersion: drasim.dev/v1alpha1
    kind: Timeline
    metadata:
      name: maintenance             # optional; names the timeline in errors
    spec:
      events:                       # in time order; events at the same time run in list order
      - at: 30s                     # after the simulation start: Go-style duration (30s, 5m, 1h30m, 1.5h,
                                    # 500ms, 2d) or ISO 8601 (PT30S, P1DT2H); or an absolute RFC 3339 time
                                    # with a zone (2026-01-01T00:10:00Z)
        action: apply               # create or replace objects; exactly one of:
        object: {...}               #   one object inline
        objects: [{...}, ...]       #   several objects inline
        file: drain-rule.yaml       #   a file, relative to the file holding the timeline
      - at: 5m
        action: delete
        kind: DeviceTaintRule       # any kind drasim models
        name: drain
        namespace: ml               # namespaced kinds only (default "default")
      - at: 10m
        action: finish              # a pod ends
        name: train-0
        namespace: ml               # default "default"
        phase: Failed               # Succeeded (default) or Failed
      - at: 12m
        action: setDeviceCondition  # a driver reports on an allocated device (claim status.devices)
        device: gpu.example.com/node-1/gpu-0   # driver/pool/device
        claim: train-0-gpu-x7k2q    # optional: only this claim (default: whichever claim holds the device)
        namespace: ml               # of the claim (default "default")
        type: attached              # the condition (a binding condition, a failure condition, ...)
        status: "True"              # "True" (default), "False" or "Unknown"
        reason: Attached            # optional
        message: fabric attached    # optional

Unknown fields, unknown actions and events out of time order are `InputError`s naming the file, the
timeline and the field path. A pod annotated `drasim.dev/run-for: 10m` (same duration syntax) succeeds that
long after it was first seen bound to a node (`RunTracker`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from typing import Any

from drasim.api.clone import clone
from drasim.api.core import Deployment, Job, Pod, PodStatus, ReplicaSet, StatefulSet
from drasim.api.decode import decode_object
from drasim.api.kinds import KINDS, KubeObject
from drasim.api.meta import Condition
from drasim.api.resource import AllocatedDeviceStatus, DeviceTaintRule, ResourceClaim, ResourceSlice
from drasim.cel.library.timeutil import GO_DURATION_UNITS
from drasim.cluster.clock import later
from drasim.cluster.state import ClusterState
from drasim.controllers.events import NORMAL, WARNING, Event, ref
from drasim.controllers.resourceclaim import FreshPodUids
from drasim.errors import InputError

__all__ = [
    "API_VERSION",
    "RUN_FOR_ANNOTATION",
    "Action",
    "Apply",
    "Delete",
    "Finish",
    "RunTracker",
    "ScheduledAction",
    "SetDeviceCondition",
    "Timeline",
    "TimelineEvent",
    "execute",
    "find_timelines",
    "is_timeline",
    "parse_duration",
    "parse_timeline",
    "resolve_files",
    "run_for",
    "schedule",
]

API_VERSION = "drasim.dev/v1alpha1"
KIND = "Timeline"
RUN_FOR_ANNOTATION = "drasim.dev/run-for"
PHASES = ("Succeeded", "Failed")
_KIND_TYPES: dict[str, type] = {kind: tp for group in KINDS.values() for kind, tp in group.items()}
_WORKLOADS = (Deployment, ReplicaSet, StatefulSet, Job)


# --- times ---------------------------------------------------------------------------------------

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
# Go's units (seconds each) and drasim's `d`; longer names first so that `ms` is not read as `m`.
_GO_UNITS = {**{unit: ns / 1e9 for unit, ns in GO_DURATION_UNITS.items()}, "d": 86400}
_UNIT = "|".join(sorted(_GO_UNITS, key=len, reverse=True))
_GO_PART = re.compile(rf"({_NUMBER})({_UNIT})")
_GO = re.compile(rf"(?:{_NUMBER}(?:{_UNIT}))+")
_ISO = re.compile(rf"P(?:({_NUMBER})W)?(?:({_NUMBER})D)?(?:T(?:({_NUMBER})H)?(?:({_NUMBER})M)?(?:({_NUMBER})S)?)?")
_ABSOLUTE = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]")


def parse_duration(text: str) -> timedelta:
    """`30s`, `5m`, `1h30m`, `1.5h`, `500ms`, `1us`, `1ns`, `2d`, `0`, or ISO 8601 `PT30S` / `P1DT2H` / `P2W`.
    Raises ValueError with a message fit for users."""
    s = text.strip()
    if s == "0":
        return timedelta(0)
    try:
        if _GO.fullmatch(s):
            return timedelta(seconds=sum(float(n) * _GO_UNITS[u] for n, u in _GO_PART.findall(s)))
        m = _ISO.fullmatch(s.upper())
        if m and s.upper() not in ("P", "PT") and not s.upper().endswith("T"):
            weeks, days, hours, minutes, seconds = (float(g) if g else 0.0 for g in m.groups())
            return timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes, seconds=seconds)
    except (OverflowError, ValueError):  # beyond timedelta (999,999,999 days), or an infinite float
        raise ValueError(f"{text!r} is too long a duration (at most {timedelta.max.days:,} days)") from None
    if re.fullmatch(r"P.*[YM].*", s.upper().split("T")[0]):
        raise ValueError(f"{text!r}: years and months are not fixed durations; use days or weeks")
    raise ValueError(f"{text!r} is not a duration (examples: 30s, 5m, 1h30m, PT5M)")


def _parse_at(value: Any) -> timedelta | datetime:
    if isinstance(value, datetime):
        at = value
    elif isinstance(value, bool) or not isinstance(value, str):
        if isinstance(value, int | float) and not isinstance(value, bool):
            raise ValueError(f"{value!r} has no unit: write e.g. {value}s")
        raise ValueError(f"expected a duration or an RFC 3339 time, got {type(value).__name__}")
    elif _ABSOLUTE.match(value.strip()):
        try:
            at = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{value!r} is not an RFC 3339 time") from None
    else:
        return parse_duration(value)
    if at.tzinfo is None:
        raise ValueError(f"{value!s}: an absolute time needs a zone (e.g. a trailing Z)")
    return at


def _resolve(at: timedelta | datetime, start: datetime) -> datetime:
    return at if isinstance(at, datetime) else start + at


# --- the model ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Apply:
    """Create or replace objects. `objects` is empty until `resolve_files` has read `file`.

    Until admission has run on them (`sources.inputs`), `api_versions` holds the apiVersion each object was
    written in (parallel to `objects`) and `unserved` the documents the decoder could not read at all
    (object ref, apiVersion, kind), which admission rejects as the API server of the release would."""

    objects: tuple[KubeObject, ...] = ()
    file: str | None = None
    api_versions: tuple[str, ...] = ()
    unserved: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Delete:
    kind: str
    name: str
    namespace: str | None = None  # None for cluster-scoped kinds


@dataclass(frozen=True)
class Finish:
    name: str
    namespace: str = "default"
    phase: str = "Succeeded"


@dataclass(frozen=True)
class SetDeviceCondition:
    driver: str
    pool: str
    device: str
    type: str
    status: str = "True"
    reason: str | None = None
    message: str | None = None
    claim: str | None = None
    namespace: str = "default"


Action = Apply | Delete | Finish | SetDeviceCondition
ACTIONS = "apply, delete, finish or setDeviceCondition"
CONDITION_STATUSES = ("True", "False", "Unknown")


@dataclass(frozen=True)
class TimelineEvent:
    """One entry of `spec.events`: `at` as written (`text`) and parsed, the action, and its field path."""

    at: timedelta | datetime
    text: str
    action: Action
    path: str


@dataclass
class Timeline:
    name: str
    source: str
    events: list[TimelineEvent] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return f"{KIND}/{self.name}" if self.name else KIND


@dataclass(frozen=True)
class ScheduledAction:
    """An action at its absolute simulated time, with where it was written."""

    time: datetime
    action: Action
    timeline: Timeline
    event: TimelineEvent


# --- parsing ------------------------------------------------------------------------------------

def is_timeline(doc: Any) -> bool:
    """Whether a raw document is a drasim Timeline (any drasim.dev version; others are rejected on parse)."""
    return (isinstance(doc, dict) and doc.get("kind") == KIND
            and isinstance(doc.get("apiVersion"), str) and doc["apiVersion"].startswith("drasim.dev/"))


def find_timelines(docs: Iterable[Any], *, source: str) -> list[Timeline]:
    """Parse every Timeline among raw documents (as `sources.files.parse_yaml` returns them)."""
    found = [d for d in docs if is_timeline(d)]
    return [parse_timeline(d, source=source, where=f"document {i + 1}" if len(found) > 1 else None)
            for i, d in enumerate(found)]


def parse_timeline(doc: Any, *, source: str, where: str | None = None) -> Timeline:
    """Parse one raw Timeline document; `source` (its file) anchors relative `file:` references."""
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    name = meta.get("name", "") if isinstance(meta, dict) else ""
    timeline = Timeline(name=str(name or ""), source=source)
    obj = f"{where} {timeline.ref}" if where else timeline.ref

    def fail(message: str, path: str | None = None) -> InputError:
        return InputError(message, source=source, obj=obj, path=path)

    if not isinstance(doc, dict):
        raise fail("expected a mapping")
    if doc.get("apiVersion") != API_VERSION:
        raise fail(f"unsupported apiVersion {doc.get('apiVersion')!r} (drasim reads {API_VERSION})", "apiVersion")
    _only(doc, {"apiVersion", "kind", "metadata", "spec"}, "", fail)
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        raise fail("expected a mapping with events", "spec")
    _only(spec, {"events"}, "spec.", fail)
    events = spec.get("events")
    if not isinstance(events, list):
        raise fail("expected a list of events", "spec.events")
    previous: TimelineEvent | None = None
    for i, raw in enumerate(events):
        path = f"spec.events[{i}]"
        event = _parse_event(raw, path, source, obj, fail)
        if previous is not None and type(previous.at) is type(event.at) \
                and event.at < previous.at:  # type: ignore[operator]
            raise fail(f"{event.text!r} is earlier than the event before it ({previous.text!r}); "
                       "list events in time order", f"{path}.at")
        timeline.events.append(event)
        previous = event
    return timeline


def _only(data: dict[str, Any], allowed: set[str], prefix: str, fail: Callable[..., InputError]) -> None:
    for key in data:
        if key not in allowed:
            raise fail(f'unknown field "{key}" (expected {", ".join(sorted(allowed))})', f"{prefix}{key}")


def _parse_event(raw: Any, path: str, source: str, obj: str, fail: Callable[..., InputError]) -> TimelineEvent:
    if not isinstance(raw, dict):
        raise fail("expected a mapping with at and action", path)
    if "at" not in raw:
        raise fail('missing "at"', f"{path}.at")
    try:
        at = _parse_at(raw["at"])
    except ValueError as err:
        raise fail(str(err), f"{path}.at") from None
    action_name = raw.get("action")
    action: Action
    if action_name == "apply":
        _only(raw, {"at", "action", "object", "objects", "file"}, f"{path}.", fail)
        given = [k for k in ("object", "objects", "file") if k in raw]
        if len(given) != 1:
            raise fail("apply needs exactly one of object, objects or file"
                       + (f" (got {', '.join(given)})" if given else ""), path)
        if "file" in raw:
            if not isinstance(raw["file"], str) or not raw["file"]:
                raise fail("expected a file name", f"{path}.file")
            action = Apply(file=raw["file"])
        else:
            items = [(f"{path}.object", raw["object"])] if "object" in raw else None
            if items is None:
                if not isinstance(raw["objects"], list):
                    raise fail("expected a list of objects", f"{path}.objects")
                items = [(f"{path}.objects[{j}]", o) for j, o in enumerate(raw["objects"])]
            objects: list[KubeObject] = []
            versions: list[str] = []
            unserved: list[tuple[str, str, str]] = []
            for p, o in items:
                decoded = _decode(o, p, source, obj, fail, unserved)
                if decoded is not None:
                    objects.append(decoded)
                    versions.append(o["apiVersion"])
            action = Apply(objects=tuple(objects), api_versions=tuple(versions), unserved=tuple(unserved))
    elif action_name == "delete":
        _only(raw, {"at", "action", "kind", "name", "namespace"}, f"{path}.", fail)
        kind = raw.get("kind")
        tp = _KIND_TYPES.get(kind) if isinstance(kind, str) else None
        if tp is None:
            raise fail(f"unknown kind {kind!r} (drasim models {', '.join(sorted(_KIND_TYPES))})", f"{path}.kind")
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise fail("missing name", f"{path}.name")
        namespace = raw.get("namespace")
        if not getattr(tp, "NAMESPACED", True):
            if namespace is not None:
                raise fail(f"{kind} is cluster-scoped: remove namespace", f"{path}.namespace")
        elif namespace is not None and (not isinstance(namespace, str) or not namespace):
            raise fail("expected a namespace name", f"{path}.namespace")
        else:
            namespace = namespace or "default"
        action = Delete(kind=kind, name=name, namespace=namespace)  # type: ignore[arg-type]
    elif action_name == "finish":
        _only(raw, {"at", "action", "kind", "name", "namespace", "phase"}, f"{path}.", fail)
        if raw.get("kind", "Pod") != "Pod":
            raise fail("only pods finish", f"{path}.kind")
        name = raw.get("name")
        if not isinstance(name, str) or not name:
            raise fail("missing name (of the pod)", f"{path}.name")
        phase = raw.get("phase", "Succeeded")
        if phase not in PHASES:
            raise fail(f"phase must be Succeeded or Failed, got {phase!r}", f"{path}.phase")
        namespace = raw.get("namespace") or "default"
        if not isinstance(namespace, str):
            raise fail("expected a namespace name", f"{path}.namespace")
        action = Finish(name=name, namespace=namespace, phase=phase)
    elif action_name == "setDeviceCondition":
        action = _parse_condition(raw, path, fail)
    elif action_name is None:
        raise fail(f'missing "action" ({ACTIONS})', f"{path}.action")
    else:
        raise fail(f"unknown action {action_name!r} (expected {ACTIONS})", f"{path}.action")
    return TimelineEvent(at=at, text=str(raw["at"]), action=action, path=path)


def _parse_condition(raw: dict[str, Any], path: str, fail: Callable[..., InputError]) -> SetDeviceCondition:
    _only(raw, {"at", "action", "device", "claim", "namespace", "type", "status", "reason", "message"},
          f"{path}.", fail)
    device = raw.get("device")
    parts = device.split("/") if isinstance(device, str) else []
    if len(parts) != 3 or not all(parts):
        raise fail("expected driver/pool/device", f"{path}.device")
    ctype = raw.get("type")
    if not isinstance(ctype, str) or not ctype:
        raise fail("missing type (the condition to set)", f"{path}.type")
    status = raw.get("status", "True")
    if status is True or status is False:
        status = str(status)  # YAML reads an unquoted True as a boolean
    if status not in CONDITION_STATUSES:
        raise fail(f"status must be True, False or Unknown, got {status!r}", f"{path}.status")
    texts: dict[str, str | None] = {}
    for key in ("claim", "namespace", "reason", "message"):
        value = raw.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise fail("expected a non-empty string", f"{path}.{key}")
        texts[key] = value
    return SetDeviceCondition(driver=parts[0], pool=parts[1], device=parts[2], type=ctype, status=status,
                              reason=texts["reason"], message=texts["message"], claim=texts["claim"],
                              namespace=texts["namespace"] or "default")


def _decode(data: Any, path: str, source: str, obj: str, fail: Callable[..., InputError],
            unserved: list[tuple[str, str, str]]) -> KubeObject | None:
    """One object an apply action names; None for a version no release drasim simulates serves (added to
    `unserved`, for admission to reject)."""
    if is_timeline(data):
        raise fail("a timeline cannot apply another timeline", path)
    warnings: list[str] = []
    before = len(unserved)
    decoded = decode_object(data, source=source, warnings=warnings, where=f"{obj} {path}", unserved=unserved)
    if decoded is None and len(unserved) > before:
        return None
    if decoded is None:
        why = warnings[0].rpartition("skipped: ")[2] if warnings else "not a Kubernetes object"
        raise fail(f"cannot apply: {why}", path)
    return decoded


def resolve_files(timeline: Timeline, load: Callable[[str], Sequence[KubeObject] | Apply]) -> Timeline:
    """A copy whose `file:` applies carry the objects `load(file)` returns (a sequence, or an `Apply` with
    their apiVersions). `file` is passed as written: the edge that owns file access resolves it against the
    Timeline's own folder (`sources.inputs`)."""
    events = []
    for ev in timeline.events:
        if isinstance(ev.action, Apply) and ev.action.file is not None and not ev.action.objects:
            loaded = load(ev.action.file)
            action = replace(loaded, file=ev.action.file) if isinstance(loaded, Apply) else \
                Apply(objects=tuple(loaded), file=ev.action.file)
            ev = replace(ev, action=action)
        events.append(ev)
    return Timeline(name=timeline.name, source=timeline.source, events=events)


def schedule(timelines: Sequence[Timeline], start: datetime) -> list[ScheduledAction]:
    """All actions at absolute times (relative ones counted from `start`), in time order; ties keep the
    order of the timelines and of their events. A timeline whose events mix absolute and relative times
    out of order is an `InputError`."""
    out: list[tuple[datetime, int, int, ScheduledAction]] = []
    for t_index, timeline in enumerate(timelines):
        last: datetime | None = None
        for e_index, ev in enumerate(timeline.events):
            try:
                when = _resolve(ev.at, start)
            except OverflowError:
                raise InputError(f"{ev.text!r} is past the year 9999 (the simulation starts at {start.isoformat()})",
                                 source=timeline.source, obj=timeline.ref, path=f"{ev.path}.at") from None
            if last is not None and when < last:
                raise InputError(f"{ev.text!r} ({when.isoformat()}) is earlier than the event before it "
                                 f"({last.isoformat()}); list events in time order",
                                 source=timeline.source, obj=timeline.ref, path=f"{ev.path}.at")
            last = when
            out.append((when, t_index, e_index, ScheduledAction(when, ev.action, timeline, ev)))
    out.sort(key=lambda item: item[:3])
    return [item[3] for item in out]


# --- running actions ------------------------------------------------------------------------------

def _key(obj: Any) -> tuple[str, str]:
    return (obj.metadata.namespace or "default", obj.metadata.name)


def _existing(state: ClusterState, obj: Any) -> Any:
    name = obj.metadata.name
    if isinstance(obj, Pod):
        return state.pods.get(_key(obj))
    if isinstance(obj, ResourceClaim):
        return state.claims.get(_key(obj))
    if isinstance(obj, _WORKLOADS):
        return next((w for w in state.workloads if w.kind == obj.kind and _key(w) == _key(obj)), None)
    table: dict[Any, Any] = {
        "ResourceSlice": state.slices, "DeviceTaintRule": state.taint_rules, "DeviceClass": state.classes,
        "Node": state.nodes, "Namespace": state.namespaces,
    }
    if obj.kind == "ResourceClaimTemplate":
        return state.templates.get(_key(obj))
    if obj.kind == "PodGroup":
        return state.pod_groups.get(_key(obj))
    return table[obj.kind].get(name) if obj.kind in table else None


def _stamp_taints(obj: DeviceTaintRule | ResourceSlice, old: Any, now: datetime) -> None:
    """The API server sets a missing timeAdded; an unchanged taint of the stored object keeps its time."""
    if isinstance(obj, DeviceTaintRule):
        taint = obj.spec.taint
        same_effect = old is not None and old.spec.taint.effect == taint.effect
        if taint.time_added is None:
            taint.time_added = old.spec.taint.time_added if same_effect else now
        elif old is not None and not same_effect and taint.time_added == old.spec.taint.time_added:
            taint.time_added = now  # a new effect with the old time: the server restarts the clock
        return
    before = {(d.name, t.key, t.value, t.effect): t.time_added
              for d in (old.spec.devices if old is not None else []) for t in d.taints}
    for device in obj.spec.devices:
        for taint in device.taints:
            if taint.time_added is None:
                taint.time_added = before.get((device.name, taint.key, taint.value, taint.effect)) or now


def _apply_one(state: ClusterState, obj: Any, seed: int, taken: FreshPodUids) -> Event:
    obj = clone(obj)  # a timeline can run more than once
    meta = obj.metadata
    if getattr(obj, "NAMESPACED", False) and not meta.namespace:
        meta.namespace = "default"
    old = _existing(state, obj)
    if old is not None:
        meta.uid = meta.uid or old.metadata.uid
        meta.creation_timestamp = meta.creation_timestamp or old.metadata.creation_timestamp
    meta.creation_timestamp = meta.creation_timestamp or state.now
    if isinstance(obj, DeviceTaintRule | ResourceSlice):
        _stamp_taints(obj, old, state.now)
    if isinstance(obj, DeviceTaintRule):
        generation = (old.metadata.generation or 1) if old is not None else 0
        meta.generation = generation if old is not None and old.spec == obj.spec else generation + 1
        if obj.status is None and old is not None:
            obj.status = old.status
    if isinstance(obj, Pod) and old is not None:
        # Pod spec is mostly immutable: a re-applied pod keeps where it runs and its status.
        obj.spec.node_name = obj.spec.node_name or old.spec.node_name
        obj.status = obj.status or old.status
    elif isinstance(obj, Pod) and not meta.uid:
        # A new pod, never the one an old reservation under the same name meant.
        meta.uid = taken.fresh(meta.namespace, meta.name, seed)
    if isinstance(obj, _WORKLOADS):
        if old is not None:
            state.workloads[state.workloads.index(old)] = obj
        else:
            state.workloads.append(obj)
    else:
        state.add(obj)
        taken.stored(obj, replaced=old is not None)
    return Event(state.now, NORMAL, ref(obj), "Applied", "configured" if old is not None else "created")


def _delete(state: ClusterState, action: Delete) -> Event:
    ns, name, kind = action.namespace or "default", action.name, action.kind
    what = f"{kind}/{action.namespace}/{name}" if action.namespace else f"{kind}/{name}"
    found: Any = None
    if kind == "Pod":
        found = state.pods.get((ns, name))
        state.delete_pod((ns, name))
    elif kind == "ResourceClaim":
        found = state.claims.get((ns, name))
        if found is not None and found.metadata.finalizers:
            # Deleted for real once the claim controller released its finalizer.
            found.metadata.deletion_timestamp = found.metadata.deletion_timestamp or state.now
            return Event(state.now, NORMAL, what, "Deleting",
                         f"waiting for finalizers {', '.join(found.metadata.finalizers)}")
        state.delete_claim((ns, name))
    elif kind == "ResourceClaimTemplate":
        found = state.templates.pop((ns, name), None)
    elif kind == "PodGroup":
        found = state.pod_groups.pop((ns, name), None)
    elif kind in ("Deployment", "ReplicaSet", "StatefulSet", "Job"):
        found = next((w for w in state.workloads if w.kind == kind and _key(w) == (ns, name)), None)
        if found is not None:
            state.workloads.remove(found)  # owned objects go with the next WorkloadController pass
    else:
        table: dict[str, dict[str, Any]] = {
            "ResourceSlice": state.slices, "DeviceTaintRule": state.taint_rules, "DeviceClass": state.classes,
            "Node": state.nodes, "Namespace": state.namespaces,
        }
        found = table[kind].pop(name, None)
        if found is not None and kind in ("ResourceSlice", "DeviceTaintRule"):
            state.slices_changed()
        elif found is not None and kind == "Node":
            state.nodes_changed()
    if found is None:
        return Event(state.now, WARNING, what, "NotFound", "nothing to delete")
    return Event(state.now, NORMAL, what, "Deleted", "deleted")


def _finish(state: ClusterState, action: Finish) -> Event:
    pod = state.pods.get((action.namespace, action.name))
    what = f"Pod/{action.namespace}/{action.name}"
    if pod is None:
        return Event(state.now, WARNING, what, "NotFound", f"cannot finish: no such pod (phase {action.phase})")
    if pod.status is None:
        pod.status = PodStatus()
    pod.status.phase = action.phase
    state.pod_changed((action.namespace, action.name))
    return Event(state.now, NORMAL, what, action.phase, f"pod {action.phase.lower()}")


def execute(state: ClusterState, action: Action, *, seed: int = 0) -> list[Event]:
    """Run one action against the state at `state.now`. Applied objects are copied; a missing
    `timeAdded`, `creationTimestamp` or namespace is filled in as the API server does, and a
    DeviceTaintRule's `metadata.generation` grows when its spec changes; a new pod without UID gets
    `fresh_pod_uid(..., seed=seed)`. A missing target is a Warning event, not an error (it may have been
    evicted or collected)."""
    if isinstance(action, Apply):
        if action.file is not None and not action.objects:
            raise InputError("the file of this apply action was not read: call resolve_files first",
                             source=action.file)
        taken = FreshPodUids(state)
        return [_apply_one(state, obj, seed, taken) for obj in action.objects]
    if isinstance(action, Delete):
        return [_delete(state, action)]
    if isinstance(action, SetDeviceCondition):
        return [_set_device_condition(state, action)]
    return [_finish(state, action)]


def _set_device_condition(state: ClusterState, action: SetDeviceCondition) -> Event:
    """What a DRA driver does in `status.devices[]` of the claim holding the device (condition types are
    unique per device; lastTransitionTime moves when the status changes)."""
    device = f"{action.driver}/{action.pool}/{action.device}"
    holders = []
    for key, claim in sorted(state.claims.items()):
        if action.claim is not None and key != (action.namespace, action.claim):
            continue
        allocation = claim.status.allocation if claim.status is not None else None
        if allocation is not None and any((r.driver, r.pool, r.device) == (action.driver, action.pool, action.device)
                                          for r in allocation.devices.results):
            holders.append(claim)
    if not holders:
        what = f"ResourceClaim/{action.namespace}/{action.claim}" if action.claim else f"Device/{device}"
        return Event(state.now, WARNING, what, "NotFound", f"no allocated claim holds device {device}")
    for claim in holders:
        assert claim.status is not None
        entry = next((d for d in claim.status.devices
                      if (d.driver, d.pool, d.device) == (action.driver, action.pool, action.device)), None)
        if entry is None:
            entry = AllocatedDeviceStatus(driver=action.driver, pool=action.pool, device=action.device)
            claim.status.devices = [*claim.status.devices, entry]
        old = next((c for c in entry.conditions if c.type == action.type), None)
        since = old.last_transition_time if old is not None and old.status == action.status else state.now
        new = Condition(type=action.type, status=action.status, last_transition_time=since,
                        reason=action.reason or action.type, message=action.message or "")
        entry.conditions = [new if c.type == action.type else c for c in entry.conditions] if old is not None \
            else [*entry.conditions, new]
    names = ", ".join(f"{c.metadata.namespace or 'default'}/{c.metadata.name}" for c in holders)
    return Event(state.now, NORMAL, f"Device/{device}", "DeviceCondition",
                 f"{action.type}={action.status} on claim {names}")


# --- run time -----------------------------------------------------------------------------------

def run_for(pod: Pod) -> timedelta | None:
    """The pod's `drasim.dev/run-for` duration, or None. A bad value is an InputError naming the pod."""
    text = pod.metadata.annotations.get(RUN_FOR_ANNOTATION)
    if text is None:
        return None
    try:
        return parse_duration(text)
    except ValueError as err:
        raise InputError(str(err), obj=ref(pod), path=f"metadata.annotations[{RUN_FOR_ANNOTATION}]") from None


@dataclass
class RunTracker:
    """Finishes pods annotated `drasim.dev/run-for` that long after they were first seen bound to a node.

    Call `observe` after every scheduling step (pods are keyed by UID, so a replacement starts afresh),
    `next_finish` to know when to wake up, and `finish_due` at that time.
    """

    started: dict[str, datetime] = field(default_factory=dict)

    @staticmethod
    def _id(pod: Pod) -> str:
        return pod.metadata.uid or f"{pod.metadata.namespace or 'default'}/{pod.metadata.name}"

    def _running(self, state: ClusterState) -> Iterable[tuple[Pod, timedelta]]:
        # The annotation is looked at first and only the pods carrying it are sorted (by key, the order
        # the durations are read and a bad one reported in): three passes a round over 50,000 pods, of
        # which usually none has it, cost ~2 % of such a run when every key was sorted.
        found = []
        for key, pod in state.pods.items():
            if RUN_FOR_ANNOTATION not in pod.metadata.annotations:
                continue
            if not pod.spec.node_name or pod.metadata.deletion_timestamp is not None:
                continue
            if pod.status is not None and pod.status.phase in PHASES:
                continue
            found.append((key, pod))
        found.sort(key=itemgetter(0))
        for _key, pod in found:
            duration = run_for(pod)
            if duration is not None:
                yield pod, duration

    def observe(self, state: ClusterState) -> None:
        """Note the start of every bound, running pod with a run time."""
        for pod, _ in self._running(state):
            self.started.setdefault(self._id(pod), _aware(state.now))

    def next_finish(self, state: ClusterState) -> datetime | None:
        """The earliest time a running pod finishes (may be at or before `state.now`)."""
        times = [later(self.started[self._id(p)], d) for p, d in self._running(state) if self._id(p) in self.started]
        return min(times) if times else None

    def finish_due(self, state: ClusterState) -> list[Event]:
        """Mark Succeeded every pod whose run time is over."""
        events = []
        now = _aware(state.now)
        for pod, duration in list(self._running(state)):
            start = self.started.get(self._id(pod))
            if start is not None and later(start, duration) <= now:
                if pod.status is None:
                    pod.status = PodStatus()
                pod.status.phase = "Succeeded"
                state.pod_changed((pod.metadata.namespace or "default", pod.metadata.name))
                events.append(Event(state.now, NORMAL, ref(pod), "Succeeded",
                                    f"pod succeeded after running for {pod.metadata.annotations[RUN_FOR_ANNOTATION]}"))
        return events


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)
