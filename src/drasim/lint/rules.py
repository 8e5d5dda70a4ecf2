"""The lint rule catalogue, the cross-object rules that need no CEL, and `lint_objects` running them all."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from drasim import DEFAULT_KUBERNETES_VERSION
from drasim.api import core
from drasim.api import resource as r
from drasim.api.profile import ReleaseProfile, profile_for
from drasim.cluster import ClusterState
from drasim.lint.base import LintContext, LintFinding, Workload, ref_of
from drasim.lint.rules_cel import check_mig_profiles, check_selectors
from drasim.lint.rules_features import check_features
from drasim.lint.rules_pending import check_pending
from drasim.lint.rules_requests import (
    check_classes_exist,
    check_constraints,
    check_requests_match,
    check_unbacked_extended,
)
from drasim.lint.rules_taints import check_taint_rules
from drasim.lint.versions import LINT_VERSIONS, lint_features, normalize_lint_version
from drasim.sim.settle import settled_records, settled_state
from drasim.sim.timeline import Timeline
from drasim.validation.admission import Admission
from drasim.validation.findings import Finding
from drasim.validation.objects import validate_objects
from drasim.validation.pools import check_pools

__all__ = ["RULES", "Rule", "lint_objects"]


@dataclass(frozen=True, slots=True)
class Rule:
    """A lint rule's documentation: what it catches, why it matters, its severity."""

    id: str
    severity: str  # "error", "warning", or how it depends on the case
    what: str
    why: str


RULES: dict[str, Rule] = {rule.id: rule for rule in (
    Rule("api-validation", "error or warning, as the API server's validation says",
         "What the API server would reject (drasim validate): formats, limits, gated fields; and, as "
         "warnings, pools whose slices disagree (counter sets no slice declares, names used twice) or are missing.",
         "A rejected object never reaches the cluster; a dropped field silently changes what it does."),
    Rule("taint-rule-selects-all", "error for NoSchedule/NoExecute, warning for None",
         "A DeviceTaintRule with an empty `deviceSelector: {}`, with how many published and allocated "
         "devices and reserved pods it hits in the cluster as `drasim simulate` leaves the inputs.",
         "An empty selector matches every device of every driver: one NoExecute rule evicted every DRA "
         "pod of a cluster (kubernetes#141422)."),
    Rule("taint-rule-no-selector", "warning",
         "A DeviceTaintRule without `deviceSelector`.",
         "Documented as tainting nothing (the eviction controller agrees), but the 1.36 scheduler's slice "
         "tracker treated it as every device: scheduling and eviction disagree."),
    Rule("taint-rule-unrehearsed-noexecute", "warning",
         "A NoExecute DeviceTaintRule with no sign of a prior `None` rehearsal (a None rule with the same "
         "selector and key among the objects, or a NoEffect status condition).",
         "NoExecute evicts at once, regardless of disruption budgets; effect None reports what it would "
         "evict without doing it."),
    Rule("first-available-mixed-shapes", "warning",
         "A Deployment, ReplicaSet, StatefulSet or Job with more than one pod whose claim template has "
         "`firstAvailable` alternatives of different shape (class, count, allocation mode, capacity).",
         "Each pod's claim is allocated on its own, so replicas may come up with different alternatives."),
    Rule("cel-missing-attribute", "error for plain lookups, warning for has()/in/optional tests",
         "A selector reading an attribute or capacity that no device it is evaluated on publishes "
         "(devices of the drivers it requires, those the class's earlier selectors let through, or any "
         "published device).",
         "A missing name is the runtime error \"no such key\", which fails the whole allocation "
         "(fake-gpu-operator#189); a test for it is never true."),
    Rule("cel-runtime-error", "error",
         "A class or request selector that fails with a CEL runtime error on some published device it is "
         "evaluated on.",
         "The allocator aborts the allocation (the scheduler retries with back-off) whenever its search "
         "reaches such a device."),
    Rule("class-matches-nothing", "warning",
         "A DeviceClass whose selectors match none of the devices in the given ResourceSlices.",
         "Every request for the class stays unallocatable."),
    Rule("extended-resource-shared", "warning",
         "Several DeviceClasses with the same `extendedResourceName` (or one naming another class's "
         "implicit `deviceclass.resource.kubernetes.io/<class>`).",
         "The scheduler maps the name to one class only (newest wins, name breaks ties): pods and quota "
         "may follow a class nobody meant (kubernetes#133693)."),
    Rule("mig-profile-unknown", "warning",
         "A `profile` string compared in a selector that no GPU model of the fleet (productName in the "
         "slices, profiles from the bundled NVIDIA catalog) offers and no device publishes.",
         "The selector never matches; MIG profile names differ per model (1g.5gb vs 1g.10gb)."),
    Rule("feature-unavailable", "error, or warning where the gate is beta but off by default",
         "Fields and kinds whose feature gate the target release lacks or has off by default "
         "(firstAvailable before 1.34, partitionable devices, taints, consumable capacity, binding "
         "conditions and extended resources before 1.36, list-type attributes everywhere, ...).",
         "The API server drops gated fields it does not enable, so the object silently does less."),
    Rule("counters-in-device-slice", "error from 1.35, warning before",
         "A ResourceSlice with both `sharedCounters` and `devices`.",
         "From 1.35 counter sets must live in slices of their own; 1.34's combined layout is rejected "
         "after an upgrade."),
    Rule("request-matches-nothing", "error, or warning for one dead firstAvailable alternative among live ones",
         "A request or `firstAvailable` alternative of a claim or template that no published device matches "
         "(its class's selectors, then its own), with the selector that leaves none and the nearest miss: the "
         "values the devices publish against the value the selector needs; or whose selected devices cannot give "
         "the capacity it requests even when idle. Skipped (a note) without slices.",
         "The claim can never be allocated and its pod stays Pending forever; a selector copied from a guide "
         "(memory > 80Gi on H100s publishing 81559Mi, family == 'Flex') is a typical cause."),
    Rule("constraint-attribute-missing", "error, or warning when only some alternatives are affected",
         "A `matchAttribute`/`distinctAttribute` constraint on an attribute that none of the devices its "
         "requests could take publishes.",
         "The allocator rejects every device without the attribute (MIG partitions publish parentDeviceID, "
         "not deviceID), so the claim is never allocated."),
    Rule("device-class-not-found", "error",
         "A `deviceClassName` (of a request or of one `firstAvailable` alternative) naming no DeviceClass of "
         "the inputs. Skipped (a note) when the inputs hold no DeviceClass.",
         "The scheduler cannot allocate the request: the pod stays Pending."),
    Rule("extended-resource-unbacked", "error",
         "A container requesting an extended resource (`intel.com/gpu: 1`) that no Node of the inputs "
         "advertises and no DeviceClass maps with `extendedResourceName` (or its implicit name).",
         "The pod stays Pending with \"Insufficient <name>\"; nothing says that nothing backs the name."),
    Rule("pod-pending", "error",
         "A pod the simulation of the inputs (what `drasim simulate` runs) leaves Pending, per workload and "
         "scheduler message, with explain's hints. Skipped (a note) when the inputs hold no Node.",
         "One command answers \"will this work on that fleet\" before anything is applied."),
    Rule("first-available-fallback", "warning",
         "Pods of the simulation of the inputs that took a lower `firstAvailable` alternative while a feasible "
         "node offered a higher one (per workload, with the scores of both nodes).",
         "The prioritized-list score makes the first alternative more likely, not certain: resource and "
         "spreading scores can outweigh it, so part of a workload runs on the fallback."),
    Rule("counters-across-pools", "error",
         "A device consuming a counter set that only another pool declares.",
         "Counter sets are per pool; the allocator treats the consuming pool as invalid and allocates "
         "none of its devices."),
)}

# Lint rules that restate an api-validation finding at the same object and path, and the text that
# identifies the finding they replace.
_SUPERSEDES = {
    "feature-unavailable": "feature gate",
    "counters-in-device-slice": "sharedCounters",
    "counters-across-pools": "counter set not found",
}


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# --- counters -------------------------------------------------------------------------------------

def check_counters(ctx: LintContext) -> list[LintFinding]:
    """counters-in-device-slice and counters-across-pools."""
    out = []
    combined_ok = LINT_VERSIONS.index(ctx.version) < LINT_VERSIONS.index("1.35")
    for s in ctx.slices:
        if s.spec.shared_counters and s.spec.devices:
            out.append(LintFinding(
                "counters-in-device-slice", "warning" if combined_ok else "error", ref_of(s), "spec",
                "declares sharedCounters and devices in one ResourceSlice: from Kubernetes 1.35 the API "
                "server accepts only one of them per slice (only one of `sharedCounters` or `devices` is "
                "allowed); publish the counter sets in a slice of their own in the same pool",
            ))
    # A set per name: a fleet's MIG pools all declare counter sets of the same names (a list made the
    # membership test below linear in the number of pools, for every consumption).
    declared: dict[str, set[tuple[str, str]]] = {}
    names_of: dict[tuple[str, str], set[str]] = {}  # the names each pool declares
    for s in ctx.current_slices:
        for cs in s.spec.shared_counters:
            declared.setdefault(cs.name, set()).add((s.spec.driver, s.spec.pool.name))
            names_of.setdefault((s.spec.driver, s.spec.pool.name), set()).add(cs.name)
    for s in ctx.current_slices:
        pool = (s.spec.driver, s.spec.pool.name)
        if len(names_of.get(pool, ())) == len(declared):
            continue  # the pool declares every name declared anywhere: none of its devices can be reported
        for i, d in enumerate(s.spec.devices):
            if not d.consumes_counters:
                continue  # most devices: no enumerate over an empty list
            for j, cc in enumerate(d.consumes_counters):
                owners = declared.get(cc.counter_set)
                if not owners or pool in owners:
                    continue  # fine, or nowhere at all (api-validation reports that)
                where = ", ".join(sorted({f"{drv}/{name}" for drv, name in owners}))
                out.append(LintFinding(
                    "counters-across-pools", "error", ref_of(s),
                    f"spec.devices[{i}].consumesCounters[{j}].counterSet",
                    f'consumes counter set "{cc.counter_set}", which only pool {where} declares: counter '
                    f"sets are shared within one pool (driver and pool name) only, so the allocator treats "
                    f"pool {pool[0]}/{pool[1]} as invalid and allocates none of its devices. Declare the "
                    "counter set in a ResourceSlice of this pool",
                ))
    return out


# --- extended resources ---------------------------------------------------------------------------

_IMPLICIT_PREFIX = "deviceclass.resource.kubernetes.io/"


def check_extended_resources(ctx: LintContext) -> list[LintFinding]:
    """extended-resource-shared."""
    explicit: dict[str, list[r.DeviceClass]] = {}
    for cls in ctx.classes.values():
        name = cls.spec.extended_resource_name
        if name:
            explicit.setdefault(name, []).append(cls)
    out = []
    for name, classes in explicit.items():
        others_of: dict[str, list[str]] = {}
        implicit_owner = ctx.classes.get(name[len(_IMPLICIT_PREFIX):]) if name.startswith(_IMPLICIT_PREFIX) else None
        for cls in classes:
            others = [ref_of(o) for o in classes if o is not cls]
            if implicit_owner is not None and implicit_owner is not cls:
                others.append(f"{ref_of(implicit_owner)} (its implicit name)")
            if others:
                others_of[ref_of(cls)] = others
        for ref, others in others_of.items():
            out.append(LintFinding(
                "extended-resource-shared", "warning", ref, "spec.extendedResourceName",
                f'extended resource "{name}" is also provided by {", ".join(others)}: the scheduler maps it '
                "to one class only (the newest, ties broken by name), so pods requesting it, and quota, may "
                "follow a class you did not mean",
            ))
    return out


# --- firstAvailable in replicated workloads -------------------------------------------------------

def _pod_count(w: Workload) -> int:
    if isinstance(w, core.Job):
        # Pods over the Job's life: parallel ones, or one per completion.
        return max(w.spec.parallelism if w.spec.parallelism is not None else 1, w.spec.completions or 1)
    return w.spec.replicas if w.spec.replicas is not None else 1


def _shape(sub: r.DeviceSubRequest) -> tuple[str, str, int, tuple[tuple[str, str], ...]]:
    mode = sub.allocation_mode or "ExactCount"
    count = 0 if mode == "All" else (sub.count or 1)
    caps = tuple(sorted((k, str(v)) for k, v in (sub.capacity.requests if sub.capacity else {}).items()))
    return sub.device_class_name, mode, count, caps


def _shape_text(sub: r.DeviceSubRequest) -> str:
    cls, mode, count, caps = _shape(sub)
    text = f"all of {cls}" if mode == "All" else f"{count} x {cls}"
    if caps:
        text += " (" + ", ".join(f"{k}={v}" for k, v in caps) + ")"
    return f"{sub.name}: {text}"


def check_first_available_workloads(ctx: LintContext) -> list[LintFinding]:
    """first-available-mixed-shapes."""
    out = []
    for w in ctx.workloads:
        pods = _pod_count(w)
        if pods <= 1:
            continue
        ns = w.metadata.namespace or "default"
        for k, prc in enumerate(w.spec.template.spec.resource_claims):
            template = ctx.templates.get((ns, prc.resource_claim_template_name or ""))
            if template is None:
                continue
            for req in template.spec.spec.devices.requests:
                subs = req.first_available or []
                if len({_shape(s) for s in subs}) <= 1:
                    continue
                out.append(LintFinding(
                    "first-available-mixed-shapes", "warning", ref_of(w),
                    f"spec.template.spec.resourceClaims[{k}].resourceClaimTemplateName",
                    f"{_n(pods, 'pod')} get a claim each from ResourceClaimTemplate {ns}/{template.metadata.name}, "
                    f'whose request "{req.name}" has firstAvailable alternatives of different shape '
                    f"({'; '.join(_shape_text(s) for s in subs)}): every claim is allocated on its own, so "
                    "replicas may come up with different alternatives",
                ))
    return out


# --- running everything -----------------------------------------------------------------------------

_CHECKS: tuple[Callable[[LintContext], list[LintFinding]], ...] = (
    check_taint_rules,
    check_first_available_workloads,
    check_selectors,
    check_extended_resources,
    check_mig_profiles,
    check_features,
    check_counters,
    check_classes_exist,
    check_requests_match,
    check_constraints,
    check_unbacked_extended,
    check_pending,
)


def lint_objects(
    objects: Sequence[object],
    *,
    version: str = DEFAULT_KUBERNETES_VERSION,
    sources: Sequence[str] | None = None,
    skip: Sequence[str] = (),
    profile: ReleaseProfile | None = None,
    admission: Admission | None = None,
    timelines: Sequence[Timeline] = (),
    pending_hints: Callable[[ClusterState, tuple[str, str]], list[str]] | None = None,
) -> list[LintFinding]:
    """Every rule of RULES over `objects`, for the default feature gates of Kubernetes `version`.

    `sources` (parallel to `objects`) names each object's file; `skip` lists rule ids to leave out.
    With `profile` (the release plus --feature-gates) its gates decide. With `admission` (what the CLI
    admitted), the rules judge the admitted objects as written and its findings are the api-validation
    ones (rejected objects included); `objects` and `sources` are then ignored.
    Rules counting allocations (a taint rule's blast radius) read the cluster as `drasim simulate` leaves
    the objects and `timelines` under the same profile, before the DeviceTaintRules under lint take effect.
    pod-pending reads the cluster `drasim simulate` leaves all inputs in; `pending_hints(state, pod key)` puts
    why a pod stays Pending into words (the CLI passes explain's hints).
    Rules that cannot judge the inputs (no slices, no nodes) add one `info` finding saying so.
    Findings are ordered by object (input order), then path, rule and message: deterministic.
    """
    version = normalize_lint_version(profile.version if profile is not None else version)
    features = profile.validation_features() if profile is not None else lint_features(version)
    validation: list[tuple[str | None, Finding]]
    if admission is not None:
        objects, sources = admission.written, admission.sources
        slices = [o for o in admission.objects if isinstance(o, r.ResourceSlice)]
        validation = [*admission.findings, *((None, f) for f in check_pools(slices, features))]
    else:
        validation = [(None, f) for f in validate_objects(objects, features=features)]
    admitted = admission.objects if admission is not None else objects
    settle_profile = profile or profile_for(version, releases=LINT_VERSIONS)

    def settle() -> ClusterState:
        # The rules judge what each DeviceTaintRule would do: simulating them first would already have
        # evicted (NoExecute) or diverted (NoSchedule) the pods they are about.
        kept = [o for o in admitted if not isinstance(o, r.DeviceTaintRule)]
        return settled_state(kept, timelines, settle_profile)

    ctx = LintContext.build(objects, version, features, profile, settle)
    ctx.simulate = lambda: settled_records(admitted, timelines, settle_profile)
    ctx.pending_hints = pending_hints
    found: list[LintFinding] = []
    for check in _CHECKS:
        found.extend(check(ctx))
    if admission is not None and admission.rejected_written:
        # Why an object was rejected may be a feature its release lacks (a dropped field leaves it invalid).
        rejected = LintContext.build([o for _, o in admission.rejected_written], version, features, profile)
        source_by_ref = {ref_of(o): s for s, o in admission.rejected_written}
        found += [replace(f, source=source_by_ref.get(f.obj)) for f in check_features(rejected)]
    superseded = {
        (f.obj, path, _SUPERSEDES[f.rule]) for f in found if f.rule in _SUPERSEDES for path in (f.path, *f.covers)
    }
    for source, v in validation:
        if any((v.obj, v.path, needle) in superseded for needle in _SUPERSEDES.values() if needle in v.message):
            continue
        found.append(LintFinding("api-validation", v.severity, v.obj, v.path, v.body(), source))

    skipped = set(skip)
    found = [f for f in found if f.rule not in skipped]
    if not found:
        return []  # a clean fleet: no need to name its 11,000 objects for the order
    order: dict[str, int] = {}
    source_of: dict[str, str] = {}
    for i, obj in enumerate(objects):
        ref = ref_of(obj)
        order.setdefault(ref, i)
        if sources is not None and i < len(sources):
            source_of.setdefault(ref, sources[i])
    out = [LintFinding(f.rule, f.severity, f.obj, f.path, f.message, source_of.get(f.obj, f.source)) for f in found]
    out.sort(key=lambda f: (order.get(f.obj, len(order)), f.obj, _path_key(f.path), f.rule, f.message))
    return out


def _path_key(path: str) -> tuple[tuple[int, int | str], ...]:
    """`spec.devices[2]` before `spec.devices[10]`: numbers compare as numbers."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", path))
