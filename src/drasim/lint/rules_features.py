"""Lint rule feature-unavailable: fields whose feature gate the target release lacks or keeps off."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from drasim.api import resource as r
from drasim.api.profile import ReleaseProfile
from drasim.lint.base import LintContext, LintFinding, ref_of
from drasim.lint.versions import gate_history, gate_on, gate_stage

__all__ = ["check_features", "feature_uses"]

_LIST_FIELDS = ("ints", "bools", "strings", "versions")

# (gate, path, what): one use of a gated feature inside an object.
Use = tuple[str, str, str]


def _slice_uses(s: r.ResourceSlice, want: Callable[[str], bool]) -> Iterator[Use]:
    spec = s.spec
    partition = want("DRAPartitionableDevices")
    if spec.shared_counters and partition:
        yield "DRAPartitionableDevices", "spec.sharedCounters", "sharedCounters (partitionable devices)"
    if spec.per_device_node_selection is not None and partition:
        yield "DRAPartitionableDevices", "spec.perDeviceNodeSelection", "perDeviceNodeSelection"
    if spec.partition_type_attribute is not None and want("DRAPartitionableDevicesType"):
        yield "DRAPartitionableDevicesType", "spec.partitionTypeAttribute", "partitionTypeAttribute"
    if spec.skip_node_operations is not None and want("DRAOptionalNodeOperations"):
        yield "DRAOptionalNodeOperations", "spec.skipNodeOperations", "skipNodeOperations"
    # Each device field is looked at only for a wanted gate: a fleet has tens of thousands of devices, most
    # using features whose gate is on (consumesCounters on every MIG device).
    taints, binding = want("DRADeviceTaints"), want("DRADeviceBindingConditions")
    consumable, lists = want("DRAConsumableCapacity"), want("DRAListTypeAttributes")
    node_allocatable = want("DRANodeAllocatableResources")
    if not (partition or taints or binding or consumable or lists or node_allocatable):
        return
    for i, d in enumerate(spec.devices):
        if partition:
            if d.consumes_counters:
                yield ("DRAPartitionableDevices", f"spec.devices[{i}].consumesCounters",
                       "consumesCounters (partitionable devices)")
            for present, camel in ((d.node_name is not None, "nodeName"), (d.node_selector is not None, "nodeSelector"),
                                   (d.all_nodes is not None, "allNodes")):
                if present:
                    yield "DRAPartitionableDevices", f"spec.devices[{i}].{camel}", f"per-device {camel}"
        if d.taints and taints:
            yield "DRADeviceTaints", f"spec.devices[{i}].taints", "device taints"
        if binding:
            for present, camel in ((d.binds_to_node is not None, "bindsToNode"),
                                   (bool(d.binding_conditions), "bindingConditions"),
                                   (bool(d.binding_failure_conditions), "bindingFailureConditions")):
                if present:
                    yield "DRADeviceBindingConditions", f"spec.devices[{i}].{camel}", f"{camel} (binding conditions)"
        if consumable:
            if d.allow_multiple_allocations is not None:
                yield "DRAConsumableCapacity", f"spec.devices[{i}].allowMultipleAllocations", "allowMultipleAllocations"
            for key, cap in d.capacity.items():
                if cap.request_policy is not None:
                    yield ("DRAConsumableCapacity", f"spec.devices[{i}].capacity[{key}].requestPolicy",
                           "capacity requestPolicy (consumable capacity)")
        if lists:
            for attr in d.attributes.values():  # ~1M attributes on a fleet: the lean loop first
                if attr.ints is not None or attr.bools is not None or attr.strings is not None \
                        or attr.versions is not None:
                    yield from _list_uses(i, d)
                    break
        if node_allocatable:
            if d.node_allocatable_resource_mappings is not None:
                yield ("DRANodeAllocatableResources", f"spec.devices[{i}].nodeAllocatableResourceMappings",
                       "nodeAllocatableResourceMappings")
            if d.node_allocatable_resources is not None:
                yield ("DRANodeAllocatableResources", f"spec.devices[{i}].nodeAllocatableResources",
                       "nodeAllocatableResources")


def _list_uses(i: int, d: r.Device) -> Iterator[Use]:
    for key, attr in d.attributes.items():
        for fname in _LIST_FIELDS:
            if getattr(attr, fname) is not None:
                yield ("DRAListTypeAttributes", f"spec.devices[{i}].attributes[{key}].{fname}",
                       f"list-type attribute value `{fname}`")


def _every(gate: str) -> bool:
    return True


def _request_common(req: r.ExactDeviceRequest | r.DeviceSubRequest, p: str) -> Iterator[Use]:
    if req.tolerations:
        yield "DRADeviceTaints", f"{p}.tolerations", "device tolerations"
    if req.capacity is not None:
        yield "DRAConsumableCapacity", f"{p}.capacity", "capacity requests (consumable capacity)"


def _claim_uses(spec: r.ResourceClaimSpec, prefix: str) -> Iterator[Use]:
    for i, req in enumerate(spec.devices.requests):
        p = f"{prefix}.devices.requests[{i}]"
        if req.first_available is not None:
            yield "DRAPrioritizedList", f"{p}.firstAvailable", "firstAvailable (prioritized alternatives)"
            for j, sub in enumerate(req.first_available):
                yield from _request_common(sub, f"{p}.firstAvailable[{j}]")
        if req.exactly is not None:
            if req.exactly.admin_access is not None:
                yield "DRAAdminAccess", f"{p}.exactly.adminAccess", "adminAccess"
            yield from _request_common(req.exactly, f"{p}.exactly")
    for i, c in enumerate(spec.devices.constraints):
        if c.distinct_attribute is not None:
            yield ("DRAConsumableCapacity", f"{prefix}.devices.constraints[{i}].distinctAttribute",
                   "distinctAttribute (consumable capacity)")


# The kinds feature_uses looks into (the same list as its branches; test_feature_uses holds them together).
_GATED_KINDS = (r.ResourceSlice, r.DeviceClass, r.ResourceClaim, r.ResourceClaimTemplate, r.DeviceTaintRule)


def feature_uses(obj: object, want: Callable[[str], bool] = _every) -> Iterator[Use]:
    """Every use of a gated DRA feature in one object, as (gate, field path, description), in field order;
    with `want`, only the uses of the gates it is true for (the slices' fields of other gates are skipped)."""
    if isinstance(obj, r.ResourceSlice):
        yield from _slice_uses(obj, want)
    elif isinstance(obj, r.DeviceClass):
        if obj.spec.extended_resource_name is not None:
            yield "DRAExtendedResource", "spec.extendedResourceName", "extendedResourceName"
    elif isinstance(obj, r.ResourceClaim):
        yield from _claim_uses(obj.spec, "spec")
    elif isinstance(obj, r.ResourceClaimTemplate):
        yield from _claim_uses(obj.spec.spec, "spec.spec")
    elif isinstance(obj, r.DeviceTaintRule):
        yield "DRADeviceTaintRules", "", "DeviceTaintRule"


def check_features(ctx: LintContext) -> list[LintFinding]:
    """feature-unavailable: error where the release lacks the gate or has it alpha (off by default);
    warning where it is beta but off by default (DeviceTaintRules in 1.36). Repeats of one feature in
    one object (say consumesCounters on every device of a slice) fold into one finding."""
    off: dict[str, bool] = {}
    taint_rule_gate = ReleaseProfile(ctx.version).taint_rule_gate()  # DeviceTaintRules' gate in this release

    def is_off(gate: str) -> bool:
        """Whether the release has the gate off (checked once per gate)."""
        known = off.get(gate)
        if known is None:
            served = taint_rule_gate if gate == "DRADeviceTaintRules" else gate
            known = not (ctx.profile.gate(served) if ctx.profile is not None else gate_on(served, ctx.version))
            off[gate] = known
        return known

    out = []
    for obj in ctx.objects:
        if not isinstance(obj, _GATED_KINDS):
            continue  # a fleet's Nodes: no generator and no dict for each
        grouped: dict[tuple[str, str], list[str]] = {}
        for gate, path, what in feature_uses(obj, is_off):
            if not is_off(gate):  # `want` prunes the slices' uses only
                continue
            if gate == "DRADeviceTaintRules":  # served under DRADeviceTaints before 1.35
                gate = taint_rule_gate
            grouped.setdefault((gate, what), []).append(path)
        for (gate, what), paths in grouped.items():
            stage = gate_stage(gate, ctx.version)
            state = {"": "which it does not have", "A": "alpha there, off by default",
                     "B-": "beta there but off by default"}[stage]
            if isinstance(obj, r.DeviceTaintRule):
                effect = "the API server does not serve DeviceTaintRules unless the gate and its API version are on"
            else:
                effect = "the API server drops the field unless the gate is on, so the object does less than it says"
            more = ""
            if len(paths) > 1:
                more = f" (also at {len(paths) - 1} more path{'s' if len(paths) > 2 else ''} of this object)"
            out.append(LintFinding(
                "feature-unavailable", "warning" if stage == "B-" else "error", ref_of(obj), paths[0],
                f"{what} needs the {gate} feature gate in Kubernetes {ctx.version}, {state} "
                f"({gate_history(gate)}): {effect}{more}",
                covers=tuple(paths[1:]),
            ))
    return out
