"""The doctor's checks: a pure function from a cluster snapshot to findings and a DRA inventory."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal

from drasim.allocator.celmatch import SelectorMemo
from drasim.api import core
from drasim.api import resource as r
from drasim.api.convert import CONVERTIBLE_VERSIONS
from drasim.api.kinds import KubeObject
from drasim.api.meta import object_ref
from drasim.api.profile import GATES, RELEASES
from drasim.api.quantity import Quantity
from drasim.cel import CelCompileError, CelRuntimeError, compile_selector
from drasim.cluster.taintrules import rule_selects

__all__ = ["FEATURE_GATES", "AttributeInfo", "ClassInfo", "ClusterSnapshot", "DoctorReport", "DriverInfo",
           "FeatureGate", "Finding", "PoolInfo", "Severity", "TaintRuleInfo", "diagnose", "features_for",
           "parse_minor"]

Severity = Literal["ok", "warn", "error"]

# How many distinct values of one attribute the inventory lists before summarising.
MAX_VALUES = 8

# Gate maturity per release and what each gate is for: the release profile's table (api.profile).
_RELEASES = RELEASES
FEATURE_GATES: dict[str, tuple[tuple[str, ...], str]] = {name: (g.stages, g.about) for name, g in GATES.items()}

_MATURITY_WORDS = {"A": "alpha", "B-": "beta", "B+": "beta", "GA": "GA", "GA*": "GA"}
_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)")
# CEL words that cannot follow a `.`: such attribute names are written `["name"]`.
_CEL_RESERVED = frozenset({"as", "break", "const", "continue", "else", "false", "for", "function", "if",
                           "import", "in", "let", "loop", "package", "namespace", "null", "return", "true",
                           "var", "void", "while"})
_PRODUCT_NAMES = re.compile(r"product|model|type|family", re.IGNORECASE)


# --- inputs and outputs ---------------------------------------------------------------------------

@dataclass
class ClusterSnapshot:
    """What the doctor looks at: objects (decoded and converted to v1) and what the server said about itself.

    `server_version` is the API server's gitVersion (`v1.36.1`), None when unknown (a directory of manifests).
    `resource_versions` lists the resource.k8s.io versions served, in discovery order: empty when the group
    is not served, None when unknown. `read_versions` maps each kind read to the apiVersion it was listed in.
    """

    objects: list[KubeObject] = field(default_factory=list)
    server_version: str | None = None
    resource_versions: tuple[str, ...] | None = None
    read_versions: dict[str, str] = field(default_factory=dict)
    feature_gates: dict[str, bool] = field(default_factory=dict)  # the cluster's --feature-gates, when known
    source: str = ""
    warnings: list[str] = field(default_factory=list)
    # A dump read back: each object's file and apiVersion as written (parallel to `objects`), and documents
    # the decoder could not read at all (source, ref, apiVersion, kind), for the admission every command runs.
    sources: list[str] = field(default_factory=list)
    api_versions: list[str] = field(default_factory=list)
    unserved: list[tuple[str, str, str, str]] = field(default_factory=list)
    # What admission said (`FILE: KIND/NS/NAME: PATH: MESSAGE`): objects it rejected (left out of `objects`)
    # and its warnings (fields of disabled gates dropped, objects defined twice).
    rejected: list[str] = field(default_factory=list)
    admission_warnings: list[str] = field(default_factory=list)
    admitted_as: str = ""  # the release profile admission assumed ("Kubernetes 1.36")


@dataclass(frozen=True)
class Finding:
    """One result: a stable `id` (what was checked), a severity, one sentence, and optional detail lines."""

    id: str
    severity: Severity
    message: str
    obj: str | None = None
    details: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of `drasim doctor -o json`."""
        out: dict[str, Any] = {"id": self.id, "severity": self.severity, "message": self.message}
        if self.obj:
            out["object"] = self.obj
        if self.details:
            out["details"] = list(self.details)
        return out


@dataclass(frozen=True)
class FeatureGate:
    """A DRA feature gate as a release ships it by default."""

    name: str
    maturity: str  # alpha | beta | GA
    enabled: bool
    locked: bool
    about: str


@dataclass
class AttributeInfo:
    """One attribute (or capacity) name a driver publishes, with the values seen on its devices."""

    domain: str
    name: str
    type: str  # string | int | bool | version | strings | ... | quantity (capacities)
    devices: int = 0
    values: list[str] = field(default_factory=list)  # distinct, first MAX_VALUES in sorted order
    distinct: int = 0

    @property
    def qualified(self) -> str:
        return f"{self.domain}/{self.name}"

    def cel(self, capacity: bool = False) -> str:
        """A selector that picks devices with the first listed value (empty for list types)."""
        if not self.values or self.type in ("ints", "bools", "strings", "versions"):
            return ""
        member = f'["{self.name}"]' if self.name in _CEL_RESERVED else f".{self.name}"
        ref = f'device.{"capacity" if capacity else "attributes"}["{self.domain}"]{member}'
        value = self.values[0]
        if self.type == "string":
            return f"{ref} == {_cel_string(value)}"
        if self.type == "version":
            return f'{ref} == semver("{value}")'
        if self.type == "quantity":
            return f'{ref}.compareTo(quantity("{value}")) >= 0'
        return f"{ref} == {value}"

    def to_json(self, capacity: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"domain": self.domain, "name": self.name, "type": self.type,
                               "devices": self.devices, "distinct": self.distinct, "values": self.values}
        cel = self.cel(capacity)
        if cel:
            out["cel"] = cel
        return out


@dataclass
class PoolInfo:
    """One (driver, pool) across the cluster: the newest generation and whether all its slices are there."""

    driver: str
    name: str
    generation: int
    slices: int  # of the newest generation
    expected: int  # resourceSliceCount declared by those slices
    devices: int
    scope: str  # "node NAME", "all nodes", "node selector", "per device"
    stale_slices: int = 0  # of older generations, ignored by the scheduler
    counts: tuple[int, ...] = ()  # distinct resourceSliceCount values in the newest generation

    @property
    def complete(self) -> bool:
        return len(self.counts) <= 1 and self.slices == self.expected

    def to_json(self) -> dict[str, Any]:
        return {"driver": self.driver, "pool": self.name, "generation": self.generation, "slices": self.slices,
                "resourceSliceCount": self.expected, "complete": self.complete, "devices": self.devices,
                "scope": self.scope, "staleSlices": self.stale_slices}


@dataclass
class DriverInfo:
    """Everything one driver publishes: pools, device count, nodes, attribute and capacity names."""

    name: str
    pools: list[PoolInfo] = field(default_factory=list)
    devices: int = 0
    nodes: int = 0
    attributes: list[AttributeInfo] = field(default_factory=list)
    capacities: list[AttributeInfo] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "devices": self.devices, "nodes": self.nodes,
                "pools": [p.to_json() for p in self.pools],
                "attributes": [a.to_json() for a in self.attributes],
                "capacities": [c.to_json(capacity=True) for c in self.capacities]}


@dataclass
class ClassInfo:
    """A DeviceClass and the published devices its selectors pick."""

    name: str
    devices: int = 0
    drivers: list[str] = field(default_factory=list)
    runtime_errors: int = 0
    compile_error: str | None = None
    extended_resource_name: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "devices": self.devices, "drivers": self.drivers}
        if self.runtime_errors:
            out["runtimeErrors"] = self.runtime_errors
        if self.compile_error:
            out["compileError"] = self.compile_error
        if self.extended_resource_name:
            out["extendedResourceName"] = self.extended_resource_name
        return out


@dataclass
class TaintRuleInfo:
    """A DeviceTaintRule: its selector, taint and how many published devices it matches."""

    name: str
    selector: str
    taint: str
    devices: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "selector": self.selector, "taint": self.taint, "devices": self.devices}


@dataclass
class DoctorReport:
    """The result of `diagnose`: the server's profile, findings in check order, and the DRA inventory."""

    source: str
    server_version: str | None
    minor: str | None
    resource_versions: tuple[str, ...] | None
    read_versions: dict[str, str]
    features: list[FeatureGate]
    findings: list[Finding]
    drivers: list[DriverInfo]
    classes: list[ClassInfo]
    taint_rules: list[TaintRuleInfo]
    objects: dict[str, int]

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warn")

    def to_json(self) -> dict[str, Any]:
        """The whole report as JSON-ready builtins (the shape `drasim doctor -o json` prints)."""
        return {
            "source": self.source,
            "serverVersion": self.server_version,
            "kubernetesVersion": self.minor,
            "resourceVersions": list(self.resource_versions) if self.resource_versions is not None else None,
            "readVersions": dict(sorted(self.read_versions.items())),
            "featureGates": [{"name": g.name, "maturity": g.maturity, "enabled": g.enabled, "locked": g.locked}
                             for g in self.features],
            "objects": dict(sorted(self.objects.items())),
            "drivers": [d.to_json() for d in self.drivers],
            "deviceClasses": [c.to_json() for c in self.classes],
            "deviceTaintRules": [t.to_json() for t in self.taint_rules],
            "errors": self.errors,
            "warnings": self.warnings,
            "findings": [f.to_json() for f in self.findings],
        }


# --- helpers ---------------------------------------------------------------------------------------

def parse_minor(version: str | None) -> str | None:
    """`v1.33.2-eks-4c2b1a` -> `1.33`; None when there is no `MAJOR.MINOR` in it."""
    if not version:
        return None
    m = _VERSION_RE.match(version.strip())
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def _minor_key(minor: str) -> tuple[int, int]:
    major, _, rest = minor.partition(".")
    return int(major), int(rest)


def features_for(minor: str | None, overrides: dict[str, bool] | None = None) -> list[FeatureGate]:
    """The DRA gates a release has (its defaults, or `overrides`); releases after 1.37 get 1.37's table,
    before 1.30 none."""
    if minor is None or _minor_key(minor) < (1, 30):
        return []
    column = _RELEASES.index(minor) if minor in _RELEASES else len(_RELEASES) - 1
    out = []
    for name, (row, about) in FEATURE_GATES.items():
        state = row[column]
        if state == "-":
            continue
        enabled = (overrides or {}).get(name, state not in ("A", "B-"))
        out.append(FeatureGate(name=name, maturity=_MATURITY_WORDS[state], enabled=enabled,
                               locked=state == "GA*", about=about))
    return out


def _cel_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attr_text(attr: r.DeviceAttribute) -> tuple[str, str] | None:
    kind = attr.kind()
    if kind is None:
        return None
    value = attr.value()
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list):
        text = "[" + ", ".join(_cel_string(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool)
                               else str(v) for v in value) + "]"
    else:
        text = str(value)
    return kind, text


def _split_name(driver: str, key: str) -> tuple[str, str]:
    """An attribute key as CEL sees it: unqualified names belong to the driver's domain."""
    domain, sep, name = key.rpartition("/")
    return (domain, name) if sep else (driver, key)


def _scope(spec: r.ResourceSliceSpec) -> str:
    if spec.node_name:
        return f"node {spec.node_name}"
    if spec.all_nodes:
        return "all nodes"
    if spec.node_selector is not None:
        return "node selector"
    if spec.per_device_node_selection:
        return "per device"
    return "counters only" if spec.shared_counters else "unknown"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith("s") else f"{n} {word}s"


def _ref(obj: Any) -> str:
    return object_ref(obj.kind, obj.metadata)


def _sorted_values(values: set[str], kind: str) -> list[str]:
    if kind == "int":
        return sorted(values, key=int)
    if kind == "quantity":
        return sorted(values, key=Quantity)
    return sorted(values)


class _AttrAcc:
    """Collects the values of one attribute name across a driver's devices."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.devices = 0
        self.values: set[str] = set()
        self.kinds: set[str] = {kind}

    def info(self, domain: str, name: str) -> AttributeInfo:
        kind = self.kind if len(self.kinds) == 1 else "/".join(sorted(self.kinds))
        values = _sorted_values(self.values, kind)
        return AttributeInfo(domain=domain, name=name, type=kind, devices=self.devices,
                             values=values[:MAX_VALUES], distinct=len(values))


# --- the checks ------------------------------------------------------------------------------------

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
    findings += _check_version(snapshot.server_version, minor)
    findings += _check_api(snapshot, minor)
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
    current, pools = _pools(slices)
    drivers = _drivers(current, pools)
    class_infos: list[ClassInfo] = []
    rule_infos: list[TaintRuleInfo] = []
    if snapshot.resource_versions != ():  # without the API there is nothing DRA to look at
        findings += _check_drivers(drivers, slices)
        findings += _check_pools(pools)
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
                        features=features, findings=findings, drivers=drivers, classes=class_infos,
                        taint_rules=rule_infos, objects=dict(counts))


def _check_version(version: str | None, minor: str | None) -> list[Finding]:
    if version is None:
        return [Finding("kubernetes-version", "warn",
                        "server version unknown (no cluster-info.yaml): version checks skipped")]
    if minor is None:
        return [Finding("kubernetes-version", "warn", f"cannot read the server version {version!r}")]
    key = _minor_key(minor)
    if key < (1, 34):
        state = {(1, 32): "beta and off by default", (1, 33): "beta and off by default",
                 (1, 31): "alpha (device/CEL model, v1alpha3)", (1, 30): "alpha (classic DRA, v1alpha2)"}
        return [Finding("kubernetes-version", "error",
                        f"Kubernetes {version}: DRA is GA (resource.k8s.io/v1) from 1.34; here it is "
                        f"{state.get(key, 'not available')}. drasim simulates 1.34–1.37: upgrade the cluster, "
                        "or use drasim's results as a 1.34 preview")]
    if key > (1, 37):
        return [Finding("kubernetes-version", "warn",
                        f"Kubernetes {version} is newer than the releases drasim models (1.34–1.37): "
                        "simulating with 1.37 rules")]
    return [Finding("kubernetes-version", "ok", f"Kubernetes {version}: DRA resource.k8s.io/v1 is GA")]


def _check_api(snapshot: ClusterSnapshot, minor: str | None) -> list[Finding]:
    served = snapshot.resource_versions
    if served is None:
        return [Finding("dra-api", "warn", "served resource.k8s.io versions unknown (no cluster-info.yaml)")]
    if not served:
        if minor is not None and _minor_key(minor) < (1, 34):
            hint = {"1.32": "v1beta1", "1.33": "v1beta2"}.get(minor)
            fix = (f"enable the DynamicResourceAllocation feature gate and --runtime-config=resource.k8s.io/"
                   f"{hint}=true on the API server, or upgrade to 1.34+" if hint else "upgrade to 1.34+")
        else:
            fix = "check the API server's --runtime-config (resource.k8s.io/v1 must not be disabled)"
        return [Finding("dra-api", "error", f"resource.k8s.io is not served: DRA is not available on this "
                                            f"cluster ({fix})")]
    listed = ", ".join(served)
    out = []
    if not set(served) & set(CONVERTIBLE_VERSIONS):
        return [Finding("dra-api", "error", f"resource.k8s.io is served only as {listed}, which drasim does not read "
                                            f"(it reads {', '.join(CONVERTIBLE_VERSIONS)}): upgrade to 1.34+")]
    if "v1" in served:
        out.append(Finding("dra-api", "ok", f"resource.k8s.io served: {listed}"))
    else:
        out.append(Finding("dra-api", "warn", f"resource.k8s.io served without v1 ({listed}): objects are "
                                              "read in an older version and converted to v1"))
    older = sorted({v for k, v in snapshot.read_versions.items() if v.startswith("resource.k8s.io/")
                    and v != "resource.k8s.io/v1"})
    if older:
        kinds = sorted(k for k, v in snapshot.read_versions.items() if v in older)
        out.append(Finding("dra-api-read", "ok", f"read {', '.join(kinds)} as {', '.join(older)} and converted "
                                                 "them to v1"))
    return out


def _pools(slices: list[r.ResourceSlice]) -> tuple[list[r.ResourceSlice], list[PoolInfo]]:
    """Slices of each pool's newest generation, and one PoolInfo per (driver, pool)."""
    by_pool: dict[tuple[str, str], list[r.ResourceSlice]] = defaultdict(list)
    for s in slices:
        by_pool[(s.spec.driver, s.spec.pool.name)].append(s)
    current: list[r.ResourceSlice] = []
    pools = []
    for (driver, name), group in sorted(by_pool.items()):
        newest = max(s.spec.pool.generation for s in group)
        kept = sorted((s for s in group if s.spec.pool.generation == newest), key=lambda s: s.metadata.name)
        current.extend(kept)
        counts = tuple(sorted({s.spec.pool.resource_slice_count for s in kept}))
        scopes = sorted({_scope(s.spec) for s in kept if not (s.spec.shared_counters and not s.spec.devices)})
        pools.append(PoolInfo(driver=driver, name=name, generation=newest, slices=len(kept),
                              expected=kept[0].spec.pool.resource_slice_count,
                              devices=sum(len(s.spec.devices) for s in kept),
                              scope=scopes[0] if len(scopes) == 1 else ", ".join(scopes) or "counters only",
                              stale_slices=len(group) - len(kept), counts=counts))
    return current, pools


def _drivers(current: list[r.ResourceSlice], pools: list[PoolInfo]) -> list[DriverInfo]:
    infos: dict[str, DriverInfo] = {}
    attrs: dict[str, dict[tuple[str, str], _AttrAcc]] = defaultdict(dict)
    caps: dict[str, dict[tuple[str, str], _AttrAcc]] = defaultdict(dict)
    nodes: dict[str, set[str]] = defaultdict(set)
    for p in pools:
        infos.setdefault(p.driver, DriverInfo(name=p.driver)).pools.append(p)
    for s in current:
        driver = s.spec.driver
        info = infos[driver]
        info.devices += len(s.spec.devices)
        if s.spec.node_name:
            nodes[driver].add(s.spec.node_name)
        for dev in s.spec.devices:
            if dev.node_name:
                nodes[driver].add(dev.node_name)
            for key, attr in dev.attributes.items():
                shown = _attr_text(attr)
                if shown is None:
                    continue
                acc = attrs[driver].setdefault(_split_name(driver, key), _AttrAcc(shown[0]))
                acc.devices += 1
                acc.values.add(shown[1])
                acc.kinds.add(shown[0])
            for key, cap in dev.capacity.items():
                acc = caps[driver].setdefault(_split_name(driver, key), _AttrAcc("quantity"))
                acc.devices += 1
                acc.values.add(str(cap.value))
    for driver, info in infos.items():
        info.nodes = len(nodes[driver])
        info.attributes = [acc.info(d, n) for (d, n), acc in sorted(attrs[driver].items())]
        info.capacities = [acc.info(d, n) for (d, n), acc in sorted(caps[driver].items())]
    return [infos[k] for k in sorted(infos)]


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
                               details=tuple(f"{a.qualified} = {', '.join(_cel_string(v) for v in a.values)}  "
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
            key = _minor_key(minor) if minor else (1, 37)
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
