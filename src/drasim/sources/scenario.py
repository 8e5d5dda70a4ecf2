"""Load a scenario file (tests/conformance/README.md §1): objects, Allocate steps, expectations."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

from drasim.api.decode import decode_as, decode_documents
from drasim.api.kinds import KubeObject
from drasim.api.meta import Strict
from drasim.api.quantity import Quantity
from drasim.errors import InputError
from drasim.sources.files import decode_text, parse_yaml, read_input

__all__ = ["KNOWN_FEATURES", "AllocatedState", "ConsumedCapacity", "DeviceRef", "Scenario", "SharedDeviceRef",
           "Step", "load_scenario", "parse_scenario"]

# The allocator feature flags a scenario may set (README §1 "Features"); anything else is a typo.
KNOWN_FEATURES = ("adminAccess", "prioritizedList", "partitionableDevices", "deviceTaints",
                  "consumableCapacity", "deviceBindingAndStatus", "listTypeAttributes")

AllocatorVariant = Literal["stable", "incubating", "experimental"]


class DeviceRef(Strict):
    """`allocatedState.devices[]`: a device in exclusive use."""

    driver: str
    pool: str
    device: str


class SharedDeviceRef(Strict):
    """`allocatedState.sharedDevices[]`: one share of a multi-allocatable device."""

    driver: str
    pool: str
    device: str
    share_id: str = msgspec.field(name="shareID")


class ConsumedCapacity(Strict):
    """`allocatedState.consumedCapacity[]`: capacity consumed on a device by allocations not in the file."""

    driver: str
    pool: str
    device: str
    capacity: dict[str, Quantity] = msgspec.field(default_factory=dict)


class AllocatedState(Strict):
    """In-use state that is not represented by allocated claims."""

    devices: list[DeviceRef] = msgspec.field(default_factory=list)
    shared_devices: list[SharedDeviceRef] = msgspec.field(default_factory=list)
    consumed_capacity: list[ConsumedCapacity] = msgspec.field(default_factory=list)


class Step(Strict):
    """One `Allocate` call: the claims of one pod, in order; `node` None means the scenario's `node`."""

    claims: list[str]
    node: str | None = None
    commit: bool = True


class Expectation(Strict):
    """One `expect` entry (tests/conformance/README.md §2): checked when the file is read, so `--check` never
    meets a malformed one."""

    status: Literal["allocated", "unsatisfiable", "error"]
    claims: dict[str, list[str]] | None = None
    error_contains: str | None = None


class _File(Strict):
    """The top level of a scenario file as written (unknown keys are errors)."""

    name: str | None = None
    description: str = ""
    node: str | None = None
    allocate: list[str] | None = None
    steps: list[Step] | None = None
    features: dict[str, bool] = msgspec.field(default_factory=dict)
    allocator: AllocatorVariant | None = None
    apply_defaults: bool = True
    allocated_state: AllocatedState = msgspec.field(default_factory=AllocatedState)
    expect: list[Expectation] = msgspec.field(default_factory=list)
    objects: list[Any] = msgspec.field(default_factory=list)
    annotations: dict[str, Any] = msgspec.field(default_factory=dict)


@dataclass
class Scenario:
    """A loaded scenario. `objects` are decoded (v1, file order) without any API validation or defaulting."""

    name: str
    description: str
    node: str | None
    steps: list[Step]
    features: dict[str, bool]
    allocator: AllocatorVariant | None
    apply_defaults: bool
    allocated_state: AllocatedState
    expect: list[dict[str, Any]]
    objects: list[KubeObject]
    annotations: dict[str, Any]
    source: str = ""
    warnings: list[str] = field(default_factory=list)

    def step_node(self, step: Step) -> str:
        """The node a step runs on (its own, else the scenario's; loading guarantees one exists)."""
        node = step.node if step.node is not None else self.node
        assert node is not None
        return node


def load_scenario(path: str) -> Scenario:
    """Read and check a scenario file; every error is an `InputError` naming the file and the field."""
    text = decode_text(read_input(path), source=path)
    docs = [d for d in parse_yaml(text, source=path) if d is not None]
    if len(docs) != 1:
        raise InputError(f"a scenario file holds exactly one YAML document, found {len(docs)}", source=path)
    return parse_scenario(docs[0], source=path)


def parse_scenario(data: Any, *, source: str) -> Scenario:
    """Build a `Scenario` from an already loaded mapping (`source` names it in errors)."""
    if not isinstance(data, dict):
        raise InputError("a scenario file must be a mapping", source=source)
    raw = decode_as(data, _File, source=source)
    if raw.allocate is not None and raw.steps is not None:
        raise InputError('use either "allocate" or "steps", not both', source=source, path="allocate")
    steps = list(raw.steps) if raw.steps is not None else []
    if raw.allocate is not None:
        steps = [Step(claims=list(raw.allocate))]
    for i, step in enumerate(steps):
        if step.node is None and raw.node is None:
            where = "allocate" if raw.allocate is not None else f"steps[{i}].node"
            raise InputError('no node: set "node" at the top or in the step', source=source, path=where)
    for name in raw.features:
        if name not in KNOWN_FEATURES:
            raise InputError(f'unknown feature "{name}" (known: {", ".join(KNOWN_FEATURES)})',
                             source=source, path=f"features.{name}")
    decoded = decode_documents(raw.objects, source=source, label="objects")
    default_name = os.path.splitext(os.path.basename(source))[0]
    return Scenario(
        name=raw.name if raw.name is not None else default_name,
        description=raw.description,
        node=raw.node,
        steps=steps,
        features=dict(raw.features),
        allocator=raw.allocator,
        apply_defaults=raw.apply_defaults,
        allocated_state=raw.allocated_state,
        expect=[msgspec.to_builtins(e) for e in raw.expect],
        objects=decoded.objects,
        annotations=raw.annotations,
        source=source,
        warnings=decoded.warnings,
    )
