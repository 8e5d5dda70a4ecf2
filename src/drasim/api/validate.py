"""API-server validation of DRA objects (resource.k8s.io/v1) with upstream's rules, paths and messages."""

from __future__ import annotations

import importlib
import ipaddress
import json
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import msgspec

from drasim.api import resource as r
from drasim.api.core import (
    Deployment,
    Job,
    Namespace,
    Pod,
    PodResourceClaim,
    PodSpec,
    ReplicaSet,
    StatefulSet,
)
from drasim.api.limits import (
    ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH,
    ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS,
    ALLOCATION_RESULTS_MAX_SIZE,
    BINDING_CONDITIONS_MAX_SIZE,
    BINDING_FAILURE_CONDITIONS_MAX_SIZE,
    CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS,
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    CEL_SELECTOR_EXPRESSION_MAX_LENGTH,
    DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH,
    DEVICE_CONFIG_MAX_SIZE,
    DEVICE_CONSTRAINTS_MAX_SIZE,
    DEVICE_MAX_DOMAIN_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    DEVICE_REQUESTS_MAX_SIZE,
    DEVICE_SELECTORS_MAX_SIZE,
    DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS,
    DEVICE_TAINTS_MAX_LENGTH,
    DEVICE_TOLERATIONS_MAX_LENGTH,
    DRIVER_NAME_MAX_LENGTH,
    FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
    NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH,
    NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH,
    NETWORK_DEVICE_DATA_MAX_IPS,
    OPAQUE_PARAMETERS_MAX_LENGTH,
    POOL_NAME_MAX_LENGTH,
    RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE,
    RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE,
    RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
    RESOURCE_SLICE_MAX_COUNTER_CONSUMPTIONS_PER_DEVICE,
    RESOURCE_SLICE_MAX_COUNTER_SETS,
    RESOURCE_SLICE_MAX_COUNTERS_PER_CONSUMPTION,
    RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET,
    RESOURCE_SLICE_MAX_DEVICES,
    RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES,
)
from drasim.api.meta import Condition, NodeSelector, NodeSelectorRequirement, ObjectMeta, object_ref
from drasim.api.quantity import Quantity

# --- public types --------------------------------------------------------------------------------

FINDING_TYPES = (
    "Required",
    "Invalid",
    "TooMany",
    "Duplicate",
    "Forbidden",
    "NotSupported",
    "TooLong",
    "NotFound",
    "Internal",
    "Message",  # a message of its own (admission: unserved versions, replaced duplicates), printed as is
)

# How the API server spells each error type in `path: <label>: <value>: <detail>`.
_TYPE_LABELS = {
    "Required": "Required value",
    "Invalid": "Invalid value",
    "TooMany": "Too many",
    "Duplicate": "Duplicate value",
    "Forbidden": "Forbidden",
    "NotSupported": "Unsupported value",
    "TooLong": "Too long",
    "NotFound": "Not found",
    "Internal": "Internal error",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One field error. `value` is the offending value already rendered the way the API server prints it
    (`"Bad_Name"`, `129`, `null`, JSON for structures), or None when the error type omits it."""

    obj: str  # kind/namespace/name
    path: str  # spec.devices[3].attributes
    type: str  # one of FINDING_TYPES
    message: str
    severity: str = "error"  # "error" (the API server would reject the object) or "warning"
    value: str | None = None

    def body(self) -> str:
        """The error without its field path (`Invalid value: "x": detail`)."""
        if self.type == "Message":
            return self.message
        text = _TYPE_LABELS.get(self.type, self.type)
        if self.value is not None:
            text += f": {self.value}"
        if self.message:
            text += f": {self.message}"
        return text

    def __str__(self) -> str:
        return f"{self.path}: {self.body()}" if self.path else self.body()


@dataclass(frozen=True, slots=True)
class ValidationFeatures:
    """Which DRA feature gates the simulated API server has on. Defaults: Kubernetes 1.36's gate defaults."""

    prioritized_list: bool = True  # DRAPrioritizedList
    partitionable_devices: bool = True  # DRAPartitionableDevices
    device_taints: bool = True  # DRADeviceTaints
    consumable_capacity: bool = True  # DRAConsumableCapacity
    admin_access: bool = True  # DRAAdminAccess
    device_binding_and_status: bool = True  # DRADeviceBindingConditions (+ DRAResourceClaimDeviceStatus)
    list_type_attributes: bool = False  # DRAListTypeAttributes
    extended_resource: bool = True  # DRAExtendedResource
    # Gates beyond the allocator's feature set that decide what the API server accepts:
    device_taint_rules: bool = False  # DRADeviceTaintRules (beta, off by default in 1.36; on in 1.37)
    fractional_capacity_range: bool = False  # DRAFractionalCapacityRange (1.37, on)
    node_allocatable_resources: bool = False  # DRANodeAllocatableResources (alpha)
    partitionable_devices_type: bool = False  # DRAPartitionableDevicesType (alpha, 1.37)
    optional_node_operations: bool = False  # DRAOptionalNodeOperations (alpha, 1.37)


GATE_NAMES: dict[str, str] = {
    "prioritized_list": "DRAPrioritizedList",
    "partitionable_devices": "DRAPartitionableDevices",
    "device_taints": "DRADeviceTaints",
    "consumable_capacity": "DRAConsumableCapacity",
    "admin_access": "DRAAdminAccess",
    "device_binding_and_status": "DRADeviceBindingConditions",
    "list_type_attributes": "DRAListTypeAttributes",
    "extended_resource": "DRAExtendedResource",
    "device_taint_rules": "DRADeviceTaintRules",
    "fractional_capacity_range": "DRAFractionalCapacityRange",
    "node_allocatable_resources": "DRANodeAllocatableResources",
    "partitionable_devices_type": "DRAPartitionableDevicesType",
    "optional_node_operations": "DRAOptionalNodeOperations",
}

# A CEL check: (expression, features) -> None when fine, else (finding type, message).
CelChecker = Callable[[str, ValidationFeatures], "tuple[str, str] | None"]

ADMIN_NAMESPACE_LABEL_KEY = "resource.kubernetes.io/admin-access"

_INT64_MAX = 2**63 - 1
_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")  # sorted, as upstream lists them
_TOLERATION_OPERATORS = ("Equal", "Exists")
_ALLOCATION_MODES = ("All", "ExactCount")
_CONFIG_SOURCES = ("FromClaim", "FromClass")
_SKIP_NODE_OPERATIONS = ("NodePrepareResources", "NodeUnprepareResources", "*")

# --- apimachinery string formats -----------------------------------------------------------------

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string "
    "of alphanumeric characters or '_'"
)
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character"
)
_CONDITION_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_CONDITION_REASON_MSG = (
    "a condition reason must start with alphabetic character, optionally followed by a "
    "string of alphanumeric characters or '_,:', and must end with an alphanumeric "
    "character or '_'"
)

_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_C_IDENTIFIER_RE = re.compile(_C_IDENTIFIER_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_CONDITION_REASON_RE = re.compile(_CONDITION_REASON_FMT)

# Strict semver 2.0.0, as the API server checks `version` attributes (ASCII digits only, like Go's \d).
_NUM = "(0|[1-9][0-9]*)"
_PRE = "(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = "[0-9a-zA-Z-]+"
_SLOPPY_IPV4_RE = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")
_SEMVER_RE = re.compile(rf"{_NUM}\.{_NUM}\.{_NUM}(-{_PRE}(\.{_PRE})*)?(\+{_BUILD}(\.{_BUILD})*)?")


def _blen(s: str) -> int:
    """Go's len(string): bytes of the UTF-8 encoding."""
    return len(s.encode("utf-8"))


def _max_len_error(n: int) -> str:
    return f"must be no more than {n} bytes"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def is_dns1123_label(value: str) -> list[str]:
    """apimachinery IsDNS1123Label: the list of problems (empty when valid)."""
    errs = []
    if _blen(value) > 63:
        errs.append(_max_len_error(63))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """apimachinery IsDNS1123Subdomain."""
    errs = []
    if _blen(value) > 253:
        errs.append(_max_len_error(253))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_c_identifier(value: str) -> list[str]:
    """apimachinery IsCIdentifier (format only, no length)."""
    if _C_IDENTIFIER_RE.fullmatch(value):
        return []
    return [_regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]


def is_qualified_name(value: str) -> list[str]:
    """apimachinery IsQualifiedName / IsLabelKey: `[prefix/]name` as used for label keys and taint keys."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif _blen(name) > 63:
        errs.append("name part " + _max_len_error(63))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append(
            "name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_valid_label_value(value: str) -> list[str]:
    """apimachinery IsValidLabelValue."""
    errs = []
    if _blen(value) > 63:
        errs.append(_max_len_error(63))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def is_extended_resource_name(name: str) -> bool:
    """core/v1 helper IsExtendedResourceName: a domain-prefixed, non-native, quota-compatible name."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)


# --- value rendering (field.Error.ErrorBody) -----------------------------------------------------


class _Omit:
    """Marker: the error type prints no value."""


_OMIT = _Omit()


def _go_quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


class _Raw(str):
    """A value already rendered the way the API server prints it (Go's %#v of a struct)."""


def render_value(value: object) -> str:
    """A bad value as the API server prints it: %q for strings, %v for numbers/bools, JSON otherwise."""
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _go_quote(value)
    if isinstance(value, int | float):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, Quantity):
        return _go_quote(str(value))
    try:
        return json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _plain(value: Any) -> Any:
    """JSON-able form of API structs (camelCase keys, defaults omitted) and containers."""
    if isinstance(value, Quantity):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, msgspec.Struct):
        return json.loads(msgspec.json.encode(value, enc_hook=str))
    return value


# --- field paths -----------------------------------------------------------------------------------


def _child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def _index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def _key(path: str, key: str, truncate: int | None = None) -> str:
    if truncate is not None:
        key = _truncate(key, truncate)
    return f"{path}[{key}]"


def _truncate(s: str, max_len: int) -> str:
    """Long map keys are shortened in the middle in paths (upstream truncateIfTooLong)."""
    max_len = max(max_len, 16)
    if len(s) <= max_len:
        return s
    remaining = max_len - 3
    return s[: (remaining + 1) // 2] + "..." + s[len(s) - remaining // 2 :]


# --- quantity helpers --------------------------------------------------------------------------------


def _q_value(q: Quantity) -> int:
    """Go Quantity.Value(): the value as an integer, rounded up."""
    return q.value()


def _q_fraction(q: Quantity) -> Fraction:
    return q.fraction


def _q_milli(q: Quantity) -> int:
    """Go Quantity.MilliValue()."""
    return q.milli_value()


def _q_is_fractional(q: Quantity) -> bool:
    return q.fraction.denominator != 1


def _q_sign(q: Quantity) -> int:
    return q.sign()


def _q_cmp(a: Quantity, b: Quantity) -> int:
    return a.cmp(b)


def _q_str(q: Quantity) -> str:
    return str(q)


# --- the checker -------------------------------------------------------------------------------------

T = TypeVar("T")


class _Checker:
    """Collects findings for one object."""

    def __init__(self, obj: str, features: ValidationFeatures, cel_checker: CelChecker) -> None:
        self.obj = obj
        self.features = features
        self.cel_checker = cel_checker
        self.findings: list[Finding] = []

    # ---- primitive error constructors (field.Required, field.Invalid, ...) ----

    def add(
        self, path: str, type_: str, message: str, value: object = _OMIT, severity: str = "error"
    ) -> None:
        rendered = None if isinstance(value, _Omit) else render_value(value)
        self.findings.append(Finding(self.obj, path, type_, message, severity, rendered))

    def required(self, path: str, detail: str = "") -> None:
        self.add(path, "Required", detail)

    def invalid(self, path: str, value: object, detail: str) -> None:
        self.add(path, "Invalid", detail, value)

    def forbidden(self, path: str, detail: str) -> None:
        self.add(path, "Forbidden", detail)

    def too_long(self, path: str, max_len: int) -> None:
        unit = "byte" if max_len == 1 else "bytes"
        self.add(path, "TooLong", f"may not be more than {max_len} {unit}")

    def too_many(self, path: str, actual: int, max_items: int) -> None:
        unit = "item" if max_items == 1 else "items"
        self.add(path, "TooMany", f"must have at most {max_items} {unit}", actual)

    def duplicate(self, path: str, value: object) -> None:
        self.add(path, "Duplicate", "", value)

    def not_supported(self, path: str, value: object, supported: Sequence[str]) -> None:
        self.add(
            path, "NotSupported", "supported values: " + ", ".join(_go_quote(s) for s in supported), value
        )

    def gate(self, flag: str, path: str) -> bool:
        """True if the gate is on; else a Forbidden warning: the API server drops the field (no error), and
        the caller validates and stores the object without it."""
        if getattr(self.features, flag):
            return True
        self.add(
            path,
            "Forbidden",
            f"the {GATE_NAMES[flag]} feature gate is disabled; the API server would silently drop this field",
            severity="warning",
        )
        return False

    # ---- list helpers (validateSlice / validateSet) ----

    def slice(self, items: Sequence[T], max_size: int, item: Callable[[T, str], None], path: str) -> bool:
        """Size check with short-circuit, then every item. False when the list was too long."""
        if 0 <= max_size < len(items):
            self.too_many(path, len(items), max_size)
            return False
        for i, it in enumerate(items):
            item(it, _index(path, i))
        return True

    def set(
        self,
        items: Sequence[T],
        max_size: int,
        item: Callable[[T, str], None],
        key: Callable[[T], object],
        path: str,
    ) -> None:
        """Like slice, plus a Duplicate finding at every repeated key."""
        if not self.slice(items, max_size, item, path):
            return
        seen: set[object] = set()
        for i, it in enumerate(items):
            k = key(it)
            if k in seen:
                self.duplicate(_index(path, i), k)
            else:
                seen.add(k)

    # ---- names ----

    def driver_name(self, name: str, path: str) -> None:
        """ValidateCSIDriverName (also used for attribute domains)."""
        if not name:
            self.required(path)
        if _blen(name) > DRIVER_NAME_MAX_LENGTH:
            self.too_long(path, DRIVER_NAME_MAX_LENGTH)
        for msg in is_dns1123_subdomain(name.lower()):
            self.invalid(path, name, msg)

    def pool_name(self, name: str, path: str) -> None:
        if not name:
            self.required(path)
            return
        if _blen(name) > POOL_NAME_MAX_LENGTH:
            self.too_long(path, POOL_NAME_MAX_LENGTH)
        for part in name.split("/"):
            for msg in is_dns1123_subdomain(part):
                self.invalid(path, part, msg)

    def dns_label(self, name: str, path: str) -> None:
        for msg in is_dns1123_label(name):
            self.invalid(path, name, msg)

    def dns_subdomain(self, name: str, path: str) -> None:
        for msg in is_dns1123_subdomain(name):
            self.invalid(path, name, msg)

    def label_name(self, name: str, path: str) -> None:
        for msg in is_qualified_name(name):
            self.invalid(path, name, msg)

    def label_value(self, value: str, path: str) -> None:
        for msg in is_valid_label_value(value):
            self.invalid(path, value, msg)

    def device_class_name(self, name: str, path: str) -> None:
        if not name:
            self.required(path)
        else:
            self.dns_subdomain(name, path)

    def c_identifier(self, name: str, path: str) -> None:
        if _blen(name) > DEVICE_MAX_ID_LENGTH:
            self.too_long(path, DEVICE_MAX_ID_LENGTH)
        for msg in is_c_identifier(name):
            self.invalid(path, name, msg)

    def qualified_name(self, name: str, path: str) -> None:
        """A resource.k8s.io QualifiedName: `id` or `domain/id`."""
        parts = name.split("/")
        if len(parts) == 1:
            self.c_identifier(parts[0], path)
            return
        if len(parts) > 2:
            # Upstream (1.36/1.37) accepts these by accident; the fix is pending (kubernetes#141644).
            self.add(
                path,
                "Invalid",
                "more than one slash: accepted by the API server up to at least 1.37 "
                "(a known gap), but not a valid qualified name",
                name,
                "warning",
            )
            return
        domain, ident = parts
        if not domain:
            self.invalid(path, "", "the domain must not be empty")
        else:
            self.driver_name(domain, path)
        if not ident:
            self.invalid(path, "", "the name must not be empty")
        else:
            self.c_identifier(ident, path)

    def fully_qualified_name(self, name: str, path: str) -> None:
        self.qualified_name(name, path)
        if "/" not in name:
            self.invalid(
                path, name, "a fully qualified name must be a domain and a name separated by a slash"
            )

    def node_name(self, name: str, path: str) -> None:
        for msg in is_dns1123_subdomain(name):
            self.invalid(path, name, msg)

    def uid(self, value: str, path: str) -> None:
        try:
            uuid.UUID(value)
        except ValueError:
            if len(value) not in (32, 36, 38, 45):
                self.invalid(path, value, f"error validating uid: invalid UUID length: {len(value)}")
            else:
                self.invalid(path, value, "error validating uid: invalid UUID format")
            return
        if len(value) != 36 or value != value.lower():
            self.invalid(
                path,
                value,
                "uid must be in RFC 4122 normalized form, "
                "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters",
            )

    # ---- node selectors (core validation) ----

    def node_selector(self, selector: NodeSelector, path: str) -> None:
        terms_path = _child(path, "nodeSelectorTerms")
        if not selector.node_selector_terms:
            self.required(terms_path, "must have at least one node selector term")
            return
        for i, term in enumerate(selector.node_selector_terms):
            tp = _index(terms_path, i)
            for j, req in enumerate(term.match_expressions):
                self._node_selector_requirement(req, _index(_child(tp, "matchExpressions"), j))
            for j, req in enumerate(term.match_fields):
                self._node_field_selector_requirement(req, _index(_child(tp, "matchFields"), j))

    def _node_selector_requirement(self, req: NodeSelectorRequirement, path: str) -> None:
        values_path = _child(path, "values")
        if req.operator in ("In", "NotIn"):
            if not req.values:
                self.required(values_path, "must be specified when `operator` is 'In' or 'NotIn'")
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                self.forbidden(
                    values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                )
        elif req.operator in ("Gt", "Lt"):
            if len(req.values) != 1:
                self.required(values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'")
        else:
            self.invalid(_child(path, "operator"), req.operator, "not a valid selector operator")
        self.label_name(req.key, _child(path, "key"))
        for i, v in enumerate(req.values):
            self.label_value(v, _index(values_path, i))

    def _node_field_selector_requirement(self, req: NodeSelectorRequirement, path: str) -> None:
        if req.operator in ("In", "NotIn"):
            if len(req.values) != 1:
                self.required(
                    _child(path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
        else:
            self.invalid(_child(path, "operator"), req.operator, "not a valid selector operator")
        if req.key != "metadata.name":
            self.invalid(_child(path, "key"), req.key, "not a valid field selector key")
        else:
            for i, v in enumerate(req.values):
                self.node_name(v, _index(_child(path, "values"), i))

    # ---- conditions (metav1 ValidateConditions) ----

    def conditions(self, conditions: Sequence[Condition], path: str) -> None:
        seen: set[str] = set()
        for i, cond in enumerate(conditions):
            cp = _index(path, i)
            self.label_name(cond.type, _child(cp, "type"))
            if cond.status not in ("False", "True", "Unknown"):
                self.not_supported(_child(cp, "status"), cond.status, ("False", "True", "Unknown"))
            if cond.observed_generation is not None and cond.observed_generation < 0:
                self.invalid(
                    _child(cp, "observedGeneration"),
                    cond.observed_generation,
                    "must be greater than or equal to zero",
                )
            if cond.last_transition_time is None:
                self.required(_child(cp, "lastTransitionTime"), "must be set")
            if not cond.reason:
                self.required(_child(cp, "reason"), "must be set")
            else:
                if not _CONDITION_REASON_RE.fullmatch(cond.reason):
                    self.invalid(
                        _child(cp, "reason"),
                        cond.reason,
                        _regex_error(
                            _CONDITION_REASON_MSG,
                            _CONDITION_REASON_FMT,
                            "my_name",
                            "MY_NAME",
                            "MyName",
                            "ReasonA,ReasonB",
                            "ReasonA:ReasonB",
                        ),
                    )
                if _blen(cond.reason) > 1024:
                    self.too_long(_child(cp, "reason"), 1024)
            if cond.message is not None and _blen(cond.message) > 32768:
                self.too_long(_child(cp, "message"), 32768)
            if cond.type in seen:
                self.duplicate(_child(cp, "type"), cond.type)
            seen.add(cond.type)

    # ---- raw JSON (opaque parameters, status data) ----

    def raw_json(self, value: Any, path: str, max_len: int) -> None:
        if value is None:
            self.required(path)
            return
        try:
            raw = json.dumps(_plain(value), separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError) as err:
            self.invalid(path, "<value omitted>", f"error parsing data as JSON: {err}")
            return
        if _blen(raw) > max_len:
            self.too_long(path, max_len)
        elif not isinstance(value, dict):
            self.invalid(path, "<value omitted>", "must be a valid JSON object")

    # ---- taints and tolerations ----

    def taint(self, taint: r.DeviceTaint, path: str) -> None:
        self.label_name(taint.key, _child(path, "key"))
        if taint.value:
            self.label_value(taint.value, _child(path, "value"))
        if not taint.effect:
            self.required(_child(path, "effect"))
        elif taint.effect not in _TAINT_EFFECTS:
            self.not_supported(_child(path, "effect"), taint.effect, _TAINT_EFFECTS)

    def toleration(self, tol: r.DeviceToleration, path: str) -> None:
        if tol.key:
            self.label_name(tol.key, _child(path, "key"))
        operator = tol.operator or "Equal"  # API defaulting
        value = tol.value or ""
        if operator == "Exists":
            if value:
                self.invalid(_child(path, "value"), value, "must be empty for operator `Exists`")
        elif operator == "Equal":
            self.label_value(value, _child(path, "value"))
        else:
            self.not_supported(_child(path, "operator"), operator, _TOLERATION_OPERATORS)
        if tol.effect and tol.effect not in _TAINT_EFFECTS:
            self.not_supported(_child(path, "effect"), tol.effect, _TAINT_EFFECTS)

    def tolerations(self, tols: Sequence[r.DeviceToleration], path: str) -> None:
        self.slice(tols, DEVICE_TOLERATIONS_MAX_LENGTH, self.toleration, path)

    def binding_parameters(
        self, conditions: Sequence[str], failure_conditions: Sequence[str], path: str
    ) -> None:
        bc_path = _child(path, "bindingConditions")
        bfc_path = _child(path, "bindingFailureConditions")
        self.slice(conditions, BINDING_CONDITIONS_MAX_SIZE, self.label_name, bc_path)
        self.slice(failure_conditions, BINDING_FAILURE_CONDITIONS_MAX_SIZE, self.label_name, bfc_path)
        seen: set[str] = set()
        for i, c in enumerate(conditions):
            if c in seen:
                self.duplicate(_index(bc_path, i), c)
            seen.add(c)
        seen_failure: set[str] = set()
        for i, c in enumerate(failure_conditions):
            if c in seen_failure:
                self.duplicate(_index(bfc_path, i), c)
            seen_failure.add(c)
            if c in seen:
                self.invalid(
                    _index(bfc_path, i), c, "bindingFailureConditions must not overlap with bindingConditions"
                )
        if not conditions and failure_conditions:
            self.invalid(bc_path, None, "bindingConditions are required to use bindingFailureConditions")
        if not failure_conditions and conditions:
            self.invalid(
                bfc_path,
                None,  # an unset list prints as null
                "bindingFailureConditions are required to use bindingConditions",
            )

    # ---- CEL ----

    def selectors(self, selectors: Sequence[r.DeviceSelector], path: str) -> None:
        self.slice(selectors, DEVICE_SELECTORS_MAX_SIZE, self.selector, path)

    def selector(self, selector: r.DeviceSelector, path: str) -> None:
        if selector.cel is None:
            self.required(_child(path, "cel"))
            return
        expr_path = _child(path, "cel", "expression")
        expression = selector.cel.expression
        if _blen(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
            self.too_long(expr_path, CEL_SELECTOR_EXPRESSION_MAX_LENGTH)
            return
        issue = self.cel_checker(expression, self.features)
        if issue is None:
            return
        type_, message = issue
        if type_ == "Invalid":
            self.invalid(expr_path, expression, message)
        else:
            self.add(expr_path, type_, message)

    # ---- opaque configuration ----

    def opaque_config(self, opaque: r.OpaqueDeviceConfiguration | None, path: str) -> None:
        if opaque is None:
            self.required(_child(path, "opaque"))
            return
        op = _child(path, "opaque")
        self.driver_name(opaque.driver, _child(op, "driver"))
        self.raw_json(opaque.parameters, _child(op, "parameters"), OPAQUE_PARAMETERS_MAX_LENGTH)

    def skip_node_operations(self, ops: Sequence[str], path: str) -> None:
        for i, op in enumerate(ops):
            if op not in _SKIP_NODE_OPERATIONS:
                self.not_supported(_index(path, i), op, _SKIP_NODE_OPERATIONS)
        if "NodePrepareResources" in ops and "NodeUnprepareResources" not in ops and "*" not in ops:
            self.invalid(
                path,
                list(ops),
                "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped",
            )

    def metadata(self, meta: ObjectMeta, namespaced: bool) -> None:
        if not meta.name and not meta.generate_name:
            self.required("metadata.name", "name or generateName is required")
        elif meta.name:
            self.dns_subdomain(meta.name, "metadata.name")
        if namespaced and meta.namespace:
            self.dns_label(meta.namespace, "metadata.namespace")


# --- ResourceSlice -----------------------------------------------------------------------------------


def _has_list_values(attr: r.DeviceAttribute) -> bool:
    return any(v is not None for v in (attr.ints, attr.bools, attr.strings, attr.versions))


class _SliceChecker(_Checker):
    def resource_slice(self, s: r.ResourceSlice) -> r.ResourceSlice:
        """Validate a slice; returns it as the API server stores it (fields of disabled gates dropped)."""
        self.metadata(s.metadata, namespaced=False)
        spec = s.spec
        path = "spec"
        self.driver_name(spec.driver, _child(path, "driver"))
        pool_path = _child(path, "pool")
        self.pool_name(spec.pool.name, _child(pool_path, "name"))
        if spec.pool.resource_slice_count <= 0:
            self.invalid(
                _child(pool_path, "resourceSliceCount"),
                spec.pool.resource_slice_count,
                "must be greater than zero",
            )
        if spec.pool.generation < 0:
            self.invalid(
                _child(pool_path, "generation"), spec.pool.generation, "must be greater than or equal to zero"
            )

        # Feature-gated fields: report, then validate as if the API server had dropped them.
        per_device = spec.per_device_node_selection
        if per_device is not None and not self.gate(
            "partitionable_devices", _child(path, "perDeviceNodeSelection")
        ):
            per_device = None
        shared_counters = spec.shared_counters
        if shared_counters and not self.gate("partitionable_devices", _child(path, "sharedCounters")):
            shared_counters = []
        partition_type = spec.partition_type_attribute
        if partition_type is not None and not self.gate(
            "partitionable_devices_type", _child(path, "partitionTypeAttribute")
        ):
            partition_type = None
        skip_ops = spec.skip_node_operations
        if skip_ops is not None and not self.gate(
            "optional_node_operations", _child(path, "skipNodeOperations")
        ):
            skip_ops = None
        devices = [
            self._drop_device_fields(d, _index(_child(path, "devices"), i))
            for i, d in enumerate(spec.devices)
        ]

        set_fields = []
        if spec.node_name is not None:
            if spec.node_name:
                set_fields.append("`nodeName`")
                self.node_name(spec.node_name, _child(path, "nodeName"))
            else:
                self.invalid(
                    _child(path, "nodeName"), "", "must be either unset or set to a non-empty string"
                )
        if spec.node_selector is not None:
            set_fields.append("`nodeSelector`")
            self.node_selector(spec.node_selector, _child(path, "nodeSelector"))
            if len(spec.node_selector.node_selector_terms) != 1:
                self.invalid(
                    _child(path, "nodeSelector", "nodeSelectorTerms"),
                    spec.node_selector.node_selector_terms,
                    "must have exactly one node selector term",
                )
        if spec.all_nodes is not None:
            if spec.all_nodes:
                set_fields.append("`allNodes`")
            else:
                self.invalid(_child(path, "allNodes"), False, "must be either unset or set to true")
        if per_device is not None:
            if per_device:
                set_fields.append("`perDeviceNodeSelection`")
            else:
                self.invalid(
                    _child(path, "perDeviceNodeSelection"), False, "must be either unset or set to true"
                )
        one_of = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
        if not set_fields:
            self.required(path, one_of)
        elif len(set_fields) > 1:
            self.invalid(path, "{" + ", ".join(set_fields) + "}", one_of + ", but multiple fields are set")

        if shared_counters and devices:
            self.invalid(path, "", "only one of `sharedCounters` or `devices` is allowed")

        advanced = any(
            d.taints or d.consumes_counters or any(_has_list_values(a) for a in d.attributes.values())
            for d in devices
        )
        max_devices = (
            RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced else RESOURCE_SLICE_MAX_DEVICES
        )
        self.set(
            devices,
            max_devices,
            lambda d, p: self.device(d, p, bool(per_device)),
            lambda d: d.name,
            _child(path, "devices"),
        )
        self.set(
            shared_counters,
            RESOURCE_SLICE_MAX_COUNTER_SETS,
            self.counter_set,
            lambda c: c.name,
            _child(path, "sharedCounters"),
        )
        if partition_type is not None:
            self.partition_type_attribute(partition_type, spec.driver, devices, path)
        if skip_ops is not None:
            self.skip_node_operations(skip_ops, _child(path, "skipNodeOperations"))
        return _struct_replace(s, spec=_struct_replace(
            spec, per_device_node_selection=per_device, shared_counters=shared_counters,
            partition_type_attribute=partition_type, skip_node_operations=skip_ops, devices=devices))

    def _drop_device_fields(self, d: r.Device, path: str) -> r.Device:
        """Report gated device fields whose gate is off and return the device without them."""
        changes: dict[str, Any] = {}

        def drop(flag: str, field: str, camel: str, empty: Any) -> None:
            if not self.gate(flag, _child(path, camel)):
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
                        "consumable_capacity", _child(_key(_child(path, "capacity"), key), "requestPolicy")
                    )
                    cap = _struct_replace(cap, request_policy=None)
                new_capacity[key] = cap
            changes["capacity"] = new_capacity
        if d.node_allocatable_resource_mappings is not None:
            drop(
                "node_allocatable_resources",
                "node_allocatable_resource_mappings",
                "nodeAllocatableResourceMappings",
                None,
            )
        if d.node_allocatable_resources is not None:
            drop("node_allocatable_resources", "node_allocatable_resources", "nodeAllocatableResources", None)
        if not self.features.list_type_attributes and any(_has_list_values(a) for a in d.attributes.values()):
            new_attrs = {}
            for key, attr in d.attributes.items():
                if _has_list_values(attr):
                    for field in ("ints", "bools", "strings", "versions"):
                        if getattr(attr, field) is not None:
                            self.gate(
                                "list_type_attributes", _child(_key(_child(path, "attributes"), key), field)
                            )
                    attr = _struct_replace(attr, ints=None, bools=None, strings=None, versions=None)
                new_attrs[key] = attr
            changes["attributes"] = new_attrs
        return _struct_replace(d, **changes) if changes else d

    def device(self, d: r.Device, path: str, per_device_node_selection: bool) -> None:
        self.dns_label(d.name, _child(path, "name"))
        n_entries = len(d.attributes) + len(d.capacity)
        if n_entries > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
            self.invalid(
                path,
                n_entries,
                "the total number of attributes and capacities must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}",
            )
        n_values = 0
        for attr in d.attributes.values():
            lists = [v for v in (attr.bools, attr.ints, attr.strings, attr.versions) if v]
            n_values += sum(len(v) for v in lists) if lists else 1
        if n_values > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
            self.invalid(
                path,
                n_values,
                "the total number of attribute values must not exceed "
                f"{RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE}",
            )
        max_key = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
        attrs_path = _child(path, "attributes")
        for key, attr in d.attributes.items():
            self.qualified_name(key, attrs_path)
            self.attribute(attr, _key(attrs_path, key, max_key))
        cap_path = _child(path, "capacity")
        multi = bool(d.allow_multiple_allocations)
        for key, cap in d.capacity.items():
            self.qualified_name(key, cap_path)
            item_path = _key(cap_path, key, max_key)
            if cap.request_policy is not None:
                if multi:
                    self.request_policy(cap.value, cap.request_policy, _child(item_path, "requestPolicy"))
                else:
                    self.forbidden(
                        _child(item_path, "requestPolicy"), "allowMultipleAllocations must be true"
                    )
        self.slice(d.taints, DEVICE_TAINTS_MAX_LENGTH, self.taint, _child(path, "taints"))
        self.set(
            d.consumes_counters,
            RESOURCE_SLICE_MAX_COUNTER_CONSUMPTIONS_PER_DEVICE,
            self.counter_consumption,
            lambda c: c.counter_set,
            _child(path, "consumesCounters"),
        )
        node_fields_set = d.node_name is not None or d.node_selector is not None or d.all_nodes is not None
        if per_device_node_selection:
            set_fields = []
            if d.node_name is not None:
                if d.node_name:
                    set_fields.append("`nodeName`")
                    self.node_name(d.node_name, _child(path, "nodeName"))
                else:
                    self.invalid(_child(path, "nodeName"), "", "must not be empty")
            if d.node_selector is not None:
                set_fields.append("`nodeSelector`")
                self.node_selector(d.node_selector, _child(path, "nodeSelector"))
            if d.all_nodes is not None:
                if d.all_nodes:
                    set_fields.append("`allNodes`")
                else:
                    self.invalid(_child(path, "allNodes"), False, "must be either unset or set to true")
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

    def attribute(self, attr: r.DeviceAttribute, path: str) -> None:
        n = 0
        if attr.bool_ is not None:
            n += 1
        if attr.int_ is not None:
            n += 1
        if attr.string is not None:
            n += 1
            self._attr_string(attr.string, _child(path, "string"))
        if attr.version is not None:
            n += 1
            self._attr_version(attr.version, _child(path, "version"))
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
                self.invalid(_child(path, field), [], "must not be empty if specified")
            for i, item in enumerate(items):
                if field == "strings":
                    self._attr_string(str(item), _index(_child(path, field), i))
                elif field == "versions":
                    self._attr_version(str(item), _index(_child(path, field), i))
        if n == 0:
            self.invalid(path, "", "exactly one value must be specified")
        elif n > 1:
            self.invalid(path, attr, "exactly one value must be specified")

    def _attr_string(self, value: str, path: str) -> None:
        if _blen(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            self.too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)

    def _attr_version(self, value: str, path: str) -> None:
        if not _SEMVER_RE.fullmatch(value):
            self.invalid(path, value, "must be a string compatible with semver.org spec 2.0.0")
        if _blen(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
            self.too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)

    # ---- consumable capacity request policy ----

    def request_policy(self, capacity: Quantity, policy: r.CapacityRequestPolicy, path: str) -> None:
        if policy.valid_values and policy.valid_range is not None:
            self.forbidden(
                path,
                'exactly one policy can be specified, cannot specify "validValues" and '
                '"validRange" at the same time',
            )
            return
        if policy.valid_values:
            if policy.default is None:
                self.required(_child(path, "default"), "required when validValues is defined")
            else:
                self._valid_values(policy.default, capacity, policy.valid_values, _child(path, "validValues"))
        elif policy.valid_range is not None:
            if policy.default is None:
                self.required(_child(path, "default"), "required when validRange is defined")
            else:
                self._valid_range(policy.default, capacity, policy.valid_range, _child(path, "validRange"))

    def _valid_values(
        self, default: Quantity, capacity: Quantity, values: Sequence[Quantity], path: str
    ) -> None:
        for i in range(len(values) - 1):
            if _q_cmp(values[i], values[i + 1]) > 0:
                self.invalid(
                    _index(path, i + 1), _q_str(values[i + 1]), "values must be sorted in ascending order"
                )
        found_default = False

        def option(q: Quantity, p: str) -> None:
            nonlocal found_default
            if _q_cmp(q, capacity) > 0:
                self.invalid(p, _q_str(q), f"option is larger than capacity value: {_q_str(capacity)}")
            if _q_cmp(q, default) == 0:
                found_default = True

        if self.features.fractional_capacity_range:

            def key(q: Quantity) -> object:
                return _q_fraction(q)
        else:

            def key(q: Quantity) -> object:
                return str(_q_value(q))

        self.set(values, CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS, option, key, path)
        if not found_default:
            self.invalid(path, _q_str(default), "default value is not valid according to the requestPolicy")

    def _valid_range(
        self, default: Quantity, capacity: Quantity, rng: r.CapacityRequestPolicyRange, path: str
    ) -> None:
        if rng.min is None:
            self.required(_child(path, "min"), "required when validRange is defined")
            return
        lo = rng.min
        if _q_cmp(lo, capacity) > 0:
            self.invalid(
                _child(path, "min"), _q_str(lo), f"min is larger than capacity value: {_q_str(capacity)}"
            )
        if _q_cmp(default, lo) < 0:
            self.invalid(_child(path, "default"), _q_str(default), f"default is less than min: {_q_str(lo)}")
        if rng.max is not None:
            if _q_cmp(lo, rng.max) > 0:
                self.invalid(_child(path, "max"), _q_str(lo), f"min is larger than max: {_q_str(rng.max)}")
            if _q_cmp(rng.max, capacity) > 0:
                self.invalid(
                    _child(path, "max"),
                    _q_str(rng.max),
                    f"max is larger than capacity value: {_q_str(capacity)}",
                )
            if _q_cmp(default, rng.max) > 0:
                self.invalid(
                    _child(path, "default"), _q_str(default), f"default is more than max: {_q_str(rng.max)}"
                )
        bounds = (("default", default), ("min", lo), ("max", rng.max), ("step", rng.step))
        use_milli = False
        if self.features.fractional_capacity_range:
            use_milli = any(q is not None and _q_is_fractional(q) for _, q in bounds)
            if use_milli:
                unsafe = False
                for name, q in bounds:
                    if q is not None and _q_fraction(q) * 1000 != _q_milli(q):
                        self.invalid(
                            _child(path, name), _q_str(q), "value cannot be represented as a milli value"
                        )
                        unsafe = True
                if unsafe:
                    return
        if rng.step is None:
            return
        step = rng.step
        if _q_sign(step) <= 0:
            self.invalid(_child(path, "step"), _q_str(step), "must be greater than zero")
            return
        added = lo + step
        if _q_cmp(added, capacity) > 0:
            self.invalid(
                _child(path, "step"),
                _q_str(step),
                f"one step {_q_str(added)} is larger than capacity value: {_q_str(capacity)}",
            )
        if not use_milli:
            unsafe = False
            for name, q in bounds:
                if q is None:
                    continue
                if _q_sign(q) < 0:
                    self.invalid(_child(path, name), _q_str(q), "must be greater than or equal to 0")
                    unsafe = True
                elif _q_fraction(q) > _INT64_MAX:
                    self.invalid(_child(path, name), _q_str(q), f"must not be larger than {_INT64_MAX}")
                    unsafe = True
            if unsafe:
                return
        self._range_step(default, lo, step, use_milli, _child(path, "step"))
        if rng.max is not None:
            self._range_step(rng.max, lo, step, use_milli, _child(path, "step"))

    def _range_step(self, value: Quantity, lo: Quantity, step: Quantity, use_milli: bool, path: str) -> None:
        conv = _q_milli if use_milli else _q_value
        step_v, lo_v, v = conv(step), conv(lo), conv(value)
        if step_v == 0:
            return
        # Go's % truncates toward zero; only zero/non-zero matters here.
        if (v - lo_v) % step_v != 0:
            self.invalid(
                path,
                _q_str(value),
                f"value is not a multiple of a given step ({_q_str(step)}) from ({_q_str(lo)})",
            )

    # ---- counters ----

    def counter_set(self, cs: r.CounterSet, path: str) -> None:
        if not cs.name:
            self.required(_child(path, "name"))
        else:
            self.dns_label(cs.name, _child(path, "name"))
        self._counters(cs.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, _child(path, "counters"))

    def counter_consumption(self, cc: r.DeviceCounterConsumption, path: str) -> None:
        if not cc.counter_set:
            self.required(_child(path, "counterSet"))
        else:
            self.dns_label(cc.counter_set, _child(path, "counterSet"))
        self._counters(cc.counters, RESOURCE_SLICE_MAX_COUNTERS_PER_CONSUMPTION, _child(path, "counters"))

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
        attr_path = _child(path, "partitionTypeAttribute")
        self.fully_qualified_name(name, attr_path)
        if not any(d.consumes_counters for d in devices):
            self.invalid(
                attr_path, name, "may only be set on a slice which declares devices that consume counters"
            )
            return
        probe = _Checker(self.obj, self.features, self.cel_checker)
        probe.fully_qualified_name(name, attr_path)
        if probe.findings:
            return
        bare = name[len(driver) + 1 :] if name.startswith(driver + "/") else ""
        for i, d in enumerate(devices):
            if not d.consumes_counters:
                continue
            p = _key(_child(path, "devices") + f"[{i}].attributes", name)
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


def _struct_replace(obj: T, **changes: Any) -> T:
    """msgspec.structs.replace, typed."""
    return msgspec.structs.replace(obj, **changes)  # type: ignore[type-var]


# --- claims ------------------------------------------------------------------------------------------


class _RequestNames:
    """Request names of a claim, each with its subrequest names (None when it has no firstAvailable)."""

    def __init__(self, requests: Iterable[r.DeviceRequest]) -> None:
        self.names: dict[str, set[str] | None] = {}
        for req in requests:
            self.names[req.name] = {s.name for s in req.first_available} if req.first_available else None

    def has(self, ref: str) -> bool:
        segments = ref.split("/")
        if len(segments) > 2 or segments[0] not in self.names:
            return False
        if len(segments) == 1:
            return True
        subs = self.names[segments[0]]
        return subs is not None and segments[1] in subs


class _ClaimChecker(_Checker):
    def claim_spec(self, spec: r.ResourceClaimSpec, path: str) -> r.ResourceClaimSpec:
        """Validate a claim spec; returns the spec as the API server keeps it (gated fields dropped)."""
        devices = self._drop_claim_fields(spec.devices, _child(path, "devices"))
        dpath = _child(path, "devices")
        names = _RequestNames(devices.requests)
        self.set(
            devices.requests,
            DEVICE_REQUESTS_MAX_SIZE,
            self.request,
            lambda q: q.name,
            _child(dpath, "requests"),
        )
        self.slice(
            devices.constraints,
            DEVICE_CONSTRAINTS_MAX_SIZE,
            lambda c, p: self.constraint(c, p, names),
            _child(dpath, "constraints"),
        )
        self.slice(
            devices.config,
            DEVICE_CONFIG_MAX_SIZE,
            lambda c, p: self.claim_config(c, p, names),
            _child(dpath, "config"),
        )
        return _struct_replace(spec, devices=devices)

    def _drop_claim_fields(self, dc: r.DeviceClaim, path: str) -> r.DeviceClaim:
        requests = []
        for i, req in enumerate(dc.requests):
            rp = _index(_child(path, "requests"), i)
            changes: dict[str, Any] = {}
            if req.first_available is not None and not self.gate(
                "prioritized_list", _child(rp, "firstAvailable")
            ):
                changes["first_available"] = None
            if req.exactly is not None:
                changes_exact = self._drop_request_fields(req.exactly, _child(rp, "exactly"))
                if req.exactly.admin_access is not None and not self.gate(
                    "admin_access", _child(rp, "exactly", "adminAccess")
                ):
                    changes_exact["admin_access"] = None
                if changes_exact:
                    changes["exactly"] = _struct_replace(req.exactly, **changes_exact)
            if req.first_available and "first_available" not in changes:
                subs = []
                for j, sub in enumerate(req.first_available):
                    sub_changes = self._drop_request_fields(sub, _index(_child(rp, "firstAvailable"), j))
                    subs.append(_struct_replace(sub, **sub_changes) if sub_changes else sub)
                changes["first_available"] = subs
            requests.append(_struct_replace(req, **changes) if changes else req)
        constraints = []
        for i, c in enumerate(dc.constraints):
            if c.distinct_attribute is not None and not self.gate(
                "consumable_capacity", _child(_index(_child(path, "constraints"), i), "distinctAttribute")
            ):
                c = _struct_replace(c, distinct_attribute=None)
            constraints.append(c)
        return _struct_replace(dc, requests=requests, constraints=constraints)

    def _drop_request_fields(
        self, req: r.ExactDeviceRequest | r.DeviceSubRequest, path: str
    ) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        if req.tolerations and not self.gate("device_taints", _child(path, "tolerations")):
            changes["tolerations"] = []
        if req.capacity is not None and not self.gate("consumable_capacity", _child(path, "capacity")):
            changes["capacity"] = None
        return changes

    def request(self, req: r.DeviceRequest, path: str) -> None:
        self.dns_label(req.name, _child(path, "name"))
        has_first = bool(req.first_available)
        has_exact = req.exactly is not None
        if not has_first and not has_exact:
            self.required(path, "exactly one of `exactly` or `firstAvailable` is required")
        elif has_first and has_exact:
            self.invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
            )
        elif has_first:
            assert req.first_available is not None
            self.set(
                req.first_available,
                FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
                self.subrequest,
                lambda s: s.name,
                _child(path, "firstAvailable"),
            )
        else:
            assert req.exactly is not None
            self.exact_request(req.exactly, _child(path, "exactly"))

    def subrequest(self, sub: r.DeviceSubRequest, path: str) -> None:
        self.dns_label(sub.name, _child(path, "name"))
        self._request_common(sub, path)

    def exact_request(self, req: r.ExactDeviceRequest, path: str) -> None:
        self._request_common(req, path)

    def _request_common(self, req: r.ExactDeviceRequest | r.DeviceSubRequest, path: str) -> None:
        self.device_class_name(req.device_class_name, _child(path, "deviceClassName"))
        self.selectors(req.selectors, _child(path, "selectors"))
        mode = req.allocation_mode or "ExactCount"  # API defaulting
        count = req.count or 0
        if mode == "ExactCount" and count == 0:
            count = 1  # API defaulting
        if mode == "All":
            if count != 0:
                self.invalid(
                    _child(path, "count"), count, "must not be specified when allocationMode is 'All'"
                )
        elif mode == "ExactCount":
            if count <= 0:
                self.invalid(_child(path, "count"), count, "must be greater than zero")
        else:
            self.not_supported(_child(path, "allocationMode"), mode, _ALLOCATION_MODES)
        self.tolerations(req.tolerations, _child(path, "tolerations"))

    def constraint(self, c: r.DeviceConstraint, path: str, names: _RequestNames) -> None:
        self.set(
            c.requests,
            DEVICE_REQUESTS_MAX_SIZE,
            lambda n, p: self.request_ref(n, p, names),
            lambda n: n,
            _child(path, "requests"),
        )
        if c.match_attribute is not None:
            self.fully_qualified_name(c.match_attribute, _child(path, "matchAttribute"))
        elif c.distinct_attribute is not None:
            self.fully_qualified_name(c.distinct_attribute, _child(path, "distinctAttribute"))
        elif self.features.consumable_capacity:
            self.required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                "but multiple fields are set",
            )
        else:
            self.required(_child(path, "matchAttribute"))

    def claim_config(self, c: r.DeviceClaimConfiguration, path: str, names: _RequestNames) -> None:
        self.set(
            c.requests,
            DEVICE_REQUESTS_MAX_SIZE,
            lambda n, p: self.request_ref(n, p, names),
            lambda n: n,
            _child(path, "requests"),
        )
        self.opaque_config(c.opaque, path)

    def request_ref(self, ref: str, path: str, names: _RequestNames) -> None:
        msg = (
            "must be the name of a request in the claim or the name of a request and a subrequest "
            "separated by '/'"
        )
        segments = ref.split("/")
        if len(segments) > 2:
            self.invalid(path, ref, msg)
            return
        for seg in segments:
            self.dns_label(seg, path)
        if not names.has(ref):
            self.invalid(path, ref, msg)

    # ---- status (validated as a new status, the way the scheduler's first write is) ----

    def claim_status(self, status: r.ResourceClaimStatus, spec: r.ResourceClaimSpec, path: str) -> None:
        names = _RequestNames(spec.devices.requests)
        self.set(
            status.reserved_for,
            RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE,
            self._consumer_ref,
            lambda c: c.uid,
            _child(path, "reservedFor"),
        )
        allocated: set[tuple[str, str, str, str | None]] = set()
        if status.allocation is not None:
            for res in status.allocation.devices.results:
                allocated.add((res.driver, res.pool, res.device, res.share_id))
        self.set(
            status.devices,
            -1,
            lambda d, p: self._device_status(d, p, allocated),
            lambda d: (d.driver, d.pool, d.device, d.share_id),
            _child(path, "devices"),
        )
        if status.reserved_for and status.allocation is None:
            self.forbidden(_child(path, "reservedFor"), "may not be specified when `allocated` is not set")
        if status.allocation is not None:
            self._allocation(status.allocation, _child(path, "allocation"), names)

    def _consumer_ref(self, ref: r.ResourceClaimConsumerReference, path: str) -> None:
        if not ref.resource:
            self.required(_child(path, "resource"))
        if not ref.name:
            self.required(_child(path, "name"))
        if not ref.uid:
            self.required(_child(path, "uid"))

    def _device_status(
        self, d: r.AllocatedDeviceStatus, path: str, allocated: set[tuple[str, str, str, str | None]]
    ) -> None:
        self.driver_name(d.driver, _child(path, "driver"))
        self.pool_name(d.pool, _child(path, "pool"))
        self.dns_label(d.device, _child(path, "device"))
        if d.share_id is not None:
            self.uid(d.share_id, _child(path, "shareID"))
        if (d.driver, d.pool, d.device, d.share_id) not in allocated:
            ident = f"{d.driver}/{d.pool}/{d.device}" + (f"/{d.share_id}" if d.share_id else "")
            self.invalid(path, ident, "must be an allocated device in the claim")
        if len(d.conditions) > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS:
            self.too_many(
                _child(path, "conditions"), len(d.conditions), ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS
            )
        self.conditions(d.conditions, _child(path, "conditions"))
        if d.data is not None:
            self.raw_json(d.data, _child(path, "data"), ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH)
        nd = d.network_data
        if nd is not None:
            npath = _child(path, "networkData")
            if (
                nd.interface_name is not None
                and _blen(nd.interface_name) > NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH
            ):
                self.too_long(_child(npath, "interfaceName"), NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH)
            if (
                nd.hardware_address is not None
                and _blen(nd.hardware_address) > NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH
            ):
                self.too_long(
                    _child(npath, "hardwareAddress"), NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH
                )
            self.set(
                nd.ips,
                NETWORK_DEVICE_DATA_MAX_IPS,
                self._interface_address,
                lambda ip: ip,
                _child(npath, "ips"),
            )

    def _interface_address(self, value: str, path: str) -> None:
        try:
            if "/" not in value:
                raise ValueError(value)
            addr, _, prefix = value.partition("/")
            if _SLOPPY_IPV4_RE.fullmatch(addr):
                # Go's sloppy parser reads IPv4 octets with leading zeros as decimal.
                addr = ".".join(str(int(octet)) for octet in addr.split("."))
            if not prefix.isdigit() or not prefix.isascii():
                raise ValueError(value)
            iface = ipaddress.ip_interface(f"{addr}/{int(prefix)}")
        except ValueError:
            self.invalid(
                path, value, "must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)"
            )
            return
        ip = iface.ip
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            canonical = f"{ip.ipv4_mapped}/{iface.network.prefixlen}"
        else:
            canonical = f"{ip}/{iface.network.prefixlen}"
        if value != canonical:
            self.invalid(path, value, f"must be in canonical form ({_go_quote(canonical)})")

    def _allocation(self, alloc: r.AllocationResult, path: str, names: _RequestNames) -> None:
        dpath = _child(path, "devices")
        self.slice(
            alloc.devices.results,
            ALLOCATION_RESULTS_MAX_SIZE,
            lambda res, p: self._result(res, p, names),
            _child(dpath, "results"),
        )
        self.slice(
            alloc.devices.config,
            2 * DEVICE_CONFIG_MAX_SIZE,
            lambda c, p: self._alloc_config(c, p, names),
            _child(dpath, "config"),
        )
        if alloc.node_selector is not None:
            self.node_selector(alloc.node_selector, _child(path, "nodeSelector"))

    def _result(self, res: r.DeviceRequestAllocationResult, path: str, names: _RequestNames) -> None:
        if res.admin_access is not None:
            self.gate("admin_access", _child(path, "adminAccess"))
        tolerations = res.tolerations
        if tolerations and not self.gate("device_taints", _child(path, "tolerations")):
            tolerations = []
        bc, bfc = res.binding_conditions, res.binding_failure_conditions
        if (bc or bfc) and not self.gate("device_binding_and_status", _child(path, "bindingConditions")):
            bc, bfc = [], []
        share_id = res.share_id
        if share_id is not None and not self.gate("consumable_capacity", _child(path, "shareID")):
            share_id = None
        if res.consumed_capacity is not None:
            self.gate("consumable_capacity", _child(path, "consumedCapacity"))
        skip_ops = res.skip_node_operations
        if skip_ops is not None and not self.gate(
            "optional_node_operations", _child(path, "skipNodeOperations")
        ):
            skip_ops = None
        self.request_ref(res.request, _child(path, "request"), names)
        self.driver_name(res.driver, _child(path, "driver"))
        self.pool_name(res.pool, _child(path, "pool"))
        self.dns_label(res.device, _child(path, "device"))
        self.binding_parameters(bc, bfc, path)
        for i, tol in enumerate(tolerations):
            self.toleration(tol, _index(_child(path, "tolerations"), i))
        if share_id is not None:
            self.uid(share_id, _child(path, "shareID"))
        if skip_ops is not None:
            self.skip_node_operations(skip_ops, _child(path, "skipNodeOperations"))

    def _alloc_config(self, c: r.DeviceAllocationConfiguration, path: str, names: _RequestNames) -> None:
        if not c.source:
            self.required(_child(path, "source"))
        elif c.source not in _CONFIG_SOURCES:
            self.not_supported(_child(path, "source"), c.source, _CONFIG_SOURCES)
        self.set(
            c.requests,
            DEVICE_REQUESTS_MAX_SIZE,
            lambda n, p: self.request_ref(n, p, names),
            lambda n: n,
            _child(path, "requests"),
        )
        self.opaque_config(c.opaque, path)


# --- pods (core/v1 validation of the fields DRA touches) -------------------------------------------


def _go_ptr(value: str | None) -> str:
    return "(*string)(nil)" if value is None else f"&{_go_quote(value)}"


def _pod_claim_value(c: PodResourceClaim) -> _Raw:
    """The entry as the API server prints it in these errors (Go's %#v of core.PodResourceClaim)."""
    return _Raw(f"core.PodResourceClaim{{Name:{_go_quote(c.name)}, ResourceClaimName:{_go_ptr(c.resource_claim_name)}, "
                f"ResourceClaimTemplateName:{_go_ptr(c.resource_claim_template_name)}}}")


class _PodChecker(_Checker):
    def pod_spec(self, spec: PodSpec, path: str) -> None:
        claims_path = _child(path, "resourceClaims")
        names: set[str] = set()
        for i, c in enumerate(spec.resource_claims):
            p = _index(claims_path, i)
            if not c.name:
                self.required(_child(p, "name"))
            elif c.name in names:
                self.duplicate(_child(p, "name"), c.name)
            else:
                self.dns_label(c.name, _child(p, "name"))
                names.add(c.name)
            if c.source is not None:
                # `source` (1.26-1.30) was replaced by the two fields below in 1.31: a current API server does
                # not know it (kubectl's strict field validation rejects it; without it the entry names no claim).
                self.add(_child(p, "source"), "Forbidden", "field was removed in Kubernetes 1.31: "
                         "resourceClaimName and resourceClaimTemplateName moved up one level")
            if c.resource_claim_name is not None and c.resource_claim_template_name is not None:
                self.add(p, "Invalid", "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be "
                         "specified", _pod_claim_value(c))
            elif c.resource_claim_name is None and c.resource_claim_template_name is None:
                self.add(p, "Invalid", "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                         _pod_claim_value(c))
            if c.resource_claim_name is not None:
                self.dns_subdomain(c.resource_claim_name, _child(p, "resourceClaimName"))
            if c.resource_claim_template_name is not None:
                self.dns_subdomain(c.resource_claim_template_name, _child(p, "resourceClaimTemplateName"))
        for field, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
            for i, container in enumerate(containers):
                rpath = _child(_index(_child(path, field), i), "resources")
                res = container.resources
                for j, ref in enumerate(res.claims):
                    if ref.name not in names:
                        self.add(_child(_index(_child(rpath, "claims"), j), "name"), "NotSupported",
                                 "must be one of the names in pod.spec.resourceClaims"
                                 + ("" if names else " which are empty"), ref.name)
                for key, request in res.requests.items():
                    if not is_extended_resource_name(key):
                        continue
                    limit = res.limits.get(key)
                    if limit is None:
                        self.required(_child(rpath, "limits"), "Limit must be set for non overcommitable resources")
                    elif _q_cmp(request, limit) != 0:
                        self.invalid(_child(rpath, "requests"), _q_str(request),
                                     f"must be equal to {key} limit of {_q_str(limit)}")


# --- entry points ------------------------------------------------------------------------------------


def default_cel_checker(expression: str, features: ValidationFeatures) -> tuple[str, str] | None:
    """Compile with drasim.cel in the new-expressions environment of `features`; check the cost estimate.

    Returns None when the expression is fine, or when drasim.cel is not available (nothing is checked then).
    """
    try:
        cel: Any = importlib.import_module("drasim.cel")
        env_type = cel.CelEnvironment
        compile_selector = cel.compile_selector
        compile_error = cel.CelCompileError
    except (ImportError, AttributeError):
        return None
    env = env_type(
        consumable_capacity=features.consumable_capacity,
        list_type_attributes=features.list_type_attributes,
        stored=False,
    )
    try:
        program = compile_selector(expression, env)
    except compile_error as err:
        message = str(getattr(err, "message", err))
        if "exceeds cost limit" in message:
            return ("Forbidden", "too complex, exceeds cost limit")
        return ("Invalid", message)
    cost = None
    for attr in ("max_cost", "cost", "estimated_cost", "cost_estimate"):
        value = getattr(program, attr, None)
        if value is not None:
            cost = value() if callable(value) else value
            break
    if isinstance(cost, int | float) and cost > CEL_SELECTOR_EXPRESSION_MAX_COST:
        return ("Forbidden", "too complex, exceeds cost limit")
    return None


def validate_object(
    obj: object, *, features: ValidationFeatures | None = None, cel_checker: CelChecker | None = None
) -> list[Finding]:
    """The field errors the API server would report when the object is created (plus a few warnings).

    Objects of kinds other than the five DRA kinds, Pods and workloads yield no findings. Feature-gated
    fields used while their gate is off yield a Forbidden warning: the API server drops such a field
    (no error) and validates the rest of the object without it.
    """
    return store_object(obj, features=features, cel_checker=cel_checker)[1]


def store_object(
    obj: T, *, features: ValidationFeatures | None = None, cel_checker: CelChecker | None = None
) -> tuple[T, list[Finding]]:
    """`validate_object`'s findings and the object as the API server would store it: fields of disabled
    feature gates dropped (the input is not modified)."""
    features = features or ValidationFeatures()
    cel_checker = cel_checker or default_cel_checker
    stored: Any = obj
    if isinstance(obj, r.ResourceSlice):
        sc = _SliceChecker(object_ref("ResourceSlice", obj.metadata), features, cel_checker)
        stored = sc.resource_slice(obj)
        return stored, sc.findings
    if isinstance(obj, r.DeviceClass):
        c = _Checker(object_ref("DeviceClass", obj.metadata), features, cel_checker)
        c.metadata(obj.metadata, namespaced=False)
        c.selectors(obj.spec.selectors, "spec.selectors")
        c.slice(
            obj.spec.config,
            DEVICE_CONFIG_MAX_SIZE,
            lambda cfg, p: c.opaque_config(cfg.opaque, p),
            "spec.config",
        )
        ern = obj.spec.extended_resource_name
        if ern is not None:
            if not c.gate("extended_resource", "spec.extendedResourceName"):
                stored = _struct_replace(obj, spec=_struct_replace(obj.spec, extended_resource_name=None))
            elif not is_extended_resource_name(ern):
                c.invalid("spec.extendedResourceName", ern, "must be a valid extended resource name")
        return stored, c.findings
    if isinstance(obj, r.ResourceClaim):
        cc = _ClaimChecker(object_ref("ResourceClaim", obj.metadata), features, cel_checker)
        cc.metadata(obj.metadata, namespaced=True)
        spec = cc.claim_spec(obj.spec, "spec")
        if obj.status is not None:
            cc.claim_status(obj.status, spec, "status")
        if spec != obj.spec:
            stored = _struct_replace(obj, spec=spec)
        return stored, cc.findings
    if isinstance(obj, r.ResourceClaimTemplate):
        tc = _ClaimChecker(object_ref("ResourceClaimTemplate", obj.metadata), features, cel_checker)
        tc.metadata(obj.metadata, namespaced=True)
        spec = tc.claim_spec(obj.spec.spec, "spec.spec")
        if spec != obj.spec.spec:
            stored = _struct_replace(obj, spec=_struct_replace(obj.spec, spec=spec))
        return stored, tc.findings
    if isinstance(obj, r.DeviceTaintRule):
        return stored, _device_taint_rule(obj, features, cel_checker)
    if isinstance(obj, Pod):
        pc = _PodChecker(object_ref("Pod", obj.metadata), features, cel_checker)
        pc.metadata(obj.metadata, namespaced=True)
        pc.pod_spec(obj.spec, "spec")
        return stored, pc.findings
    if isinstance(obj, Deployment | ReplicaSet | StatefulSet | Job):
        wc = _PodChecker(object_ref(obj.KIND, obj.metadata), features, cel_checker)
        wc.metadata(obj.metadata, namespaced=True)
        wc.pod_spec(obj.spec.template.spec, "spec.template.spec")
        return stored, wc.findings
    return stored, []


def _device_taint_rule(
    obj: r.DeviceTaintRule, features: ValidationFeatures, cel_checker: CelChecker
) -> list[Finding]:
    c = _Checker(object_ref("DeviceTaintRule", obj.metadata), features, cel_checker)
    if not features.device_taint_rules:
        c.add(
            "",
            "Forbidden",
            "the DRADeviceTaintRules feature gate is disabled (and its API version needs "
            "--runtime-config); the API server would not accept DeviceTaintRules",
            severity="warning",
        )
    c.metadata(obj.metadata, namespaced=False)
    sel = obj.spec.device_selector
    if sel is not None:
        if sel.driver is not None:
            c.driver_name(sel.driver, "spec.deviceSelector.driver")
        if sel.pool is not None:
            c.pool_name(sel.pool, "spec.deviceSelector.pool")
        if sel.device is not None:
            c.dns_label(sel.device, "spec.deviceSelector.device")
    c.taint(obj.spec.taint, "spec.taint")
    if obj.status is not None:
        c.conditions(obj.status.conditions, "status.conditions")
        n = len(obj.status.conditions)
        if n > DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS:
            c.too_many("status.conditions", n, DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS)
    return c.findings


def validate_objects(
    objs: Iterable[object],
    *,
    features: ValidationFeatures | None = None,
    cel_checker: CelChecker | None = None,
) -> list[Finding]:
    """validate_object for each object, then the checks that need several objects together:

    * `consumesCounters` must name a counter set (and counters) declared by a ResourceSlice of the same
      pool (same driver and pool name, newest generation); duplicate device or counter set names across
      the slices of one pool (the allocator treats such a pool as invalid); pools whose slice count does
      not match `resourceSliceCount` (the allocator treats the pool as incomplete): all warnings
      (`check_pools`: the API server validates each slice alone);
    * `adminAccess: true` in a claim or template needs the `resource.kubernetes.io/admin-access: "true"`
      label on its Namespace, when that Namespace is among the objects.
    """
    features = features or ValidationFeatures()
    objs = list(objs)
    findings: list[Finding] = []
    for obj in objs:
        findings.extend(validate_object(obj, features=features, cel_checker=cel_checker))
    slices = [o for o in objs if isinstance(o, r.ResourceSlice)]
    findings.extend(check_pools(slices, features))
    namespaces = {o.metadata.name: o for o in objs if isinstance(o, Namespace)}
    if features.admin_access and namespaces:
        for o in objs:
            if isinstance(o, r.ResourceClaim | r.ResourceClaimTemplate):
                findings.extend(check_admin_access(o, namespaces))
    return findings


def check_admin_access(
    obj: r.ResourceClaim | r.ResourceClaimTemplate, namespaces: dict[str, Namespace], *, strict: bool = False
) -> list[Finding]:
    """`adminAccess: true` needs the admin-access label on the object's Namespace. A Namespace not in
    `namespaces` is skipped, or with `strict` taken as one without labels (as `default` is)."""
    if isinstance(obj, r.ResourceClaim):
        kind, spec, path = "ResourceClaim", obj.spec, "spec"
    else:
        kind, spec, path = "ResourceClaimTemplate", obj.spec.spec, "spec.spec"
    ns_name = obj.metadata.namespace or "default"
    ns = namespaces.get(ns_name)
    if ns is None and not strict:
        return []
    for i, req in enumerate(spec.devices.requests):
        if req.exactly is not None and req.exactly.admin_access:
            if ns is not None and ns.metadata.labels.get(ADMIN_NAMESPACE_LABEL_KEY) == "true":
                return []
            where = "" if ns is not None else (
                f" (Namespace {ns_name} is not among the inputs: taken as one without that label)")
            return [
                Finding(
                    object_ref(kind, obj.metadata),
                    f"{path}.devices.requests[{i}].exactly.adminAccess",
                    "Forbidden",
                    "admin access to devices requires the "
                    f"`{ADMIN_NAMESPACE_LABEL_KEY}: true` label on the containing namespace{where}",
                )
            ]
    return []


def check_pools(slices: Sequence[r.ResourceSlice], features: ValidationFeatures) -> list[Finding]:
    """Checks across the slices of one pool (newest generation): duplicate device or counter set names in
    different slices, counters consumed but declared by no slice of the pool, slices missing. The API
    server validates each object alone, so none of these is a rejection: all are warnings (the allocator
    treats such a pool as invalid or incomplete, which the messages say)."""
    findings: list[Finding] = []
    pools: dict[tuple[str, str], list[r.ResourceSlice]] = {}
    for s in slices:
        pools.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    for (driver, pool), members in sorted(pools.items()):
        generation = max(s.spec.pool.generation for s in members)
        current = sorted(
            (s for s in members if s.spec.pool.generation == generation), key=lambda s: s.metadata.name
        )
        pool_id = f"{driver}/{pool}"
        # Declared counter sets of the pool (the first declaration of a name wins, as a lookup would).
        counter_sets: dict[str, r.CounterSet] = {}
        declared_by: dict[str, str] = {}
        if features.partitionable_devices:
            for s in current:
                for i, cs in enumerate(s.spec.shared_counters):
                    if cs.name in counter_sets and declared_by[cs.name] == s.metadata.name:
                        continue  # twice in one slice: the API server's own (per-object) Duplicate error
                    if cs.name in counter_sets:
                        findings.append(
                            Finding(
                                object_ref("ResourceSlice", s.metadata),
                                f"spec.sharedCounters[{i}].name",
                                "Duplicate",
                                f"counter set also declared by ResourceSlice/{declared_by[cs.name]} in pool "
                                f"{pool_id}; the allocator treats the pool as invalid",
                                severity="warning",
                                value=render_value(cs.name),
                            )
                        )
                    else:
                        counter_sets[cs.name] = cs
                        declared_by[cs.name] = s.metadata.name
        seen_devices: dict[tuple[str | None, str], str] = {}
        for s in current:
            ref = object_ref("ResourceSlice", s.metadata)
            for i, d in enumerate(s.spec.devices):
                # Devices of slices for different nodes never meet in one allocation.
                scope = s.spec.node_name
                key = (scope, d.name)
                if key in seen_devices and seen_devices[key] != s.metadata.name:
                    findings.append(
                        Finding(
                            ref,
                            f"spec.devices[{i}].name",
                            "Duplicate",
                            f"device name also used by ResourceSlice/{seen_devices[key]} in pool "
                            f"{pool_id}; the allocator treats the pool as invalid",
                            severity="warning",
                            value=render_value(d.name),
                        )
                    )
                seen_devices.setdefault(key, s.metadata.name)
                if not features.partitionable_devices:
                    continue
                for j, cc in enumerate(d.consumes_counters):
                    cpath = f"spec.devices[{i}].consumesCounters[{j}]"
                    counter_set = counter_sets.get(cc.counter_set)
                    if counter_set is None:
                        findings.append(
                            Finding(
                                ref,
                                cpath + ".counterSet",
                                "Invalid",
                                f"counter set not found: no ResourceSlice of pool {pool_id} "
                                f"(generation {generation}) declares it in sharedCounters; "
                                "the allocator treats the pool as invalid",
                                severity="warning",
                                value=render_value(cc.counter_set),
                            )
                        )
                        continue
                    for name in cc.counters:
                        if name not in counter_set.counters:
                            findings.append(
                                Finding(
                                    ref,
                                    f"{cpath}.counters[{name}]",
                                    "Invalid",
                                    f"counter not found in counter set {cc.counter_set} of pool "
                                    f"{pool_id}; the allocator treats the pool as invalid",
                                    severity="warning",
                                    value=render_value(name),
                                )
                            )
        want = current[0].spec.pool.resource_slice_count
        if want > 0 and len(current) != want:
            first = current[0]
            findings.append(
                Finding(
                    object_ref("ResourceSlice", first.metadata),
                    "spec.pool.resourceSliceCount",
                    "Invalid",
                    f"pool {pool_id} generation {generation} has {len(current)} ResourceSlice(s) among "
                    f"the given objects; the allocator treats the pool as incomplete until all {want} exist",
                    severity="warning",
                    value=render_value(want),
                )
            )
    return findings
