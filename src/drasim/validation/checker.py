"""The checker of one object: error constructors, list helpers and the parts DRA objects share."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Collection, MutableSet, Sequence
from functools import wraps
from typing import Any, TypeVar, cast

import msgspec

from drasim.api import resource as r
from drasim.api.gates import GATE_NAMES, ValidationFeatures
from drasim.api.limits import (
    BINDING_CONDITIONS_MAX_SIZE,
    BINDING_FAILURE_CONDITIONS_MAX_SIZE,
    CEL_SELECTOR_EXPRESSION_MAX_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    DEVICE_SELECTORS_MAX_SIZE,
    DEVICE_TOLERATIONS_MAX_LENGTH,
    DRIVER_NAME_MAX_LENGTH,
    OPAQUE_PARAMETERS_MAX_LENGTH,
    POOL_NAME_MAX_LENGTH,
)
from drasim.api.meta import Condition, NodeSelector, NodeSelectorRequirement, ObjectMeta
from drasim.validation.enums import SKIP_NODE_OPERATIONS, TAINT_EFFECTS, TOLERATION_OPERATORS
from drasim.validation.findings import OMIT, Finding, Omit, go_quote, plain, render_value
from drasim.validation.formats import (
    blen,
    is_c_identifier,
    is_condition_reason,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from drasim.validation.paths import child, index

# A CEL check: (expression, features) -> None when fine, else (finding type, message).
CelChecker = Callable[[str, ValidationFeatures], "tuple[str, str] | None"]

T = TypeVar("T")
NameCheck = Callable[["Checker", str, str], None]
_MAX_NAMES = 100_000  # per check: beyond that, names are checked each time (memory stays bounded)


def per_name(check: NameCheck) -> NameCheck:
    """Work out the findings of a check of one name once per distinct name.

    Such a check depends on the name alone (no gates) and reports only at the path it is given, so its
    findings for a name are the same everywhere but for the object and the path; a fleet repeats the
    same attribute names, device names and drivers on every device and slice.
    """
    memo: dict[str, tuple[Finding, ...]] = {}

    @wraps(check)
    def checked(self: Checker, name: str, path: str) -> None:
        found = memo.get(name)
        if found is None:
            probe = _probe()
            check(probe, name, "")
            found = tuple(probe.findings)
            assert all(f.path == "" for f in found), check.__name__  # reports at its path only
            if len(memo) < _MAX_NAMES:
                memo[name] = found
        for f in found:
            self.findings.append(Finding(self.obj, path, f.type, f.message, f.severity, f.value))

    return checked


class _NoGates:
    """The gates of a probe: a check memoised by name must not read them (the name alone is the key)."""

    def __getattr__(self, gate: str) -> Any:
        raise AssertionError(f"a check memoised by name read the gate {gate}")


def _no_cel(expression: str, features: ValidationFeatures) -> None:
    raise AssertionError("a check memoised by name compiled CEL")


_NO_GATES = cast(ValidationFeatures, _NoGates())


def _probe() -> Checker:
    """A checker for working out what a check of a name alone finds (at the path ""): one per name a fleet
    does not repeat (each slice's and node's own), so it is made cheaply."""
    return Checker("", _NO_GATES, _no_cel)


_VALID_QUALIFIED: set[str] = set()  # names `Checker.qualified_name` finds nothing wrong with
_VALID_LABELS: set[str] = set()  # names `Checker.dns_label` finds nothing wrong with


def valid_qualified_names(names: Collection[str]) -> bool:
    """Whether `Checker.qualified_name` finds nothing wrong with any of `names` (the attribute or capacity
    names of a device, a dict's keys will do). A name found valid is remembered: a fleet's devices repeat one
    set of names, checked then in one pass in C (hashing each device's tuple of names cost more)."""
    return _VALID_QUALIFIED.issuperset(names) or _all_valid(names, _VALID_QUALIFIED, Checker.qualified_name)


def valid_dns_labels(names: Collection[str]) -> bool:
    """Whether `Checker.dns_label` finds nothing wrong with any of `names` (a slice's device names: a fleet's
    nodes repeat them), remembered as `valid_qualified_names` does."""
    return _VALID_LABELS.issuperset(names) or _all_valid(names, _VALID_LABELS, Checker.dns_label)


def _all_valid(names: Collection[str], valid: set[str], check: NameCheck) -> bool:
    probe = _probe()
    for name in names:
        if name in valid:
            continue
        before = len(probe.findings)
        check(probe, name, "")
        if len(probe.findings) == before and len(valid) < _MAX_NAMES:
            valid.add(name)
    return not probe.findings


class Checker:
    """Collects findings for one object."""

    def __init__(self, obj: str, features: ValidationFeatures, cel_checker: CelChecker) -> None:
        self.obj = obj
        self.features = features
        self.cel_checker = cel_checker
        self.findings: list[Finding] = []

    # ---- primitive error constructors (field.Required, field.Invalid, ...) ----

    def add(
        self, path: str, type_: str, message: str, value: object = OMIT, severity: str = "error"
    ) -> None:
        rendered = None if isinstance(value, Omit) else render_value(value)
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
            path, "NotSupported", "supported values: " + ", ".join(go_quote(s) for s in supported), value
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
            item(it, index(path, i))
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
                self.duplicate(index(path, i), k)
            else:
                seen.add(k)

    # ---- names ----

    @per_name
    def driver_name(self, name: str, path: str) -> None:
        """ValidateCSIDriverName (also used for attribute domains)."""
        if not name:
            self.required(path)
        if blen(name) > DRIVER_NAME_MAX_LENGTH:
            self.too_long(path, DRIVER_NAME_MAX_LENGTH)
        for msg in is_dns1123_subdomain(name.lower()):
            self.invalid(path, name, msg)

    @per_name
    def pool_name(self, name: str, path: str) -> None:
        if not name:
            self.required(path)
            return
        if blen(name) > POOL_NAME_MAX_LENGTH:
            self.too_long(path, POOL_NAME_MAX_LENGTH)
        for part in name.split("/"):
            for msg in is_dns1123_subdomain(part):
                self.invalid(path, part, msg)

    @per_name
    def dns_label(self, name: str, path: str) -> None:
        for msg in is_dns1123_label(name):
            self.invalid(path, name, msg)

    def list_map_name(self, name: str, path: str, seen: MutableSet[str]) -> None:
        """The `name` key of a list-map entry (pod and PodGroup resourceClaims): required, unique, a DNS label."""
        if not name:
            self.required(path)
        elif name in seen:
            self.duplicate(path, name)
        else:
            self.dns_label(name, path)
            seen.add(name)

    @per_name
    def dns_subdomain(self, name: str, path: str) -> None:
        for msg in is_dns1123_subdomain(name):
            self.invalid(path, name, msg)

    @per_name
    def label_name(self, name: str, path: str) -> None:
        for msg in is_qualified_name(name):
            self.invalid(path, name, msg)

    @per_name
    def label_value(self, value: str, path: str) -> None:
        for msg in is_valid_label_value(value):
            self.invalid(path, value, msg)

    @per_name
    def device_class_name(self, name: str, path: str) -> None:
        if not name:
            self.required(path)
        else:
            self.dns_subdomain(name, path)

    @per_name
    def c_identifier(self, name: str, path: str) -> None:
        if blen(name) > DEVICE_MAX_ID_LENGTH:
            self.too_long(path, DEVICE_MAX_ID_LENGTH)
        for msg in is_c_identifier(name):
            self.invalid(path, name, msg)

    @per_name
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

    @per_name
    def fully_qualified_name(self, name: str, path: str) -> None:
        self.qualified_name(name, path)
        if "/" not in name:
            self.invalid(
                path, name, "a fully qualified name must be a domain and a name separated by a slash"
            )

    @per_name
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
        terms_path = child(path, "nodeSelectorTerms")
        if not selector.node_selector_terms:
            self.required(terms_path, "must have at least one node selector term")
            return
        for i, term in enumerate(selector.node_selector_terms):
            tp = index(terms_path, i)
            for j, req in enumerate(term.match_expressions):
                self._node_selector_requirement(req, index(child(tp, "matchExpressions"), j))
            for j, req in enumerate(term.match_fields):
                self._node_field_selector_requirement(req, index(child(tp, "matchFields"), j))

    def _node_selector_requirement(self, req: NodeSelectorRequirement, path: str) -> None:
        values_path = child(path, "values")
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
            self.invalid(child(path, "operator"), req.operator, "not a valid selector operator")
        self.label_name(req.key, child(path, "key"))
        for i, v in enumerate(req.values):
            self.label_value(v, index(values_path, i))

    def _node_field_selector_requirement(self, req: NodeSelectorRequirement, path: str) -> None:
        if req.operator in ("In", "NotIn"):
            if len(req.values) != 1:
                self.required(
                    child(path, "values"),
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
        else:
            self.invalid(child(path, "operator"), req.operator, "not a valid selector operator")
        if req.key != "metadata.name":
            self.invalid(child(path, "key"), req.key, "not a valid field selector key")
        else:
            for i, v in enumerate(req.values):
                self.node_name(v, index(child(path, "values"), i))

    # ---- conditions (metav1 ValidateConditions) ----

    def conditions(self, conditions: Sequence[Condition], path: str) -> None:
        seen: set[str] = set()
        for i, cond in enumerate(conditions):
            cp = index(path, i)
            self.label_name(cond.type, child(cp, "type"))
            if cond.status not in ("False", "True", "Unknown"):
                self.not_supported(child(cp, "status"), cond.status, ("False", "True", "Unknown"))
            if cond.observed_generation is not None and cond.observed_generation < 0:
                self.invalid(
                    child(cp, "observedGeneration"),
                    cond.observed_generation,
                    "must be greater than or equal to zero",
                )
            if cond.last_transition_time is None:
                self.required(child(cp, "lastTransitionTime"), "must be set")
            if not cond.reason:
                self.required(child(cp, "reason"), "must be set")
            else:
                for msg in is_condition_reason(cond.reason):
                    self.invalid(child(cp, "reason"), cond.reason, msg)
                if blen(cond.reason) > 1024:
                    self.too_long(child(cp, "reason"), 1024)
            if cond.message is not None and blen(cond.message) > 32768:
                self.too_long(child(cp, "message"), 32768)
            if cond.type in seen:
                self.duplicate(child(cp, "type"), cond.type)
            seen.add(cond.type)

    # ---- raw JSON (opaque parameters, status data) ----

    def raw_json(self, value: Any, path: str, max_len: int) -> None:
        if value is None:
            self.required(path)
            return
        try:
            raw = json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError) as err:
            self.invalid(path, "<value omitted>", f"error parsing data as JSON: {err}")
            return
        if blen(raw) > max_len:
            self.too_long(path, max_len)
        elif not isinstance(value, dict):
            self.invalid(path, "<value omitted>", "must be a valid JSON object")

    # ---- taints and tolerations ----

    def taint(self, taint: r.DeviceTaint, path: str) -> None:
        self.label_name(taint.key, child(path, "key"))
        if taint.value:
            self.label_value(taint.value, child(path, "value"))
        if not taint.effect:
            self.required(child(path, "effect"))
        elif taint.effect not in TAINT_EFFECTS:
            self.not_supported(child(path, "effect"), taint.effect, TAINT_EFFECTS)

    def toleration(self, tol: r.DeviceToleration, path: str) -> None:
        if tol.key:
            self.label_name(tol.key, child(path, "key"))
        operator = tol.operator or "Equal"  # API defaulting
        value = tol.value or ""
        if operator == "Exists":
            if value:
                self.invalid(child(path, "value"), value, "must be empty for operator `Exists`")
        elif operator == "Equal":
            self.label_value(value, child(path, "value"))
        else:
            self.not_supported(child(path, "operator"), operator, TOLERATION_OPERATORS)
        if tol.effect and tol.effect not in TAINT_EFFECTS:
            self.not_supported(child(path, "effect"), tol.effect, TAINT_EFFECTS)

    def tolerations(self, tols: Sequence[r.DeviceToleration], path: str) -> None:
        self.slice(tols, DEVICE_TOLERATIONS_MAX_LENGTH, self.toleration, path)

    def binding_parameters(
        self, conditions: Sequence[str], failure_conditions: Sequence[str], path: str
    ) -> None:
        if not conditions and not failure_conditions:
            return  # the common case: nothing to check
        bc_path = child(path, "bindingConditions")
        bfc_path = child(path, "bindingFailureConditions")
        self.slice(conditions, BINDING_CONDITIONS_MAX_SIZE, self.label_name, bc_path)
        self.slice(failure_conditions, BINDING_FAILURE_CONDITIONS_MAX_SIZE, self.label_name, bfc_path)
        seen: set[str] = set()
        for i, c in enumerate(conditions):
            if c in seen:
                self.duplicate(index(bc_path, i), c)
            seen.add(c)
        seen_failure: set[str] = set()
        for i, c in enumerate(failure_conditions):
            if c in seen_failure:
                self.duplicate(index(bfc_path, i), c)
            seen_failure.add(c)
            if c in seen:
                self.invalid(
                    index(bfc_path, i), c, "bindingFailureConditions must not overlap with bindingConditions"
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
            self.required(child(path, "cel"))
            return
        expr_path = child(path, "cel", "expression")
        expression = selector.cel.expression
        if blen(expression) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
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
            self.required(child(path, "opaque"))
            return
        op = child(path, "opaque")
        self.driver_name(opaque.driver, child(op, "driver"))
        self.raw_json(opaque.parameters, child(op, "parameters"), OPAQUE_PARAMETERS_MAX_LENGTH)

    def skip_node_operations(self, ops: Sequence[str], path: str) -> None:
        for i, op in enumerate(ops):
            if op not in SKIP_NODE_OPERATIONS:
                self.not_supported(index(path, i), op, SKIP_NODE_OPERATIONS)
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
        self.owner_references(meta)

    def owner_references(self, meta: ObjectMeta) -> None:
        """apimachinery's ValidateOwnerReferences (api/validation/objectmeta.go, v1.36.0): every reference
        names apiVersion (with a version), kind, name and uid; at most one is the controller. Its field
        path has no index, as upstream's."""
        path = "metadata.ownerReferences"
        controller = ""
        for ref in meta.owner_references:
            group, slash, version = ref.api_version.rpartition("/")
            if not (version if slash and "/" not in group else ref.api_version if not slash else ""):
                self.invalid(f"{path}.apiVersion", ref.api_version, "version must not be empty")
            for name, value in (("kind", ref.kind), ("name", ref.name), ("uid", ref.uid)):
                if not value:
                    self.invalid(f"{path}.{name}", value, "must not be empty")
            if ref.api_version == "v1" and ref.kind == "Event":
                self.add(path, "Invalid", "/v1, Kind=Event is disallowed from being an owner")
            if ref.controller:
                current = f"{ref.kind}/{ref.name}"
                if controller:
                    self.add(path, "Invalid", 'Only one reference can have Controller set to true. Found "true" in '
                                              f"references for {controller} and {current}")
                else:
                    controller = current



def struct_replace(obj: T, **changes: Any) -> T:
    """msgspec.structs.replace, typed."""
    return msgspec.structs.replace(obj, **changes)  # type: ignore[type-var]
