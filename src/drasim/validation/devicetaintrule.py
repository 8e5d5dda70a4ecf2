"""DeviceTaintRule validation: the device selector, the taint and the status conditions."""

from __future__ import annotations

from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.limits import DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS
from drasim.api.meta import object_ref
from drasim.validation.checker import CelChecker, Checker
from drasim.validation.findings import Finding

__all__ = ["validate_device_taint_rule"]


def validate_device_taint_rule(
    obj: r.DeviceTaintRule, features: ValidationFeatures, cel_checker: CelChecker
) -> list[Finding]:
    """The rule's findings (a warning first when the release does not serve DeviceTaintRules)."""
    c = Checker(object_ref("DeviceTaintRule", obj.metadata), features, cel_checker)
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
