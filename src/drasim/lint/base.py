"""What every lint rule shares: the finding type and an index of the objects being linted."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from drasim.api import core
from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.meta import ObjectMeta, object_ref
from drasim.api.profile import ReleaseProfile
from drasim.cel import DeviceInput
from drasim.cluster import ClusterState, Key
from drasim.sim.engine import PodRecord

__all__ = [
    "SEVERITIES",
    "DeviceView",
    "LintContext",
    "LintFinding",
    "RequestView",
    "Workload",
    "ref_of",
    "skipped",
]

SEVERITIES = ("error", "warning", "info")  # info: a rule that could not judge the inputs

Workload = core.Deployment | core.ReplicaSet | core.StatefulSet | core.Job


@dataclass(frozen=True, slots=True)
class LintFinding:
    """One problem: rule id, `error`, `warning` or `info` (a note: a rule skipped), the object
    (`kind/namespace/name`), the field path inside it, a message, and the file the object came from."""

    rule: str
    severity: str
    obj: str
    path: str
    message: str
    source: str | None = None
    # Further paths this finding stands for (repeats folded into one finding); not part of the output.
    covers: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, str | None]:
        """The JSON form (the library's name for `to_json`)."""
        return self.to_json()

    def to_json(self) -> dict[str, str | None]:
        """The stable `-o json` shape."""
        return {
            "id": self.rule,
            "severity": self.severity,
            "object": self.obj,
            "path": self.path,
            "message": self.message,
            "source": self.source,
        }

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def ref_of(obj: object) -> str:
    """`kind/namespace/name` of any decoded object."""
    kind = getattr(obj, "KIND", type(obj).__name__)
    meta = getattr(obj, "metadata", None)
    return object_ref(kind, meta) if isinstance(meta, ObjectMeta) else kind


def skipped(rule: str, why: str) -> LintFinding:
    """An `info` note: the rule could not judge these inputs (no exit code, no object)."""
    return LintFinding(rule, "info", "", "", f"skipped: {why}")


class DeviceView(DeviceInput):
    """A published device with its pool; it is its own CEL input (one object per device: a fleet has 78,400)."""

    __slots__ = ("group", "pool", "slice")

    def __init__(self, slc: r.ResourceSlice, device: r.Device) -> None:
        # DeviceInput's fields set here, as Activation does, not by a call to its __init__: one call less for
        # each of a fleet's 78,400 devices (test_selector_groups checks that every slot is set).
        self.driver = slc.spec.driver
        self.device = device
        self.attrs = device.attributes
        self.caps = device.capacity
        self._ok = self._ok_lists = self._maps = None
        self.slice = slc
        self.pool = slc.spec.pool.name
        # rules_cel's content group: devices of one group give every selector with known reads one outcome
        # (None: not grouped, e.g. its attributes fail conversion).
        self.group: int | None = None

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device.name}"


@dataclass(frozen=True, slots=True)
class RequestView:
    """One `exactly` request or `firstAvailable` subrequest of a claim or template, with its path."""

    obj: str
    path: str  # spec.devices.requests[0].exactly / spec.spec.devices.requests[1].firstAvailable[0]
    class_name: str
    selectors: Sequence[r.DeviceSelector]


def _current_slices(slices: Sequence[r.ResourceSlice]) -> list[r.ResourceSlice]:
    """Slices of the newest generation of their pool: the only ones the allocator reads."""
    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        key = (s.spec.driver, s.spec.pool.name)
        newest[key] = max(newest.get(key, s.spec.pool.generation), s.spec.pool.generation)
    return [s for s in slices if s.spec.pool.generation == newest[(s.spec.driver, s.spec.pool.name)]]


@dataclass
class LintContext:
    """The objects under lint, indexed once for all rules."""

    objects: list[object]
    version: str
    features: ValidationFeatures
    slices: list[r.ResourceSlice] = field(default_factory=list)
    current_slices: list[r.ResourceSlice] = field(default_factory=list)
    devices: list[DeviceView] = field(default_factory=list)
    classes: dict[str, r.DeviceClass] = field(default_factory=dict)
    claims: list[r.ResourceClaim] = field(default_factory=list)
    templates: dict[tuple[str, str], r.ResourceClaimTemplate] = field(default_factory=dict)
    taint_rules: list[r.DeviceTaintRule] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    nodes: list[core.Node] = field(default_factory=list)
    # Object order kept, for the rules that walk claims and templates, or pods and workloads (a fleet's
    # 11,000 objects are mostly slices and nodes: each walk over all of them cost ~5 ms).
    claims_and_templates: list[r.ResourceClaim | r.ResourceClaimTemplate] = field(default_factory=list)
    pods_and_workloads: list[core.Pod | Workload] = field(default_factory=list)
    profile: ReleaseProfile | None = None  # the release with the user's --feature-gates (None: defaults)
    # The cluster as `drasim simulate` leaves the inputs (computed on first use: only some rules read it).
    settle: Callable[[], ClusterState] | None = None
    # The same with the DeviceTaintRules, and the simulation's record of each pod.
    simulate: Callable[[], tuple[ClusterState, Mapping[Key, PodRecord]]] | None = None
    # Why a pod of the simulated cluster stays Pending, in explain's words (the CLI passes explain's hints).
    pending_hints: Callable[[ClusterState, tuple[str, str]], list[str]] | None = None
    # Work several rules share, computed by the first that needs it (rules_cel.selector_pass).
    memo: dict[str, object] = field(default_factory=dict)
    _cluster: ClusterState | None = None
    _simulated: tuple[ClusterState, Mapping[Key, PodRecord]] | None = None

    @classmethod
    def build(cls, objects: Sequence[object], version: str, features: ValidationFeatures,
              profile: ReleaseProfile | None = None, settle: Callable[[], ClusterState] | None = None
              ) -> LintContext:
        """Index `objects` (any kinds; those lint does not read are ignored). `settle` gives the simulated
        cluster the rules counting allocations read (default: the objects as they are)."""
        ctx = cls(list(objects), version, features, profile=profile, settle=settle)
        for o in ctx.objects:
            if isinstance(o, r.ResourceSlice):
                ctx.slices.append(o)
            elif isinstance(o, core.Node):
                ctx.nodes.append(o)
            elif isinstance(o, r.DeviceClass):
                ctx.classes.setdefault(o.metadata.name, o)
            elif isinstance(o, r.ResourceClaim):
                ctx.claims.append(o)
                ctx.claims_and_templates.append(o)
            elif isinstance(o, r.ResourceClaimTemplate):
                ctx.templates.setdefault((o.metadata.namespace or "default", o.metadata.name), o)
                ctx.claims_and_templates.append(o)
            elif isinstance(o, r.DeviceTaintRule):
                ctx.taint_rules.append(o)
            elif isinstance(o, core.Pod):
                ctx.pods_and_workloads.append(o)
            elif isinstance(o, core.Deployment | core.ReplicaSet | core.StatefulSet | core.Job):
                ctx.workloads.append(o)
                ctx.pods_and_workloads.append(o)
        ctx.current_slices = _current_slices(ctx.slices)
        ctx.devices = [DeviceView(s, d) for s in ctx.current_slices for d in s.spec.devices]
        return ctx

    def cluster(self) -> ClusterState:
        """The cluster as `drasim simulate` leaves the inputs, simulated once on first use."""
        if self._cluster is None:
            if not self.taint_rules and self.simulate is not None:
                self._cluster = self.simulated()[0]  # without taint rules the two simulations are one
            elif self.settle is not None:
                self._cluster = self.settle()
            else:
                self._cluster = ClusterState.from_objects(self.objects)
        return self._cluster

    def simulated(self) -> tuple[ClusterState, Mapping[Key, PodRecord]]:
        """The cluster as `drasim simulate` leaves all the inputs, DeviceTaintRules included (`cluster()`
        leaves them out: the taint rules judge what they would do), and its record of each pod."""
        if self._simulated is None:
            self._simulated = self.simulate() if self.simulate is not None else (self.cluster(), {})
        return self._simulated

    def claim_specs(self) -> Iterator[tuple[str, r.ResourceClaimSpec, str]]:
        """(object ref, claim spec, path of the spec) of every claim ("spec") and template ("spec.spec"), in
        object order."""
        for o in self.claims_and_templates:
            if isinstance(o, r.ResourceClaim):
                yield ref_of(o), o.spec, "spec"
            else:
                yield ref_of(o), o.spec.spec, "spec.spec"

    def requests(self) -> Iterator[RequestView]:
        """Every request and subrequest of the claims and templates, in object order."""
        for obj, spec, prefix in self.claim_specs():
            yield from _requests(obj, spec, prefix)


def _requests(obj: str, spec: r.ResourceClaimSpec, prefix: str) -> Iterator[RequestView]:
    for i, req in enumerate(spec.devices.requests):
        path = f"{prefix}.devices.requests[{i}]"
        if req.exactly is not None:
            yield RequestView(obj, f"{path}.exactly", req.exactly.device_class_name, req.exactly.selectors)
        for j, sub in enumerate(req.first_available or []):
            yield RequestView(obj, f"{path}.firstAvailable[{j}]", sub.device_class_name, sub.selectors)
