"""Convert resource.k8s.io v1beta1/v1beta2/v1alpha3 objects to the v1 shape, on dicts, before decoding."""

from __future__ import annotations

import re
from typing import Any

from drasim.errors import InputError

GROUP = "resource.k8s.io"
V1 = f"{GROUP}/v1"

# resource.k8s.io versions drasim reads and the kinds each can carry (what some release served).
CONVERTIBLE_VERSIONS = ("v1", "v1beta2", "v1beta1", "v1alpha3")

# v1beta1 `devices[].basic`: every field moves up to the device (Convert_v1beta1_Device_To_resource_Device).
_BASIC_FIELDS = frozenset({
    "attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes", "taints",
    "bindsToNode", "bindingConditions", "bindingFailureConditions", "allowMultipleAllocations",
})
# v1beta1 DeviceRequest: these fields are the v1 `exactly` (ExactDeviceRequest), flattened into the request.
_EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations",
                 "capacity")
_REQUEST_FIELDS = frozenset({"name", "firstAvailable", *_EXACT_FIELDS})
# v1alpha3 DeviceTaintSelector fields removed in 1.35; a 1.35+ API server rejects them (strict field
# validation), so drasim does too rather than silently widening the rule.
_REMOVED_TAINT_SELECTOR_FIELDS = ("deviceClassName", "selectors")


class ConversionError(InputError):
    """A v1beta1/v1alpha3 object that has no v1 equivalent (fields in the wrong place, removed fields)."""


def to_v1(data: dict[str, Any], *, source: str | None = None, obj: str | None = None) -> dict[str, Any]:
    """Return `data` (a resource.k8s.io object of any version drasim reads) in the v1 wire shape.

    The input is not modified: changed parts are copied, untouched subtrees are shared. v1 objects are
    returned as they are; v1beta2 only gets its apiVersion rewritten (same schema as v1). Objects of other
    groups are returned unchanged. The original apiVersion is not recorded anywhere.
    """
    api_version = data.get("apiVersion")
    if not isinstance(api_version, str) or not api_version.startswith(GROUP + "/"):
        return data
    version = api_version[len(GROUP) + 1:]
    if version == "v1":
        return data
    if version not in CONVERTIBLE_VERSIONS:
        raise ConversionError(f"unsupported API version {api_version!r} (drasim reads "
                              + ", ".join(f"{GROUP}/{v}" for v in CONVERTIBLE_VERSIONS) + ")",
                              source=source, obj=obj, path="apiVersion")
    out = dict(data)
    out["apiVersion"] = V1
    kind = data.get("kind")
    if version == "v1beta2":
        return out
    if kind == "DeviceTaintRule":
        # v1alpha3 (the only pre-v1beta2 version of this kind) differs only in the removed selector fields.
        _check_taint_rule(out, source=source, obj=obj)
        return out
    # v1beta1, and v1alpha3 as served by 1.32/1.33 (the same schema as v1beta1).
    spec = data.get("spec")
    if not isinstance(spec, dict):
        return out
    if kind == "ResourceSlice":
        out["spec"] = _slice_spec(spec, source=source, obj=obj)
    elif kind == "ResourceClaim":
        out["spec"] = _claim_spec(spec, "spec", source=source, obj=obj)
    elif kind == "ResourceClaimTemplate":
        inner = spec.get("spec")
        if isinstance(inner, dict):
            out["spec"] = {**spec, "spec": _claim_spec(inner, "spec.spec", source=source, obj=obj)}
    return out


def original_path(api_version: str, kind: str, path: str) -> str:
    """Map a field path in the converted v1 object back to the path in the v1beta1 document it came from.

    Used for error messages: a user editing a v1beta1 file sees where the bad field is in *their* file.
    """
    if not api_version.endswith(("/v1beta1", "/v1alpha3")):
        return path
    if kind == "ResourceSlice":
        m = re.match(r"(spec\.devices\[\d+\])\.(\w+)(.*)$", path)
        if m and m.group(2) in _BASIC_FIELDS:
            return f"{m.group(1)}.basic.{m.group(2)}{m.group(3)}"
    elif kind in ("ResourceClaim", "ResourceClaimTemplate"):
        return re.sub(r"^((?:spec\.)+devices\.requests\[\d+\])\.exactly(?=\.|$)", r"\1", path)
    return path


def _slice_spec(spec: dict[str, Any], *, source: str | None, obj: str | None) -> dict[str, Any]:
    out = dict(spec)
    # Convert_v1beta1_ResourceSliceSpec_To_resource_ResourceSliceSpec: "" and false mean "not set".
    if out.get("nodeName") == "":
        del out["nodeName"]
    if out.get("allNodes") is False:
        del out["allNodes"]
    devices = spec.get("devices")
    if isinstance(devices, list):
        out["devices"] = [_device(d, f"spec.devices[{i}]", source=source, obj=obj)
                          for i, d in enumerate(devices)]
    return out


def _device(device: Any, path: str, *, source: str | None, obj: str | None) -> Any:
    if not isinstance(device, dict):
        return device  # typed decoding reports the wrong type
    for key in device:
        if key not in ("name", "basic"):
            raise ConversionError(f'unknown field "{key}" (in v1beta1, device fields go under "basic")',
                                  source=source, obj=obj, path=f"{path}.{key}")
    basic = device.get("basic")
    out = {"name": device["name"]} if "name" in device else {}
    if basic is None:
        return out
    if not isinstance(basic, dict):
        raise ConversionError(f"expected object, got {_json_type(basic)}", source=source, obj=obj,
                              path=f"{path}.basic")
    for key, value in basic.items():
        if key not in _BASIC_FIELDS:
            raise ConversionError(f'unknown field "{key}"', source=source, obj=obj,
                                  path=f"{path}.basic.{key}")
        out[key] = value
    return out


def _claim_spec(spec: dict[str, Any], path: str, *, source: str | None, obj: str | None) -> dict[str, Any]:
    devices = spec.get("devices")
    if not isinstance(devices, dict) or not isinstance(devices.get("requests"), list):
        return spec
    requests = [_request(r, f"{path}.devices.requests[{i}]", source=source, obj=obj)
                for i, r in enumerate(devices["requests"])]
    return {**spec, "devices": {**devices, "requests": requests}}


def _request(request: Any, path: str, *, source: str | None, obj: str | None) -> Any:
    if not isinstance(request, dict):
        return request
    for key in request:
        if key not in _REQUEST_FIELDS:
            raise ConversionError(f'unknown field "{key}"', source=source, obj=obj, path=f"{path}.{key}")
    out: dict[str, Any] = {}
    if "name" in request:
        out["name"] = request["name"]
    # Like upstream's hasAnyMainRequestFieldsSet: any main field set (count 0 / "" count as unset) makes an
    # `exactly`; a request with both `exactly` fields and `firstAvailable` converts to both (invalid, but
    # validation says so, not decoding).
    exactly = {k: request[k] for k in _EXACT_FIELDS if _is_set(k, request.get(k))}
    if exactly:
        out["exactly"] = exactly
    if "firstAvailable" in request:
        out["firstAvailable"] = request["firstAvailable"]
    return out


def _is_set(key: str, value: Any) -> bool:
    """Go's "set" for a flattened v1beta1 request field: non-empty string, non-zero count, non-nil."""
    if key in ("deviceClassName", "allocationMode"):
        return value is not None and value != ""
    if key == "count":
        return value is not None and value != 0
    return value is not None


def _check_taint_rule(data: dict[str, Any], *, source: str | None, obj: str | None) -> None:
    spec = data.get("spec")
    selector = spec.get("deviceSelector") if isinstance(spec, dict) else None
    if not isinstance(selector, dict):
        return
    for key in _REMOVED_TAINT_SELECTOR_FIELDS:
        if key in selector:
            raise ConversionError(
                f'field "{key}" was removed in Kubernetes 1.35: a DeviceTaintRule selects devices only by '
                "driver, pool and device name (dropping it would widen the rule to more devices)",
                source=source, obj=obj, path=f"spec.deviceSelector.{key}")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "array"
    return "object"
