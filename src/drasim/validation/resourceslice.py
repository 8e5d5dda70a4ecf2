"""ResourceSlice validation: the slice, its devices, attributes, capacities, counters and gated fields."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from drasim import releases
from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.limits import (
    DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH,
    DEVICE_MAX_DOMAIN_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    DEVICE_TAINTS_MAX_LENGTH,
    RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE,
    RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
    RESOURCE_SLICE_MAX_COUNTER_CONSUMPTIONS_PER_DEVICE,
    RESOURCE_SLICE_MAX_COUNTER_SETS,
    RESOURCE_SLICE_MAX_COUNTERS_PER_CONSUMPTION,
    RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET,
    RESOURCE_SLICE_MAX_DEVICES,
    RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES,
)
from drasim.validation.capacitypolicy import CapacityPolicyChecker
from drasim.validation.checker import Checker, struct_replace, valid_dns_labels, valid_qualified_names
from drasim.validation.formats import blen, is_semver
from drasim.validation.nodealloc import node_allocatable_resources
from drasim.validation.paths import child, index, map_key

# Single counter consumptions (counter set name, counter names) found clean; bounded like the name memos.
_CLEAN_CONSUMPTIONS: set[tuple[str, tuple[str, ...]]] = set()
_MAX_CLEAN = 100_000


def has_list_values(attr: r.DeviceAttribute) -> bool:
    return attr.ints is not None or attr.bools is not None or attr.strings is not None or attr.versions is not None


def any_list_values(attributes: dict[str, r.DeviceAttribute]) -> bool:
    """`has_list_values` of any attribute: a plain loop with the test inline, as it runs for every attribute of
    every device (a generator over `has_list_values` cost twice as much)."""
    for a in attributes.values():
        if a.ints is not None or a.bools is not None or a.strings is not None or a.versions is not None:
            return True
    return False


def _plain_scalar(attr: r.DeviceAttribute) -> bool:
    """For an attribute without list values: True when `attribute` would find nothing wrong (one valid scalar).
    Devices carry a dozen attributes each; the full check, which builds the field path, runs for the others."""
    if attr.string is not None:
        return attr.bool_ is None and attr.int_ is None and attr.version is None and _short_value(attr.string)
    if attr.version is not None:
        return attr.bool_ is None and attr.int_ is None and _good_version(attr.version)
    return (attr.bool_ is None) != (attr.int_ is None)


def _short_value(value: str) -> bool:
    return len(value) <= DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH and (
        value.isascii() or blen(value) <= DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)


def _scan_attributes(attributes: dict[str, r.DeviceAttribute], list_gate: bool) -> tuple[int, set[str]]:
    """How many values a device's attributes hold, and the keys `attribute` must look at (list values, or a
    scalar `_plain_scalar` would not pass). With DRAListTypeAttributes off, list values were dropped before,
    so only scalars are looked at."""
    n_values = 0
    irregular: set[str] = set()
    for key, attr in attributes.items():
        if list_gate and (attr.ints is not None or attr.bools is not None or attr.strings is not None
                          or attr.versions is not None):
            lists = [v for v in (attr.bools, attr.ints, attr.strings, attr.versions) if v]
            n_values += sum(len(v) for v in lists) if lists else 1
            irregular.add(key)
            continue
        n_values += 1
        if not _plain_scalar(attr):
            irregular.add(key)
    return n_values, irregular


def _plain_scalars(attributes: dict[str, r.DeviceAttribute]) -> bool:
    """`_scan_attributes(attributes, True)` finds no key to look at: no list value, every scalar one that
    `_plain_scalar` passes. Its test inline, each field read once: a fleet has a dozen attributes on every
    device, and this loop was a third of admitting one."""
    for attr in attributes.values():
        if attr.ints is not None or attr.bools is not None or attr.strings is not None or attr.versions is not None:
            return False
        text = attr.string
        if text is not None:
            if attr.int_ is not None or attr.bool_ is not None or attr.version is not None or (
                    (len(text) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH or not text.isascii()) and not _short_value(text)):
                return False
        elif (version := attr.version) is not None:
            if attr.int_ is not None or attr.bool_ is not None or not _good_version(version):
                return False
        elif (attr.bool_ is None) == (attr.int_ is None):
            return False
    return True


def _clean_devices(devices: Sequence[r.Device], features: ValidationFeatures) -> list[bool]:
    """For each device, True when neither `_drop_device_fields` nor `device` (outside a slice with
    perDeviceNodeSelection) finds anything in it, or changes it, but for its name and counters: no gated field
    of a gate that is off, no per-device node fields, taints, binding conditions or request policies, every
    attribute one valid scalar, valid names, within the size limits. Most devices of a fleet are; one fused
    pass over a slice's devices, the full checks (which build the field paths) for the others."""
    multi_ok, counters_ok = features.consumable_capacity, features.partitionable_devices
    out = []
    for d in devices:
        attributes, capacity = d.attributes, d.capacity
        if (d.taints or d.node_name is not None or d.node_selector is not None or d.all_nodes is not None
                or d.binds_to_node is not None or d.binding_conditions or d.binding_failure_conditions
                or d.node_allocatable_resource_mappings is not None or d.node_allocatable_resources is not None
                or (d.allow_multiple_allocations is not None and not multi_ok)
                or (d.consumes_counters and not counters_ok)
                or len(attributes) + len(capacity) > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE
                or len(attributes) > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE
                or not _plain_scalars(attributes)):  # a list value, or a scalar `attribute` must look at
            out.append(False)
            continue
        ok = valid_qualified_names(attributes) and valid_qualified_names(capacity)
        if ok:
            for cap in capacity.values():
                if cap.request_policy is not None:
                    ok = False
                    break
        out.append(ok)
    return out


def _nothing_to_report(devices: list[r.Device], max_devices: int) -> bool:
    """True when checking clean `devices` as a set (`clean_device` on each, then duplicate names) would find
    nothing: within the limit, distinct names known valid, counter consumptions known clean. One pass in C
    over a slice's names; the per-device checks, which build each field path, run only otherwise."""
    if len(devices) > max_devices:
        return False
    names = [d.name for d in devices]
    if len(set(names)) != len(names) or not valid_dns_labels(names):
        return False
    for d in devices:
        if d.consumes_counters and _consumption_key(d.consumes_counters) not in _CLEAN_CONSUMPTIONS:
            return False
    return True


def _consumption_key(consumptions: list[r.DeviceCounterConsumption]) -> tuple[str, tuple[str, ...]] | None:
    """What `counter_consumptions` judges a single consumption by (its counter set's and counters' names);
    None for several."""
    if len(consumptions) != 1:
        return None
    return consumptions[0].counter_set, tuple(consumptions[0].counters)


@lru_cache(maxsize=4096)
def _good_version(value: str) -> bool:
    return is_semver(value) and _short_value(value)


class SliceChecker(CapacityPolicyChecker):
    """ResourceSlice validation (validateResourceSlice and its parts)."""

    def resource_slice(self, s: r.ResourceSlice) -> r.ResourceSlice:
        """Validate a slice; returns it as the API server stores it (fields of disabled gates dropped)."""
        self.metadata(s.metadata, namespaced=False)
        spec = s.spec
        path, pool_path = "spec", "spec.pool"  # literal paths: every slice of a fleet passes here
        self.driver_name(spec.driver, "spec.driver")
        self.pool_name(spec.pool.name, "spec.pool.name")
        if spec.pool.resource_slice_count <= 0:
            self.invalid(
                child(pool_path, "resourceSliceCount"),
                spec.pool.resource_slice_count,
                "must be greater than zero",
            )
        if spec.pool.generation < 0:
            self.invalid(
                child(pool_path, "generation"), spec.pool.generation, "must be greater than or equal to zero"
            )

        # Feature-gated fields: report, then validate as if the API server had dropped them.
        per_device = spec.per_device_node_selection
        if per_device is not None and not self.gate(
            "partitionable_devices", child(path, "perDeviceNodeSelection")
        ):
            per_device = None
        shared_counters = spec.shared_counters
        if shared_counters and not self.gate("partitionable_devices", child(path, "sharedCounters")):
            shared_counters = []
        partition_type = spec.partition_type_attribute
        if partition_type is not None and not self.gate(
            "partitionable_devices_type", child(path, "partitionTypeAttribute")
        ):
            partition_type = None
        skip_ops = spec.skip_node_operations
        if skip_ops is not None and not self.gate(
            "optional_node_operations", child(path, "skipNodeOperations")
        ):
            skip_ops = None
        devices_path = "spec.devices"
        clean = _clean_devices(spec.devices, self.features)
        all_clean = all(clean)
        devices = spec.devices if all_clean else [
            d if ok else self._drop_device_fields(d, index(devices_path, i))
            for i, (d, ok) in enumerate(zip(spec.devices, clean, strict=True))]

        set_fields = []
        if spec.node_name is not None:
            if spec.node_name:
                set_fields.append("`nodeName`")
                self.node_name(spec.node_name, "spec.nodeName")
            else:
                self.invalid(
                    child(path, "nodeName"), "", "must be either unset or set to a non-empty string"
                )
        if spec.node_selector is not None:
            set_fields.append("`nodeSelector`")
            self.node_selector(spec.node_selector, child(path, "nodeSelector"))
            if len(spec.node_selector.node_selector_terms) != 1:
                self.invalid(
                    child(path, "nodeSelector", "nodeSelectorTerms"),
                    spec.node_selector.node_selector_terms,
                    "must have exactly one node selector term",
                )
        if spec.all_nodes is not None:
            if spec.all_nodes:
                set_fields.append("`allNodes`")
            else:
                self.invalid(child(path, "allNodes"), False, "must be either unset or set to true")
        if per_device is not None:
            if per_device:
                set_fields.append("`perDeviceNodeSelection`")
            else:
                self.invalid(
                    child(path, "perDeviceNodeSelection"), False, "must be either unset or set to true"
                )
        one_of = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
        if not set_fields:
            self.required(path, one_of)
        elif len(set_fields) > 1:
            self.invalid(path, "{" + ", ".join(set_fields) + "}", one_of + ", but multiple fields are set")

        if shared_counters and devices:
            self.invalid(path, "", "only one of `sharedCounters` or `devices` is allowed")

        # With DRAListTypeAttributes off, list values were dropped above: no need to look for them.
        lists = self.features.list_type_attributes
        advanced = any(d.consumes_counters for d in devices) if all_clean else any(
            d.taints or d.consumes_counters or (lists and not ok and any_list_values(d.attributes))
            for d, ok in zip(devices, clean, strict=True)
        )  # a clean device has no taints and no list values
        max_devices = (
            RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced else RESOURCE_SLICE_MAX_DEVICES
        )
        full = bool(per_device) or not all_clean
        if full or not _nothing_to_report(devices, max_devices):
            self.set(
                devices,
                max_devices,
                (lambda d, p: self.device(d, p, bool(per_device))) if full else self.clean_device,
                lambda d: d.name,
                devices_path,
            )
        if shared_counters:
            self.set(
                shared_counters,
                RESOURCE_SLICE_MAX_COUNTER_SETS,
                self.counter_set,
                lambda c: c.name,
                child(path, "sharedCounters"),
            )
        if partition_type is not None:
            self.partition_type_attribute(partition_type, spec.driver, devices, path)
        if skip_ops is not None:
            self.skip_node_operations(skip_ops, child(path, "skipNodeOperations"))
        if (devices is spec.devices and per_device is spec.per_device_node_selection
                and shared_counters is spec.shared_counters and partition_type is spec.partition_type_attribute
                and skip_ops is spec.skip_node_operations):
            return s  # nothing dropped (a fleet's slices): stored as written, as a claim is
        return struct_replace(s, spec=struct_replace(
            spec, per_device_node_selection=per_device, shared_counters=shared_counters,
            partition_type_attribute=partition_type, skip_node_operations=skip_ops, devices=devices))

    def _drop_device_fields(self, d: r.Device, path: str) -> r.Device:
        """Report gated device fields whose gate is off and return the device without them."""
        changes: dict[str, Any] = {}

        def drop(flag: str, field: str, camel: str, empty: Any) -> None:
            if not self.gate(flag, child(path, camel)):
                changes[field] = empty

        if d.consumes_counters:
            drop("partitionable_devices", "consumes_counters", "consumesCounters", [])
        for field, camel in (
            ("node_name", "nodeName"),
            ("node_selector", "nodeSelector"),
            ("all_nodes", "allNodes"),
        ):
            if getattr(d, field) is not None:
                drop("partitionable_devices", field, camel, None)
        if d.taints:
            drop("device_taints", "taints", "taints", [])
        if d.binds_to_node is not None:
            drop("device_binding_and_status", "binds_to_node", "bindsToNode", None)
        if d.binding_conditions:
            drop("device_binding_and_status", "binding_conditions", "bindingConditions", [])
        if d.binding_failure_conditions:
            drop("device_binding_and_status", "binding_failure_conditions", "bindingFailureConditions", [])
        if d.allow_multiple_allocations is not None:
            drop("consumable_capacity", "allow_multiple_allocations", "allowMultipleAllocations", None)
        if not self.features.consumable_capacity and any(
            c.request_policy is not None for c in d.capacity.values()
        ):
            new_capacity = {}
            for key, cap in d.capacity.items():
                if cap.request_policy is not None:
                    self.gate(
                        "consumable_capacity", child(map_key(child(path, "capacity"), key), "requestPolicy")
                    )
                    cap = struct_replace(cap, request_policy=None)
                new_capacity[key] = cap
            changes["capacity"] = new_capacity
        served = self.features.node_allocatable_field
        for field, camel in (("node_allocatable_resource_mappings", releases.NODE_ALLOCATABLE_MAPPINGS),
                             ("node_allocatable_resources", releases.NODE_ALLOCATABLE_RESOURCES)):
            if getattr(d, field) is not None and camel != served:
                # Not a field of this release's API: strict decoding refuses the object, gate on or off.
                why = f"this release's field is {served}" if served else "no release before 1.36 has it"
                self.add(child(path, camel), "Message", f'unknown field "{camel}" ({why}: Kubernetes 1.37 '
                         f"replaced 1.36's {releases.NODE_ALLOCATABLE_MAPPINGS} with "
                         f"{releases.NODE_ALLOCATABLE_RESOURCES})")
                changes[field] = None
        if d.node_allocatable_resource_mappings is not None and "node_allocatable_resource_mappings" not in changes:
            drop(
                "node_allocatable_resources",
                "node_allocatable_resource_mappings",
                "nodeAllocatableResourceMappings",
                None,
            )
        if d.node_allocatable_resources is not None and "node_allocatable_resources" not in changes:
            drop("node_allocatable_resources", "node_allocatable_resources", "nodeAllocatableResources", None)
        if not self.features.list_type_attributes and any_list_values(d.attributes):
            new_attrs = {}
            for key, attr in d.attributes.items():
                if has_list_values(attr):
                    for field in ("ints", "bools", "strings", "versions"):
                        if getattr(attr, field) is not None:
                            self.gate(
                                "list_type_attributes", child(map_key(child(path, "attributes"), key), field)
                            )
                    attr = struct_replace(attr, ints=None, bools=None, strings=None, versions=None)
                new_attrs[key] = attr
            changes["attributes"] = new_attrs
        return struct_replace(d, **changes) if changes else d

    def clean_device(self, d: r.Device, path: str) -> None:
        """`device` for a device `_clean_devices` passed: only its name and counters can be wrong."""
        self.dns_label(d.name, child(path, "name"))
        if d.consumes_counters:
            self.counter_consumptions(d.consumes_counters, child(path, "consumesCounters"))

    def device(self, d: r.Device, path: str, per_device_node_selection: bool) -> None:
        self.dns_label(d.name, child(path, "name"))
        n_entries = len(d.attributes) + len(d.capacity)
        if n_entries > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
            self.invalid(
                path,
                n_entries,
                "the total number of attributes and capacities must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}",
            )
        n_values, irregular = _scan_attributes(d.attributes, self.features.list_type_attributes)
        if n_values > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
            self.invalid(
                path,
                n_values,
                "the total number of attribute values must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE}",
            )
        max_key = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
        names_valid = valid_qualified_names(d.attributes)
        if irregular or not names_valid:
            attrs_path = child(path, "attributes")
            for key, attr in d.attributes.items():
                if not names_valid:
                    self.qualified_name(key, attrs_path)
                if key in irregular:
                    self.attribute(attr, map_key(attrs_path, key, max_key))
        multi = bool(d.allow_multiple_allocations)
        names_valid = valid_qualified_names(d.capacity)
        # Most devices have valid names and no request policies: nothing below reads the path then.
        cap_path = child(path, "capacity") if not names_valid or any(
            cap.request_policy is not None for cap in d.capacity.values()) else ""
        for key, cap in d.capacity.items():
            if not names_valid:
                self.qualified_name(key, cap_path)
            if cap.request_policy is not None:
                item_path = map_key(cap_path, key, max_key)
                if multi:
                    self.request_policy(cap.value, cap.request_policy, child(item_path, "requestPolicy"))
                else:
                    self.forbidden(
                        child(item_path, "requestPolicy"), "allowMultipleAllocations must be true"
                    )
        if d.taints:
            self.slice(d.taints, DEVICE_TAINTS_MAX_LENGTH, self.taint, child(path, "taints"))
        if d.consumes_counters:
            self.counter_consumptions(d.consumes_counters, child(path, "consumesCounters"))
        node_fields_set = d.node_name is not None or d.node_selector is not None or d.all_nodes is not None
        if per_device_node_selection:
            set_fields = []
            if d.node_name is not None:
                if d.node_name:
                    set_fields.append("`nodeName`")
                    self.node_name(d.node_name, child(path, "nodeName"))
                else:
                    self.invalid(child(path, "nodeName"), "", "must not be empty")
            if d.node_selector is not None:
                set_fields.append("`nodeSelector`")
                self.node_selector(d.node_selector, child(path, "nodeSelector"))
            if d.all_nodes is not None:
                if d.all_nodes:
                    set_fields.append("`allNodes`")
                else:
                    self.invalid(child(path, "allNodes"), False, "must be either unset or set to true")
            msg = (
                "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
            )
            if not set_fields:
                self.required(path, msg)
            elif len(set_fields) > 1:
                self.invalid(path, "{" + ", ".join(set_fields) + "}", msg)
        elif node_fields_set:
            self.invalid(
                path,
                None,
                "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
            )
        self.binding_parameters(d.binding_conditions, d.binding_failure_conditions, path)
        if d.node_allocatable_resources:
            node_allocatable_resources(self, d, child(path, "nodeAllocatableResources"))

    def attribute(self, attr: r.DeviceAttribute, path: str) -> None:
        n = 0
        if attr.bool_ is not None:
            n += 1
        if attr.int_ is not None:
            n += 1
        if attr.string is not None:
            n += 1
            self._attr_string(attr.string, child(path, "string"))
        if attr.version is not None:
            n += 1
            self._attr_version(attr.version, child(path, "version"))
        for field, items in (
            ("bools", attr.bools),
            ("ints", attr.ints),
            ("strings", attr.strings),
            ("versions", attr.versions),
        ):
            if items is None:
                continue
            n += 1
            if not items:
                self.invalid(child(path, field), [], "must not be empty if specified")
            for i, item in enumerate(items):
                if field == "strings":
                    self._attr_string(str(item), index(child(path, field), i))
                elif field == "versions":
                    self._attr_version(str(item), index(child(path, field), i))
        if n == 0:
            self.invalid(path, "", "exactly one value must be specified")
        elif n > 1:
            self.invalid(path, attr, "exactly one value must be specified")

    def _attr_string(self, value: str, path: str) -> None:
        if blen(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            self.too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)

    def _attr_version(self, value: str, path: str) -> None:
        if not is_semver(value):
            self.invalid(path, value, "must be a string compatible with semver.org spec 2.0.0")
        if blen(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            self.too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)

    # ---- counters ----

    def counter_set(self, cs: r.CounterSet, path: str) -> None:
        if not cs.name:
            self.required(child(path, "name"))
        else:
            self.dns_label(cs.name, child(path, "name"))
        self._counters(cs.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, child(path, "counters"))

    def counter_consumptions(self, consumptions: list[r.DeviceCounterConsumption], path: str) -> None:
        # One consumption is judged by its counter set's name and its counters' names alone (no gates, no
        # values): a partitioned GPU's devices repeat a few, so one found clean is not checked again.
        key = _consumption_key(consumptions)
        if key is not None and key in _CLEAN_CONSUMPTIONS:
            return
        before = len(self.findings)
        self.set(consumptions, RESOURCE_SLICE_MAX_COUNTER_CONSUMPTIONS_PER_DEVICE, self.counter_consumption,
                 lambda c: c.counter_set, path)
        if key is not None and len(self.findings) == before and len(_CLEAN_CONSUMPTIONS) < _MAX_CLEAN:
            _CLEAN_CONSUMPTIONS.add(key)

    def counter_consumption(self, cc: r.DeviceCounterConsumption, path: str) -> None:
        if not cc.counter_set:
            self.required(child(path, "counterSet"))
        else:
            self.dns_label(cc.counter_set, child(path, "counterSet"))
        self._counters(cc.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_CONSUMPTION, child(path, "counters"))

    def _counters(self, counters: dict[str, r.Counter], max_size: int, path: str) -> None:
        if not counters:
            self.required(path)
            return
        if len(counters) > max_size:
            self.too_many(path, len(counters), max_size)
            return
        for name in counters:
            self.dns_label(name, path)

    # ---- 1.37 alpha fields ----

    def partition_type_attribute(
        self, name: str, driver: str, devices: Sequence[r.Device], path: str
    ) -> None:
        attr_path = child(path, "partitionTypeAttribute")
        self.fully_qualified_name(name, attr_path)
        if not any(d.consumes_counters for d in devices):
            self.invalid(
                attr_path, name, "may only be set on a slice which declares devices that consume counters"
            )
            return
        probe = Checker(self.obj, self.features, self.cel_checker)
        probe.fully_qualified_name(name, attr_path)
        if probe.findings:
            return
        bare = name[len(driver) + 1 :] if name.startswith(driver + "/") else ""
        for i, d in enumerate(devices):
            if not d.consumes_counters:
                continue
            p = map_key(child(path, "devices") + f"[{i}].attributes", name)
            attr = d.attributes.get(name)
            if attr is None and bare:
                attr = d.attributes.get(bare)
            if attr is None:
                self.required(
                    p,
                    "device consumes counters and `partitionTypeAttribute` names this attribute, "
                    "so it must be set",
                )
            elif attr.string is None:
                self.invalid(
                    p, attr, "must be a string value because `partitionTypeAttribute` names this attribute"
                )
