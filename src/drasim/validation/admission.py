"""Admission as the API server does it: served version -> defaulting -> validation with the gates -> apply."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from drasim import releases
from drasim.api import resource as r
from drasim.api.clone import clone_objects
from drasim.api.core import Namespace, Pod
from drasim.api.defaults import default_claim, default_claim_spec, default_pod
from drasim.api.kinds import KubeObject
from drasim.api.meta import object_ref
from drasim.api.profile import GROUP, WORKLOAD_GATES, WORKLOAD_GROUP, ReleaseProfile
from drasim.errors import InputError
from drasim.validation.adminaccess import check_admin_access
from drasim.validation.checker import CelChecker
from drasim.validation.findings import Finding
from drasim.validation.objects import store_object

__all__ = ["Admission", "Submitted", "admit", "object_key"]


@dataclass(frozen=True)
class Submitted:
    """One decoded object, the file it came from and the apiVersion it was written in."""

    obj: KubeObject
    source: str
    api_version: str = ""
    live: bool = False  # read from a live cluster: its server served it, so no version check


@dataclass
class Admission:
    """The admitted objects (apply order, last definition wins) and every finding with its source.

    `findings` holds the validation findings of every submitted object (errors mean the object was
    rejected), version notes and replaced duplicates; `rejected` lists (source, object ref) once each.
    """

    objects: list[KubeObject] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # parallel to `objects`
    # Parallel to `objects`: each as written (defaulted), fields of disabled gates still there (for lint).
    written: list[KubeObject] = field(default_factory=list)
    findings: list[tuple[str, Finding]] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)
    # Rejected objects that were decoded, as written (defaulted): (source, object), for lint's per-object rules.
    rejected_written: list[tuple[str, KubeObject]] = field(default_factory=list)

    def errors(self) -> list[tuple[str, Finding]]:
        return [(s, f) for s, f in self.findings if f.severity == "error"]

    def warnings(self) -> list[tuple[str, Finding]]:
        return [(s, f) for s, f in self.findings if f.severity != "error"]


def object_key(obj: Any) -> tuple[str, str, str] | None:
    """(kind, namespace, name) identifying an object for apply; None for generateName-only objects."""
    name = obj.metadata.name
    if not name:
        return None
    namespaced = getattr(obj, "NAMESPACED", False)
    return (obj.KIND, (obj.metadata.namespace or "default") if namespaced else "", name)


def _ref(obj: Any) -> str:
    return object_ref(obj.KIND, obj.metadata)


def _no_matches(kind: str, api_version: str, profile: ReleaseProfile) -> str:
    text = f'no matches for kind "{kind}" in version "{api_version}"'
    if api_version.startswith(WORKLOAD_GROUP + "/"):
        if not releases.serves_pod_groups(profile.version):
            return f"{text} ({profile.describe()} has no {WORKLOAD_GROUP}/v1alpha2 PodGroups: they came in 1.36)"
        if not profile.gate("GenericWorkload"):
            return (f"{text} ({profile.describe()} serves PodGroups only with the GenericWorkload feature gate on; "
                    f"a gang with shared claims needs {', '.join(f'{g}=true' for g in WORKLOAD_GATES)} "
                    "in --feature-gates)")
        return f"{text} ({profile.describe()} has {WORKLOAD_GROUP}/v1alpha2)"
    versions = profile.api_versions(kind)
    if kind == "DeviceTaintRule" and versions and not profile.gate(profile.taint_rule_gate()):
        return (f"{text} ({profile.describe()} does not serve DeviceTaintRules: the {profile.taint_rule_gate()} "
                "feature gate is off; see --feature-gates)")
    if versions:
        return f"{text} ({profile.describe()} has {', '.join(f'{GROUP}/{v}' for v in versions)})"
    return text


def _version_check(obj: Any, api_version: str, profile: ReleaseProfile) -> Finding | None:
    status = profile.api_status(obj.KIND, api_version)
    if status == "served":
        return None
    if status == "absent":
        return Finding(_ref(obj), "apiVersion", "Message", _no_matches(obj.KIND, api_version, profile))
    return Finding(_ref(obj), "apiVersion", "Message",
                   f"{api_version} is not served by a default {profile.describe()} API server (it needs "
                   f"--runtime-config={api_version}=true); read as {GROUP}/v1", severity="warning")


def _served_version(kind: str, profile: ReleaseProfile) -> str:
    if kind in ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "DeviceTaintRule"):
        versions = profile.api_versions(kind)
        return f"{GROUP}/{versions[0] if versions else 'v1'}"
    if kind == "PodGroup":
        return f"{WORKLOAD_GROUP}/v1alpha2"
    return ""


def _default(obj: Any) -> None:
    """The API server's defaulting, in place (on admission's own copy, or an object handed over)."""
    if isinstance(obj, r.ResourceClaim):
        default_claim(obj)
    elif isinstance(obj, r.ResourceClaimTemplate):
        default_claim_spec(obj.spec.spec)
    elif isinstance(obj, Pod):
        default_pod(obj)


def admit(items: Iterable[Submitted], profile: ReleaseProfile, *,
          unserved: Sequence[tuple[str, str, str, str]] = (), cel_checker: CelChecker | None = None,
          check_versions: bool = True, owned: bool = False, unreadable: Sequence[InputError] = ()) -> Admission:
    """Admit `items` in order, as `kubectl apply -f` of the same inputs against a default API server of
    `profile` (with its feature gates). `unserved` lists documents the decoder could not read at all:
    (source, object ref, apiVersion, kind); they are rejected as the release would. Without
    `check_versions` every version drasim reads is taken as served (lint before 1.34, which has no v1).
    Defaulting works on copies (the objects given are never changed) unless `owned`: a caller that decoded
    them for this admission alone hands them over, saving the copy.
    `unreadable` lists documents that did not decode (unknown fields, wrong types): the API server refuses
    them too (strict decoding), so they are listed with the rejections."""
    out = Admission()
    features = profile.validation_features()
    for err in unreadable:
        out.findings.append((err.source or "", Finding(err.obj or "", err.path or "", "Message", err.message)))
        out.rejected.append((err.source or "", err.obj or ""))
    for source, ref, api_version, kind in unserved:
        finding = Finding(ref, "apiVersion", "Message", _no_matches(kind, api_version, profile))
        out.findings.append((source, finding))
        out.rejected.append((source, ref))
    position: dict[tuple[str, str, str], int] = {}
    served: set[tuple[str, str]] = set()  # (kind, apiVersion) found served: a fleet repeats two
    for item in items:
        obj, source = item.obj, item.source
        if check_versions and not item.live and (obj.KIND, item.api_version) not in served:
            # Objects without a recorded apiVersion (a Timeline's) still need their kind served.
            note = _version_check(obj, item.api_version or _served_version(obj.KIND, profile), profile)
            if note is None:
                served.add((obj.KIND, item.api_version))
            else:
                out.findings.append((source, note))
                if note.severity == "error":
                    out.rejected.append((source, note.obj))
                    continue
        if not owned:
            obj = clone_objects([obj])[0]
        _default(obj)
        stored, findings = store_object(obj, features=features, cel_checker=cel_checker)
        if findings:  # most objects have none: no generators to build for them
            out.findings.extend((source, f) for f in findings)
            if any(f.severity == "error" for f in findings):
                out.rejected.append((source, _ref(obj)))
                out.rejected_written.append((source, obj))
                continue
        key = object_key(stored)
        at = position.get(key) if key is not None else None
        if at is None:
            if key is not None:
                position[key] = len(out.objects)
            out.objects.append(stored)
            out.sources.append(source)
            out.written.append(obj)
            continue
        previous = out.sources[at]
        where = f"{previous} and again in {source}" if previous != source else f"{source} twice"
        out.findings.append((source, Finding(
            _ref(stored), "", "Message",
            f"defined in {where}: the later definition replaces the earlier one (as `kubectl apply` does)",
            severity="warning")))
        out.objects[at] = stored
        out.sources[at] = source
        out.written[at] = obj
    _admin_access(out)
    return out


_CLAIM_KINDS = (r.ResourceClaim, r.ResourceClaimTemplate)


def _admin_access(out: Admission) -> None:
    """Claims and templates asking for adminAccess in a namespace without the admin-access label."""
    claims = [(i, obj) for i, obj in enumerate(out.objects) if isinstance(obj, _CLAIM_KINDS)]
    if not claims:
        return  # a fleet: thousands of objects, none of them claims
    namespaces = {o.metadata.name: o for o in out.objects if isinstance(o, Namespace)}
    refused: set[int] = set()
    for i, obj in claims:
        problems = check_admin_access(obj, namespaces, strict=True)
        if problems:
            out.findings.extend((out.sources[i], f) for f in problems)
            out.rejected.append((out.sources[i], _ref(obj)))
            out.rejected_written.append((out.sources[i], out.written[i]))
            refused.add(i)
    if refused:
        keep = [i for i in range(len(out.objects)) if i not in refused]
        out.objects = [out.objects[i] for i in keep]
        out.sources = [out.sources[i] for i in keep]
        out.written = [out.written[i] for i in keep]
