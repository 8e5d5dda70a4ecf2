"""ResourceClaim and ResourceClaimTemplate specs: requests, subrequests, constraints, configuration."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from drasim.api import resource as r
from drasim.api.limits import (
    DEVICE_CONFIG_MAX_SIZE,
    DEVICE_CONSTRAINTS_MAX_SIZE,
    DEVICE_REQUESTS_MAX_SIZE,
    FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
)
from drasim.validation.checker import Checker, struct_replace
from drasim.validation.enums import ALLOCATION_MODES
from drasim.validation.paths import child, index


class RequestNames:
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


class ClaimChecker(Checker):
    """ResourceClaim and ResourceClaimTemplate specs (validateResourceClaimSpec and its parts)."""

    def claim_spec(self, spec: r.ResourceClaimSpec, path: str) -> r.ResourceClaimSpec:
        """Validate a claim spec; returns the spec as the API server keeps it (gated fields dropped)."""
        devices = self._drop_claim_fields(spec.devices, child(path, "devices"))
        dpath = child(path, "devices")
        names = RequestNames(devices.requests)
        self.set(
            devices.requests,
            DEVICE_REQUESTS_MAX_SIZE,
            self.request,
            lambda q: q.name,
            child(dpath, "requests"),
        )
        self.slice(
            devices.constraints,
            DEVICE_CONSTRAINTS_MAX_SIZE,
            lambda c, p: self.constraint(c, p, names),
            child(dpath, "constraints"),
        )
        self.slice(
            devices.config,
            DEVICE_CONFIG_MAX_SIZE,
            lambda c, p: self.claim_config(c, p, names),
            child(dpath, "config"),
        )
        return struct_replace(spec, devices=devices)

    def _drop_claim_fields(self, dc: r.DeviceClaim, path: str) -> r.DeviceClaim:
        requests = []
        for i, req in enumerate(dc.requests):
            rp = index(child(path, "requests"), i)
            changes: dict[str, Any] = {}
            if req.first_available is not None and not self.gate(
                "prioritized_list", child(rp, "firstAvailable")
            ):
                changes["first_available"] = None
            if req.exactly is not None:
                changes_exact = self._drop_request_fields(req.exactly, child(rp, "exactly"))
                if req.exactly.admin_access is not None and not self.gate(
                    "admin_access", child(rp, "exactly", "adminAccess")
                ):
                    changes_exact["admin_access"] = None
                if changes_exact:
                    changes["exactly"] = struct_replace(req.exactly, **changes_exact)
            if req.first_available and "first_available" not in changes:
                subs = []
                for j, sub in enumerate(req.first_available):
                    sub_changes = self._drop_request_fields(sub, index(child(rp, "firstAvailable"), j))
                    subs.append(struct_replace(sub, **sub_changes) if sub_changes else sub)
                changes["first_available"] = subs
            requests.append(struct_replace(req, **changes) if changes else req)
        constraints = []
        for i, c in enumerate(dc.constraints):
            if c.distinct_attribute is not None and not self.gate(
                "consumable_capacity", child(index(child(path, "constraints"), i), "distinctAttribute")
            ):
                c = struct_replace(c, distinct_attribute=None)
            constraints.append(c)
        return struct_replace(dc, requests=requests, constraints=constraints)

    def _drop_request_fields(
        self, req: r.ExactDeviceRequest | r.DeviceSubRequest, path: str
    ) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        if req.tolerations and not self.gate("device_taints", child(path, "tolerations")):
            changes["tolerations"] = []
        if req.capacity is not None and not self.gate("consumable_capacity", child(path, "capacity")):
            changes["capacity"] = None
        return changes

    def request(self, req: r.DeviceRequest, path: str) -> None:
        self.dns_label(req.name, child(path, "name"))
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
                child(path, "firstAvailable"),
            )
        else:
            assert req.exactly is not None
            self.exact_request(req.exactly, child(path, "exactly"))

    def subrequest(self, sub: r.DeviceSubRequest, path: str) -> None:
        self.dns_label(sub.name, child(path, "name"))
        self._request_common(sub, path)

    def exact_request(self, req: r.ExactDeviceRequest, path: str) -> None:
        self._request_common(req, path)

    def _request_common(self, req: r.ExactDeviceRequest | r.DeviceSubRequest, path: str) -> None:
        self.device_class_name(req.device_class_name, child(path, "deviceClassName"))
        self.selectors(req.selectors, child(path, "selectors"))
        mode = req.allocation_mode or "ExactCount"  # API defaulting
        count = req.count or 0
        if mode == "ExactCount" and count == 0:
            count = 1  # API defaulting
        if mode == "All":
            if count != 0:
                self.invalid(
                    child(path, "count"), count, "must not be specified when allocationMode is 'All'"
                )
        elif mode == "ExactCount":
            if count <= 0:
                self.invalid(child(path, "count"), count, "must be greater than zero")
        else:
            self.not_supported(child(path, "allocationMode"), mode, ALLOCATION_MODES)
        self.tolerations(req.tolerations, child(path, "tolerations"))

    def constraint(self, c: r.DeviceConstraint, path: str, names: RequestNames) -> None:
        self.request_refs(c.requests, path, names)
        if c.match_attribute is not None:
            self.fully_qualified_name(c.match_attribute, child(path, "matchAttribute"))
        elif c.distinct_attribute is not None:
            self.fully_qualified_name(c.distinct_attribute, child(path, "distinctAttribute"))
        elif self.features.consumable_capacity:
            self.required(
                path,
                'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                "but multiple fields are set",
            )
        else:
            self.required(child(path, "matchAttribute"))

    def claim_config(
        self, c: r.DeviceClaimConfiguration | r.DeviceAllocationConfiguration, path: str, names: RequestNames
    ) -> None:
        self.request_refs(c.requests, path, names)
        self.opaque_config(c.opaque, path)

    def request_refs(self, refs: Sequence[str], path: str, names: RequestNames) -> None:
        """The `requests` list of a constraint or a configuration: each names a request of the claim, once."""
        self.set(
            refs,
            DEVICE_REQUESTS_MAX_SIZE,
            lambda n, p: self.request_ref(n, p, names),
            lambda n: n,
            child(path, "requests"),
        )

    def request_ref(self, ref: str, path: str, names: RequestNames) -> None:
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
