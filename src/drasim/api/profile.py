"""The release profile: DRA feature gates and served resource.k8s.io versions per Kubernetes release (spec §8),
plus the user's `--feature-gates` overrides. Every other view of "what release X does" derives from here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from drasim import releases
from drasim.api.gates import ValidationFeatures
from drasim.api.scheduling import GROUP as WORKLOAD_GROUP
from drasim.errors import DrasimError

__all__ = [
    "DEFAULT_VERSION", "GATES", "RELEASES", "SIMULATED", "ApiStatus", "Gate", "ReleaseProfile",
    "normalize_version", "parse_feature_gates", "parse_runtime_config", "profile_for",
]

# Releases the table covers (doctor and lint speak about the older ones); drasim simulates the last four.
RELEASES: tuple[str, ...] = ("1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36", "1.37")
SIMULATED: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37")
DEFAULT_VERSION = "1.36"

# Stages: "-" not in the release, "A" alpha (off), "B-"/"B+" beta off/on by default, "GA" on, "GA*" on and locked.
Stage = Literal["-", "A", "B-", "B+", "GA", "GA*"]
_ON = ("B+", "GA", "GA*")


@dataclass(frozen=True)
class Gate:
    """One feature gate: its stage in each of RELEASES and what it is for (one line, for doctor and lint)."""

    name: str
    stages: tuple[str, ...]
    about: str

    def stage(self, version: str) -> str:
        return self.stages[RELEASES.index(version)]


def _gates(*rows: tuple[str, str, str]) -> dict[str, Gate]:
    out = {}
    for name, stages, about in rows:
        parts = tuple(stages.split())
        assert len(parts) == len(RELEASES), name
        out[name] = Gate(name, parts, about)
    return out


# The 1.37 column was checked against kube-scheduler's versioned table at the newest 1.37 revision readable
# (staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go, kubernetes commit ead35706); the gates it
# does not list (DRAPartitionableDevicesType) against kubernetes/website's feature-gate pages.
#               1.30 1.31 1.32 1.33 1.34 1.35 1.36 1.37
GATES: dict[str, Gate] = _gates(
    ("DynamicResourceAllocation", "A A B- B- GA GA* GA* GA*",
     "core DRA: ResourceClaims, DeviceClasses, ResourceSlices, the scheduler plugin"),
    ("DRAAdminAccess", "- - A A B+ B+ GA* GA*", "adminAccess requests (monitoring devices that are in use)"),
    ("DRAResourceClaimDeviceStatus", "- - A B+ B+ B+ B+ GA*", "drivers report per-device status in the claim"),
    ("DRAPrioritizedList", "- - - A B+ B+ GA GA*", "firstAvailable: ordered alternatives in one request"),
    ("DRAPartitionableDevices", "- - - A A A B+ B+", "shared counters: partitions (MIG) of one physical device"),
    # 1.33/1.34 served DeviceTaintRule (v1alpha3) under DRADeviceTaints; its own gate came in 1.35.
    ("DRADeviceTaints", "- - - A A A B+ GA", "device taints and tolerations (and DeviceTaintRules before 1.35)"),
    ("DRADeviceTaintRules", "- - - - - A B- GA", "DeviceTaintRule objects (v1beta2 in 1.36, v1 in 1.37)"),
    ("DRAExtendedResource", "- - - - A A B+ GA*", "extended resources (nvidia.com/gpu: 1) backed by a DeviceClass"),
    ("DRAConsumableCapacity", "- - - - A A B+ B+", "devices shared by several claims, each consuming capacity"),
    ("DRADeviceBindingConditions", "- - - - A A B+ B+",
     "binding conditions: wait for devices to be attached before binding"),
    ("DRASchedulerFilterTimeout", "- - - - B+ B+ B+ B+", "a time limit on the scheduler's per-node allocation search"),
    ("DRAListTypeAttributes", "- - - - - - A A", "list-valued device attributes"),
    ("DRANodeAllocatableResources", "- - - - - - A A", "devices that consume node-allocatable resources"),
    ("DRAWorkloadResourceClaims", "- - - - - - A B-", "claims shared by the pods of a workload"),
    # Beta in 1.37 and off by default: on only with --min-compatibility-version>=1.37, and that flag defaults
    # to the release before (kube-scheduler pkg/features/kube_features.go, kubernetes ead35706; component-base
    # featureSpecAtEmulationAndMinCompatVersion).
    ("DRAFractionalCapacityRange", "- - - - - - - B-", "fractional steps in consumable capacity ranges"),
    ("DRAPartitionableDevicesType", "- - - - - - - A", "partitionTypeAttribute on ResourceSlices"),
    ("DRAOptionalNodeOperations", "- - - - - - - A", "skipNodeOperations on ResourceSlices"),
    ("DRADerivedAttributes", "- - - - - - - A", "attributes derived from other attributes"),
    ("DRADeviceCompatibilityGroups", "- - - - - - - A", "device compatibility groups"),
    # The workload API DRAWorkloadResourceClaims builds on: PodGroup objects and pod.spec.schedulingGroup
    # (GenericWorkload, beta and off in 1.37 per kube-scheduler's versioned table at kubernetes ead35706) and
    # the all-or-nothing gang plugin (GangScheduling: alpha since 1.35 in pkg/features/kube_features.go; not in
    # that 1.37 table, so its 1.37 stage is unconfirmed and kept alpha).
    ("GenericWorkload", "- - - - - A A B-", "PodGroup objects and pod.spec.schedulingGroup (scheduling.k8s.io)"),
    ("GangScheduling", "- - - - - A A A", "all-or-nothing scheduling of a PodGroup's pods (minCount)"),
)

# resource.k8s.io versions that exist in each release, per kind ("*" = the four core DRA kinds). Only GA
# versions are served by a default API server; beta/alpha ones need --runtime-config (off by default since 1.24).
_CORE = "*"
_API_VERSIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "1.30": {_CORE: ("v1alpha2",)},
    "1.31": {_CORE: ("v1alpha3",)},
    "1.32": {_CORE: ("v1beta1", "v1alpha3")},
    "1.33": {_CORE: ("v1beta2", "v1beta1", "v1alpha3"), "DeviceTaintRule": ("v1alpha3",)},
    "1.34": {_CORE: ("v1", "v1beta2", "v1beta1"), "DeviceTaintRule": ("v1alpha3",)},
    "1.35": {_CORE: ("v1", "v1beta2", "v1beta1"), "DeviceTaintRule": ("v1alpha3",)},
    "1.36": {_CORE: ("v1", "v1beta2", "v1beta1"), "DeviceTaintRule": ("v1beta2", "v1alpha3")},
    # 1.37: DeviceTaintRule in resource.k8s.io/v1 (kubernetes#138676), the rest as in 1.36: the resource
    # packages of client-go v0.37.0-beta.0 (branched from master 2026-07-20), the newest 1.37 tag readable.
    "1.37": {_CORE: ("v1", "v1beta2", "v1beta1"), "DeviceTaintRule": ("v1", "v1beta2", "v1alpha3")},
}
_CORE_KINDS = ("ResourceSlice", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass")
GROUP = "resource.k8s.io"
# The gates a PodGroup workload with shared claims needs (the example driver's README names the three).
WORKLOAD_GATES = ("GenericWorkload", "GangScheduling", "DRAWorkloadResourceClaims")


# served: on in a default API server; runtime-config: exists but needs --runtime-config; absent: no such
# version (or the kind's feature gate is off, so the resource is not registered at all).
ApiStatus = Literal["served", "runtime-config", "absent"]

# ValidationFeatures flag -> the gates deciding it (all must be on).
_VALIDATION_GATES: dict[str, tuple[str, ...]] = {
    "prioritized_list": ("DRAPrioritizedList",),
    "partitionable_devices": ("DRAPartitionableDevices",),
    "device_taints": ("DRADeviceTaints",),
    "consumable_capacity": ("DRAConsumableCapacity",),
    "admin_access": ("DRAAdminAccess",),
    "device_binding_and_status": ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
    "list_type_attributes": ("DRAListTypeAttributes",),
    "extended_resource": ("DRAExtendedResource",),
    "fractional_capacity_range": ("DRAFractionalCapacityRange",),
    "node_allocatable_resources": ("DRANodeAllocatableResources",),
    "partitionable_devices_type": ("DRAPartitionableDevicesType",),
    "optional_node_operations": ("DRAOptionalNodeOperations",),
    "generic_workload": ("GenericWorkload",),
    "workload_resource_claims": ("GenericWorkload", "DRAWorkloadResourceClaims"),
}

_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?")


def normalize_version(version: str, releases: tuple[str, ...] = SIMULATED) -> str:
    """`v1.36.2`, `1.36.0-beta.0` or `1.36` -> `1.36`; DrasimError unless it is one of `releases`."""
    m = _VERSION_RE.fullmatch(version.strip())
    minor = f"{int(m.group(1))}.{int(m.group(2))}" if m else ""
    if minor not in releases:
        raise DrasimError(f"unsupported Kubernetes version {version!r}; supported: {', '.join(releases)}")
    return minor


def parse_minor(version: str | None) -> str | None:
    """`v1.33.2-eks-4c2b1a` -> `1.33`; None when there is no `MAJOR.MINOR` in it."""
    if not version:
        return None
    m = _VERSION_RE.match(version.strip())
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None



def parse_feature_gates(text: str) -> dict[str, bool]:
    """`DRAPartitionableDevices=true,DRAListTypeAttributes=false` (the components' --feature-gates) -> dict."""
    out: dict[str, bool] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition("=")
        value = value.strip().lower()
        if not sep or value not in ("true", "false"):
            raise DrasimError(f"--feature-gates: expected Name=true|false, got {part!r}")
        out[name.strip()] = value == "true"
    return out


def parse_runtime_config(text: str) -> frozenset[str]:
    """kube-apiserver's `--runtime-config` (`resource.k8s.io/v1beta2=true`, or one resource:
    `resource.k8s.io/v1beta2/devicetaintrules=true`) -> the resource.k8s.io entries turned on (the only group
    whose versions drasim models)."""
    out: set[str] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        entry, sep, value = part.partition("=")
        value = value.strip().lower() if sep else "true"  # `group/version` alone means true, as upstream
        parts = entry.strip().split("/")
        if value not in ("true", "false") or parts[0] != GROUP or len(parts) not in (2, 3) or not all(parts):
            raise DrasimError(f"expected {GROUP}/VERSION[/RESOURCE][=true|false], got {part!r}")
        if value == "true":
            out.add("/".join(parts))
    return frozenset(out)


@dataclass(frozen=True)
class ReleaseProfile:
    """A Kubernetes release's DRA feature gates (defaults plus overrides) and the resource.k8s.io versions
    its API server serves. Build with `profile_for`."""

    version: str = DEFAULT_VERSION
    overrides: Mapping[str, bool] = field(default_factory=dict)
    # The API server's --runtime-config entries that are on, as `resource.k8s.io/v1beta2/devicetaintrules`
    # (one resource) or `resource.k8s.io/v1beta2` (the whole version): those versions are served too.
    runtime_config: frozenset[str] = frozenset()

    def gate(self, name: str) -> bool:
        """Whether the gate is on (False when the release does not have it)."""
        if name in self.overrides:
            return self.overrides[name]
        gate = GATES.get(name)
        return gate is not None and gate.stage(self.version) in _ON

    def stage(self, name: str) -> str:
        """The gate's default stage in this release ("-" when the release does not have it)."""
        gate = GATES.get(name)
        return gate.stage(self.version) if gate is not None else "-"

    def gates(self) -> dict[str, bool]:
        """Every DRA gate the release has, on or off, in table order."""
        return {name: self.gate(name) for name, g in GATES.items() if g.stage(self.version) != "-"}

    def taint_rule_gate(self) -> str:
        """The gate that serves DeviceTaintRules: DRADeviceTaints in 1.33/1.34, DRADeviceTaintRules after."""
        return "DRADeviceTaintRules" if self.stage("DRADeviceTaintRules") != "-" else "DRADeviceTaints"

    @property
    def extended_resources(self) -> bool:
        """The scheduler's DRA-backed extended resources (DRAExtendedResource)."""
        return self.gate("DRAExtendedResource")

    def validation_features(self) -> ValidationFeatures:
        """The gates the API server's validation and field dropping look at."""
        flags = {flag: all(self.gate(g) for g in gates) for flag, gates in _VALIDATION_GATES.items()}
        flags["device_taint_rules"] = self.gate(self.taint_rule_gate())
        return ValidationFeatures(**flags, node_allocatable_field=releases.node_allocatable_field(self.version))

    def api_versions(self, kind: str) -> tuple[str, ...]:
        """resource.k8s.io versions of `kind` that exist in this release (GA first)."""
        table = _API_VERSIONS[self.version]
        return table.get(kind, table[_CORE] if kind in _CORE_KINDS else ())

    def api_status(self, kind: str, api_version: str) -> ApiStatus:
        """How a default API server of this release (with these gates) treats `apiVersion` for `kind`."""
        group, _, version = api_version.rpartition("/")
        if group == WORKLOAD_GROUP:
            # PodGroup v1alpha2 came in 1.36 (1.35 had only v1alpha1 Workloads); GenericWorkload registers it.
            served = releases.serves_pod_groups(self.version) and version == "v1alpha2" and self.gate("GenericWorkload")
            return "served" if served else "absent"
        if group != GROUP:
            return "served"
        if version not in self.api_versions(kind):
            return "absent"
        if kind == "DeviceTaintRule" and not self.gate(self.taint_rule_gate()):
            return "absent"
        if version == "v1" or api_version in self.runtime_config or \
                f"{api_version}/{_plural(kind)}" in self.runtime_config:
            return "served"
        return "runtime-config"

    def describe(self) -> str:
        """`Kubernetes 1.36 (DRADeviceTaintRules=true)`: the release and what the user changed."""
        changed = ",".join(f"{k}={'true' if v else 'false'}" for k, v in sorted(self.overrides.items()))
        if self.runtime_config:
            runtime = ",".join(f"{entry}=true" for entry in sorted(self.runtime_config))
            changed = f"{changed}, --runtime-config={runtime}" if changed else f"--runtime-config={runtime}"
        return f"Kubernetes {self.version}" + (f" ({changed})" if changed else "")


def profile_for(version: str = DEFAULT_VERSION, feature_gates: str | Mapping[str, bool] | None = None, *,
                releases: tuple[str, ...] = SIMULATED, runtime_config: frozenset[str] = frozenset()) -> ReleaseProfile:
    """The profile of `version` (any spelling `normalize_version` reads) with `feature_gates` applied.

    Like the real components, an unknown gate, a gate the release does not have, or a locked gate set
    against its value is an error.
    """
    minor = normalize_version(version, releases)
    gates = parse_feature_gates(feature_gates) if isinstance(feature_gates, str) else dict(feature_gates or {})
    for name, value in gates.items():
        gate = GATES.get(name)
        if gate is None or gate.stage(minor) == "-":
            known = ", ".join(n for n, g in GATES.items() if g.stage(minor) != "-")
            raise DrasimError(f"--feature-gates: unrecognized feature gate: {name} (Kubernetes {minor} has "
                              f"these DRA gates: {known})")
        if gate.stage(minor) == "GA*" and not value:
            raise DrasimError(f"--feature-gates: cannot set feature gate {name} to false, feature is locked to true")
    return ReleaseProfile(minor, gates, runtime_config)


def _plural(kind: str) -> str:
    """The resource name of a resource.k8s.io kind, as `--runtime-config` names it (`deviceclasses`)."""
    return kind.lower() + ("es" if kind.endswith("s") else "s")
