"""The doctor's report: findings, the inventory of what drivers publish, and their JSON shapes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["ok", "warn", "error"]

# How many distinct values of one attribute the inventory lists before summarising.
MAX_VALUES = 8

# CEL words that cannot follow a `.`: such attribute names are written `["name"]`.
CEL_RESERVED = frozenset({"as", "break", "const", "continue", "else", "false", "for", "function", "if",
                          "import", "in", "let", "loop", "package", "namespace", "null", "return", "true",
                          "var", "void", "while"})


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
        member = f'["{self.name}"]' if self.name in CEL_RESERVED else f".{self.name}"
        ref = f'device.{"capacity" if capacity else "attributes"}["{self.domain}"]{member}'
        value = self.values[0]
        if self.type == "string":
            return f"{ref} == {cel_string(value)}"
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


def cel_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'

