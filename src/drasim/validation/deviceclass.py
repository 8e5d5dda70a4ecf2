"""DeviceClass validation: selectors, configuration and the extended resource name."""

from __future__ import annotations

from drasim.api import resource as r
from drasim.api.gates import ValidationFeatures
from drasim.api.limits import DEVICE_CONFIG_MAX_SIZE
from drasim.api.meta import object_ref
from drasim.validation.checker import CelChecker, Checker, struct_replace
from drasim.validation.findings import Finding
from drasim.validation.formats import is_extended_resource_name

__all__ = ["store_device_class"]


def store_device_class(
    obj: r.DeviceClass, features: ValidationFeatures, cel_checker: CelChecker
) -> tuple[r.DeviceClass, list[Finding]]:
    """The class's findings and the class as stored (extendedResourceName dropped when its gate is off)."""
    c = Checker(object_ref("DeviceClass", obj.metadata), features, cel_checker)
    c.metadata(obj.metadata, namespaced=False)
    c.selectors(obj.spec.selectors, "spec.selectors")
    c.slice(obj.spec.config, DEVICE_CONFIG_MAX_SIZE, lambda cfg, p: c.opaque_config(cfg.opaque, p), "spec.config")
    stored = obj
    ern = obj.spec.extended_resource_name
    if ern is not None:
        if not c.gate("extended_resource", "spec.extendedResourceName"):
            stored = struct_replace(obj, spec=struct_replace(obj.spec, extended_resource_name=None))
        elif not is_extended_resource_name(ern):
            c.invalid("spec.extendedResourceName", ern, "must be a valid extended resource name")
    return stored, c.findings
