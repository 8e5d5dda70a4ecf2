"""`drasim doctor`'s checks: what a cluster (or a dump) publishes and asks for, in one read-only pass."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from drasim.allocator.celmatch import SelectorMemo
from drasim.api import core
from drasim.api import resource as r
from drasim.api.meta import object_ref
from drasim.api.profile import parse_minor
from drasim.cel import CelCompileError, CelRuntimeError, compile_selector
from drasim.cluster.snapshot import ClusterSnapshot
from drasim.cluster.taintrules import rule_selects
from drasim.doctor.inventory import drivers, pools
from drasim.doctor.model import (
    MAX_VALUES,
    ClassInfo,
    DoctorReport,
    DriverInfo,
    Finding,
    PoolInfo,
    TaintRuleInfo,
    cel_string,
)
from drasim.doctor.release import check_api, check_version, features_for, minor_key

_PRODUCT_NAMES = re.compile(r"product|model|type|family", re.IGNORECASE)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


def _ref(obj: Any) -> str:
    return object_ref(obj.kind, obj.metadata)


def diagnose(snapshot: ClusterSnapshot) -> DoctorReport:
    """Run every check on `snapshot`; deterministic (findings and inventory sorted) and side-effect free."""
    objs = snapshot.objects
    slices = [o for o in objs if isinstance(o, r.ResourceSlice)]
    classes = sorted((o for o in objs if isinstance(o, r.DeviceClass)), key=lambda o: o.metadata.name)
    claims = [o for o in objs if isinstance(o, r.ResourceClaim)]
    templates = [o for o in objs if isinstance(o, r.ResourceClaimTemplate)]
    rules = sorted((o for o in objs if isinstance(o, r.DeviceTaintRule)), key=lambda o: o.metadata.name)
    nodes = [o for o in objs if isinstance(o, core.Node)]
    pods = [o for o in objs if isinstance(o, core.Pod)]

    minor = parse_minor(snapshot.server_version)
    findings: list[Finding] = []
    findings += check_version(snapshot.server_version, minor)
    findings += check_api(snapshot, minor)
    features = features_for(minor, snapshot.feature_gates)
    if features:
        on = [g.name for g in features if g.enabled]
        off = [g.name for g in features if not g.enabled]
        findings.append(Finding(
            "feature-gates", "ok",
            f"Kubernetes {minor} defaults: {len(on)} DRA gate(s) on, {len(off)} off (the cluster may override "
            "them with --feature-gates)",
            details=tuple(f"{g.name}: {g.maturity}, {'on' if g.enabled else 'off'} — {g.about}" for g in features)))

    # Pools and drivers use the newest generation of each pool, like the scheduler.
    current, pool_infos = pools(slices)
    driver_infos = drivers(current, pool_infos)
    class_infos: list[ClassInfo] = []
    rule_infos: list[TaintRuleInfo] = []
    if snapshot.resource_versions != ():  # without the API there is nothing DRA to look at
        findings += _check_drivers(driver_infos, slices)
        findings += _check_pools(pool_infos)
    findings += _check_nodes(current, nodes)
    if snapshot.resource_versions != ():
        class_infos, class_findings = _check_classes(classes, current)
        findings += class_findings
        rule_infos, rule_findings = _check_taint_rules(rules, current, snapshot, minor)
        findings += rule_findings
        findings += _check_device_taints(current)
        findings += _check_claims(claims, templates, pods, classes)
    if snapshot.rejected:
        findings.append(Finding("rejected-at-admission", "error",
                                f"the API server of {snapshot.admitted_as or 'the release'} would reject objects "
                                f"({_plural(len(snapshot.rejected), 'problem')}): they are left out of every check",
                                details=tuple(snapshot.rejected)))
    if snapshot.admission_warnings:
        findings.append(Finding("admission-warnings", "warn",
                                f"{_plural(len(snapshot.admission_warnings), 'warning')} from admission (fields "
                                "of disabled feature gates dropped, objects defined twice)",
                                details=tuple(snapshot.admission_warnings)))
    if snapshot.warnings:
        findings.append(Finding("unread-objects", "warn",
                                f"{_plural(len(snapshot.warnings), 'object')} or files could not be read and were "
                                "left out", details=tuple(snapshot.warnings)))

    counts = Counter(o.kind for o in objs)
    return DoctorReport(source=snapshot.source, server_version=snapshot.server_version, minor=minor,
                        resource_versions=snapshot.resource_versions, read_versions=dict(snapshot.read_versions),
                        features=features, findings=findings, drivers=driver_infos, classes=class_infos,
                        taint_rules=rule_infos, objects=dict(counts))


def _check_drivers(drivers: list[DriverInfo], slices: list[r.ResourceSlice]) -> list[Finding]:
    if not slices:
        return [Finding("drivers", "warn", "no ResourceSlices: no DRA driver publishes devices (is the driver's "
                                           "kubelet plugin running on the GPU nodes?)")]
    verb = "publishes" if len(drivers) == 1 else "publish"
    out = [Finding("drivers", "ok", f"{_plural(len(drivers), 'driver')} {verb} "
                                    f"{_plural(sum(d.devices for d in drivers), 'device')} in "
                                    f"{_plural(sum(len(d.pools) for d in drivers), 'pool')}",
                   details=tuple(f"{d.name}: {_plural(d.devices, 'device')}, {_plural(len(d.pools), 'pool')}, "
                                 f"{_plural(d.nodes, 'node')}" for d in drivers))]
    for d in drivers:
        products = [a for a in d.attributes if a.type == "string" and _PRODUCT_NAMES.search(a.name)
                    and a.distinct <= MAX_VALUES]
        if products:
            out.append(Finding("driver-attributes", "ok",
                               f"{d.name} publishes {_plural(len(d.attributes), 'attribute')}; use these exact "
                               "strings in CEL selectors",
                               details=tuple(f"{a.qualified} = {', '.join(cel_string(v) for v in a.values)}  "
                                             f"e.g. {a.cel()}" for a in products)))
        if d.devices == 0:
            out.append(Finding("driver-devices", "warn", f"{d.name} publishes slices without any devices"))
        for a in d.attributes:
            if "/" in a.type:
                out.append(Finding("attribute-types", "warn",
                                   f"{d.name}: attribute {a.qualified} has different types on different devices "
                                   f"({a.type}): a selector comparing it fails with a runtime error on some"))
    return out


def _check_pools(pools: list[PoolInfo]) -> list[Finding]:
    out = []
    for p in pools:
        ref = f"{p.driver}/{p.name}"
        if len(p.counts) > 1:
            out.append(Finding("pool-incomplete", "error",
                               f"pool {ref}: slices of generation {p.generation} disagree on resourceSliceCount "
                               f"({', '.join(map(str, p.counts))}): the scheduler treats the pool as incomplete "
                               "and allocates none of its devices"))
        elif p.slices < p.expected:
            out.append(Finding("pool-incomplete", "error",
                               f"pool {ref} is incomplete: {p.slices} of {p.expected} slices of generation "
                               f"{p.generation} published; the scheduler allocates none of its devices (and every "
                               "allocationMode: All request on its nodes fails) until the rest appear. If this "
                               f"persists, check the {p.driver} driver on {p.scope}"))
        elif p.slices > p.expected:
            out.append(Finding("pool-incomplete", "error",
                               f"pool {ref}: {p.slices} slices of generation {p.generation} but resourceSliceCount "
                               f"is {p.expected}: the scheduler treats the pool as incomplete (a driver bug: two "
                               "publishers for one pool?)"))
        if p.stale_slices:
            out.append(Finding("pool-stale-slices", "warn",
                               f"pool {ref}: {_plural(p.stale_slices, 'slice')} of an older generation still "
                               "present (ignored by the scheduler; the driver normally deletes them)"))
    if pools and not out:
        out.append(Finding("pools", "ok", f"all {_plural(len(pools), 'pool')} complete"))
    return out


def _check_nodes(current: list[r.ResourceSlice], nodes: list[core.Node]) -> list[Finding]:
    if not nodes:
        return []
    names = {n.metadata.name for n in nodes}
    local = {s.spec.node_name for s in current if s.spec.node_name}
    missing = sorted(local - names)
    out = [Finding("nodes", "ok", f"{_plural(len(nodes), 'node')}, {len(local & names)} with node-local DRA "
                                  "devices")]
    if missing:
        out.append(Finding("nodes-missing", "warn",
                           f"ResourceSlices for {_plural(len(missing), 'node')} that do not exist (a removed node "
                           "whose slices were not cleaned up?)", details=tuple(missing)))
    return out


def _check_classes(classes: list[r.DeviceClass], current: list[r.ResourceSlice]
                   ) -> tuple[list[ClassInfo], list[Finding]]:
    if not classes:
        return [], [Finding("device-classes", "warn", "no DeviceClasses: every claim names a class; install the "
                                                      "classes your DRA driver ships (its Helm chart)")]
    memo = SelectorMemo()
    devices = [(s.spec.driver, d) for s in current for d in s.spec.devices]
    infos, out = [], []
    for cls in classes:
        info = ClassInfo(name=cls.metadata.name, extended_resource_name=cls.spec.extended_resource_name)
        infos.append(info)
        expressions = [sel.cel.expression for sel in cls.spec.selectors if sel.cel is not None]
        errors: Counter[str] = Counter()
        drivers: set[str] = set()
        try:
            for expr in expressions:  # compile first: a broken class matters even with no devices yet
                compile_selector(expr)
            for driver, dev in devices:
                for expr in expressions:
                    outcome = memo.evaluate(expr, driver, dev)
                    if isinstance(outcome, CelRuntimeError):
                        errors[f"{driver}: {outcome.message}"] += 1
                        break
                    if not outcome:
                        break
                else:
                    info.devices += 1
                    drivers.add(driver)
        except CelCompileError as err:
            info.compile_error = err.message
            out.append(Finding("device-class-selector", "error",
                               f"DeviceClass {info.name}: selector does not compile; no claim using it can be "
                               f"allocated: {err.message}", obj=_ref(cls)))
            continue
        info.drivers = sorted(drivers)
        info.runtime_errors = sum(errors.values())
        if errors:
            out.append(Finding("device-class-selector", "warn",
                               f"DeviceClass {info.name}: selector fails with a CEL runtime error on "
                               f"{_plural(info.runtime_errors, 'device')} (does it read an attribute those devices "
                               "do not publish?); the scheduler skips them", obj=_ref(cls),
                               details=tuple(f"{n}x {msg}" for msg, n in sorted(errors.items()))))
        if devices and info.devices == 0 and not errors:  # runtime errors already explain an empty class
            out.append(Finding("device-class-empty", "warn",
                               f"DeviceClass {info.name} matches none of the {_plural(len(devices), 'device')} "
                               "published", obj=_ref(cls)))
    with_devices = sum(1 for i in infos if i.devices)
    out.insert(0, Finding("device-classes", "ok", f"{_plural(len(classes), 'DeviceClass')}, {with_devices} "
                                                   "matching published devices",
                          details=tuple(f"{i.name}: {_plural(i.devices, 'device')}" for i in infos)))
    return infos, out


def _selector_text(sel: r.DeviceTaintSelector | None) -> str:
    if sel is None:
        return "(none)"
    parts = [f"{k}={v}" for k, v in (("driver", sel.driver), ("pool", sel.pool), ("device", sel.device))
             if v is not None]
    return ", ".join(parts) if parts else "{} (every device)"


def _check_taint_rules(rules: list[r.DeviceTaintRule], current: list[r.ResourceSlice],
                       snapshot: ClusterSnapshot, minor: str | None
                       ) -> tuple[list[TaintRuleInfo], list[Finding]]:
    out: list[Finding] = []
    read = snapshot.read_versions.get("DeviceTaintRule")
    if not rules:
        if read is not None:
            out.append(Finding("device-taint-rules", "ok", f"no DeviceTaintRules ({read} served)"))
        elif snapshot.resource_versions:
            key = minor_key(minor) if minor else (1, 37)
            when = ("DeviceTaintRules arrived in 1.33" if key < (1, 33)
                    else "it needs the DRADeviceTaints gate and resource.k8s.io/v1alpha3 in --runtime-config"
                    if key < (1, 36)
                    else "it needs the DRADeviceTaintRules gate and resource.k8s.io/v1beta2 in --runtime-config"
                    if key < (1, 37) else "v1 is served by default from 1.37: check --runtime-config")
            out.append(Finding("device-taint-rules", "ok", f"DeviceTaintRule API not served ({when})"))
        return [], out
    devices = [(s.spec.driver, s.spec.pool.name, d.name) for s in current for d in s.spec.devices]
    infos = []
    for rule in rules:
        sel = rule.spec.device_selector
        # The eviction controller's reading (nil matches nothing); the scheduler's nil quirk is reported below.
        matched = sum(1 for d, p, n in devices if rule_selects(rule, d, p, n, nil_matches_all=False))
        info = TaintRuleInfo(name=rule.metadata.name, selector=_selector_text(sel), taint=str(rule.spec.taint),
                             devices=matched)
        infos.append(info)
        ref = _ref(rule)
        if sel is not None and sel.driver is None and sel.pool is None and sel.device is None:
            out.append(Finding("device-taint-rule-all", "error",
                               f"DeviceTaintRule {info.name} has an empty deviceSelector: it taints every device "
                               f"in the cluster ({info.taint})" + (", evicting every pod using DRA devices"
                                                                   if rule.spec.taint.effect == "NoExecute" else ""),
                               obj=ref))
        elif sel is None:
            out.append(Finding("device-taint-rule-nil", "warn",
                               f"DeviceTaintRule {info.name} has no deviceSelector: documented to match nothing, "
                               "but the 1.36 scheduler treats it as every device (fixed upstream by PR #141648)",
                               obj=ref))
        elif matched == 0:
            out.append(Finding("device-taint-rule-unmatched", "warn",
                               f"DeviceTaintRule {info.name} ({info.selector}) matches no published device",
                               obj=ref))
        elif rule.spec.taint.effect == "NoExecute":
            out.append(Finding("device-taint-rule-noexecute", "warn",
                               f"DeviceTaintRule {info.name} ({info.taint}) evicts pods using "
                               f"{_plural(matched, 'device')} unless they tolerate it", obj=ref))
    out.insert(0, Finding("device-taint-rules", "ok", f"{_plural(len(rules), 'DeviceTaintRule')}"
                                                      + (f" (read as {read})" if read else ""),
                          details=tuple(f"{i.name}: {i.selector} -> {i.taint} ({_plural(i.devices, 'device')})"
                                        for i in infos)))
    return infos, out


def _check_device_taints(current: list[r.ResourceSlice]) -> list[Finding]:
    effects: Counter[str] = Counter()
    for s in current:
        for d in s.spec.devices:
            for t in d.taints:
                effects[t.effect or "(no effect)"] += 1
    if not effects:
        return []
    return [Finding("device-taints", "warn",
                    f"drivers taint {_plural(sum(effects.values()), 'device')} in their slices "
                    f"({', '.join(f'{n} {e}' for e, n in sorted(effects.items()))}): claims need tolerations "
                    "to use them")]


def _requests(spec: r.ResourceClaimSpec) -> list[tuple[str, str]]:
    out = []
    for req in spec.devices.requests:
        if req.exactly is not None:
            out.append((req.name, req.exactly.device_class_name))
        for sub in req.first_available or []:
            out.append((f"{req.name}/{sub.name}", sub.device_class_name))
    return out


def _check_claims(claims: list[r.ResourceClaim], templates: list[r.ResourceClaimTemplate],
                  pods: list[core.Pod], classes: list[r.DeviceClass]) -> list[Finding]:
    out = []
    known = {c.metadata.name for c in classes}
    owners: list[tuple[Any, r.ResourceClaimSpec]] = [(c, c.spec) for c in claims]
    owners += [(t, t.spec.spec) for t in templates]
    for obj, spec in sorted(owners, key=lambda x: _ref(x[0])):
        for req, class_name in _requests(spec):
            if class_name and class_name not in known:
                out.append(Finding("claim-class-missing", "error",
                                   f"{obj.kind} {obj.metadata.namespace}/{obj.metadata.name} request {req} names "
                                   f"DeviceClass {class_name}, which does not exist: it cannot be allocated",
                                   obj=_ref(obj)))
    allocated = sum(1 for c in claims if c.status is not None and c.status.allocation is not None)
    with_claims = [p for p in pods if p.spec.resource_claims]
    pending = sorted(f"{p.metadata.namespace}/{p.metadata.name}" for p in with_claims
                     if p.status is not None and p.status.phase == "Pending" and not p.spec.node_name)
    out.insert(0, Finding("claims", "ok", f"{_plural(len(claims), 'ResourceClaim')} ({allocated} allocated), "
                                          f"{_plural(len(templates), 'ResourceClaimTemplate')}, "
                                          f"{_plural(len(with_claims), 'pod')} using claims"))
    if pending:
        out.append(Finding("pods-pending", "warn",
                           f"{_plural(len(pending), 'pod')} with claims not scheduled yet (`drasim explain` tells "
                           "why)", details=tuple(pending)))
    return out

